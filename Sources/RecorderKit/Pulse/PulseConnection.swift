// A threaded mainloop and a connected context: the lock discipline and the server/source queries.
import CPulse
import Glibc

/// Proof that the calling thread holds the mainloop lock. `PulseConnection.withLock` hands one to its
/// closure, and a libpulse callback, which runs on the mainloop thread with the lock held, makes its
/// own (`inCallback`); every method that needs the lock takes one, so a call without it does not compile.
struct MainloopLock {
    fileprivate init() {}

    /// The lock a libpulse callback holds. Only inside one.
    static var inCallback: MainloopLock { MainloopLock() }
}

/// An object whose address libpulse hands back to its callbacks (their `userdata`), unretained: the
/// object clears its callbacks before it goes, so none outlives it.
protocol CallbackTarget: AnyObject {}

extension CallbackTarget {
    /// The `userdata` to register a callback with.
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The object behind a callback's `userdata`.
    static func from(_ userdata: UnsafeMutableRawPointer?) -> Self? {
        userdata.map { Unmanaged<Self>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Why libpulse refused a stream: its words and its code, for a `RecorderError`.
struct PulseFailure: Error {
    let message: String
    let code: Int32
    var cause: RecorderError.UnderlyingError { .init(.pulseAudio, code) }
}

/// Owns `pa_threaded_mainloop` and `pa_context`: one mainloop (and so one mainloop thread) for the
/// object's life; after a loss, `reconnect()` replaces only the context, as cubeb does.
///
/// Rules (libpulse's threaded-mainloop contract, as cubeb keeps it): every libpulse call from a thread
/// other than the mainloop's runs under the lock (`withLock`, which hands out the `MainloopLock` such
/// calls take); callbacks run on the mainloop thread with the lock already held, so they never lock
/// and never block, they only record and `signal`; every wait is a loop that re-checks the context
/// and the stream it waits on at each wake-up.
final class PulseConnection: @unchecked Sendable {
    // @unchecked Sendable: the C handles are only used under the mainloop lock (or before the mainloop
    // starts / after it stops), which is what libpulse requires for cross-thread use; `context` is
    // replaced only under that lock.
    let mainloop: OpaquePointer
    private(set) var context: OpaquePointer
    /// The address tried, for messages: the caller's, PULSE_SERVER, or libpulse's default lookup.
    let serverDescription: String
    private let server: String?
    private let clientName: String
    private var closed = false

    init(server: String?, clientName: String) throws(RecorderError) {
        self.server = server
        self.clientName = clientName
        serverDescription = server ?? getenv("PULSE_SERVER").map { String(cString: $0) }
            ?? "the default server (libpulse's lookup: $PULSE_RUNTIME_PATH or $XDG_RUNTIME_DIR/pulse/native)"
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw RecorderError(.serverUnreachable, "cannot create a PulseAudio mainloop (out of memory?)")
        }
        self.mainloop = mainloop
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), clientName) else {
            pa_threaded_mainloop_free(mainloop)
            throw RecorderError(.serverUnreachable, "cannot create a PulseAudio context (out of memory?)")
        }
        self.context = context
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_context_unref(context)
            closed = true  // deinit frees the mainloop
            throw RecorderError(.serverUnreachable, "cannot start the PulseAudio mainloop thread")
        }
        if let failure = withLock({ lock in connect(context, lock) }) {
            close()
            throw failure
        }
    }

    /// Connects `context` and waits until it is ready or has failed.
    private func connect(_ context: OpaquePointer, _ lock: MainloopLock) -> RecorderError? {
        pa_context_set_state_callback(context, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop))
        if pa_context_connect(context, server, PA_CONTEXT_NOFLAGS, nil) >= 0 {
            while true {
                let state = pa_context_get_state(context)
                if state == PA_CONTEXT_READY { return nil }
                if PA_CONTEXT_IS_GOOD(state) == 0 { break }
                pa_threaded_mainloop_wait(mainloop)
            }
        }
        let code = pa_context_errno(context)
        let named = server != nil || getenv("PULSE_SERVER") != nil  // else the description says "the default server"
        return RecorderError(.serverUnreachable,
            "cannot connect to \(named ? "PulseAudio server " : "")\(serverDescription): \(String(cString: pa_strerror(code))); start PulseAudio "
            + "(or PipeWire's pipewire-pulse), or name a running server with PULSE_SERVER or the server option",
            underlying: .init(.pulseAudio, code))
    }

    /// True while the context is connected and ready.
    func isReady(_ lock: MainloopLock) -> Bool { pa_context_get_state(context) == PA_CONTEXT_READY }

    /// Replaces a failed context with a new one on the same mainloop and connects it (the mainloop
    /// thread goes on: no thread is created). From a thread that is not the mainloop's; streams of the
    /// old context must have been released.
    func reconnect(_ lock: MainloopLock) throws(RecorderError) {
        guard !closed else { throw RecorderError(.invalidState, "the connection was closed") }
        guard let fresh = pa_context_new(pa_threaded_mainloop_get_api(mainloop), clientName) else {
            throw RecorderError(.serverUnreachable, "cannot create a PulseAudio context (out of memory?)")
        }
        release(context)
        context = fresh
        if let failure = connect(fresh, lock) { throw failure }
    }

    private func release(_ context: OpaquePointer) {
        pa_context_set_state_callback(context, nil, nil)
        if PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) != 0 { pa_context_disconnect(context) }
        pa_context_unref(context)
    }

    deinit {
        assert(closed, "PulseConnection to \(serverDescription) deinitialized without close()")
        if !closed { close() }
        pa_threaded_mainloop_free(mainloop)
    }

    /// Runs `body` under the mainloop lock. Never from a libpulse callback (it holds the lock already).
    func withLock<T, E: Error>(_ body: (MainloopLock) throws(E) -> T) throws(E) -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body(MainloopLock())
    }

    /// Waits until `operation` completes, or the context or `stream` goes bad (re-checked at every
    /// wake-up, as cubeb's `operation_wait`); then releases it.
    func wait(for operation: OpaquePointer?, stream: OpaquePointer? = nil, _ lock: MainloopLock) {
        guard let operation else { return }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING
                && PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) != 0
                && stream.map({ PA_STREAM_IS_GOOD(pa_stream_get_state($0)) != 0 }) ?? true {
            pa_threaded_mainloop_wait(mainloop)
        }
        pa_operation_unref(operation)
    }

    // MARK: Streams

    /// A new stream of `format`, big-endian in PulseAudio's default channel order, for the record and
    /// the playback stream alike; its state callback only wakes a thread waiting on the mainloop until
    /// the owner installs its own.
    /// - Throws: `.invalidFormat` with the server's reason.
    func newStream(_ format: StreamFormat, _ lock: MainloopLock) throws(RecorderError) -> OpaquePointer {
        var spec = pa_sample_spec(format: format.sampleFormat.pulseFormat, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channelCount))
        var map = Self.channelMap(format.channelCount)
        guard pa_sample_spec_valid(&spec) != 0, let stream = pa_stream_new(context, "recorder", &spec, &map) else {
            throw RecorderError(.invalidFormat,
                "the server refused the format \(String(cString: pa_sample_format_to_string(spec.format))) \(format.channelCount) ch "
                + "\(format.sampleRate) Hz: "
                + "\(lastError(lock)); choose another rate or channel count", underlying: lastErrorCode(lock))
        }
        pa_stream_set_state_callback(stream, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop))
        return stream
    }

    /// Connects `stream` with `connect` (`pa_stream_connect_record` or `_playback`, returning its
    /// status) and waits until it is ready. On failure the stream is released and libpulse's reason
    /// returned.
    func connect(_ stream: OpaquePointer, _ lock: MainloopLock, with connect: (OpaquePointer) -> Int32) -> PulseFailure? {
        if connect(stream) >= 0 {
            while true {
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_READY { return nil }
                if PA_STREAM_IS_GOOD(state) == 0 || PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) == 0 { break }
                pa_threaded_mainloop_wait(mainloop)
            }
        }
        let failure = PulseFailure(message: lastError(lock), code: pa_context_errno(context))
        Self.release(stream, lock)
        return failure
    }

    /// Clears every callback of `stream`, disconnects it (if still connected) and drops our reference:
    /// no callback of it runs afterwards.
    static func release(_ stream: OpaquePointer, _ lock: MainloopLock) {
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_underflow_callback(stream, nil, nil)
        pa_stream_set_moved_callback(stream, nil, nil)
        pa_stream_set_suspended_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
        pa_stream_unref(stream)
    }

    /// Cancels `operation` if it still runs and drops it.
    static func cancel(_ operation: inout OpaquePointer?, _ lock: MainloopLock) {
        guard let running = operation else { return }
        if pa_operation_get_state(running) == PA_OPERATION_RUNNING { pa_operation_cancel(running) }
        pa_operation_unref(running)
        operation = nil
    }

    /// The channel map for `channels` (PulseAudio's default order: mono, stereo, 5.1…).
    static func channelMap(_ channels: Int) -> pa_channel_map {
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
        return map
    }

    /// The last context error as libpulse words it.
    func lastError(_ lock: MainloopLock) -> String { String(cString: pa_strerror(pa_context_errno(context))) }

    /// The last context error's code, to keep as a RecorderError's cause.
    func lastErrorCode(_ lock: MainloopLock) -> RecorderError.UnderlyingError { .init(.pulseAudio, pa_context_errno(context)) }

    /// The server's name for itself, e.g. "unix:/run/user/1000/pulse/native".
    var serverName: String {
        withLock { _ in pa_context_get_server(context).map { String(cString: $0) } ?? serverDescription }
    }

    // MARK: What the server has

    /// The server's default source and sink names, if it has them.
    func defaults() -> (source: String?, sink: String?) {
        var defaults: (source: String?, sink: String?) = (nil, nil)
        // One answer, then the end: the callback hands on both.
        query({ pa_context_get_server_info($0, { Collector<pa_server_info>.receive($1, 0, $2); Collector<pa_server_info>.receive(nil, 1, $2) }, $1) }) {
            (info: pa_server_info) in
            defaults = (info.default_source_name.map { String(cString: $0) }, info.default_sink_name.map { String(cString: $0) })
        }
        return defaults
    }

    /// The server's own name for its software: "pulseaudio", or "PulseAudio (on PipeWire 0.3.65)".
    func serverSoftware() -> String {
        var name = ""
        query({ pa_context_get_server_info($0, { Collector<pa_server_info>.receive($1, 0, $2); Collector<pa_server_info>.receive(nil, 1, $2) }, $1) }) {
            (info: pa_server_info) in
            name = info.server_name.map { String(cString: $0) } ?? ""
        }
        return name
    }

    /// Every playback sink on the server, in the server's order.
    func sinks() -> [SinkInfo] {
        let defaultName = defaults().sink
        let start = { pa_context_get_sink_info_list($0, { Collector<pa_sink_info>.receive($1, $2, $3) }, $1) }
        return list(start) { (info: pa_sink_info) in
            SinkInfo(index: info.index, name: info.name, description: info.description, spec: info.sample_spec,
                     volume: info.volume, muted: info.mute, isMonitor: false, defaultName: defaultName)
        }
    }

    /// Every capture source on the server, in the server's order, monitors included. (A stream's source
    /// is looked up here before it connects: PulseAudio refuses a stream to a missing source, but
    /// pipewire-pulse accepts it and waits, or falls back, so the answer has to come from the list.)
    func sources() -> [SourceInfo] {
        let defaultName = defaults().source
        let start = { pa_context_get_source_info_list($0, { Collector<pa_source_info>.receive($1, $2, $3) }, $1) }
        return list(start) { (info: pa_source_info) in
            SourceInfo(index: info.index, name: info.name, description: info.description, spec: info.sample_spec,
                       volume: info.volume, muted: info.mute, isMonitor: info.monitor_of_sink != UInt32.max, defaultName: defaultName)
        }
    }

    /// The entries of a list query, each made into an `Entry` by `entry` (see `query`).
    private func list<Info, Entry>(_ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?,
                                   _ entry: @escaping (Info) -> Entry) -> [Entry] {
        var entries: [Entry] = []
        query(start) { entries.append(entry($0)) }
        return entries
    }

    /// Runs an introspection query (`start` issues it with the context and the userdata its callback
    /// hands to `Collector<Info>.receive`) and waits for its end; `take` gets each entry, on the
    /// mainloop thread while this one waits.
    private func query<Info>(_ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?,
                             _ take: @escaping (Info) -> Void) {
        withLock { lock in
            let collector = Collector<Info>(mainloop: mainloop, take: take)
            withExtendedLifetime(collector) {
                wait(for: start(context, collector.userdata), lock)
            }
        }
    }

    /// Disconnects, in libpulse's order: the context under the lock, then the mainloop thread is stopped
    /// without it. The mainloop itself is freed at deinit, so a `lock()` after `close()` is still safe.
    /// Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        withLock { _ in release(context) }
        pa_threaded_mainloop_stop(mainloop)
    }
}

/// The userdata of an introspection query: where its entries go, and whom to wake at its end.
private final class Collector<Info>: CallbackTarget {
    let mainloop: OpaquePointer
    let take: (Info) -> Void

    init(mainloop: OpaquePointer, take: @escaping (Info) -> Void) {
        self.mainloop = mainloop
        self.take = take
    }

    /// In the query's callback (mainloop thread, lock held): an entry (`eol` 0) is taken; the end (or a
    /// failure) wakes the waiting thread.
    static func receive(_ info: UnsafePointer<Info>?, _ eol: Int32, _ userdata: UnsafeMutableRawPointer?) {
        guard let collector = from(userdata) else { return }
        if eol == 0, let info {
            collector.take(info.pointee)
        } else {
            pa_threaded_mainloop_signal(collector.mainloop, 0)
        }
    }
}

// A threaded mainloop and a connected context: the lock discipline and the server/source queries.
import CPulse
import Glibc

/// A capture source as the server describes it.
public struct SourceInfo: Hashable, Sendable {
    /// The server's index for the source (a stream may name it by this number too).
    public let index: Int
    /// The name streams and `--source`/`--device` use.
    public let name: String
    /// The server's description, for people.
    public let description: String
    /// The source's own sample format as PulseAudio names it (e.g. "s16le", "float32le").
    public let sampleFormat: String
    /// Its own rate (the server converts to the stream's).
    public let sampleRate: Int
    /// Its own channel count.
    public let channelCount: Int
    /// True for a sink's monitor (what is being played to that sink).
    public let isMonitor: Bool
    /// True for the server's default source.
    public let isDefault: Bool
}

/// A playback sink as the server describes it.
public struct SinkInfo: Hashable, Sendable {
    /// The server's index for the sink (a stream may name it by this number too).
    public let index: Int
    /// The name streams and `--source`/`--device` use.
    public let name: String
    /// The server's description, for people.
    public let description: String
    /// The sink's own sample format as PulseAudio names it (e.g. "s16le", "float32le").
    public let sampleFormat: String
    /// Its own rate (the server converts to the stream's).
    public let sampleRate: Int
    /// Its own channel count.
    public let channelCount: Int
    /// True for the server's default sink.
    public let isDefault: Bool
}

/// Owns `pa_threaded_mainloop` and `pa_context`: one mainloop (and so one mainloop thread) for the
/// object's life; after a loss, `reconnect()` replaces only the context, as cubeb does.
///
/// Rules (libpulse's threaded-mainloop contract, as cubeb keeps it): every libpulse call from a thread
/// other than the mainloop's runs under `lock()`; callbacks run on the mainloop thread with the lock
/// already held, so they never lock and never block, they only record and `signal`.
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
        lock()
        let failure = connect(context)
        unlock()
        if let failure {
            close()
            throw failure
        }
    }

    /// Connects `context` and waits until it is ready or has failed. Call with the lock held.
    private func connect(_ context: OpaquePointer) -> RecorderError? {
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

    /// True while the context is connected and ready. Call with the lock held.
    var isReady: Bool { pa_context_get_state(context) == PA_CONTEXT_READY }

    /// Replaces a failed context with a new one on the same mainloop and connects it (the mainloop
    /// thread goes on: no thread is created). Call with the lock held, from a thread that is not the
    /// mainloop's; streams of the old context must have been released.
    func reconnect() throws(RecorderError) {
        guard !closed else { throw RecorderError(.invalidState, "the connection was closed") }
        guard let fresh = pa_context_new(pa_threaded_mainloop_get_api(mainloop), clientName) else {
            throw RecorderError(.serverUnreachable, "cannot create a PulseAudio context (out of memory?)")
        }
        release(context)
        context = fresh
        if let failure = connect(fresh) { throw failure }
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

    func lock() { pa_threaded_mainloop_lock(mainloop) }
    func unlock() { pa_threaded_mainloop_unlock(mainloop) }

    /// Runs `body` under the mainloop lock.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (lock held) until `operation` completes or the context goes bad; then releases it.
    func wait(for operation: OpaquePointer?) {
        guard let operation else { return }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING
                && PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) != 0 {
            pa_threaded_mainloop_wait(mainloop)
        }
        pa_operation_unref(operation)
    }

    /// The last context error as libpulse words it.
    /// A new stream of `format` as signed 16-bit big-endian in PulseAudio's default channel order, for
    /// the record and the playback stream alike; its state callback only wakes a thread waiting on the
    /// mainloop until the owner installs its own. Call with the lock held (it stays held).
    /// - Throws: `.invalidFormat` with the server's reason.
    func newStream(_ format: StreamFormat) throws(RecorderError) -> OpaquePointer {
        var spec = pa_sample_spec(format: format.sampleFormat.pulseFormat, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channelCount))
        var map = Self.channelMap(format.channelCount)
        guard pa_sample_spec_valid(&spec) != 0, let stream = pa_stream_new(context, "recorder", &spec, &map) else {
            throw RecorderError(.invalidFormat,
                "the server refused the format s16be \(format.channelCount) ch \(format.sampleRate) Hz: \(lastError); "
                + "choose another rate or channel count", underlying: lastErrorCode)
        }
        pa_stream_set_state_callback(stream, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop))
        return stream
    }

    /// The channel map for `channels` (PulseAudio's default order: mono, stereo, 5.1…).
    static func channelMap(_ channels: Int) -> pa_channel_map {
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
        return map
    }

    var lastError: String { String(cString: pa_strerror(pa_context_errno(context))) }

    /// The last context error's code, to keep as a RecorderError's cause.
    var lastErrorCode: RecorderError.UnderlyingError { .init(.pulseAudio, pa_context_errno(context)) }

    /// The server's name for itself, e.g. "unix:/run/user/1000/pulse/native".
    var serverName: String {
        withLock { pa_context_get_server(context).map { String(cString: $0) } ?? serverDescription }
    }

    /// The server's default source name, if it has one.
    func defaultSourceName() -> String? { serverDefaults().source }

    /// The server's default sink name, if it has one.
    func defaultSinkName() -> String? { serverDefaults().sink }

    private func serverDefaults() -> (source: String?, sink: String?) {
        final class Result { var source: String?; var sink: String? }
        let result = Result()
        withLock {
            let context = ResultContext(mainloop: mainloop, payload: result)
            withExtendedLifetime(context) {
                wait(for: pa_context_get_server_info(self.context, { _, info, userdata in
                    let context = Unmanaged<ResultContext>.fromOpaque(userdata!).takeUnretainedValue()
                    let result = context.payload as! Result
                    if let name = info?.pointee.default_source_name { result.source = String(cString: name) }
                    if let name = info?.pointee.default_sink_name { result.sink = String(cString: name) }
                    pa_threaded_mainloop_signal(context.mainloop, 0)
                }, Unmanaged.passUnretained(context).toOpaque()))
            }
        }
        return (result.source, result.sink)
    }

    /// Whether the server has a sink of this name (asked before connecting a playback stream, for the
    /// same reason as `hasSource`).
    func hasSink(named name: String) -> Bool {
        exists { context, userdata in
            pa_context_get_sink_info_by_name(context, name, { _, info, eol, userdata in
                PulseConnection.answerExists(eol == 0 && info != nil, userdata)
            }, userdata)
        }
    }

    /// Runs an introspection query by name and waits for its answer: true if an entry came back.
    private func exists(_ query: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?) -> Bool {
        let result = ExistsResult()
        withLock {
            let context = ResultContext(mainloop: mainloop, payload: result)
            withExtendedLifetime(context) {
                wait(for: query(self.context, Unmanaged.passUnretained(context).toOpaque()))
            }
        }
        return result.found
    }

    /// In an introspection callback of `exists`: records an entry, or wakes the waiter at the end.
    private static func answerExists(_ entry: Bool, _ userdata: UnsafeMutableRawPointer?) {
        let context = Unmanaged<ResultContext>.fromOpaque(userdata!).takeUnretainedValue()
        if entry {
            (context.payload as! ExistsResult).found = true
        } else {
            pa_threaded_mainloop_signal(context.mainloop, 0)
        }
    }

    /// Every playback sink on the server, in the server's order.
    func sinks() -> [SinkInfo] {
        final class Result { var sinks: [SinkInfo] = [] }
        let result = Result()
        let defaultName = defaultSinkName()
        withLock {
            let context = ResultContext(mainloop: mainloop, payload: result)
            withExtendedLifetime(context) {
                wait(for: pa_context_get_sink_info_list(self.context, { _, info, eol, userdata in
                    let context = Unmanaged<ResultContext>.fromOpaque(userdata!).takeUnretainedValue()
                    if eol == 0, let info = info?.pointee {
                        let spec = info.sample_spec
                        (context.payload as! Result).sinks.append(SinkInfo(
                            index: Int(info.index), name: String(cString: info.name),
                            description: info.description.map { String(cString: $0) } ?? "",
                            sampleFormat: String(cString: pa_sample_format_to_string(spec.format)),
                            sampleRate: Int(spec.rate), channelCount: Int(spec.channels), isDefault: false))
                    } else {
                        pa_threaded_mainloop_signal(context.mainloop, 0)
                    }
                }, Unmanaged.passUnretained(context).toOpaque()))
            }
        }
        return result.sinks.map { sink in
            SinkInfo(index: sink.index, name: sink.name, description: sink.description, sampleFormat: sink.sampleFormat,
                     sampleRate: sink.sampleRate, channelCount: sink.channelCount, isDefault: sink.name == defaultName)
        }
    }

    /// Whether the server has a source of this name. Asked before connecting a stream: PulseAudio
    /// refuses a stream to a missing source, but pipewire-pulse accepts it and waits (or falls back),
    /// so the answer has to come from the source list itself.
    func hasSource(named name: String) -> Bool {
        exists { context, userdata in
            pa_context_get_source_info_by_name(context, name, { _, info, eol, userdata in
                PulseConnection.answerExists(eol == 0 && info != nil, userdata)
            }, userdata)
        }
    }

    /// Every capture source on the server, in the server's order.
    func sources() -> [SourceInfo] {
        final class Result { var sources: [SourceInfo] = [] }
        let result = Result()
        let defaultName = defaultSourceName()
        withLock {
            let context = ResultContext(mainloop: mainloop, payload: result)
            withExtendedLifetime(context) {
                wait(for: pa_context_get_source_info_list(self.context, { _, info, eol, userdata in
                    let context = Unmanaged<ResultContext>.fromOpaque(userdata!).takeUnretainedValue()
                    if eol == 0, let info = info?.pointee {
                        let spec = info.sample_spec
                        (context.payload as! Result).sources.append(SourceInfo(
                            index: Int(info.index), name: String(cString: info.name),
                            description: info.description.map { String(cString: $0) } ?? "",
                            sampleFormat: String(cString: pa_sample_format_to_string(spec.format)),
                            sampleRate: Int(spec.rate),
                            channelCount: Int(spec.channels),
                            isMonitor: info.monitor_of_sink != UInt32.max,
                            isDefault: false))
                    } else {
                        pa_threaded_mainloop_signal(context.mainloop, 0)
                    }
                }, Unmanaged.passUnretained(context).toOpaque()))
            }
        }
        return result.sources.map { source in
            SourceInfo(index: source.index, name: source.name, description: source.description, sampleFormat: source.sampleFormat,
                       sampleRate: source.sampleRate, channelCount: source.channelCount,
                       isMonitor: source.isMonitor, isDefault: source.name == defaultName)
        }
    }

    /// Disconnects, in libpulse's order: the context under the lock, then the mainloop thread is stopped
    /// without it. The mainloop itself is freed at deinit, so a `lock()` after `close()` is still safe.
    /// Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        lock()
        release(context)
        unlock()
        pa_threaded_mainloop_stop(mainloop)
    }
}

/// The answer of `exists`.
private final class ExistsResult { var found = false }

/// The userdata of an introspection callback: where to put the answer and whom to wake.
private final class ResultContext {
    let mainloop: OpaquePointer
    let payload: AnyObject
    init(mainloop: OpaquePointer, payload: AnyObject) {
        self.mainloop = mainloop
        self.payload = payload
    }
}

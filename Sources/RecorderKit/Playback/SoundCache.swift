// Short sounds kept by the server and played on demand (PulseAudio's sample cache, which pipewire-pulse
// serves too): what system sounds and alerts are made of. Each play is a sink input of its own on the
// server, and its end is the server removing that sink input.
import CPulse
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// Sounds uploaded to the server once and played there on demand, each play mixed into a sink as its own
/// stream, with a call when it has played to the end: the way desktops play event sounds, and what
/// System Sound Services is built on.
///
/// Every method may be called from any thread, handlers included; none waits for longer than the server
/// takes to answer. `finished` handlers run on the cache's own serial queue, never on PulseAudio's thread.
public final class SoundCache: CallbackTarget, @unchecked Sendable {
    // @unchecked Sendable: `connection`'s handles are used under its mainloop lock, `plays` under its own
    // lock (taken inside the mainloop lock, never the other way round); the rest is set in init.
    private let connection: PulseConnection
    /// Seconds of silence after each sound: pipewire-pulse plays a kept sound in whole quanta of its graph
    /// and drops the last part one (22 050 frames played as 20 480, measured), so there a sound is followed
    /// by more than its largest quantum (8 192 frames) of silence and its end is heard; its completion comes
    /// that much later. PulseAudio plays a sound to its last frame: none.
    private let trailingSilence: Double
    private let queue = DispatchQueue(label: "recorder.sound-cache")
    private let plays = Locked(Plays())

    /// The plays waiting for the server. Its answers to one context come in the order it was asked, so the
    /// plays waiting for their sink input form a queue (appended under the mainloop lock, in the order
    /// asked). Sink inputs removed while an answer was still due are kept (64 deep) for it.
    private struct Plays {
        var awaitingIndex: [@Sendable (Bool) -> Void] = []
        var awaitingEnd: [UInt32: @Sendable (Bool) -> Void] = [:]
        var removedEarly: [UInt32] = []
        var closed = false
    }

    /// The most a kept sound may hold decoded (PulseAudio's limit on a sample-cache entry: 16 MiB).
    public static let largestSoundBytes = 16 * 1_024 * 1_024

    /// Connects to `server` (nil: libpulse's usual lookup).
    /// - Throws: `.serverUnreachable` naming the server.
    public init(server: String? = nil) throws(RecorderError) {
        connection = try PulseConnection(server: server, clientName: "recorder sounds")
        trailingSilence = connection.serverSoftware().contains("PipeWire") ? 0.2 : 0
        connection.withLock { _ in
            pa_context_set_subscribe_callback(connection.context, { _, event, index, userdata in
                SoundCache.from(userdata)?.serverEvent(event, index)
            }, userdata)
            if let operation = pa_context_subscribe(connection.context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil) {
                pa_operation_unref(operation)
            }
        }
    }

    deinit { close() }

    /// Uploads the sound file at `path` (anything libsndfile reads, decoded to 32-bit float at its own rate
    /// and channels) as `name`, replacing a sound of that name. At most `maximumSeconds` long (NaN or
    /// below 0: none is) and `largestSoundBytes` decoded.
    /// - Throws: `.cannotReadFile` naming the path (also for a FIFO, socket or device), `.invalidFormat` for a sound too long, `.streamFailed`
    ///   with the server's reason, `.invalidState` after `close()`.
    public func add(file path: String, as name: String, maximumSeconds: Double = 30) throws(RecorderError) {
        // A kept sound is a file: a FIFO, a socket or a device would block the open or never end.
        var status = stat()
        if stat(path, &status) == 0, ![S_IFREG, S_IFDIR].contains(status.st_mode & S_IFMT) {
            throw RecorderError(.cannotReadFile, "cannot keep '\(path)' as a sound: not a regular file (a FIFO, socket or device); "
                                + "give a sound file")
        }
        let reader = try SoundFileReader(path: path)
        defer { reader.close() }
        let frames = reader.frameCount, channels = reader.channelCount, rate = reader.sampleRate
        guard frames > 0 else { throw RecorderError(.cannotReadFile, "'\(path)' holds no audio; give a sound file with some") }
        let bytes = Int64(channels) * 4 * frames
        let tenths = (Double(frames) / Double(rate) * 10).rounded() / 10
        guard !(Double(frames) / Double(rate) > maximumSeconds), bytes <= Int64(Self.largestSoundBytes) else {
            throw RecorderError(.invalidFormat, "'\(path)' lasts \(tenths) s (\(bytes) bytes decoded): a kept sound may last "
                + "\(maximumSeconds) s and hold \(Self.largestSoundBytes) bytes; shorten it, or play it with a Player")
        }
        let padding = Int(trailingSilence * Double(rate))
        var samples = [Float](repeating: 0, count: (Int(frames) + padding) * channels)
        let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: Int(frames)) }
        if let failure = reader.readError { throw failure }
        try upload(samples, frames: read + padding, channels: channels, rate: rate, as: name)
    }

    /// Uploads `frames` of `samples` (interleaved 32-bit float) as `name`, and waits until the server has them.
    private func upload(_ samples: [Float], frames: Int, channels: Int, rate: Int, as name: String) throws(RecorderError) {
        let length = frames * channels * 4
        try connection.withLock { lock throws(RecorderError) in
            guard !plays.withLock({ $0.closed }) else { throw RecorderError(.invalidState, "the sound cache was closed") }
            var spec = pa_sample_spec(format: 1.littleEndian == 1 ? PA_SAMPLE_FLOAT32LE : PA_SAMPLE_FLOAT32BE, rate: UInt32(rate), channels: UInt8(clamping: channels))
            var map = PulseConnection.channelMap(channels)
            guard channels <= 32, pa_sample_spec_valid(&spec) != 0, let stream = pa_stream_new(connection.context, name, &spec, &map) else {
                throw RecorderError(.invalidFormat, "the server cannot keep the sound '\(name)' as \(channels) ch \(rate) Hz: "
                    + "\(connection.lastError(lock)); convert it to at most 32 channels at a usual rate")
            }
            pa_stream_set_state_callback(stream, { _, userdata in
                pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
            }, UnsafeMutableRawPointer(connection.mainloop))
            if let failure = connection.connect(stream, lock, with: { pa_stream_connect_upload($0, length) }) {
                throw RecorderError(.streamFailed, "cannot upload the sound '\(name)' to \(connection.serverDescription): "
                    + "\(failure.message)", underlying: failure.cause)
            }
            let written = samples.withUnsafeBytes { pa_stream_write(stream, $0.baseAddress, length, nil, 0, PA_SEEK_RELATIVE) }
            let finishing = written == 0 && pa_stream_finish_upload(stream) == 0
            // An upload stream ends (TERMINATED) once the server has the sound; every wake-up re-checks it and the context.
            while finishing, PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0,
                  PA_CONTEXT_IS_GOOD(pa_context_get_state(connection.context)) != 0 {
                pa_threaded_mainloop_wait(connection.mainloop)
            }
            let kept = finishing && pa_stream_get_state(stream) == PA_STREAM_TERMINATED
            let reason = connection.lastError(lock), code = connection.lastErrorCode(lock)
            PulseConnection.release(stream, lock)
            guard kept else {
                throw RecorderError(.streamFailed, "the server \(connection.serverDescription) did not keep the sound '\(name)': \(reason)",
                                    underlying: code)
            }
        }
    }

    /// Plays the sound `name` on `sink` (nil: the default sink) at `volume` (1: as recorded; clamped to
    /// 0...1, NaN taken as 1). `finished` runs once, on the cache's queue: true when the sound has played
    /// to its end (the server removed its stream), false if it could not start (no such sound or sink,
    /// the server gone) or the cache was closed first.
    public func play(_ name: String, sink: String? = nil, volume: Double = 1, finished: (@Sendable (Bool) -> Void)? = nil) {
        let handler = finished ?? { _ in }
        let gain = volume.isNaN ? 1 : min(1, max(0, volume))
        let asked: Bool = connection.withLock { lock in
            // Closed: the context is gone, and is not to be touched.
            let askedNow: Bool = plays.withLock { plays in
                guard !plays.closed else { return false }
                plays.awaitingIndex.append(handler)
                return true
            }
            guard askedNow else { return false }
            guard connection.isReady(lock) else {
                _ = plays.withLock { $0.awaitingIndex.popLast() }
                return false
            }
            let operation = pa_context_play_sample_with_proplist(connection.context, name, sink, pa_sw_volume_from_linear(gain), nil, {
                _, index, userdata in SoundCache.from(userdata)?.answered(index: index)
            }, userdata)
            guard let operation else {
                _ = plays.withLock { $0.awaitingIndex.popLast() }
                return false
            }
            pa_operation_unref(operation)
            return true
        }
        if !asked { queue.async { handler(false) } }
    }

    /// Removes the sound `name` from the server (nothing if it has none). Plays under way go on.
    public func remove(_ name: String) {
        connection.withLock { lock in
            guard !plays.withLock({ $0.closed }), connection.isReady(lock),
                  let operation = pa_context_remove_sample(connection.context, name, nil, nil) else { return }
            pa_operation_unref(operation)
        }
    }

    /// Disconnects; plays still under way are told `false`. Idempotent.
    public func close() {
        let waiting: [@Sendable (Bool) -> Void]? = connection.withLock { _ in
            plays.withLock { plays in
                guard !plays.closed else { return nil }
                plays.closed = true
                defer { plays.awaitingIndex = []; plays.awaitingEnd = [:] }
                return plays.awaitingIndex + Array(plays.awaitingEnd.values)
            }
        }
        guard let waiting else { return }
        connection.withLock { _ in pa_context_set_subscribe_callback(connection.context, nil, nil) }
        connection.close()
        for handler in waiting { queue.async { handler(false) } }
    }

    // MARK: The server's answers (mainloop thread, lock held: they record and hand on, never block)

    /// The oldest play asked has its sink input `index` (or failed: PA_INVALID_INDEX).
    private func answered(index: UInt32) {
        let outcome: (handler: @Sendable (Bool) -> Void, played: Bool)? = plays.withLock { plays in
            guard !plays.awaitingIndex.isEmpty else { return nil }
            let handler = plays.awaitingIndex.removeFirst()
            if index == UInt32.max { return (handler, false) }
            if let early = plays.removedEarly.firstIndex(of: index) {
                plays.removedEarly.remove(at: early)
                return (handler, true)
            }
            plays.awaitingEnd[index] = handler
            return nil
        }
        if let outcome { queue.async { outcome.handler(outcome.played) } }
    }

    /// A sink input went away: the end of a play if it is one of ours.
    private func serverEvent(_ event: pa_subscription_event_type_t, _ index: UInt32) {
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
        guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue, kind == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue else { return }
        let handler: (@Sendable (Bool) -> Void)? = plays.withLock { plays in
            if let handler = plays.awaitingEnd.removeValue(forKey: index) { return handler }
            if !plays.awaitingIndex.isEmpty {
                plays.removedEarly.append(index)
                if plays.removedEarly.count > 64 { plays.removedEarly.removeFirst() }
            }
            return nil
        }
        if let handler { queue.async { handler(true) } }
    }
}

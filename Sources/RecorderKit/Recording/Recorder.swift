// The public face of RecorderKit: an AudioQueue-style recorder over PulseAudio.
import Glibc
import Synchronization
import Locking

/// Records audio from a PulseAudio (or pipewire-pulse) source the way AudioQueue Services do.
///
/// Creating a `Recorder` connects, starts capture and metering (monitor mode: no file yet).
/// `record(to:)` starts writing packets to a new file, `stopRecording()` writes every frame captured so
/// far and closes it while capture goes on, `stop()` (or deinit) ends capture.
///
/// Capture runs through `bufferCount` rotating buffers of `bufferDuration` (3 × 100 ms by default):
/// libpulse's read callback fills one, hands it on when full and takes the next free one; a delivery
/// thread meters it, passes it to the input handler and the file, and returns it to the free set.
/// When no buffer is free, the read callback leaves the data in libpulse's receive queue and reads
/// on as soon as one is freed; only if that queue is about to overflow (`maxQueueDuration`) are frames
/// dropped: counted (`droppedFrames`), reported as an event with their position, and replaced by
/// silence of the same length so a file stays time-aligned.
///
/// ## Threads
/// Every method may be called from any thread, including the input handler (which runs on the
/// delivery thread), a `levelReadings()`/`events()`/`meterReadings(_:)` consumer, a signal handler's
/// dispatch queue, and a `deinit` on any thread; none deadlocks. Control calls (`stopRecording()`,
/// `stop()`) are requests: the delivery thread carries them out between buffers, and the caller waits
/// for the outcome on a condition (or, in the `async` variants, suspends without blocking a thread).
/// Made from the input handler itself, they complete before they return: the buffer the handler was
/// given is already in the file, and the recording ends with it. `waitForRecording()` is the one call
/// that cannot be made from the handler (it would wait for itself): it throws `.invalidState` there.
public final class Recorder: AudioMetering, Sendable {

    /// The capture format: big-endian PCM of its sample format (signed 16-bit by default) at this rate
    /// and channel count.
    public let format: StreamFormat
    /// The source being recorded (the server's default resolved to its name).
    public let sourceName: String
    /// The server connected to, as libpulse names it.
    public let serverName: String
    /// Frames in each capture buffer (4 410 for 100 ms at 44.1 kHz).
    public let bufferFrameCapacity: Int
    /// How many buffers rotate.
    public let bufferCount: Int

    /// The meters (see `AudioMetering`), fed by the delivery thread with every buffer captured.
    public let metering: Metering

    let capture: any CaptureSide
    let delivery: Delivery
    let lifecycle = Locked(Lifecycle())
    /// AVAudioRecorder's side: the path `record()` records to, and the last failure of its calls.
    let avState = Locked(AVState())

    struct AVState {
        var path: String?
        var lastError: RecorderError?
    }

    struct Lifecycle {
        var stopped = false
        var encoderQuality: Double?
        var metadata = RecordingMetadata()
        var peakData: PeakFormat?
    }

    /// The lossy encoder's quality for the recordings started from now on (AVEncoderAudioQualityKey),
    /// 0 (smallest) to 1 (best); nil (the default): libsndfile's. Applies to Ogg Vorbis, Opus and MP3;
    /// `record(to:)` refuses it for another type, and a value outside 0…1 (or NaN), in one line.
    /// Any thread.
    public var encoderQuality: Double? {
        get { lifecycle.withLock { $0.encoderQuality } }
        set { lifecycle.withLock { $0.encoderQuality = newValue } }
    }

    /// Waveform data for the recordings started from now on (nil, the default: none): every file a
    /// recording writes gets a binary peak file beside it in audiowaveform's format (its name with
    /// `.dat` for its extension), appended at each buffer and valid at every moment, so a take still
    /// being recorded can be drawn. Not for standard output or a device. A peak file that cannot be
    /// written is given up and said in the summary (`RecordingSummary.peakFailure`); the take goes on.
    /// Any thread.
    public var peakData: PeakFormat? {
        get { lifecycle.withLock { $0.peakData } }
        set { lifecycle.withLock { $0.peakData = newValue } }
    }

    /// What the recordings started from now on write into their files besides the audio: a bext chunk
    /// in WAV and RF64 files (on by default; see `RecordingMetadata`). Any thread.
    public var metadata: RecordingMetadata {
        get { lifecycle.withLock { $0.metadata } }
        set { lifecycle.withLock { $0.metadata = newValue } }
    }

    /// The seconds of audio the server may hold for a recorder with buffers of `bufferDuration`
    /// (`maxQueueDuration`): at least four buffers' worth, at most an hour.
    public static func queueDurationRange(bufferDuration: Double = 0.1) -> ClosedRange<Double> {
        let least = 4 * bufferDuration
        return (least.isFinite && least >= 0 && least <= 3_600 ? least : 3_600)...3_600
    }

    /// The seconds of pre-roll a recorder may keep (`maximumPreRoll`).
    public static let preRollRange: ClosedRange<Double> = 0...60

    /// Connects to the server and starts capturing and metering.
    ///
    /// - Parameters:
    ///   - format: rate, channels and sample format; the server converts its source to it (big-endian).
    ///   - source: a source name (see `Recorder.sources()`), or nil for the one `PULSE_SOURCE` names (as for
    ///     any libpulse program), else the server's default source.
    ///   - server: a server address (`unix:/path`, `tcp:host:port`), or nil for libpulse's usual
    ///     lookup, which honours `PULSE_SERVER`.
    ///   - bufferCount: rotating capture buffers, 2…64 (AudioQueue code typically uses 3).
    ///   - bufferDuration: each buffer's length in seconds, 0.01…2 (whole frames, rounded); also the
    ///     fragment size asked of the server and the metering interval.
    ///   - maxQueueDuration: how much audio (seconds) libpulse may hold for the recorder while every
    ///     buffer is busy (a stalled disk or input handler) before frames are dropped; nil: the server's
    ///     maximum (4 MiB, 47 s of 44.1 kHz mono). At least 4 buffers' worth, at most an hour.
    ///   - reconnectTimeout: when the server or the source goes away, wait this many seconds for it to
    ///     come back and go on in the same file with a gap of silence (nil: end the recording with an
    ///     error at once).
    ///   - maximumPreRoll: seconds of captured audio kept (0…60) so that a take may begin before
    ///     `record(to:)` is called (`preRoll:`), as a field recorder's pre-record buffer: memory for that
    ///     much audio is taken once, here; 0 keeps none.
    ///   - clientName: the application name the server shows for the stream (`pactl list source-outputs`).
    /// - Throws: `RecorderError` (`.invalidFormat`, `.serverUnreachable`, `.sourceNotFound`,
    ///   `.streamFailed`) with a one-line message.
    public convenience init(format: StreamFormat = .default, source: String? = nil, server: String? = nil,
                            bufferCount: Int = 3, bufferDuration: Double = 0.1,
                            maxQueueDuration: Double? = nil, reconnectTimeout: Double? = nil, maximumPreRoll: Double = 0,
                            clientName: String = "recorder") throws(RecorderError) {
        let bufferFrames = try Self.checkSettings(format: format, bufferCount: bufferCount, bufferDuration: bufferDuration,
                                                  maxQueueDuration: maxQueueDuration, reconnectTimeout: reconnectTimeout,
                                                  maximumPreRoll: maximumPreRoll)
        let capacityBytes = bufferFrames * format.bytesPerFrame
        let pool = BufferPool(count: bufferCount, capacityBytes: capacityBytes)
        let wake = Semaphore()
        let capture = try CaptureStream(format: format, source: source, server: server, clientName: clientName,
                                        fragmentBytes: capacityBytes,
                                        maxQueueBytes: maxQueueDuration.map { Int(format.frames(seconds: $0) ?? 0) * format.bytesPerFrame },
                                        pool: pool, dataReady: wake)
        try self.init(format: format, capture: capture, pool: pool, wake: wake, bufferFrames: bufferFrames,
                      reconnectTimeout: reconnectTimeout, maximumPreRoll: maximumPreRoll)
    }

    /// Starts delivery over a capture side that is already capturing (closed if delivery cannot start).
    init(format: StreamFormat, capture: any CaptureSide, pool: BufferPool, wake: Semaphore, bufferFrames: Int,
         reconnectTimeout: Double?, maximumPreRoll: Double) throws(RecorderError) {
        self.format = format
        self.capture = capture
        bufferCount = pool.count
        bufferFrameCapacity = bufferFrames
        sourceName = capture.sourceName
        serverName = capture.serverName
        delivery = Delivery(format: format, pool: pool, capture: capture, wake: wake,
                            reconnectTimeout: reconnectTimeout,
                            preRollFrames: Int(format.frames(seconds: maximumPreRoll) ?? 0))
        metering = Metering(readout: delivery.readout)
        try delivery.start()
    }

    /// Checks the recorder's settings before anything connects; returns the buffer's length in frames.
    static func checkSettings(format: StreamFormat, bufferCount: Int, bufferDuration: Double, maxQueueDuration: Double?,
                              reconnectTimeout: Double?, maximumPreRoll: Double) throws(RecorderError) -> Int {
        guard (2...64).contains(bufferCount) else {
            throw RecorderError(.invalidFormat, "invalid buffer count \(bufferCount): use 2 to 64 buffers")
        }
        guard let bufferFrames = Self.bufferFrames(bufferDuration, format: format) else {
            throw RecorderError(.invalidFormat,
                "invalid buffer duration \(bufferDuration) s: use 0.01 to 2 seconds (0.1 s is the design default)")
        }
        if let maxQueueDuration, !(maxQueueDuration.isFinite && Self.queueDurationRange(bufferDuration: bufferDuration).contains(maxQueueDuration)) {
            throw RecorderError(.invalidFormat,
                "invalid queue duration \(maxQueueDuration) s: use at least 4 buffers' worth (\(4 * bufferDuration) s) "
                + "and at most an hour (3600 s; the server caps it at 4 MiB anyway)")
        }
        if let reconnectTimeout, !(reconnectTimeout.isFinite && reconnectTimeout >= 0) {
            throw RecorderError(.invalidFormat, "invalid reconnect timeout \(reconnectTimeout) s: use 0 or more seconds")
        }
        guard maximumPreRoll.isFinite, Self.preRollRange.contains(maximumPreRoll) else {
            throw RecorderError(.invalidFormat,
                "invalid pre-roll \(maximumPreRoll) s: use \(Int(Self.preRollRange.lowerBound)) to \(Int(Self.preRollRange.upperBound)) seconds")
        }
        return bufferFrames
    }

    deinit { stop() }

    /// A buffer duration (seconds, 0.01…2) in whole frames at `format`'s rate, at least one; nil outside
    /// the range.
    static func bufferFrames(_ seconds: Double, format: StreamFormat) -> Int? {
        guard seconds.isFinite, (0.01...2).contains(seconds), let frames = format.frames(seconds: seconds) else { return nil }
        return max(1, Int(frames))
    }

    /// Writes every frame captured so far, finalizes the header and closes the file; capture and
    /// metering continue. Like AudioQueueFlush before AudioQueueStop, it first asks the server how much
    /// it has captured and waits (up to half a second) until all of that has arrived, so nothing the
    /// server holds for this stream is thrown away. Returns nil when nothing was being recorded.
    ///
    /// Threads: any. It is a request carried out by the delivery thread between buffers; the caller
    /// blocks until the file is closed (use the `async` variant from Swift concurrency). From the input
    /// handler it completes at once: the recording ends with the buffer the handler was given.
    /// - Throws: the recording's error if it ended by a failure (the file is still closed and valid).
    @discardableResult
    public func stopRecording() throws(RecorderError) -> RecordingSummary? {
        if delivery.worker.isCurrentThread { return try delivery.stopRecordingInline() }
        guard let number = delivery.requestStop() else { return nil }
        delivery.worker.wait { $0.finishedNumber >= number || $0.exited }
        return try delivery.result(of: number)
    }

    /// `stopRecording()` for Swift concurrency: suspends until the file is closed, blocking no thread.
    @discardableResult
    public func stopRecording() async throws(RecorderError) -> RecordingSummary? {
        guard let number = delivery.requestStop() else { return nil }
        await delivery.worker.wait { $0.finishedNumber >= number || $0.exited }
        return try delivery.result(of: number)
    }

    /// Blocks until the current recording ends (its duration reached, stopRecording, or a failure) and
    /// returns its summary. When no recording is in progress (a short one may already have ended), it
    /// returns at once with the most recent recording's summary, or nil if there was none.
    ///
    /// Threads: any but the delivery thread: from the input handler it would wait for itself, so it
    /// throws `.invalidState` there. Use the `async` variant from Swift concurrency.
    /// - Throws: the recording's error if it ended by a failure (the file is still closed and valid).
    @discardableResult
    public func waitForRecording() throws(RecorderError) -> RecordingSummary? {
        if delivery.worker.isCurrentThread {
            throw RecorderError(.invalidState,
                "waitForRecording() was called from the input handler, whose return the recording waits for; "
                + "call stopRecording() there, or wait from another thread")
        }
        let number = delivery.control.withLock { $0.recording?.number }
        if let number { delivery.worker.wait { $0.finishedNumber >= number || $0.exited } }
        return try delivery.result(of: number)
    }

    /// `waitForRecording()` for Swift concurrency: suspends until the recording ends, blocking no thread.
    @discardableResult
    public func waitForRecording() async throws(RecorderError) -> RecordingSummary? {
        let number = delivery.control.withLock { $0.recording?.number }
        if let number { await delivery.worker.wait { $0.finishedNumber >= number || $0.exited } }
        return try delivery.result(of: number)
    }

    /// The summary of the most recent recording that ended, if any.
    public var lastRecording: RecordingSummary? { delivery.control.withLock { $0.lastSummary } }

    // MARK: Metering

    /// Sample peak of channel 0 over the latest buffer, in dBFS (0 = full scale, −160 = silence).
    public func getPeakPower() -> Float { levelMeterState(channel: 0).peakPower }

    /// RMS of channel 0 over the latest buffer, in dBFS (a full-scale sine reads −3.01).
    public func getAveragePower() -> Float { levelMeterState(channel: 0).averagePower }

    /// Sample peak of `channel` (0 …) over the latest buffer, in dBFS.
    /// - Throws: `.invalidChannel` for a channel the recorder does not capture. (AVAudioRecorder's
    ///   `peakPower(forChannel:)` reads −160 for it instead, as Apple's does.)
    public func getPeakPower(channel: Int) throws(RecorderError) -> Float {
        try checkChannel(channel)
        return levelMeterState(channel: channel).peakPower
    }

    /// RMS of `channel` (0 …) over the latest buffer, in dBFS.
    /// - Throws: `.invalidChannel` for a channel the recorder does not capture.
    public func getAveragePower(channel: Int) throws(RecorderError) -> Float {
        try checkChannel(channel)
        return levelMeterState(channel: channel).averagePower
    }

    private func checkChannel(_ channel: Int) throws(RecorderError) {
        guard (0..<format.channelCount).contains(channel) else {
            throw RecorderError(.invalidChannel,
                "there is no channel \(channel): the recorder captures \(format.channelCount) channel"
                + (format.channelCount == 1 ? " (0)" : "s (0 to \(format.channelCount - 1))"))
        }
    }

    /// One `LevelMeterState` per channel for the latest buffer (kAudioQueueProperty_CurrentLevelMeterDB).
    public var currentLevelMeterStates: [LevelMeterState] { delivery.readout.currentLevels.withLock { $0 } }

    private func levelMeterState(channel: Int) -> LevelMeterState {
        delivery.readout.currentLevels.withLock { levels in
            levels.indices.contains(channel) ? levels[channel]
                : LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence)
        }
    }

    /// A stream of events (dropped frames, finished recordings, capture failure) until `stop()`.
    public func events() -> AsyncStream<RecorderEvent> { delivery.events.makeStream() }

    /// Receives every filled buffer on the delivery thread (never the PulseAudio thread), like an
    /// AudioQueue input callback; the buffer is re-used once the handler returns. A slow handler
    /// holds up the buffers: past `bufferCount` of them, audio waits in libpulse's queue, and past
    /// `maxQueueDuration` frames are dropped, counted and replaced by silence.
    public func setInputHandler(_ handler: (@Sendable (CapturedBuffer) -> Void)?) {
        let boxed = handler.map(InputHandler.init)
        delivery.inputHandler.withLock { $0 = boxed }
    }

    /// Frames delivered through the buffers (dropped ones included) since capture began.
    public var capturedFrames: Int64 { delivery.framePosition.load(ordering: .acquiring) }

    /// Frames lost in capture since it began (holes reported by the server, or dropped because the
    /// receive queue was about to overflow), each replaced by silence.
    public var droppedFrames: Int64 { capture.droppedFrameCount }

    /// Frames of silence written for reconnection gaps since capture began.
    public var gapFrames: Int64 { capture.gapFrameCount }

    /// How long a frame takes from being captured to being delivered (seconds): the source's latency at
    /// the server's last timing answer, plus one buffer (a frame waits for its buffer to fill); nil
    /// before the server has answered (within a second of the start). Any thread.
    public var captureLatency: Double? {
        let microseconds = capture.latencyMicroseconds
        guard microseconds >= 0 else { return nil }
        return Double(microseconds) / 1e6 + Double(bufferFrameCapacity) / Double(format.sampleRate)
    }

    // MARK: Lifecycle

    /// Ends capture: closes any recording (as `stopRecording()`), disconnects, and finishes the streams.
    /// Idempotent; also called on deinit.
    ///
    /// Threads: any. The caller blocks until capture has ended (use the `async` variant from Swift
    /// concurrency). From the input handler (or a deinit that runs there) it returns at once, having
    /// closed the recording with the handler's buffer; nothing more is delivered, and capture ends when
    /// the handler returns.
    public func stop() {
        markStopped()
        if delivery.worker.isCurrentThread {
            delivery.shutdownInline()
            return
        }
        delivery.worker.wait { $0.exited }
    }

    /// `stop()` for Swift concurrency: suspends until capture has ended, blocking no thread.
    public func stop() async {
        markStopped()
        await delivery.worker.wait { $0.exited }
    }

    private func markStopped() {
        let first = lifecycle.withLock { lifecycle -> Bool in
            defer { lifecycle.stopped = true }
            return !lifecycle.stopped
        }
        if first { delivery.requestShutdown() }
    }

    // MARK: The server

    /// The capture sources of a server (nil: libpulse's usual lookup), monitors included.
    public static func sources(server: String? = nil) throws(RecorderError) -> [SourceInfo] {
        let connection = try PulseConnection(server: server, clientName: "recorder")
        defer { connection.close() }
        return connection.sources()
    }
}

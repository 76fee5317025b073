// The public face of RecorderKit: an AudioQueue-style recorder over PulseAudio.
import Glibc
import Synchronization

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
public final class Recorder: @unchecked Sendable {
    // @unchecked Sendable: the mutable state lives in `Delivery` (locks/atomics), `CaptureStream`
    // (mainloop lock) and `lifecycle` (a lock); the remaining stored properties are immutable.

    /// The capture format (signed 16-bit big-endian PCM at this rate and channel count).
    public let format: StreamFormat
    /// The source being recorded (the server's default resolved to its name).
    public let sourceName: String
    /// The server connected to, as libpulse names it.
    public let serverName: String
    /// Frames in each capture buffer (4 410 for 100 ms at 44.1 kHz).
    public let bufferFrameCapacity: Int
    /// How many buffers rotate.
    public let bufferCount: Int

    private let capture: CaptureStream
    private let delivery: Delivery
    private let dataReady = Semaphore()
    private let lifecycle = Locked(Lifecycle())
    /// AVAudioRecorder's side: the path `record()` records to, and the last failure of its calls.
    private let avState = Locked(AVState())
    private let metering = MeteringSnapshot()

    private struct AVState {
        var path: String?
        var lastError: RecorderError?
    }

    private struct Lifecycle {
        var stopped = false
        var encoderQuality: Double?
    }

    /// The lossy encoder's quality for the recordings started from now on (AVEncoderAudioQualityKey),
    /// 0 (smallest) to 1 (best); nil (the default): libsndfile's. Applies to Ogg Vorbis, Opus and MP3;
    /// `record(to:)` refuses it for another type, and a value outside 0…1 (or NaN), in one line.
    /// Any thread.
    public var encoderQuality: Double? {
        get { lifecycle.withLock { $0.encoderQuality } }
        set { lifecycle.withLock { $0.encoderQuality = newValue } }
    }

    /// Connects to the server and starts capturing and metering.
    ///
    /// - Parameters:
    ///   - format: rate and channels; the server converts its source to signed 16-bit big-endian.
    ///   - source: a source name (see `Recorder.sources()`), or nil for the server's default source.
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
    public init(format: StreamFormat = .default, source: String? = nil, server: String? = nil,
                bufferCount: Int = 3, bufferDuration: Double = 0.1,
                maxQueueDuration: Double? = nil, reconnectTimeout: Double? = nil, maximumPreRoll: Double = 0,
                clientName: String = "recorder") throws(RecorderError) {
        guard (2...64).contains(bufferCount) else {
            throw RecorderError(.invalidFormat, "invalid buffer count \(bufferCount): use 2 to 64 buffers")
        }
        guard let bufferFrames = Self.bufferFrames(bufferDuration, format: format) else {
            throw RecorderError(.invalidFormat,
                "invalid buffer duration \(bufferDuration) s: use 0.01 to 2 seconds (0.1 s is the design default)")
        }
        if let maxQueueDuration, !(maxQueueDuration.isFinite && (4 * bufferDuration...3_600).contains(maxQueueDuration)) {
            throw RecorderError(.invalidFormat,
                "invalid queue duration \(maxQueueDuration) s: use at least 4 buffers' worth (\(4 * bufferDuration) s) "
                + "and at most an hour (3600 s; the server caps it at 4 MiB anyway)")
        }
        if let reconnectTimeout, !(reconnectTimeout.isFinite && reconnectTimeout >= 0) {
            throw RecorderError(.invalidFormat, "invalid reconnect timeout \(reconnectTimeout) s: use 0 or more seconds")
        }
        guard maximumPreRoll.isFinite, (0...60).contains(maximumPreRoll) else {
            throw RecorderError(.invalidFormat, "invalid pre-roll \(maximumPreRoll) s: use 0 to 60 seconds")
        }
        self.format = format
        self.bufferCount = bufferCount
        bufferFrameCapacity = bufferFrames
        let capacityBytes = bufferFrameCapacity * format.bytesPerFrame
        let pool = BufferPool(count: bufferCount, capacityBytes: capacityBytes)
        capture = try CaptureStream(format: format, source: source, server: server, clientName: clientName,
                                    fragmentBytes: capacityBytes,
                                    maxQueueBytes: maxQueueDuration.map { Int(format.frames(seconds: $0) ?? 0) * format.bytesPerFrame },
                                    pool: pool, dataReady: dataReady)
        sourceName = capture.sourceName
        serverName = capture.serverName
        delivery = Delivery(format: format, pool: pool, capture: capture, dataReady: dataReady,
                            reconnectTimeout: reconnectTimeout,
                            preRollFrames: Int(format.frames(seconds: maximumPreRoll) ?? 0))
        try delivery.start()
    }

    deinit { stop() }

    /// A buffer duration (seconds, 0.01…2) in whole frames at `format`'s rate, at least one; nil outside
    /// the range.
    static func bufferFrames(_ seconds: Double, format: StreamFormat) -> Int? {
        guard seconds.isFinite, (0.01...2).contains(seconds), let frames = format.frames(seconds: seconds) else { return nil }
        return max(1, Int(frames))
    }

    // MARK: Recording to a file

    /// Starts writing captured packets to a new file at `path`; capture and metering go on as before.
    ///
    /// The container follows the extension: `.aiff`/`.aif` (classic AIFF, big-endian 16-bit), `.wav`,
    /// `.caf`, `.flac`, `.au`, `.raw`, `.w64`, `.rf64` (see `FileType`), or `fileType`. `path` "-" is
    /// standard output (AU unless `fileType` says otherwise; a pipe takes AU, raw, FLAC, Ogg Vorbis, Opus or MP3; no splitting).
    /// The file starts with the first frame captured after this call.
    /// - Parameters:
    ///   - path: the file to create (or "-", standard output).
    ///   - overwrite: replace an existing file (AudioFile's EraseFile flag); off by default, when an
    ///     existing file is an error and is left untouched.
    ///   - frameLimit: stop by itself after exactly this many frames (see `record(to:duration:)`).
    ///   - preRoll: begin this many seconds before now, from the audio the recorder keeps
    ///     (`maximumPreRoll`): at most that, and at most what was captured since the recorder started.
    ///   - time: begin with the frame captured at this time, in `deviceCurrentTime`'s seconds
    ///     (CLOCK_MONOTONIC), as AVAudioRecorder's `record(atTime:)`: a time to come is waited for (the
    ///     recording is on, `currentTime` stays 0 until then); a time past begins as far back as the kept
    ///     audio allows. The frame is reckoned from the arrival of the last data at the sample rate: it is
    ///     the one captured at `time` within a fragment (`bufferDuration`) and the source's latency.
    ///     `preRoll` counts back from it.
    ///   - fileType: the container, when the extension does not say it (or says another).
    ///   - maxFramesPerFile: split the recording: when a file reaches this many frames, or
    ///     `maxBytesPerFile`, or what its container can describe (4 GiB for AIFF and AU, always applied; WAV becomes RF64),
    ///     it is closed and the recording goes on, frame-exact, in `name-002.ext`, `name-003.ext`…
    ///     (`RecordingSummary.files`).
    ///   - maxBytesPerFile: split the recording when a file would grow past this many bytes, header included.
    /// - Returns: the recorder frame position of the file's first frame (compare with
    ///   `LevelReading.endFrame` and `CapturedBuffer.startFrame`).
    ///
    /// Any thread, the input handler included (the file then starts after the handler's buffer).
    @discardableResult
    public func record(to path: String, overwrite: Bool = false, frameLimit: Int64? = nil,
                       preRoll: Double = 0, startingAt time: Double? = nil,
                       maxFramesPerFile: Int64? = nil, maxBytesPerFile: Int64? = nil,
                       fileType: FileType? = nil) throws(RecorderError) -> Int64 {
        try startRecording(to: path, overwrite: overwrite, frameLimit: frameLimit, preRoll: preRoll, startingAt: time,
                           maxFramesPerFile: maxFramesPerFile, maxBytesPerFile: maxBytesPerFile, trigger: nil,
                           fileType: fileType)
    }

    /// Records sound-activated takes, as a field recorder's auto-record or sox's `silence` effect, live:
    /// from now on a take begins when the level rises above `trigger.startAbove` (with `preRoll`
    /// seconds before that buffer, so the onset is not clipped) and ends after it stayed below
    /// `trigger.stopBelow` for `trigger.hang`. Each take goes into a numbered file, `name-001.ext`,
    /// `name-002.ext`… (the first is created now, so a bad path fails here), or with `oneFile` one after
    /// another into `path`. The recording lasts until `stopRecording()` (an open take ends there), or
    /// `frameLimit` frames of listening; `RecordingSummary.takes` lists the takes, and the events
    /// `takeStarted` / `takeEnded` report them as they happen. A recording that never took leaves no
    /// file. `pause()` does nothing to it; markers may be added (between takes, one goes to the next
    /// take's first frame).
    ///
    /// Threads: as `record(to:)`.
    /// - Parameters:
    ///   - path: the name the takes' files are numbered after (or the one file, with `oneFile`).
    ///   - trigger: the levels and hang time that start and end a take.
    ///   - overwrite: replace existing files.
    ///   - frameLimit: stop listening after this many frames.
    ///   - preRoll: seconds (0 … the recorder's `maximumPreRoll`) a take reaches back from the buffer that
    ///     started it; no further back than the end of the take before it, or this call.
    /// - Returns: the recorder frame from which the recording listens.
    @discardableResult
    public func record(to path: String, trigger: SoundTrigger, preRoll: Double = 0, overwrite: Bool = false,
                       frameLimit: Int64? = nil) throws(RecorderError) -> Int64 {
        guard trigger.startAbove.isFinite, (-159...0).contains(trigger.startAbove) else {
            throw RecorderError(.invalidFormat,
                "invalid start threshold \(trigger.startAbove) dBFS: use -159 to 0 dBFS, e.g. -40")
        }
        guard trigger.stopBelow.isFinite, (-160...trigger.startAbove).contains(trigger.stopBelow) else {
            throw RecorderError(.invalidFormat,
                "invalid stop threshold \(trigger.stopBelow) dBFS: use -160 dBFS up to the start threshold (\(trigger.startAbove))")
        }
        guard trigger.hang.isFinite, (0...3_600).contains(trigger.hang) else {
            throw RecorderError(.invalidFormat, "invalid hang time \(trigger.hang) s: use 0 to 3600 seconds")
        }
        guard path != "-" else {
            throw RecorderError(.invalidFormat,
                "cannot record sound-activated takes to standard output: each take is a file of its own; give a file name")
        }
        return try startRecording(to: path, overwrite: overwrite, frameLimit: frameLimit, preRoll: preRoll, startingAt: nil,
                                  maxFramesPerFile: nil, maxBytesPerFile: nil, trigger: trigger, fileType: nil)
    }

    private func startRecording(to path: String, overwrite: Bool, frameLimit: Int64?, preRoll: Double,
                                startingAt time: Double?, maxFramesPerFile: Int64?, maxBytesPerFile: Int64?,
                                trigger: SoundTrigger?, fileType: FileType?) throws(RecorderError) -> Int64 {
        if path == "-" && (maxFramesPerFile != nil || maxBytesPerFile != nil) {
            throw RecorderError(.invalidFormat,
                "cannot split a recording to standard output into numbered files; give a file name to split")
        }
        guard preRoll.isFinite, preRoll >= 0, let preRollFrames = format.frames(seconds: preRoll) else {
            throw RecorderError(.invalidFormat,
                "invalid pre-roll \(preRoll) s: use 0 to \(seconds(Double(delivery.maximumPreRollFrames) / Double(format.sampleRate))) seconds "
                + "(the recorder's maximumPreRoll)")
        }
        if let time, !(time.isFinite && time >= 0 && time < 1e9) {
            throw RecorderError(.invalidFormat,
                "invalid start time \(time) s: use a time in deviceCurrentTime's seconds (now: \(deviceCurrentTime))")
        }
        if let frameLimit, !(0...StreamFormat.maxFrameCount).contains(frameLimit) {
            throw RecorderError(.invalidFormat,
                "invalid frame limit \(frameLimit): use 0 to \(StreamFormat.maxFrameCount) frames")
        }
        if let maxFramesPerFile, !(1...StreamFormat.maxFrameCount).contains(maxFramesPerFile) {
            throw RecorderError(.invalidFormat,
                "invalid file length \(maxFramesPerFile) frames: use 1 to \(StreamFormat.maxFrameCount) frames")
        }
        if let maxBytesPerFile, maxBytesPerFile < 1 {
            throw RecorderError(.invalidFormat,
                "invalid file size limit \(maxBytesPerFile) bytes: use a positive number of bytes, more than the header")
        }
        let start = try lifecycle.withLock { lifecycle throws(RecorderError) -> Int64 in
            guard !lifecycle.stopped else {
                throw RecorderError(.invalidState, "cannot record to '\(path)': the recorder was stopped; create a new Recorder")
            }
            if let current = delivery.control.withLock({ $0.recordingPath }) {
                throw RecorderError(.invalidState,
                    "cannot record to '\(path)': already recording to '\(current)'; call stopRecording() first")
            }
            // Numbered takes: the first take's file, made ready now.
            let firstPath = trigger.map { $0.oneFile ? path : FileType.numberedPath(path, 1) } ?? path
            let writer = try SoundFileWriter(path: firstPath, format: format, overwrite: overwrite,
                                             maxFramesPerWrite: bufferFrameCapacity, fileType: fileType,
                                             quality: lifecycle.encoderQuality)
            if FileSession.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile,
                                 bytesPerFrame: format.bytesPerFrame) < 1 {
                writer.close()
                if !overwrite && !writer.isStandardOutput && !writer.isDevice { unlink(writer.path) }
                throw RecorderError(.invalidFormat,
                    "invalid file size limit \(maxBytesPerFile ?? 0) bytes: the \(writer.fileType.rawValue.uppercased()) "
                    + "header alone takes \(writer.headerBytes); allow more")
            }
            return capture.withLock {
                // The lock holds the read callback off: every frame after `start` reaches the new session.
                var start = capture.framePosition
                if let time { start = capture.frameCaptured(at: Int64((time * 1e9).rounded())) }
                // A sound-activated recording's pre-roll is its takes', not its own.
                if trigger == nil { start -= preRollFrames }
                // Frames before the capture position come from the kept audio, no further back than it
                // reaches (its spare buffers cover the one that may be delivered before the delivery
                // thread takes this recording); without kept audio, a take begins now at the earliest.
                let earliest = delivery.maximumPreRollFrames > 0
                    ? max(0, delivery.framePosition.load(ordering: .acquiring) - delivery.maximumPreRollFrames)
                    : capture.framePosition
                start = max(start, earliest)
                let takes = trigger.map { trigger in
                    TakeState(trigger: trigger, hangFrames: format.frames(seconds: trigger.hang) ?? 0,
                              preRollFrames: preRollFrames, lastEnd: start)
                }
                let session = FileSession(writer: writer, format: format, overwrite: overwrite, startFrame: start,
                                          maxFramesPerFile: maxFramesPerFile, maxBytesPerFile: maxBytesPerFile,
                                          baseName: trigger.map { $0.oneFile ? nil : path } ?? nil, takes: takes)
                delivery.control.withLock { control in
                    control.recordingNumber += 1
                    session.number = control.recordingNumber
                    control.pending = session
                    control.recordingPath = path
                    control.endFrame = frameLimit.map { start + $0 }
                    control.stopRequested = false
                    control.recordingStart = start
                    // Sound-activated: paused (listening) until the first take.
                    control.pauses = trigger == nil ? [] : [PauseSpan(from: start, to: nil)]
                    control.isTriggered = trigger != nil
                    control.markers = []
                    control.remainingAtPause = nil
                }
                return start
            }
        }
        dataReady.post()
        return start
    }

    /// Records exactly `duration` seconds (rounded to whole frames) into `path`, then closes the file by
    /// itself (AVAudioRecorder's `record(forDuration:)`); `waitForRecording()` waits for it.
    @discardableResult
    public func record(to path: String, duration: Double, overwrite: Bool = false) throws(RecorderError) -> Int64 {
        guard let frames = format.frames(seconds: duration) else {
            throw RecorderError(.invalidFormat,
                "invalid duration \(duration) s: use 0 to \(Int64(format.maxSeconds)) seconds at \(format.sampleRate) Hz")
        }
        return try record(to: path, overwrite: overwrite, frameLimit: frames)
    }

    /// True from `record(to:)` until the file is closed (paused included).
    public var isRecording: Bool { delivery.control.withLock { $0.recordingPath != nil } }

    // MARK: Pausing

    /// Pauses the recording, as AudioQueuePause and AVAudioRecorder's `pause()`: frames captured from
    /// now on are left out of the file until `resume()` (or `record()`); capture, the meters, the
    /// readings and the input handler go on. A duration (`record(to:duration:)`) counts recorded time
    /// only: the pause extends the take. Pausing a paused recording does nothing; with nothing being
    /// recorded, as AVAudioRecorder, nothing happens and nil is returned.
    ///
    /// Threads: any, the input handler and the stream consumers included; it never waits for the
    /// delivery thread.
    /// - Returns: the recorder frame where the pause begins (the first frame left out), or nil when
    ///   nothing is being recorded.
    @discardableResult
    public func pause() -> Int64? {
        capture.withLock {
            return delivery.control.withLock { control -> Int64? in
                guard control.recordingPath != nil, !control.isTriggered else { return nil }
                if let open = control.pauses.last, open.to == nil { return open.from }
                // The lock holds the read callback off: the frame is exactly where capture stands (or
                // where a timed take is to begin, if that is still to come).
                let frame = max(capture.positionNow, control.recordingStart)
                control.pauses.append(PauseSpan(from: frame, to: nil))
                // A take of fixed length keeps what it still has to record for after the pause (not
                // once a stop is under way: its cut is the end).
                if !control.stopRequested && !control.shutdownRequested, let end = control.endFrame, end > frame {
                    control.remainingAtPause = end - max(frame, control.recordingStart)
                    control.endFrame = nil
                }
                delivery.events.yield(.recordingPaused(atFrame: frame))
                return frame
            }
        }
    }

    /// Resumes a paused recording (AVAudioRecorder's `record()` after `pause()`): the file goes on with
    /// the next frame captured, joined to the audio before the pause without a frame lost or repeated.
    /// Does nothing when the recording is not paused (or there is none).
    ///
    /// Threads: any, as `pause()`.
    /// - Returns: the recorder frame where the recording resumed, or nil if it was not paused.
    @discardableResult
    public func resume() -> Int64? {
        capture.withLock {
            let frame = capture.positionNow
            return delivery.control.withLock { control -> Int64? in
                guard control.isPaused, let from = control.pauses.last?.from else { return nil }
                let resumed = max(frame, from)
                control.pauses[control.pauses.count - 1].to = resumed
                if let remaining = control.remainingAtPause, !control.stopRequested && !control.shutdownRequested {
                    control.endFrame = resumed + remaining
                    control.remainingAtPause = nil
                }
                delivery.events.yield(.recordingResumed(atFrame: resumed, pausedFrames: resumed - from))
                return resumed
            }
        }
    }

    /// True while the recording is paused.
    public var isPaused: Bool { delivery.control.withLock { $0.isPaused } }

    // MARK: Markers

    /// Marks the frame being captured now in the recording, as a field recorder's marker button: the
    /// file holds it when it is closed (AIFF `MARK`, WAV `cue ` with a `labl` label; CAF and FLAC
    /// cannot, see `RecordingMarker.isStoredInFile`), the summary lists it with its file and frame,
    /// and `.markerAdded` reports it at once. While paused, the marker is at the join; before a timed
    /// or pre-rolled take has reached its first frame, at the take's start; after the recording's end
    /// (a stop being carried out), at its end.
    ///
    /// Threads: any, the input handler and the stream consumers included; it never waits for the
    /// delivery thread.
    /// - Parameter label: the marker's name; empty: "marker N", numbered from 1 in each recording.
    ///   Control characters become spaces, and it is cut to 255 bytes of UTF-8 (AIFF's limit).
    /// - Returns: the marker's position in the recording, in frames from its first frame (across split
    ///   files, paused frames left out).
    /// - Throws: `.invalidState` when nothing is being recorded, or when the recording already has
    ///   32 767 markers (the most a file holds).
    @discardableResult
    public func addMarker(_ label: String = "") throws(RecorderError) -> Int64 {
        try capture.withLock { () -> Result<Int64, RecorderError> in
            delivery.control.withLock { control -> Result<Int64, RecorderError> in
                guard let path = control.recordingPath else {
                    return .failure(RecorderError(.invalidState,
                        "cannot add a marker: nothing is being recorded; call record(to:) first"))
                }
                guard control.markers.count < MarkerChunk.maxCount else {
                    return .failure(RecorderError(.invalidState,
                        "cannot add a marker to '\(path)': it has \(MarkerChunk.maxCount) markers, the most a file holds"))
                }
                // The lock holds the read callback off: the frame is exactly where capture stands.
                var frame = max(capture.framePosition, control.recordingStart)
                if let end = control.endFrame { frame = min(frame, max(end, control.recordingStart)) }
                let position = frame - control.recordingStart - control.pauses.pausedFrames(before: frame)
                let name = label.isEmpty ? "marker \(control.markers.count + 1)" : MarkerChunk.sanitized(label)
                control.markers.append(PendingMarker(position: position, label: name))
                delivery.events.yield(.markerAdded(label: name, atFrame: frame, recordingFrame: position))
                return .success(position)
            }
        }.get()
    }

    /// Seconds recorded into the current recording so far, pauses left out (AVAudioRecorder's
    /// `currentTime`), as of the last buffer delivered; 0 when not recording.
    public var currentTime: Double {
        let position = delivery.framePosition.load(ordering: .acquiring)
        let frames = delivery.control.withLock { control -> Int64 in
            guard control.recordingPath != nil, position > control.recordingStart else { return 0 }
            let end = control.endFrame.map { min($0, position) } ?? position
            return control.pauses.recordedFrames(in: control.recordingStart..<max(control.recordingStart, end))
        }
        return Double(frames) / Double(format.sampleRate)
    }

    // MARK: AVAudioRecorder's names

    /// AVAudioRecorder's `init(url:settings:)`: a recorder that records to `path` when `record()` is
    /// called (the container follows the extension, as for `record(to:)`). Capture and metering start
    /// now, as for `init(format:source:server:…)`.
    public convenience init(path: String, settings: RecorderSettings = RecorderSettings()) throws(RecorderError) {
        let format = try StreamFormat(sampleRate: settings.sampleRate, channelCount: settings.numberOfChannels,
                                      sampleFormat: settings.sampleFormat)
        try self.init(format: format, source: settings.source, server: settings.server,
                      maximumPreRoll: settings.maximumPreRoll)
        avState.withLock { $0.path = path }
        encoderQuality = settings.encoderQuality
    }

    /// The file `record()` records to (AVAudioRecorder's `url`): the path given to `init(path:settings:)`,
    /// else that of the recording in progress or of the last one; nil before any.
    public var path: String? {
        if let path = avState.withLock({ $0.path }) { return path }
        return delivery.control.withLock { $0.recordingPath ?? $0.lastSummary?.path }
    }

    /// Why the last `prepareToRecord()`, `record()`, `record(forDuration:)`, `record(atTime:)` or
    /// `deleteRecording()` returned false (AVAudioRecorder's calls say only false; the one-line error
    /// is kept here); nil after one that succeeded.
    public var lastError: RecorderError? { avState.withLock { $0.lastError } }

    /// AVAudioRecorder's `prepareToRecord()`: capture already runs from creation, so this checks that
    /// `path` is set and that its directory exists and is writable. The file itself is created by
    /// `record()`.
    @discardableResult
    public func prepareToRecord() -> Bool {
        avCall { () throws(RecorderError) in
            let path = try avPath("prepare to record")
            let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            guard access(directory.isEmpty ? "/" : directory, W_OK | X_OK) == 0 else {
                throw RecorderError(.cannotCreateFile,
                    "cannot record to '\(path)': \(String(cString: strerror(errno))) (its directory '\(directory)'); "
                    + "choose a directory that exists and that you may write to")
            }
        }
    }

    /// AVAudioRecorder's `record()`: starts recording to `path`, replacing a file there (as
    /// AVAudioRecorder does), or resumes a paused recording. True if recording now.
    ///
    /// Threads: any, as `record(to:)`.
    @discardableResult
    public func record() -> Bool {
        avCall { () throws(RecorderError) in
            if isPaused { resume(); return }
            if isRecording { return }
            try record(to: try avPath("record"), overwrite: true)
        }
    }

    /// AVAudioRecorder's `record(forDuration:)`: records exactly `duration` seconds to `path`, then
    /// closes the file by itself.
    @discardableResult
    public func record(forDuration duration: Double) -> Bool {
        avCall { () throws(RecorderError) in
            try record(to: try avPath("record"), duration: duration, overwrite: true)
        }
    }

    /// AVAudioRecorder's `record(atTime:)`: records to `path` from the frame captured at `time`, in
    /// `deviceCurrentTime`'s seconds (see `record(to:startingAt:)` for its precision).
    @discardableResult
    public func record(atTime time: Double) -> Bool {
        avCall { () throws(RecorderError) in
            try record(to: try avPath("record"), overwrite: true, startingAt: time)
        }
    }

    /// AVAudioRecorder's `record(atTime:forDuration:)`: `duration` seconds from the frame captured at `time`.
    @discardableResult
    public func record(atTime time: Double, forDuration duration: Double) -> Bool {
        avCall { () throws(RecorderError) in
            guard let frames = format.frames(seconds: duration) else {
                throw RecorderError(.invalidFormat,
                    "invalid duration \(duration) s: use 0 to \(Int64(format.maxSeconds)) seconds at \(format.sampleRate) Hz")
            }
            try record(to: try avPath("record"), overwrite: true, frameLimit: frames, startingAt: time)
        }
    }

    /// AVAudioRecorder's `deleteRecording()`: removes the recorded file (and the numbered files a
    /// split recording went on in). False while recording (stop it first, as AVAudioRecorder asks) or
    /// if a file could not be removed.
    @discardableResult
    public func deleteRecording() -> Bool {
        avCall { () throws(RecorderError) in
            let path = try avPath("delete the recording")
            if path == "-" {
                throw RecorderError(.invalidState, "cannot delete a recording made to standard output; it is not a file")
            }
            if isRecording {
                throw RecorderError(.invalidState,
                    "cannot delete '\(path)' while it is being recorded; call stopRecording() first")
            }
            let last = delivery.control.withLock { $0.lastSummary }
            let files = last?.path == path ? last?.files ?? [path] : [path]
            for file in files where unlink(file) != 0 && errno != ENOENT {
                throw RecorderError(.cannotCreateFile,
                    "cannot delete '\(file)': \(String(cString: strerror(errno))); check the directory's permissions")
            }
        }
    }

    /// The current time of the clock `record(atTime:)` takes (CLOCK_MONOTONIC, seconds), as
    /// AVAudioRecorder's `deviceCurrentTime`; the same clock as `Player.deviceCurrentTime`.
    public var deviceCurrentTime: Double { Double(monotonicNanoseconds()) / 1e9 }

    /// Whether `updateMeters()` takes readings (AVAudioRecorder's `isMeteringEnabled`); off by default,
    /// when `peakPower(forChannel:)` and `averagePower(forChannel:)` read −160. (`getPeakPower()`,
    /// the level streams and the standard meters always run.)
    public var isMeteringEnabled: Bool {
        get { metering.isEnabled }
        set { metering.isEnabled = newValue }
    }

    /// Takes the levels of the latest buffer captured, for `peakPower(forChannel:)` and
    /// `averagePower(forChannel:)` to return until the next call (AVAudioRecorder's `updateMeters()`).
    public func updateMeters() { metering.update(from: delivery.readout) }

    /// Sample peak of `channel` (from 0) as of `updateMeters()`, in dBFS: 0 full scale, −160 silence,
    /// a channel that does not exist, or metering not enabled.
    public func peakPower(forChannel channel: Int) -> Float { metering.peakPower(channel) }

    /// RMS of `channel` as of `updateMeters()`, in dBFS (a full-scale sine reads −3.01); −160 as for
    /// `peakPower(forChannel:)`.
    public func averagePower(forChannel channel: Int) -> Float { metering.averagePower(channel) }

    private func avPath(_ action: String) throws(RecorderError) -> String {
        guard let path = self.path else {
            throw RecorderError(.invalidState,
                "cannot \(action): no file was given; create the recorder with init(path:settings:) or call record(to:)")
        }
        return path
    }

    /// Runs an AVAudioRecorder-style call: true if it succeeded; else false, its error in `lastError`.
    private func avCall(_ body: () throws(RecorderError) -> Void) -> Bool {
        do {
            try body()
            avState.withLock { $0.lastError = nil }
            return true
        } catch {
            avState.withLock { $0.lastError = error }
            return false
        }
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
        if delivery.isCurrentThread { return try delivery.stopRecordingInline() }
        guard let number = delivery.requestStop() else { return nil }
        delivery.wait { $0.finishedNumber >= number || $0.exited }
        return try delivery.result(of: number)
    }

    /// `stopRecording()` for Swift concurrency: suspends until the file is closed, blocking no thread.
    @discardableResult
    public func stopRecording() async throws(RecorderError) -> RecordingSummary? {
        guard let number = delivery.requestStop() else { return nil }
        await delivery.wait { $0.finishedNumber >= number || $0.exited }
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
        if delivery.isCurrentThread {
            throw RecorderError(.invalidState,
                "waitForRecording() was called from the input handler, whose return the recording waits for; "
                + "call stopRecording() there, or wait from another thread")
        }
        let number = delivery.control.withLock { $0.recordingPath != nil ? $0.recordingNumber : nil }
        if let number { delivery.wait { $0.finishedNumber >= number || $0.exited } }
        return try delivery.result(of: number)
    }

    /// `waitForRecording()` for Swift concurrency: suspends until the recording ends, blocking no thread.
    @discardableResult
    public func waitForRecording() async throws(RecorderError) -> RecordingSummary? {
        let number = delivery.control.withLock { $0.recordingPath != nil ? $0.recordingNumber : nil }
        if let number { await delivery.wait { $0.finishedNumber >= number || $0.exited } }
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

    /// A stream of readings, one per completed buffer, from now until `stop()`. Each call makes a new,
    /// independent stream; none drops a reading.
    public func levelReadings() -> AsyncStream<LevelReading> { delivery.readout.levels.makeStream() }

    /// A stream of `kind` meter readings, one per completed buffer, from now until `stop()`: each call
    /// makes a new meter, fed on the delivery thread with every buffer from now on (a loudness meter's
    /// integrated value covers what it was fed). The meters are defined in `StandardMeter`.
    /// - Throws: `.invalidFormat` for options out of range.
    public func meterReadings(_ kind: MeterKind, options: MeterOptions = MeterOptions()) throws(RecorderError)
        -> AsyncStream<MeterReading> {
        try delivery.readout.meters.makeStream(kind: kind, format: format, options: options)
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
    public var droppedFrames: Int64 { capture.droppedFrames.frames }

    /// Frames of silence written for reconnection gaps since capture began.
    public var gapFrames: Int64 { capture.gapFrames.frames }

    /// For tests: the timeline frame up to which the server had captured when the last stop asked.
    var lastDrain: Locked<Int64?> { delivery.lastDrain }

    /// For the tests: capture has stopped reading for want of a free buffer (a fragment may be peeked).
    var captureIsStalled: Bool { capture.stalled.load(ordering: .acquiring) }

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
        if delivery.isCurrentThread {
            delivery.shutdownInline()
            return
        }
        delivery.wait { $0.exited }
    }

    /// `stop()` for Swift concurrency: suspends until capture has ended, blocking no thread.
    public func stop() async {
        markStopped()
        await delivery.wait { $0.exited }
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

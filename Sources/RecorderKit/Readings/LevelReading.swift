// The values RecorderKit hands to embedders: level readings, captured buffers, events, summaries.
import Synchronization

/// The meter reading of one completed buffer, one state per channel.
public struct LevelReading: Sendable, Hashable {
    /// Frames captured since the recorder started, through this buffer's last frame.
    public let endFrame: Int64
    /// Frames in this buffer (a full buffer, or fewer when a recording stop flushed it early).
    public let frameCount: Int
    /// Seconds of audio since the recorder started, at this buffer's end (`endFrame / sampleRate`):
    /// the capture's clock, which runs from the recorder's creation, paused or not.
    public let time: Double
    /// Per channel: RMS (`averagePower`) and sample peak (`peakPower`) of this buffer, in dBFS.
    public let channels: [LevelMeterState]
    /// While recording: the recording's length in frames once this buffer was written (across split
    /// files, paused frames left out): where the buffer's end is in the file. nil when not recording.
    public let recordingPosition: Int64?
    /// `recordingPosition` in seconds (`currentTime` as of this buffer).
    public let recordingTime: Double?

    init(endFrame: Int64, frameCount: Int, sampleRate: Int, channels: [LevelMeterState], recordingPosition: Int64? = nil) {
        self.endFrame = endFrame
        self.frameCount = frameCount
        time = Double(endFrame) / Double(sampleRate)
        self.channels = channels
        self.recordingPosition = recordingPosition
        recordingTime = recordingPosition.map { Double($0) / Double(sampleRate) }
    }
}

/// One filled capture buffer, as an AudioQueue input callback sees it.
///
/// `bytes` (interleaved big-endian PCM of `format.sampleFormat`: signed 16-bit by default) is valid only
/// during the handler call; copy what you keep. The buffer returns to the free set when the handler returns.
public struct CapturedBuffer {
    /// Position of the first frame since the recorder started (AudioTimeStamp's mSampleTime).
    public let startFrame: Int64
    /// Frames in the buffer.
    public let frameCount: Int
    /// The recorder's format.
    public let format: StreamFormat
    /// Interleaved big-endian PCM of `format.sampleFormat`; valid only during the handler call.
    public let bytes: UnsafeRawBufferPointer

    /// The sample of `channel` in frame `frame`, as a host-order integer; nil outside the buffer, and for
    /// a format other than 16-bit (use `copyFloatSamples`).
    public func sample(frame: Int, channel: Int) -> Int16? {
        guard format.sampleFormat == .int16, (0..<frameCount).contains(frame),
              (0..<format.channelCount).contains(channel) else { return nil }
        let offset = (frame * format.channelCount + channel) * 2
        guard offset + 1 < bytes.count else { return nil }
        return Int16(bitPattern: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
    }

    /// Writes channel `channel`'s samples as floats, full scale ±1.0 (sample / 32 768 for 16 bits; a
    /// float format's NaN and infinities read 0), into
    /// `destination`, without allocating; returns how many (at most the buffer's frames, at most the
    /// destination's count; 0 for a channel the buffer lacks).
    @discardableResult
    public func copyFloatSamples(channel: Int, into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        guard (0..<format.channelCount).contains(channel) else { return 0 }
        let channels = format.channelCount
        let sampleFormat = format.sampleFormat
        let count = min(frameCount, destination.count, bytes.count / (sampleFormat.bytesPerSample * channels))
        for frame in 0..<count {
            destination[frame] = Float(sampleFormat.value(bytes, frame * channels + channel))
        }
        return count
    }

    /// Channel `channel`'s samples as floats, full scale ±1.0; nil for a channel the buffer lacks.
    public func floatSamples(channel: Int) -> [Float]? {
        guard (0..<format.channelCount).contains(channel) else { return nil }
        return [Float](unsafeUninitializedCapacity: frameCount) { storage, initialized in
            initialized = copyFloatSamples(channel: channel, into: storage)
        }
    }

    /// Every channel's samples as floats, deinterleaved: the shape of AVAudioEngine's tap
    /// (`installTap(onBus:bufferSize:format:block:)`, `AVAudioPCMBuffer.floatChannelData`). Allocates.
    public var floatChannelData: [[Float]] {
        (0..<format.channelCount).map { floatSamples(channel: $0) ?? [] }
    }
}

/// A stretch of a recording written as silence because nothing could be captured there.
public struct RecordingGap: Sendable, Hashable {
    /// Why a stretch is silence (its raw value is the JSON spelling).
    public enum Reason: String, Sendable, Hashable {
        /// Frames lost in capture: a hole from the server, dropped because the receive queue was about
        /// to overflow while every buffer was busy, or discarded by the server while this process could
        /// not read (stopped, starved, paused: found by watching the server's clock).
        case dropped
        /// The server or the source went away and the recorder reconnected (the `reconnect` option).
        case serverLost = "server-lost"
        /// The source was suspended and delivered nothing; the time it was silent is kept.
        case suspended
        /// Audio found missing across a pause of the machine (CLOCK_BOOTTIME ran on while
        /// CLOCK_MONOTONIC stood still). The pause itself is owed no silence: the servers' clocks
        /// stood still too.
        case systemSleep = "system-sleep"
    }
    /// Frames from the recording's first frame (across split files) to the gap's first frame.
    public let startFrame: Int64
    /// Frames written as silence.
    public let frameCount: Int64
    /// Why.
    public let reason: Reason
    /// `startFrame` and `frameCount` in seconds.
    public let start: Double
    /// The length in seconds.
    public let duration: Double

    init(startFrame: Int64, frameCount: Int64, reason: Reason, sampleRate: Int) {
        self.startFrame = startFrame
        self.frameCount = frameCount
        self.reason = reason
        start = Double(startFrame) / Double(sampleRate)
        duration = Double(frameCount) / Double(sampleRate)
    }
}

/// What happened to one recording (one `record(to:)` … stop cycle).
public struct RecordingSummary: Sendable, Hashable {
    /// The (first) file.
    public let path: String
    /// Every file written, in order: `path`, then `path-002`, `-003`… when the recording was split.
    public let files: [String]
    /// The container written.
    public let fileType: FileType
    /// Recorder frame position of the first file's first frame.
    public let startFrame: Int64
    /// Frames in the recording (all files together).
    public let frameCount: Int64
    /// Frames inside the recording that were lost in capture and written as silence to keep time.
    public let droppedFrames: Int64
    /// Every stretch written as silence (dropped frames, reconnection gaps), in order.
    public let gaps: [RecordingGap]
    /// Every place where the recording was paused and resumed, in order, one resumed just before the
    /// stop (nothing recorded after it) included; a pause still open when the recording stopped is
    /// where the file ends, and not listed.
    public let pauses: [RecordingPause]
    /// Every marker dropped with `addMarker(_:)`, in order, with the file it is in.
    public let markers: [RecordingMarker]
    /// Sound-activated takes (`record(to:trigger:)`), in order; empty for other recordings. Their
    /// recordings list no `pauses`: the time between takes is what the takes leave out.
    public let takes: [RecordingTake]
    /// Per channel over the whole file: sample peak and RMS in dBFS (same definition as the meters).
    public let levels: [LevelMeterState]
    /// Per channel: samples at full scale (|s| ≥ 32 767) in the file.
    public let clippedSamples: [Int64]
    /// Set when the recording ended because of a failure (write error, capture lost); the file holds
    /// everything written before it and is closed with a valid header.
    public let error: RecorderError?
}

/// When a sound-activated recording (`record(to:trigger:)`) takes: a take begins when a buffer's peak
/// (the loudest channel's) rises above `startAbove`, with the pre-roll before that buffer, so the onset
/// is not clipped; it ends once the peak has stayed below `stopBelow` for `hang` seconds (the quiet
/// tail is kept). Decided per buffer (100 ms by default): a boundary is within one buffer of the
/// crossing. Like sox's `silence` effect, live.
public struct SoundTrigger: Sendable, Hashable {
    /// dBFS (−159 … 0) a buffer's peak must rise above to begin a take.
    public var startAbove: Float
    /// dBFS (−160 … `startAbove`) the peak must stay below, for `hang`, to end it.
    public var stopBelow: Float
    /// Seconds (0 … 3 600) of quiet that end a take.
    public var hang: Double
    /// Every take in `path` itself, one after another, instead of numbered files `name-001.ext`,
    /// `name-002.ext`…
    public var oneFile: Bool

    /// `stopBelow` nil: the same as `startAbove`.
    public init(startAbove: Float, stopBelow: Float? = nil, hang: Double = 2, oneFile: Bool = false) {
        self.startAbove = startAbove
        self.stopBelow = stopBelow ?? startAbove
        self.hang = hang
        self.oneFile = oneFile
    }
}

/// One take of a sound-activated recording.
public struct RecordingTake: Sendable, Hashable {
    /// 1, 2, … in the recording.
    public let number: Int
    /// The file holding it (its first file, should the container's 4 GiB have split it).
    public let path: String
    /// Its first frame in that file (0 for numbered files; with `oneFile`, after the takes before it).
    public let fileFrame: Int64
    /// Frames in the take, pre-roll and quiet tail included.
    public let frameCount: Int64
    /// Recorder frames of its first frame (the pre-roll's) and of the start of the buffer whose peak
    /// rose above the threshold (compare with `LevelReading.endFrame`, `CapturedBuffer.startFrame`).
    public let startFrame: Int64
    /// See `startFrame`.
    public let onsetFrame: Int64
    /// `fileFrame` and `frameCount` in seconds.
    public let start: Double
    /// The length in seconds.
    public let duration: Double

    init(number: Int, path: String, fileFrame: Int64, frameCount: Int64, startFrame: Int64, onsetFrame: Int64,
         sampleRate: Int) {
        self.number = number
        self.path = path
        self.fileFrame = fileFrame
        self.frameCount = frameCount
        self.startFrame = startFrame
        self.onsetFrame = onsetFrame
        start = Double(fileFrame) / Double(sampleRate)
        duration = Double(frameCount) / Double(sampleRate)
    }
}

/// A place in a recording marked with `addMarker(_:)`.
///
/// AIFF files store markers in their `MARK` chunk and WAV files in a `cue ` chunk with `labl` labels
/// (read by libsndfile's `SFC_GET_CUE`, sox, Audacity, DAWs); CAF and FLAC files do not store them, and
/// only this summary and the events list them (`isStoredInFile` false).
public struct RecordingMarker: Sendable, Hashable {
    /// The label (control characters replaced by spaces, at most 255 UTF-8 bytes).
    public let label: String
    /// Frames from the recording's first frame (across split files, paused frames left out).
    public let startFrame: Int64
    /// `startFrame` in seconds.
    public let start: Double
    /// The file the marker is in, and its frame in that file.
    public let path: String
    /// See `path`.
    public let fileFrame: Int64
    /// True when the file holds the marker (AIFF, and WAV up to 4 GiB).
    public let isStoredInFile: Bool

    init(label: String, startFrame: Int64, path: String, fileFrame: Int64, isStoredInFile: Bool, sampleRate: Int) {
        self.label = label
        self.startFrame = startFrame
        start = Double(startFrame) / Double(sampleRate)
        self.path = path
        self.fileFrame = fileFrame
        self.isStoredInFile = isStoredInFile
    }
}

/// A join in a recording: `pause()` left `pausedFrames` captured frames out just before `startFrame`.
public struct RecordingPause: Sendable, Hashable {
    /// File frame where the audio captured after the resume begins (the first frame after the join).
    public let startFrame: Int64
    /// Captured frames left out (the pause's length).
    public let pausedFrames: Int64
    /// `startFrame` in seconds from the file's start.
    public let startTime: Double
    /// The pause's length in seconds.
    public let duration: Double

    init(startFrame: Int64, pausedFrames: Int64, sampleRate: Int) {
        self.startFrame = startFrame
        self.pausedFrames = pausedFrames
        startTime = Double(startFrame) / Double(sampleRate)
        duration = Double(pausedFrames) / Double(sampleRate)
    }
}

/// Things an embedder may want to know as they happen.
public enum RecorderEvent: Sendable, Hashable {
    /// Frames were lost in capture (a hole from the server, the receive queue about to overflow while
    /// every buffer was busy, or the server's queue overflowing while this process could not read); in
    /// a file they are replaced by silence of the same length. Consecutive losses are one event, sent
    /// once the loss has ended (or the recording stops).
    case framesDropped(count: Int64, atFrame: Int64)
    /// The source delivered nothing for `gapFrames` frames from `atFrame` on (`reason` `.suspended` or
    /// `.systemSleep`): the server's clock ran on, so that much silence was written to keep time.
    case sourceGap(gapFrames: Int64, atFrame: Int64, reason: RecordingGap.Reason)
    /// The stream was moved to another source (by the user or the server), from `atFrame` on.
    case sourceMoved(to: String, atFrame: Int64)
    /// The source was suspended (no audio flows until it resumes).
    case sourceSuspended(atFrame: Int64)
    /// The source resumed after a suspension.
    case sourceResumed(atFrame: Int64)
    /// The server or source went away; with the `reconnect` option the recorder is waiting for it.
    case captureInterrupted(RecorderError, atFrame: Int64)
    /// Capture resumed after an interruption; `gapFrames` of silence were written at `atFrame` for the
    /// time away: less what fell in a pause (paused before the outage, or while the server was away),
    /// which the file leaves out as any paused time; 0 when all of it did.
    case captureResumed(gapFrames: Int64, atFrame: Int64)
    /// A split recording continues in a new file from `atFrame` (recorder frame position).
    case fileStarted(path: String, atFrame: Int64)
    /// `pause()`: captured frames from `atFrame` on are left out of the recording until it resumes.
    case recordingPaused(atFrame: Int64)
    /// The recording resumed at `atFrame` after leaving `pausedFrames` frames out.
    case recordingResumed(atFrame: Int64, pausedFrames: Int64)
    /// A sound-activated take began at recorder frame `atFrame` (its pre-roll's first) in `path`.
    case takeStarted(number: Int, path: String, atFrame: Int64)
    /// A sound-activated take ended (quiet for the hang time, or the recording stopped).
    case takeEnded(RecordingTake)
    /// `addMarker(_:)` marked recorder frame `atFrame`, which is `recordingFrame` frames into the
    /// recording (across split files, paused frames left out).
    case markerAdded(label: String, atFrame: Int64, recordingFrame: Int64)
    /// A recording ended (stopRecording, its duration reached, or a failure: see `error`).
    case recordingFinished(RecordingSummary)
    /// Capture stopped because the stream failed (server gone, source removed).
    case captureFailed(RecorderError)
}

/// The entries behind a set of AsyncStreams (a continuation, or a continuation and its own state): each
/// added until its stream terminates, all handed back once by `finish`, none added after it.
final class StreamRegistry<Entry: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var entries: [Int: Entry] = [:]
        var finished = false
    }
    private let state = Locked(State())

    /// Adds `entry`, removed when `continuation`'s stream terminates. Once finished, adds nothing and
    /// finishes `continuation` at once.
    func add<Element>(_ entry: Entry, for continuation: AsyncStream<Element>.Continuation) {
        let registered = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = entry
            return id
        }
        guard let id = registered else {
            continuation.finish()
            return
        }
        // A strong capture, not weak: the registry lives as long as its streams are registered
        // anyway, and `finish()` (or the consumer leaving) terminates each stream, which releases this
        // closure. A weak reference would allocate a side table that the delivery thread may still hold
        // when the command exits, which LeakSanitizer reports as a leak.
        let state = self.state
        continuation.onTermination = { _ in
            _ = state.withLock { $0.entries.removeValue(forKey: id) }
        }
    }

    /// The current entries (a copy: use them outside the lock).
    var entries: [Entry] { state.withLock { Array($0.entries.values) } }

    /// Marks the registry finished and returns the entries it held, for their streams to be finished.
    func finish() -> [Entry] {
        state.withLock { state in
            state.finished = true
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
    }
}

/// Fans values out to any number of AsyncStreams. Yields happen outside the lock.
///
/// A value may stand (a state that holds until another value ends it: "the source is suspended"): a
/// stream made while it stands begins with it, so a subscriber that came late still learns the state.
/// The standing value changes and the subscribers to tell are read under one lock, which a new stream
/// takes to begin with the standing value and join: every subscriber sees the changes in order.
final class Broadcaster<Value: Sendable>: Sendable {
    private let streams = StreamRegistry<AsyncStream<Value>.Continuation>()
    private let standing = Locked<Value?>(nil)

    func makeStream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .unbounded)
        standing.withLock { value in
            if let value { continuation.yield(value) }
            streams.add(continuation, for: continuation)
        }
        return stream
    }

    func yield(_ value: Value) {
        for continuation in streams.entries { continuation.yield(value) }
    }

    /// Yields `value` and makes `standing` the value later streams begin with (nil: none).
    func yield(_ value: Value, standing new: Value?) {
        let targets = standing.withLock { value -> [AsyncStream<Value>.Continuation] in
            value = new
            return streams.entries
        }
        for continuation in targets { continuation.yield(value) }
    }

    func finish() {
        for continuation in streams.finish() { continuation.finish() }
    }
}

// What one recording was: its files, length, losses, pauses, markers, takes and levels.

/// A stretch of a recording written as silence because nothing could be captured there.
public struct RecordingGap: FramePlaced, FrameCounted, Sendable, Hashable {
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
    /// The recording's frames per second.
    public let sampleRate: Int
    /// The source whose channels hold the silence, in a take of several sources (the others' channels
    /// are untouched); nil when it is every channel.
    public var source: String? = nil
    /// Frames before `startFrame` where the loss may have begun: found by the server's clock after reading
    /// had passed it (see `RecorderEvent.framesDropped`); 0 when the silence stands where it happened.
    public var foundLate: Int64 = 0
}

/// What happened to one recording (one `record(to:)` … stop cycle).
public struct RecordingSummary: Sendable, Hashable {
    /// The (first) file.
    public let path: String
    /// Every file written, in order: `path`, then `path-002`, `-003`… when the recording was split. A take
    /// cut on the clock (`Recorder.record(toSegments:every:overwrite:)`: a logger's months of files) lists its newest 1 000;
    /// `fileCount` counts them all, and each was reported as it finished (`RecorderEvent.fileFinished`).
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
    /// A take of several sources: where each stood when the recording ended (its channels, start offset,
    /// drift, losses); one entry for one source.
    public var sources: [SourceReport] = []
    /// How many files the recording wrote (`files` lists them, or for a take cut on the clock its newest 1 000).
    public var fileCount = 0
    /// The peak files written beside the files (`Recorder.peakData`), in order.
    public var peakFiles: [String] = []
    /// Why peak data stopped being written (the take itself went on); nil when every peak file is whole.
    public var peakFailure: RecorderError?
}

/// One take of a sound-activated recording.
public struct RecordingTake: FrameCounted, Sendable, Hashable {
    /// 1, 2, … in the recording.
    public let number: Int
    /// The file holding it (its first file, should the container's 4 GiB have split it).
    public let path: String
    /// Its first frame in that file (0 for numbered files; with `oneFile`, after the takes before it).
    public let fileFrame: Int64
    /// Frames in the take, pre-roll and quiet tail included.
    public internal(set) var frameCount: Int64
    /// Recorder frames of its first frame (the pre-roll's) and of the start of the buffer whose peak
    /// rose above the threshold (compare with `LevelReading.endFrame`, `CapturedBuffer.startFrame`).
    public let startFrame: Int64
    /// See `startFrame`.
    public let onsetFrame: Int64
    /// The recording's frames per second.
    public let sampleRate: Int
    /// `fileFrame` in seconds: where the take begins in its file.
    public var start: Double { Double(fileFrame) / Double(sampleRate) }
}


/// A place in a recording marked with `addMarker(_:)`.
///
/// AIFF files store markers in their `MARK` chunk and WAV files in a `cue ` chunk with `labl` labels
/// (read by libsndfile's `SFC_GET_CUE`, sox, Audacity, DAWs); CAF and FLAC files do not store them, and
/// only this summary and the events list them (`isStoredInFile` false).
public struct RecordingMarker: FramePlaced, Sendable, Hashable {
    /// The label (control characters replaced by spaces, at most 255 UTF-8 bytes).
    public let label: String
    /// Frames from the recording's first frame (across split files, paused frames left out).
    public let startFrame: Int64
    /// The file the marker is in, and its frame in that file.
    public let path: String
    /// See `path`.
    public let fileFrame: Int64
    /// True when the file holds the marker (AIFF, and WAV up to 4 GiB).
    public let isStoredInFile: Bool
    /// The recording's frames per second.
    public let sampleRate: Int
}

/// A join in a recording: `pause()` left `pausedFrames` captured frames out just before `startFrame`.
public struct RecordingPause: Sendable, Hashable {
    /// File frame where the audio captured after the resume begins (the first frame after the join).
    public let startFrame: Int64
    /// Captured frames left out (the pause's length).
    public let pausedFrames: Int64
    /// The recording's frames per second.
    public let sampleRate: Int
    /// `startFrame` in seconds from the file's start.
    public var startTime: Double { Double(startFrame) / Double(sampleRate) }
    /// The pause's length in seconds.
    public var duration: Double { Double(pausedFrames) / Double(sampleRate) }
}

// The meter reading of one buffer, as the level streams hand it out.

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
    /// While recording: the frames its pauses have left out up to this buffer's end (with
    /// `recordingPosition`, the frames since the recording's first). nil when not recording.
    public let pausedFrames: Int64?

    init(endFrame: Int64, frameCount: Int, sampleRate: Int, channels: [LevelMeterState], recording: RecordingPlace? = nil) {
        self.endFrame = endFrame
        self.frameCount = frameCount
        time = Double(endFrame) / Double(sampleRate)
        self.channels = channels
        recordingPosition = recording?.position
        recordingTime = recording.map { Double($0.position) / Double(sampleRate) }
        pausedFrames = recording?.pausedFrames
    }
}

/// Where a delivered buffer's end stands in the recording: frames written, and frames paused.
struct RecordingPlace: Sendable {
    let position: Int64
    let pausedFrames: Int64
}

// A file of a recording once it is complete: what a logger's hook, an uploader or a watcher is told.

/// A file of a recording that is complete: closed and finalized (header, chunks and markers written),
/// so it may be read, copied, moved or removed. Sent as `RecorderEvent.fileFinished` for each file of a
/// split or clock-cut take when the next one begins, and for the last before `recordingFinished`.
public struct FinishedFile: Sendable, Hashable {
    /// Where it is.
    public let path: String
    /// Its place in the recording's files (1, 2, …).
    public let index: Int
    /// The frames it holds, its sample rate and channels.
    public let frameCount: Int64
    /// Frames per second.
    public let sampleRate: Int
    /// Channels per frame.
    public let channelCount: Int
    /// Its first frame's wall-clock time (Unix seconds, as its bext TimeReference has it), nil for a file
    /// that holds no frame.
    public let startTime: Double?
    /// Where the event stands in the take: the recorder frame position of its first frame plus its frames
    /// (after its last frame, unless a pause fell in it).
    public let endFrame: Int64

    /// A finished file's account, as the recorder gives it (and tests make one).
    public init(path: String, index: Int, frameCount: Int64, sampleRate: Int, channelCount: Int, startTime: Double?,
                endFrame: Int64) {
        self.path = path
        self.index = index
        self.frameCount = frameCount
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.startTime = startTime
        self.endFrame = endFrame
    }

    /// Its length in seconds.
    public var duration: Double { Double(frameCount) / Double(max(1, sampleRate)) }
}

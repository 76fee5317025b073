// What a take says of each of its sources: its channels, where it began, how its clock runs, what it lost.

/// One source of a recorder's take (`Recorder.sources`).
public struct SourceReport: Sendable, Hashable {
    /// The source's name on the server.
    public let name: String
    /// Its first channel in the take (0 for the first source).
    public let firstChannel: Int
    /// How many of the take's channels are its.
    public let channelCount: Int
    /// The take's rate, at which the frame counts here are counted.
    public let sampleRate: Int
    /// The take frame of the source's first captured frame: how long after the take began it began
    /// capturing (the take begins with the source that began first).
    public let startOffsetFrames: Int64
    /// Its clock against the first source's, parts per million (positive: it runs fast); 0 for the
    /// first source; nil until measured (a second of audio).
    public let driftPPM: Double?
    /// True once the source is resampled to stay on the first source's clock (it drifted 0.25 ms).
    public let isCorrectingDrift: Bool
    /// Its frames lost in capture (written as silence in its channels only).
    public let droppedFrames: Int64
    /// Its frames of silence for reconnection gaps.
    public let gapFrames: Int64
    /// Losses after which the source was placed by the server's count of what it lost alone, its clock
    /// not having answered before it had to go on (a machine too busy for the answers to come within the
    /// lag limit): the frames after such a loss stand within a few milliseconds, not within 1 ms, until
    /// the clock's line settles (seconds). 0: every loss was placed by the clock's answers after it.
    public var lossesPlacedByCount: Int = 0

    /// `startOffsetFrames` in seconds.
    public var startOffset: Double { Double(startOffsetFrames) / Double(max(1, sampleRate)) }
}

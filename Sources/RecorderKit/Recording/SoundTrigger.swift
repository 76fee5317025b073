// What starts and ends a sound-activated take.

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

    /// The levels `startAbove` may take, dBFS.
    public static let startAboveRange: ClosedRange<Float> = -159...0
    /// The levels `stopBelow` may take with a given `startAbove`, dBFS (from −160 up to it).
    public static func stopBelowRange(startAbove: Float) -> ClosedRange<Float> {
        -160...(startAbove.isFinite ? max(-160, startAbove) : -160)
    }
    /// The hang times `hang` may take, seconds.
    public static let hangRange: ClosedRange<Double> = 0...3_600

    /// `stopBelow` nil: the same as `startAbove`.
    public init(startAbove: Float, stopBelow: Float? = nil, hang: Double = 2, oneFile: Bool = false) {
        self.startAbove = startAbove
        self.stopBelow = stopBelow ?? startAbove
        self.hang = hang
        self.oneFile = oneFile
    }
}

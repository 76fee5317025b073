// Planar float audio as a playback graph's nodes render it, and the copies its taps receive.

/// Channels of float samples side by side in one allocation, as a node renders them: made when the node
/// is first rendered, grown only when a pass asks for more channels or frames than any before (so a
/// steady graph allocates nothing per pass).
///
/// Used by one render pass at a time: a node's buffer under the graph's lock, a source's by the pass that
/// asks it to read.
public final class GraphBuffer: @unchecked Sendable {
    // @unchecked Sendable: a node's buffer is touched only by the graph's render pass, which holds the
    // graph's lock; nothing else keeps a reference to it beyond the call it is passed to.
    /// Channels in use.
    public private(set) var channelCount: Int
    /// Frames each channel holds.
    public private(set) var frameCapacity: Int
    private var storage: UnsafeMutablePointer<Float>
    /// Floats allocated (at least `channelCount` × `frameCapacity`).
    private var allocated: Int

    /// A buffer of `channelCount` silent channels of `frameCapacity` frames (each at least 1).
    public init(channelCount: Int, frameCapacity: Int) {
        self.channelCount = max(1, channelCount)
        self.frameCapacity = max(1, frameCapacity)
        allocated = self.channelCount * self.frameCapacity
        storage = .allocate(capacity: allocated)
        storage.initialize(repeating: 0, count: self.channelCount * self.frameCapacity)
    }

    deinit { storage.deallocate() }

    /// Channel `index`'s samples (all `frameCapacity` of them); a channel past the last reads the last.
    public func channel(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        let channel = min(max(0, index), channelCount - 1)
        return UnsafeMutableBufferPointer(start: storage + channel * frameCapacity, count: frameCapacity)
    }

    /// Makes room for `channels` × `frames` (growing the allocation only if it is too small) and silences
    /// every channel.
    func prepare(channels: Int, frames: Int) {
        let channels = max(1, channels)
        let capacity = max(frames, frameCapacity)
        if channels * capacity > allocated {
            storage.deallocate()
            allocated = channels * capacity
            storage = .allocate(capacity: allocated)
        }
        channelCount = channels
        frameCapacity = capacity
        storage.initialize(repeating: 0, count: channels * capacity)
    }

    /// A copy of the first `frames` frames of each channel.
    func copy(frames: Int) -> [[Float]] {
        (0..<channelCount).map { Array(UnsafeBufferPointer(rebasing: channel($0).prefix(min(frames, frameCapacity)))) }
    }
}

/// What a tap receives: a copy of `frames` frames a node put out in one render pass, and when.
public struct GraphTapBuffer: Sendable {
    /// The samples, one array per channel, all the same length.
    public let channels: [[Float]]
    /// The rate they are at (the graph's; an input's own rate for a tap on a graph input).
    public let sampleRate: Int
    /// The node's sample time of the first frame: frames it had put out before.
    public let sampleTime: Int64
    /// When its first frame was heard (a graph input's: captured), CLOCK_MONOTONIC nanoseconds.
    public let hostTime: UInt64

    /// Frames in each channel.
    public var frameCount: Int { channels.first?.count ?? 0 }
}

// The base of the graph's in-place effects (EQ, delay, reverb, distortion): as many frames out as in,
// the input's channels kept, settings read once per render pass, a bypass and a wet/dry mix.

/// An effect that puts out as many frames as it takes in, with its input's channels (1…32): the EQ
/// (`GraphEQ`), the delay (`GraphDelay`), the reverb (`GraphReverb`) and the distortion
/// (`GraphDistortion`). Bypassed, its input passes unchanged, sample for sample. A non-finite sample
/// (from a program's source node) comes in as 0, and none goes out.
///
/// Settings changed from any thread take effect at the next render pass: a pass reads them once, under
/// the node's lock, at its start.
///
/// ## Threads
/// Every member may be called from any thread, a tap's or a completion handler included.
public class GraphEffect: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; `bypassed` under `lock`, each subclass's settings likewise, its
    // processing state used only by the render pass (under the graph's lock).
    private var bypassed = false

    override init() { super.init() }

    /// Whether the effect is bypassed (its input passes unchanged, its state kept as it was).
    public var bypass: Bool {
        get { lock.withLock { bypassed } }
        set { lock.withLock { bypassed = newValue } }
    }

    override var kind: String { "effect" }

    override func outputChannels(_ pass: RenderPass) -> Int { min(32, pass.inputChannels(of: self)) }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        guard let input = pass.pullInput(of: self, frames: frames) else { return }
        let channels = buffer.channelCount
        for channel in 0..<channels {
            let from = input.channel(channel), to = buffer.channel(channel)
            for frame in 0..<frames { to[frame] = from[frame].isFinite ? from[frame] : 0 }
        }
        guard !bypass else { return }
        process(buffer, frames: frames, channels: channels, sampleRate: pass.sampleRate)
        // A sum that overflowed (1e30 through +24 dB bands, say) leaves as silence, not infinity.
        for channel in 0..<channels {
            let audio = buffer.channel(channel)
            for frame in 0..<frames where !audio[frame].isFinite { audio[frame] = 0 }
        }
    }

    /// Processes `frames` frames of `channels` channels in `buffer` in place, at `sampleRate`: the
    /// subclass's work, on the render pass (read its settings once, under `lock`, at the start).
    func process(_ buffer: GraphBuffer, frames: Int, channels: Int, sampleRate: Int) {}

    /// Blends `wet` (what the effect made) into `buffer` (the dry input) at `mix` 0…1 (0: dry alone,
    /// sample for sample; 1: wet alone), over `frames` frames of one channel.
    static func blend(_ wet: UnsafeMutableBufferPointer<Float>, into dry: UnsafeMutableBufferPointer<Float>, frames: Int, mix: Float) {
        if mix <= 0 { return }
        if mix >= 1 {
            for frame in 0..<frames { dry[frame] = wet[frame] }
            return
        }
        for frame in 0..<frames { dry[frame] = dry[frame] * (1 - mix) + wet[frame] * mix }
    }

    /// `value` clamped to `range`; nil for a NaN (a setting that ignores it).
    static func clamped<T: BinaryFloatingPoint>(_ value: T, _ range: ClosedRange<T>) -> T? {
        value.isNaN ? nil : min(range.upperBound, max(range.lowerBound, value))
    }
}

/// Per-channel scratch an effect keeps between passes: grown (allocating) only when a pass has more
/// channels or frames than any before, so a steady graph allocates nothing per pass.
struct EffectScratch {
    private(set) var channels: [[Float]] = []

    /// Room for `channels` × `frames`.
    mutating func reserve(channels count: Int, frames: Int) {
        if channels.count < count { channels += Array(repeating: [], count: count - channels.count) }
        for index in 0..<count where channels[index].count < frames {
            channels[index] = [Float](repeating: 0, count: frames)
        }
    }

    /// Channel `index`'s scratch (at least the frames reserved).
    mutating func withChannel<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) -> R) -> R {
        channels[index].withUnsafeMutableBufferPointer { body($0) }
    }
}

// The graph's mixer and its output: inputs summed into two channels at their volume and pan, then times
// the output volume; the output node hands its one input to the stream.

/// Sums any number of inputs into two channels: each at its node's `volume`, placed by its `pan` (see
/// `GraphNode.pan`), then times `outputVolume`.
public final class GraphMixer: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode (`gain` under `lock`).
    private var gain: Float = 1

    /// A mixer with no input, at output volume 1.
    public override init() { super.init() }

    /// The gain of the mix, 0…1: clamped; a NaN is ignored.
    public var outputVolume: Float {
        get { lock.withLock { gain } }
        set { if !newValue.isNaN { lock.withLock { gain = min(1, max(0, newValue)) } } }
    }

    /// 4 096: any number in practice.
    public override var inputBusCount: Int { 4_096 }
    override var kind: String { "mixer" }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        let left = buffer.channel(0), right = buffer.channel(1)
        for source in pass.sources(into: self) {
            let audio = pass.pull(source, frames: frames)
            let (volume, pan) = source.mixSettings
            let toLeft = volume * (pan > 0 ? 1 - pan : 1), toRight = volume * (pan < 0 ? 1 + pan : 1)
            let first = audio.channel(0), second = audio.channel(1)
            for frame in 0..<frames {
                left[frame] += first[frame] * toLeft
                right[frame] += second[frame] * toRight
            }
        }
        let gain = outputVolume
        guard gain != 1 else { return }
        for frame in 0..<frames {
            left[frame] *= gain
            right[frame] *= gain
        }
    }
}

/// What the graph plays: its one input (the main mixer unless something else is connected), as two
/// channels (a mono input in both).
public final class GraphOutput: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode.
    override init() { super.init() }

    override var kind: String { "output" }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        guard let audio = pass.pullInput(of: self, frames: frames) else { return }
        for channel in 0..<2 {
            let from = audio.channel(channel), to = buffer.channel(channel)
            for frame in 0..<frames { to[frame] = from[frame] }
        }
    }
}

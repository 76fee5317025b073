// The graph's reverb (AVAudioUnitReverb's): a Schroeder–Moorer network as Freeverb lays it out — eight
// damped feedback combs in parallel, four all-passes in series — per channel, after a pre-delay.
import Glibc

/// A reverb: per channel, a pre-delay, eight parallel feedback combs with a one-pole low-pass in each
/// loop (Moorer's damping) and four series all-passes (Schroeder's), the delay lengths Freeverb's
/// (Jezar's public-domain design) scaled by the preset's size and the rate, each channel's a little
/// longer than the one before (23 frames at 44.1 kHz, as Freeverb spreads its two) so the channels'
/// tails differ. The combs' feedback is set from the preset's RT60, and the input is scaled so that
/// the wet signal has the input's power. `wetDryMix` blends it with the input; at 0 the input passes
/// sample for sample.
///
/// ## Threads
/// Every member may be called from any thread.
public final class GraphReverb: GraphEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the settings under `lock`, the networks used only by the render pass.
    private var chosen = ReverbPreset.mediumHall
    private var mixPercent: Float = 100
    private var clearRequested = false

    private var networks: [ReverbNetwork] = []
    private var madeFor = (preset: ReverbPreset.mediumHall, sampleRate: 0)
    private var wet = EffectScratch()

    /// A medium hall, all wet.
    public override init() { super.init() }

    /// The preset (setting another starts its tail afresh at the next pass).
    public var preset: ReverbPreset {
        get { lock.withLock { chosen } }
        set { lock.withLock { chosen = newValue } }
    }

    /// Percent wet, 0…100 (0: the input alone, sample for sample; clamped; NaN ignored).
    public var wetDryMix: Float {
        get { lock.withLock { mixPercent } }
        set { if let value = Self.clamped(newValue, 0...100) { lock.withLock { mixPercent = value } } }
    }

    /// Empties the tail at the next pass.
    public override func reset() { lock.withLock { clearRequested = true } }

    override var kind: String { "reverb" }

    override func process(_ buffer: GraphBuffer, frames: Int, channels: Int, sampleRate: Int) {
        let (preset, mix, clear) = lock.withLock { () -> (ReverbPreset, Float, Bool) in
            defer { clearRequested = false }
            return (chosen, mixPercent / 100, clearRequested)
        }
        if networks.count != channels || madeFor != (preset, sampleRate) || clear {
            networks = (0..<channels).map { ReverbNetwork(preset.design, sampleRate: sampleRate, spread: $0) }
            madeFor = (preset, sampleRate)
        }
        wet.reserve(channels: channels, frames: frames)
        for channel in 0..<channels {
            let audio = buffer.channel(channel)
            wet.withChannel(channel) { out in
                networks[channel].run(audio, into: out, frames: frames)
                Self.blend(out, into: audio, frames: frames, mix: mix)
            }
        }
    }
}

/// One channel's network. Lines are allocated when it is made (a preset, a rate or a channel count
/// first used), never while it runs.
struct ReverbNetwork {
    private var preDelay: [Float]
    private var preAt = 0
    private var combs: [[Float]]
    private var combAt: [Int]
    private var combFeedback: [Float]
    private var combStore: [Float]
    private var allPasses: [[Float]]
    private var allPassAt: [Int]
    private let damping: Float
    private let inputGain: Float
    /// The block's pre-delayed input, grown (allocating) only for a longer block than any before.
    private var feed: [Float] = []

    /// Freeverb's comb and all-pass lengths at 44.1 kHz.
    static let combLengths = [1_116, 1_188, 1_277, 1_356, 1_422, 1_491, 1_557, 1_617]
    static let allPassLengths = [556, 441, 341, 225]

    init(_ design: ReverbDesign, sampleRate: Int, spread: Int) {
        let scale = Double(sampleRate) / 44_100
        func frames(_ length: Int, _ size: Double) -> Int { max(1, Int((Double(length) * size + Double(23 * spread)) * scale)) }
        preDelay = [Float](repeating: 0, count: max(1, Int(design.preDelay * Double(sampleRate))))
        combs = Self.combLengths.map { [Float](repeating: 0, count: frames($0, design.size)) }
        combAt = Array(repeating: 0, count: combs.count)
        combStore = Array(repeating: 0, count: combs.count)
        let combDecay = design.decayTime * ReverbDesign.dampingAllowance
        combFeedback = combs.map { Float(pow(10, -3 * Double($0.count) / (Double(sampleRate) * combDecay))) }
        allPasses = Self.allPassLengths.map { [Float](repeating: 0, count: frames($0, design.size)) }
        allPassAt = Array(repeating: 0, count: allPasses.count)
        damping = Float(design.damping)
        // Each comb multiplies white noise's power by 1/(1 − g²); the all-passes keep it.
        inputGain = Float(1 / combFeedback.reduce(0) { $0 + 1 / (1 - Double($1) * Double($1)) }.squareRoot())
    }

    /// Puts `frames` frames of reverb of `input` into `output`: the pre-delayed input into every comb
    /// over the whole block in turn (they are parallel), their sum through each all-pass in turn.
    mutating func run(_ input: UnsafeMutableBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, frames: Int) {
        if feed.count < frames { feed = [Float](repeating: 0, count: frames) }
        let gain = inputGain, damping = self.damping
        feed.withUnsafeMutableBufferPointer { feed in
            preDelay.withUnsafeMutableBufferPointer { line in
                var at = preAt
                for frame in 0..<frames {
                    feed[frame] = line[at] * gain
                    line[at] = input[frame]
                    at += 1
                    if at == line.count { at = 0 }
                }
                preAt = at
            }
            for frame in 0..<frames { output[frame] = 0 }
            for comb in 0..<combs.count {
                var at = combAt[comb], store = combStore[comb]
                let g = combFeedback[comb]
                combs[comb].withUnsafeMutableBufferPointer { line in
                    for frame in 0..<frames {
                        let out = line[at]
                        store = out * (1 - damping) + store * damping
                        let fed = feed[frame] + store * g
                        line[at] = abs(fed) < 1e-25 ? 0 : fed
                        at += 1
                        if at == line.count { at = 0 }
                        output[frame] += out
                    }
                }
                // Denormals in a dying tail cost the CPU dearly: flushed to zero.
                combStore[comb] = abs(store) < 1e-25 ? 0 : store
                combAt[comb] = at
            }
        }
        for pass in 0..<allPasses.count {
            var at = allPassAt[pass]
            allPasses[pass].withUnsafeMutableBufferPointer { line in
                for frame in 0..<frames {
                    let stored = line[at], sum = output[frame]
                    let kept = sum + stored * 0.5
                    line[at] = abs(kept) < 1e-25 ? 0 : kept
                    at += 1
                    if at == line.count { at = 0 }
                    output[frame] = stored - sum
                }
            }
            allPassAt[pass] = at
        }
    }
}

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

    /// Puts `frames` frames of reverb of `input` into `output`.
    mutating func run(_ input: UnsafeMutableBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>, frames: Int) {
        for frame in 0..<frames {
            let delayed = preDelay[preAt]
            preDelay[preAt] = input[frame].isFinite ? input[frame] : 0
            preAt += 1
            if preAt == preDelay.count { preAt = 0 }
            let x = delayed * inputGain
            var sum: Float = 0
            for comb in 0..<combs.count {
                let at = combAt[comb]
                let out = combs[comb][at]
                combStore[comb] = out * (1 - damping) + combStore[comb] * damping
                let fed = x + combStore[comb] * combFeedback[comb]
                combs[comb][at] = abs(fed) < 1e-25 ? 0 : fed
                combAt[comb] = at + 1 == combs[comb].count ? 0 : at + 1
                sum += out
            }
            for pass in 0..<allPasses.count {
                let at = allPassAt[pass]
                let stored = allPasses[pass][at]
                let out = stored - sum
                let kept = sum + stored * 0.5
                allPasses[pass][at] = abs(kept) < 1e-25 ? 0 : kept
                allPassAt[pass] = at + 1 == allPasses[pass].count ? 0 : at + 1
                sum = out
            }
            output[frame] = sum
        }
        // Denormals in a dying tail cost the CPU dearly: flushed to zero.
        for comb in 0..<combStore.count where abs(combStore[comb]) < 1e-25 { combStore[comb] = 0 }
    }
}

// The graph's distortion (AVAudioUnitDistortion's): a preset's recipe of stages on the wet signal, after
// a pre-gain, blended with the input.
import Glibc

/// A distortion: the input times `preGain`, through the preset's stages (`DistortionRecipe`: band limit,
/// ring modulation, decimation, bit reduction, waveshaper, echo), blended with the input at
/// `wetDryMix`. At 0 % wet the input passes sample for sample.
///
/// ## Threads
/// Every member may be called from any thread.
public final class GraphDistortion: GraphEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the settings under `lock`, the stages' state used only by the render pass.
    private var chosen = DistortionPreset.drumsBitBrush
    private var gainDB: Float = -6
    private var mixPercent: Float = 50
    private var clearRequested = false

    private var madeFor = (preset: DistortionPreset.drumsBitBrush, sampleRate: 0, channels: 0)
    private var recipe = DistortionPreset.drumsBitBrush.recipe
    private var band = BiquadCascade()
    private var phase = 0.0
    private var held: [Float] = []
    private var heldCount = 0
    private var echoes: [[Float]] = []
    private var echoAt = 0
    private var wetBuffer = GraphBuffer(channelCount: 1, frameCapacity: 1)

    /// The first preset (drums, bit brush), pre-gain −6 dB, 50 % wet (AVAudioUnitDistortion's defaults).
    public override init() { super.init() }

    /// The preset (setting another starts its stages afresh at the next pass).
    public var preset: DistortionPreset {
        get { lock.withLock { chosen } }
        set { lock.withLock { chosen = newValue } }
    }

    /// Gain before the stages, −80…20 dB (clamped; NaN ignored).
    public var preGain: Float {
        get { lock.withLock { gainDB } }
        set { if let value = Self.clamped(newValue, -80...20) { lock.withLock { gainDB = value } } }
    }

    /// Percent wet, 0…100 (clamped; NaN ignored).
    public var wetDryMix: Float {
        get { lock.withLock { mixPercent } }
        set { if let value = Self.clamped(newValue, 0...100) { lock.withLock { mixPercent = value } } }
    }

    /// Clears the stages' memory at the next pass.
    public override func reset() { lock.withLock { clearRequested = true } }

    override var kind: String { "distortion" }

    override func process(_ buffer: GraphBuffer, frames: Int, channels: Int, sampleRate: Int) {
        let (preset, gainDB, mix, clear) = lock.withLock { () -> (DistortionPreset, Float, Float, Bool) in
            defer { clearRequested = false }
            return (chosen, self.gainDB, mixPercent / 100, clearRequested)
        }
        guard mix > 0 else { return }
        if madeFor != (preset, sampleRate, channels) || clear { prepare(preset, sampleRate: sampleRate, channels: channels) }
        let gain = Float(pow(10, Double(gainDB) / 20))
        // The wet signal: the input times the pre-gain, then each stage over every channel.
        wetBuffer.prepare(channels: channels, frames: frames)
        for channel in 0..<channels {
            let from = buffer.channel(channel), to = wetBuffer.channel(channel)
            for frame in 0..<frames { to[frame] = from[frame] * gain }
        }
        band.process(wetBuffer, frames: frames, channels: channels)
        let ring = 2 * Double.pi * recipe.ringFrequency / Double(sampleRate)
        let drive = Float(pow(10, Double(recipe.drive) / 20))
        let steps = recipe.bits > 0 ? Float(1 << (recipe.bits - 1)) : 0
        let echoLength = echoes.first?.count ?? 0
        let echoFrames = Int(recipe.echoTime * Double(sampleRate))
        let startPhase = phase, startHeld = heldCount, startEcho = echoAt
        for channel in 0..<channels {
            let audio = wetBuffer.channel(channel)
            var phase = startPhase, heldCount = startHeld, echoAt = startEcho
            for frame in 0..<frames {
                var x = audio[frame]
                if recipe.ringMix > 0 {
                    x = x * (1 - recipe.ringMix) + x * Float(sin(phase)) * recipe.ringMix
                    phase = (phase + ring).truncatingRemainder(dividingBy: 2 * Double.pi)
                }
                if recipe.decimation > 1 {
                    if heldCount == 0 { held[channel] = x }
                    x = held[channel]
                    heldCount = (heldCount + 1) % recipe.decimation
                }
                if steps > 0 { x = (min(1, max(-1, x)) * steps).rounded() / steps }
                x = Self.shape(x * drive, recipe.shaper)
                if echoFrames > 0 {
                    let back = echoes[channel][(echoAt - echoFrames + echoLength) % echoLength]
                    let fed = x + back * recipe.echoFeedback
                    echoes[channel][echoAt] = abs(fed) < 1e-25 || !fed.isFinite ? 0 : fed
                    echoAt = (echoAt + 1) % echoLength
                    x = fed
                }
                audio[frame] = x.isFinite ? x : 0
            }
            if channel == channels - 1 { (self.phase, self.heldCount, self.echoAt) = (phase, heldCount, echoAt) }
        }
        for channel in 0..<channels {
            Self.blend(wetBuffer.channel(channel), into: buffer.channel(channel), frames: frames, mix: mix)
        }
    }

    private func prepare(_ preset: DistortionPreset, sampleRate: Int, channels: Int) {
        madeFor = (preset, sampleRate, channels)
        recipe = preset.recipe
        band = BiquadCascade()
        var stages: [BiquadCoefficients] = []
        if recipe.lowCut > 0 {
            stages.append(BiquadCoefficients(.highPass, frequency: recipe.lowCut, bandwidth: 1, gain: 0, sampleRate: sampleRate))
        }
        if recipe.highCut > 0, recipe.highCut < 0.499 * Double(sampleRate) {
            stages.append(BiquadCoefficients(.lowPass, frequency: recipe.highCut, bandwidth: 1, gain: 0, sampleRate: sampleRate))
        }
        band.set(stages)
        phase = 0
        held = Array(repeating: 0, count: channels)
        heldCount = 0
        let echoLength = recipe.echoTime > 0 ? Int(DistortionRecipe.longestEcho * Double(sampleRate)) + 1 : 0
        echoes = Array(repeating: [Float](repeating: 0, count: echoLength), count: channels)
        echoAt = 0
    }

    static func shape(_ x: Float, _ shaper: DistortionRecipe.Shaper) -> Float {
        switch shaper {
        case .none: return x
        case .soft: return tanh(x)
        case .hard: return min(1, max(-1, x))
        case .cubic:
            let c = min(1, max(-1, x))
            return 1.5 * (c - c * c * c / 3)
        case .squared: return min(1, max(-1, x * abs(x)))
        }
    }
}

// Second-order filters by Robert Bristow-Johnson's Audio EQ Cookbook: each response's coefficients, and a
// cascade of them run in transposed direct form II that changes its coefficients without a click.
import Glibc

/// The responses the cookbook gives (and AVAudioUnitEQ's filter types map to).
public enum BiquadResponse: Int, Sendable, CaseIterable {
    /// Peaking EQ: `gain` at `frequency`, `bandwidth` octaves wide (between the half-gain points).
    case peaking
    /// Low-pass, Butterworth (Q = 1/√2): −3 dB at `frequency`.
    case lowPass
    /// High-pass, Butterworth: −3 dB at `frequency`.
    case highPass
    /// Low-pass whose resonance is set by `bandwidth` (octaves, the cookbook's BW).
    case resonantLowPass
    /// High-pass whose resonance is set by `bandwidth`.
    case resonantHighPass
    /// Band-pass, 0 dB at `frequency`, `bandwidth` octaves wide.
    case bandPass
    /// Notch at `frequency`, `bandwidth` octaves wide.
    case bandStop
    /// Low shelf of `gain`, slope S = 1, its mid-point at `frequency`.
    case lowShelf
    /// High shelf of `gain`, slope S = 1.
    case highShelf
    /// Low shelf of `gain` whose corner's resonance is set by `bandwidth`.
    case resonantLowShelf
    /// High shelf of `gain` whose corner's resonance is set by `bandwidth`.
    case resonantHighShelf
}

/// One biquad's coefficients, normalised by a0: y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂.
public struct BiquadCoefficients: Sendable, Equatable {
    /// The feed-forward coefficients (b0, b1, b2 over a0).
    public var b0 = 1.0, b1 = 0.0, b2 = 0.0
    /// The feedback coefficients (a1, a2 over a0).
    public var a1 = 0.0, a2 = 0.0

    /// The identity (its input passes unchanged).
    public static let identity = BiquadCoefficients()

    /// The cookbook's coefficients for `response` at `sampleRate`: `frequency` in hertz (kept within
    /// 1 Hz … 0.499 × the rate, where the formulas stay finite), `bandwidth` in octaves (0.001…10),
    /// `gain` in dB (−120…40). Non-finite arguments give the identity.
    public init(_ response: BiquadResponse, frequency: Double, bandwidth: Double, gain: Double, sampleRate: Int) {
        guard frequency.isFinite, bandwidth.isFinite, gain.isFinite, sampleRate > 0 else { return }
        let rate = Double(sampleRate)
        let f0 = min(0.499 * rate, max(1, frequency))
        let bw = min(10, max(0.001, bandwidth))
        let a = pow(10, min(40, max(-120, gain)) / 40)
        let w0 = 2 * Double.pi * f0 / rate
        let cosW = cos(w0), sinW = sin(w0)
        let alphaBW = sinW * sinh(log(2) / 2 * bw * w0 / sinW)
        let alphaButterworth = sinW / (2 * 0.5.squareRoot())
        // Shelves with slope S = 1: alpha = sin(w0)/2 · √((A + 1/A)(1/S − 1) + 2).
        let alphaShelf = sinW / 2 * ((a + 1 / a) * (1 / 1.0 - 1) + 2).squareRoot()
        var b0 = 1.0, b1 = 0.0, b2 = 0.0, a0 = 1.0, a1 = 0.0, a2 = 0.0
        switch response {
        case .peaking:
            b0 = 1 + alphaBW * a; b1 = -2 * cosW; b2 = 1 - alphaBW * a
            a0 = 1 + alphaBW / a; a1 = -2 * cosW; a2 = 1 - alphaBW / a
        case .lowPass, .resonantLowPass:
            let alpha = response == .lowPass ? alphaButterworth : alphaBW
            b0 = (1 - cosW) / 2; b1 = 1 - cosW; b2 = (1 - cosW) / 2
            a0 = 1 + alpha; a1 = -2 * cosW; a2 = 1 - alpha
        case .highPass, .resonantHighPass:
            let alpha = response == .highPass ? alphaButterworth : alphaBW
            b0 = (1 + cosW) / 2; b1 = -(1 + cosW); b2 = (1 + cosW) / 2
            a0 = 1 + alpha; a1 = -2 * cosW; a2 = 1 - alpha
        case .bandPass:
            b0 = alphaBW; b1 = 0; b2 = -alphaBW
            a0 = 1 + alphaBW; a1 = -2 * cosW; a2 = 1 - alphaBW
        case .bandStop:
            b0 = 1; b1 = -2 * cosW; b2 = 1
            a0 = 1 + alphaBW; a1 = -2 * cosW; a2 = 1 - alphaBW
        case .lowShelf, .resonantLowShelf:
            let alpha = response == .lowShelf ? alphaShelf : alphaBW
            let root = 2 * a.squareRoot() * alpha
            b0 = a * ((a + 1) - (a - 1) * cosW + root)
            b1 = 2 * a * ((a - 1) - (a + 1) * cosW)
            b2 = a * ((a + 1) - (a - 1) * cosW - root)
            a0 = (a + 1) + (a - 1) * cosW + root
            a1 = -2 * ((a - 1) + (a + 1) * cosW)
            a2 = (a + 1) + (a - 1) * cosW - root
        case .highShelf, .resonantHighShelf:
            let alpha = response == .highShelf ? alphaShelf : alphaBW
            let root = 2 * a.squareRoot() * alpha
            b0 = a * ((a + 1) + (a - 1) * cosW + root)
            b1 = -2 * a * ((a - 1) + (a + 1) * cosW)
            b2 = a * ((a + 1) + (a - 1) * cosW - root)
            a0 = (a + 1) - (a - 1) * cosW + root
            a1 = 2 * ((a - 1) - (a + 1) * cosW)
            a2 = (a + 1) - (a - 1) * cosW - root
        }
        let values = [b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0]
        guard values.allSatisfy(\.isFinite) else { return }
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (values[0], values[1], values[2], values[3], values[4])
    }

    init() {}

    /// The same filter times `factor` (a flat gain folded into b0, b1, b2).
    func scaled(by factor: Double) -> BiquadCoefficients {
        var scaled = self
        scaled.b0 *= factor; scaled.b1 *= factor; scaled.b2 *= factor
        return scaled
    }
}

/// A cascade of biquads over several channels (the state in doubles: a 20 Hz filter at 96 kHz keeps its
/// response). When its coefficients change, the next block is run through the old and the new cascade
/// and crossfaded from one to the other, so a change never clicks.
///
/// Used by one render pass at a time.
struct BiquadCascade {
    private var current: [BiquadCoefficients] = []
    private var previous: [BiquadCoefficients] = []
    /// [channel][stage]: (s1, s2) of transposed direct form II.
    private var state: [[(Double, Double)]] = []
    private var previousState: [[(Double, Double)]] = []
    private var fading = false
    private var scratch = EffectScratch()

    /// Sets the stages (fading from the old ones over the next block; the first set applies at once).
    mutating func set(_ stages: [BiquadCoefficients]) {
        guard stages != current else { return }
        if state.isEmpty || current.isEmpty && stages.isEmpty {
            current = stages
            return
        }
        previous = current
        previousState = state
        current = stages
        // The new stages start from the old state where there was one: closer than from silence.
        for channel in state.indices {
            if state[channel].count != stages.count {
                state[channel] = (0..<stages.count).map { $0 < state[channel].count ? state[channel][$0] : (0, 0) }
            }
        }
        fading = true
    }

    /// Clears the filters' memory.
    mutating func reset() {
        state = state.map { Array(repeating: (0, 0), count: $0.count) }
        fading = false
    }

    /// Filters `frames` frames of `channels` channels of `buffer` in place.
    mutating func process(_ buffer: GraphBuffer, frames: Int, channels: Int) {
        if state.count != channels {
            state = Array(repeating: Array(repeating: (0, 0), count: current.count), count: channels)
            fading = false
        }
        if fading {
            scratch.reserve(channels: channels, frames: frames)
            for channel in 0..<channels {
                let audio = buffer.channel(channel)
                scratch.withChannel(channel) { old in
                    for frame in 0..<frames { old[frame] = audio[frame] }
                    if channel < previousState.count {
                        Self.run(previous, state: &previousState[channel], on: old, frames: frames)
                    }
                    Self.run(current, state: &state[channel], on: audio, frames: frames)
                    let step = 1 / Float(max(1, frames))
                    for frame in 0..<frames {
                        let t = Float(frame + 1) * step
                        audio[frame] = old[frame] * (1 - t) + audio[frame] * t
                    }
                }
            }
            fading = false
            return
        }
        guard !current.isEmpty else { return }
        for channel in 0..<channels {
            Self.run(current, state: &state[channel], on: buffer.channel(channel), frames: frames)
        }
    }

    private static func run(_ stages: [BiquadCoefficients], state: inout [(Double, Double)],
                            on audio: UnsafeMutableBufferPointer<Float>, frames: Int) {
        for (index, c) in stages.enumerated() where index < state.count {
            var (s1, s2) = state[index]
            for frame in 0..<frames {
                let x = Double(audio[frame])
                let y = c.b0 * x + s1
                s1 = c.b1 * x - c.a1 * y + s2
                s2 = c.b2 * x - c.a2 * y
                audio[frame] = Float(y)
            }
            // Denormals (a tail decaying for minutes) cost the CPU dearly: flushed to zero.
            if abs(s1) < 1e-30 { s1 = 0 }
            if abs(s2) < 1e-30 { s2 = 0 }
            if !s1.isFinite || !s2.isFinite { (s1, s2) = (0, 0) }
            state[index] = (s1, s2)
        }
    }
}

// Apple's effect units rendered offline against independent computations: the EQ's eleven filter types
// against scipy's freqz of the cookbook's coefficients, a change of gain without a click, the delay's
// echoes to the frame and its low-pass at −3 dB, each reverb preset's RT60 by Schroeder integration,
// wet/dry 0 giving the input sample for sample, and what the distortion's presets do.
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

struct EffectUnitTests {
    /// Each filter type, set on one band (the others of a 3-band EQ bypassed), its impulse response
    /// rendered offline at 48 kHz: its magnitude at 32 frequencies from 20 Hz to 20 kHz is within 0.1 dB
    /// of scipy's freqz of the cookbook's coefficients for the same parameters (where both are above
    /// −60 dB; below, the unit's is below −55 dB too); and at f0 what each design promises (−3.01 dB for
    /// the Butterworth passes, the gain for the peak, half of it for the shelves, 0 dB for the band-pass,
    /// a notch under −60 dB), which does not depend on the oracle's transcription.
    @Test func everyFilterTypeMatchesTheCookbook() throws {
        let rate = 48_000.0
        let frequencies = (0..<32).map { 20 * pow(1_000, Double($0) / 31) }
        let types: [(AVAudioUnitEQFilterType, String, Float, Float, Float)] = [
            (.parametric, "parametric", 1_000, 1, 9), (.lowPass, "lowPass", 2_000, 1, 0), (.highPass, "highPass", 300, 1, 0),
            (.resonantLowPass, "resonantLowPass", 4_000, 0.3, 0), (.resonantHighPass, "resonantHighPass", 150, 0.5, 0),
            (.bandPass, "bandPass", 800, 2, 0), (.bandStop, "bandStop", 3_000, 1.5, 0), (.lowShelf, "lowShelf", 250, 1, -8),
            (.highShelf, "highShelf", 6_000, 1, 6), (.resonantLowShelf, "resonantLowShelf", 400, 0.7, 10),
            (.resonantHighShelf, "resonantHighShelf", 5_000, 0.4, -12),
        ]
        let bands = types.map { "{\"type\":\"\($0.1)\",\"f0\":\($0.2),\"bw\":\($0.3),\"gain\":\($0.4)}" }.joined(separator: ",")
        let request = "{\"rate\":\(rate),\"frequencies\":[\(frequencies.map { String($0) }.joined(separator: ","))],\"bands\":[\(bands)]}"
        let oracle = try runProcess("python3", [equaliserOracle, request])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        let expected = oracle.stdout.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        try #require(expected.count == types.count && expected.allSatisfy { $0.count == 32 })

        let impulse = [Float(1)] + [Float](repeating: 0, count: 131_071)
        for (index, (type, name, frequency, bandwidth, gain)) in types.enumerated() {
            let eq = AVAudioUnitEQ(numberOfBands: 3)
            let band = eq.bands[1]
            band.filterType = type
            band.frequency = frequency
            band.bandwidth = bandwidth
            band.gain = gain
            band.bypass = false
            let response = try renderChain([eq], input: impulse, rate: rate, frames: impulse.count)
            var worst = 0.0
            for (at, frequency) in frequencies.enumerated() {
                let measured = 20 * log10(max(magnitude(of: response, at: frequency, rate: rate), 1e-30))
                let oracle = expected[index][at]
                if oracle < -60 {
                    #expect(measured < -55, "\(name) at \(frequency) Hz: \(measured) dB, the cookbook's \(oracle) dB")
                } else {
                    worst = max(worst, abs(measured - oracle))
                }
            }
            #expect(worst <= 0.1, "\(name): \(worst) dB from scipy's freqz")
            // What the cookbook's designs promise at f0 itself, whatever their coefficients: a check that
            // does not share the oracle's transcription of the formulas.
            let atCenter = 20 * log10(magnitude(of: response, at: Double(frequency), rate: rate))
            let promised: Double? = switch type {
            case .lowPass, .highPass: -3.0103
            case .parametric: Double(gain)
            case .bandPass: 0
            case .lowShelf, .highShelf: Double(gain) / 2
            default: nil
            }
            if let promised { #expect(abs(atCenter - promised) <= 0.02, "\(name) at f0: \(atCenter) dB, the design's \(promised)") }
            if type == .bandStop { #expect(atCenter < -60, "the notch at f0: \(atCenter) dB") }
        }
    }

    /// A 1 kHz sine through a parametric band whose gain jumps from 0 to +12 dB between two passes: up to
    /// that pass the output is the input, sample for sample (a 0 dB peaking band is the identity); from
    /// its first frame the change is heard; the output's largest step from one sample to the next stays within the largest a sine of the new
    /// level can take (no click), and the level after the change is +12 dB.
    @Test func aGainChangeDoesNotClick() throws {
        let rate = 48_000.0
        let sine = (0..<48_000).map { Float(0.2 * sin(2 * Double.pi * 1_000 * Double($0) / rate)) }
        let eq = AVAudioUnitEQ(numberOfBands: 1)
        eq.bands[0].filterType = .parametric
        eq.bands[0].frequency = 1_000
        eq.bands[0].bandwidth = 0.5
        eq.bands[0].bypass = false
        let out = try renderChain([eq], input: sine, rate: rate, frames: 48_000, block: 2_400, between: { index in
            if index == 10 { eq.bands[0].gain = 12 }
        })
        #expect(Array(out.prefix(24_000)) == Array(sine.prefix(24_000)), "up to the change: the input, sample for sample")
        #expect(Array(out[24_000..<24_100]) != Array(sine[24_000..<24_100]), "the change heard from the next pass's start")
        let steps = zip(out.dropFirst(), out).map { abs($0 - $1) }
        let limit = Float(0.2 * pow(10, 12.0 / 20) * 2 * Double.pi * 1_000 / rate) * 1.05
        #expect(steps.max()! <= limit, "largest step \(steps.max()!), a +12 dB sine's \(limit)")
        let after = out[36_000..<48_000].map { abs($0) }.max()!
        #expect(abs(20 * log10(Double(after) / 0.2) - 12) < 0.1, "peak after the change \(after)")
    }

    /// An impulse through a delay of 0.25 s at 48 kHz, feedback ±50 %, no low-pass (the cutoff at half
    /// the rate), all wet: echoes at frames 12 000, 24 000 and 36 000 at 1, ±0.5 and 0.25 exactly, and
    /// nothing else.
    @Test func echoesComeBackToTheFrame() throws {
        let impulse = [Float(1)] + [Float](repeating: 0, count: 47_999)
        for sign in [Float(1), -1] {
            let delay = AVAudioUnitDelay()
            delay.delayTime = 0.25
            delay.feedback = 50 * sign
            delay.lowPassCutoff = 24_000
            delay.wetDryMix = 100
            let out = try renderChain([delay], input: impulse, rate: 48_000, frames: 48_000)
            let echoes = out.enumerated().filter { $0.element != 0 }.map { ($0.offset, $0.element) }
            #expect(echoes.map(\.0) == [12_000, 24_000, 36_000], "\(echoes.prefix(10))")
            #expect(echoes.map(\.1) == [1, 0.5 * sign, 0.25], "\(echoes.prefix(10))")
        }
    }

    /// The delay's low-pass at 2 kHz, no feedback: its response measured from the rendered impulse is
    /// −3.01 dB at 2 kHz (within 0.05 dB) and flat (within 0.05 dB) at 100 Hz.
    @Test func theDelaysLowPassIsThreeDecibelsDownAtItsCutoff() throws {
        let delay = AVAudioUnitDelay()
        delay.delayTime = 0.01
        delay.feedback = 0
        delay.lowPassCutoff = 2_000
        let impulse = [Float(1)] + [Float](repeating: 0, count: 47_999)
        let out = try renderChain([delay], input: impulse, rate: 48_000, frames: 48_000)
        let atCutoff = 20 * log10(magnitude(of: out, at: 2_000, rate: 48_000))
        let low = 20 * log10(magnitude(of: out, at: 100, rate: 48_000))
        #expect(abs(atCutoff + 3.0103) < 0.05 && abs(low) < 0.05, "at 2 kHz \(atCutoff) dB, at 100 Hz \(low) dB")
    }

    /// Every reverb preset's impulse response (mono, 44.1 kHz, all wet): its RT60 by Schroeder integration
    /// (T30) is within 15 % of the decay time the docs state for it.
    @Test(arguments: AVAudioUnitReverbPreset.allCases)
    func eachPresetDecaysInItsStatedTime(_ preset: AVAudioUnitReverbPreset) throws {
        let reverb = AVAudioUnitReverb()
        reverb.loadFactoryPreset(preset)
        reverb.wetDryMix = 100
        let stated = preset.design.decayTime
        let frames = Int((stated * 1.3 + 0.2) * 44_100)
        let response = try renderChain([reverb], input: [1], rate: 44_100, frames: frames, block: 4_410)
        let measured = try #require(schroederDecayTime(response, rate: 44_100))
        #expect(abs(measured / stated - 1) <= 0.15, "\(preset): RT60 \(measured) s measured, \(stated) s stated")
    }

    /// Wet/dry 0 on the reverb, the delay and the distortion (each with its default settings): noise
    /// comes out sample for sample as it went in.
    @Test func dryIsTheInputSampleForSample() throws {
        let noise = noiseSamples(count: 48_000, seed: 3).map { Float($0) / 32_768 }
        let reverb = AVAudioUnitReverb(), delay = AVAudioUnitDelay(), distortion = AVAudioUnitDistortion()
        reverb.loadFactoryPreset(.cathedral)
        for unit in [reverb, delay, distortion] as [AVAudioUnitEffect] {
            (unit as? AVAudioUnitReverb)?.wetDryMix = 0
            (unit as? AVAudioUnitDelay)?.wetDryMix = 0
            (unit as? AVAudioUnitDistortion)?.wetDryMix = 0
            let out = try renderChain([unit], input: noise, rate: 48_000, frames: 48_000)
            #expect(out == noise, "\(type(of: unit))")
        }
    }

    /// The distortion's presets do what the guide says: decimated 4 holds each sample for 16 and reduces
    /// it to 6 bits; alien chatter (a 300 Hz ring modulator) moves a 1 kHz tone to 700 and 1 300 Hz;
    /// every preset's output is finite and differs from its input.
    @Test func distortionPresetsDoWhatTheySay() throws {
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
        func wet(_ preset: AVAudioUnitDistortionPreset) throws -> [Float] {
            let distortion = AVAudioUnitDistortion()
            distortion.loadFactoryPreset(preset)
            distortion.preGain = 0
            distortion.wetDryMix = 100
            return try renderChain([distortion], input: sine, rate: 48_000, frames: 48_000)
        }
        let decimated = try wet(.multiDecimated4)
        for start in stride(from: 0, to: 47_984, by: 16) {
            let run = decimated[start..<start + 16]
            #expect(Set(run).count == 1, "frames \(start)…: \(Array(run))")
            if Set(run).count != 1 { break }
        }
        #expect(decimated.allSatisfy { ($0 * 32).rounded() == $0 * 32 }, "6 bits: multiples of 1/32")
        let chatter = try wet(.speechAlienChatter)
        let at = { (f: Double) in magnitude(of: chatter, at: f, rate: 48_000) / 12_000 }
        #expect(at(700) > 0.4 && at(1_300) > 0.4 && at(1_000) < 0.01, "700 Hz \(at(700)), 1 300 Hz \(at(1_300)), 1 kHz \(at(1_000))")
        for preset in AVAudioUnitDistortionPreset.allCases {
            let out = try wet(preset)
            #expect(out.allSatisfy { $0.isFinite } && out != sine, "\(preset)")
        }
    }
}

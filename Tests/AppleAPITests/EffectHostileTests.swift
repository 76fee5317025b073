// The effect units and the sampler given what no caller should give: NaN, ±infinity and huge
// parameters, 0, 1 000 and Int.max EQ bands, a unit attached twice, out-of-range MIDI, and parameters
// changed from another thread while the graph renders. Never a trap, a hang or a non-finite sample out.
import Foundation
import Locking
import OpenAVFAudio
import Testing
import TestSupport

private let hostileNumbers: [Float] = [.nan, .infinity, -.infinity, 1e30, -1e30, .greatestFiniteMagnitude, -0.0, 0]

struct EffectHostileTests {
    /// Every parameter of every unit set to each hostile number in turn, then noise rendered through the
    /// chain: the values read back are within Apple's ranges, NaN changed nothing, the output is finite.
    @Test func hostileParametersKeepEveryUnitInRange() throws {
        let eq = AVAudioUnitEQ(numberOfBands: 2), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
        let distortion = AVAudioUnitDistortion()
        eq.bands[0].bypass = false
        for value in hostileNumbers {
            for band in eq.bands {
                band.frequency = value; band.bandwidth = value; band.gain = value
            }
            eq.globalGain = value
            delay.delayTime = Double(value); delay.feedback = value; delay.lowPassCutoff = value; delay.wetDryMix = value
            reverb.wetDryMix = value
            distortion.preGain = value; distortion.wetDryMix = value
        }
        let band = eq.bands[0]
        #expect((20...Float(1 << 20)).contains(band.frequency) && (0.05...5).contains(band.bandwidth) && (-96...24).contains(band.gain))
        #expect((-96...24).contains(eq.globalGain) && (0...2).contains(delay.delayTime) && (-100...100).contains(delay.feedback))
        #expect((0...100).contains(delay.wetDryMix) && (0...100).contains(reverb.wetDryMix) && (-80...20).contains(distortion.preGain))
        eq.globalGain = 3
        eq.globalGain = .nan
        #expect(eq.globalGain == 3, "NaN is ignored")
        let noise = noiseSamples(count: 24_000, seed: 11).map { Float($0) / 32_768 }
        let out = try renderChain([eq, delay, reverb, distortion], input: noise, rate: 48_000, frames: 48_000)
        #expect(out.allSatisfy { $0.isFinite })
    }

    /// A program's source node handing out NaN, ±infinity and 1e30 among its samples, into each unit
    /// alone (an EQ of 1 000 bands at +24 dB, a half-wet delay with full feedback, a half-wet reverb, a
    /// distortion) and into the four in a chain: every sample out is finite.
    @Test func nonFiniteSamplesFromASourceNode() throws {
        let values: [Float] = [.nan, .infinity, -.infinity, 1e30, -1e30, 0.5]
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        func hostileSource() -> AVAudioSourceNode {
            let counter = Locked(0)
            return AVAudioSourceNode(format: mono) { _, _, frameCount, data in
                let samples = UnsafeMutableBufferPointer<Float>(UnsafeMutableAudioBufferListPointer(data)[0])
                counter.withLock { start in
                    for frame in 0..<Int(frameCount) { samples[frame] = values[(start + frame) % values.count] }
                    start += Int(frameCount)
                }
                return noErr
            }
        }
        func units() -> [AVAudioUnitEffect] {
            let eq = AVAudioUnitEQ(numberOfBands: 1_000), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
            for (index, band) in eq.bands.enumerated() {
                band.frequency = 20 + Float(index) * 20
                band.gain = 24
                band.bypass = false
            }
            delay.delayTime = 0.01
            delay.feedback = 100
            delay.lowPassCutoff = 24_000
            delay.wetDryMix = 50
            reverb.wetDryMix = 50
            return [eq, delay, reverb, AVAudioUnitDistortion()]
        }
        for unit in units() {
            let out = try renderChain([unit], input: [], rate: 48_000, frames: 9_600, source: hostileSource())
            #expect(out.count == 9_600 && out.allSatisfy { $0.isFinite }, "\(type(of: unit))")
        }
        let out = try renderChain(units(), input: [], rate: 48_000, frames: 9_600, source: hostileSource())
        #expect(out.count == 9_600 && out.allSatisfy { $0.isFinite }, "the chain")
    }

    /// 0 bands pass the input unchanged; 1 000 bands all active at random settings render finite audio;
    /// a negative count makes none and Int.max makes 1 024.
    @Test func bandCounts() throws {
        let noise = noiseSamples(count: 9_600, seed: 12).map { Float($0) / 32_768 }
        let unchanged = try renderChain([AVAudioUnitEQ(numberOfBands: 0)], input: noise, frames: 9_600)
        #expect(unchanged == noise)
        let many = AVAudioUnitEQ(numberOfBands: 1_000)
        #expect(many.bands.count == 1_000)
        var random = SystemRandomNumberGenerator()
        for band in many.bands {
            band.filterType = AVAudioUnitEQFilterType(rawValue: Int.random(in: 0...10, using: &random))!
            band.frequency = Float.random(in: 20...24_000, using: &random)
            band.bandwidth = Float.random(in: 0.05...5, using: &random)
            band.gain = Float.random(in: -96...24, using: &random)
            band.bypass = false
        }
        let out = try renderChain([many], input: noise, frames: 9_600)
        #expect(out.count == 9_600 && out.allSatisfy { $0.isFinite })
        #expect(AVAudioUnitEQ(numberOfBands: -5).bands.isEmpty && AVAudioUnitEQ(numberOfBands: .max).bands.count == 1_024)
    }

    /// A unit attached twice to one engine is attached once; attached to a second engine it is refused
    /// with a line, and stays the first's.
    @Test func aUnitAttachedTwice() {
        let first = AVAudioEngine(), second = AVAudioEngine()
        let reverb = AVAudioUnitReverb()
        first.attach(reverb)
        let count = first.attachedNodes.count
        first.attach(reverb)
        #expect(first.attachedNodes.count == count && reverb.engine === first)
        second.attach(reverb)
        #expect(reverb.engine === first && !second.attachedNodes.contains(reverb))
        #expect((OpenAVFAudioLastErrorMessage() ?? "").contains("attached to another engine"))
    }

    /// MIDI out of its ranges (note 255, channel 200, pitch bend 65 535, status bytes that are not channel
    /// messages) and a sampler's gain, pan and tuning at hostile numbers: no trap; the values in range.
    @Test func hostileMIDI() throws {
        let sampler = AVAudioUnitSampler()
        try sampler.loadSoundBankInstrument(at: generalMIDISoundFont, program: 0, bankMSB: 0x79, bankLSB: 0)
        for value in hostileNumbers {
            sampler.masterGain = value; sampler.stereoPan = value; sampler.globalTuning = value
        }
        #expect((-90...12).contains(sampler.masterGain) && (-100...100).contains(sampler.stereoPan)
                && (-2_400...2_400).contains(sampler.globalTuning))
        let out = try renderStereo(sampler, frames: 9_600, prepare: {
            sampler.startNote(255, withVelocity: 255, onChannel: 200)
            sampler.sendPitchBend(65_535, onChannel: 255)
            sampler.sendController(255, withValue: 255, onChannel: 16)
            sampler.sendMIDIEvent(0xF8, data1: 1, data2: 2)
            sampler.sendMIDIEvent(0x9F, data1: 200, data2: 200)
            sampler.sendProgramChange(255, bankMSB: 255, bankLSB: 255, onChannel: 255)
            sampler.sendMIDISysExEvent(Data([0xF0, 0x7E, 0xF7]))
        })
        #expect(out.left.allSatisfy { $0.isFinite } && out.right.allSatisfy { $0.isFinite })
        #expect((OpenAVFAudioLastErrorMessage() ?? "").contains("system exclusive"))
    }
}

/// Parameters changed from another thread while the graph renders (run under ThreadSanitizer too).
struct EffectThreadTests {
    /// A thread sets every parameter of an EQ, a delay, a reverb, a distortion and a sampler at random
    /// (NaN and infinities among them) as fast as it can while two seconds render offline through them:
    /// every sample finite, and the render ends.
    @Test func parametersChangedWhileRendering() throws {
        let sampler = AVAudioUnitSampler()
        try sampler.loadSoundBankInstrument(at: generalMIDISoundFont, program: 0, bankMSB: 0x79, bankLSB: 0)
        let eq = AVAudioUnitEQ(numberOfBands: 4), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
        let distortion = AVAudioUnitDistortion()
        let units = UncheckedUnits(eq: eq, delay: delay, reverb: reverb, distortion: distortion, sampler: sampler)
        let done = Locked(false)
        let changes = Locked(0)
        let changer = Thread {
            var random = SystemRandomNumberGenerator()
            let values: [Float] = [.nan, .infinity, -.infinity, 0, 1, 50, 100, 1_000, -50, 20_000]
            while !done.withLock({ $0 }) {
                let value = values.randomElement(using: &random)!
                units.change(value, Int.random(in: 0..<12, using: &random))
                changes.withLock { $0 += 1 }
            }
        }
        changer.start()
        defer { done.withLock { $0 = true } }
        let out = try renderStereo(sampler, chain: [eq, delay, reverb, distortion], frames: 96_000,
                                   prepare: { sampler.startNote(60, withVelocity: 100, onChannel: 0) })
        done.withLock { $0 = true }
        #expect(out.left.allSatisfy { $0.isFinite } && out.right.allSatisfy { $0.isFinite })
        #expect(changes.withLock { $0 } > 0)
    }
}

/// The units, handed to the changing thread (each unit's every member may be called from any thread).
private struct UncheckedUnits: @unchecked Sendable {
    // @unchecked Sendable: the units keep their parameters behind their nodes' locks (the test's point).
    let eq: AVAudioUnitEQ, delay: AVAudioUnitDelay, reverb: AVAudioUnitReverb, distortion: AVAudioUnitDistortion
    let sampler: AVAudioUnitSampler

    func change(_ value: Float, _ which: Int) {
        switch which {
        case 0: eq.bands[Int(abs(value.isFinite ? value : 1)) % 4].gain = value
        case 1: eq.bands[1].frequency = value; eq.bands[1].bypass.toggle()
        case 2: eq.bands[2].filterType = AVAudioUnitEQFilterType(rawValue: Int(abs(value.isFinite ? value : 3)) % 11)!
        case 3: eq.globalGain = value
        case 4: delay.delayTime = Double(value) / 100
        case 5: delay.feedback = value; delay.lowPassCutoff = value
        case 6: reverb.loadFactoryPreset(AVAudioUnitReverbPreset(rawValue: Int(abs(value.isFinite ? value : 2)) % 13)!)
        case 7: reverb.wetDryMix = value
        case 8: distortion.loadFactoryPreset(AVAudioUnitDistortionPreset(rawValue: Int(abs(value.isFinite ? value : 4)) % 22)!)
        case 9: distortion.preGain = value; distortion.wetDryMix = value
        case 10: sampler.masterGain = value; sampler.stereoPan = value
        default: sampler.startNote(UInt8(Int(abs(value.isFinite ? value : 60)) % 128), withVelocity: 90, onChannel: 0)
        }
    }
}

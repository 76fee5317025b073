// AVAudioUnitSampler over FluidSynth, rendered offline with Debian's General MIDI SoundFont: middle C's
// pitch, a note off's decay, a program change's timbre, the percussion bank, gain and pan, and the errors
// Apple's sampler throws for a missing, corrupt or unsupported instrument.
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

/// A sampler with the SoundFont's `program` loaded from the melodic bank (or `bankMSB`).
private func loadedSampler(program: UInt8 = 0, bankMSB: Int = kAUSampler_DefaultMelodicBankMSB) throws -> AVAudioUnitSampler {
    let sampler = AVAudioUnitSampler()
    try sampler.loadSoundBankInstrument(at: generalMIDISoundFont, program: program, bankMSB: UInt8(bankMSB),
                                        bankLSB: UInt8(kAUSampler_DefaultBankLSB))
    return sampler
}

private func rms(_ samples: ArraySlice<Float>) -> Double {
    (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
}

/// The frequency between `low` and `high` Hz where `signal` is strongest (a 0.5 Hz scan, then 0.01 Hz).
private func strongest(in signal: [Float], from low: Double, to high: Double, rate: Double) -> Double {
    var best = low
    for frequency in stride(from: low, through: high, by: 0.5)
    where magnitude(of: signal, at: frequency, rate: rate) > magnitude(of: signal, at: best, rate: rate) { best = frequency }
    var fine = best
    for frequency in stride(from: best - 0.5, through: best + 0.5, by: 0.01)
    where magnitude(of: signal, at: frequency, rate: rate) > magnitude(of: signal, at: fine, rate: rate) { fine = frequency }
    return fine
}

@Suite(.serialized)
struct SamplerTests {
    /// Middle C (note 60) on the piano: its fundamental, measured over 0.1…1.1 s of the rendered sound
    /// (48 kHz: FluidSynth is told the graph's rate at the first pass), is 261.6 Hz within 1 Hz.
    @Test func middleCIsMiddleC() throws {
        let sampler = try loadedSampler()
        let (left, right) = try renderStereo(sampler, frames: 57_600, prepare: { sampler.startNote(60, withVelocity: 100, onChannel: 0) })
        let mono = zip(left, right).map { $0 + $1 }
        let window = Array(mono[4_800..<52_800])
        #expect(rms(window[...]) > 0.01, "the note is heard")
        let pitch = strongest(in: window, from: 240, to: 285, rate: 48_000)
        #expect(abs(pitch - 261.63) <= 1, "fundamental \(pitch) Hz")
    }

    /// A note held for one second, then its note off: the level 1.8–2 s later is at least 40 dB under
    /// the level just before the note off.
    @Test func aNoteOffDecays() throws {
        let sampler = try loadedSampler()
        let (left, _) = try renderStereo(sampler, frames: 144_000, prepare: { sampler.startNote(60, withVelocity: 100, onChannel: 0) },
                                         between: { if $0 == 20 { sampler.stopNote(60, onChannel: 0) } })
        let held = rms(left[38_400..<48_000]), after = rms(left[134_400..<144_000])
        #expect(held > 0.002 && 20 * log10(max(after, 1e-12) / held) < -40, "held \(held), 2 s after the note off \(after)")
    }

    /// The same note on the piano and, after a program change to the flute (73), on the flute: the first
    /// eight harmonics' levels against the strongest differ by more than 10 dB somewhere (another timbre).
    @Test func aProgramChangeChangesTheTimbre() throws {
        func harmonics(_ program: UInt8?) throws -> [Double] {
            let sampler = try loadedSampler()
            let (left, _) = try renderStereo(sampler, frames: 38_400, prepare: {
                if let program { sampler.sendProgramChange(program, onChannel: 0) }
                sampler.startNote(69, withVelocity: 100, onChannel: 0)
            })
            let window = Array(left[4_800..<38_400])
            let levels = (1...8).map { magnitude(of: window, at: 440 * Double($0), rate: 48_000) }
            let top = levels.max()!
            return levels.map { 20 * log10(max($0, 1e-9) / top) }
        }
        let piano = try harmonics(nil), flute = try harmonics(73)
        let difference = zip(piano, flute).map { abs($0 - $1) }.max()!
        #expect(difference > 10, "piano \(piano), flute \(flute)")
    }

    /// The percussion bank's standard kit: the snare (note 38) sounds.
    @Test func thePercussionBankPlaysDrums() throws {
        let sampler = try loadedSampler(bankMSB: kAUSampler_DefaultPercussionBankMSB)
        let (left, _) = try renderStereo(sampler, frames: 24_000, prepare: { sampler.startNote(38, withVelocity: 110, onChannel: 9) })
        #expect(rms(left[...]) > 0.003, "snare \(rms(left[...]))")
    }

    /// masterGain −20 dB is a tenth of 0 dB's level; stereoPan −100 leaves the right channel silent.
    @Test func gainAndPan() throws {
        func play(gain: Float, pan: Float) throws -> (left: [Float], right: [Float]) {
            let sampler = try loadedSampler()
            sampler.masterGain = gain
            sampler.stereoPan = pan
            return try renderStereo(sampler, frames: 24_000, prepare: { sampler.startNote(60, withVelocity: 100, onChannel: 0) })
        }
        let loud = try play(gain: 0, pan: 0), quiet = try play(gain: -20, pan: 0), left = try play(gain: 0, pan: -100)
        let ratio = rms(quiet.left[...]) / rms(loud.left[...])
        #expect(abs(ratio - 0.1) < 0.001, "−20 dB gives \(ratio)")
        #expect(left.right.allSatisfy { $0 == 0 } && left.left == loud.left, "panned left")
    }

    /// A missing SoundFont: kAudio_FileNotFoundError (−43) naming the path; a file of noise named .sf2:
    /// kAudioUnitErr_InvalidFile naming it; a bank the SoundFont lacks: kAudioUnitErr_InvalidPropertyValue;
    /// an .aupreset: kAudioUnitErr_UnknownFileType; attached to an engine at 192 kHz (FluidSynth plays at
    /// 8–96 kHz): kAudioUnitErr_FormatNotSupported naming the rate; a FIFO named .sf2 and a folder:
    /// kAudioUnitErr_InvalidFile at once (FluidSynth would wait on the FIFO forever). Each a line that says what to do; the sampler that
    /// failed stays silent, one loaded before keeps its instrument.
    @Test func badInstrumentsThrowApplesErrors() throws {
        let directory = try temporaryDirectory()
        let missing = URL(fileURLWithPath: directory + "/none.sf2")
        let corrupt = URL(fileURLWithPath: directory + "/noise.sf2")
        try Data(noiseSamples(count: 32_768, seed: 9).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
            .write(to: corrupt)
        let sampler = AVAudioUnitSampler()
        func failure(_ load: () throws -> Void) -> NSError? {
            do { try load() } catch { return error as NSError }
            return nil
        }
        let notFound = failure { try sampler.loadSoundBankInstrument(at: missing, program: 0, bankMSB: 0x79, bankLSB: 0) }
        #expect(notFound?.domain == NSOSStatusErrorDomain && notFound?.code == -43
                && notFound?.localizedDescription.contains(missing.path) == true, "\(String(describing: notFound))")
        let invalid = failure { try sampler.loadSoundBankInstrument(at: corrupt, program: 0, bankMSB: 0x79, bankLSB: 0) }
        #expect(invalid?.code == Int(kAudioUnitErr_InvalidFile) && invalid?.localizedDescription.contains(corrupt.path) == true,
                "\(String(describing: invalid))")
        let noPreset = failure { try sampler.loadSoundBankInstrument(at: generalMIDISoundFont, program: 0, bankMSB: 0x79, bankLSB: 99) }
        #expect(noPreset?.code == Int(kAudioUnitErr_InvalidPropertyValue), "\(String(describing: noPreset))")
        let preset = failure { try sampler.loadInstrument(at: URL(fileURLWithPath: directory + "/piano.aupreset")) }
        #expect(preset?.code == Int(kAudioUnitErr_UnknownFileType) && preset?.localizedDescription.contains("SoundFont") == true)
        for error in [notFound, invalid, noPreset, preset] {
            #expect(error.map { !$0.localizedDescription.contains("\n") } == true)
        }
        let silent = try renderStereo(sampler, frames: 4_800, prepare: { sampler.startNote(60, withVelocity: 100, onChannel: 0) })
        #expect(silent.left.allSatisfy { $0 == 0 })

        // A FIFO named like a SoundFont (nobody writes to it) and a folder: refused at once, not waited on.
        let fifo = directory + "/pipe.sf2"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, directory] {
            let refused = failure { try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: path), program: 0, bankMSB: 0x79, bankLSB: 0) }
            #expect(refused?.code == Int(kAudioUnitErr_InvalidFile) && refused?.localizedDescription.contains("not a regular file") == true,
                    "\(String(describing: refused))")
        }

        let fast = AVAudioEngine()
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 192_000, channels: 2))
        try fast.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 1_024)
        let attached = AVAudioUnitSampler()
        fast.attach(attached)
        let tooFast = failure { try attached.loadSoundBankInstrument(at: generalMIDISoundFont, program: 0, bankMSB: 0x79, bankLSB: 0) }
        #expect(tooFast?.code == Int(kAudioUnitErr_FormatNotSupported) && tooFast?.localizedDescription.contains("192000 Hz") == true,
                "\(String(describing: tooFast))")

        let piano = try loadedSampler()
        #expect(failure { try piano.loadSoundBankInstrument(at: corrupt, program: 0, bankMSB: 0x79, bankLSB: 0) } != nil)
        let still = try renderStereo(piano, frames: 9_600, prepare: { piano.startNote(60, withVelocity: 100, onChannel: 0) })
        #expect(rms(still.left[...]) > 0.01, "the piano loaded before the failure still plays")
    }
}

// `piano-chain SF2`: the piano app's chain as such apps build it — a sampler loading the General MIDI
// piano, into a delay, into a reverb, into the main mixer — a C major chord started before the engine,
// played to the sink for about three seconds.
import Foundation
import OpenAVFAudio

/// The chain's settings, shared with the test's offline twin (which builds the same).
func makePianoChain(_ engine: AVAudioEngine, soundFont: URL) throws -> AVAudioUnitSampler {
    let sampler = AVAudioUnitSampler(), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
    [sampler, delay, reverb].forEach(engine.attach)
    let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)
    engine.connect(sampler, to: delay, format: format)
    engine.connect(delay, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)
    try sampler.loadSoundBankInstrument(at: soundFont, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB),
                                        bankLSB: UInt8(kAUSampler_DefaultBankLSB))
    delay.delayTime = 0.3
    delay.feedback = 40
    delay.wetDryMix = 30
    reverb.loadFactoryPreset(.mediumHall)
    reverb.wetDryMix = 40
    for note: UInt8 in [60, 64, 67] { sampler.startNote(note, withVelocity: 100, onChannel: 0) }
    return sampler
}

@MainActor
func pianoChain(_ soundFont: String) throws {
    let engine = AVAudioEngine()
    _ = try makePianoChain(engine, soundFont: URL(fileURLWithPath: soundFont))
    try engine.start()
    let deadline = Date(timeIntervalSinceNow: 60)
    while (engine.mainMixerNode.lastRenderTime?.sampleTime ?? 0) < 3 * 44_100 && Date() < deadline { spin(0.05) }
    engine.stop()
    print("played \(engine.mainMixerNode.lastRenderTime?.sampleTime ?? 0 >= 3 * 44_100 ? "3 s" : "less")")
}

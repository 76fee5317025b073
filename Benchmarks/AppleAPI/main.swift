// What Benchmarks/run times of Apple's API on Linux, in a release build: AVAudioConverter over a whole
// file, and an engine's graph rendered offline (manual rendering).
//
//   avfaudio-bench convert IN OUT RATE   IN (any PCM file) converted to RATE Hz at the highest quality,
//                                        written to OUT as 32-bit float WAV
//   avfaudio-bench render A B SECONDS    A into the main mixer and B through a time-pitch unit (rate 1.25),
//                                        SECONDS of stereo rendered offline in 4 096-frame blocks; prints
//                                        the seconds it took on standard error
//   avfaudio-bench effects IN OUT KIND   IN through a 10-band EQ (KIND eq10: octave bands 31 Hz…16 kHz,
//                                        ±3 dB) or a reverb (KIND reverb: medium hall, 50 % wet), rendered
//                                        offline in 4 096-frame blocks, written to OUT as 32-bit float WAV
//   avfaudio-bench piano SF2 SECONDS     the piano app's chain (sampler → delay → reverb → mixer) playing a
//                                        note every quarter second, SECONDS rendered offline
import Foundation
import OpenAVFAudio

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
let usage = "usage: avfaudio-bench convert IN OUT RATE | render A B SECONDS | effects IN OUT eq10|reverb | piano SF2 SECONDS"
guard arguments.count >= 4 else { fail(usage) }

switch arguments[1] {
case "convert" where arguments.count == 5:
    guard let rate = Double(arguments[4]) else { fail("RATE: a number of Hz") }
    let input = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[2]))
    let format = input.processingFormat
    guard let target = AVAudioFormat(standardFormatWithSampleRate: rate, channels: format.channelCount),
          let converter = AVAudioConverter(from: format, to: target) else { fail("cannot convert to \(rate) Hz") }
    converter.sampleRateConverterQuality = AVAudioQuality.max.rawValue
    let output = try AVAudioFile(forWriting: URL(fileURLWithPath: arguments[3]),
                                 settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate,
                                            AVNumberOfChannelsKey: format.channelCount, AVLinearPCMBitDepthKey: 32,
                                            AVLinearPCMIsFloatKey: true])
    let chunk = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 65_536)!
    let converted = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: 65_536)!
    var ended = false
    while true {
        var error: NSError?
        let status = converter.convert(to: converted, error: &error) { _, status in
            if ended { status.pointee = .endOfStream; return nil }
            do { try input.read(into: chunk) } catch { fail("reading: \(error.localizedDescription)") }
            if chunk.frameLength == 0 { ended = true; status.pointee = .endOfStream; return nil }
            status.pointee = .haveData
            return chunk
        }
        if status == .error { fail("converting: \(error?.localizedDescription ?? "?")") }
        if converted.frameLength > 0 { try output.write(from: converted) }
        if status == .endOfStream || (status == .haveData && converted.frameLength == 0) { break }
    }
case "render" where arguments.count == 5:
    guard let seconds = Double(arguments[4]), seconds > 0 else { fail("SECONDS: a positive number") }
    let engine = AVAudioEngine()
    let (first, second) = (AVAudioPlayerNode(), AVAudioPlayerNode())
    let timePitch = AVAudioUnitTimePitch()
    timePitch.rate = 1.25
    [first, second, timePitch].forEach(engine.attach)
    let files = try arguments[2...3].map { try AVAudioFile(forReading: URL(fileURLWithPath: $0)) }
    engine.connect(first, to: engine.mainMixerNode, format: files[0].processingFormat)
    engine.connect(second, to: timePitch, format: files[1].processingFormat)
    engine.connect(timePitch, to: engine.mainMixerNode, format: files[1].processingFormat)
    let format = AVAudioFormat(standardFormatWithSampleRate: files[0].processingFormat.sampleRate, channels: 2)!
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4_096)
    first.scheduleFile(files[0], at: nil)
    second.scheduleFile(files[1], at: nil)
    try engine.start()
    first.play()
    second.play()
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
    let total = Int64(seconds * format.sampleRate)
    let started = Date()
    while engine.manualRenderingSampleTime < total {
        let frames = AVAudioFrameCount(min(4_096, total - engine.manualRenderingSampleTime))
        guard try engine.renderOffline(frames, to: buffer) == .success else { fail("render failed") }
    }
    // On standard error, which Benchmarks/run reads (it measures the process and drops standard output).
    FileHandle.standardError.write(Data(String(format: "%.3f\n", Date().timeIntervalSince(started)).utf8))
case "effects" where arguments.count == 5:
    let input = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[2]))
    let unit: AVAudioNode
    switch arguments[4] {
    case "eq10":
        let eq = AVAudioUnitEQ(numberOfBands: 10)
        for (index, band) in eq.bands.enumerated() {
            band.filterType = .parametric
            band.frequency = Float(31.25 * pow(2, Double(index)))
            band.bandwidth = 1
            band.gain = index % 2 == 0 ? 3 : -3
            band.bypass = false
        }
        unit = eq
    case "reverb":
        let reverb = AVAudioUnitReverb()
        reverb.loadFactoryPreset(.mediumHall)
        reverb.wetDryMix = 50
        unit = reverb
    default: fail(usage)
    }
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    [player, unit].forEach(engine.attach)
    engine.connect(player, to: unit, format: input.processingFormat)
    engine.connect(unit, to: engine.mainMixerNode, format: input.processingFormat)
    let format = AVAudioFormat(standardFormatWithSampleRate: input.processingFormat.sampleRate, channels: 2)!
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4_096)
    player.scheduleFile(input, at: nil)
    try engine.start()
    player.play()
    let output = try AVAudioFile(forWriting: URL(fileURLWithPath: arguments[3]),
                                 settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: format.sampleRate,
                                            AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
    while engine.manualRenderingSampleTime < input.length {
        let frames = AVAudioFrameCount(min(4_096, input.length - engine.manualRenderingSampleTime))
        guard try engine.renderOffline(frames, to: buffer) == .success else { fail("render failed") }
        try output.write(from: buffer)
    }
case "piano" where arguments.count == 4:
    guard let seconds = Double(arguments[3]), seconds > 0 else { fail("SECONDS: a positive number") }
    let engine = AVAudioEngine()
    let sampler = AVAudioUnitSampler(), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
    [sampler, delay, reverb].forEach(engine.attach)
    let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
    engine.connect(sampler, to: delay, format: format)
    engine.connect(delay, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)
    try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: arguments[2]), program: 0,
                                        bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: UInt8(kAUSampler_DefaultBankLSB))
    delay.delayTime = 0.3
    delay.feedback = 40
    delay.wetDryMix = 30
    reverb.loadFactoryPreset(.mediumHall)
    reverb.wetDryMix = 40
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 2_205)
    try engine.start()
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 2_205)!
    let total = Int64(seconds * 44_100)
    let scale: [UInt8] = [60, 62, 64, 65, 67, 69, 71, 72]
    var played = 0
    let started = Date()
    while engine.manualRenderingSampleTime < total {
        // A note every quarter second (5 passes of 50 ms), the one before it released.
        if engine.manualRenderingSampleTime % 11_025 == 0 {
            if played > 0 { sampler.stopNote(scale[(played - 1) % 8], onChannel: 0) }
            sampler.startNote(scale[played % 8], withVelocity: 100, onChannel: 0)
            played += 1
        }
        guard try engine.renderOffline(2_205, to: buffer) == .success else { fail("render failed") }
    }
    FileHandle.standardError.write(Data(String(format: "%.3f\n", Date().timeIntervalSince(started)).utf8))
default:
    fail(usage)
}

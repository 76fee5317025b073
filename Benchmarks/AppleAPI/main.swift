// What Benchmarks/run times of Apple's API on Linux, in a release build: AVAudioConverter over a whole
// file, and an engine's graph rendered offline (manual rendering).
//
//   avfaudio-bench convert IN OUT RATE   IN (any PCM file) converted to RATE Hz at the highest quality,
//                                        written to OUT as 32-bit float WAV
//   avfaudio-bench render A B SECONDS    A into the main mixer and B through a time-pitch unit (rate 1.25),
//                                        SECONDS of stereo rendered offline in 4 096-frame blocks; prints
//                                        the seconds it took on standard error
import Foundation
import OpenAVFAudio

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else { fail("usage: avfaudio-bench convert IN OUT RATE | render A B SECONDS") }

switch arguments[1] {
case "convert":
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
case "render":
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
default:
    fail("usage: avfaudio-bench convert IN OUT RATE | render A B SECONDS")
}

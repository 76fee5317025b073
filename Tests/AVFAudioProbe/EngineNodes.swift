// The probe's engine graphs for the nodes that call the program and for manual rendering's twin:
// a source node's block playing a file's samples, a sink node taking the input node's capture, and two
// players (one through a time-pitch unit) played to the sink as the tests render them offline.
import Foundation
import OpenAVFAudio

/// The samples of a mono 16-bit file, as floats of full scale ±1.
func monoSamples(_ path: String) throws -> [Float] {
    let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
    let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
    try file.read(into: buffer)
    return Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
}

/// `source-node FILE`: a source node whose block hands out the file's samples, then silence, played until
/// they have all been rendered and half a second more.
@MainActor
func sourceNode(_ path: String) throws {
    let samples = try monoSamples(path)
    let position = Completions()
    let engine = AVAudioEngine()
    let node = AVAudioSourceNode { _, _, frameCount, data in
        let start = position.count
        for buffer in UnsafeMutableAudioBufferListPointer(data) {
            let out = UnsafeMutableBufferPointer<Float>(buffer)
            for frame in 0..<Int(frameCount) { out[frame] = start + frame < samples.count ? samples[start + frame] : 0 }
        }
        position.add(Int(frameCount))
        return noErr
    }
    engine.attach(node)
    engine.connect(node, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
    try engine.start()
    let deadline = Date(timeIntervalSinceNow: 60)
    while position.count < samples.count && Date() < deadline { spin(0.05) }
    spin(0.5)  // the last frames reach the sink
    engine.stop()
    print("rendered \(min(position.count, samples.count)) of \(samples.count)")
}

/// `sink-node FRAMES OUT`: the input node into a sink node; what it receives written to OUT (16-bit,
/// interleaved) until FRAMES frames have come.
@MainActor
func sinkNode(_ frames: Int, _ path: String) throws {
    guard let out = fopen(path, "wb") else { exit(2) }
    nonisolated(unsafe) let file = out
    let received = Completions()
    let engine = AVAudioEngine()
    let sink = AVAudioSinkNode { _, frameCount, data in
        let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: data))
        var samples = [Int16](repeating: 0, count: Int(frameCount) * buffers.count)
        for (channel, buffer) in buffers.enumerated() {
            let floats = UnsafeBufferPointer<Float>(buffer)
            for frame in 0..<Int(frameCount) {
                samples[frame * buffers.count + channel] = Int16(clamping: Int((floats[frame] * 32_768).rounded()))
            }
        }
        fwrite(samples, 2, samples.count, file)
        received.add(Int(frameCount))
        return noErr
    }
    engine.attach(sink)
    engine.connect(engine.inputNode, to: sink, format: nil)
    try engine.start()
    let deadline = Date(timeIntervalSinceNow: 60)
    while received.count < frames && Date() < deadline { spin(0.05) }
    engine.stop()
    fclose(out)
    print("received \(received.count >= frames ? "enough" : String(received.count)) in \(engine.inputNode.outputFormat(forBus: 0).channelCount) channel(s)")
}

/// `graph-play A B RATE`: A into the main mixer, B through a time-pitch unit at RATE, both from one
/// sample time of the output (printed: the time-pitch unit has processed silence until then, which the
/// offline twin must render too), played to the sink until both completion handlers ran.
@MainActor
func graphPlay(_ a: String, _ b: String, rate: Float) throws {
    let engine = AVAudioEngine()
    let completed = Completions()
    let (first, second) = (AVAudioPlayerNode(), AVAudioPlayerNode())
    let timePitch = AVAudioUnitTimePitch()
    timePitch.rate = rate
    [first, second, timePitch].forEach(engine.attach)
    let files = try [a, b].map { try AVAudioFile(forReading: URL(fileURLWithPath: $0)) }
    engine.connect(first, to: engine.mainMixerNode, format: files[0].processingFormat)
    engine.connect(second, to: timePitch, format: files[1].processingFormat)
    engine.connect(timePitch, to: engine.mainMixerNode, format: files[1].processingFormat)
    first.scheduleFile(files[0], at: nil, completionCallbackType: .dataPlayedBack) { _ in completed.add() }
    second.scheduleFile(files[1], at: nil, completionCallbackType: .dataPlayedBack) { _ in completed.add() }
    try engine.start()
    // Both from one sample time of the output, as the offline render starts them.
    let deadline = Date(timeIntervalSinceNow: 60)
    while engine.mainMixerNode.lastRenderTime == nil && Date() < deadline { spin(0.01) }
    let now = engine.mainMixerNode.lastRenderTime?.sampleTime ?? 0
    let start = AVAudioTime(sampleTime: now + 4_410, atRate: engine.mainMixerNode.outputFormat(forBus: 0).sampleRate)
    first.play(at: start)
    second.play(at: start)
    print("start \(start.sampleTime)")
    while completed.count < 2 && Date() < deadline { spin(0.05) }
    spin(0.3)
    engine.stop()
    print("completed \(completed.count)")
}

/// `voice`: voice processing turned on for the engine's input node (or the one line that refuses it), then
/// the input tapped until ten buffers came; prints the source captured, the latency measured at each
/// end, and whether the node reports voice processing on.
@MainActor
func voiceProcessing() throws {
    let engine = AVAudioEngine()
    let input = engine.inputNode
    do {
        try input.setVoiceProcessingEnabled(true)
    } catch {
        print("refused: \(error.localizedDescription)")
        return
    }
    let taps = Completions()
    input.installTap(onBus: 0, bufferSize: 4_096, format: nil) { _, _ in taps.add() }
    _ = engine.mainMixerNode
    try engine.start()
    let deadline = Date(timeIntervalSinceNow: 30)
    while (taps.count < 10 || input.presentationLatency == 0 || engine.outputNode.presentationLatency == 0) && Date() < deadline { spin(0.05) }
    let inputLatency = input.presentationLatency, outputLatency = engine.outputNode.presentationLatency
    print("voice processing \(input.isVoiceProcessingEnabled) \(engine.outputNode.isVoiceProcessingEnabled), tapped \(taps.count >= 10)")
    print(String(format: "latency: input %@, output %@", inputLatency >= 0.05 && inputLatency < 2 ? "ok" : "\(inputLatency)",
                 outputLatency > 0 && outputLatency < 2 ? "ok" : "\(outputLatency)"))
    engine.stop()
}

// What the effect and sampler tests share: a chain of Apple's nodes rendered offline from a mono
// signal, a DFT at chosen frequencies, the Schroeder decay time, and the test SoundFont.
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

/// Renders `input` (mono, at `rate`) through `chain` (each node into the next, the last into the main
/// mixer, which puts a mono input in both channels at full level) offline in blocks of `block`, for
/// `frames` frames (`prepare` runs once the engine has started, before the first block; `between` before
/// each block after the first, with its index); the left channel. A `source` node replaces the player.
func renderChain(_ chain: [AVAudioNode], input: [Float], rate: Double = 48_000, frames: Int, block: Int = 2_400,
                 source: AVAudioNode? = nil, prepare: () -> Void = {}, between: (Int) -> Void = { _ in }) throws -> [Float] {
    let player = AVAudioPlayerNode()
    let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1))
    var buffer: AVAudioPCMBuffer?
    if source == nil, !input.isEmpty {
        let scheduled = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: AVAudioFrameCount(input.count)))
        input.withUnsafeBufferPointer { scheduled.floatChannelData![0].update(from: $0.baseAddress!, count: input.count) }
        scheduled.frameLength = AVAudioFrameCount(input.count)
        buffer = scheduled
    }
    return try render(source ?? player, chain: chain, format: mono, frames: frames, block: block, prepare: {
        if let buffer {
            player.scheduleBuffer(buffer)
            player.play()
        }
        prepare()
    }, between: between).left
}

/// Both channels of the same, for the sampler (a stereo source).
func renderStereo(_ source: AVAudioNode, chain: [AVAudioNode] = [], rate: Double = 48_000, frames: Int, block: Int = 2_400,
                  prepare: () -> Void = {}, between: (Int) -> Void = { _ in }) throws -> (left: [Float], right: [Float]) {
    let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
    return try render(source, chain: chain, format: stereo, frames: frames, block: block, prepare: prepare, between: between)
}

/// `source` through `chain` into the main mixer, each connection in `format`, rendered offline in stereo
/// at its rate: both channels.
private func render(_ source: AVAudioNode, chain: [AVAudioNode], format: AVAudioFormat, frames: Int, block: Int,
                    prepare: () -> Void, between: (Int) -> Void) throws -> (left: [Float], right: [Float]) {
    let engine = AVAudioEngine()
    ([source] + chain).forEach(engine.attach)
    var previous = source
    for node in chain {
        engine.connect(previous, to: node, format: format)
        previous = node
    }
    engine.connect(previous, to: engine.mainMixerNode, format: format)
    let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: 2))
    try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: AVAudioFrameCount(block))
    try engine.start()
    prepare()
    let out = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: AVAudioFrameCount(block)))
    var left: [Float] = [], right: [Float] = []
    left.reserveCapacity(frames)
    right.reserveCapacity(frames)
    var index = 0
    while left.count < frames {
        if index > 0 { between(index) }
        index += 1
        #expect(try engine.renderOffline(AVAudioFrameCount(min(block, frames - left.count)), to: out) == .success)
        left += UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))
        right += UnsafeBufferPointer(start: out.floatChannelData![1], count: Int(out.frameLength))
    }
    engine.stop()
    return (left, right)
}

/// |X(f)| of `signal` at `frequency` (a DFT at one frequency, by a rotating phasor in doubles).
func magnitude(of signal: [Float], at frequency: Double, rate: Double) -> Double {
    let step = 2 * Double.pi * frequency / rate
    let (cosStep, sinStep) = (cos(step), -sin(step))
    var (re, im) = (0.0, 0.0)
    var (c, s) = (1.0, 0.0)
    for (index, sample) in signal.enumerated() {
        re += Double(sample) * c
        im += Double(sample) * s
        (c, s) = (c * cosStep - s * sinStep, c * sinStep + s * cosStep)
        if index % 4_096 == 4_095 {
            let norm = (c * c + s * s).squareRoot()
            (c, s) = (c / norm, s / norm)
        }
    }
    return (re * re + im * im).squareRoot()
}

/// The decay time (RT60) of impulse response `response`: Schroeder's backward integration of its energy,
/// a least-squares line through the curve from −5 to −35 dB (T30), extrapolated to 60 dB.
func schroederDecayTime(_ response: [Float], rate: Double) -> Double? {
    var energy = [Double](repeating: 0, count: response.count)
    var sum = 0.0
    for index in stride(from: response.count - 1, through: 0, by: -1) {
        sum += Double(response[index]) * Double(response[index])
        energy[index] = sum
    }
    guard sum > 0 else { return nil }
    let total = energy[0]
    var points: [(Double, Double)] = []
    for (index, value) in energy.enumerated() {
        let level = 10 * log10(value / total)
        if level <= -5 && level >= -35 { points.append((Double(index) / rate, level)) }
        if level < -35 { break }
    }
    guard points.count > 10 else { return nil }
    let n = Double(points.count)
    let meanX = points.reduce(0) { $0 + $1.0 } / n, meanY = points.reduce(0) { $0 + $1.1 } / n
    let slope = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) } / points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
    return slope < 0 ? -60 / slope : nil
}

/// Debian's General MIDI SoundFont (fluid-soundfont-gm: scripts/setup --tests installs it).
let generalMIDISoundFont = URL(fileURLWithPath: "/usr/share/sounds/sf2/FluidR3_GM.sf2")

/// Tests/Scripts/eq_oracle.py: the cookbook's coefficients and scipy's freqz.
let equaliserOracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/eq_oracle.py").path

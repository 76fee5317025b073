// Shapes of real Apple programs that use the effect units and the sampler, with only the import changed
// (and a path given where an app would ask its bundle): Apple's offline-processing sample (a reverb, the
// engine rendering a file manually), a graphic equaliser's export, a voice changer, and a piano app's
// audio engine. Compiled in Swift 5 and Swift 6 language modes; the tests run both.
//
//   effect-programs CLIP SOUNDFONT OUTDIR
import Foundation
import OpenAVFAudio

/// Apple's "Performing offline audio processing" sample, as written there: the file through a reverb,
/// rendered manually into a file of the source's format.
func offlineReverb(source sourceURL: URL, to outputURL: URL) -> AVAudioFramePosition {
    let sourceFile: AVAudioFile
    let format: AVAudioFormat
    do {
        sourceFile = try AVAudioFile(forReading: sourceURL)
        format = sourceFile.processingFormat
    } catch {
        fatalError("Unable to load the source audio file: \(error.localizedDescription).")
    }
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    let reverb = AVAudioUnitReverb()
    engine.attach(player)
    engine.attach(reverb)
    // Set the desired reverb parameters.
    reverb.loadFactoryPreset(.mediumHall)
    reverb.wetDryMix = 50
    // Connect the nodes.
    engine.connect(player, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)
    // Schedule the source audio file.
    player.scheduleFile(sourceFile, at: nil)
    do {
        // The maximum number of frames the engine renders in any single render call.
        let maxFrames: AVAudioFrameCount = 4096
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: maxFrames)
    } catch {
        fatalError("Enabling manual rendering mode failed: \(error).")
    }
    do {
        try engine.start()
        player.play()
    } catch {
        fatalError("Unable to start audio engine: \(error).")
    }
    // The output buffer to which the engine renders the processed data.
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    let outputFile: AVAudioFile
    do {
        outputFile = try AVAudioFile(forWriting: outputURL, settings: sourceFile.fileFormat.settings)
    } catch {
        fatalError("Unable to open output audio file: \(error).")
    }
    while engine.manualRenderingSampleTime < sourceFile.length {
        do {
            let frameCount = sourceFile.length - engine.manualRenderingSampleTime
            let framesToRender = min(AVAudioFrameCount(frameCount), buffer.frameCapacity)
            let status = try engine.renderOffline(framesToRender, to: buffer)
            switch status {
            case .success:
                // The data rendered successfully. Write it to the output file.
                try outputFile.write(from: buffer)
            case .insufficientDataFromInputNode:
                // Applicable only when using the input node as one of the sources.
                break
            case .cannotDoInCurrentContext:
                // The engine couldn't render in the current render call. Retry in the next iteration.
                break
            case .error:
                // An error occurred while rendering the audio.
                fatalError("The manual rendering failed.")
            @unknown default:
                break
            }
        } catch {
            fatalError("The manual rendering failed: \(error).")
        }
    }
    // Stop the player node and engine.
    player.stop()
    engine.stop()
    return outputFile.length
}

/// A graphic equaliser as such apps write it: ten bands an octave apart, sliders setting their gains,
/// an export that renders the file through them.
final class GraphicEqualizer {
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    let equalizer = AVAudioUnitEQ(numberOfBands: 10)
    let frequencies: [Float] = [32, 64, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]

    init() {
        for (index, band) in equalizer.bands.enumerated() {
            band.filterType = .parametric
            band.frequency = frequencies[index]
            band.bandwidth = 1.0
            band.gain = 0
            band.bypass = false
        }
        equalizer.globalGain = 0
        engine.attach(player)
        engine.attach(equalizer)
    }

    func setGain(_ gain: Float, forBandAt index: Int) {
        guard equalizer.bands.indices.contains(index) else { return }
        equalizer.bands[index].gain = gain
    }

    /// The file rendered through the bands; the RMS of what came out and of what went in.
    func export(_ url: URL) throws -> (input: Float, output: Float) {
        let file = try AVAudioFile(forReading: url)
        engine.connect(player, to: equalizer, format: file.processingFormat)
        engine.connect(equalizer, to: engine.mainMixerNode, format: file.processingFormat)
        try engine.enableManualRenderingMode(.offline, format: file.processingFormat, maximumFrameCount: 4096)
        player.scheduleFile(file, at: nil)
        try engine.start()
        player.play()
        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        var squares: Double = 0
        var count = 0
        while engine.manualRenderingSampleTime < file.length {
            let frames = min(AVAudioFrameCount(file.length - engine.manualRenderingSampleTime), buffer.frameCapacity)
            guard try engine.renderOffline(frames, to: buffer) == .success else { break }
            // The first half second settles (the filters' start); the rest is measured.
            let samples = UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
            if engine.manualRenderingSampleTime > AVAudioFramePosition(file.fileFormat.sampleRate / 2) {
                for sample in samples { squares += Double(sample) * Double(sample) }
                count += samples.count
            }
        }
        engine.stop()
        let input = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        file.framePosition = 0
        try file.read(into: input)
        let data = UnsafeBufferPointer(start: input.floatChannelData![0], count: Int(input.frameLength))
        let inputRMS = (data.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, data.count))).squareRoot()
        return (Float(inputRMS), Float((squares / Double(max(1, count))).squareRoot()))
    }
}

/// A voice changer's chain: distortion ("radio tower"), a pitch shift and a reverb, exported offline.
func voiceChanger(source: URL, to output: URL) throws -> AVAudioFramePosition {
    let file = try AVAudioFile(forReading: source)
    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    let distortion = AVAudioUnitDistortion()
    let pitch = AVAudioUnitTimePitch()
    let reverb = AVAudioUnitReverb()
    distortion.loadFactoryPreset(.speechRadioTower)
    distortion.preGain = 0
    distortion.wetDryMix = 60
    pitch.pitch = 500
    reverb.loadFactoryPreset(.smallRoom)
    reverb.wetDryMix = 20
    [player, distortion, pitch, reverb].forEach { engine.attach($0) }
    engine.connect(player, to: distortion, format: file.processingFormat)
    engine.connect(distortion, to: pitch, format: file.processingFormat)
    engine.connect(pitch, to: reverb, format: file.processingFormat)
    engine.connect(reverb, to: engine.mainMixerNode, format: file.processingFormat)
    try engine.enableManualRenderingMode(.offline, format: file.processingFormat, maximumFrameCount: 4096)
    player.scheduleFile(file, at: nil)
    try engine.start()
    player.play()
    let out = try AVAudioFile(forWriting: output, settings: file.fileFormat.settings)
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 4096)!
    while engine.manualRenderingSampleTime < file.length {
        let frames = min(AVAudioFrameCount(file.length - engine.manualRenderingSampleTime), buffer.frameCapacity)
        guard try engine.renderOffline(frames, to: buffer) == .success else { break }
        try out.write(from: buffer)
    }
    engine.stop()
    return out.length
}

/// A piano app's audio engine: a sampler with the General MIDI piano, a delay and a reverb, started
/// when the app starts; keys call `noteOn` and `noteOff`.
final class PianoAudioEngine {
    private let engine = AVAudioEngine()
    private let sampler = AVAudioUnitSampler()
    private let delay = AVAudioUnitDelay()
    private let reverb = AVAudioUnitReverb()

    init(soundFont: URL) throws {
        engine.attach(sampler)
        engine.attach(delay)
        engine.attach(reverb)
        engine.connect(sampler, to: delay, format: nil)
        engine.connect(delay, to: reverb, format: nil)
        engine.connect(reverb, to: engine.mainMixerNode, format: nil)
        delay.delayTime = 0.25
        delay.feedback = 30
        delay.wetDryMix = 25
        reverb.loadFactoryPreset(.largeHall)
        reverb.wetDryMix = 30
        try sampler.loadSoundBankInstrument(at: soundFont, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB),
                                            bankLSB: UInt8(kAUSampler_DefaultBankLSB))
        engine.prepare()
        try engine.start()
    }

    func noteOn(_ note: UInt8, velocity: UInt8 = 100) { sampler.startNote(note, withVelocity: velocity, onChannel: 0) }
    func noteOff(_ note: UInt8) { sampler.stopNote(note, onChannel: 0) }
    var isRunning: Bool { engine.isRunning }
    var renderedSeconds: Double {
        Double(engine.mainMixerNode.lastRenderTime?.sampleTime ?? 0) / engine.mainMixerNode.outputFormat(forBus: 0).sampleRate
    }
    func stop() { engine.stop() }
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: effect-programs CLIP SOUNDFONT OUTDIR\n".utf8))
    exit(2)
}
let clip = URL(fileURLWithPath: arguments[1])
let soundFont = URL(fileURLWithPath: arguments[2])
let folder = URL(fileURLWithPath: arguments[3])

let reverbed = offlineReverb(source: clip, to: folder.appendingPathComponent("reverb.wav"))
print("offline reverb: \(reverbed) frames")

let equalizer = GraphicEqualizer()
equalizer.setGain(12, forBandAt: 5)
let levels = try equalizer.export(clip)
print(String(format: "equaliser 1 kHz band +12 dB: %.2f dB", 20 * log10(levels.output / levels.input)))

let changed = try voiceChanger(source: clip, to: folder.appendingPathComponent("voice.wav"))
print("voice changer: \(changed) frames")

let piano = try PianoAudioEngine(soundFont: soundFont)
for note: UInt8 in [60, 64, 67] {
    piano.noteOn(note)
    Thread.sleep(forTimeInterval: 0.3)
    piano.noteOff(note)
}
let deadline = Date(timeIntervalSinceNow: 30)
while piano.renderedSeconds < 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
print("piano: running \(piano.isRunning), rendered \(piano.renderedSeconds >= 1 ? "over 1 s" : "less")")
piano.stop()

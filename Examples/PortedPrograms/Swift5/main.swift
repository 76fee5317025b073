// Shapes of real Apple audio programs written by others (a tuner's tap, a generator filling buffer
// lists, a player subclass, a file writer swapping a big-endian header, a command-line tool that runs the
// run loop until it is done, a recording app asking the session for its microphone, a file converter on
// Extended Audio File Services, a resampler on AVAudioConverter and on Audio Converter Services, a
// synthesizer rendered offline through a source node), ported with only the import changed. The same file is compiled in Swift 5 (this folder) and Swift 6 (../Swift6, a link to it)
// language modes; what it prints the tests check against independent numbers.
//
// Run: ported-programs-swift5 FILE   (FILE: a mono sound file the player subclass opens and the converter
//      converts; the converted copy is written beside it as FILE.48k.wav)

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

// A tuner's tap: the RMS of each channel, read through the buffer list as such code reads it.
func rms(of buffer: AVAudioPCMBuffer) -> [Float] {
    let buffers = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
    return buffers.map { audioBuffer in
        let samples = UnsafeMutableBufferPointer<Float>(audioBuffer).prefix(Int(buffer.frameLength))
        let sum = samples.reduce(Float(0)) { $0 + $1 * $1 }
        return (sum / Float(max(1, samples.count))).squareRoot()
    }
}

// A generator's render: fills every buffer of a list with a sine, as a render callback fills ioData.
func fillSine(_ ioData: UnsafeMutablePointer<AudioBufferList>, frames: Int, frequency: Double, rate: Double,
              amplitude: Float) {
    for audioBuffer in UnsafeMutableAudioBufferListPointer(ioData) {
        let samples = UnsafeMutableBufferPointer<Float>(audioBuffer)
        for frame in 0..<min(frames, samples.count) {
            samples[frame] = amplitude * Float(sin(2 * Double.pi * frequency * Double(frame) / rate))
        }
    }
}

let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_800)!
fillSine(buffer.mutableAudioBufferList, frames: 4_800, frequency: 1_000, rate: 48_000, amplitude: 0.5)
buffer.frameLength = 4_800
let list = buffer.audioBufferList.pointee
print("buffer list: \(list.mNumberBuffers) buffers of \(list.mBuffers.mNumberChannels) channel, "
      + "\(list.mBuffers.mDataByteSize) bytes each")
print(String(format: "rms: %.4f %.4f", rms(of: buffer)[0], rms(of: buffer)[1]))

// A list of its own, allocated for two buffers and freed as Apple's documentation says.
let own = AudioBufferList.allocate(maximumBuffers: 2)
let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * 480)
memory.initialize(repeating: 0)
own[0] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[0..<480]), numberOfChannels: 1)
own[1] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[480...]), numberOfChannels: 1)
fillSine(own.unsafeMutablePointer, frames: 480, frequency: 100, rate: 48_000, amplitude: 1)
print("own list: \(own.count) buffers, \(own[1].mDataByteSize) bytes, sample 120 = \(memory[480 + 120])")
memory.deallocate()
free(own.unsafeMutablePointer)

// A player subclass that calls Apple's designated initializer.
class LoopingPlayer: AVAudioPlayer {
    override init(contentsOf url: URL) throws {
        try super.init(contentsOf: url)
        numberOfLoops = -1
    }
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "take.wav"
do {
    let player = try LoopingPlayer(contentsOf: URL(fileURLWithPath: path))
    print(String(format: "subclass: %.2f s, loops %d", player.duration, player.numberOfLoops))
} catch {
    print("subclass: \(error.localizedDescription)")
}

// A file writer's header: a four-character code and a length, big-endian.
var header = Data()
for word in [CFSwapInt32HostToBig(kAudioFormatLinearPCM), CFSwapInt32HostToBig(UInt32(44_100))] {
    withUnsafeBytes(of: word) { header.append(contentsOf: $0) }
}
let code: OSType = CFSwapInt32BigToHost(header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
print("header: \(header.map { String(format: "%02x", $0) }.joined()) code \(code == kAudioFormatLinearPCM)")

// A command-line tool: runs the run loop until work sent to the main queue has run three times and stops it.
var ticks = 0
@MainActor func tick() {
    ticks += 1
    if ticks == 3 {
        CFRunLoopStop(CFRunLoopGetCurrent())
    } else {
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.01) { tick() }
    }
}
DispatchQueue.main.async { tick() }
CFRunLoopRun()
print("run loop stopped after \(ticks) ticks")

// A recording app's microphone setup.
let session = AVAudioSession.sharedInstance()
do {
    try session.setPreferredInput(nil)
    try session.setInputDataSource(nil)
    print("data sources: \(session.inputDataSources?.count ?? 0), preferred input \(session.preferredInput == nil ? "none" : "set")")
    try session.setPreferredInputOrientation(.portrait)
    print("orientation: set")
} catch {
    print("orientation: refused")
}

// A RemoteIO unit's description, as such code builds it.
var description = AudioComponentDescription(componentType: kAudioUnitType_Output,
                                            componentSubType: kAudioUnitSubType_RemoteIO,
                                            componentManufacturer: kAudioUnitManufacturer_Apple,
                                            componentFlags: 0, componentFlagsMask: 0)
description.componentFlags = 0
print(String(format: "component: %08x %08x %08x", description.componentType, description.componentSubType,
             description.componentManufacturer))

// A file converter: any file to 48 kHz stereo float through a client format, written as a 16-bit WAV.
func convertFile(_ path: String) throws -> (read: Int64, written: Int64) {
    var input: ExtAudioFileRef?
    guard ExtAudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, &input) == noErr, let input else { return (-1, -1) }
    defer { ExtAudioFileDispose(input) }
    var client = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                             mFormatFlags: kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                             mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                             mBitsPerChannel: 32, mReserved: 0)
    let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
    ExtAudioFileSetProperty(input, kExtAudioFileProperty_ClientDataFormat, size, &client)
    var fileFormat = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                                 mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                 mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                                 mBitsPerChannel: 16, mReserved: 0)
    var output: ExtAudioFileRef?
    let url = URL(fileURLWithPath: path + ".48k.wav") as CFURL
    guard ExtAudioFileCreateWithURL(url, kAudioFileWAVEType, &fileFormat, nil, AudioFileFlags.eraseFile.rawValue, &output) == noErr,
          let output else { return (-1, -1) }
    ExtAudioFileSetProperty(output, kExtAudioFileProperty_ClientDataFormat, size, &client)
    let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(streamDescription: &client)!, frameCapacity: 4_096)!
    var total: Int64 = 0
    while true {
        var frames: UInt32 = 4_096
        guard ExtAudioFileRead(input, &frames, buffer.mutableAudioBufferList) == noErr, frames > 0 else { break }
        buffer.frameLength = frames
        ExtAudioFileWrite(output, frames, buffer.audioBufferList)
        total += Int64(frames)
    }
    ExtAudioFileDispose(output)
    var reopened: ExtAudioFileRef?
    guard ExtAudioFileOpenURL(url, &reopened) == noErr, let reopened else { return (total, -1) }
    defer { ExtAudioFileDispose(reopened) }
    var length: Int64 = 0
    var lengthSize: UInt32 = 8
    ExtAudioFileGetProperty(reopened, kExtAudioFileProperty_FileLengthFrames, &lengthSize, &length)
    return (total, length)
}
do {
    let (read, written) = try convertFile(path)
    print("converted: \(read) frames read at 48 kHz, \(written) in the file")
} catch {
    print("converted: \(error.localizedDescription)")
}

// A resampler on AVAudioConverter: a tenth of a second at 44.1 kHz pulled through the input block.
let slow = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!
let fast = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
let resampler = AVAudioConverter(from: slow, to: fast)!
let tenth = AVAudioPCMBuffer(pcmFormat: slow, frameCapacity: 4_410)!
tenth.frameLength = 4_410
var given = false
var resampled = 0
let out = AVAudioPCMBuffer(pcmFormat: fast, frameCapacity: 1_024)!
while true {
    var error: NSError?
    let status = resampler.convert(to: out, error: &error) { _, outStatus in
        if given {
            outStatus.pointee = .endOfStream
            return nil
        }
        given = true
        outStatus.pointee = .haveData
        return tenth
    }
    resampled += Int(out.frameLength)
    if status == .endOfStream || status == .error { break }
}
print("AVAudioConverter: 4410 frames at 44.1 kHz became \(resampled) at 48 kHz")

// The same on Audio Converter Services, with a C input procedure and its user data.
final class Source {
    var samples = [Float](repeating: 0.25, count: 4_410)
    var used = false
}
let inputProc: AudioConverterComplexInputDataProc = { _, ioPackets, ioData, _, userData in
    let source = Unmanaged<Source>.fromOpaque(userData!).takeUnretainedValue()
    if source.used {
        ioPackets.pointee = 0
        return noErr
    }
    source.used = true
    ioPackets.pointee = UInt32(source.samples.count)
    source.samples.withUnsafeMutableBufferPointer { ioData.pointee.mBuffers.mData = UnsafeMutableRawPointer($0.baseAddress) }
    ioData.pointee.mBuffers.mDataByteSize = UInt32(source.samples.count * 4)
    return noErr
}
var converter: AudioConverterRef?
AudioConverterNew(slow.streamDescription, fast.streamDescription, &converter)
let source = Source()
var convertedFrames = 0
var scratch = [Float](repeating: 0, count: 1_024)
while let converter {
    var packets: UInt32 = 1_024
    let status = scratch.withUnsafeMutableBufferPointer { buffer -> OSStatus in
        var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(buffer, numberOfChannels: 1))
        return AudioConverterFillComplexBuffer(converter, inputProc, Unmanaged.passUnretained(source).toOpaque(), &packets, &list, nil)
    }
    convertedFrames += Int(packets)
    if status != noErr || packets == 0 { break }
}
if let converter { AudioConverterDispose(converter) }
print("AudioConverterFillComplexBuffer: \(convertedFrames) frames at 48 kHz")

// A synthesizer: a source node's 440 Hz sine rendered offline, a second of it, its RMS measured.
let engine = AVAudioEngine()
var phase = 0.0
let sine = AVAudioSourceNode { _, _, frameCount, audioBufferList in
    let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
    for frame in 0..<Int(frameCount) {
        let value = Float(0.5 * sin(phase))
        phase += 2 * Double.pi * 440 / 44_100
        for buffer in buffers { UnsafeMutableBufferPointer<Float>(buffer)[frame] = value }
    }
    return noErr
}
engine.attach(sine)
engine.connect(sine, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
do {
    try engine.enableManualRenderingMode(.offline, format: engine.outputNode.outputFormat(forBus: 0), maximumFrameCount: 4_410)
    try engine.start()
    let rendered = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    var sum = 0.0
    while engine.manualRenderingSampleTime < 44_100 {
        guard try engine.renderOffline(4_410, to: rendered) == .success else { break }
        for frame in 0..<Int(rendered.frameLength) { sum += Double(rendered.floatChannelData![0][frame] * rendered.floatChannelData![0][frame]) }
    }
    engine.stop()
    print(String(format: "offline synthesizer: %lld frames, rms %.4f", engine.manualRenderingSampleTime, (sum / 44_100).squareRoot()))
} catch {
    print("offline synthesizer: \(error.localizedDescription)")
}

// A call recorder's setup: voice processing asked of the engine's input node (the server's echo
// canceller, when it has one), the I/O nodes' latencies, a sink node taking the input whole.
let callEngine = AVAudioEngine()
do {
    try callEngine.inputNode.setVoiceProcessingEnabled(true)
    print("voice processing: on")
} catch {
    print("voice processing: refused (\(error.localizedDescription.contains("module-echo-cancel") ? "load module-echo-cancel" : "?"))")
}
let sink = AVAudioSinkNode { _, frameCount, _ in frameCount > 0 ? noErr : kAudio_ParamError }
callEngine.attach(sink)
callEngine.connect(callEngine.inputNode, to: sink, format: nil)
print("sink node: \(sink.numberOfOutputs) outputs, latency before start \(callEngine.inputNode.presentationLatency + callEngine.outputNode.presentationLatency)")

// A RemoteIO app on AUAudioUnit: the formats of its two sides, its render resources.
do {
    let io = try AUAudioUnit(componentDescription: description)
    let stereo48 = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    try io.inputBusses[0].setFormat(stereo48)
    try io.outputBusses[1].setFormat(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!)
    io.isInputEnabled = true
    io.outputProvider = { _, _, _, _, _ in noErr }
    io.inputHandler = { _, _, _, _ in }
    try io.allocateRenderResources()
    print("AUAudioUnit: \(io.inputBusses[0].format.sampleRate) Hz \(io.inputBusses[0].format.channelCount) ch out, "
          + "\(io.outputBusses[1].format.channelCount) ch in, allocated \(io.renderResourcesAllocated)")
    io.deallocateRenderResources()
} catch {
    print("AUAudioUnit: \(error.localizedDescription)")
}

// A sequencer's clock: player times converted to node times while rendering offline; a realtime render.
let sequencer = AVAudioEngine()
let voice = AVAudioPlayerNode()
sequencer.attach(voice)
sequencer.connect(voice, to: sequencer.mainMixerNode, format: slow)
do {
    try sequencer.enableManualRenderingMode(.realtime, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!,
                                            maximumFrameCount: 512)
    try sequencer.start()
    voice.scheduleBuffer(tenth, at: nil, options: .loops)
    voice.play(at: AVAudioTime(sampleTime: 1_000, atRate: 44_100))
    let render = sequencer.manualRenderingBlock
    let target = AudioBufferList.allocate(maximumBuffers: 2)
    let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1_024)
    target[0] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[0..<512]), numberOfChannels: 1)
    target[1] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[512...]), numberOfChannels: 1)
    var status: OSStatus = noErr
    var results: [AVAudioEngineManualRenderingStatus] = []
    for _ in 0..<4 { results.append(render(512, target.unsafeMutablePointer, &status)) }
    let node = voice.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 100, atRate: 44_100))?.sampleTime ?? -1
    print("sequencer: \(results.allSatisfy { $0 == .success }) at \(sequencer.manualRenderingSampleTime), player time 100 is node time \(node)")
    memory.deallocate()
    free(target.unsafeMutablePointer)
    sequencer.stop()
} catch {
    print("sequencer: \(error.localizedDescription)")
}

// A sample-format helper: 16-bit stereo to float with AudioConverterConvertBuffer.
var toFloat: AudioConverterRef?
var shortFormat = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                              mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                              mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                              mBitsPerChannel: 16, mReserved: 0)
var floatFormat = shortFormat
floatFormat.mFormatFlags = kAudioFormatFlagsNativeFloatPacked
floatFormat.mBytesPerPacket = 8
floatFormat.mBytesPerFrame = 8
floatFormat.mBitsPerChannel = 32
AudioConverterNew(&shortFormat, &floatFormat, &toFloat)
let shorts: [Int16] = [16_384, -16_384, 8_192, -8_192]
var floats = [Float](repeating: 0, count: 4)
var floatBytes = UInt32(16)
if let toFloat {
    AudioConverterConvertBuffer(toFloat, 8, shorts, &floatBytes, &floats)
    AudioConverterDispose(toFloat)
}
print("ConvertBuffer: \(floatBytes) bytes, \(floats)")

// A waveform view's reader: an Audio File Services file wrapped, seeked and told.
var audioFile: AudioFileID?
AudioFileOpenURL(URL(fileURLWithPath: path) as CFURL, .readPermission, 0, &audioFile)
if let audioFile {
    var wrapped: ExtAudioFileRef?
    ExtAudioFileWrapAudioFileID(audioFile, false, &wrapped)
    if let wrapped {
        var position: Int64 = -1
        ExtAudioFileSeek(wrapped, 1_000)
        ExtAudioFileTell(wrapped, &position)
        print("wrapped file: told \(position) after seeking to 1000")
        ExtAudioFileDispose(wrapped)
    }
    AudioFileClose(audioFile)
}

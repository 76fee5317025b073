// Shapes of real Apple audio programs written by others (a tuner's tap, a generator filling buffer
// lists, a player subclass, a file writer swapping a big-endian header, a command-line tool that runs the
// run loop until it is done, a recording app asking the session for its microphone), ported with only the
// import changed. The same file is compiled in Swift 5 (this folder) and Swift 6 (../Swift6, a link to it)
// language modes; what it prints the tests check against independent numbers.
//
// Run: ported-programs-swift5 FILE   (FILE: a sound file the player subclass opens)

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

// The probe's AUAudioUnit programs, written as iOS apps drive a RemoteIO unit through Apple's version 3
// API: `au-record FRAMES OUT` (the input handler renders bus 1 into a list of its own; s16le mono 44.1 kHz
// written to OUT) and `au-play IN` (the output provider plays IN, s16le mono 44.1 kHz).
import Foundation
import OpenAVFAudio

@MainActor
func audioUnitIO(_ arguments: [String]) throws {
    let recording = arguments[0] == "au-record"
    let description = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: kAudioUnitSubType_RemoteIO,
                                                componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
    let unit = try AUAudioUnit(componentDescription: description)
    let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 1, interleaved: true)!
    try unit.outputBusses[1].setFormat(format)
    try unit.inputBusses[0].setFormat(format)
    let shared = Shared()
    if recording {
        shared.wanted = Int(arguments[1]) ?? 44_100
        unit.isInputEnabled = true
        unit.isOutputEnabled = false
        let render = unit.renderBlock
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
        unit.inputHandler = { flags, timestamp, frameCount, bus in
            buffer.frameLength = frameCount
            let status = render(flags, timestamp, frameCount, bus, buffer.mutableAudioBufferList, nil)
            guard status == noErr else { return }
            shared.add(Array(UnsafeBufferPointer(start: buffer.int16ChannelData![0], count: Int(frameCount))))
        }
    } else {
        let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
        shared.samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        unit.outputProvider = { _, _, frameCount, _, inputData in
            let out = UnsafeMutableBufferPointer<Int16>(UnsafeMutableAudioBufferListPointer(inputData)[0])
            shared.take(into: out, count: Int(frameCount))
            return noErr
        }
    }
    try unit.allocateRenderResources()
    try unit.startHardware()
    let deadline = Date(timeIntervalSinceNow: 60)
    while Date() < deadline && !shared.done(recording: recording) { spin(0.02) }
    unit.stopHardware()
    unit.deallocateRenderResources()
    if recording {
        let samples = Array(shared.snapshot.prefix(shared.wanted))
        try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: arguments[2])) }
        print("recorded \(samples.count) frames, running \(unit.isRunning)")
    } else {
        print("played \(shared.played) frames, running \(unit.isRunning)")
    }
}

/// What the handlers share with the main thread, under a lock.
final class Shared: @unchecked Sendable {
    // @unchecked Sendable: every field under `lock`.
    private let lock = NSLock()
    var samples: [Int16] = []
    private var position = 0
    var wanted = 0

    func add(_ more: [Int16]) { lock.withLock { samples += more } }
    func take(into out: UnsafeMutableBufferPointer<Int16>, count: Int) {
        lock.withLock {
            for frame in 0..<count {
                out[frame] = position < samples.count ? samples[position] : 0
                position += 1
            }
        }
    }
    func done(recording: Bool) -> Bool {
        lock.withLock { recording ? samples.count >= wanted : position >= samples.count + 22_050 }
    }
    var snapshot: [Int16] { lock.withLock { samples } }
    var played: Int { lock.withLock { min(position, samples.count) } }
}

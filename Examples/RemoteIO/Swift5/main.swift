// The RemoteIO recorder and player as iOS programs write them with Audio Unit Services' C calls: find the
// component, make the unit, enable input, set the client stream formats, install the input or render
// callback, initialize, start; the input callback pulls the microphone with AudioUnitRender into the
// unit's own buffer; the render callback fills ioData. Only the import differs from Apple's; the same
// file is built in Swift 5 (this folder) and Swift 6 (../Swift6, a link to it) language modes.
//
// Run: remoteio-swift5 record FRAMES OUT   (FRAMES of the default source, 44.1 kHz mono s16le, into OUT)
//      remoteio-swift5 play IN              (IN: 44.1 kHz mono s16le, raw, to the default sink)

import Foundation
import OpenAudioToolbox  // on Apple's systems: import AudioToolbox

func check(_ status: OSStatus, _ what: String) {
    if status != noErr {
        FileHandle.standardError.write(Data("\(what): \(status) \(OpenAudioToolboxLastErrorMessage() ?? "")\n".utf8))
        exit(1)
    }
}

/// What the callbacks share: the unit, the samples to play or those recorded, and how far each got.
final class Session {
    var unit: AudioUnit?
    var samples: [Int16] = []
    var position = 0
    var wanted = 0
    let lock = NSLock()
}

let recordingCallback: AURenderCallback = { inRefCon, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, _ in
    let session = Unmanaged<Session>.fromOpaque(inRefCon).takeUnretainedValue()
    var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: inNumberFrames * 2, mData: nil))
    let status = AudioUnitRender(session.unit!, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, &list)
    guard status == noErr else { return status }
    let samples = UnsafeBufferPointer<Int16>(list.mBuffers)
    session.lock.lock()
    session.samples += samples
    session.lock.unlock()
    return noErr
}

let playbackCallback: AURenderCallback = { inRefCon, _, _, _, inNumberFrames, ioData in
    let session = Unmanaged<Session>.fromOpaque(inRefCon).takeUnretainedValue()
    guard let ioData else { return noErr }
    let out = UnsafeMutableBufferPointer<Int16>(UnsafeMutableAudioBufferListPointer(ioData)[0])
    session.lock.lock()
    for frame in 0..<Int(inNumberFrames) {
        out[frame] = session.position < session.samples.count ? session.samples[session.position] : 0
        session.position += 1
    }
    session.lock.unlock()
    return noErr
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: remoteio record FRAMES OUT | play IN\n".utf8))
    exit(2)
}
let recording = arguments[1] == "record"
let session = Session()
if recording {
    session.wanted = Int(arguments[2]) ?? 44_100
} else {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    session.samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

var description = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: kAudioUnitSubType_RemoteIO,
                                            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
guard let component = AudioComponentFindNext(nil, &description) else { exit(1) }
var unit: AudioUnit?
check(AudioComponentInstanceNew(component, &unit), "AudioComponentInstanceNew")
session.unit = unit

var on: UInt32 = 1, off: UInt32 = 0
let inputBus: AudioUnitElement = 1, outputBus: AudioUnitElement = 0
check(AudioUnitSetProperty(unit!, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, inputBus, &on, 4), "EnableIO input")
if recording {
    check(AudioUnitSetProperty(unit!, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Output, outputBus, &off, 4), "EnableIO output")
}

var format = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                         mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                         mBytesPerPacket: 2, mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1,
                                         mBitsPerChannel: 16, mReserved: 0)
let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
check(AudioUnitSetProperty(unit!, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, inputBus, &format, size), "StreamFormat input")
check(AudioUnitSetProperty(unit!, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, outputBus, &format, size), "StreamFormat output")

var callback = AURenderCallbackStruct(inputProc: recording ? recordingCallback : playbackCallback,
                                      inputProcRefCon: Unmanaged.passUnretained(session).toOpaque())
let property = recording ? kAudioOutputUnitProperty_SetInputCallback : kAudioUnitProperty_SetRenderCallback
check(AudioUnitSetProperty(unit!, property, kAudioUnitScope_Global, recording ? inputBus : outputBus, &callback,
                           UInt32(MemoryLayout<AURenderCallbackStruct>.size)), "callback")
check(AudioUnitInitialize(unit!), "AudioUnitInitialize")
check(AudioOutputUnitStart(unit!), "AudioOutputUnitStart")

let deadline = Date(timeIntervalSinceNow: 60)
while Date() < deadline {
    session.lock.lock()
    let done = recording ? session.samples.count >= session.wanted : session.position >= session.samples.count + 22_050
    session.lock.unlock()
    if done { break }
    Thread.sleep(forTimeInterval: 0.02)
}
check(AudioOutputUnitStop(unit!), "AudioOutputUnitStop")
var running: UInt32 = 1
var runningSize: UInt32 = 4
check(AudioUnitGetProperty(unit!, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &runningSize), "IsRunning")
check(AudioComponentInstanceDispose(unit!), "AudioComponentInstanceDispose")
session.lock.lock()
if recording {
    let samples = Array(session.samples.prefix(session.wanted))
    try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: arguments[3])) }
    print("recorded \(samples.count) frames, running \(running)")
} else {
    print("played \(min(session.position, session.samples.count)) frames, running \(running)")
}
session.lock.unlock()

// A player app's AUGraph as Apple code writes it (import AudioToolbox changed): a file player into a
// multichannel mixer into the output, the file scheduled as a region whose completion is waited for; a
// render callback on a second mixer input, panned left. Played to the default output, or rendered offline
// through the generic output into a raw file of interleaved float32 frames.
//
//   graph-file-player play SOUND.wav
//   graph-file-player render SOUND.wav OUT.raw
//   graph-file-player remove SOUND.wav   (the playing file player taken out; its completion stops the graph)
import Foundation
import OpenAudioToolbox

func check(_ status: OSStatus, _ what: String) {
    guard status == noErr else {
        print("\(what) failed: \(status) \(OpenAudioToolboxLastErrorMessage() ?? "")")
        exit(1)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["play", "remove"].contains(arguments[1]) || (arguments[1] == "render" && arguments.count == 4) else {
    FileHandle.standardError.write("usage: graph-file-player play SOUND | render SOUND OUT.raw | remove SOUND\n".data(using: .utf8)!)
    exit(2)
}
let offline = arguments[1] == "render"

// The graph: file player → mixer (bus 0) → output; a render callback into mixer bus 1.
var graph: AUGraph?
check(NewAUGraph(&graph), "NewAUGraph")
var outputDescription = AudioComponentDescription(componentType: kAudioUnitType_Output,
                                                  componentSubType: offline ? kAudioUnitSubType_GenericOutput : kAudioUnitSubType_DefaultOutput,
                                                  componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
var playerDescription = AudioComponentDescription(componentType: kAudioUnitType_Generator, componentSubType: kAudioUnitSubType_AudioFilePlayer,
                                                  componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
var mixerDescription = AudioComponentDescription(componentType: kAudioUnitType_Mixer, componentSubType: kAudioUnitSubType_MultiChannelMixer,
                                                 componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
var outputNode = AUNode(), playerNode = AUNode(), mixerNode = AUNode()
check(AUGraphAddNode(graph!, &outputDescription, &outputNode), "AUGraphAddNode(output)")
check(AUGraphAddNode(graph!, &playerDescription, &playerNode), "AUGraphAddNode(file player)")
check(AUGraphAddNode(graph!, &mixerDescription, &mixerNode), "AUGraphAddNode(mixer)")
check(AUGraphOpen(graph!), "AUGraphOpen")

var playerUnit: AudioUnit?, mixerUnit: AudioUnit?, outputUnit: AudioUnit?
check(AUGraphNodeInfo(graph!, playerNode, nil, &playerUnit), "AUGraphNodeInfo(file player)")
check(AUGraphNodeInfo(graph!, mixerNode, nil, &mixerUnit), "AUGraphNodeInfo(mixer)")
check(AUGraphNodeInfo(graph!, outputNode, nil, &outputUnit), "AUGraphNodeInfo(output)")

var busCount: UInt32 = 2
check(AudioUnitSetProperty(mixerUnit!, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &busCount,
                           UInt32(MemoryLayout<UInt32>.size)), "the mixer's bus count")
// Bus 1 takes mono 16-bit samples from a render callback: a constant quarter-scale level.
var monoFormat = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                             mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, mBytesPerPacket: 2,
                                             mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1, mBitsPerChannel: 16, mReserved: 0)
check(AudioUnitSetProperty(mixerUnit!, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &monoFormat,
                           UInt32(MemoryLayout<AudioStreamBasicDescription>.size)), "bus 1's format")
var outputFormat = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                               mBitsPerChannel: 32, mReserved: 0)
check(AudioUnitSetProperty(mixerUnit!, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &outputFormat,
                           UInt32(MemoryLayout<AudioStreamBasicDescription>.size)), "the mixer's output format")

check(AUGraphConnectNodeInput(graph!, playerNode, 0, mixerNode, 0), "connecting the file player")
check(AUGraphConnectNodeInput(graph!, mixerNode, 0, outputNode, 0), "connecting the mixer")
var level: Int16 = 8_192
var callback = AURenderCallbackStruct(inputProc: { refCon, _, _, _, frames, ioData in
    let level = refCon.assumingMemoryBound(to: Int16.self).pointee
    let samples = ioData!.pointee.mBuffers.mData!.assumingMemoryBound(to: Int16.self)
    for frame in 0..<Int(frames) { samples[frame] = level }
    return noErr
}, inputProcRefCon: &level)
check(AUGraphSetNodeInputCallback(graph!, mixerNode, 1, &callback), "the render callback")

check(AUGraphInitialize(graph!), "AUGraphInitialize")
var nodeCount: UInt32 = 0, interactions: UInt32 = 0
AUGraphGetNodeCount(graph!, &nodeCount)
AUGraphGetNumberOfInteractions(graph!, &interactions)
print("nodes: \(nodeCount), interactions: \(interactions)")

// The mixer: the file at half volume, the callback's bus panned hard left, the whole mix at half.
check(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 0.5, 0), "bus 0's volume")
check(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 1, -1, 0), "bus 1's pan")
check(AudioUnitSetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Output, 0, 0.5, 0), "the output volume")
var volume: AudioUnitParameterValue = 0
AudioUnitGetParameter(mixerUnit!, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, &volume)
print("bus 0 volume: \(volume)")

// The file, scheduled whole from the start, its completion signalled.
var file: AudioFileID?
check(AudioFileOpenURL(URL(fileURLWithPath: arguments[2]) as CFURL, .readPermission, 0, &file), "AudioFileOpenURL")
var fileFormat = AudioStreamBasicDescription()
var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
check(AudioFileGetProperty(file!, kAudioFilePropertyDataFormat, &size, &fileFormat), "the file's format")
var packets: UInt64 = 0
size = UInt32(MemoryLayout<UInt64>.size)
check(AudioFileGetProperty(file!, kAudioFilePropertyAudioDataPacketCount, &size, &packets), "the file's length")
let fileFrames = UInt32(packets) * fileFormat.mFramesPerPacket
print("file: \(fileFrames) frames at \(Int(fileFormat.mSampleRate)) Hz, \(fileFormat.mChannelsPerFrame) channels")
check(AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file,
                           UInt32(MemoryLayout<AudioFileID>.size)), "the file IDs")
let done = DispatchSemaphore(value: 0)
/// What a region's completion is given: the semaphore to signal and, to stop it, the graph.
final class Completion {
    let done: DispatchSemaphore
    let graph: AUGraph?
    init(_ done: DispatchSemaphore, stopping graph: AUGraph?) {
        self.done = done
        self.graph = graph
    }
}
let completion = Completion(done, stopping: arguments[1] == "remove" ? graph : nil)
var region = ScheduledAudioFileRegion(mTimeStamp: AudioTimeStamp(), mCompletionProc: { userData, _, status in
    let completion = Unmanaged<Completion>.fromOpaque(userData!).takeUnretainedValue()
    if let graph = completion.graph { AUGraphStop(graph) }
    completion.done.signal()
}, mCompletionProcUserData: Unmanaged.passUnretained(completion).toOpaque(), mAudioFile: file!, mLoopCount: 0, mStartFrame: 0,
    mFramesToPlay: fileFrames)
region.mTimeStamp.mFlags = .sampleTimeValid
region.mTimeStamp.mSampleTime = 0
check(AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                           UInt32(MemoryLayout<ScheduledAudioFileRegion>.size)), "the region")
var prime: UInt32 = 0
check(AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduledFilePrime, kAudioUnitScope_Global, 0, &prime,
                           UInt32(MemoryLayout<UInt32>.size)), "priming")
var startTime = AudioTimeStamp()
startTime.mFlags = .sampleTimeValid
startTime.mSampleTime = -1
check(AudioUnitSetProperty(playerUnit!, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global, 0, &startTime,
                           UInt32(MemoryLayout<AudioTimeStamp>.size)), "the start time")

if offline {
    // Pull the graph through the generic output, 512 frames at a time, past the file's end.
    guard FileManager.default.createFile(atPath: arguments[3], contents: nil), let out = FileHandle(forWritingAtPath: arguments[3]) else {
        print("cannot write \(arguments[3])")
        exit(1)
    }
    let slice = 512
    let list = AudioBufferList.allocate(maximumBuffers: 2)
    let left = UnsafeMutablePointer<Float>.allocate(capacity: slice), right = UnsafeMutablePointer<Float>.allocate(capacity: slice)
    var rendered = 0
    var completedAt = -1
    while rendered < Int(fileFrames) + 2 * slice {
        list[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(slice * 4), mData: left)
        list[1] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(slice * 4), mData: right)
        var flags = AudioUnitRenderActionFlags()
        var time = AudioTimeStamp()
        time.mFlags = .sampleTimeValid
        time.mSampleTime = Double(rendered)
        check(AudioUnitRender(outputUnit!, &flags, &time, 0, UInt32(slice), list.unsafeMutablePointer), "AudioUnitRender")
        var frames = [Float]()
        for frame in 0..<slice { frames += [left[frame], right[frame]] }
        out.write(frames.withUnsafeBufferPointer { Data(buffer: $0) })
        rendered += slice
        if completedAt < 0, done.wait(timeout: .now()) == .success { completedAt = rendered }
    }
    out.closeFile()
    print("rendered: \(rendered) frames")
    print("region completed by frame \(completedAt)")
} else if arguments[1] == "remove" {
    check(AUGraphStart(graph!), "AUGraphStart")
    Thread.sleep(forTimeInterval: 0.2)
    check(AUGraphRemoveNode(graph!, playerNode), "AUGraphRemoveNode")
    var running: DarwinBoolean = true
    AUGraphIsRunning(graph!, &running)
    print("player removed, its completion called: \(done.wait(timeout: .now()) == .success), running: \(running.boolValue)")
} else {
    check(AUGraphStart(graph!), "AUGraphStart")
    var running: DarwinBoolean = false
    AUGraphIsRunning(graph!, &running)
    print("running: \(running.boolValue)")
    let seconds = Double(fileFrames) / fileFormat.mSampleRate
    print(done.wait(timeout: .now() + seconds + 10) == .success ? "region completed" : "no completion")
    var now = AudioTimeStamp()
    size = UInt32(MemoryLayout<AudioTimeStamp>.size)
    check(AudioUnitGetProperty(playerUnit!, kAudioUnitProperty_CurrentPlayTime, kAudioUnitScope_Global, 0, &now, &size), "the play time")
    print("played past the file's end: \(now.mSampleTime >= Double(fileFrames))")
    Thread.sleep(forTimeInterval: 0.3)  // the last frames rendered are heard
    check(AUGraphStop(graph!), "AUGraphStop")
}
check(AUGraphUninitialize(graph!), "AUGraphUninitialize")
check(AUGraphClose(graph!), "AUGraphClose")
check(DisposeAUGraph(graph!), "DisposeAUGraph")
AudioFileClose(file!)
print("done")

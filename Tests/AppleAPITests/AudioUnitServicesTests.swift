// Audio Component and Audio Unit Services without a server: the components found by description, an
// instance's properties (the client's formats settable, the devices' not; I/O enabled where the unit
// has it), a generic output pulled with AudioUnitRender (its render callback's frames and status, a unit
// disposed inside its own callback), the input bus refusing lists that cannot hold what is asked, and a
// voice processing unit without the server's echo canceller refused with a line.
import Foundation
import OpenAVFAudio
import Testing

private func unit(_ subtype: OSType) throws -> AudioUnit {
    var description = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: subtype,
                                                componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
    let component = try #require(AudioComponentFindNext(nil, &description))
    var made: AudioUnit?
    #expect(AudioComponentInstanceNew(component, &made) == noErr)
    return try #require(made)
}

/// Renders a ramp (frame n of the callback's timeline: n / 1 000) into float buffers; fails when asked to.
private final class Ramp {
    var frames = 0
    var failWith: OSStatus = noErr
    var disposeOnCall = false
}

private let rampCallback: AURenderCallback = { refCon, _, time, _, frameCount, ioData in
    let ramp = Unmanaged<Ramp>.fromOpaque(refCon).takeUnretainedValue()
    if ramp.disposeOnCall, let self_ = unitUnderTest { AudioComponentInstanceDispose(self_) }
    guard ramp.failWith == noErr else { return ramp.failWith }
    for buffer in UnsafeMutableAudioBufferListPointer(ioData!) {
        let samples = UnsafeMutableBufferPointer<Float>(buffer)
        for frame in 0..<Int(frameCount) { samples[frame] = Float(ramp.frames + frame) / 1_000 }
    }
    ramp.frames += Int(frameCount)
    return noErr
}

nonisolated(unsafe) private var unitUnderTest: AudioUnit?
// nonisolated(unsafe): set by one test before it renders on its own thread; no other test reads it.

struct AudioUnitServicesTests {
    @Test func componentsAreFoundByDescription() throws {
        var any = AudioComponentDescription(componentType: kAudioUnitType_Output, componentSubType: 0, componentManufacturer: 0,
                                            componentFlags: 0, componentFlagsMask: 0)
        #expect(AudioComponentCount(&any) == 6)
        var found: [OSType] = []
        var component = AudioComponentFindNext(nil, &any)
        while let current = component {
            var description = AudioComponentDescription()
            #expect(AudioComponentGetDescription(current, &description) == noErr)
            found.append(description.componentSubType)
            component = AudioComponentFindNext(current, &any)
        }
        #expect(found == [kAudioUnitSubType_RemoteIO, kAudioUnitSubType_HALOutput, kAudioUnitSubType_DefaultOutput,
                          kAudioUnitSubType_SystemOutput, kAudioUnitSubType_VoiceProcessingIO, kAudioUnitSubType_GenericOutput])
        var reverb = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Reverb2,
                                               componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        #expect(AudioComponentFindNext(nil, &reverb) == nil && AudioComponentCount(&reverb) == 0)
        #expect(throws: NSError.self) { try AUAudioUnit(componentDescription: reverb) }
    }

    @Test func propertiesAreSetWhereTheUnitHasThem() throws {
        let remote = try unit(kAudioUnitSubType_RemoteIO)
        defer { AudioComponentInstanceDispose(remote) }
        var format = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                                 mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                 mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                                 mBitsPerChannel: 16, mReserved: 0)
        let size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format, size) == noErr)
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &format, size) == kAudioUnitErr_PropertyNotWritable)
        var read = AudioStreamBasicDescription()
        var readSize = size
        #expect(AudioUnitGetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &read, &readSize) == noErr)
        #expect(read.mSampleRate == 48_000 && read.mChannelsPerFrame == 2 && read.mBitsPerChannel == 16)
        var odd = format
        odd.mBitsPerChannel = 12
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &odd, size) == kAudioUnitErr_FormatNotSupported)
        var enabled: UInt32 = 0
        var four: UInt32 = 4
        #expect(AudioUnitGetProperty(remote, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &enabled, &four) == noErr && enabled == 0)
        var frames: UInt32 = 0
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0, &frames, 4) == kAudioUnitErr_InvalidPropertyValue)
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Global, 0, &format, size) == kAudioUnitErr_InvalidProperty)
        #expect(AudioOutputUnitStart(remote) == kAudioUnitErr_Uninitialized)
        #expect(AudioUnitInitialize(remote) == noErr)
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format, size) == kAudioUnitErr_Initialized)
        var parameter: AudioUnitParameterValue = 0
        #expect(AudioUnitGetParameter(remote, 0, kAudioUnitScope_Global, 0, &parameter) == kAudioUnitErr_InvalidParameter)

        let speaker = try unit(kAudioUnitSubType_DefaultOutput)
        defer { AudioComponentInstanceDispose(speaker) }
        var on: UInt32 = 1
        #expect(AudioUnitSetProperty(speaker, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, 4) == kAudioUnitErr_InvalidElement)
    }

    /// A generic output pulled with AudioUnitRender gives its render callback's frames, in slices no larger
    /// than the maximum; the callback's status comes back; disposed inside its own callback, the unit
    /// finishes the render and is gone after.
    @Test func aGenericOutputRendersItsCallback() throws {
        let generic = try unit(kAudioUnitSubType_GenericOutput)
        let ramp = Ramp()
        var callback = AURenderCallbackStruct(inputProc: rampCallback, inputProcRefCon: Unmanaged.passUnretained(ramp).toOpaque())
        #expect(AudioUnitSetProperty(generic, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                     UInt32(MemoryLayout<AURenderCallbackStruct>.size)) == noErr)
        #expect(AudioUnitInitialize(generic) == noErr)
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * 512)
        defer { memory.deallocate() }
        list[0] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[0..<512]), numberOfChannels: 1)
        list[1] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[512...]), numberOfChannels: 1)
        var flags: AudioUnitRenderActionFlags = []
        var time = AudioTimeStamp()
        #expect(AudioUnitRender(generic, &flags, &time, 0, 512, list.unsafeMutablePointer) == noErr)
        #expect(Array(memory[0..<4]) == [0, 0.001, 0.002, 0.003] && memory[511] == 0.511 && memory[512 + 511] == 0.511)
        var small: UInt32 = 256
        #expect(AudioUnitSetProperty(generic, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0, &small, 4) == noErr)
        #expect(AudioUnitRender(generic, &flags, &time, 0, 512, list.unsafeMutablePointer) == kAudioUnitErr_TooManyFramesToProcess)
        ramp.failWith = kAudioUnitErr_NoConnection
        #expect(AudioUnitRender(generic, &flags, &time, 0, 256, list.unsafeMutablePointer) == kAudioUnitErr_NoConnection)
        #expect(AudioUnitRender(generic, &flags, &time, 1, 256, list.unsafeMutablePointer) == kAudioUnitErr_NoConnection, "no input")
        ramp.failWith = noErr
        ramp.disposeOnCall = true
        unitUnderTest = generic
        #expect(AudioUnitRender(generic, &flags, &time, 0, 256, list.unsafeMutablePointer) == noErr)
        #expect(AudioUnitRender(generic, &flags, &time, 0, 256, list.unsafeMutablePointer) == kAudio_ParamError, "disposed")
        unitUnderTest = nil
    }

    /// The input bus of a RemoteIO unit with input enabled: a list too small for the frames asked is
    /// refused; frames not captured yet are silence, flagged.
    @Test func theInputBusRefusesListsThatCannotHoldIt() throws {
        let remote = try unit(kAudioUnitSubType_RemoteIO)
        defer { AudioComponentInstanceDispose(remote) }
        var on: UInt32 = 1
        #expect(AudioUnitSetProperty(remote, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, 4) == noErr)
        var mono = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagsNativeFloatPacked, mBytesPerPacket: 4, mFramesPerPacket: 1,
                                               mBytesPerFrame: 4, mChannelsPerFrame: 1, mBitsPerChannel: 32, mReserved: 0)
        #expect(AudioUnitSetProperty(remote, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &mono,
                                     UInt32(MemoryLayout<AudioStreamBasicDescription>.size)) == noErr)
        var samples = [Float](repeating: 7, count: 64)
        var flags: AudioUnitRenderActionFlags = []
        var time = AudioTimeStamp()
        samples.withUnsafeMutableBufferPointer { out in
            var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 1))
            #expect(AudioUnitRender(remote, &flags, &time, 1, 65, &list) == kAudio_ParamError)
            var none = AudioBufferList(mNumberBuffers: 0, mBuffers: AudioBuffer())
            #expect(AudioUnitRender(remote, &flags, &time, 1, 16, &none) == kAudio_ParamError)
            #expect(AudioUnitRender(remote, &flags, &time, 1, 64, &list) == noErr)
            #expect(flags.contains(.unitRenderAction_OutputIsSilence))
        }
        #expect(samples.allSatisfy { $0 == 0 })
        var other = AudioBufferList()
        #expect(AudioUnitRender(remote, &flags, &time, 2, 16, &other) == kAudioUnitErr_InvalidElement, "no bus 2")
    }

    @Test func voiceProcessingWithoutTheServersEchoCancellerIsRefused() throws {
        let voice = try unit(kAudioUnitSubType_VoiceProcessingIO)
        defer { AudioComponentInstanceDispose(voice) }
        #expect(AudioUnitInitialize(voice) == kAudioUnitErr_FailedInitialization)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("module-echo-cancel") == true)
    }
}

// Audio Queue Services' calls that need no server: formats refused, buffers owned and enqueued, handles
// disposed, properties and parameters read and set, hostile values; each gives Apple's status, never a
// trap. Nothing here starts a queue, so nothing connects.
import Foundation
import OpenAudioToolbox
import Testing

private func pcm(rate: Double = 44_100, channels: UInt32 = 1, bits: UInt32 = 16,
                 flags: AudioFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked) -> AudioStreamBasicDescription {
    AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                mBytesPerPacket: bits / 8 * channels, mFramesPerPacket: 1, mBytesPerFrame: bits / 8 * channels,
                                mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
}

private func ignoreInput(_: UnsafeMutableRawPointer?, _: AudioQueueRef, _: AudioQueueBufferRef, _: UnsafePointer<AudioTimeStamp>,
                         _: UInt32, _: UnsafePointer<AudioStreamPacketDescription>?) {}
private func ignoreOutput(_: UnsafeMutableRawPointer?, _: AudioQueueRef, _: AudioQueueBufferRef) {}
private func ignoreProperty(_: UnsafeMutableRawPointer?, _: AudioQueueRef, _: AudioQueuePropertyID) {}

private func newOutput(_ format: AudioStreamBasicDescription = pcm()) -> (OSStatus, AudioQueueRef?) {
    var description = format
    var queue: AudioQueueRef?
    let status = AudioQueueNewOutput(&description, ignoreOutput, nil, nil, nil, 0, &queue)
    return (status, queue)
}

struct AudioQueueCallTests {
    /// Formats a queue cannot carry: 'fmt?' and no queue; the ones it can: a queue.
    @Test func formatsAreCheckedWhenTheQueueIsMade() {
        var compressed = pcm()
        compressed.mFormatID = kAudioFormatMPEG4AAC
        var nonInterleaved = pcm(channels: 2)
        nonInterleaved.mFormatFlags |= kAudioFormatFlagIsNonInterleaved
        var misPacked = pcm()
        misPacked.mBytesPerFrame = 4
        let refused = [compressed, nonInterleaved, misPacked, pcm(rate: 0), pcm(rate: .nan), pcm(rate: .infinity),
                       pcm(rate: 1e15), pcm(rate: 44_100.5), pcm(channels: 0), pcm(channels: 33), pcm(bits: 8),
                       pcm(bits: 64, flags: kAudioFormatFlagsNativeFloatPacked), pcm(bits: 16, flags: kLinearPCMFormatFlagIsPacked)]
        for format in refused {
            let (status, queue) = newOutput(format)
            #expect(status == kAudioFormatUnsupportedDataFormatError, "\(format)")
            #expect(queue == nil)
        }
        for format in [pcm(), pcm(rate: 48_000, channels: 2, bits: 24), pcm(bits: 32, flags: kAudioFormatFlagsNativeFloatPacked),
                       pcm(channels: 32, bits: 32, flags: kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked | kLinearPCMFormatFlagIsBigEndian)] {
            let (status, queue) = newOutput(format)
            #expect(status == noErr, "\(format)")
            if let queue { #expect(AudioQueueDispose(queue, true) == noErr) }
        }
        var description = pcm()
        var queue: AudioQueueRef?
        #expect(AudioQueueNewInput(&description, ignoreInput, nil, nil, nil, 1, &queue) == kAudio_ParamError)
        #expect(queue == nil)
    }

    /// A queue's buffers: zeroed, of the capacity asked; enqueued once; not another queue's; not freed
    /// while enqueued; an empty or over-full playback buffer refused.
    @Test func buffersBelongToTheirQueue() throws {
        let (_, made) = newOutput()
        let (_, madeOther) = newOutput()
        let queue = try #require(made), other = try #require(madeOther)
        defer {
            AudioQueueDispose(queue, true)
            AudioQueueDispose(other, true)
        }
        var buffer: AudioQueueBufferRef?
        #expect(AudioQueueAllocateBuffer(queue, 0, &buffer) == kAudio_ParamError)
        #expect(buffer == nil)
        #expect(AudioQueueAllocateBuffer(queue, 8_820, &buffer) == noErr)
        let owned = try #require(buffer)
        #expect(owned.pointee.mAudioDataBytesCapacity == 8_820 && owned.pointee.mAudioDataByteSize == 0)
        let bytes = UnsafeRawBufferPointer(start: owned.pointee.mAudioData, count: 8_820)
        #expect(bytes.allSatisfy { $0 == 0 })

        #expect(AudioQueueEnqueueBuffer(queue, owned, 0, nil) == kAudioQueueErr_BufferEmpty)
        owned.pointee.mAudioDataByteSize = 8_822
        #expect(AudioQueueEnqueueBuffer(queue, owned, 0, nil) == kAudio_ParamError)
        owned.pointee.mAudioDataByteSize = 1  // less than a frame
        #expect(AudioQueueEnqueueBuffer(queue, owned, 0, nil) == kAudioQueueErr_BufferEmpty)
        owned.pointee.mAudioDataByteSize = 8_820
        #expect(AudioQueueEnqueueBuffer(other, owned, 0, nil) == kAudioQueueErr_InvalidBuffer)
        #expect(AudioQueueEnqueueBuffer(queue, owned, 0, nil) == noErr)
        #expect(AudioQueueEnqueueBuffer(queue, owned, 0, nil) == kAudioQueueErr_BufferEnqueuedTwice)
        var prepared: UInt32 = 0
        #expect(AudioQueuePrime(queue, 0, &prepared) == noErr)
        #expect(prepared == 4_410)
        #expect(AudioQueueFreeBuffer(queue, owned) == kAudioQueueErr_BufferInQueue)
        #expect(AudioQueueFreeBuffer(other, owned) == kAudioQueueErr_InvalidBuffer)
        #expect(AudioQueueReset(queue) == noErr)  // hands the buffer back (to a callback that ignores it)
        #expect(AudioQueueFreeBuffer(queue, owned) == noErr)
        #expect(AudioQueueFreeBuffer(queue, owned) == kAudioQueueErr_InvalidBuffer)
    }

    /// Times: the device's sample time is its host time's seconds × the rate, both valid; a translation
    /// fills one from the other; a queue not started reads time 0; a timeline is one per queue and is
    /// disposed once; start times refused where they name nothing (no valid time, NaN, negative) and on a
    /// recording queue; nothing of this needs a server.
    @Test func timesAreTheDeviceClockAndTheQueueTimeline() throws {
        let (_, made) = newOutput(pcm(rate: 48_000))
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        var now = AudioTimeStamp()
        #expect(AudioQueueDeviceGetCurrentTime(queue, &now) == noErr)
        #expect(now.mFlags.contains(.sampleTimeValid) && now.mFlags.contains(.hostTimeValid))
        #expect(abs(now.mSampleTime - Double(now.mHostTime) / 1e9 * 48_000) < 1e-3 * 48_000)
        var asked = AudioTimeStamp()
        asked.mSampleTime = 96_000
        asked.mFlags = .sampleTimeValid
        var translated = AudioTimeStamp()
        #expect(AudioQueueDeviceTranslateTime(queue, &asked, &translated) == noErr)
        #expect(translated.mHostTime == 2_000_000_000 && translated.mSampleTime == 96_000)
        var queueTime = AudioTimeStamp()
        var jumped: DarwinBoolean = true
        #expect(AudioQueueGetCurrentTime(queue, nil, &queueTime, &jumped) == noErr)
        #expect(queueTime.mSampleTime == 0 && !jumped.boolValue)
        var timeline: AudioQueueTimelineRef?
        var again: AudioQueueTimelineRef?
        #expect(AudioQueueCreateTimeline(queue, &timeline) == noErr && AudioQueueCreateTimeline(queue, &again) == noErr)
        #expect(timeline != nil && timeline == again)
        #expect(AudioQueueGetCurrentTime(queue, timeline, &queueTime, &jumped) == noErr && !jumped.boolValue)
        #expect(AudioQueueDisposeTimeline(queue, timeline!) == noErr)
        #expect(AudioQueueDisposeTimeline(queue, timeline!) == kAudio_ParamError)
        #expect(AudioQueueGetCurrentTime(queue, timeline, &queueTime, nil) == kAudio_ParamError)
        for (time, flags) in [(1.0, AudioTimeStampFlags()), (.nan, .sampleTimeValid), (-1, .sampleTimeValid), (.infinity, .sampleTimeValid)] {
            var start = AudioTimeStamp()
            start.mSampleTime = time
            start.mFlags = flags
            #expect(AudioQueueStart(queue, &start) == kAudioQueueErr_InvalidParameter, "\(time) \(flags)")
            #expect(AudioQueueDeviceTranslateTime(queue, &start, &translated) == kAudioQueueErr_InvalidParameter)
        }
        var description = pcm()
        var input: AudioQueueRef?
        #expect(AudioQueueNewInput(&description, ignoreInput, nil, nil, nil, 0, &input) == noErr)
        defer { if let input { AudioQueueDispose(input, true) } }
        #expect(AudioQueueStart(try #require(input), &now) == kAudioQueueErr_InvalidParameter)
    }

    /// Once disposed, a handle is refused by every call (kAudio_ParamError), its memory untouched.
    @Test func aDisposedQueueIsRefusedEverywhere() throws {
        let (_, made) = newOutput()
        let queue = try #require(made)
        var buffer: AudioQueueBufferRef?
        #expect(AudioQueueAllocateBuffer(queue, 100, &buffer) == noErr)
        #expect(AudioQueueDispose(queue, true) == noErr)
        var value: Float = 0
        var size: UInt32 = 4
        var running: UInt32 = 0
        var another: AudioQueueBufferRef?
        var stamp = AudioTimeStamp()
        let statuses = [
            AudioQueueDispose(queue, true), AudioQueueStart(queue, nil), AudioQueuePause(queue), AudioQueueStop(queue, true),
            AudioQueueFlush(queue), AudioQueueReset(queue), AudioQueueAllocateBuffer(queue, 100, &another),
            AudioQueueEnqueueBuffer(queue, buffer!, 0, nil), AudioQueueFreeBuffer(queue, buffer!),
            AudioQueueGetParameter(queue, kAudioQueueParam_Volume, &value), AudioQueueSetParameter(queue, kAudioQueueParam_Volume, 1),
            AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size),
            AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, ignoreProperty, nil),
            AudioQueueGetCurrentTime(queue, nil, nil, nil), AudioQueueDeviceGetCurrentTime(queue, &stamp),
        ]
        #expect(statuses.allSatisfy { $0 == kAudio_ParamError }, "\(statuses)")
        #expect(another == nil)
    }

    /// Properties: IsRunning 0 before a start, the format as given, metering off until enabled (silence
    /// then), time-pitch on a playback queue (not a recording one; Apple's algorithms only), sizes checked;
    /// parameters: volume, pan, play rate (0.5…2) and pitch (±2400) clamped, NaN refused.
    @Test func propertiesAndParametersTakeAppleValuesAndRefuseTheRest() throws {
        var format = pcm(channels: 2)
        format.mFormatFlags |= kLinearPCMFormatFlagIsBigEndian
        let (_, made) = newOutput(format)
        let queue = try #require(made)
        defer { AudioQueueDispose(queue, true) }
        var running: UInt32 = 7
        var size = UInt32(MemoryLayout<UInt32>.size)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size) == noErr)
        #expect(running == 0 && size == 4)
        size = 2
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size) == kAudioQueueErr_InvalidPropertySize)
        var described = AudioStreamBasicDescription()
        size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_StreamDescription, &described, &size) == noErr)
        #expect(described.mFormatFlags == format.mFormatFlags && described.mChannelsPerFrame == 2 && described.mSampleRate == 44_100)
        var levels = [AudioQueueLevelMeterState](repeating: .init(mAveragePower: 1, mPeakPower: 1), count: 3)
        #expect(AudioQueueGetPropertySize(queue, kAudioQueueProperty_CurrentLevelMeterDB, &size) == noErr)
        #expect(size == 16)
        size = 24
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeterDB, &levels, &size) == noErr)
        #expect(size == 16 && levels[0].mPeakPower == -160 && levels[1].mAveragePower == -160 && levels[2].mPeakPower == 1)
        size = 8
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeter, &levels, &size) == noErr)
        #expect(size == 8 && levels[0].mPeakPower == 0 && levels[0].mAveragePower == 0)
        size = 4
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentLevelMeter, &levels, &size) == kAudioQueueErr_InvalidPropertySize)
        var on: UInt32 = 1
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_EnableLevelMetering, &on, 4) == noErr)
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_EnableLevelMetering, &on, 2) == kAudioQueueErr_InvalidPropertySize)
        size = 4
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_EnableLevelMetering, &running, &size) == noErr)
        #expect(running == 1)
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_StreamDescription, &described, 40) == kAudioQueueErr_InvalidProperty)
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_EnableTimePitch, &on, 4) == noErr)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_EnableTimePitch, &running, &size) == noErr && running == 1)
        var algorithm = kAudioQueueTimePitchAlgorithm_Varispeed
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, 4) == noErr)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_TimePitchAlgorithm, &running, &size) == noErr
                && running == kAudioQueueTimePitchAlgorithm_Varispeed)
        algorithm = 0x6E6F_6E65  // 'none'
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, 4) == kAudioQueueErr_InvalidPropertyValue)
        #expect(AudioQueueSetProperty(queue, kAudioQueueProperty_TimePitchBypass, &on, 4) == noErr)
        #expect(AudioQueueGetProperty(queue, kAudioQueueProperty_TimePitchBypass, &running, &size) == noErr && running == 1)
        var recording = pcm()
        var input: AudioQueueRef?
        #expect(AudioQueueNewInput(&recording, ignoreInput, nil, nil, nil, 0, &input) == noErr)
        #expect(AudioQueueSetProperty(try #require(input), kAudioQueueProperty_EnableTimePitch, &on, 4) == kAudioQueueErr_InvalidPropertyValue)
        AudioQueueDispose(input!, true)
        #expect(AudioQueueGetProperty(queue, 0x7878_7878, &running, &size) == kAudioQueueErr_InvalidProperty)
        #expect(AudioQueueAddPropertyListener(queue, kAudioQueueProperty_CurrentLevelMeter, ignoreProperty, nil) == kAudioQueueErr_InvalidProperty)
        #expect(AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, ignoreProperty, nil) == noErr)
        #expect(AudioQueueRemovePropertyListener(queue, kAudioQueueProperty_IsRunning, ignoreProperty, nil) == noErr)
        #expect(AudioQueueRemovePropertyListener(queue, kAudioQueueProperty_IsRunning, ignoreProperty, nil) == kAudioQueueErr_InvalidParameter)

        func setDevice(_ name: CFString, size: Int = MemoryLayout<CFString>.size) -> OSStatus {
            var device = name
            return withUnsafeMutablePointer(to: &device) { AudioQueueSetProperty(queue, kAudioQueueProperty_CurrentDevice, $0, UInt32(size)) }
        }
        func currentDevice() -> (OSStatus, CFString) {
            var named: CFString = "something else"
            var size = UInt32(MemoryLayout<CFString>.size)
            let status = withUnsafeMutablePointer(to: &named) { AudioQueueGetProperty(queue, kAudioQueueProperty_CurrentDevice, $0, &size) }
            return (status, named)
        }
        #expect(setDevice("rk_mono.monitor") == noErr)
        #expect(setDevice("rk_mono.monitor", size: 4) == kAudioQueueErr_InvalidPropertySize)
        #expect(currentDevice() == (noErr, "rk_mono.monitor"))
        #expect(setDevice("") == noErr)
        #expect(currentDevice() == (noErr, ""))

        var value: Float = 0
        for (input, kept) in [(Float(0.25), Float(0.25)), (5, 1), (-3, 0), (.infinity, 0), (.nan, 0)] {
            let status = AudioQueueSetParameter(queue, kAudioQueueParam_Volume, input)
            #expect(status == (input.isFinite ? noErr : kAudioQueueErr_InvalidParameter))
            #expect(AudioQueueGetParameter(queue, kAudioQueueParam_Volume, &value) == noErr)
            if input.isFinite { #expect(value == kept) }
        }
        #expect(AudioQueueSetParameter(queue, kAudioQueueParam_Pan, -1e30) == noErr)
        #expect(AudioQueueGetParameter(queue, kAudioQueueParam_Pan, &value) == noErr && value == -1)
        for (parameter, input, kept) in [(kAudioQueueParam_PlayRate, Float(1.5), Float(1.5)), (kAudioQueueParam_PlayRate, 5, 2),
                                         (kAudioQueueParam_PlayRate, 0, 0.5), (kAudioQueueParam_Pitch, 1e9, 2_400),
                                         (kAudioQueueParam_Pitch, -300, -300)] {
            #expect(AudioQueueSetParameter(queue, parameter, input) == noErr)
            #expect(AudioQueueGetParameter(queue, parameter, &value) == noErr && value == kept, "\(parameter) \(input): \(value)")
        }
        #expect(AudioQueueSetParameter(queue, kAudioQueueParam_PlayRate, .nan) == kAudioQueueErr_InvalidParameter)
        #expect(AudioQueueSetParameter(queue, 99, 1) == kAudioQueueErr_InvalidParameter)
        #expect(AudioQueueGetParameter(queue, 99, &value) == kAudioQueueErr_InvalidParameter)
        var startTime = AudioTimeStamp()
        #expect(AudioQueueStart(queue, &startTime) == kAudioQueueErr_InvalidParameter)
    }

    /// The CoreFoundation names porters pass: a URL from a path's bytes, run loop modes as Apple names them.
    @Test func coreFoundationNamesWork() {
        let url: CFURL? = "/tmp/a b.aif".withCString { path in
            path.withMemoryRebound(to: UInt8.self, capacity: strlen(path)) {
                CFURLCreateFromFileSystemRepresentation(nil, $0, strlen(path), false)
            }
        }
        #expect(url?.path == "/tmp/a b.aif")
        #expect(CFURLCreateFromFileSystemRepresentation(nil, nil, 4, false) == nil)
        #expect(CFURLCreateWithFileSystemPath(kCFAllocatorDefault, "/tmp/x.wav", kCFURLPOSIXPathStyle, false)?.path == "/tmp/x.wav")
        #expect(CFRunLoopMode.commonModes.rawValue == kCFRunLoopCommonModes.rawValue)
        #expect(CFRunLoopMode.defaultMode.rawValue == RunLoop.Mode.default.rawValue)
        #expect(CFRunLoopGetCurrent() == CFRunLoopGetCurrent())
        #expect(CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, false) != .handledSource)
    }
}

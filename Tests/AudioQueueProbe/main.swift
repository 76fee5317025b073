// A client of OpenAudioToolbox for the tests: records the default source into a raw file, or plays a raw
// file to the default sink, through Audio Queue Services alone (PULSE_SERVER, PULSE_SOURCE and PULSE_SINK
// choose, as for any libpulse program), and prints what the queue reported.
//
//   audioqueue-probe record FORMAT FRAMES OUT [runloop] [device=NAME]
//   audioqueue-probe play FORMAT IN [runloop] [device=NAME] [at=SECONDS] [rate=R | pitch=CENTS]
//   audioqueue-probe start-input FORMAT [device=NAME]   (prints AudioQueueStart's status and the error message)
//
// FORMAT: s16le, s16be, s24le, s24be, s32le, s32be, f32le or f32be, then ":CHANNELS" (e.g. f32le:2);
// 44 100 Hz. "runloop": callbacks on the main run loop; otherwise on the queue's own thread. "device=NAME":
// the source or sink through kAudioQueueProperty_CurrentDevice. "at=SECONDS": playback starts that long
// after AudioQueueStart, as a sample time on the device's timeline; the queue's time is printed a quarter
// of a second after the start call (if asked before the start time) and at the end. "rate=R": time-pitch
// enabled, time-domain algorithm, kAudioQueueParam_PlayRate R; "pitch=CENTS": spectral, kAudioQueueParam_Pitch.
import Foundation
import OpenAudioToolbox
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("audioqueue-probe: \(message)\n".utf8))
    exit(2)
}

func format(_ text: String) -> AudioStreamBasicDescription {
    let parts = text.split(separator: ":")
    guard let kind = parts.first, let channels = UInt32(parts.count > 1 ? String(parts[1]) : "1") else { fail("bad format \(text)") }
    let bits: UInt32, float: Bool
    switch kind.prefix(3) {
    case "s16": (bits, float) = (16, false)
    case "s24": (bits, float) = (24, false)
    case "s32": (bits, float) = (32, false)
    case "f32": (bits, float) = (32, true)
    default: fail("bad format \(text)")
    }
    var description = AudioStreamBasicDescription()
    description.mSampleRate = 44_100
    description.mFormatID = kAudioFormatLinearPCM
    description.mFormatFlags = kLinearPCMFormatFlagIsPacked
        | (float ? kLinearPCMFormatFlagIsFloat : kLinearPCMFormatFlagIsSignedInteger)
        | (kind.hasSuffix("be") ? kLinearPCMFormatFlagIsBigEndian : 0)
    description.mFramesPerPacket = 1
    description.mChannelsPerFrame = channels
    description.mBitsPerChannel = bits
    description.mBytesPerFrame = bits / 8 * channels
    description.mBytesPerPacket = description.mBytesPerFrame
    return description
}

/// What the callbacks share with the main thread.
final class Probe: Sendable {
    struct Counts {
        var frames: Int64 = 0
        var buffers = 0
        var expectedSampleTime: Double = 0
        var sampleTimeGaps = 0
        var sizeMismatches = 0
        var onMainThread = 0
        var elsewhere = 0
        var done = false
        var runningChanges: [UInt32] = []
    }
    let counts = Mutex(Counts())
    let wanted: Int64
    let bytesPerFrame: Int
    nonisolated(unsafe) let file: UnsafeMutablePointer<FILE>
    nonisolated(unsafe) var queue: AudioQueueRef?

    init(wanted: Int64, bytesPerFrame: Int, file: UnsafeMutablePointer<FILE>) {
        self.wanted = wanted
        self.bytesPerFrame = bytesPerFrame
        self.file = file
    }

    var isDone: Bool { counts.withLock { $0.done } }
}

func inputCallback(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef,
                   _ startTime: UnsafePointer<AudioTimeStamp>, _ packets: UInt32,
                   _ descriptions: UnsafePointer<AudioStreamPacketDescription>?) {
    let probe = Unmanaged<Probe>.fromOpaque(userData!).takeUnretainedValue()
    let bytes = Int(buffer.pointee.mAudioDataByteSize)
    let enough = probe.counts.withLock { counts -> Bool in
        guard !counts.done else { return true }
        if startTime.pointee.mSampleTime != counts.expectedSampleTime { counts.sampleTimeGaps += 1 }
        if Int(packets) * probe.bytesPerFrame != bytes { counts.sizeMismatches += 1 }
        counts.expectedSampleTime = startTime.pointee.mSampleTime + Double(packets)
        if Thread.isMainThread { counts.onMainThread += 1 } else { counts.elsewhere += 1 }
        fwrite(buffer.pointee.mAudioData, 1, bytes, probe.file)
        counts.frames += Int64(packets)
        counts.buffers += 1
        counts.done = counts.frames >= probe.wanted
        return counts.done
    }
    if !enough { AudioQueueEnqueueBuffer(queue, buffer, 0, nil) }
}

func outputCallback(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ buffer: AudioQueueBufferRef) {
    let probe = Unmanaged<Probe>.fromOpaque(userData!).takeUnretainedValue()
    let capacity = Int(buffer.pointee.mAudioDataBytesCapacity) / probe.bytesPerFrame
    let read = fread(buffer.pointee.mAudioData, probe.bytesPerFrame, capacity, probe.file)
    probe.counts.withLock { counts in
        if Thread.isMainThread { counts.onMainThread += 1 } else { counts.elsewhere += 1 }
        counts.frames += Int64(read)
    }
    if read > 0 {
        buffer.pointee.mAudioDataByteSize = UInt32(read * probe.bytesPerFrame)
        AudioQueueEnqueueBuffer(queue, buffer, 0, nil)
    } else {
        AudioQueueStop(queue, false)
    }
}

func runningChanged(_ userData: UnsafeMutableRawPointer?, _ queue: AudioQueueRef, _ property: AudioQueuePropertyID) {
    let probe = Unmanaged<Probe>.fromOpaque(userData!).takeUnretainedValue()
    var running: UInt32 = 0
    var size = UInt32(MemoryLayout<UInt32>.size)
    AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size)
    probe.counts.withLock { counts in
        counts.runningChanges.append(running)
        if running == 0 { counts.done = true }
    }
}

func check(_ status: OSStatus, _ what: String) {
    guard status == noErr else { fail("\(what) returned \(status): \(OpenAudioToolboxLastErrorMessage() ?? "")") }
}

func wait(until probe: Probe, onRunLoop: Bool) {
    while !probe.isDone {
        if onRunLoop { CFRunLoopRunInMode(CFRunLoopMode.defaultMode, 0.05, false) } else { usleep(10_000) }
    }
}

let device = CommandLine.arguments.first { $0.hasPrefix("device=") }.map { String($0.dropFirst("device=".count)) }
let delay = CommandLine.arguments.first { $0.hasPrefix("at=") }.flatMap { Double($0.dropFirst("at=".count)) }
let playRate = CommandLine.arguments.first { $0.hasPrefix("rate=") }.flatMap { Float($0.dropFirst("rate=".count)) }
let pitch = CommandLine.arguments.first { $0.hasPrefix("pitch=") }.flatMap { Float($0.dropFirst("pitch=".count)) }
let arguments = CommandLine.arguments.filter { argument in
    !["device=", "at=", "rate=", "pitch="].contains { argument.hasPrefix($0) }
}

/// Turns time-pitch on, as Apple's code does before the first start, when a rate or a pitch was asked.
func stretch(_ queue: AudioQueueRef) {
    guard playRate != nil || pitch != nil else { return }
    var on: UInt32 = 1
    check(AudioQueueSetProperty(queue, kAudioQueueProperty_EnableTimePitch, &on, 4), "AudioQueueSetProperty(EnableTimePitch)")
    var algorithm = pitch != nil ? kAudioQueueTimePitchAlgorithm_Spectral : kAudioQueueTimePitchAlgorithm_TimeDomain
    check(AudioQueueSetProperty(queue, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, 4), "AudioQueueSetProperty(TimePitchAlgorithm)")
    if let playRate { check(AudioQueueSetParameter(queue, kAudioQueueParam_PlayRate, playRate), "AudioQueueSetParameter(PlayRate)") }
    if let pitch { check(AudioQueueSetParameter(queue, kAudioQueueParam_Pitch, pitch), "AudioQueueSetParameter(Pitch)") }
}
guard arguments.count >= 3 else { fail("usage: audioqueue-probe record|play|start-input FORMAT …") }

/// Chooses the queue's device when one was asked for.
func choose(_ queue: AudioQueueRef) {
    guard let device else { return }
    var uid: CFString = device
    // A pointer to the variable, as Apple's code passes `&uid` (which, CFString being a String here, Swift
    // accepts with a warning about the string's representation).
    check(withUnsafeMutablePointer(to: &uid) {
        AudioQueueSetProperty(queue, kAudioQueueProperty_CurrentDevice, $0, UInt32(MemoryLayout<CFString>.size))
    }, "AudioQueueSetProperty(CurrentDevice)")
}
var description = format(arguments[2])
let bytesPerFrame = Int(description.mBytesPerFrame)
let bufferBytes = UInt32(4_410 * bytesPerFrame)

switch arguments[1] {
case "record" where arguments.count >= 5:
    guard let wanted = Int64(arguments[3]), let file = fopen(arguments[4], "wb") else { fail("bad arguments") }
    let onRunLoop = arguments.count > 5 && arguments[5] == "runloop"
    let probe = Probe(wanted: wanted, bytesPerFrame: bytesPerFrame, file: file)
    var queue: AudioQueueRef?
    check(AudioQueueNewInput(&description, inputCallback, Unmanaged.passUnretained(probe).toOpaque(),
                             onRunLoop ? CFRunLoopGetCurrent() : nil, CFRunLoopMode.commonModes.rawValue, 0, &queue),
          "AudioQueueNewInput")
    guard let queue else { fail("no queue") }
    choose(queue)
    for _ in 0..<3 {
        var buffer: AudioQueueBufferRef?
        check(AudioQueueAllocateBuffer(queue, bufferBytes, &buffer), "AudioQueueAllocateBuffer")
        check(AudioQueueEnqueueBuffer(queue, buffer!, 0, nil), "AudioQueueEnqueueBuffer")
    }
    check(AudioQueueStart(queue, nil), "AudioQueueStart")
    wait(until: probe, onRunLoop: onRunLoop)
    check(AudioQueueStop(queue, true), "AudioQueueStop")
    check(AudioQueueDispose(queue, true), "AudioQueueDispose")
    fclose(file)
    let counts = probe.counts.withLock { $0 }
    print("recorded \(counts.frames) frames in \(counts.buffers) buffers; sample-time gaps \(counts.sampleTimeGaps); "
          + "size mismatches \(counts.sizeMismatches); callbacks on the main thread \(counts.onMainThread), elsewhere \(counts.elsewhere)")
case "play" where arguments.count >= 4:
    guard let file = fopen(arguments[3], "rb") else { fail("cannot open \(arguments[3])") }
    let onRunLoop = arguments.count > 4 && arguments[4] == "runloop"
    let probe = Probe(wanted: 0, bytesPerFrame: bytesPerFrame, file: file)
    var queue: AudioQueueRef?
    check(AudioQueueNewOutput(&description, outputCallback, Unmanaged.passUnretained(probe).toOpaque(),
                              onRunLoop ? CFRunLoopGetCurrent() : nil, CFRunLoopMode.commonModes.rawValue, 0, &queue),
          "AudioQueueNewOutput")
    guard let queue else { fail("no queue") }
    choose(queue)
    stretch(queue)
    check(AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, runningChanged,
                                        Unmanaged.passUnretained(probe).toOpaque()), "AudioQueueAddPropertyListener")
    // Apple's idiom: fill every buffer through the callback before starting.
    for _ in 0..<3 {
        var buffer: AudioQueueBufferRef?
        check(AudioQueueAllocateBuffer(queue, bufferBytes, &buffer), "AudioQueueAllocateBuffer")
        outputCallback(Unmanaged.passUnretained(probe).toOpaque(), queue, buffer!)
    }
    var timeline: AudioQueueTimelineRef?
    if let delay {
        // Apple's idiom for a timed start: the device's time now, plus the delay in samples.
        var now = AudioTimeStamp()
        check(AudioQueueDeviceGetCurrentTime(queue, &now), "AudioQueueDeviceGetCurrentTime")
        var start = AudioTimeStamp()
        start.mSampleTime = now.mSampleTime + delay * description.mSampleRate
        start.mFlags = .sampleTimeValid
        var translated = AudioTimeStamp()
        check(AudioQueueDeviceTranslateTime(queue, &start, &translated), "AudioQueueDeviceTranslateTime")
        check(AudioQueueCreateTimeline(queue, &timeline), "AudioQueueCreateTimeline")
        check(AudioQueueStart(queue, &start), "AudioQueueStart")
        usleep(useconds_t(delay * 500_000))
        var time = AudioTimeStamp()
        var jumped: DarwinBoolean = true
        check(AudioQueueGetCurrentTime(queue, timeline, &time, &jumped), "AudioQueueGetCurrentTime")
        if time.mHostTime + 100_000_000 < translated.mHostTime {
            print("queue time before the start: \(Int(time.mSampleTime)); discontinuity \(jumped)")
        } else {
            print("queue time before the start: asked too late")
        }
    } else {
        check(AudioQueueStart(queue, nil), "AudioQueueStart")
    }
    wait(until: probe, onRunLoop: onRunLoop)
    if let timeline {
        var time = AudioTimeStamp()
        check(AudioQueueGetCurrentTime(queue, timeline, &time, nil), "AudioQueueGetCurrentTime")
        print("queue time at the end: \(Int(time.mSampleTime))")
        check(AudioQueueDisposeTimeline(queue, timeline), "AudioQueueDisposeTimeline")
    }
    check(AudioQueueDispose(queue, true), "AudioQueueDispose")
    fclose(file)
    let counts = probe.counts.withLock { $0 }
    print("played \(counts.frames) frames; running \(counts.runningChanges.map(String.init).joined(separator: " then ")); "
          + "callbacks on the main thread \(counts.onMainThread), elsewhere \(counts.elsewhere)")
case "start-input":
    var queue: AudioQueueRef?
    check(AudioQueueNewInput(&description, inputCallback, nil, nil, nil, 0, &queue), "AudioQueueNewInput")
    choose(queue!)
    let status = AudioQueueStart(queue!, nil)
    print("AudioQueueStart: \(status)")
    print(OpenAudioToolboxLastErrorMessage() ?? "no message")
    AudioQueueDispose(queue!, true)
default:
    fail("usage: audioqueue-probe record|play|start-input FORMAT …")
}

// Audio Queue Services' functions, with Apple's signatures: each finds its queue and returns a status.
//
// Threads: every function may be called from any thread, from a queue's own callbacks included (there,
// AudioQueueStop and AudioQueueDispose do not wait for the callback that calls them). Callbacks run on
// the run loop given to AudioQueueNewInput/NewOutput, in its mode, when that loop runs; with no run
// loop, on the queue's own thread (the recorder's delivery thread, the player's reader thread).
import Foundation
import RecorderKit

/// Creates a recording queue of linear PCM `inFormat` (16-, 24-, 32-bit signed or 32-bit float,
/// interleaved, either byte order) from the server's default source. Nothing is captured before
/// AudioQueueStart.
@discardableResult
public func AudioQueueNewInput(_ inFormat: UnsafePointer<AudioStreamBasicDescription>,
                               _ inCallbackProc: AudioQueueInputCallback,
                               _ inUserData: UnsafeMutableRawPointer?,
                               _ inCallbackRunLoop: CFRunLoop?,
                               _ inCallbackRunLoopMode: CFString?,
                               _ inFlags: UInt32,
                               _ outAQ: UnsafeMutablePointer<AudioQueueRef?>) -> OSStatus {
    newQueue(.input(inCallbackProc), inFormat.pointee, inUserData, inCallbackRunLoop, inCallbackRunLoopMode, inFlags, outAQ)
}

/// Creates a playback queue of linear PCM `inFormat` to the server's default sink. Nothing plays before
/// AudioQueueStart; samples wider than 16 bits are rounded to 16.
@discardableResult
public func AudioQueueNewOutput(_ inFormat: UnsafePointer<AudioStreamBasicDescription>,
                                _ inCallbackProc: AudioQueueOutputCallback,
                                _ inUserData: UnsafeMutableRawPointer?,
                                _ inCallbackRunLoop: CFRunLoop?,
                                _ inCallbackRunLoopMode: CFString?,
                                _ inFlags: UInt32,
                                _ outAQ: UnsafeMutablePointer<AudioQueueRef?>) -> OSStatus {
    newQueue(.output(inCallbackProc), inFormat.pointee, inUserData, inCallbackRunLoop, inCallbackRunLoopMode, inFlags, outAQ)
}

private func newQueue(_ direction: QueueObject.Direction, _ format: AudioStreamBasicDescription,
                      _ userData: UnsafeMutableRawPointer?, _ runLoop: CFRunLoop?, _ mode: CFString?,
                      _ flags: UInt32, _ outAQ: UnsafeMutablePointer<AudioQueueRef?>) -> OSStatus {
    outAQ.pointee = nil
    guard flags == 0 else { return kAudio_ParamError }
    guard case .success(let layout) = PCMLayout.checking(format) else { return kAudioFormatUnsupportedDataFormatError }
    let queue = QueueObject(direction: direction, description: format, layout: layout, userData: userData,
                            runLoop: runLoop, mode: mode)
    outAQ.pointee = QueueRegistry.add(queue)
    return noErr
}

/// Stops the queue and frees it and its buffers. `inImmediate` false on a playing queue: what is
/// enqueued plays first, then the queue is disposed; the handle is invalid from now on either way.
@discardableResult
public func AudioQueueDispose(_ inAQ: AudioQueueRef, _ inImmediate: Bool) -> OSStatus {
    guard let queue = QueueRegistry.remove(inAQ) else { return kAudio_ParamError }
    if !inImmediate, !queue.isInput {
        let draining = queue.state.withLock { state -> Bool in
            guard state.player != nil, state.run == .running, !state.enqueued.isEmpty || state.stopWhenDrained else { return false }
            state.stopWhenDrained = true
            state.disposeWhenDrained = true
            return true
        }
        if draining { return noErr }
    }
    queue.dispose()
    return noErr
}

/// A buffer of `inBufferByteSize` bytes (zeroed), owned by the queue.
@discardableResult
public func AudioQueueAllocateBuffer(_ inAQ: AudioQueueRef, _ inBufferByteSize: UInt32,
                                     _ outBuffer: UnsafeMutablePointer<AudioQueueBufferRef?>) -> OSStatus {
    AudioQueueAllocateBufferWithPacketDescriptions(inAQ, inBufferByteSize, 0, outBuffer)
}

/// As AudioQueueAllocateBuffer, with room for `inNumberPacketDescriptions` packet descriptions.
@discardableResult
public func AudioQueueAllocateBufferWithPacketDescriptions(_ inAQ: AudioQueueRef, _ inBufferByteSize: UInt32,
                                                           _ inNumberPacketDescriptions: UInt32,
                                                           _ outBuffer: UnsafeMutablePointer<AudioQueueBufferRef?>) -> OSStatus {
    outBuffer.pointee = nil
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let (status, buffer) = queue.allocateBuffer(bytes: inBufferByteSize, packetDescriptions: inNumberPacketDescriptions)
    outBuffer.pointee = buffer
    return status
}

/// Frees a buffer that is not enqueued.
@discardableResult
public func AudioQueueFreeBuffer(_ inAQ: AudioQueueRef, _ inBuffer: AudioQueueBufferRef) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    return queue.freeBuffer(inBuffer)
}

/// Adds a buffer to the end of the queue: to be filled (recording) or played, its first
/// `mAudioDataByteSize` bytes in whole frames (playback). Packet descriptions are for compressed
/// formats, which these queues do not take: they are ignored.
@discardableResult
public func AudioQueueEnqueueBuffer(_ inAQ: AudioQueueRef, _ inBuffer: AudioQueueBufferRef,
                                    _ inNumPacketDescs: UInt32,
                                    _ inPacketDescs: UnsafePointer<AudioStreamPacketDescription>?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    return queue.enqueue(inBuffer)
}

/// Starts or resumes the queue; nil starts at once. Playback may be given a start time: a host time
/// (`mHostTime`, CLOCK_MONOTONIC nanoseconds, as `AudioQueueDeviceGetCurrentTime` gives) or a sample time
/// on the device's timeline (`AudioQueueDeviceGetCurrentTime`'s), at which the first frame is to be heard
/// (silence until then; a time past starts at once). A recording queue given a time returns
/// kAudioQueueErr_InvalidParameter: it records from its start.
@discardableResult
public func AudioQueueStart(_ inAQ: AudioQueueRef, _ inStartTime: UnsafePointer<AudioTimeStamp>?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard let stamp = inStartTime?.pointee else { return queue.isInput ? queue.startInput() : queue.startOutput(at: nil) }
    guard !queue.isInput, let nanoseconds = DeviceTimeline.hostNanoseconds(of: stamp, sampleRate: queue.layout.sampleRate) else {
        return kAudioQueueErr_InvalidParameter
    }
    return queue.startOutput(at: nanoseconds)
}

/// Playback: connects and fills the stream ahead of AudioQueueStart. `outNumberOfFramesPrepared`
/// receives the frames enqueued.
@discardableResult
public func AudioQueuePrime(_ inAQ: AudioQueueRef, _ inNumberOfFramesToPrepare: UInt32,
                            _ outNumberOfFramesPrepared: UnsafeMutablePointer<UInt32>?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard !queue.isInput else { return kAudioQueueErr_InvalidQueueType }
    let frames = queue.state.withLock { state in
        state.enqueued.reduce(0) { $0 + $1.bytes } / queue.layout.bytesPerFrame - state.headFrames
    }
    outNumberOfFramesPrepared?.pointee = UInt32(clamping: frames)
    return noErr
}

/// Pauses: recording drops what arrives until AudioQueueStart; playback holds its place.
@discardableResult
public func AudioQueuePause(_ inAQ: AudioQueueRef) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let player = queue.state.withLockBroadcasting { state -> Player? in
        if state.run == .running { state.run = .paused }
        return state.player
    }
    player?.pause()
    return noErr
}

/// Recording: the partly filled buffer goes to the callback now. Playback: everything enqueued plays
/// (it always does here).
@discardableResult
public func AudioQueueFlush(_ inAQ: AudioQueueRef) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    if queue.isInput { queue.flushInput() }
    return noErr
}

/// Stops the queue. Recording: capture ends and the partly filled buffer goes to the callback.
/// Playback: `inImmediate` stops at once and hands every enqueued buffer back to the callback unplayed;
/// otherwise what is enqueued plays first (kAudioQueueProperty_IsRunning turns 0 when it has).
@discardableResult
public func AudioQueueStop(_ inAQ: AudioQueueRef, _ inImmediate: Bool) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    if queue.isInput { queue.stopInput() } else { queue.stopOutput(immediate: inImmediate) }
    return noErr
}

/// Recording: the partly filled buffer is emptied. Playback: every enqueued buffer goes back to the
/// callback unplayed. A running queue goes on.
@discardableResult
public func AudioQueueReset(_ inAQ: AudioQueueRef) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    if queue.isInput {
        queue.state.withLock { $0.headFrames = 0 }
    } else {
        queue.resetOutput()
    }
    return noErr
}

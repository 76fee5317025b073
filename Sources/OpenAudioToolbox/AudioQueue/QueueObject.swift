// One audio queue: its format, the buffers it owns, the buffers enqueued in order, its run state and
// parameters, and the RecorderKit object that moves its audio (a Recorder records, a Player plays).
import Foundation
import Locking
import RecorderKit

/// A queue behind an `AudioQueueRef`. The functions in AudioQueueServices.swift find it through
/// `QueueRegistry`; recording and playback are in QueueObject+Input.swift and QueueObject+Output.swift.
final class QueueObject: @unchecked Sendable {
    // @unchecked Sendable: everything that changes is in `state`, behind its lock; the other fields are
    // set at creation and never change. `userData` is the caller's pointer, only passed back to the
    // caller's callbacks (Apple's contract: it stays valid while the queue lives).
    enum Direction {
        case input(AudioQueueInputCallback)
        case output(AudioQueueOutputCallback)
    }

    enum RunState { case stopped, running, paused }

    struct Enqueued {
        var buffer: AudioQueueBufferRef
        /// Playback: the bytes to play (`mAudioDataByteSize` when enqueued).
        var bytes: Int
    }

    struct Listener {
        var property: AudioQueuePropertyID
        var proc: AudioQueuePropertyListenerProc
        var userData: UnsafeMutableRawPointer?
    }

    /// A playback queue's time-pitch settings, and what they ask of its `Player`.
    struct TimePitch {
        var enabled = false
        var algorithm: UInt32 = kAudioQueueTimePitchAlgorithm_Spectral
        var bypass = false
        var rate: Float = 1
        var pitch: Float = 0

        /// The player's rate and pitch: none unless enabled and not bypassed; varispeed moves the pitch
        /// with the rate; the time-domain algorithm keeps the pitch, as Apple's does.
        var applied: (rate: Double, pitch: Double) {
            guard enabled, !bypass else { return (1, 0) }
            switch algorithm {
            case kAudioQueueTimePitchAlgorithm_Varispeed: return (Double(rate), 1_200 * log2(Double(rate)))
            case kAudioQueueTimePitchAlgorithm_TimeDomain: return (Double(rate), 0)
            default: return (Double(rate), Double(pitch))
            }
        }
    }

    /// A timeline (AudioQueueCreateTimeline): the handle given out, and the underruns counted when it
    /// was last asked.
    struct Timeline {
        var token: UnsafeMutableRawPointer
        var underruns: Int
    }

    struct State {
        var timeline: Timeline?
        var owned: Set<UnsafeMutableRawPointer> = []
        var enqueued: [Enqueued] = []
        /// Frames of the first enqueued buffer already filled (recording) or played (playback).
        var headFrames = 0
        /// The sample time of the first frame of the first enqueued buffer.
        var headSampleTime: Int64 = 0
        /// Frames recorded into buffers (or taken from them for playback) since the queue was created.
        var sampleTime: Int64 = 0
        /// Playback: frames heard through the queue's players already closed (a stop ends a player).
        var heardBefore: Int64 = 0
        var run = RunState.stopped
        /// Playback: stop once every enqueued buffer has been played (AudioQueueStop, not immediate).
        var stopWhenDrained = false
        /// Playback: AudioQueueDispose without `inImmediate` came while draining; dispose once drained.
        var disposeWhenDrained = false
        var disposed = false
        var meteringEnabled = false
        var volume: Float = 1
        var pan: Float = 0
        var volumeRampTime: Float = 0
        /// Time-pitch (playback): enabled before the first start, its algorithm, bypass, rate and pitch.
        var timePitch = TimePitch()
        /// kAudioQueueProperty_CurrentDevice: the source or sink to use (nil: the default, or PULSE_SOURCE's /
        /// PULSE_SINK's).
        var device: String?
        var listeners: [Listener] = []
        var recorder: Recorder?
        var player: Player?
        /// Threads inside one of this queue's callbacks now: disposal waits for them (except its own).
        var callbackThreads: [pthread_t] = []
    }

    let direction: Direction
    let description: AudioStreamBasicDescription
    let layout: PCMLayout
    let userData: UnsafeMutableRawPointer?
    let runLoop: CFRunLoop?
    let mode: RunLoop.Mode
    let keepAlive: CFRunLoop.KeepAlive?
    let state = Locked(State())

    init(direction: Direction, description: AudioStreamBasicDescription, layout: PCMLayout,
         userData: UnsafeMutableRawPointer?, runLoop: CFRunLoop?, mode: CFString?) {
        self.direction = direction
        self.description = description
        self.layout = layout
        self.userData = userData
        self.runLoop = runLoop
        self.mode = RunLoop.Mode(mode ?? CFRunLoopMode.commonModes.rawValue)
        keepAlive = runLoop?.retainLoop(in: self.mode)
    }

    var isInput: Bool {
        if case .input = direction { return true }
        return false
    }

    // MARK: Buffers

    func allocateBuffer(bytes: UInt32, packetDescriptions: UInt32) -> (OSStatus, AudioQueueBufferRef?) {
        guard bytes > 0 else { return (kAudio_ParamError, nil) }
        let data = UnsafeMutableRawPointer.allocate(byteCount: Int(bytes), alignment: 16)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: Int(bytes))
        let descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>? =
            packetDescriptions > 0 ? .allocate(capacity: Int(packetDescriptions)) : nil
        let buffer = AudioQueueBufferRef.allocate(capacity: 1)
        buffer.initialize(to: AudioQueueBuffer(
            mAudioDataBytesCapacity: bytes, mAudioData: data, mAudioDataByteSize: 0, mUserData: nil,
            mPacketDescriptionCapacity: packetDescriptions, mPacketDescriptions: descriptions,
            mPacketDescriptionCount: 0))
        let accepted = state.withLock { state -> Bool in
            guard !state.disposed else { return false }
            state.owned.insert(UnsafeMutableRawPointer(buffer))
            return true
        }
        guard accepted else {
            Self.release(buffer)
            return (kAudioQueueErr_DisposalPending, nil)
        }
        return (noErr, buffer)
    }

    func freeBuffer(_ buffer: AudioQueueBufferRef) -> OSStatus {
        let status = state.withLock { state -> OSStatus in
            let key = UnsafeMutableRawPointer(buffer)
            guard state.owned.contains(key) else { return kAudioQueueErr_InvalidBuffer }
            guard !state.enqueued.contains(where: { $0.buffer == buffer }) else { return kAudioQueueErr_BufferInQueue }
            state.owned.remove(key)
            return noErr
        }
        if status == noErr { Self.release(buffer) }
        return status
    }

    static func release(_ buffer: AudioQueueBufferRef) {
        buffer.pointee.mAudioData.deallocate()
        buffer.pointee.mPacketDescriptions?.deallocate()
        buffer.deinitialize(count: 1)
        buffer.deallocate()
    }

    func enqueue(_ buffer: AudioQueueBufferRef) -> OSStatus {
        state.withLockBroadcasting { state -> OSStatus in
            guard !state.disposed else { return kAudioQueueErr_DisposalPending }
            guard state.owned.contains(UnsafeMutableRawPointer(buffer)) else { return kAudioQueueErr_InvalidBuffer }
            guard !state.enqueued.contains(where: { $0.buffer == buffer }) else { return kAudioQueueErr_BufferEnqueuedTwice }
            var bytes = 0
            if !isInput {
                let size = Int(buffer.pointee.mAudioDataByteSize)
                guard size > 0 else { return kAudioQueueErr_BufferEmpty }
                guard size <= Int(buffer.pointee.mAudioDataBytesCapacity) else { return kAudio_ParamError }
                // A partial frame at the end cannot be played: whole frames only.
                bytes = size - size % layout.bytesPerFrame
                guard bytes > 0 else { return kAudioQueueErr_BufferEmpty }
            } else if Int(buffer.pointee.mAudioDataBytesCapacity) < layout.bytesPerFrame {
                return kAudio_ParamError
            }
            if state.enqueued.isEmpty { state.headSampleTime = state.sampleTime }
            state.enqueued.append(Enqueued(buffer: buffer, bytes: bytes))
            return noErr
        }
    }

    // MARK: Callbacks

    /// Runs `body` (which calls the caller's code) where the caller asked for it: on the queue's run loop,
    /// or on this thread (the recorder's delivery thread or the player's reader thread) without one.
    /// Nothing runs once the queue is disposed; disposal waits for a callback under way.
    func deliver(_ body: @escaping @Sendable () -> Void) {
        let run: @Sendable () -> Void = { [self] in
            let entered = state.withLock { state -> Bool in
                guard !state.disposed else { return false }
                state.callbackThreads.append(pthread_self())
                return true
            }
            guard entered else { return }
            body()
            state.withLockBroadcasting { state in
                if let index = state.callbackThreads.firstIndex(where: { pthread_equal($0, pthread_self()) != 0 }) {
                    state.callbackThreads.remove(at: index)
                }
            }
        }
        if let runLoop { runLoop.perform(in: mode, run) } else { run() }
    }

    var handle: AudioQueueRef { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// Tells the listeners of `property` (kAudioQueueProperty_IsRunning) that it changed.
    func notifyListeners(of property: AudioQueuePropertyID) {
        let listeners = state.withLock { $0.listeners.filter { $0.property == property } }
        for listener in listeners {
            let proc = listener.proc
            let userData = UncheckedPointer(listener.userData)
            let queue = UncheckedHandle(handle)
            deliver { proc(userData.pointer, queue.handle, property) }
        }
    }

    // MARK: Disposal

    /// Stops the queue's audio, waits for callbacks under way on other threads, and frees every buffer.
    /// From a callback of this queue it does not wait for itself.
    func dispose() {
        let (recorder, player) = state.withLockBroadcasting { state -> (Recorder?, Player?) in
            state.disposed = true
            defer { state.recorder = nil; state.player = nil }
            return (state.recorder, state.player)
        }
        recorder?.stop()
        player?.close()
        state.wait { state in
            !state.callbackThreads.contains { pthread_equal($0, pthread_self()) == 0 }
        }
        let (owned, timeline) = state.withLock { state -> (Set<UnsafeMutableRawPointer>, Timeline?) in
            defer { state.owned = []; state.enqueued = []; state.timeline = nil }
            return (state.owned, state.timeline)
        }
        for key in owned { Self.release(key.assumingMemoryBound(to: AudioQueueBuffer.self)) }
        timeline?.token.deallocate()
        if let runLoop, let keepAlive { runLoop.release(keepAlive, in: mode) }
    }
}

/// A raw pointer carried into a callback closure: the caller's, only handed back to the caller's code.
struct UncheckedPointer: @unchecked Sendable {
    // @unchecked Sendable: never dereferenced here; Apple's contract makes the caller answer for it.
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}

/// A queue's handle or a buffer carried into a callback closure.
struct UncheckedHandle: @unchecked Sendable {
    // @unchecked Sendable: an opaque handle, only handed back to the caller's code.
    let handle: AudioQueueRef
    init(_ handle: AudioQueueRef) { self.handle = handle }
}

struct UncheckedBuffer: @unchecked Sendable {
    // @unchecked Sendable: a buffer the queue owns; it is freed only by disposal, which waits for every
    // callback under way and runs no callback after it.
    let buffer: AudioQueueBufferRef
    init(_ buffer: AudioQueueBufferRef) { self.buffer = buffer }
}

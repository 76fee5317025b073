// A recording queue: a RecorderKit Recorder captures; each captured buffer is copied into the buffers
// enqueued, in order, and each one filled goes to the input callback.
import Foundation
import RecorderKit

extension QueueObject {
    /// Starts (or resumes) recording: the first start connects a Recorder of the queue's format to the
    /// source kAudioQueueProperty_CurrentDevice names (else the default), with buffers as long as the queue's.
    func startInput() -> OSStatus {
        let phase = state.withLock { state -> (OSStatus?, Bool) in
            guard !state.disposed else { return (kAudioQueueErr_DisposalPending, false) }
            if state.recorder != nil {
                state.run = .running
                return (noErr, false)
            }
            return (nil, true)
        }
        if let status = phase.0 { return status }
        guard let format = layout.streamFormat else { return kAudioFormatUnsupportedDataFormatError }
        let recorder: Recorder
        do {
            recorder = try Recorder(format: format, source: state.withLock { $0.device }, bufferCount: 3, bufferDuration: bufferDuration(),
                                    clientName: QueueRegistry.clientName)
        } catch {
            QueueRegistry.noteFailure(error)
            return Self.status(for: error)
        }
        recorder.setInputHandler { [weak self] captured in self?.receive(captured) }
        let kept = state.withLock { state -> Bool in
            guard !state.disposed, state.recorder == nil else { return false }
            state.recorder = recorder
            state.run = .running
            return true
        }
        guard kept else {
            recorder.stop()
            return kAudioQueueErr_DisposalPending
        }
        notifyListeners(of: kAudioQueueProperty_IsRunning)
        return noErr
    }

    /// The seconds of the queue's largest buffer (0.01…2 s; 0.1 s before any is allocated): the
    /// Recorder's or Player's buffers are as long, so that one of theirs fills one of the queue's.
    func bufferDuration() -> Double {
        let bytes = state.withLock { state in
            state.owned.map { Int($0.assumingMemoryBound(to: AudioQueueBuffer.self).pointee.mAudioDataBytesCapacity) }.max()
        }
        guard let bytes, bytes >= layout.bytesPerFrame else { return 0.1 }
        let seconds = Double(bytes / layout.bytesPerFrame) / Double(layout.sampleRate)
        return min(2, max(0.01, seconds))
    }

    /// On the recorder's delivery thread: copies `captured` into the enqueued buffers and hands each one
    /// filled to the callback at once. When no buffer is enqueued it waits for one (or for a stop, pause
    /// or disposal, which drop the rest): meanwhile the recorder's own buffers, then the server's queue,
    /// hold what arrives, so a callback that is slow to enqueue again loses nothing (past the server's
    /// queue the recorder drops frames, counted). Frames arriving while paused are dropped, as a paused
    /// queue captures nothing.
    func receive(_ captured: CapturedBuffer) {
        guard let source = captured.bytes.baseAddress else { return }
        let frameBytes = layout.bytesPerFrame
        var offset = 0
        while offset < captured.frameCount {
            state.wait { $0.run != .running || $0.disposed || !$0.enqueued.isEmpty }
            let step = state.withLock { state -> (frames: Int, filled: (UncheckedBuffer, Int64, Int)?)? in
                guard state.run == .running, !state.disposed, let head = state.enqueued.first else { return nil }
                if state.headFrames == 0 { state.headSampleTime = state.sampleTime }
                let capacity = Int(head.buffer.pointee.mAudioDataBytesCapacity) / frameBytes
                let count = min(capacity - state.headFrames, captured.frameCount - offset)
                layout.copyFromBigEndian(source + offset * frameBytes,
                                         to: head.buffer.pointee.mAudioData + state.headFrames * frameBytes,
                                         frames: count)
                state.headFrames += count
                state.sampleTime += Int64(count)
                let filled = state.headFrames == capacity ? Self.takeHead(&state, frameBytes: frameBytes) : nil
                return (count, filled)
            }
            guard let step else { return }
            offset += step.frames
            if let (buffer, sampleTime, frames) = step.filled {
                deliverInput(buffer, sampleTime: sampleTime, frames: frames)
            }
        }
    }

    /// Removes the first enqueued buffer with what it holds; nil when it holds nothing.
    static func takeHead(_ state: inout State, frameBytes: Int) -> (UncheckedBuffer, Int64, Int)? {
        guard state.headFrames > 0, let head = state.enqueued.first else { return nil }
        state.enqueued.removeFirst()
        head.buffer.pointee.mAudioDataByteSize = UInt32(state.headFrames * frameBytes)
        defer { state.headFrames = 0 }
        return (UncheckedBuffer(head.buffer), state.headSampleTime, state.headFrames)
    }

    /// Hands a filled buffer to the input callback: its start time (the sample time of its first frame,
    /// counted from the queue's creation, lost frames included) and its packet count (one per frame; no
    /// packet descriptions, as for any constant-bit-rate format).
    func deliverInput(_ buffer: UncheckedBuffer, sampleTime: Int64, frames: Int) {
        guard case .input(let callback) = direction else { return }
        let queue = UncheckedHandle(handle)
        let user = UncheckedPointer(userData)
        deliver {
            var time = AudioTimeStamp()
            time.mSampleTime = Double(sampleTime)
            time.mRateScalar = 1
            time.mFlags = .sampleTimeValid
            callback(user.pointer, queue.handle, buffer.buffer, &time, UInt32(frames), nil)
        }
    }

    /// Hands the partly filled first buffer, if any, to the callback (AudioQueueFlush, AudioQueueStop).
    func flushInput() {
        let frameBytes = layout.bytesPerFrame
        guard let (buffer, sampleTime, frames) = state.withLock({ Self.takeHead(&$0, frameBytes: frameBytes) }) else { return }
        deliverInput(buffer, sampleTime: sampleTime, frames: frames)
    }

    /// Ends capture (the Recorder disconnects) and hands over what the first buffer holds.
    func stopInput() {
        let recorder = state.withLockBroadcasting { state -> Recorder? in
            defer { state.recorder = nil; state.run = .stopped }
            return state.recorder
        }
        recorder?.stop()
        flushInput()
        if recorder != nil { notifyListeners(of: kAudioQueueProperty_IsRunning) }
    }

    /// The levels of the last buffer captured, per channel, in dB (silence before any).
    func inputLevels() -> [LevelMeterState] {
        let recorder = state.withLock { $0.recorder }
        return recorder?.currentLevelMeterStates ?? []
    }
}

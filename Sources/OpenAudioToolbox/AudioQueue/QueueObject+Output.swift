// A playback queue: a RecorderKit Player whose output callback takes the enqueued buffers in order; each
// one played goes back to the output callback to be filled again.
import Foundation
import RecorderKit

extension QueueObject {
    /// Starts (or resumes) playback: the first start connects a Player of the queue's rate and channels
    /// (signed 16-bit: wider samples are rounded to it) to the sink kAudioQueueProperty_CurrentDevice names
    /// (else the default). With `time` (CLOCK_MONOTONIC nanoseconds) the first frame is heard then.
    func startOutput(at time: Int64?) -> OSStatus {
        let phase = state.withLock { state -> (OSStatus?, Player?) in
            guard !state.disposed else { return (kAudioQueueErr_DisposalPending, nil) }
            if let player = state.player {
                state.run = .running
                return (nil, player)
            }
            return (nil, nil)
        }
        if let status = phase.0 { return status }
        if let player = phase.1 {
            play(player, at: time)
            return noErr
        }
        guard let format = try? StreamFormat(sampleRate: layout.sampleRate, channelCount: layout.channelCount) else {
            return kAudioFormatUnsupportedDataFormatError
        }
        let player: Player
        do {
            player = try Player(format: format, device: state.withLock { $0.device }, bufferCount: 3, bufferDuration: bufferDuration(),
                                clientName: QueueRegistry.clientName) { [weak self] output in
                guard let self else {
                    output.frameCount = 0
                    return
                }
                self.fill(&output)
            }
        } catch {
            QueueRegistry.noteFailure(error)
            return Self.status(for: error)
        }
        let settings = state.withLock { state -> (Float, Float, Bool, (rate: Double, pitch: Double))? in
            guard !state.disposed, state.player == nil else { return nil }
            state.player = player
            state.run = .running
            state.stopWhenDrained = false
            return (state.volume, state.pan, state.meteringEnabled, state.timePitch.applied)
        }
        guard let (volume, pan, metering, stretch) = settings else {
            player.close()
            return kAudioQueueErr_DisposalPending
        }
        player.volume = volume
        player.pan = pan
        player.isMeteringEnabled = metering
        if stretch != (1, 0) {
            player.rate = stretch.rate
            player.pitch = stretch.pitch
        }
        let events = player.events()
        Task.detached { [weak self] in
            for await event in events {
                if case .finishedPlaying = event {
                    await self?.playbackFinished(player)
                    return
                }
            }
        }
        notifyListeners(of: kAudioQueueProperty_IsRunning)
        play(player, at: time)
        return noErr
    }

    /// Changes the time-pitch settings and gives the playing player the rate and pitch they make.
    func applyTimePitch(_ change: (inout TimePitch) -> Void) {
        let (player, stretch) = state.withLock { state -> (Player?, (rate: Double, pitch: Double)) in
            change(&state.timePitch)
            return (state.player, state.timePitch.applied)
        }
        guard let player, player.rate != stretch.rate || player.pitch != stretch.pitch else { return }
        player.rate = stretch.rate
        player.pitch = stretch.pitch
    }

    /// Starts `player` without waiting for it: it fills its buffers ahead from the enqueued ones, and
    /// the callbacks that enqueue more may run on this thread's run loop, which must be free to run them.
    /// A failure stops the queue (IsRunning turns 0; OpenAudioToolboxLastErrorMessage says why).
    private func play(_ player: Player, at time: Int64?) {
        Task.detached { [weak self] in
            do throws(RecorderError) {
                if let time {
                    try await player.play(atTime: Double(time) / 1e9)
                } else {
                    try await player.play()
                }
            } catch {
                QueueRegistry.noteFailure(error)
                await self?.playbackFinished(player)
            }
        }
    }

    /// On the player's reader thread: fills `output` from the enqueued buffers, handing each one played
    /// back to the callback at once (so that one on this thread can enqueue it again before the next is
    /// needed). With nothing enqueued it waits, up to one buffer's time (the stream still holds more than
    /// that), for the callback to enqueue one: a player fills its buffers ahead in a burst, faster than a
    /// callback on a run loop answers. Past that it plays silence, as Apple's queues do when starved.
    /// After a stop that waits for the queue to drain, the first buffer it cannot fill is the last.
    func fill(_ output: inout OutputBuffer) {
        let channels = layout.channelCount
        let frameBytes = layout.bytesPerFrame
        let patience = Int64(Double(output.frameCapacity) / Double(layout.sampleRate) * 1e9)
        var written = 0
        while written < output.frameCapacity {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let deadline = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + patience
            state.wait(deadline: deadline) { !$0.enqueued.isEmpty || $0.run != .running || $0.disposed || $0.stopWhenDrained }
            let capacity = output.frameCapacity
            let step = state.withLock { state -> (frames: Int, played: UncheckedBuffer?, last: Bool) in
                guard state.run == .running, !state.disposed, let head = state.enqueued.first else {
                    return (0, nil, state.stopWhenDrained && state.enqueued.isEmpty)
                }
                let total = head.bytes / frameBytes
                let count = min(total - state.headFrames, capacity - written)
                let source = UnsafeRawPointer(head.buffer.pointee.mAudioData)
                for frame in 0..<count {
                    let first = (state.headFrames + frame) * channels
                    for channel in 0..<channels {
                        output.setSample(layout.int16Sample(source, at: first + channel), frame: written + frame, channel: channel)
                    }
                }
                state.headFrames += count
                state.sampleTime += Int64(count)
                guard state.headFrames == total else { return (count, nil, false) }
                state.enqueued.removeFirst()
                state.headFrames = 0
                return (count, UncheckedBuffer(head.buffer), false)
            }
            written += step.frames
            if let played = step.played { deliverOutput(played) }
            if step.last { output.frameCount = written }
            if step.frames == 0 { return }
        }
    }

    func deliverOutput(_ buffer: UncheckedBuffer) {
        guard case .output(let callback) = direction else { return }
        let queue = UncheckedHandle(handle)
        let user = UncheckedPointer(userData)
        deliver { callback(user.pointer, queue.handle, buffer.buffer) }
    }

    /// The player finished after a stop that waited for the queue to drain, or failed: the queue stops
    /// (and, if AudioQueueDispose was called meanwhile without `inImmediate`, is disposed).
    func playbackFinished(_ player: Player) async {
        let heard = player.heardFrameCount
        let disposeNow = state.withLock { state -> Bool? in
            guard state.player === player else { return nil }
            state.player = nil
            state.heardBefore += heard
            state.run = .stopped
            state.stopWhenDrained = false
            return state.disposeWhenDrained
        }
        guard let disposeNow else { return }
        await player.close()
        notifyListeners(of: kAudioQueueProperty_IsRunning)
        if disposeNow { dispose() }
    }

    /// Stops playback. At once: the player stops, and every buffer still enqueued goes back to the
    /// callback unplayed (as AudioQueueReset). Otherwise: what is enqueued plays first, then the queue stops.
    func stopOutput(immediate: Bool) {
        guard immediate else {
            state.withLock { state in if state.player != nil { state.stopWhenDrained = true } }
            return
        }
        let (player, returned) = state.withLock { state -> (Player?, [UncheckedBuffer]) in
            defer {
                state.player = nil
                state.run = .stopped
                state.enqueued = []
                state.headFrames = 0
            }
            return (state.player, state.enqueued.map { UncheckedBuffer($0.buffer) })
        }
        player?.close()
        if let heard = player?.heardFrameCount { state.withLock { $0.heardBefore += heard } }
        for buffer in returned { deliverOutput(buffer) }
        if player != nil { notifyListeners(of: kAudioQueueProperty_IsRunning) }
    }

    /// Playback's AudioQueueReset: every buffer enqueued goes back to the callback unplayed; a running
    /// queue goes on (playing silence until more is enqueued).
    func resetOutput() {
        let returned = state.withLock { state -> [UncheckedBuffer] in
            defer { state.enqueued = []; state.headFrames = 0 }
            return state.enqueued.map { UncheckedBuffer($0.buffer) }
        }
        for buffer in returned { deliverOutput(buffer) }
    }

    /// The levels of the buffer being heard, per channel, in dB (silence before any).
    func outputLevels() -> [LevelMeterState] {
        guard let player = state.withLock({ $0.player }) else { return [] }
        player.updateMeters()
        return (0..<layout.channelCount).map {
            LevelMeterState(averagePower: player.averagePower(forChannel: $0), peakPower: player.peakPower(forChannel: $0))
        }
    }
}

// The player's worker: decodes (or asks the embedder for) audio into free buffers, carries out control
// requests between buffers, and publishes each buffer's meter readings when it is heard.
import Glibc
import Synchronization
import Locking

/// A buffer written into the stream and not yet heard: its place, and a copy of its bytes for the
/// meters (the buffer itself is free again once written).
struct Pending {
    var streamEnd: Int64
    var frames: Int
    /// Stream frame of the buffer's first frame: once the stream's time passes it, the buffer is heard.
    var streamStart: Int64 { streamEnd - Int64(frames) }
    /// File frame of the buffer's first frame.
    var fileStart: Int64
    /// File frame after the buffer's last frame (`LevelReading.endFrame` for the player).
    var fileEnd: Int64
    var isLeadIn: Bool
    var slot: Int
}

/// The reader thread's own state: only that thread touches it (the output callback runs on it).
final class FeederState: @unchecked Sendable {
    // @unchecked Sendable: created before the thread starts and then used by the reader thread alone.
    enum Mode { case idle, prepared, playing, paused }
    var mode = Mode.idle
    /// File frame of the next frame decoded (for a callback source: frames produced so far).
    var decodeFrame: Int64 = 0
    var loopsDone = 0
    /// Frames of the current stream decoded so far (its spans' end).
    var streamFrames: Int64 = 0
    /// Silence still to be written before the audio of a timed start.
    var leadIn: Int64 = 0
    /// The lead-in silence this stream began with (it comes before any audio of the stream).
    var streamLeadIn: Int64 = 0
    /// Frames of the source heard in streams already closed.
    var heardBefore: Int64 = 0
    /// Frames of audio (not lead-in) in this stream's buffers that began to be heard: what was heard
    /// when the stream can no longer tell its time.
    var publishedAudio: Int64 = 0
    /// Frames still to play in a `play(forDuration:)` (nil: to the end).
    var remaining: Int64?
    /// The source has nothing more for the current stream: drain once it is all written.
    var sourceEnded = false
    var endError: RecorderError?
    var draining = false
    var reportedUnderflows = 0
    /// File frame where the last buffer that began to be heard begins: where a failed stream stopped.
    var lastHeardFrame: Int64 = 0
    var pending: [Pending] = []
    var freeSlots: [Int]
    var scratch: [Float]
    /// A file played faster, slower or at another pitch goes through this (made at the first such
    /// request, kept after), and comes out in `stretched`.
    var stretcher: TimeStretcher?
    var stretched: [Float]
    var meterScratch: [LevelMeterState]
    var exiting = false
    /// Copies of written buffers until heard, for the meters: `slots` of `slotBytes`.
    let history: UnsafeMutableRawPointer
    /// An output callback's frames produced so far (its buffers' `startFrame`).
    var producedFrames: Int64 = 0
    /// Where an output callback writes a buffer the stretcher then takes (`slotBytes`).
    let callbackBytes: UnsafeMutableRawPointer

    init(slots: Int, slotBytes: Int, bufferFrames: Int, format: StreamFormat) {
        history = .allocate(byteCount: slots * slotBytes, alignment: 16)
        callbackBytes = .allocate(byteCount: slotBytes, alignment: 16)
        freeSlots = Array((0..<slots).reversed())
        pending.reserveCapacity(slots)
        scratch = [Float](repeating: 0, count: bufferFrames * format.channelCount)
        stretched = [Float](repeating: 0, count: bufferFrames * format.channelCount)
        meterScratch = Readout.silentLevels(format)
    }

    deinit {
        history.deallocate()
        callbackBytes.deallocate()
    }
}

/// The player's worker and what it owns: the source, the buffer pool's producer side, the stream's
/// control. Holds no reference to `Player`, so a player no longer referenced can deinit and stop it.
final class PlaybackFeeder: WorkerBody {
    let format: StreamFormat
    let worker: Worker<PlayerRequest, PlayerControl>
    let readout: Readout
    let events = Broadcaster<PlayerEvent>()
    let playhead = Locked(Playhead())
    let underruns = Atomic<Int>(0)
    let stream: PlaybackStream

    let source: PlaybackSource
    let pool: BufferPool
    let state: FeederState
    var history: UnsafeMutableRawPointer { state.history }

    /// What callers and the worker share (the requests, `PlayerControl`).
    var control: ControlChannel<WorkerState<PlayerRequest, PlayerControl>> { worker.control }

    /// A feeder of `stream` from `source`; `wake` is the semaphore the stream posts.
    init(format: StreamFormat, source: PlaybackSource, pool: BufferPool, stream: PlaybackStream,
         wake: Semaphore, fileFrames: Int64) {
        self.format = format
        self.source = source
        self.pool = pool
        self.stream = stream
        worker = Worker(named: "rk-player", shared: PlayerControl(), wake: wake)
        readout = Readout(format: format)
        // The pool's buffers, what the server holds (two buffers asked; more if it raises that), spare.
        state = FeederState(slots: pool.count + 12, slotBytes: pool.capacityBytes, bufferFrames: pool.capacityBytes / format.bytesPerFrame, format: format)
        playhead.withLock { $0.fileFrames = fileFrames }
    }

    func start() throws(RecorderError) { try worker.start(self, what: "the player's worker thread") }

    /// The file frame being heard now.
    var currentFrame: Int64 {
        let played = stream.withLock { stream.playedFrames($0) }
        return playhead.withLock { $0.position(played: played) }
    }

    // MARK: The worker

    /// Until the next pending buffer begins to be heard while playing (its meters are due then), else
    /// a second at most.
    func nextDeadline() -> Int64? {
        var milliseconds: Int64 = 1_000
        if state.mode == .playing, let next = state.pending.first {
            let played = stream.withLock { stream.playedFrames($0) } ?? 0
            let frames = max(0, next.streamStart + 1 - played)
            milliseconds = min(200, max(1, frames * 1000 / Int64(format.sampleRate) + 1))
        }
        return monotonicNanoseconds() + milliseconds * 1_000_000
    }

    func round() -> Bool {
        let playing = { [state] in state.mode == .playing }
        worker.carryOutRequests(self, after: { $0.isPlaying = playing() }, stop: { [state] in state.exiting })
        guard !state.exiting else { return false }
        if stream.failed.load(ordering: .acquiring), stream.withLock({ stream.isOpen($0) }) {
            streamFailed()
        }
        fill()
        publishHeard()
        reportUnderflows()
        if state.draining, stream.drained.load(ordering: .acquiring) {
            finished()
        } else if state.sourceEnded, !state.draining, state.mode == .playing,
                  stream.withLock({ stream.allWritten($0) }) {
            state.draining = true
            stream.withLock { stream.requestDrain($0) }
        }
        return true
    }

    /// Requests made on the worker (from the output callback) are queued: carried out when it returns.
    func carryOutInline(_ request: PlayerRequest) throws(RecorderError) -> Bool { false }

    func end() {
        stream.close()
        if case .file(let reader) = source { reader.close() }
        readout.finish()
        events.finish()
        control.change { $0.isPlaying = false }
    }

    func carryOut(_ request: PlayerRequest) throws(RecorderError) {
        switch request {
        case .prepare:
            if state.mode == .idle {
                try openStream(startingAt: nil)
                state.mode = .prepared
            }
        case .play(let at, let frames):
            if let frames { state.remaining = frames }
            if let at {
                if state.mode != .idle {
                    let heard = currentFrame
                    closeStream()
                    try moveSource(to: heard)
                }
                try openStream(startingAt: at)
            } else if state.mode == .idle {
                try openStream(startingAt: nil)
            } else if state.mode == .playing {
                return
            }
            state.mode = .playing
            stream.withLock { stream.cork(false, $0) }
        case .pause:
            guard state.mode == .playing || state.mode == .prepared else { return }
            state.mode = .paused
            stream.withLock { stream.cork(true, $0) }
        case .stop:
            let heard = currentFrame
            closeStream()
            try moveSource(to: heard)
            state.mode = .idle
        case .seek(let frame):
            let resume = state.mode == .playing
            let prepared = state.mode == .prepared
            closeStream()
            try moveSource(to: frame)
            state.mode = .idle
            if resume || prepared {
                try openStream(startingAt: nil)
                state.mode = resume ? .playing : .prepared
                if resume { stream.withLock { stream.cork(false, $0) } }
            }
        case .volume:
            let volume = currentVolume()
            stream.withLock { stream.setVolume(volume, $0) }
        case .timePitch:
            let (rate, pitch) = control.withLock { ($0.rate, $0.pitch) }
            if state.stretcher == nil, rate != 1 || pitch != 0, stretches {
                // From the next frame decoded on: what is already in buffers plays as it was.
                state.stretcher = TimeStretcher(channelCount: format.channelCount, sampleRate: format.sampleRate)
                state.stretcher?.clear(at: state.decodeFrame)
            }
            state.stretcher?.set(rate: rate, pitch: pitch)
        case .shutdown:
            closeStream()
            state.mode = .idle
            state.exiting = true
        }
    }

    /// Whether the source can be stretched: a file, or an output callback of 16-bit samples (what comes out
    /// of the stretcher is written as 16-bit).
    private var stretches: Bool {
        if case .file = source { return true }
        return format.sampleFormat == .int16
    }

    /// The volume and pan asked, as PulseAudio per-channel volumes of the stream (two for a mono source
    /// sent as two channels).
    private func currentVolume() -> PlaybackVolume {
        let (volume, pan) = control.withLock { ($0.volume, $0.pan) }
        return PlaybackVolume(volume: volume, pan: pan, channels: stream.streamFormat.channelCount)
    }

    /// Opens a corked stream and fills it. With `time` (CLOCK_MONOTONIC nanoseconds), the first frame of
    /// audio is to be heard then: the server is asked how long a frame written now takes to be heard,
    /// and that much less silence than the time to go is written first.
    private func openStream(startingAt time: Int64?) throws(RecorderError) {
        try stream.open(volume: currentVolume())
        // Nothing of this stream is heard yet: the meters read silence until its first buffer is.
        readout.silence()
        var leadIn: Int64 = 0
        if let time {
            stream.withLock { stream.requestLatency($0) }
            let deadline = monotonicNanoseconds() + 1_000_000_000
            var latency: Int64 = 0
            while monotonicNanoseconds() < deadline {
                if case .some(let answer) = stream.withLock({ stream.latency($0) }) {
                    latency = answer ?? 0
                    break
                }
                worker.wake.wait(until: min(deadline, monotonicNanoseconds() + 20_000_000))
            }
            let ahead = time - monotonicNanoseconds() - latency * 1_000
            if ahead > 0 {
                leadIn = Int64((Double(ahead) * Double(format.sampleRate) / 1e9).rounded())
            }
        }
        state.streamFrames = 0
        state.leadIn = leadIn
        state.streamLeadIn = leadIn
        state.publishedAudio = 0
        state.sourceEnded = false
        state.endError = nil
        state.draining = false
        state.reportedUnderflows = 0
        playhead.withLock { $0.spans.removeAll(keepingCapacity: true) }
        fill()
    }

    /// Closes the stream: what it held and what was decoded for it is dropped, unheard. The caller
    /// moves the source to where playback is to go on.
    private func closeStream() {
        let played = stream.withLock { stream.playedFrames($0) }
        state.heardBefore += heardInStream(played: played)
        state.streamFrames = 0
        state.streamLeadIn = 0
        state.publishedAudio = 0
        let heard = state.heardBefore
        control.withLock { $0.heardFrames = heard }
        stream.withLock { stream.closeStream($0) }
        returnFilled()
        for entry in state.pending { state.freeSlots.append(entry.slot) }
        state.pending.removeAll(keepingCapacity: true)
        playhead.withLock { $0.spans.removeAll(keepingCapacity: true) }
        state.draining = false
        state.leadIn = 0
    }

    /// Buffers filled but not written go back to the free set (their audio is not heard).
    private func returnFilled() {
        // The mainloop side is the filled ring's consumer; with the stream closed nothing else pops it.
        stream.withLock { _ in
            while let index = pool.filled.pop() { pool.free.push(index) }
        }
    }

    /// Moves the source to `frame` (and the playhead's resting place with it).
    private func moveSource(to frame: Int64) throws(RecorderError) {
        switch source {
        case .file(let reader):
            guard reader.seek(to: frame) else {
                throw RecorderError(.readFailed,
                    "cannot seek in '\(reader.path)' to frame \(frame): the file cannot be positioned (a pipe?)")
            }
        case .callback:
            break
        }
        state.decodeFrame = frame
        state.stretcher?.clear(at: frame)
        state.lastHeardFrame = frame
        playhead.withLock { $0.restingFrame = frame }
    }

    // MARK: Endings

    /// Everything written has been heard: the end of the file (after its loops) or of the duration.
    private func finished() {
        while !state.pending.isEmpty { publishOldest() }
        let error = state.endError
        let heard = currentFrame
        // Drained: everything written was played, whatever the clock says now.
        state.heardBefore += max(0, state.streamFrames - state.streamLeadIn)
        state.streamFrames = 0
        state.streamLeadIn = 0
        state.publishedAudio = 0
        closeStream()
        state.mode = .idle
        state.loopsDone = 0
        state.remaining = nil
        // As AVAudioPlayer: back to the start once the end was played; after a failure, where it stopped.
        try? moveSource(to: error == nil ? 0 : heard)
        control.change {
            $0.isPlaying = false
            $0.finishedCount += 1
        }
        events.yield(.finishedPlaying(successfully: error == nil))
    }

    /// The stream failed (server gone, sink removed): playback ends where it was heard.
    private func streamFailed() {
        // A failed stream may not tell its time any more: then after the last buffer heard.
        let heard = stream.withLock({ stream.playedFrames($0) }) != nil ? currentFrame : state.lastHeardFrame
        let sink = stream.sinkName
        closeStream()
        state.mode = .idle
        try? moveSource(to: heard)
        let error = RecorderError(.streamFailed,
            "playback to '\(sink)' stopped: the server closed the stream (server gone or sink removed); "
            + "check that the server is running and the sink exists (`recorder sinks`)")
        control.change {
            $0.isPlaying = false
            $0.finishedCount += 1
        }
        events.yield(.playbackFailed(error))
        events.yield(.finishedPlaying(successfully: false))
    }
}

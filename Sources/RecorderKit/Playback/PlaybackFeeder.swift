// The player's reader thread: decodes (or asks the embedder for) audio into free buffers, carries out
// control requests between buffers, and publishes each buffer's meter readings when it is heard.
import Glibc
import Synchronization

/// Where a player's audio comes from.
enum PlaybackSource: Sendable {
    /// A file, decoded by libsndfile on the reader thread.
    case file(SoundFileReader)
    /// The embedder's output callback (AudioQueueNewOutput's role), called on the reader thread.
    case callback(@Sendable (inout OutputBuffer) -> Void)
}

/// A control request to the reader thread.
enum PlayerRequest: Sendable {
    /// Open a stream and fill it, corked (`prepareToPlay`).
    case prepare
    /// Start or resume: at once, or with the first frame heard at CLOCK_MONOTONIC nanoseconds `at`;
    /// `frames`: play at most this many frames from here, then end as at the end of the file.
    case play(at: Int64?, frames: Int64?)
    case pause
    /// Stop (AVAudioPlayer's): the stream goes, the position stays where it was heard.
    case stop
    /// Move to a file frame.
    case seek(Int64)
    /// Apply the volume and pan in `PlayerControl`.
    case volume
    /// End everything: close the stream and the connection, finish the streams, exit.
    case shutdown
}

/// What callers and the reader thread share, under one lock (a `ControlChannel`).
struct PlayerControl {
    var requests: [(number: Int, request: PlayerRequest)] = []
    var nextNumber = 1
    /// Requests up to this number have been carried out.
    var handled = 0
    /// Failures of requests, by number, for their callers to throw.
    var failures: [Int: RecorderError] = [:]
    var isPlaying = false
    var volume: Float = 1
    var pan: Float = 0
    var numberOfLoops = 0
    /// Frames of the source heard so far, over every stream (lead-in silence not counted): the
    /// reader thread's `heardBefore` plus what the open stream has played.
    var heardFrames: Int64 = 0
    /// Times playback reached its end (successfully or not).
    var finishedCount = 0
    /// Set by the reader thread as its last act.
    var exited = false
}

/// Where what is heard stands in the file: the buffers written into the current stream and not yet
/// heard, with their positions, for `currentTime`.
struct Playhead {
    struct Span {
        /// First frame of the span in the stream (stream indices count from 0 per stream).
        var streamStart: Int64
        var frames: Int64
        /// File frame of the span's first frame (for lead-in silence, the frame that follows it).
        var fileStart: Int64
        var isLeadIn: Bool
    }
    var spans: [Span] = []
    /// The position while no stream plays (stopped, idle, or before anything was heard).
    var restingFrame: Int64 = 0
    /// Frames in the file (0: unknown, no wrapping).
    var fileFrames: Int64 = 0

    /// The file frame being heard when the stream is at `played` (nil: no stream).
    func position(played: Int64?) -> Int64 {
        guard let played, let first = spans.first else { return restingFrame }
        if played < first.streamStart { return first.fileStart }
        for span in spans where played < span.streamStart + span.frames {
            if span.isLeadIn { return span.fileStart }
            return wrap(span.fileStart + (played - span.streamStart))
        }
        let last = spans[spans.count - 1]
        return last.isLeadIn ? last.fileStart : wrap(last.fileStart + last.frames)
    }

    func wrap(_ frame: Int64) -> Int64 { fileFrames > 0 && frame >= fileFrames ? frame % fileFrames : frame }
}

/// A buffer written into the stream and not yet heard: its place, and a copy of its bytes for the
/// meters (the buffer itself is free again once written).
private struct Pending {
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
private final class FeederState: @unchecked Sendable {
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
    var meterScratch: [LevelMeterState]
    var exiting = false
    /// Copies of written buffers until heard, for the meters: `slots` of `slotBytes`.
    let history: UnsafeMutableRawPointer

    init(slots: Int, slotBytes: Int, bufferFrames: Int, format: StreamFormat) {
        history = .allocate(byteCount: slots * slotBytes, alignment: 16)
        freeSlots = Array((0..<slots).reversed())
        pending.reserveCapacity(slots)
        scratch = [Float](repeating: 0, count: bufferFrames * format.channelCount)
        meterScratch = Readout.silentLevels(format)
    }

    deinit { history.deallocate() }
}

/// The reader thread and what it owns: the source, the buffer pool's producer side, the stream's
/// control. Holds no reference to `Player`, so a player no longer referenced can deinit and stop it.
final class PlaybackFeeder: Sendable {
    let format: StreamFormat
    let control = ControlChannel(PlayerControl())
    let readout: Readout
    let events = Broadcaster<PlayerEvent>()
    let playhead = Locked(Playhead())
    let underruns = Atomic<Int>(0)
    let stream: PlaybackStream

    private let source: PlaybackSource
    private let pool: BufferPool
    private let dataReady: Semaphore
    private let state: FeederState
    private let thread = Locked<pthread_t?>(nil)
    private var history: UnsafeMutableRawPointer { state.history }

    init(format: StreamFormat, source: PlaybackSource, pool: BufferPool, stream: PlaybackStream,
         dataReady: Semaphore, fileFrames: Int64) {
        self.format = format
        self.source = source
        self.pool = pool
        self.stream = stream
        self.dataReady = dataReady
        readout = Readout(format: format)
        // The pool's buffers, what the server holds (two buffers asked; more if it raises that), spare.
        state = FeederState(slots: pool.count + 12, slotBytes: pool.capacityBytes, bufferFrames: pool.capacityBytes / format.bytesPerFrame, format: format)
        playhead.withLock { $0.fileFrames = fileFrames }
    }

    func start() throws(RecorderError) {
        switch startThread(named: "rk-player", { [self] in run() }) {
        case .success(let thread):
            pthread_detach(thread)
        case .failure(let failure):
            stream.close()
            readout.finish()
            events.finish()
            control.change { $0.exited = true }
            throw failure.error(starting: "the player's reader thread")
        }
    }

    var isCurrentThread: Bool {
        thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: Requests from any thread

    /// Queues `request`; returns its number (for `wait`).
    @discardableResult
    func submit(_ request: PlayerRequest) -> Int {
        let number = control.withLock { control -> Int in
            let number = control.nextNumber
            control.nextNumber += 1
            control.requests.append((number, request))
            return number
        }
        dataReady.post()
        return number
    }

    /// Queues `request` and blocks until it has been carried out; throws its failure. From the reader
    /// thread (the output callback) it only queues: it is carried out when the callback returns.
    func perform(_ request: PlayerRequest) throws(RecorderError) {
        let number = submit(request)
        guard !isCurrentThread else { return }
        control.wait { $0.handled >= number || $0.exited }
        if let failure = control.withLock({ $0.failures.removeValue(forKey: number) }) { throw failure }
    }

    /// `perform` for Swift concurrency: suspends, blocking no thread.
    func perform(_ request: PlayerRequest) async throws(RecorderError) {
        let number = submit(request)
        await control.wait { $0.handled >= number || $0.exited }
        if let failure = control.withLock({ $0.failures.removeValue(forKey: number) }) { throw failure }
    }

    /// The file frame being heard now.
    var currentFrame: Int64 {
        let played = stream.withLock { stream.playedFrames }
        return playhead.withLock { $0.position(played: played) }
    }

    // MARK: The thread

    private func run() {
        thread.withLock { $0 = pthread_self() }
        while !state.exiting {
            _ = dataReady.wait(milliseconds: waitMilliseconds())
            step()
        }
        stream.close()
        if case .file(let reader) = source { reader.close() }
        readout.finish()
        events.finish()
        control.change {
            $0.isPlaying = false
            $0.exited = true
        }
    }

    /// How long to sleep: until the next pending buffer begins to be heard while playing, else until woken.
    private func waitMilliseconds() -> Int {
        guard state.mode == .playing, let next = state.pending.first else { return 1_000 }
        let played = stream.withLock { stream.playedFrames } ?? 0
        let frames = max(0, next.streamStart + 1 - played)
        return Int(min(200, max(1, frames * 1000 / Int64(format.sampleRate) + 1)))
    }

    private func step() {
        takeRequests()
        guard !state.exiting else { return }
        if stream.failed.load(ordering: .acquiring), stream.withLock({ stream.isOpen }) {
            streamFailed()
        }
        fill()
        publishHeard()
        reportUnderflows()
        if state.draining, stream.drained.load(ordering: .acquiring) {
            finished()
        } else if state.sourceEnded, !state.draining, state.mode == .playing,
                  stream.withLock({ stream.allWritten }) {
            state.draining = true
            stream.withLock { stream.requestDrain() }
        }
    }

    private func takeRequests() {
        while let (number, request) = control.withLock({ control -> (Int, PlayerRequest)? in
            control.requests.isEmpty ? nil : control.requests.removeFirst()
        }) {
            var failure: RecorderError?
            do {
                try carryOut(request)
            } catch {
                failure = error
            }
            let playing = state.mode == .playing
            control.change { control in
                control.handled = number
                if let failure { control.failures[number] = failure }
                control.isPlaying = playing
            }
            if state.exiting { return }
        }
    }

    private func carryOut(_ request: PlayerRequest) throws(RecorderError) {
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
            stream.withLock { stream.cork(false) }
        case .pause:
            guard state.mode == .playing || state.mode == .prepared else { return }
            state.mode = .paused
            stream.withLock { stream.cork(true) }
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
                if resume { stream.withLock { stream.cork(false) } }
            }
        case .volume:
            let volume = currentVolume()
            stream.withLock { stream.setVolume(volume) }
        case .shutdown:
            closeStream()
            state.mode = .idle
            state.exiting = true
        }
    }

    /// The volume and pan asked, as PulseAudio per-channel volumes.
    private func currentVolume() -> PlaybackVolume {
        let (volume, pan) = control.withLock { ($0.volume, $0.pan) }
        return PlaybackVolume(volume: volume, pan: pan, channels: format.channelCount)
    }

    /// Opens a corked stream and fills it. With `time` (CLOCK_MONOTONIC nanoseconds), the first frame of
    /// audio is to be heard then: the server is asked how long a frame written now takes to be heard,
    /// and that much less silence than the time to go is written first.
    private func openStream(startingAt time: Int64?) throws(RecorderError) {
        try stream.open(volume: currentVolume())
        var leadIn: Int64 = 0
        if let time {
            stream.withLock { stream.requestLatency() }
            let deadline = monotonicNanoseconds() + 1_000_000_000
            var latency: Int64 = 0
            while monotonicNanoseconds() < deadline {
                if case .some(let answer) = stream.withLock({ stream.latency }) {
                    latency = answer ?? 0
                    break
                }
                _ = dataReady.wait(milliseconds: 20)
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
        let played = stream.withLock { stream.playedFrames }
        state.heardBefore += heardInStream(played: played)
        state.streamFrames = 0
        state.streamLeadIn = 0
        state.publishedAudio = 0
        let heard = state.heardBefore
        control.withLock { $0.heardFrames = heard }
        stream.withLock { stream.closeStream() }
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
        stream.withLock {
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
        state.lastHeardFrame = frame
        playhead.withLock { $0.restingFrame = frame }
    }

    // MARK: Filling buffers

    /// Fills free buffers from the source while the stream is open and the source has audio.
    private func fill() {
        guard stream.withLock({ stream.isOpen }) else { return }
        while !state.sourceEnded || state.leadIn > 0, let index = pool.free.pop() {
            let leadIn = state.leadIn > 0
            let startFrame = state.decodeFrame
            let frames = leadIn ? fillSilence(index) : fillFromSource(index)
            guard frames > 0 else {
                pool.free.push(index)
                break
            }
            pool.setByteCount(frames * format.bytesPerFrame, of: index)
            pool.setStartFrame(state.streamFrames, of: index)
            keep(index, frames: frames, fileStart: startFrame, leadIn: leadIn)
            pool.filled.push(index)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if stream.starving.load(ordering: .sequentiallyConsistent) { stream.resume() }
        }
    }

    private func fillSilence(_ index: Int) -> Int {
        let frames = Int(min(state.leadIn, Int64(pool.capacityBytes / format.bytesPerFrame)))
        memset(pool.bytes(of: index), 0, frames * format.bytesPerFrame)
        state.leadIn -= Int64(frames)
        return frames
    }

    /// Decodes into buffer `index`; returns the frames put there (0 when the source has ended).
    private func fillFromSource(_ index: Int) -> Int {
        let capacity = pool.capacityBytes / format.bytesPerFrame
        var wanted = capacity
        if let remaining = state.remaining { wanted = Int(min(Int64(capacity), remaining)) }
        var frames = 0
        let destination = pool.bytes(of: index)
        switch source {
        case .file(let reader):
            while frames < wanted {
                let read = state.scratch.withUnsafeMutableBufferPointer {
                    reader.read(into: $0.baseAddress!, frames: wanted - frames)
                }
                if read == 0 {
                    if let error = reader.readError {
                        state.endError = error
                        events.yield(.decodeError(error, atFrame: state.decodeFrame))
                        state.sourceEnded = true
                        break
                    }
                    let loops = control.withLock { $0.numberOfLoops }
                    if (loops < 0 || state.loopsDone < loops), reader.frameCount > 0, reader.seek(to: 0) {
                        state.loopsDone += 1
                        state.decodeFrame = 0
                        continue
                    }
                    state.sourceEnded = true
                    break
                }
                state.scratch.withUnsafeBufferPointer {
                    Self.convert($0.baseAddress!, count: read * format.channelCount,
                                 into: destination + frames * format.bytesPerFrame)
                }
                frames += read
                state.decodeFrame += Int64(read)
            }
        case .callback(let handler):
            memset(destination, 0, capacity * format.bytesPerFrame)
            var buffer = OutputBuffer(startFrame: state.decodeFrame, frameCapacity: wanted, format: format,
                                      bytes: UnsafeMutableRawBufferPointer(start: destination, count: wanted * format.bytesPerFrame))
            handler(&buffer)
            frames = max(0, min(wanted, buffer.frameCount))
            if frames < wanted { state.sourceEnded = true }
            state.decodeFrame += Int64(frames)
        }
        if var remaining = state.remaining {
            remaining -= Int64(frames)
            state.remaining = remaining
            if remaining <= 0 {
                state.remaining = nil
                state.sourceEnded = true
            }
        }
        return frames
    }

    /// Float samples (full scale ±1) to signed 16-bit big-endian, rounded to the nearest and clipped; a
    /// NaN or infinite sample is played as 0.
    static func convert(_ samples: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer) {
        let output = destination.assumingMemoryBound(to: UInt16.self)
        for index in 0..<count {
            let scaled = samples[index] * 32_768
            let value: Int16
            if scaled.isNaN || scaled.isInfinite {
                value = 0
            } else if scaled >= 32_767 {
                value = .max
            } else if scaled <= -32_768 {
                value = .min
            } else {
                value = Int16(scaled.rounded(.toNearestOrEven))
            }
            output[index] = UInt16(bitPattern: value).bigEndian
        }
    }

    /// Keeps a copy of a filled buffer and its place until it is heard.
    private func keep(_ index: Int, frames: Int, fileStart: Int64, leadIn: Bool) {
        if state.freeSlots.isEmpty { publishOldest() }
        let slot = state.freeSlots.removeLast()
        memcpy(history + slot * pool.capacityBytes, pool.bytes(of: index), frames * format.bytesPerFrame)
        let start = state.streamFrames
        state.streamFrames += Int64(frames)
        state.pending.append(Pending(streamEnd: state.streamFrames, frames: frames, fileStart: fileStart, fileEnd: state.decodeFrame,
                                     isLeadIn: leadIn, slot: slot))
        playhead.withLock { playhead in
            playhead.spans.append(.init(streamStart: start, frames: Int64(frames),
                                        fileStart: fileStart, isLeadIn: leadIn))
        }
    }

    // MARK: Publishing what is heard

    /// Publishes the reading of every buffer that has begun to be heard (its first frame played): the
    /// needle moves as the sound it measures starts, as a meter on the output would.
    private func publishHeard() {
        guard let played = stream.withLock({ stream.playedFrames }) else { return }
        let heard = state.heardBefore + heardInStream(played: played)
        control.withLock { $0.heardFrames = heard }
        guard !state.pending.isEmpty else { return }
        while let first = state.pending.first, first.streamStart < played { publishOldest() }
        // Spans before the one being heard are no longer needed for `currentTime`.
        playhead.withLock { playhead in
            while playhead.spans.count > 1, playhead.spans[0].streamStart + playhead.spans[0].frames <= played {
                playhead.spans.removeFirst()
            }
        }
    }

    /// Frames of audio the open stream has played when its clock reads `played` (nil: it cannot tell,
    /// and the buffers that began to be heard count). The stream's lead-in silence comes first.
    private func heardInStream(played: Int64?) -> Int64 {
        guard let played else { return state.publishedAudio }
        return max(0, min(played, state.streamFrames) - state.streamLeadIn)
    }

    private func publishOldest() {
        guard !state.pending.isEmpty else { return }
        let entry = state.pending.removeFirst()
        state.freeSlots.append(entry.slot)
        guard !entry.isLeadIn else { return }
        state.publishedAudio += Int64(entry.frames)
        state.lastHeardFrame = entry.fileStart
        let bytes = UnsafeRawBufferPointer(start: history + entry.slot * pool.capacityBytes,
                                           count: entry.frames * format.bytesPerFrame)
        readout.measure(bytes, into: &state.meterScratch)
        readout.publish(bytes, endFrame: entry.fileEnd, frameCount: entry.frames, measured: state.meterScratch)
    }

    private func reportUnderflows() {
        let count = stream.underflows.load(ordering: .relaxed)
        guard count > state.reportedUnderflows else { return }
        let fresh = count - state.reportedUnderflows
        state.reportedUnderflows = count
        // Running out at the end of what there was to play is the end, not an underrun.
        guard !state.sourceEnded, state.mode == .playing else { return }
        underruns.add(fresh, ordering: .relaxed)
        events.yield(.underrun(atFrame: currentFrame))
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
        let heard = stream.withLock({ stream.playedFrames }) != nil ? currentFrame : state.lastHeardFrame
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

// The recorder's worker: takes filled buffers off the capture side, meters them, hands them to the
// embedder and the file, returns them to the free set, and carries out control requests between them.
import Glibc
import Synchronization
import Locking

/// The delivery thread's own state. Only that thread touches it (the input handler, which runs on it,
/// included), so it needs no lock.
final class DeliveryState: @unchecked Sendable {
    // @unchecked Sendable: created before the thread starts and from then on used by the delivery
    // thread alone (`Delivery` checks `isCurrentThread` before any inline use from a handler).
    var session: FileSession?
    /// Frames delivered so far: where the next buffer starts.
    var position: Int64 = 0
    var meterScratch: [LevelMeterState]
    /// The delivered buffer's sums per channel (one metering pass serves the level and the totals).
    var meterSums: [ChannelSums]
    var outage: Outage?
    var failureReported = false
    /// A loss (dropped frames, a silent source) not reported yet: the notices that continue it are
    /// merged into it, and it is reported once data after it is delivered (or the recording ends).
    var openLoss: CaptureNotice?
    /// The same, per source, for a take of several sources (each source's losses are its own).
    var openSourceLosses: [Int: CaptureNotice] = [:]
    /// How far the current recording's stop has come.
    var ending = Ending.none
    /// `stop()` was called from the input handler: nothing more is delivered.
    var stopNow = false

    init(format: StreamFormat) {
        meterScratch = Readout.silentLevels(format)
        meterSums = [ChannelSums](repeating: ChannelSums(), count: format.channelCount)
    }

    /// A stop's progress: none asked (or none begun yet), draining what the server captured until the
    /// deadline (CLOCK_MONOTONIC ns) at the latest, or cut (the recording ends once every buffer before
    /// its end is delivered).
    enum Ending: Equatable {
        case none
        case draining(deadline: Int64)
        case cut
    }
}

/// The consumer side of the buffer pool, and the one place where control requests are carried out:
/// the recorder's worker. Holds no reference to `Recorder`, so a recorder that is no longer referenced
/// can deinit and stop it, even from its own input handler.
final class Delivery: WorkerBody {
    let format: StreamFormat
    let worker: Worker<RecorderRequest, RecorderControl>
    let readout: Readout
    let events = Broadcaster<RecorderEvent>()
    let inputHandler = Locked<InputHandler?>(nil)
    /// Frames delivered since the recorder started.
    let framePosition = Atomic<Int64>(0)
    /// How long to wait for a lost server or source to come back (nil: do not wait).
    let reconnectTimeout: Double?
    /// The timeline frame up to which the server had captured when the last stop asked: what its
    /// drain waited for (nil: the server could not say).
    let lastDrain = Locked<Int64?>(nil)

    let pool: BufferPool
    let capture: any CaptureSide
    /// Each source's name, in take order.
    let sourceNames: [String]
    let state: DeliveryState
    /// The last frames delivered, for pre-roll; nil when the recorder keeps none.
    let preRoll: PreRollRing?
    /// How far back (frames) a take may begin: the pre-roll the recorder was created with.
    let maximumPreRollFrames: Int64

    /// How long a stop waits for what the server had captured to arrive (AudioQueueFlush's drain).
    static let drainTimeout: Int64 = 500_000_000
    /// How long a stop's flush waits for one answer from the mainloop thread (which answers within
    /// one of its iterations): only a mainloop that stopped running reaches it.
    static let flushAnswerLimit: Int64 = 10_000_000_000

    init(format: StreamFormat, pool: BufferPool, capture: any CaptureSide, wake: Semaphore,
         reconnectTimeout: Double?, preRollFrames: Int = 0) {
        self.format = format
        maximumPreRollFrames = Int64(max(0, preRollFrames))
        // Two buffers more than asked: between `record(to:)` reading the delivered position and the
        // delivery thread taking the new recording, one more buffer may be delivered.
        let bufferFrames = pool.capacityBytes / format.bytesPerFrame
        preRoll = preRollFrames > 0
            ? PreRollRing(capacityFrames: preRollFrames + 2 * bufferFrames, bytesPerFrame: format.bytesPerFrame) : nil
        self.pool = pool
        self.capture = capture
        sourceNames = capture.sourceNames
        worker = Worker(named: "rk-delivery", shared: RecorderControl(), wake: wake)
        self.reconnectTimeout = reconnectTimeout
        state = DeliveryState(format: format)
        readout = Readout(format: format)
    }

    /// What callers and the worker share (the requests, `RecorderControl`).
    var control: ControlChannel<WorkerState<RecorderRequest, RecorderControl>> { worker.control }

    /// Starts the worker. If the system refuses a thread, capture is closed and the streams finished, as
    /// at the worker's end, so the recorder's `stop()` returns at once.
    func start() throws(RecorderError) { try worker.start(self, what: "the delivery thread") }

    // MARK: Requests from any thread

    /// Asks for the current recording to be stopped; returns its number, or nil if none is in progress.
    func requestStop() -> Int? {
        var number: Int?
        worker.submit(.stop) { control in
            control.recording?.requestStop()
            number = control.recording?.number
        }
        return number
    }

    /// Asks for the end: the recording is stopped as by `requestStop`, then capture ends.
    func requestShutdown() {
        worker.submit(.shutdown) { control in
            control.shutdownRequested = true
            control.recording?.requestStop()
        }
    }

    /// The summary of recording `number` (or the latest), throwing its error if it failed.
    func result(of number: Int?) throws(RecorderError) -> RecordingSummary? {
        let summary = control.withLock { control in
            number.flatMap { number in control.summaries.last { $0.number == number }?.summary } ?? control.lastSummary
        }
        if let error = summary?.error { throw error }
        return summary
    }

    // MARK: Requests made on the delivery thread itself (from the input handler)

    /// `stopRecording()` from the input handler: the buffer it was given is already in the file, so
    /// the recording ends with it, at once, and its summary is returned. nil when not recording.
    func stopRecordingInline() throws(RecorderError) -> RecordingSummary? {
        worker.carryOutRequests(self)
        guard let session = state.session else { return nil }
        let end = max(state.position, session.startFrame)
        control.withLock { $0.recording?.cut(at: end) }
        finish(error: nil)
        return try result(of: session.number)
    }

    /// `stop()` from the input handler: ends the recording as `stopRecordingInline`, delivers nothing
    /// more, and ends capture when the handler returns.
    func shutdownInline() {
        _ = try? stopRecordingInline()
        control.withLock { $0.shutdownRequested = true }
        state.stopNow = true
    }

    // MARK: The worker

    /// While the server is away, retry at 5 Hz; while a stop drains, wake at its deadline.
    func nextDeadline() -> Int64? {
        if state.outage != nil { return monotonicNanoseconds() + 200_000_000 }
        if case .draining(let deadline) = state.ending { return deadline + 1_000_000 }
        return nil
    }

    /// A request carried out between buffers: a session is taken (its pre-roll written); a stop or a
    /// shutdown, asked with the request, is acted on by `serviceStop` at each check.
    func carryOut(_ request: RecorderRequest) throws(RecorderError) {
        if case .record(let session) = request { take(session) }
    }

    /// Made from the input handler: a stop or a shutdown is carried out at once (the handler's buffer
    /// is the recording's last); a recording begins after the handler's buffer.
    func carryOutInline(_ request: RecorderRequest) throws(RecorderError) -> Bool {
        switch request {
        case .record: return false
        case .stop: _ = try stopRecordingInline()
        case .shutdown: shutdownInline()
        }
        return true
    }

    /// Closes capture and finishes the streams: the worker's last act, or that of one that could not
    /// be started.
    func end() {
        capture.close()
        reportNotices(nil)
        closeLoss(nil)
        readout.finish()
        events.finish()
    }

    /// One round: take requests, deliver what is there, advance a stop, handle a lost stream.
    func round() -> Bool {
        deliverAvailable()
        serviceStop()
        let shutdown = control.withLock { $0.shutdownRequested }
        if !shutdown && !state.stopNow {
            if capture.isFailed && state.outage == nil && !state.failureReported {
                captureLost()
            }
            if let outage = state.outage {
                tryReconnect(outage)
            }
        }
        let idle = control.withLock { !$0.hasQueued }
        return !((shutdown || state.stopNow) && state.session == nil && idle)
    }

    /// Takes a session `record(to:)` began. One that begins before the frames delivered so far (a
    /// pre-roll, or a timed start in the past) gets them from the pre-roll ring first.
    func take(_ session: FileSession) {
        state.session = session
        // A write to a pipe whose reader stalled waits, but not past a stop (see `PipeOutput`).
        session.writer.isStopping = { [control] in control.withLock { $0.isStopping } }
        guard session.startFrame < state.position, let preRoll, let recording = control.withLock({ $0.recording }) else { return }
        preRoll.forEachPart(of: session.startFrame..<state.position) { bytes, frames in
            write(bytes, startFrame: frames.lowerBound, to: session, as: recording)
        }
    }

    /// Delivers every filled buffer, reports notices, and closes the recording once it is complete.
    func deliverAvailable() {
        while !state.stopNow {
            worker.carryOutRequests(self)
            let (recording, shutdown) = control.withLock { ($0.recording, $0.shutdownRequested) }
            // Shutting down with no recording left: leave, even if buffers keep coming.
            if shutdown && state.session == nil { return }
            reportNotices(recording)
            if state.session != nil, recording?.isComplete(delivered: state.position) == true {
                finish(error: nil)
                continue
            }
            serviceStop()
            guard let index = pool.filled.pop() else {
                // Every frame before the cut was handed over, so the file is complete.
                if state.session != nil, state.ending == .cut { finish(error: nil) }
                return
            }
            // A `record(to:)` queues its session, under the capture lock, before any frame after its
            // start is read into a buffer: carried out now, it holds every frame of the buffer just taken
            // (delivered first, they went into no file while its length counted them: a 0.3 s take
            // held 0.2 s).
            worker.carryOutRequests(self)
            deliver(index)
            release(index)
        }
    }

    /// Returns a delivered buffer to the free set, and resumes a capture that stalled for want of one.
    func release(_ index: Int) {
        pool.free.push(index)
        // Pairs with the fence in CaptureStream.readAvailable: either it sees this buffer, or we see
        // `stalled` and resume it.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if capture.isStalled {
            capture.resume()
        }
    }

    func deliver(_ index: Int) {
        guard !state.stopNow else { return }
        let startFrame = pool.startFrame(of: index)
        let byteCount = pool.byteCount(of: index)
        let frameCount = byteCount / format.bytesPerFrame
        let bytes = UnsafeRawBufferPointer(start: pool.bytes(of: index), count: byteCount)
        let endFrame = startFrame + Int64(frameCount)
        var recording = control.withLock { $0.recording }
        // Every notice about this buffer's frames was queued before the buffer: a loss that ends inside
        // it is over.
        reportNotices(recording)
        if let loss = state.openLoss, loss.frame + loss.count < endFrame { closeLoss(recording) }
        for (source, loss) in state.openSourceLosses where loss.frame + loss.count < endFrame { closeSourceLoss(source, recording) }

        readout.measure(bytes, into: &state.meterScratch, sums: &state.meterSums)
        // The file before the readings and the handler: a handler that stops the recording has its buffer
        // in the file, and a reader that sees a failed write's buffer already sees the recording ended.
        if let session = state.session, recording != nil {
            placeCut(session, position: startFrame)
            var step = RecordingState.TakeStep.none
            if recording?.isTriggered == true {
                (recording, step) = listen(session, range: startFrame..<endFrame)
            }
            // (A take whose file could not be created has finished the recording.)
            if state.session === session, let recording,
               write(bytes, startFrame: startFrame, to: session, as: recording, sums: state.meterSums),
               step == .endsWithThisBuffer {
                endTake(session)
            }
        }
        preRoll?.append(bytes, startFrame: startFrame)
        state.position = endFrame
        framePosition.store(endFrame, ordering: .releasing)
        let place = state.session.map { session in
            RecordingPlace(position: session.frameCount,
                           pausedFrames: control.withLock { $0.recording?.pausedFrames(delivered: endFrame) } ?? 0)
        }
        readout.publish(bytes, endFrame: endFrame, frameCount: frameCount, measured: state.meterScratch, recording: place)

        if let handler = inputHandler.withLock({ $0 }) {
            handler.call(CapturedBuffer(startFrame: startFrame, frameCount: frameCount, format: format, bytes: bytes))
        }
    }

    /// A take split on the clock: once the wall clock has passed the current file's boundary, the file's
    /// end goes at the frame captured then, reckoned by the capture timing (CLOCK_REALTIME's boundary as
    /// CLOCK_MONOTONIC now, less the time since it). Before the buffer from `position` is written: every
    /// frame captured after the boundary arrives after it. When several boundaries have passed (a source
    /// that delivers in bursts, a clock stepped forward), the first whose frame is not written yet is
    /// cut (the rest at the buffers after), or if none, the last, at once.
    func placeCut(_ session: FileSession, position: Int64) {
        guard let cuts = session.cuts else { return }
        let monotonic = monotonicNanoseconds(), now = realtimeSeconds()
        guard let (first, last) = cuts.passed(now: now) else { return }
        func frame(_ boundary: Double) -> Int64 {
            let captured = monotonic - Int64((min(now - boundary, 1e6) * 1e9).rounded())
            return capture.withLock { capture.frameCaptured(at: captured, $0) }
        }
        var boundary = first, cutFrame = frame(first)
        if cutFrame < position {
            // Behind what is written: the first boundary after the written frames' time, if one has passed.
            let written = first + Double(position - cutFrame) / Double(format.sampleRate)
            boundary = cuts.clock.nextBoundary(after: written).flatMap { $0 <= last ? $0 : nil } ?? last
            cutFrame = frame(boundary)
        }
        session.cuts?.place(frame: cutFrame, boundary: boundary)
    }

    /// A sound-activated recording hears the buffer `range` before it is written (see
    /// `RecordingState.listen`): a take that begins goes into the next numbered file unless `oneFile`,
    /// with its pre-roll from the kept audio. Returns the recording as it now stands and what the
    /// buffer meant.
    func listen(_ session: FileSession, range: Range<Int64>) -> (RecordingState?, RecordingState.TakeStep) {
        let peak = state.meterScratch.map(\.peakPower).max() ?? LevelMeterState.silence
        let (heard, step) = control.withLock { control -> (RecordingState?, RecordingState.TakeStep) in
            let step = control.recording?.listen(peak: peak, range: range) ?? .none
            return (control.recording, step)
        }
        guard step == .begin, let recording = heard else { return (heard, step) }
        if !session.takes.isEmpty || session.openTake != nil, recording.takes?.trigger.oneFile == false {
            do throws(RecorderError) {
                try session.nextFile(markers: recording.markers, newTake: true)
                if let finished = session.takeFinished() { events.yield(.fileFinished(finished)) }
            } catch {
                finish(error: error)
                return (control.withLock { $0.recording }, .none)
            }
        }
        let keptFrom = preRoll.flatMap { $0.endFrame == range.lowerBound ? $0.endFrame - Int64($0.count) : nil }
        let (begun, take) = control.withLock { control -> (RecordingState?, (number: Int, first: Int64)) in
            let take = control.recording?.beginTake(onset: range.lowerBound, keptFrom: keptFrom) ?? (0, range.lowerBound)
            return (control.recording, take)
        }
        let open = RecordingTake(number: take.number, path: session.writer.path, fileFrame: session.writer.framesWritten,
                                 frameCount: 0, startFrame: take.first, onsetFrame: range.lowerBound, sampleRate: format.sampleRate)
        session.openTake = (open, session.frameCount)
        events.yield(.takeStarted(number: take.number, path: session.writer.path, atFrame: take.first))
        // (A take whose first frame is past the onset buffer's start, the recording's start or the last
        // take's end inside it, has no pre-roll to write.)
        if let begun, take.first < range.lowerBound {
            preRoll?.forEachPart(of: take.first..<range.lowerBound) { bytes, frames in
                write(bytes, startFrame: frames.lowerBound, to: session, as: begun)
            }
        }
        return (begun, .begin)
    }

    /// Closes the open take of a sound-activated recording: its length is what was written since it began.
    func endTake(_ session: FileSession) {
        guard let open = session.openTake else { return }
        var take = open.take
        take.frameCount = session.frameCount - open.position
        session.takes.append(take)
        session.openTake = nil
        control.withLock { $0.recording?.endTake(first: take.startFrame) }
        events.yield(.takeEnded(take))
    }

    /// Writes the part of `bytes` (frames from `startFrame`) that belongs to `session`, as `recording`
    /// says: from its start to its end, paused frames left out, so the parts around a pause join without
    /// a frame lost or repeated. `sums`, the measured sums of all of `bytes`, are added to the totals
    /// when all of it is written (else the written part is measured again). Returns false if the write
    /// failed (the recording is then finished with the error).
    func write(_ bytes: UnsafeRawBufferPointer, startFrame: Int64, to session: FileSession,
                       as recording: RecordingState, sums: [ChannelSums]? = nil) -> Bool {
        let bytesPerFrame = format.bytesPerFrame
        var written = true
        recording.forEachRecordedPart(of: startFrame..<(startFrame + Int64(bytes.count / bytesPerFrame))) { part in
            let slice = UnsafeRawBufferPointer(rebasing: bytes[
                Int(part.lowerBound - startFrame) * bytesPerFrame ..< Int(part.upperBound - startFrame) * bytesPerFrame])
            do throws(RecorderError) {
                try session.write(slice, startFrame: part.lowerBound, markers: recording.markers, sums: slice.count == bytes.count ? sums : nil) { path, offset in
                    if let finished = session.takeFinished() { events.yield(.fileFinished(finished)) }
                    events.yield(.fileStarted(path: path, atFrame: part.lowerBound + Int64(offset)))
                }
                return true
            } catch {
                finish(error: error)
                written = false
                return false
            }
        }
        return written
    }

}

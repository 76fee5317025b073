// How the recorder's worker ends a recording: it drains what the server captured, cuts, and closes the file.
import Glibc
import Locking

extension Delivery {
    /// Starts or advances a requested stop. Called between buffers, so a stop is carried out even
    /// while buffers keep coming (a handler slower than real time).
    func serviceStop() {
        guard state.session != nil else { return }
        switch state.ending {
        case .none: if control.withLock({ $0.isStopping }) { startDrain() }
        case .draining(let deadline): advanceDrain(deadline: deadline)
        case .cut: break
        }
    }

    /// A stop: ask the server how far it has captured and go on delivering until that has arrived
    /// (at most `drainTimeout`), then cut. Nothing blocks meanwhile.
    func startDrain() {
        if capture.withLock({ capture.requestCapturedPosition($0) }) {
            state.ending = .draining(deadline: monotonicNanoseconds() + Self.drainTimeout)
        } else {
            lastDrain.withLock { $0 = nil }
            cut(at: nil)
        }
    }

    func advanceDrain(deadline: Int64) {
        let status = capture.withLock { capture.drainStatus($0) }
        guard status != nil || monotonicNanoseconds() >= deadline else { return }
        lastDrain.withLock { $0 = status ?? nil }
        cut(at: status ?? nil)
    }

    /// Ends the recording at `frame` (what the server had captured when asked), or, when the server
    /// could not say, at what has arrived by now: takes it from libpulse, hands on the partial buffer.
    func cut(at frame: Int64?) {
        state.ending = .none
        let end = flushAll(upTo: frame)
        if state.session != nil {
            control.withLock { $0.recording?.cut(at: end) }
            state.ending = .cut
        }
        deliverAvailable()
    }

    /// Has the mainloop take from libpulse every frame before `frame` (nil: what has arrived by now)
    /// and hand on the partial buffer, delivering buffers whenever none is free; returns where the
    /// recording may end. Waits for each of the mainloop's answers at most `flushAnswerLimit` (a
    /// mainloop that never answers is a hang, not load), re-checking every 100 ms; past it, or once the
    /// stream is closed, the recording ends with what the buffers hold.
    func flushAll(upTo frame: Int64?) -> Int64 {
        capture.withLock { lock in
            capture.endDrain(lock)
            capture.beginFlush(upTo: frame, lock)
        }
        // The wake-ups this loop takes may have been a request's: the worker's next round looks again.
        defer { worker.wake.post() }
        var asked = monotonicNanoseconds()
        while true {
            switch capture.withLock({ capture.flushAnswer($0) }) {
            case .ended(let end):
                return end
            case .needsBuffer:
                if let index = pool.filled.pop() {
                    deliver(index)
                    release(index)
                    capture.withLock { capture.continueFlush($0) }
                    asked = monotonicNanoseconds()
                    continue
                }
                // Cannot happen (every buffer not being filled is queued): end at what is held.
            case nil:
                let now = monotonicNanoseconds()
                if !capture.isClosed && now - asked < Self.flushAnswerLimit {
                    worker.wake.wait(until: min(asked + Self.flushAnswerLimit, now + 100_000_000))
                    continue
                }
            }
            // Under the lock the mainloop is not in a callback: the partly filled buffer is handed on
            // here (libpulse is not touched), so what it holds is delivered with the rest.
            return capture.withLock { lock in
                capture.cancelFlush(lock)
                capture.handOffPartial(lock)
                return capture.framePosition(lock)
            }
        }
    }

    /// Closes the current file (valid header) and tells whoever waits.
    func finish(error: RecorderError?) {
        guard let session = state.session else { return }
        let recording = control.withLock { $0.recording }
        reportNotices(recording)
        closeLoss(recording)
        state.session = nil
        if case .draining = state.ending { capture.withLock { capture.endDrain($0) } }
        state.ending = .none
        endTake(session)
        // (`endTake` may have moved the trigger's last end; the markers and pauses are as before.)
        session.closeFile(markers: recording?.markers ?? [], last: true)
        session.completeFileSet()
        // A pipe's reader that stalled at the close (a FLAC stream's last block) ends it short: said.
        let error = error ?? session.writer.closeError
        // A sound-activated recording that never took leaves no file (it created the one it had ready).
        let untaken = recording?.isTriggered == true && session.takes.isEmpty
        if untaken { unlink(session.firstPath) }
        var summary = RecordingSummary(path: session.firstPath, files: untaken ? [] : session.files,
                                       fileType: session.writer.fileType, startFrame: session.startFrame,
                                       frameCount: session.frameCount, droppedFrames: session.droppedFrames,
                                       gaps: session.gaps,
                                       pauses: recording.map { $0.isTriggered ? [] : $0.joins(frameCount: session.frameCount,
                                                                                                sampleRate: format.sampleRate) } ?? [],
                                       markers: session.markers, takes: session.takes,
                                       levels: session.totals.levels,
                                       clippedSamples: session.totals.clippedSamples, error: error)
        summary.sources = capture.sourceReports(sampleRate: format.sampleRate)
        summary.fileCount = untaken ? 0 : session.fileCount
        summary.peakFiles = untaken ? [] : session.peakFiles
        summary.peakFailure = session.peakFailure
        if untaken { for path in session.peakFiles { unlink(path) } }
        if !untaken, let finished = session.takeFinished() { events.yield(.fileFinished(finished)) }
        control.change { control in
            control.recording = nil
            control.finishedNumber = session.number
            control.summaries.append((session.number, summary))
            if control.summaries.count > 8 { control.summaries.removeFirst() }
        }
        events.yield(.recordingFinished(summary))
    }
}

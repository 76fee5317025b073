// How the recorder's worker reports what capture lost: drops, gaps and suspensions as events and as the
// recording's gaps, and a lost server or source, waited for or ended with.
import Glibc

extension Delivery {
    /// Turns the capture side's notices into events, and drops and gaps into the recording's gaps (as
    /// `recording`, the control state's, places them). Losses are merged while they continue (one loss,
    /// one event) and reported by `closeLoss`.
    func reportNotices(_ recording: RecordingState?) {
        let several = sourceNames.count > 1
        while let notice = capture.notices.pop() {
            if several, notice.kind != .moved, notice.kind != .suspended {
                openSourceLoss(notice, recording)
                continue
            }
            switch notice.kind {
            case .dropped, .sourceSilent, .slept:
                if let open = state.openLoss, open.kind == notice.kind, open.frame + open.count == notice.frame {
                    state.openLoss?.absorb(notice)
                } else {
                    closeLoss(recording)
                    state.openLoss = notice
                }
            case .gap:
                closeLoss(recording)
                // The gap as the file holds it, from the same pauses as the summary's gap: the part of the
                // time away that fell in a pause is not there (a pause before the outage and still on, or
                // asked while the server was away).
                let inFile = record(notice, reason: .serverLost, in: recording)
                events.yield(.captureResumed(gapFrames: inFile?.frames ?? notice.count, atFrame: notice.frame,
                                             recordingFrame: inFile?.position))
            case .moved:
                let name = capture.withLock { capture.currentSourceName($0) }
                events.yield(.sourceMoved(to: name, atFrame: notice.frame))
            case .suspended:
                if notice.count == 0 { closeLoss(recording) }  // the silence ends where it resumed
                // A suspension stands until the resume: `events()` made meanwhile begins with it.
                let event: RecorderEvent = notice.count != 0 ? .sourceSuspended(atFrame: notice.frame)
                                                             : .sourceResumed(atFrame: notice.frame)
                events.yield(event, standing: notice.count != 0 ? event : nil)
            }
        }
    }

    /// A loss of one source of several: merged with its open loss while it continues, else that one is
    /// reported and this one opened.
    func openSourceLoss(_ notice: CaptureNotice, _ recording: RecordingState?) {
        if let open = state.openSourceLosses[notice.source], open.kind == notice.kind, open.frame + open.count == notice.frame {
            state.openSourceLosses[notice.source]?.absorb(notice)
        } else {
            closeSourceLoss(notice.source, recording)
            state.openSourceLosses[notice.source] = notice
        }
    }

    /// Reports the open loss of one source of several: one `sourceLost` event, one gap naming it.
    func closeSourceLoss(_ source: Int, _ recording: RecordingState?) {
        guard let loss = state.openSourceLosses.removeValue(forKey: source) else { return }
        let reason: RecordingGap.Reason = switch loss.kind {
        case .slept: .systemSleep
        case .sourceSilent: .suspended
        case .gap: .serverLost
        default: .dropped
        }
        let name = sourceNames.indices.contains(source) ? sourceNames[source] : "source \(source + 1)"
        let inFile = record(loss, reason: reason, in: recording, source: name)
        let (count, frame) = inFile.map { ($0.frames, $0.frame) } ?? (loss.count, loss.frame)
        guard count > 0 else { return }
        events.yield(.sourceLost(source: name, frames: count, atFrame: frame, reason: reason, foundLate: loss.foundLate))
    }

    /// Reports the open loss (one event, one gap in the recording), if any. While recording, the
    /// event counts what the file holds of it (a loss that runs past the take's end, or into a pause,
    /// is silence in the file only where the file is); while only metering, all of it.
    func closeLoss(_ recording: RecordingState?) {
        for source in state.openSourceLosses.keys.sorted() { closeSourceLoss(source, recording) }
        guard let loss = state.openLoss else { return }
        state.openLoss = nil
        let reason: RecordingGap.Reason = loss.kind == .slept ? .systemSleep : loss.kind == .sourceSilent ? .suspended : .dropped
        let inFile = record(loss, reason: reason, in: recording)
        let (count, frame) = inFile.map { ($0.frames, $0.frame) } ?? (loss.count, loss.frame)
        guard count > 0 else { return }
        events.yield(reason == .dropped ? .framesDropped(count: count, atFrame: frame, foundLate: loss.foundLate)
                                        : .sourceGap(gapFrames: count, atFrame: frame, reason: reason))
    }

    /// Adds the part of `notice` the file holds to the recording's gaps; returns its length, its
    /// recorder frame and its place in the recording (nil when nothing is being recorded).
    @discardableResult
    func record(_ notice: CaptureNotice, reason: RecordingGap.Reason, in recording: RecordingState?, source: String? = nil)
        -> (frames: Int64, frame: Int64, position: Int64)? {
        guard let session = state.session, let recording else { return nil }
        let loss = recording.lossInFile(at: notice.frame, count: notice.count)
        guard loss.frames > 0 else { return (0, loss.frame, loss.position) }
        session.gaps.append(RecordingGap(startFrame: loss.position, frameCount: loss.frames, reason: reason,
                                         sampleRate: format.sampleRate, source: source, foundLate: notice.foundLate))
        if reason == .dropped { session.droppedFrames += loss.frames }
        return (loss.frames, loss.frame, loss.position)
    }

    /// The stream failed. With a reconnect timeout, start waiting for the server or source; without,
    /// write out what was captured, close the file with the error and report it.
    func captureLost() {
        if let reconnectTimeout {
            let lostAt = capture.detachFailed()
            let frame = capture.withLock { capture.framePosition($0) }
            state.outage = Outage(lostAt: lostAt, deadline: lostAt + Int64(min(reconnectTimeout, 1e9) * 1e9))
            events.yield(.captureInterrupted(RecorderError(.streamFailed,
                "capture from '\(capture.failedSourceName)' was interrupted: the server closed the stream "
                + "(server gone or source removed); waiting up to \(seconds(reconnectTimeout)) s for it to come back"),
                atFrame: frame))
            return
        }
        fail(RecorderError(.streamFailed,
            "capture from '\(capture.failedSourceName)' stopped: the server closed the stream "
            + "(server gone or source removed); check that the server is running"))
    }

    func tryReconnect(_ outage: Outage) {
        do {
            _ = try capture.reconnect(lostAt: outage.lostAt)
            state.outage = nil
            deliverAvailable()
        } catch {
            guard monotonicNanoseconds() >= outage.deadline else { return }
            state.outage = nil
            fail(RecorderError(.streamFailed,
                "capture from '\(capture.failedSourceName)' stopped: the server or source did not come back within "
                + "\(seconds(reconnectTimeout ?? 0)) s (last attempt: \(error.message)); check that the server is running",
                underlying: error.underlyingError))
        }
    }

    /// Writes what was captured before the failure, closes the file with `error`, reports it once.
    func fail(_ error: RecorderError) {
        state.failureReported = true
        _ = flushAll(upTo: nil)
        deliverAvailable()
        if state.session != nil { finish(error: error) }
        events.yield(.captureFailed(error))
    }
}

/// A lost server or source being waited for (CLOCK_MONOTONIC nanoseconds).
struct Outage {
    let lostAt: Int64
    let deadline: Int64
}

// A stop's drain on the record stream (AudioQueueFlush): ask the server how far it has captured, take
// everything up to there from libpulse, and hand on the partly filled buffer.
import CPulse

extension CaptureStream {
    /// A stop's flush: read until the buffers hold every frame before `target`, or libpulse has
    /// nothing more, then hand on the partly filled buffer.
    struct Flush {
        /// Fixed when asked: the frame asked for, or what had arrived by then if later, so a consumer
        /// slower than real time cannot keep it moving.
        let target: Int64
        /// Nil until the mainloop has acted; then where the recording ends, or `.needsBuffer`.
        var answer: FlushAnswer?
    }

    enum FlushAnswer: Equatable {
        /// The recording ends at this frame: the last frame taken, so at or past the target (less only
        /// if the data stops short of it), and where the next recording starts, so none falls between.
        case ended(Int64)
        /// Reading stopped for want of a free buffer: deliver one, then ask again. (A consumer slower
        /// than real time never empties libpulse's queue, so the cut is at a fixed frame, not at
        /// "queue empty".)
        case needsBuffer
    }

    /// Asks the mainloop to flush up to `frame`, or up to all that has arrived by now if that is
    /// later (nil: all that has arrived). The answer comes in `flushAnswer`, with `dataReady` posted.
    /// From the delivery thread.
    func beginFlush(upTo frame: Int64?, _ lock: MainloopLock) {
        flush = Flush(target: max(frame ?? 0, arrivedFrames(lock)), answer: nil)
        wake.request(lock)
    }

    /// Gives up a flush that was asked (the delivery thread waited past its ceiling).
    func cancelFlush(_ lock: MainloopLock) {
        flush = nil
    }

    /// After `.needsBuffer` and a buffer delivered: asks the mainloop to go on, to the same target.
    func continueFlush(_ lock: MainloopLock) {
        flush?.answer = nil
        wake.request(lock)
    }

    /// The answer to `beginFlush`: nil while awaited (or none asked); `.ended` closes the flush.
    func flushAnswer(_ lock: MainloopLock) -> FlushAnswer? {
        let answer = flush?.answer
        if case .ended = answer { flush = nil }
        return answer
    }

    /// The mainloop thread, after reading (`complete`: libpulse had nothing more): answers the flush
    /// asked, if any.
    func answerFlush(complete: Bool) {
        guard var asked = flush, asked.answer == nil else { return }
        notices.release()
        if complete || filler.framePosition >= asked.target {
            filler.handOff()
            asked.answer = .ended(filler.framePosition)
        } else {
            asked.answer = .needsBuffer
        }
        flush = asked
        dataReady.post()
    }

    /// The timeline frame up to which data has arrived here: taken into buffers or waiting in
    /// libpulse's queue.
    func arrivedFrames(_ lock: MainloopLock) -> Int64 {
        let queued = link.map { Int64(pa_stream_readable_size($0.stream)) - Int64(fragmentOffset) } ?? 0
        return (Int64(filler.timelineFrames) * Int64(format.bytesPerFrame) + queued) / Int64(format.bytesPerFrame)
    }

    /// Asks the server how much it has captured for this stream; the answer comes back on the
    /// mainloop thread, which posts `dataReady`, and `drainStatus()` tells when it has all arrived.
    /// Nothing waits here. Returns false when there is no stream to ask.
    func requestCapturedPosition(_ lock: MainloopLock) -> Bool {
        endDrain(lock)
        guard let link, PA_STREAM_IS_GOOD(pa_stream_get_state(link.stream)) != 0 else { return false }
        guard let operation = pa_stream_update_timing_info(link.stream, { stream, success, userdata in
            CaptureStream.from(userdata)?.timingAnswered(stream, success: success != 0)
        }, userdata) else { return false }
        timingOperation = operation
        capturedAnswer = .none
        drainWaiting = true
        return true
    }

    /// On the mainloop thread, lock held: keeps the server's write index for this stream.
    func timingAnswered(_ stream: OpaquePointer?, success: Bool) {
        guard drainWaiting, let link, link.stream == stream else { return }
        if success, let info = pa_stream_get_timing_info(stream)?.pointee, info.write_index_corrupt == 0 {
            capturedAnswer = .some(link.baseBytes + info.write_index + watch.silenceOutsideIndices)
        } else {
            capturedAnswer = .some(nil)
        }
        dataReady.post()
    }

    /// Where the drain stands: nil while the server's answer or its data is still on the way; else
    /// the timeline frame up to which the server had captured when asked (`.some(nil)`: it could not
    /// say, or the stream is gone).
    func drainStatus(_ lock: MainloopLock) -> Int64?? {
        guard link != nil, !failed.load(ordering: .acquiring) else { return .some(nil) }
        guard case .some(let answer) = capturedAnswer else { return nil }
        guard let target = answer else { return .some(nil) }
        let frame = target / Int64(format.bytesPerFrame)
        return arrivedFrames(lock) >= frame ? .some(frame) : nil
    }

    /// Ends a drain: the read callback stops waking the delivery thread at every read, and the timing
    /// request is cancelled if still out.
    func endDrain(_ lock: MainloopLock) {
        drainWaiting = false
        capturedAnswer = nil
        PulseConnection.cancel(&timingOperation, lock)
    }
}

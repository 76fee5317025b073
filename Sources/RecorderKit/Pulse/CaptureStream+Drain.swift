// A stop's drain on the record stream (AudioQueueFlush): ask the server how far it has captured, take
// everything up to there from libpulse, and hand on the partly filled buffer.
import CPulse

extension CaptureStream {
    /// Reads what libpulse holds for us until the buffers hold every frame before `frame` (or
    /// libpulse has nothing more), then hands on the partly filled buffer and returns where the
    /// recording ends: at the last frame taken, so at or past `frame` (less only if the data stops
    /// short of it), and where the next recording starts, so none falls between. Returns nil when it stopped
    /// for want of a free buffer (deliver one, then call again): a consumer slower than real time
    /// never empties libpulse's queue, so the cut is at a fixed frame, not at "queue empty". From a
    /// thread that is not the mainloop's.
    func flush(upTo frame: Int64, _ lock: MainloopLock) -> Int64? {
        let complete = link.map { readAvailable($0.stream) } ?? filler.writeOwedSilence()
        notices.release()
        guard complete || filler.framePosition >= frame else { return nil }
        filler.handOff()
        return filler.framePosition
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

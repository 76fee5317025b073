// A stop on a several-source take: every source drains what the server captured for it, and the take ends where
// all of them have arrived.
import CPulse

extension SourceGroup {
    /// Asks the server how far it has captured for every source. False if one cannot be asked.
    func requestCapturedPosition(_ lock: MainloopLock) -> Bool {
        var asked = true
        for lane in lanes where !lane.capture.requestCapturedPosition(lock) { asked = false }
        return asked
    }

    /// Nil while any source's answer or data is on the way; else the take frame up to which every source
    /// had captured (`.some(nil)`: one could not say).
    func drainStatus(_ lock: MainloopLock) -> Int64?? {
        var end = Int64.max
        for lane in lanes {
            guard let status = lane.capture.drainStatus(lock) else { return nil }
            guard let frame = status else { return .some(nil) }
            end = min(end, takeFrame(of: Double(frame), in: lane))
        }
        return .some(end)
    }

    func endDrain(_ lock: MainloopLock) {
        for lane in lanes { lane.capture.endDrain(lock) }
    }

    /// Asks the mainloop to join every frame all sources have, up to `frame` (nil: all that has arrived).
    func beginFlush(upTo frame: Int64?, _ lock: MainloopLock) {
        flush = CaptureStream.Flush(target: frame ?? Int64.max, answer: nil)
        wake.request(lock)
    }

    func cancelFlush(_ lock: MainloopLock) { flush = nil }

    func continueFlush(_ lock: MainloopLock) {
        flush?.answer = nil
        wake.request(lock)
    }

    func flushAnswer(_ lock: MainloopLock) -> CaptureStream.FlushAnswer? {
        let answer = flush?.answer
        if case .ended = answer { flush = nil }
        return answer
    }

    /// After a flush's joining: the take ends here once it reached the target or can go no further for
    /// want of a source's frames; it needs a buffer if it stopped for want of one.
    func answerFlush() {
        guard var asked = flush, asked.answer == nil else { return }
        notices.release()
        if filler.framePosition < asked.target, stalled.load(ordering: .acquiring), pool.free.isEmptyForConsumer {
            asked.answer = .needsBuffer
        } else {
            filler.handOff()
            asked.answer = .ended(filler.framePosition)
        }
        flush = asked
        dataReady.post()
    }
}

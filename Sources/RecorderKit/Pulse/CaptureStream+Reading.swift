// How the record stream's read callback takes libpulse's fragments into the rotating buffers: never
// blocking, leaving data queued while no buffer is free, dropping (counted and placed) only at the queue's
// limit, and placing the losses the server watch finds.
import CPulse
import Synchronization

extension CaptureStream {
    /// Called by the consumer after it freed a buffer, if `stalled` was set: has the mainloop read on.
    func resume() {
        withLock { wake.request($0) }
    }

    /// The mainloop thread, lock held (`wake`'s callback): reads on, or writes the silence owed while
    /// there is no stream; then answers a stop's flush, if one was asked.
    func readRequested() {
        guard !closed.load(ordering: .acquiring) else { return }
        let complete = link.map { readAvailable($0.stream) } ?? filler.writeOwedSilence()
        answerFlush(complete: complete)
        listener?.captureDidRead(self)
    }

    /// Takes fragments until libpulse has nothing readable or no buffer is free (returns false then).
    /// A hole (nil data) becomes silence of its length and is counted as dropped. When stalled with
    /// libpulse's queue near its limit, drops the oldest fragment (counted, silence owed).
    @discardableResult
    func readAvailable(_ stream: OpaquePointer) -> Bool {
        guard !closed.load(ordering: .acquiring) else { return true }
        while true {
            if readWhileBuffersAreFree(stream) {
                stalled.store(false, ordering: .releasing)
                return true
            }
            // No free buffer. Announce the stall, then look again: the consumer frees a buffer and then
            // looks at `stalled` (with the same fences), so one of the two sides sees the other and a
            // freed buffer is never missed (the consumer resumes us, or we read on here).
            stalled.store(true, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if pool.free.isEmptyForConsumer { return stall(stream) }
        }
    }

    /// Takes fragments while buffers are free; false when it stopped for want of one.
    func readWhileBuffersAreFree(_ stream: OpaquePointer) -> Bool {
        insertDueLoss()
        guard filler.writeOwedSilence() else { return false }
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0 else {
                failed.store(true, ordering: .releasing)
                dataReady.post()
                return true
            }
            if length == 0 { break }
            insertDueLoss()
            if watch.isHolding(at: consumedBytes + Int64(fragmentOffset)) { return true }
            // Up to a loss found inside this fragment, if any: the loop inserts it and goes on.
            let wanted = min(length - fragmentOffset, watch.bytesUntilLoss(from: consumedBytes + Int64(fragmentOffset)))
            let start = data.map { $0 + fragmentOffset }
            let taken = filler.append(start, wanted)
            fragmentOffset += taken
            guard taken == wanted else { return false }
            if fragmentOffset < length { continue }
            fragmentOffset = 0
            consumedBytes += Int64(length)
            pa_stream_drop(stream)
        }
        return true
    }

    /// Inserts the silence of a loss the watch placed at or before where reading stands.
    func insertDueLoss() {
        while let loss = watch.takeLoss(at: consumedBytes + Int64(fragmentOffset)) {
            let frames = loss.bytes / Int64(format.bytesPerFrame)
            switch loss.kind {
            case .dropped:
                filler.drop(Int(loss.bytes), estimated: loss.estimated, foundLate: loss.foundLateBy / Int64(format.bytesPerFrame))
            default: filler.insertGap(frames: frames, kind: loss.kind, estimated: loss.estimated)
            }
            dataReady.post()
        }
    }

    /// No free buffer: leave data queued, unless the queue is about to overflow; then drop from its head
    /// down to `dropLowWater`, counted as one loss. (Dropping only what just overflowed would lose the
    /// same audio one fragment at a time: with a source that sends a few milliseconds per fragment, a
    /// pipe or PipeWire's small quanta, a stall of seconds became thousands of losses, each a notice,
    /// an event and a marker, and the work they made kept the take behind.)
    func stall(_ stream: OpaquePointer) -> Bool {
        guard pa_stream_readable_size(stream) >= dropThreshold else { return false }
        var lost = 0
        while pa_stream_readable_size(stream) > dropLowWater {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0, length > 0 else { break }
            lost += length - fragmentOffset
            fragmentOffset = 0
            consumedBytes += Int64(length)
            pa_stream_drop(stream)
            // A loss the watch placed here goes after what was dropped before it, in stream order.
            if watch.bytesUntilLoss(from: consumedBytes) == 0 {
                filler.drop(lost)
                lost = 0
                insertDueLoss()
            }
        }
        filler.drop(lost)
        return false
    }
}

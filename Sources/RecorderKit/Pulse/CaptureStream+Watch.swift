// The record stream's watch on the server's clock: a mainloop timer asks for the stream's timing, and the
// answer is compared with what arrived (see `ServerWatch`).
import CPulse

extension CaptureStream {
    /// Starts the watch timer on the mainloop, once.
    func startWatchTimer(_ lock: MainloopLock) {
        watchTimer = pa_context_rttime_new(connection.context, pa_rtclock_now() + ServerWatch.intervalMicroseconds,
                                           { _, event, _, userdata in
            if let event { CaptureStream.from(userdata)?.watchTick(event) }
        }, userdata)
    }

    /// On the mainloop thread: asks the server for its timing (unless a request is out) and sets the
    /// next tick.
    func watchTick(_ event: OpaquePointer) {
        guard !closed.load(ordering: .acquiring) else { return }
        notices.release()
        let now = monotonicNanoseconds()
        let received = max(0, Int64(link.map { pa_stream_readable_size($0.stream) } ?? 0))  // -1: not ready
        watch.ticked(at: now, tail: consumedBytes + received)
        if let operation = watchOperation, pa_operation_get_state(operation) != PA_OPERATION_RUNNING {
            pa_operation_unref(operation)
            watchOperation = nil
        }
        if watchOperation == nil, let link, pa_stream_get_state(link.stream) == PA_STREAM_READY {
            watch.asking(at: now, boot: bootNanoseconds())
            watchOperation = pa_stream_update_timing_info(link.stream, { stream, success, userdata in
                if let stream { CaptureStream.from(userdata)?.watchAnswered(stream, success: success != 0) }
            }, userdata)
        }
        pa_context_rttime_restart(connection.context, event, pa_rtclock_now() + watch.nextTickMicroseconds)
    }

    /// Cancels the watch's timing request, if one is out.
    func cancelWatchRequest(_ lock: MainloopLock) {
        if resumeToReport {  // its answer will not come: report the resume now
            resumeToReport = false
            notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: 0))
            dataReady.post()
        }
        PulseConnection.cancel(&watchOperation, lock)
    }

    /// On the mainloop thread, lock held: compares the server's account with what arrived, and places
    /// any loss it shows.
    func watchAnswered(_ stream: OpaquePointer, success: Bool) {
        guard !closed.load(ordering: .acquiring), let link, link.stream == stream else { return }
        var found = false
        if success, let info = pa_stream_get_timing_info(stream)?.pointee,
           info.write_index_corrupt == 0, info.read_index_corrupt == 0 {
            sourceLatency.store(Int64(clamping: info.source_usec), ordering: .relaxed)
            found = watch.answered(writeIndex: info.write_index, readIndex: info.read_index,
                                   sourceMicroseconds: Int64(clamping: info.source_usec),
                                   consumed: consumedBytes, queued: Int64(pa_stream_readable_size(stream)),
                                   reading: consumedBytes + Int64(fragmentOffset), suspended: pa_stream_is_suspended(stream) > 0,
                                   serverTime: monotonicNanoseconds() - Int64(clamping: info.transport_usec) * 1_000)
        } else {
            watch.answerFailed()  // nothing to place: reading must not wait for it
        }
        // Reading may have waited at the watch's hold, or a loss is due now.
        readAvailable(stream)
        // Reported whatever the answer: a `resumed` that never comes would leave a waiter waiting.
        if resumeToReport {
            resumeToReport = false
            notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: 0))
            found = true
        }
        if found { dataReady.post() }
        listener?.captureDidRead(self)
    }
}

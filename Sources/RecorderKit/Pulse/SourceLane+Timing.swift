// A source's timing answers for a several-source take: where the server says its capture stands.
import CPulse

extension SourceLane {
    /// Asks the server where this source's capture stands (the answer goes to `timingAnswered`).
    func requestTiming(round: Int, _ lock: MainloopLock) {
        PulseConnection.cancel(&timingOperation, lock)
        guard let link = capture.link, pa_stream_get_state(link.stream) == PA_STREAM_READY else { return }
        timingOperation = pa_stream_update_timing_info(link.stream, { stream, success, userdata in
            SourceLane.from(userdata)?.timingAnswered(stream, success: success != 0)
        }, userdata)
        pendingRound = round
    }

    /// The server's answer: the frames captured by its moment are what it wrote to the stream, the
    /// silence placed outside its indices, and what the source holds not yet written (its latency).
    func timingAnswered(_ stream: OpaquePointer?, success: Bool) {
        if let operation = timingOperation {
            pa_operation_unref(operation)
            timingOperation = nil
        }
        guard success, let link = capture.link, link.stream == stream,
              let info = pa_stream_get_timing_info(stream)?.pointee, info.write_index_corrupt == 0 else { return }
        let silence = capture.watch.silenceOutsideIndices
        if silence != countedSilence {
            countedSilence = silence
            steppedAtRound = pendingRound
        }
        let written = Double(link.baseBytes + info.write_index + silence) / Double(format.bytesPerFrame)
        // A source's latency is audio captured and not yet written (ahead of the index); a monitor's sink
        // latency, audio written and not yet played (behind it): a monitor captures a sound when it plays.
        let held = (Double(info.source_usec) - Double(info.sink_usec)) * Double(format.sampleRate) / 1e6
        let time = Int64(info.timestamp.tv_sec) * 1_000_000_000 + Int64(info.timestamp.tv_usec) * 1_000
        observation = (pendingRound, time, written + held, info.write_index > 0)
        group?.laneAnswered(self)
    }

    /// Stops the timing request, if one is out. Lock held.
    func cancelTiming(_ lock: MainloopLock) { PulseConnection.cancel(&timingOperation, lock) }
}

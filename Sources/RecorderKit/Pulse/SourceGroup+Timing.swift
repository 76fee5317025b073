// A several-source take's timing rounds: a mainloop timer that asks every source where its capture stands.
import CPulse

extension SourceGroup {
    /// Starts the rounds (the first in 20 ms). Lock held.
    func startTimer(_ lock: MainloopLock) {
        timer = pa_context_rttime_new(connection.context, pa_rtclock_now() + 20_000, { _, event, _, userdata in
            if let event { SourceGroup.from(userdata)?.tick(event) }
        }, userdata)
    }

    /// Frees the timer: no round runs after this. Lock held.
    func stopTimer(_ lock: MainloopLock) {
        if let timer, let api = pa_threaded_mainloop_get_api(connection.mainloop) {
            api.pointee.time_free(timer)
            self.timer = nil
        }
    }

    /// Microseconds between rounds: ten a second for as long as the take lasts (each answer scatters by
    /// when the server's threads ran; the drift's precision grows with their number, see `LaneClock`).
    static let roundInterval: UInt64 = 100_000

    /// A timing round: completes the last (with the answers it got) and asks every source at once.
    func tick(_ event: OpaquePointer) {
        guard !closed.load(ordering: .acquiring) else { return }
        let lock = MainloopLock.inCallback
        // Half a second late or more: this process stood still (stopped, swapped, starved), and every
        // source may have lost audio the server could not hold. The answers out straddle the stall.
        let now = monotonicNanoseconds()
        if lastTick > 0, now - lastTick > Int64(Self.roundInterval) * 1_000 + 500_000_000 { stoodStill() }
        lastTick = now
        completeRound()
        round += 1
        for lane in lanes { lane.requestTiming(round: round, lock) }
        pa_context_rttime_restart(connection.context, event, pa_rtclock_now() + Self.roundInterval)
    }

}

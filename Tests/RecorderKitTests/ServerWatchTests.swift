// The watch's account of a stall (ServerWatch): the wake is where the process stood still longer than the
// server's queue holds, and a busy machine's late tick after it does not move it.
@testable import RecorderKit
import Testing

struct ServerWatchTests {
    static let second: Int64 = 1_000_000_000

    /// 8 kHz mono, 16-bit (16 000 bytes a second), a 2 s queue (32 000 bytes). Stopped from 2 s to 10.6 s:
    /// the server's queue filled at stream byte 65 000 (the 33 000 received, and a whole queue), and it
    /// refused data until the wake. A tick 0.9 s late soon after (a loaded machine) is no stall of its own:
    /// reading still stops where the queue filled, and the answer at 11.55 s places the silence there,
    /// the data taken since the wake (0.95 s, 15 200 bytes) after it.
    @Test func aLateTickAfterTheWakeDoesNotMoveIt() throws {
        let format = try StreamFormat(sampleRate: 8_000)
        var watch = ServerWatch(format: format, fragmentBytes: 320)
        watch.restart(maxQueueBytes: 32_000)
        watch.ticked(at: 1 * Self.second, tail: 16_000)
        watch.asking(at: 1 * Self.second, boot: 1 * Self.second)
        _ = watch.answered(writeIndex: 16_000, readIndex: 16_000, sourceMicroseconds: 0, consumed: 16_000, queued: 0,
                           reading: 16_000, suspended: false)
        watch.ticked(at: 2 * Self.second, tail: 32_000)
        // The wake: reading stops where the queue must have filled (less two fragments).
        watch.ticked(at: 10_600_000_000, tail: 33_000)
        #expect(watch.bytesUntilLoss(from: 0) == 33_000 + 32_000 - 640)
        // 0.9 s late, the wake's answer not come yet: nothing moves.
        watch.ticked(at: 11_520_000_000, tail: 60_000)
        #expect(watch.bytesUntilLoss(from: 0) == 33_000 + 32_000 - 640, "the hold moved with a late tick")
        watch.asking(at: 11_550_000_000, boot: 11_550_000_000)
        let placed = watch.answered(writeIndex: 80_200, readIndex: 64_360, sourceMicroseconds: 0, consumed: 64_360,
                                    queued: 15_840, reading: 64_360, suspended: false)
        #expect(placed)
        let taken = watch.takeLoss(at: .max)
        let loss = try #require(taken)
        #expect(loss.position == 65_000 && loss.kind == .dropped, "\(loss)")
    }
}

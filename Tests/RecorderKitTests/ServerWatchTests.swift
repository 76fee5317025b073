// The watch's account of a stall (ServerWatch): the wake is where the process stood still longer than the
// server's queue holds, and a busy machine's late tick after it does not move it; a shortfall with no cause
// seen is a loss once it has stood for four seconds, and none when it catches up.
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

    /// Answers once a second at 8 kHz mono (16 000 bytes a second), the stream read as it comes; from 6 s
    /// the server's write index stands `short(t)` bytes behind the clock, with no cause the watch can see
    /// (the queue never full, the timer on time). Returns what each answer placed, by second.
    static func answers(until last: Int, short: (Int) -> Int64) throws -> (watch: ServerWatch, placed: [Int: ServerWatch.Loss], doubt: [Int: Bool]) {
        var watch = ServerWatch(format: try StreamFormat(sampleRate: 8_000), fragmentBytes: 320)
        watch.restart(maxQueueBytes: 32_000)
        var placed: [Int: ServerWatch.Loss] = [:], doubt: [Int: Bool] = [:]
        for t in 1...last {
            let written = Int64(t) * 16_000 - short(t)
            watch.asking(at: Int64(t) * second, boot: Int64(t) * second)
            if watch.answered(writeIndex: written, readIndex: written, sourceMicroseconds: 0, consumed: written, queued: 0,
                              reading: written, suspended: false) {
                placed[t] = watch.takeLoss(at: .max)
            }
            doubt[t] = watch.countInDoubt
        }
        return (watch, placed, doubt)
    }

    /// 8 192 bytes (4 096 frames, past the 2 000-frame threshold) never came from 6 s on: in doubt from the
    /// answer that shows it, counted at the one four seconds later (10 s), its silence where reading stands
    /// then (151 808), found late by what was read since the answer before it showed (80 000 then).
    @Test func aShortfallThatNeverCatchesUpIsALossFoundLate() throws {
        let (_, placed, doubt) = try Self.answers(until: 14) { $0 >= 6 ? 8_192 : 0 }
        #expect(doubt[5] == false && doubt[6] == true && doubt[9] == true && doubt[10] == false, "\(doubt)")
        #expect(placed.keys.sorted() == [10], "\(placed)")
        let loss = try #require(placed[10])
        #expect(loss.bytes == 8_192 && loss.kind == .dropped && loss.estimated, "\(loss)")
        #expect(loss.position == 160_000 - 8_192 && loss.foundLateBy == 160_000 - 8_192 - 80_000, "\(loss)")
    }

    /// A source that delivers two seconds late in a block (6 and 7 s short, 8 s caught up): late audio, no
    /// loss, and the doubt ends with it.
    @Test func aShortfallThatCatchesUpIsNoLoss() throws {
        let (_, placed, doubt) = try Self.answers(until: 14) { $0 == 6 || $0 == 7 ? 8_192 : 0 }
        #expect(placed.isEmpty, "\(placed)")
        #expect(doubt[7] == true && doubt[8] == false, "\(doubt)")
    }

    /// A shortfall in doubt (8 192 bytes from 6 s), then a loss with a cause (the server's queue full at the
    /// answer at 8 s, 16 000 bytes more refused): one loss of both, counted at once, the doubt ended.
    @Test func aLossWithACauseDuringADoubtTakesTheDoubtsFramesWithIt() throws {
        var watch = ServerWatch(format: try StreamFormat(sampleRate: 8_000), fragmentBytes: 320)
        watch.restart(maxQueueBytes: 32_000)
        var placed: [ServerWatch.Loss] = []
        // Followed every 20 ms while in doubt: answers at 6 s, then 6.02 … 7.98 s, then 8 s with the queue full.
        var times: [Int64] = (1...5).map { Int64($0) * Self.second }
        times += (0..<100).map { 6 * Self.second + Int64($0) * 20_000_000 }
        for time in times + [8 * Self.second] {
            let full = time == 8 * Self.second
            let written = time * 16_000 / Self.second - (time >= 6 * Self.second ? 8_192 : 0) - (full ? 16_000 : 0)
            let held: Int64 = full ? 32_000 : 0
            watch.asking(at: time, boot: time)
            if watch.answered(writeIndex: written, readIndex: written - held, sourceMicroseconds: 0, consumed: written - held,
                              queued: 0, reading: written - held, suspended: false),
               let loss = watch.takeLoss(at: .max) {
                placed.append(loss)
            }
        }
        #expect(placed.count == 1 && placed.first?.bytes == 8_192 + 16_000 && placed.first?.foundLateBy == 0, "\(placed)")
        #expect(!watch.countInDoubt)
    }
}

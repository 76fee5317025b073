// The frame captured at a moment, reckoned from arrivals (ArrivalLine): late callbacks move nothing, a
// shifted timeline is followed, and the reckoning is the most prompt arrival's.
@testable import RecorderKit
import Testing

struct ArrivalLineTests {
    static let rate = 48_000
    static let millisecond: Int64 = 1_000_000

    /// Fragments of 10 ms arriving 2 ms after their last frame, every fifth one 150 ms late (a loaded
    /// machine): the frame captured at a moment is reckoned from the prompt ones, within a frame.
    @Test func lateArrivalsMoveNothing() {
        var line = ArrivalLine(sampleRate: Self.rate)
        let start: Int64 = 5_000 * Self.millisecond
        for fragment in 1...1_000 {
            let captured = start + Int64(fragment) * 10 * Self.millisecond
            let late = fragment % 5 == 0 ? 150 * Self.millisecond : 2 * Self.millisecond
            line.arrived(frame: Int64(fragment) * 480, at: captured + late)
        }
        // Frame 480 000 was captured at start + 10 s; reckoned 2 ms later (the prompt arrivals' latency).
        let reckoned = line.frame(at: start + 10_000 * Self.millisecond)
        #expect(reckoned.map { abs($0 - (480_000 - 96)) <= 1 } == true, "\(String(describing: reckoned))")
        // A last arrival that came late alone would have put it 150 ms (7 200 frames) early.
    }

    /// Silence placed for a loss shifts the timeline forward (more frames for the same time): followed at
    /// once. A timeline shifted back is followed once the window has passed.
    @Test func aShiftedTimelineIsFollowed() {
        var line = ArrivalLine(sampleRate: Self.rate)
        for fragment in 1...300 {
            line.arrived(frame: Int64(fragment) * 480, at: Int64(fragment) * 10 * Self.millisecond)
        }
        // 4 800 frames (100 ms) of silence placed: the frames after it stand 4 800 further on.
        for fragment in 301...320 {
            line.arrived(frame: Int64(fragment) * 480 + 4_800, at: Int64(fragment) * 10 * Self.millisecond)
        }
        #expect(line.frame(at: 3_200 * Self.millisecond) == Int64(153_600 + 4_800))
        // Back by 9 600 frames: the earlier line holds for the window, then the new one.
        var back = line
        for fragment in 321...1_400 {
            back.arrived(frame: Int64(fragment) * 480 - 4_800, at: Int64(fragment) * 10 * Self.millisecond)
        }
        #expect(back.frame(at: 14_000 * Self.millisecond) == Int64(672_000 - 4_800))
    }

    @Test func beforeAnyArrivalThereIsNoReckoningAndAfterSilenceTheNewestHolds() {
        var line = ArrivalLine(sampleRate: Self.rate)
        #expect(line.frame(at: 1_000) == nil)
        line.arrived(frame: 48_000, at: 1_000 * Self.millisecond)
        // Nothing for a minute (a suspended source): the last arrival still places the frame.
        #expect(line.frame(at: 61_000 * Self.millisecond) == Int64(48_000 + 60 * 48_000))
        // Any time at all is answered, never a trap.
        #expect(line.frame(at: .max).map { $0 > 400_000_000_000_000 } == true && line.frame(at: .min).map { $0 < -400_000_000_000_000 } == true)
        #expect(line.frame(at: 0) == Int64(0))
    }
}

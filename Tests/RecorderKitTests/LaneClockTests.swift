// The drift line of a several-source take (LaneClock): its slope from scattered answers, a loss's step
// kept out of the slope, and precision after months of frames.
@testable import RecorderKit
import Testing

struct LaneClockTests {
    /// A reproducible scatter: uniform in ±`amplitude` (a linear congruential generator).
    struct Scatter {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next(_ amplitude: Double) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * amplitude
        }
    }

    /// Ten answers a second at 48 kHz for `seconds`, a source `ppm` fast, each answer scattered by up to
    /// `jitter` frames; `step` frames added to every answer after `stepAt` seconds, with or without
    /// `breakLine` at that moment.
    func clock(ppm: Double, seconds: Int, jitter: Double, base: Double = 0, step: Double = 0, stepAt: Int? = nil,
               breaking: Bool = true) -> LaneClock {
        var clock = LaneClock(minimumSpread: 10 * 48_000)
        var scatter = Scatter()
        let stepRound = stepAt.map { $0 * 10 } ?? Int.max
        for round in 0..<(seconds * 10) {
            if round == stepRound, breaking { clock.breakLine() }
            let reference = base + Double(round) * 4_800
            let difference = ppm * 1e-6 * (reference - base) + 7 + (round >= stepRound ? step : 0) + scatter.next(jitter)
            clock.add(reference: reference, difference: difference)
        }
        return clock
    }

    @Test func aScatteredLineGivesItsSlopeWithinAPPM() {
        // ±96 frames is ±2 ms at 48 kHz, a loaded machine's scatter; two minutes of answers.
        let fitted = clock(ppm: 200, seconds: 120, jitter: 96)
        #expect(abs(fitted.ppm - 200) < 1, "\(fitted.ppm)")
        // The level where the last answer stood (7 frames, plus two minutes at 200 ppm).
        let last = 1_199.0 * 4_800
        #expect(abs(fitted.difference(at: last) - (7 + 200e-6 * last)) < 10)
    }

    @Test func noSlopeIsClaimedBeforeTenSecondsOfAudio() {
        #expect(clock(ppm: 300, seconds: 9, jitter: 0).ppm == 0)
        #expect(abs(clock(ppm: 300, seconds: 11, jitter: 0).ppm - 300) < 1e-6)
    }

    @Test func aLossStepsTheLevelNotTheSlope() {
        // 240 frames (5 ms) that a loss left unaccounted, a minute in.
        let broken = clock(ppm: -300, seconds: 120, jitter: 24, step: 240, stepAt: 60)
        #expect(abs(broken.ppm + 300) < 1, "\(broken.ppm)")
        let last = 1_199.0 * 4_800
        #expect(abs(broken.difference(at: last) - (7 + 240 - 300e-6 * last)) < 4)
        // The same answers without the break: the step is read as drift, some 40 ppm of it.
        let unbroken = clock(ppm: -300, seconds: 120, jitter: 24, step: 240, stepAt: 60, breaking: false)
        #expect(abs(unbroken.ppm + 300) > 20, "\(unbroken.ppm)")
    }

    @Test func afterALossTheLevelIsTheMedianOfTheAnswersSinceThenTheLine() {
        var clock = clock(ppm: 0, seconds: 30, jitter: 0)
        #expect(clock.isSettled)
        clock.breakLine()
        #expect(!clock.isSettled && clock.answersSinceBreak == 0)
        // The five answers after the loss are left out, however far off they are.
        for round in 0..<5 { clock.add(reference: Double(300 + round) * 4_800, difference: 5_000) }
        #expect(clock.count == 300 && clock.answersSinceBreak == 0 && clock.difference(at: 310 * 4_800) == 7)
        // The next twenty place the level (their median, once five have come, one of them far off) and
        // stay out of the line: the slope stays 0 though they lean by 1 000 ppm.
        for round in 0..<4 { clock.add(reference: Double(305 + round) * 4_800, difference: 507 + Double(round) * 4.8) }
        #expect(clock.difference(at: 310 * 4_800) == 7, "the level before the loss, until five answers have come")
        clock.add(reference: 309 * 4_800, difference: 900)
        #expect(abs(clock.difference(at: 310 * 4_800) - 516.6) < 0.01, "\(clock.difference(at: 310 * 4_800))")
        for round in 10..<20 { clock.add(reference: Double(300 + round) * 4_800, difference: 507 + Double(round - 5) * 4.8) }
        #expect(clock.ppm == 0 && !clock.isSettled && clock.answersSinceBreak == 15)
        // Then the line's own: eight answers of the new stretch settle it.
        for round in 25..<37 { clock.add(reference: Double(300 + round) * 4_800, difference: 600) }
        #expect(!clock.isSettled, "the last five level-only answers and seven of the line's")
        clock.add(reference: 337 * 4_800, difference: 600)
        #expect(clock.isSettled && clock.difference(at: 350 * 4_800) == 600 && clock.ppm == 0)
    }

    @Test func monthsOfFramesLoseNoPrecision() {
        // Ninety days at 48 kHz before the window: 3.7 × 10^11 frames.
        let late = clock(ppm: 200, seconds: 120, jitter: 0, base: 90 * 86_400 * 48_000)
        #expect(abs(late.ppm - 200) < 0.01, "\(late.ppm)")
    }

    @Test func theWindowForgetsTheOldestAnswers() {
        // Eleven minutes: the window holds the last ten; a minute of +500 ppm before them is forgotten.
        var clock = LaneClock(minimumSpread: 10 * 48_000)
        for round in 0..<6_600 {
            let reference = Double(round) * 4_800
            let difference = round < 600 ? 500e-6 * reference : 500e-6 * 600 * 4_800 + 100e-6 * (reference - 600 * 4_800)
            clock.add(reference: reference, difference: difference)
        }
        #expect(abs(clock.ppm - 100) < 1e-6, "\(clock.ppm)")
        #expect(clock.count == 6_000)
    }

    /// A source is placed by the median of its first answers: one answer 10 ms late among eight (a loaded
    /// machine) leaves the place within the others' scatter, where their mean would be 1.25 ms off; after
    /// a loss only the new stretch's answers count.
    @Test func onePlaceIsTheMedianOfTheAnswersNotTheirMean() {
        // (No answers left out after the loss here: what is tested is how the ones kept are combined.)
        var clock = LaneClock(minimumSpread: 10 * 44_100, leftOutAfterLoss: 0)
        var scatter = Scatter()
        for round in 0..<8 {
            clock.add(reference: Double(round) * 4_410, difference: 7 + (round == 3 ? 441 : scatter.next(4)))
        }
        let place = clock.placingDifference
        #expect(abs(place - 7) <= 4, "\(place)")
        #expect(abs(clock.difference(at: 3 * 4_410) - 7) > 44, "the mean the median replaces is more than 1 ms off")
        clock.breakLine()
        for round in 8..<12 { clock.add(reference: Double(round) * 4_410, difference: 500 + scatter.next(4)) }
        #expect(abs(clock.placingDifference - 500) <= 4, "\(clock.placingDifference)")
        for round in 12..<40 { clock.add(reference: Double(round) * 4_410, difference: 500 + (round % 5 == 0 ? -300 : 0)) }
        #expect(clock.placingDifference == 500, "the newest fifteen, three of them early")
    }

    /// Answers that came late on a loaded machine are left out of the line: forty seconds of answers
    /// (48 kHz, ±0.25 ms of scatter) from a source 200 ppm fast, the last eight of them 10 ms late (one
    /// side). A least-squares line through them all reads the slope more than 3 ppm from the line through
    /// the others; the clock's within a twentieth of a ppm of it. Answers that all agree within the floor
    /// leave nothing out (the exact slope).
    @Test func lateAnswersAreLeftOutOfTheLine() {
        var clock = LaneClock(minimumSpread: 10 * 48_000, scatterFloor: 12)
        var scatter = Scatter()
        var points: [(x: Double, y: Double, late: Bool)] = []
        for round in 0..<400 {
            let reference = Double(round) * 4_800
            let late = round >= 392
            let difference = 200e-6 * reference + 7 + scatter.next(12) - (late ? 480 : 0)
            clock.add(reference: reference, difference: difference)
            points.append((reference, difference, late))
        }
        func slope(_ points: [(x: Double, y: Double, late: Bool)]) -> Double {
            let meanX = points.map(\.x).reduce(0, +) / Double(points.count), meanY = points.map(\.y).reduce(0, +) / Double(points.count)
            return points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +) * 1e6
        }
        let all = slope(points), onTime = slope(points.filter { !$0.late })
        #expect(abs(all - onTime) > 3, "the late answers move a plain line: \(all) against \(onTime) ppm")
        #expect(abs(clock.ppm - onTime) < 0.05, "\(clock.ppm) against \(onTime) ppm")
        let exact = self.clock(ppm: 150, seconds: 40, jitter: 0)
        #expect(abs(exact.ppm - 150) < 1e-6, "\(exact.ppm)")
    }
}

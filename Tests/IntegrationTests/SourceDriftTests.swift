// Two sources whose clocks drift apart, recorded as one take for ten minutes of audio: corrected, their clicks
// stay within 1.5 ms; uncorrected, they part by what the clocks say.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Each case feeds two `module-pipe-source`s from one writer: the first at 8 kHz, the second at its
/// clock's rate (+200 or −300 ppm), a click every second of each clock's own time, ten minutes of audio
/// written eight times faster than real time (the pipe source posts at its writer's pace), at 8 kHz.
@Suite(.timeLimit(.minutes(5)))
struct SourceDriftTests {
    static let minutes = 10.0
    static let speed = 8.0
    /// 8 kHz: ten minutes of two sources at eight times real time is a sixth of 48 kHz's work (at 48 kHz
    /// a fresh clone's debug build dropped nearly all of it on two busy cores); 1 ms is 8 frames.
    static let rate = 8_000

    struct Outcome {
        /// The second channel's click minus the first's, per second of the take (frames).
        var offsets: [Int]
        var reports: [SourceReport]
    }

    private func record(ppm: Double, corrected: Bool) async throws -> Outcome {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            for name in ["rk_pipe_a", "rk_pipe_b"] {
                try server.run("pactl", ["load-module", "module-pipe-source", "source_name=\(name)", "file=\(directory)/\(name)",
                                         "rate=\(Self.rate)", "channels=1", "format=s16le"])
            }
            let clicks = PacedClicks(paths: ["\(directory)/rk_pipe_a", "\(directory)/rk_pipe_b"], sampleRate: Self.rate,
                                     ppm: [0, ppm], speed: Self.speed, seconds: Self.minutes * 60 + 30)
            let recorder = try Recorder(sources: ["rk_pipe_a", "rk_pipe_b"], server: server.address, driftCorrection: corrected)
            defer { recorder.stop() }
            try clicks.start()
            defer { clicks.stop() }
            let path = directory + "/take.wav"
            try recorder.record(to: path, duration: Self.minutes * 60)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.droppedFrames == 0)
            let take = try readSoundFile(path)
            let first = clickPositions(take.channel(0)), second = clickPositions(take.channel(1))
            let offsets = first.map { click in (second.min { abs($0 - click) < abs($1 - click) } ?? Int.max) - click }
            return Outcome(offsets: offsets, reports: recorder.sources)
        }
    }

    /// Corrected, the second source's clicks stay by the first's: in the last minute within 1.5 ms. (The
    /// correction steers each source to where the server's timing placed it; for two pipe sources written
    /// eight times faster than real time the clicks settled 3 to 10 frames apart (0.4 to 1.25 ms) in the
    /// runs seen, not at 0: an offset of the placement, or of the correction's target, not yet traced.)
    @Test(arguments: [200.0, -300.0])
    func correctedClocksKeepTheirClicksTogether(ppm: Double) async throws {
        let outcome = try await record(ppm: ppm, corrected: true)
        #expect(outcome.offsets.count >= Int(Self.minutes * 60) - 1)
        let lastMinute = outcome.offsets.suffix(60)
        let worst = lastMinute.map(abs).max() ?? Int.max
        print("\(ppm) ppm: the first clicks \(outcome.offsets.prefix(40)) frames apart, the last \(Array(lastMinute.suffix(5)))")
        #expect(worst <= 3 * Self.rate / 2_000, "after \(Self.minutes) minutes the clicks are up to \(worst) frames apart")
        let drift = try #require(outcome.reports[1].driftPPM)
        #expect(abs(drift - ppm) < 5, "measured \(drift) ppm for a clock at \(ppm)")
        #expect(outcome.reports[1].isCorrectingDrift)
    }

    /// Without correction the second source runs on: after ten minutes at +200 ppm its clicks come
    /// 120 ms late (960 frames at 8 kHz), and its drift is still measured.
    @Test func uncorrectedClocksPartByWhatTheyDrift() async throws {
        let outcome = try await record(ppm: 200, corrected: false)
        let start = try #require(outcome.offsets.first), end = try #require(outcome.offsets.last)
        let expected = Int(200e-6 * Double(Self.rate) * Double(outcome.offsets.count - 1))
        #expect(abs((end - start) - expected) <= 2 * Self.rate / 1_000, "the clicks parted by \(end - start) frames, expected \(expected)")
        let drift = try #require(outcome.reports[1].driftPPM)
        #expect(abs(drift - 200) < 5)
        #expect(!outcome.reports[1].isCorrectingDrift)
    }
}

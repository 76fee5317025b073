// Sources whose latencies, fragments or rates differ, recorded as one take: one sound lands on one frame.
import Foundation
@testable import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct SourceAlignmentTests {
    /// Two pipe sources fed one click train in lockstep (a click reaches both at once), the second
    /// source's stream asking for 2 s fragments and the first's for 0.1 s: every click lands within 1 ms
    /// of its twin. (PulseAudio 16 sends a record stream's data as its source posts it whatever fragment
    /// was asked under PA_STREAM_ADJUST_LATENCY, so here the two arrive alike; what differs is each
    /// stream's latency setting. Monitors are placed by when their sink plays — see the DocC article —
    /// so two monitors of sinks with different latencies are placed apart by that difference, as heard.)
    @Test func aTwoSecondFragmentSourceStillLandsWithinAMillisecond() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            for name in ["rk_near", "rk_far"] {
                try server.run("pactl", ["load-module", "module-pipe-source", "source_name=\(name)", "file=\(directory)/\(name)",
                                         "rate=48000", "channels=1", "format=s16le"])
            }
            let clicks = PacedClicks(paths: ["\(directory)/rk_near", "\(directory)/rk_far"], sampleRate: 48_000, ppm: [0, 0],
                                     seconds: 60)
            let recorder = try Recorder(sources: ["rk_near", "rk_far"], sampleRate: nil, sampleFormat: .int16,
                                        channelsPerSource: nil, server: server.address, driftCorrection: true, bufferCount: 3,
                                        bufferDuration: 0.1, maxQueueDuration: nil, reconnectTimeout: nil, maximumPreRoll: 0,
                                        clientName: "recorder", fragmentDurations: [0.1, 2])
            defer { recorder.stop() }
            try clicks.start()
            defer { clicks.stop() }
            let path = directory + "/take.wav"
            try recorder.record(to: path, duration: 8)
            let summary = try #require(try await recorder.waitForRecording())
            let take = try readSoundFile(path)
            let near = clickPositions(take.channel(0)), far = clickPositions(take.channel(1))
            // Every click of each source is in its channel, or where the recorder counted a loss of that
            // source (a loaded machine may make one; it must be told and placed, never silent).
            for (channel, clicks, source) in [(0, near, "rk_near"), (1, far, "rk_far")] {
                let lost = summary.gaps.filter { $0.source == nil || $0.source == source }
                    .map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) }
                let missing = unexplainedMissingClicks(clicks, period: 48_000, frames: take.frames, lost: lost, slack: 480)
                #expect(missing.isEmpty, "channel \(channel): clicks missing at \(missing) with no loss reported there (\(summary.gaps))")
            }
            #expect(near.count + far.count >= 2 || !summary.gaps.isEmpty, "\(near.count) and \(far.count) clicks in 8 s")
            // Where both sources hold a click, they stand within 1 ms.
            let offsets = near.compactMap { click in far.min { abs($0 - click) < abs($1 - click) }.map { $0 - click } }
                .filter { abs($0) < 24_000 }
            #expect(!offsets.isEmpty && offsets.allSatisfy { abs($0) <= 48 }, "click offsets (frames): \(offsets)")
        }
    }

    /// A 48 kHz source and a 44.1 kHz one in one 48 kHz take (the server converts the second): a
    /// 1 kHz sine at half scale played into each is a 1 kHz sine (±1 Hz) at its level (±0.1 dB) in both.
    @Test func sourcesAtTwoRatesJoinAtTheFirstSourcesRate() async throws {
        try await withPrivateServer { server in
            for (sink, rate) in [("rk_fast", 48_000), ("rk_slow", 44_100)] {
                try server.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)", "channels=1", "rate=\(rate)"])
            }
            let directory = try temporaryDirectory()
            var players: [RunningProcess] = []
            defer { for player in players { player.send(SIGTERM); _ = player.waitBlocking() } }
            for (sink, rate) in [("rk_fast", 48_000), ("rk_slow", 44_100)] {
                let file = directory + "/\(sink).wav"
                try writeWAV(file, samples: sineSamples(frames: rate * 30, frequency: 1_000, sampleRate: Double(rate), amplitudes: [0.5]),
                             channels: 1, sampleRate: rate)
                let (program, arguments) = unblockingSignals("/usr/bin/paplay", ["--volume=65536", "-d", sink, file])
                players.append(try RunningProcess(program, arguments, environment: server.clientEnvironment))
            }
            let recorder = try Recorder(sources: ["rk_fast.monitor", "rk_slow.monitor"], server: server.address)
            defer { recorder.stop() }
            #expect(recorder.format.sampleRate == 48_000)
            _ = try await firstReading(recorder.levelReadings()) { reading in reading.channels.allSatisfy { $0.peakPower > -7 } }
            let path = directory + "/take.wav"
            try recorder.record(to: path, duration: 2)
            _ = try await recorder.waitForRecording()
            let take = try readSoundFile(path)
            #expect(take.sampleRate == 48_000)
            for channel in 0..<2 {
                let samples = Array(take.channel(channel).suffix(48_000))
                // Frequency from the zero crossings upward over one second; level as RMS against the
                // sine's −9.03 dBFS (half scale).
                let upward = zip(samples, samples.dropFirst()).filter { $0.0 < 0 && $0.1 >= 0 }.count
                #expect(abs(Double(upward) - 1_000) <= 1, "channel \(channel): \(upward) Hz")
                let level = levels(of: samples).average
                #expect(abs(level - (-9.03)) <= 0.1, "channel \(channel): \(level) dBFS")
            }
        }
    }
}

// Several sources in one take, through a real private server: one sound into every source, one frame out.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct SeveralSourceTests {
    /// Two sources that copy one sink's monitor (remap sources: what the sink plays, each of them
    /// captures, at the same moment): every frame of the second source's channel equals the first's at
    /// one frame offset, within 1 ms, and both hold the noise that was played. Their clocks are one (the
    /// server's), so the second passes byte for byte, never resampled. (A combine sink feeding two null
    /// sinks is no oracle here: it resamples each of them as it adjusts their rates.)
    @Test func oneNoiseIntoTwoSourcesLandsOnOneFrame() async throws {
        try await withPrivateServer { server in
            for copy in ["rk_copy_a", "rk_copy_b"] {
                try server.run("pactl", ["load-module", "module-remap-source", "source_name=\(copy)",
                                         "master=\(PrivateServer.monoSink).monitor"])
            }
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 40)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let (program, arguments) = unblockingSignals("/usr/bin/paplay", ["--volume=65536", "-d", PrivateServer.monoSink, directory + "/noise.wav"])
            let player = try RunningProcess(program, arguments, environment: server.clientEnvironment)
            defer { player.send(SIGTERM); _ = player.waitBlocking() }

            let recorder = try Recorder(sources: ["rk_copy_a", "rk_copy_b"], server: server.address)
            defer { recorder.stop() }
            #expect(recorder.format.channelCount == 2)
            #expect(recorder.format.sampleRate == 44_100)
            // Noise in both sources' channels before the take begins (the combine sink is running).
            _ = try await firstReading(recorder.levelReadings()) { reading in
                reading.channels.allSatisfy { $0.peakPower > -20 }
            }
            let path = directory + "/take.wav"
            try recorder.record(to: path, duration: 4)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 176_400)
            #expect(summary.droppedFrames == 0)

            let take = try readSoundFile(path)
            #expect(take.channels == 2)
            let first = take.channel(0), second = take.channel(1)
            let holdsNoise = holdsStretch(of: noise, in: first)
            #expect(holdsNoise, "the take does not hold the noise played")
            let tolerance = 44  // 1 ms
            let lag = (-tolerance...tolerance).first { lag in
                let range = max(0, -lag)..<min(first.count, second.count - lag)
                return range.count > 100_000 && range.allSatisfy { first[$0] == second[$0 + lag] }
            }
            #expect(lag != nil, "no offset within 1 ms at which the second source's channel equals the first's")
            let reports = recorder.sources
            #expect(reports.map(\.name) == ["rk_copy_a", "rk_copy_b"])
            #expect(reports.map(\.firstChannel) == [0, 1])
            #expect(reports.allSatisfy { $0.startOffset >= 0 && $0.startOffset < 1 })
            #expect(reports.allSatisfy { !$0.isCorrectingDrift })
        }
    }

    /// Bad input gets one line each, before anything records: no source, the same source twice, a
    /// source the server does not have, more than 64 channels in all.
    @Test func badSourceListsAreRefusedInOneLine() async throws {
        try await withPrivateServer { server in
            let cases: [([String], Int?, RecorderError.Code, String)] = [
                ([], nil, .invalidFormat, "no source given"),
                ([PrivateServer.sineSource, PrivateServer.sineSource], nil, .invalidFormat, "named twice"),
                ([PrivateServer.sineSource, "rk_nowhere"], nil, .sourceNotFound, "no capture source named 'rk_nowhere'"),
                ([PrivateServer.sineSource, PrivateServer.monoSink + ".monitor", PrivateServer.stereoSink + ".monitor"], 32,
                 .invalidFormat, "96 channels"),
            ]
            for (sources, channels, code, words) in cases {
                do throws(RecorderError) {
                    _ = try Recorder(sources: sources, channelsPerSource: channels, server: server.address)
                    Issue.record("\(sources) was accepted")
                } catch {
                    #expect(error.code == code, "\(sources): \(error.message)")
                    #expect(error.message.contains(words), "\(sources): \(error.message)")
                    #expect(!error.message.contains("\n"))
                }
            }
        }
    }
}

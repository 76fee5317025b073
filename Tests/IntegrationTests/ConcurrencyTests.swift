// Many recorders in one process: each from its own source into its own file, all at once.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test func eightRecordersAtOnceEachWriteTheirOwnSignalBitExactly() async throws {
        let count = 8
        try await withPrivateServer(extraMonoSinks: count) { server in
            let directory = try temporaryDirectory()
            let noises = (0..<count).map { noiseSamples(count: 441_000, seed: UInt64(100 + $0)) }  // 10 s each
            for (index, noise) in noises.enumerated() {
                try writeWAV(directory + "/noise\(index).wav", samples: noise, channels: 1)
            }
            let recorders = try (0..<count).map {
                try Recorder(source: PrivateServer.manySink($0) + ".monitor", server: server.address)
            }
            defer { recorders.forEach { $0.stop() } }
            let readings = recorders.map { $0.levelReadings() }
            for (index, recorder) in recorders.enumerated() { try recorder.record(to: directory + "/take\(index).aiff") }
            // All eight players at once (blocking calls would share the two cooperative threads), each
            // with a second of buffer: on a loaded machine (CI runs the day-long meter test meanwhile) a
            // player that ran dry put silence into its sink, which the recorder then faithfully recorded.
            let players = try (0..<count).map {
                try RunningProcess("/usr/bin/paplay", ["--volume=65536", "--latency-msec=1000", "-d", PrivateServer.manySink($0),
                                                       directory + "/noise\($0).wav"], environment: server.clientEnvironment)
            }
            for player in players {
                let status = await player.wait().status
                #expect(status == 0)
            }
            for stream in readings { try await signalThenSilence(stream) }
            for (index, recorder) in recorders.enumerated() {
                let summary = try #require(try await recorder.stopRecording())
                #expect(summary.droppedFrames == 0 && recorder.droppedFrames == 0)
                let take = try readSoundFile(directory + "/take\(index).aiff").samples
                let start = try #require(firstIndex(of: Array(noises[index].prefix(64)), in: take), "recorder \(index)")
                #expect(Array(take[start..<min(take.count, start + noises[index].count)]) == noises[index],
                        "recorder \(index) is not bit-exact")
            }
        }
    }
}

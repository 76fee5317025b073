// Many recorders in one process: each from its own source into its own file, all at once.
import Foundation
import RecorderKit
import Testing
import TestSupport

// The time limit catches a hang: eight players and eight recorders under ThreadSanitizer on two busy cores
// take a minute and more.
@Suite(.timeLimit(.minutes(5)))
struct ConcurrencyTests {
    /// Eight recorders, each on its own sink's monitor while a noise plays into that sink: each file holds
    /// its own noise, every sample of it in order, silent only where the sink played nothing (a player late
    /// on a loaded machine: silence with no played sample missing around it) or where the recorder counted
    /// and placed a loss, and no more played samples missing across such a loss than it counted. (A second
    /// capture of each monitor was the oracle before: it can lose frames without a word, and it doubled the
    /// streams this test loads the machine with.)
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
            // All eight players at once (blocking calls would share the two cooperative threads).
            let players = try (0..<count).map {
                try RunningProcess("/usr/bin/paplay", ["--volume=65536", "-d", PrivateServer.manySink($0),
                                                       directory + "/noise\($0).wav"], environment: server.clientEnvironment)
            }
            for player in players {
                let status = await player.wait().status
                #expect(status == 0)
            }
            for stream in readings { try await signalThenSilence(stream) }
            for (index, recorder) in recorders.enumerated() {
                let summary = try #require(try await recorder.stopRecording())
                let take = try readSoundFile(directory + "/take\(index).aiff").samples
                // Its own noise, not another sink's.
                #expect(holdsStretch(of: noises[index], in: take), "recorder \(index) lacks its noise")
                // paplay reports no underrun: any number of silent runs may stand where nothing was played.
                let heard = compare(heard: Heard(samples: take, channels: 1, gaps: summary.gaps), played: noises[index],
                                    underruns: Int.max)
                #expect(heard.departure == nil,
                        "recorder \(index): \(heard.departure ?? ""); its gaps \(summary.gaps.map { ($0.startFrame, $0.frameCount) })")
                if summary.droppedFrames > 0 { print("recorder \(index): \(summary.droppedFrames) frames dropped, counted and placed") }
            }
        }
    }
}

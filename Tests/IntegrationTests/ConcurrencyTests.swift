// Many recorders in one process: each from its own source into its own file, all at once.
import Foundation
import RecorderKit
import Testing
import TestSupport

// The time limit catches a hang: eight players, eight recorders and eight reference captures under
// ThreadSanitizer on two cores take a minute and more.
@Suite(.timeLimit(.minutes(3)))
struct ConcurrencyTests {
    /// Eight recorders, each on its own sink's monitor while a noise plays into that sink: each file holds
    /// its own noise, and equals, sample for sample, a reference capture of the same monitor taken beside
    /// it (so a player that was late, and the sink's silence then, is in both: nothing to allow for).
    @Test func eightRecordersAtOnceEachWriteTheirOwnSignalBitExactly() async throws {
        let count = 8
        try await withPrivateServer(extraMonoSinks: count) { server in
            let directory = try temporaryDirectory()
            let noises = (0..<count).map { noiseSamples(count: 441_000, seed: UInt64(100 + $0)) }  // 10 s each
            for (index, noise) in noises.enumerated() {
                try writeWAV(directory + "/noise\(index).wav", samples: noise, channels: 1)
            }
            var references: [ReferenceCapture] = []
            for index in 0..<count {
                references.append(try await ReferenceCapture(server: server, source: PrivateServer.manySink(index) + ".monitor",
                                                             directory: directory))
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
                #expect(summary.droppedFrames == 0 && recorder.droppedFrames == 0)
                let take = try readSoundFile(directory + "/take\(index).aiff").samples
                // Its own noise, not another sink's.
                #expect(holdsStretch(of: noises[index], in: take), "recorder \(index) lacks its noise")
                let comparison = try await references[index].compare(take, played: noises[index])
                #expect(comparison.offset != nil && comparison.differing == 0,
                        "recorder \(index): \(comparison.differing) of \(take.count) samples differ from the reference capture, the first at \(comparison.firstDifference ?? -1)")
            }
        }
    }
}

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
                let heard = Array(take[start..<min(take.count, start + noises[index].count)])
                try #require(heard.count == noises[index].count, "recorder \(index) ends early")
                if server.kind == .pulseaudio {
                    #expect(heard == noises[index], "recorder \(index) is not bit-exact")
                } else {
                    // pipewire-pulse, when a player is late on a loaded machine (measured in CI: eight paplays,
                    // 4096-frame blocks at 0.56 s), plays a block of silence and skips the late data: the sink
                    // really was silent then. Allowed here, and only that: whole runs of zeros in place of the
                    // noise, with the noise in place on both sides (nothing lost or shifted by the recorder),
                    // under 5 % of the take. PulseAudio above is held to every sample.
                    let noise = noises[index]
                    let runs = sinkSilence(count: heard.count, isZero: { heard[$0] == 0 }, differs: { heard[$0] != noise[$0] })
                    #expect(runs.others == 0, "recorder \(index): \(runs.others) samples differ that are not silence")
                    #expect(runs.silenced < heard.count / 20, "recorder \(index): \(runs.silenced) samples of silence")
                    if runs.silenced > 0 { print("recorder \(index): the sink was silent for \(runs.silenced) frames in \(runs.runs) runs") }
                }
            }
        }
    }
}

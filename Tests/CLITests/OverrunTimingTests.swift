// Issue 12, point 1: audio the server threw away while the recorder could not read (SIGSTOP longer
// than the server's queue) is found, counted once, placed, and replaced by silence so the file keeps time.
import Foundation
import Testing
import TestSupport

/// Where a recording of `noise` departs from it and comes back: the file index of the noise's first
/// frame, the first frame that departs, the silence there, and where the noise resumes.
private struct NoiseLayout: CustomStringConvertible {
    var noiseStart: Int
    var departure: Int
    var silence: Int
    /// The noise frame found right after the silence.
    var resumedNoiseFrame: Int
    /// Frames by which the audio after the silence sits early (+) or late (−) against the wall clock.
    var timingError: Int { departure + silence - noiseStart - resumedNoiseFrame }

    var description: String {
        "noise from file frame \(noiseStart), departs at \(departure), \(silence) frames of silence, "
            + "then noise frame \(resumedNoiseFrame) (timing error \(timingError) frames)"
    }

    init(file: [Int16], noise: [Int16]) throws {
        let first = try #require(file.firstIndex { $0 != 0 }, "the file is silent")
        let probe = first + 100
        let found = try #require(firstIndex(of: Array(file[probe..<probe + 64]), in: noise), "no noise in the file")
        noiseStart = probe - found
        var index = probe
        while index < file.count, index - noiseStart < noise.count, file[index] == noise[index - noiseStart] { index += 1 }
        departure = index
        while index < file.count, file[index] == 0 { index += 1 }
        silence = index - departure
        try #require(index + 64 <= file.count, "the file ends in the silence")
        resumedNoiseFrame = try #require(firstIndex(of: Array(file[index..<index + 64]), in: noise),
                                         "the audio after the silence is not the noise")
    }
}

/// In the test command's timing stage (on its own): a 5 s SIGSTOP is the fault, and where the audio after
/// it lands against the wall clock is what is measured.
@Suite(.timeLimit(.minutes(2)))
struct OverrunTimingTests {
    @Test func placementOfTheAudioAfterAStallLongerThanTheServersQueueOneCountedLoss() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 12)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let path = directory + "/stalled.aiff"
            // The server may hold 2 s for us; the process is then stopped for 5 s.
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "--source", PrivateServer.monoSink + ".monitor", "--queue-limit", "2", "--levels-json"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            var output: [String] = []
            func nextLine() async throws -> [String: Any] {
                guard let line = await lines.next() else { throw TestFailure("recorder ended: \(await process.wait().stderr)") }
                output.append(line)
                return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            func frames(_ line: [String: Any]) -> Int64? { line["event"] == nil ? (line["frames"] as? NSNumber)?.int64Value : nil }
            _ = try await nextLine()
            let player = Task { try await server.play(directory + "/noise.wav") }
            // 1.5 s into the noise: stop the process longer than the server's queue.
            var noiseSeenAt: Int64?
            while true {
                let line = try await nextLine()
                guard let end = frames(line) else { continue }
                if noiseSeenAt == nil, let peak = (line["peak_db"] as? [NSNumber])?.first?.doubleValue, peak > -20 { noiseSeenAt = end }
                if let noiseSeenAt, end >= noiseSeenAt + 66_150 { break }
            }
            process.send(SIGSTOP)
            try await Task.sleep(for: .seconds(5))
            process.send(SIGCONT)
            try await player.value
            // The noise has been played: one more second of the file, then stop.
            var last: Int64 = 0
            while last == 0 { last = frames(try await nextLine()) ?? 0 }
            while (frames(try await nextLine()) ?? 0) < last + 44_100 {}
            process.send(SIGINT)
            while await lines.next().map({ output.append($0) }) != nil {}
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")

            // One loss, one event, one warning, counted in the summary.
            let events = try output.compactMap { line -> [String: Any]? in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["event"] != nil ? object : nil
            }
            #expect(events.count == 1, "\(events)")
            let event = try #require(events.first)
            #expect(event["event"] as? String == "dropped")
            let lost = try #require((event["frames"] as? NSNumber)?.intValue)
            // 5 s stopped, 2 s of queue, plus what the socket and libpulse held.
            #expect(lost > 44_100 && lost < 5 * 44_100, "\(lost) frames lost")
            #expect(stderr.components(separatedBy: "lost at").count == 2, "\(stderr)")
            #expect(stderr.contains("dropped \(lost) frames"), "\(stderr)")

            // The silence is the loss, in one place; the audio after it is bit-exact where the wall
            // clock puts it (within one 100 ms fragment), so the file keeps time.
            let file = try readSoundFile(path).samples
            let layout = try NoiseLayout(file: file, noise: noise)
            #expect(layout.silence == lost, "\(layout)")
            // Measured: 0 frames (three runs); one 100 ms fragment allowed.
            #expect(abs(layout.timingError) <= 4_410, "\(layout)")
            let resumed = layout.departure + layout.silence
            let after = noise.count - layout.resumedNoiseFrame
            #expect(file.count >= resumed + after, "the file ends before the noise")
            let mismatches = (0..<min(after, file.count - resumed)).filter {
                file[resumed + $0] != noise[layout.resumedNoiseFrame + $0]
            }.count
            #expect(mismatches == 0, "\(mismatches) samples after the silence differ from the noise")
            // The loss is a marker in the file, where the silence begins, named for what happened.
            let analysis = try await recorder(["analyze", "--json", path])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
            let markers = try #require(object["markers"] as? [[String: Any]])
            let seconds = String(format: "%.3f", Double(lost) / 44_100)
            #expect(markers.count == 1 && markers.first?["frame"] as? Int == layout.departure
                    && markers.first?["label"] as? String == "gap \(seconds) s: the system did not keep up", "\(markers)")
            print("SIGSTOP 5 s with a 2 s queue on \(server.kind): \(layout); reported \(lost) frames lost")
        }
    }
}

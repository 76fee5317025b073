// Issue 12, point 1: audio the server threw away while the recorder could not read (SIGSTOP longer
// than the server's queue) is found, counted, placed, and replaced by silence so the file keeps time.
import Foundation
import Testing
import TestSupport

/// Where a recording of `noise` departs from it and comes back, gap after gap: the file index of the
/// noise's first frame, then for each departure its frame, the silence there, and where the noise resumes.
private struct NoiseLayout: CustomStringConvertible {
    struct Gap {
        var departure: Int
        var silence: Int
        /// The noise frame found right after the silence.
        var resumedNoiseFrame: Int
        /// Frames by which the audio after the silence sits early (+) or late (−) against the wall clock.
        var timingError: Int
    }
    var noiseStart: Int
    var gaps: [Gap] = []

    var description: String {
        "noise from file frame \(noiseStart)" + gaps.map {
            ", departs at \($0.departure), \($0.silence) frames of silence, then noise frame \($0.resumedNoiseFrame) "
                + "(timing error \($0.timingError) frames)"
        }.joined()
    }

    /// Walks the file: the noise matched frame for frame; where it departs, the silence, and the noise
    /// found again after it; until the noise or the file ends. A departure that is not silence is a gap
    /// of 0 frames (what the test refuses).
    init(file: [Int16], noise: [Int16]) throws {
        let first = try #require(file.firstIndex { $0 != 0 }, "the file is silent")
        let probe = first + 100
        let found = try #require(firstIndex(of: Array(file[probe..<probe + 64]), in: noise), "no noise in the file")
        noiseStart = probe - found
        var index = probe
        var offset = noiseStart
        while true {
            while index < file.count, index - offset < noise.count, file[index] == noise[index - offset] { index += 1 }
            guard index < file.count, index - offset < noise.count else { break }
            let departure = index
            while index < file.count, file[index] == 0 { index += 1 }
            try #require(index + 64 <= file.count, "the file ends in the silence")
            let resumed = try #require(firstIndex(of: Array(file[index..<index + 64]), in: noise),
                                       "the audio after the silence at \(departure) is not the noise")
            gaps.append(Gap(departure: departure, silence: index - departure, resumedNoiseFrame: resumed,
                            timingError: index - noiseStart - resumed))
            offset = index - resumed
            guard gaps.count < 100 else { break }
        }
    }
}

/// In the test command's timing stage (on its own): a 5 s SIGSTOP is the fault, and where the audio after
/// it lands against the wall clock is what is measured.
@Suite(.timeLimit(.minutes(2)))
struct OverrunTimingTests {
    @Test func placementOfTheAudioAfterAStallLongerThanTheServersQueue() async throws {
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

            // What the server threw away: one loss or several (its read index may jump twice around
            // one fragment it still held: seen once, 1.650 s, 50 ms of audio, 1.250 s), each an event and
            // a warning, their sum counted in the summary.
            let events = try output.compactMap { line -> [String: Any]? in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["event"] != nil ? object : nil
            }
            #expect(!events.isEmpty && events.allSatisfy { $0["event"] as? String == "dropped" }, "\(events)")
            let losses = events.compactMap { ($0["frames"] as? NSNumber)?.intValue }
            let lost = losses.reduce(0, +)
            // 5 s stopped, 2 s of queue, plus what the socket and libpulse held.
            #expect(lost > 44_100 && lost < 5 * 44_100, "\(lost) frames lost")
            #expect(stderr.components(separatedBy: "lost at").count == losses.count + 1, "\(stderr)")
            #expect(stderr.contains("dropped \(lost) frames"), "\(stderr)")

            // Each silence is its loss, where it was reported; the audio after each is bit-exact (the
            // walk ends only where the noise or the file does) and where the wall clock puts it (within
            // one 100 ms fragment), so the file keeps time.
            let file = try readSoundFile(path).samples
            let layout = try NoiseLayout(file: file, noise: noise)
            #expect(layout.gaps.map(\.silence) == losses, "\(layout)")
            // Measured: 0 frames (three runs); one 100 ms fragment allowed.
            #expect(layout.gaps.allSatisfy { abs($0.timingError) <= 4_410 }, "\(layout)")
            #expect(layout.noiseStart + noise.count <= file.count, "the file ends before the noise: \(layout)")
            // Each loss is a marker in the file, where its silence begins, named for what happened.
            let analysis = try await recorder(["analyze", "--json", path])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
            let markers = try #require(object["markers"] as? [[String: Any]])
            #expect(markers.map { $0["frame"] as? Int } == layout.gaps.map(\.departure)
                    && markers.map { $0["label"] as? String } == losses.map {
                        "gap \(String(format: "%.3f", Double($0) / 44_100)) s: the system did not keep up"
                    }, "\(markers)")
            print("SIGSTOP 5 s with a 2 s queue on \(server.kind): \(layout); reported \(losses) frames lost")
        }
    }
}

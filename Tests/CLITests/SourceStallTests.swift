// Two drifting sources in one take of `record`, the process stopped (SIGSTOP) for 8 s, longer than the
// server holds for it: each source's loss counted and placed in its own channel, the clicks after the gap
// still aligned, the drift measured as the writer's.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Two `module-pipe-source`s at 8 kHz written at real time in lockstep, the second's clock 200 ppm fast, a
/// click every second of each clock's time; `record -d a -d b --queue-limit 2` takes them. Thirty seconds
/// in (the drift measured and corrected), the process is stopped for 8 s: the server keeps 2 s of each
/// stream and throws the rest away. Afterwards every click of each source must be in its channel or in a
/// loss of that source the command reported (its `source-lost` events, with their frames); the clicks of
/// the two sources within 1 ms of each other before the gap and at once after it (unless the take says
/// the machine was too busy for the clock's answers, and then closing in, within 1 ms by the end); and the drift
/// it prints within 5 ppm of 200 (the line is broken at each loss, so the step is not read as drift).
/// Before this test, the several-source take lost the 6 s without a word (the server's queue, read empty
/// by the time the answer came, was no cause) and measured 164 ppm; beside the test suite's load it then
/// spiralled (a drop per few-millisecond fragment, and the mainloop busy copying a backlog its full
/// buffers could not take, holding the lock the delivery thread needed). The stall is the test's fault and
/// its losses are counted, so a loaded machine changes how much is lost, not whether it passes. A loss
/// the server's clock shows only later (one in three runs beside `scripts/busy` and another suite, 14 s
/// after the stall: 4 090 frames of both sources, no cause seen) is counted four seconds on, and says from
/// where it may have begun (`from_t`): clicks inside a reported loss are explained, and not judged for
/// alignment. (The
/// writer runs in this process, which is not stopped: the pipes carry on as a device's clock does.)
@Suite(.serialized, .timeLimit(.minutes(4)))
struct SourceStallTests {
    static let rate = 8_000

    /// Reads `record --levels-json`'s lines (their `frames`: the take's) until it ends: stops the process for
    /// 8 s once the take has `at` frames, and sends Ctrl-C `thenRun` frames after the first line after the
    /// stop. Returns every JSON object it printed.
    static func stall(_ process: RunningProcess, at: Int64, thenRun: Int64) async throws -> [[String: Any]] {
        var output: [[String: Any]] = []
        var stalled = false, stallEnd: Int64?, interrupted = false
        for await line in process.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            output.append(object)
            guard !interrupted, object["event"] == nil, let frames = (object["frames"] as? NSNumber)?.int64Value else { continue }
            if !stalled, frames >= at {
                stalled = true
                process.send(SIGSTOP)
                try await Task.sleep(for: .seconds(8))
                process.send(SIGCONT)
            } else if stalled, stallEnd == nil {
                stallEnd = frames
            } else if let stallEnd, frames >= stallEnd + thenRun {
                process.send(SIGINT)
                interrupted = true
            }
        }
        return output
    }

    @Test func aStallLongerThanTheServersQueueLeavesEverySourceAlignedAndItsDriftMeasured() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            for name in ["rk_stall_a", "rk_stall_b"] {
                try server.run("pactl", ["load-module", "module-pipe-source", "source_name=\(name)", "file=\(directory)/\(name)",
                                         "rate=\(Self.rate)", "channels=1", "format=s16le"])
            }
            let clicks = PacedClicks(paths: ["\(directory)/rk_stall_a", "\(directory)/rk_stall_b"], sampleRate: Self.rate,
                                     ppm: [0, 200], seconds: 600)
            try clicks.start()
            defer { clicks.stop() }
            let path = directory + "/take.wav"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "-d", "rk_stall_a", "-d", "rk_stall_b", "--queue-limit", "2", "--levels-json"],
                environment: server.clientEnvironment)
            // Thirty seconds in, the stop; forty seconds after it, Ctrl-C.
            let output = try await Self.stall(process, at: Int64(30 * Self.rate), thenRun: Int64(40 * Self.rate))
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")

            // The losses the command reported, per source, as take frames.
            let events = output.filter { $0["event"] != nil }
            func lost(_ source: String) -> [Range<Int>] {
                events.filter {
                    $0["event"] as? String == "dropped" || ($0["event"] as? String == "source-lost" && $0["source"] as? String == source)
                }.compactMap { event in
                    guard let t = (event["t"] as? NSNumber)?.doubleValue, let frames = (event["frames"] as? NSNumber)?.intValue else { return nil }
                    // A loss found late by the server's clock may have begun as early as `from_t`.
                    let from = (event["from_t"] as? NSNumber)?.doubleValue ?? t
                    let start = Int((t * Double(Self.rate)).rounded())
                    return Int((from * Double(Self.rate)).rounded())..<(start + frames)
                }
            }
            let lostA = lost("rk_stall_a"), lostB = lost("rk_stall_b")
            let take = try readSoundFile(path)
            let first = clickPositions(take.channel(0)), second = clickPositions(take.channel(1))
            // The loss is placed where the server's queue filled, not where its data ended when it answered the
            // first request after the stall (the answer took 50 ms idle, 200 to 400 beside the test suite's
            // load: the audio it took meanwhile was read before the silence, and a click in it was missing).
            for (channel, positions, losses) in [(0, first, lostA), (1, second, lostB)] {
                let missing = unexplainedMissingClicks(positions, period: Double(Self.rate), frames: take.frames, lost: losses,
                                                       slack: Self.rate / 20)
                #expect(missing.isEmpty, "channel \(channel): clicks missing at \(missing) with no loss reported there (\(events))")
            }
            // Both present: the second source's click within 1 ms of the first's, before the gap and after it.
            let pairs = first.compactMap { click -> (Int, Int)? in
                guard let twin = second.min(by: { abs($0 - click) < abs($1 - click) }), abs(twin - click) < Self.rate / 2 else { return nil }
                return (click, twin - click)
            }
            // The stall's losses are the long ones; clicks inside any reported loss (a shorter one found late,
            // beside a loaded machine's tests, 14 s after the stall) are not judged for alignment.
            let stallLosses = (lostA + lostB).filter { $0.count > 4 * Self.rate }
            let gapEnd = stallLosses.map(\.upperBound).max() ?? 0
            let explained = pairs.filter { pair in !(lostA + lostB).contains { $0.lowerBound - Self.rate / 20 <= pair.0 && pair.0 < $0.upperBound + Self.rate / 20 } }
            let after = explained.filter { $0.0 > gapEnd }.map(\.1)
            print("stalled 8 s: losses \(lostA.map(\.count)) and \(lostB.map(\.count)) frames; clicks apart after the gap "
                  + "\(after.prefix(12)) … \(after.suffix(5))")
            // 8 s stopped with 2 s of queue: each source lost most of 6 s, counted.
            #expect(lostA.contains { $0.count > 4 * Self.rate } && lostB.contains { $0.count > 4 * Self.rate }, "\(events)")
            #expect(after.count >= 30, "\(after.count) clicks paired after the gap")
            let before = explained.filter { $0.0 > 20 * Self.rate && $0.0 < (stallLosses.map(\.lowerBound).min() ?? 0) - Self.rate / 2 }.map(\.1)
            #expect(before.allSatisfy { abs($0) <= Self.rate / 1_000 }, "clicks apart before the gap (frames): \(before)")
            // After the gap: each count is the server's clock against its write index (they missed by 12 to 26
            // frames, 1.5 to 3.3 ms). The second source's silence is made as long as its clock's answers after
            // the loss say (`SourceLane.hold`): within 1 ms at once, 0 to 3 frames idle and beside the serverless
            // and threaded suites, -2 to 2 with `scripts/busy` too. While it waits, what arrives is set aside
            // (up to the lag limit). How soon the answers come is the machine's speed: when they come too late
            // the source is placed by the count alone, and the take says so (`losses_placed_by_count` in its
            // `sources` event, and the summary). Placed by the count, a source is as far off as the count
            // missed (20 frames in a loaded fresh-clone run), and the clock's answers then pull it back (a
            // four-second time constant once their level is in: -9 frames five seconds after the gap in that
            // run). How far the count missed is the machine's; that the pull closes it is the product's. So:
            // every source within 1 ms at once after the gap unless the take says otherwise; whatever it says,
            // never further apart after the gap than at its start, and within 1 ms by the take's last ten clicks
            // (thirty seconds on).
            let reports = try #require(events.last { $0["event"] as? String == "sources" }?["sources"] as? [[String: Any]], "\(events)")
            let byCount = try #require(reports.last?["losses_placed_by_count"] as? Int, "\(reports)")
            print("stalled 8 s: losses placed by the count alone: \(byCount)")
            if byCount == 0 {
                #expect(after.allSatisfy { abs($0) <= Self.rate / 1_000 }, "clicks apart at once after the gap (frames): \(after)")
                #expect(!stderr.contains("placed by the server's count"), "\(stderr)")
            } else {
                #expect(stderr.contains("placed by the server's count"), "\(stderr)")
            }
            let start = after.prefix(3).map { abs($0) }.max() ?? 0
            #expect(after.allSatisfy { abs($0) <= max(start + 2, Self.rate / 1_000) },
                    "clicks apart after the gap, never further than at its start (\(start) frames, 2 of scatter): \(after)")
            #expect(after.suffix(10).allSatisfy { abs($0) <= Self.rate / 1_000 }, "the last ten clicks apart (frames): \(after.suffix(10))")
            // The drift the command printed for the second source.
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("source 2 rk_stall_b") }, "\(stderr)")
            let drift = try #require(line.range(of: "drift ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) }, "\(line)")
            // Within 5 ppm of the writer's: the timing round that straddles the stall and the one that
            // counts the loss are no observations (with them it read 242.7 and 287.3 under load).
            print("stalled 8 s: the drift printed \(drift) ppm for a clock at 200")
            #expect(abs(drift - 200) <= 5, "\(line)")
        }
    }

    /// Every frame, not a click a second: two numbered sources (44.1 kHz, one clock, recorded as captured with
    /// `--no-drift-correction`) in one take, the process stopped for 8 s ten seconds in. Each channel's numbers
    /// must run on unbroken except where the take marked a loss of that source: silence at its gap marker,
    /// and the numbers missing near it (across it, and before or after it) as many as it says, within the
    /// server clock's scatter (10 ms); for a loss found late, from as far before it as its marker says.
    /// (Near: the silence goes where the server's clock says its queue filled, and a full PulseAudio queue
    /// still takes the small posts of later audio that fit its last room while it refuses the rest, so the
    /// numbers go missing in a few jumps: up to 50 ms before the silence (one pipe-source post, 2 048
    /// frames, at most: 150 frames in one run), and after it until the woken reader has taken the queue's
    /// backlog, so within the queue's 2 s (175 frames after it in one run, 2 354 in a loaded one). The
    /// count decides which jumps are the loss's: nearest first, while they fit in it.) A frame missing
    /// anywhere else, or more than the count, fails.
    @Test func twoNumberedSourcesThroughAStallShowNothingUnexplained() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let first = try await NumberedSource(server: server, directory: directory)
            defer { first.stop() }
            let second = try await NumberedSource(server: server, directory: directory, sourceName: "rk_numbered_b")
            defer { second.stop() }
            let rate = Int64(NumberedSource.sampleRate)
            let path = directory + "/take.wav"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "-d", first.sourceName, "-d", second.sourceName, "--queue-limit", "2", "--no-drift-correction",
                 "--levels-json"], environment: server.clientEnvironment)
            _ = try await Self.stall(process, at: 10 * rate, thenRun: 12 * rate)
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let take = try readSoundFile(path)
            let markers = try FileAnalysis.analyze(path: path).markers
            for (channel, source) in [(0, first), (1, second)] {
                let gaps = NumberedSource.markedGaps(markers, sampleRate: Int(rate), source: source.sourceName)
                let check = try await source.check(take.channel(channel), countSlack: Int(rate) / 100,
                                                   spread: gaps.map { ($0.frame, $0.count, $0.foundLate + Int(rate) / 20, 2 * Int(rate)) })
                print("stalled 8 s, numbered source \(source.sourceName): \(check); marked \(gaps)")
                #expect(check.unexplained.isEmpty, "\(source.sourceName): \(check); marked \(gaps); \(stderr)")
                // 8 s stopped with 2 s of queue: most of 6 s lost and counted.
                #expect(check.counted > 4 * Int(rate), "\(source.sourceName): \(check)")
            }
        }
    }
}

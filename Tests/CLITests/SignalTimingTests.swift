// Issue 11 through the command: signals from the first millisecond, a terminal that closes, signals with
// no use here, and standard output that leaves, stalls, fills or was never open.
import CSndFile
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Tests/Scripts/signals.py: what Swift's Process cannot do (inherited dispositions, tiny pipes, timing).
private let signalsScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/signals.py").path

/// One run of `signals.py early`.
private struct EarlyRun: Decodable {
    let signal: String
    let inherited: String
    let offset_ms: Double
    let path: String
    /// The exit status, a negative signal number if killed by one, or "hung".
    let status: Status
    let exit_ms: Double
    let ready_ms: Double
    let file: Bool

    enum Status: Decodable, Equatable {
        case code(Int)
        case hung
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let code = try? container.decode(Int.self) { self = .code(code) } else { self = .hung }
        }
    }
}

/// A file the command finalized: libsndfile, sox and the AIFF chunk sizes agree on its length.
/// Returns its frames.
@discardableResult
func expectCompleteAIFF(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    let file = try readSoundFile(path)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    func bigEndian32(_ offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    }
    #expect(bytes.count >= 12 && bigEndian32(4) + 8 == bytes.count,
            "FORM size \(bigEndian32(4)) + 8 != file size \(bytes.count) in \(path)", sourceLocation: sourceLocation)
    var offset = 12
    var soundBytes: Int?
    while offset + 8 <= bytes.count {
        let size = bigEndian32(offset + 4)
        // SSND: offset to the first sample, block size, then the samples.
        if bytes[offset..<(offset + 4)].elementsEqual("SSND".utf8) { soundBytes = size - 8 - bigEndian32(offset + 8) }
        offset += 8 + size + (size & 1)
    }
    let expectedBytes = file.frames * file.channels * 2
    let held = soundBytes ?? -1
    #expect(held == expectedBytes, "SSND holds \(held) bytes, libsndfile reads \(file.frames) frames in \(path)",
            sourceLocation: sourceLocation)
    let soxi = try runProcess("soxi", ["-s", path])
    #expect(Int(soxi.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == file.frames,
            sourceLocation: sourceLocation)
    return file.frames
}

/// The longest `record` or `play` may take to exit after a stop signal, in ms. Both wait for the server
/// at their stop: `record` for its last data (at most 0.5 s: "everything the server had captured when
/// asked"), `play` for its stream's and connection's teardown (round trips). The medians are 3–17 ms
/// on PulseAudio and ~100 ms on PipeWire (a record fragment); with the day-long run beside the timing
/// stage the server was once 319 ms late for `record` and once 722 ms for `play`. The bound, 1 s, is far
/// above both medians (over 50×) and catches a stop that waits for the audio itself (a 20 s file, a take
/// that does not end), not a server slow to answer.
private let stopBoundMilliseconds = 1_000.0

/// Runs `script` with bash against `server`.
private func bash(_ script: String, server: PrivateServer) async throws -> ProcessResult {
    let environment = server.clientEnvironment
    return try await offThread { try runProcess("bash", ["-c", script], environment: environment) }
}

/// Signal to exit, timed: the test command's timing stage runs this suite on its own, one test at a time
/// (beside other tests and their servers on two cores it would time the machine, not the recorder). Each
/// test prints the times it measured; the bounds sit at least 5× above the medians measured on a 2-core
/// machine (see each bound). The tests here without a bound share the suite's processes and scripts.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SignalTimingTests {
    /// The issue's matrix: SIGINT and SIGTERM at 0, 1, 5, 10, 20 and 50 ms, SIGINT inherited as default and
    /// as ignored (a script's background job), 20 runs each. The clock starts when the process catches the
    /// signals (its first statement; before that the kernel applies the inherited disposition to any
    /// signal, which no program can change): every run exits 0 within `stopBoundMilliseconds`, with
    /// no file or a complete one.
    @Test func exitTimeOfRecordStoppedInItsFirstMillisecondsWithNoFileOrACompleteOne() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let runs = ProcessInfo.processInfo.environment["EARLY_SIGNAL_RUNS"] ?? "20"
            let recorder = try builtProduct("recorder")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess("python3", [signalsScript, "early", recorder, directory,
                                           PrivateServer.monoSink + ".monitor", runs, "0", "1", "5", "10", "20", "50"],
                               environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let outcomes = try result.stdout.split(separator: "\n")
                .map { try JSONDecoder().decode(EarlyRun.self, from: Data($0.utf8)) }
            let expectedRuns: Int = 2 * 2 * 6 * (Int(runs) ?? 0)
            #expect(outcomes.count == expectedRuns)
            var files = 0
            for run in outcomes {
                let label = "\(run.signal) at \(run.offset_ms) ms, SIGINT inherited \(run.inherited)"
                #expect(run.status == .code(0), "\(label): status \(run.status)")
                #expect(run.exit_ms < stopBoundMilliseconds, "\(label): exit \(run.exit_ms) ms after the signal")
                if run.file {
                    try expectCompleteAIFF(run.path)
                    files += 1
                }
            }
            let ready = outcomes.map(\.ready_ms).sorted()
            print("early signals: \(outcomes.count) runs, \(files) left a file; spawn to handlers median "
                  + "\(ready[ready.count / 2]) ms; exit after the signal max "
                  + "\(outcomes.map(\.exit_ms).max() ?? 0) ms")
        }
    }

    /// SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (terminal closed) and SIGQUIT (Ctrl-\, not a crash) all
    /// stop and finalize: status 0 within the stop's limit for the server (0.5 s) and a quarter second,
    /// every frame played before the signal in the file.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func exitTimeOfRecordAfterASignalWithEverythingPlayedBeforeItInTheFile(signal: Int32) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100, seed: UInt64(signal))
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", directory + "/take.aiff", "--source", PrivateServer.monoSink + ".monitor", "--levels-json"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            _ = await lines.next()  // recording: the first buffer has been written
            try await server.play(directory + "/noise.wav")
            // Wait for a whole silent buffer after the noise, then interrupt.
            var sawSignal = false
            while let line = await lines.next() {
                let level = try JSONDecoder().decode(LevelLine.self, from: Data(line.utf8))
                if level.peak_db[0] > -160 { sawSignal = true } else if sawSignal { break }
            }
            let sent = monotonicSeconds()
            process.send(signal)
            while await lines.next() != nil {}
            let (status, stderr) = await process.wait()
            let exitTime = monotonicSeconds() - sent
            print("signal \(signal): exit \(Int(exitTime * 1000)) ms after it")
            #expect(status == 0, "\(stderr)")
            // The stop waits for what the server had captured when asked. PulseAudio sends it at once
            // (median 12 ms on this machine; once 319 ms, the day-long run and the timing stage beside it);
            // pipewire-pulse sends a record stream's data a fragment (100 ms) at a time, so the exit there
            // takes a buffer (median 98 ms). The bound is the stop's own limit for waiting on the server,
            // 0.5 s, plus a quarter second for the exit to be seen: a server late within that limit is
            // the design, not a failure.
            let bound = stopBoundMilliseconds / 1000
            #expect(exitTime < bound, "exit \(exitTime) s after the signal")
            #expect(stderr.hasPrefix("recorded \(directory)/take.aiff: "))
            #expect(!stderr.contains("crash") && !stderr.contains("Backtrace"), "\(stderr)")
            #expect(stderr.hasSuffix("dropped 0 frames\n"))
            let take = try readSoundFile(directory + "/take.aiff")
            let start = try #require(firstIndex(of: Array(noise.prefix(64)), in: take.samples))
            #expect(Array(take.samples[start..<min(take.samples.count, start + noise.count)]) == noise)
        }
    }

    /// `recorder play` in the same first milliseconds: SIGINT and SIGTERM at 0…50 ms after the handlers
    /// are in place, SIGINT inherited as default and as ignored: every run exits 0 within `stopBoundMilliseconds`.
    @Test func exitTimeOfPlayStoppedInItsFirstMilliseconds() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sound = directory + "/long.wav"
            try writeWAV(sound, samples: noiseSamples(count: 44_100 * 5), channels: 1)
            let runs = ProcessInfo.processInfo.environment["EARLY_PLAY_SIGNAL_RUNS"] ?? "5"
            let recorder = try builtProduct("recorder")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess("python3", [signalsScript, "early-play", recorder, directory, sound, PrivateServer.monoSink,
                                           runs, "0", "1", "5", "10", "20", "50"], environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let outcomes = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(EarlyRun.self, from: Data($0.utf8)) }
            let expectedRuns: Int = 2 * 2 * 6 * (Int(runs) ?? 0)
            #expect(outcomes.count == expectedRuns)
            for run in outcomes {
                let label = "\(run.signal) at \(run.offset_ms) ms, SIGINT inherited \(run.inherited)"
                #expect(run.status == .code(0), "\(label): status \(run.status)")
                #expect(run.exit_ms < stopBoundMilliseconds, "\(label): exit \(run.exit_ms) ms after the signal")
            }
            print("early signals to play: \(outcomes.count) runs; exit after the signal max \(outcomes.map(\.exit_ms).max() ?? 0) ms")
        }
    }

    /// SIGINT and SIGTERM while a file plays: the sound stops, status 0 within `stopBoundMilliseconds`, the "played … (stopped)" summary
    /// (the file was not played to its end) and no other line.
    @Test(arguments: [SIGINT, SIGTERM])
    func exitTimeOfPlayAfterASignal(signal: Int32) async throws {
        try await withPrivateServer { server in
            let sound = try temporaryDirectory() + "/long.wav"
            try writeWAV(sound, samples: noiseSamples(count: 44_100 * 20), channels: 1)
            let process = try RunningProcess(try builtProduct("recorder"),
                ["play", sound, "--device", PrivateServer.monoSink, "--levels-json"], environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            for _ in 0..<5 { _ = await lines.next() }  // half a second heard
            let sent = monotonicSeconds()
            process.send(signal)
            while await lines.next() != nil {}
            let (status, stderr) = await process.wait()
            let exitTime = monotonicSeconds() - sent
            print("signal \(signal): exit \(Int(exitTime * 1000)) ms after it")
            #expect(status == 0, "\(stderr)")
            // Medians on this machine: 5 ms on PulseAudio, 13 ms on PipeWire; the bounds are over 10× those
            // (PipeWire's as record's, whose stop waits for a 100 ms fragment).
            let bound = stopBoundMilliseconds / 1000
            #expect(exitTime < bound, "exit \(exitTime) s after the signal")
            // What was heard, as after q (marked stopped), and nothing else.
            #expect(stderr.hasPrefix("played \(sound): ") && stderr.hasSuffix(" s to \(PrivateServer.monoSink) (stopped)\n")
                    && stderr.filter { $0 == "\n" }.count == 1, "\(stderr)")
        }
    }

    /// `play --levels-json | head -1`: the reader leaves after one line; playback stops there (as a
    /// pipeline's writer does on SIGPIPE), with one line saying so and exit 74, not after the 20 s file.
    @Test func stopTimeOfPlayWhoseReaderLeaves() async throws {
        try await withPrivateServer { server in
            let sound = try temporaryDirectory() + "/long.wav"
            try writeWAV(sound, samples: noiseSamples(count: 44_100 * 20), channels: 1)
            let began = monotonicSeconds()
            let result = try await bash("'\(try builtProduct("recorder"))' play '\(sound)' --device \(PrivateServer.monoSink) "
                + "--levels-json | head -1; echo \"status=${PIPESTATUS[0]}\" >&2", server: server)
            let took = monotonicSeconds() - began
            #expect(result.stdout.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("status=74"), "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "standard output was closed by its reader").count == 2,
                    "one line: \(result.stderr)")
            print("play with a reader that left: stopped \(Int(took * 1000)) ms after it began")
            // A hang would play the whole 20 s file; the stop comes well within a second (bound: 5 s).
            #expect(took < 5, "stopped after \(took) s")
        }
    }

    /// An impatient user: Ctrl-C, Ctrl-C again and a SIGTERM while the file is being finalized. The later
    /// ones are ignored; the file is finished as after one, with status 0.
    @Test func moreStopsWhileFinishingDoNotLoseTheFile() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "--source", PrivateServer.sineSource, "--levels-json"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            var reported: Int64 = 0
            while let line = await lines.next() {
                reported = try JSONDecoder().decode(LevelLine.self, from: Data(line.utf8)).frames
                if reported >= 44_100 { break }
            }
            for signal in [SIGINT, SIGINT, SIGTERM, SIGINT] { process.send(signal) }
            while await lines.next() != nil {}
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let frames = try expectCompleteAIFF(path)
            #expect(Int64(frames) >= reported)
            #expect(stderr.contains("recorded \(path): ") && stderr.contains(" \(frames) frames,"), "\(stderr)")
        }
    }

    /// SIGUSR2 and SIGALRM have no use here: they are ignored (they used to kill the process and lose up
    /// to 100 ms); SIGUSR1 drops a marker. The take goes on, and a later SIGINT finalizes it with
    /// everything in it, the marker included.
    @Test func exitTimeOfRecordAfterIgnoredSignalsAndAMarker() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 22_050, seed: 0x05)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", directory + "/take.aiff", "--source", PrivateServer.monoSink + ".monitor", "--levels-json"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            _ = await lines.next()
            for signal in [SIGUSR1, SIGUSR2, SIGALRM] { process.send(signal) }
            try await server.play(directory + "/noise.wav")
            var sawSignal = false
            var afterIgnored = 0
            var events: [EventLine] = []
            while let line = await lines.next() {
                if line.hasPrefix("{\"event\"") {
                    events.append(try JSONDecoder().decode(EventLine.self, from: Data(line.utf8)))
                    continue
                }
                afterIgnored += 1
                let level = try JSONDecoder().decode(LevelLine.self, from: Data(line.utf8))
                if level.peak_db[0] > -160 { sawSignal = true } else if sawSignal { break }
            }
            #expect(afterIgnored >= 5, "the take went on after the ignored signals")
            let sent = monotonicSeconds()
            process.send(SIGINT)
            while await lines.next() != nil {}
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let exitTime = monotonicSeconds() - sent
            print("SIGINT after ignored signals: exit \(Int(exitTime * 1000)) ms after it")
            #expect(exitTime < stopBoundMilliseconds / 1000)  // median 12 ms
            let frames = try expectCompleteAIFF(directory + "/take.aiff")
            #expect(stderr.contains("recorded \(directory)/take.aiff: ") && stderr.contains(" \(frames) frames,"))
            let take = try readSoundFile(directory + "/take.aiff")
            let start = try #require(firstIndex(of: Array(noise.prefix(64)), in: take.samples))
            #expect(Array(take.samples[start..<min(take.samples.count, start + noise.count)]) == noise)
            #expect(events.map(\.event) == ["marker"], "SIGUSR1 dropped one marker")
            #expect(stderr.contains("\nmarkers: 00:00.") && stderr.contains(" marker 1\n"), "\(stderr)")
            let stored = try FileAnalysis.analyze(path: directory + "/take.aiff").markers
            #expect(stored.count == 1 && stored.first?.label == "marker 1")
        }
    }

    /// A terminal closed under a recording (tmux kill-session: the interactive shell gets SIGHUP and passes
    /// it to its job): the recorder finalizes and is gone within `stopBoundMilliseconds`, the played noise bit-exact.
    @Test func exitTimeOfRecordWhenItsTerminalCloses() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 22_050, seed: 0x1D)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let terminal = Terminal()
            try terminal.start("bash --norc --noprofile -i", width: 120,
                               environment: ["PULSE_SERVER": server.address, "PS1": "$ "])
            let levels = directory + "/levels.jsonl"
            try terminal.tmux(["send-keys", "\(try builtProduct("recorder")) record \(directory)/take.aiff "
                               + "--source \(PrivateServer.monoSink).monitor --levels-json > \(levels)", "Enter"])
            let pid = try await recorderProcess(writing: directory + "/take.aiff")
            try await waitForLines(in: levels, count: 1)
            try await server.play(directory + "/noise.wav")
            try await waitForSilenceAfterSignal(in: levels)
            let sent = monotonicSeconds()
            try terminal.tmux(["kill-session"])
            while isRunning(pid) {
                guard monotonicSeconds() - sent < 30 else {  // a hang: the bound on the exit time is below
                    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "?"
                    let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "?"
                    let parent = stat.split(separator: " ")[3]
                    let parentStatus = (try? String(contentsOfFile: "/proc/\(parent)/status", encoding: .utf8)) ?? "?"
                    throw TestFailure("recorder \(pid) still runs 30 s after the terminal closed: \(stat) \(command) PARENT \(parentStatus)")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            let exitTime = monotonicSeconds() - sent
            print("terminal closed: the recorder gone \(Int(exitTime * 1000)) ms after tmux was asked")
            #expect(exitTime < stopBoundMilliseconds / 1000)  // the median is in the note printed above
            try expectCompleteAIFF(directory + "/take.aiff")
            let take = try readSoundFile(directory + "/take.aiff")
            let start = try #require(firstIndex(of: Array(noise.prefix(64)), in: take.samples))
            #expect(Array(take.samples[start..<min(take.samples.count, start + noise.count)]) == noise)
            // The levels end with the last buffer written: nothing claimed beyond the file.
            let last = try levelLines(String(contentsOfFile: levels, encoding: .utf8)).last
            #expect(last?.frames == Int64(take.frames))
        }
    }

    /// Ctrl-\ (SIGQUIT) in a terminal: a stop like Ctrl-C, not the runtime's "Program crashed" backtrace
    /// and its "Press space to interact" prompt. The shell then reports status 0.
    @Test func controlBackslashInATerminalStopsLikeControlC() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let terminal = Terminal()
            try terminal.start("bash --norc --noprofile -i", width: 160,
                               environment: ["PULSE_SERVER": server.address, "PS1": "$ ", "NO_COLOR": ""])
            try terminal.tmux(["send-keys", "\(try builtProduct("recorder")) record \(path) "
                               + "--source \(PrivateServer.monoSink).monitor; echo stat''us=$?", "Enter"])  // the echo, not the typed line
            _ = try await terminal.waitFor("dBFS")
            try terminal.tmux(["send-keys", "C-\\"])
            let screen = try await terminal.waitFor("status=")
            #expect(screen.contains("status=0"), "\(screen)")
            #expect(screen.contains("recorded \(path): "), "\(screen)")
            #expect(!screen.contains("crash") && !screen.contains("Press space"), "\(screen)")
            let frames = try expectCompleteAIFF(path)
            #expect(screen.contains(" \(frames) frames,"))
        }
    }

    /// `--levels-json | head -1`: the reader leaves after one line. The take goes on to its end with one
    /// warning; the run exits 74 (output lost) with the file complete.
    @Test func aReaderThatLeavesIsReportedOnceAndTheTakeIsKept() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let result = try await bash("'\(try builtProduct("recorder"))' record '\(path)' --source "
                + "\(PrivateServer.monoSink).monitor --levels-json --duration 1 | head -1; "
                + "echo \"status=${PIPESTATUS[0]}\" >&2", server: server)
            #expect(result.stdout.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("status=74"), "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "standard output was closed by its reader").count == 3,
                    "one warning while recording, one line at the end: \(result.stderr)")
            #expect(result.stderr.contains("the recording goes on, without more level lines"))
            #expect(try expectCompleteAIFF(path) == 44_100)
        }
    }

    /// A reader that stops reading (`| sleep 25`, its pipe full): SIGINT still ends the run promptly
    /// (the last lines are dropped after 0.5 s and said to be), exit 74, the file complete.
    @Test func exitTimeOfRecordWhoseLevelReaderStalls() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let recorder = try builtProduct("recorder")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess("python3", [signalsScript, "stalled-reader", recorder, path,
                                           PrivateServer.monoSink + ".monitor"], environment: environment)
            }
            struct Outcome: Decodable {
                let status: Int
                let exit_ms: Double
                let pipe_bytes: Int
                let stderr: String
            }
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data(result.stdout.utf8))
            #expect(outcome.pipe_bytes > 3_800, "the pipe filled")
            #expect(outcome.status == 74, "\(outcome.stderr)")
            print("stalled level reader: exit \(Int(outcome.exit_ms)) ms after SIGINT")
            // The lines are given 0.5 s; then the stop goes on (bound: 5× the median measured, ~0.5 s).
            #expect(outcome.exit_ms < 2_500)
            #expect(outcome.stderr.contains("(its reader is not reading); they were dropped"), "\(outcome.stderr)")
            let frames = try expectCompleteAIFF(path)
            #expect(outcome.stderr.contains(" \(frames) frames,"))
        }
    }

    /// `record -` into a pipe whose reader stopped reading (the pipe as full as the recorder fills it, a
    /// write waiting for room): SIGINT gives the reader 1 s, then ends the take: exit 74 with the summary
    /// and one line that says so; the pipe holds exactly the frames the summary counts (FLAC: decodable
    /// up to its last whole block, the block still in the encoder lost with the reader).
    @Test(arguments: ["raw", "flac"])
    func exitTimeOfRecordWhoseAudioReaderStalls(type: String) async throws {
        try await withPrivateServer { server in
            let out = try temporaryDirectory() + "/out." + type
            let recorder = try builtProduct("recorder")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess("python3", [signalsScript, "stalled-audio-reader", recorder, type, PrivateServer.sineSource, out],
                               environment: environment)
            }
            struct Outcome: Decodable {
                let status: Int
                let exit_ms: Double
                let pipe_bytes: Int
                let full: Int
                let stderr: String
            }
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data(result.stdout.utf8))
            #expect(outcome.pipe_bytes > outcome.full, "the pipe filled: \(outcome.pipe_bytes) of \(outcome.full)")
            #expect(outcome.status == 74, "\(outcome.stderr)")
            print("stalled audio reader (\(type)): exit \(Int(outcome.exit_ms)) ms after SIGINT")
            // The reader is given 1 s; then the take ends (bound: 5× the median measured, ~1.0 s).
            #expect(outcome.exit_ms >= 1_000 && outcome.exit_ms < 5_000, "\(outcome.exit_ms) ms")
            let lines = outcome.stderr.split(separator: "\n").map(String.init)
            let summary = try #require(lines.first { $0.hasPrefix("recorded standard output: ") }, "\(outcome.stderr)")
            let frames = try #require(summary.firstMatch(of: #/ (\d+) frames,/#).flatMap { Int64($0.1) }, "\(summary)")
            #expect(lines.last?.hasPrefix("recorder: standard output took nothing for 1 s after the stop (its reader stalled): "
                                          + "the recording ended after \(frames) frames") == true, "\(outcome.stderr)")
            if type == "raw" {
                let size = try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
                #expect(Int64(size) == frames * 2, "\(size) bytes in the pipe, \(frames) frames reported")
            } else {
                let (decoded, stated) = try decodedFrames(out)
                #expect(stated == sf_count_t.max, "a FLAC stream states no length")
                #expect(decoded <= frames && decoded >= frames - 4_097 - 4_096, "\(decoded) frames decoded, \(frames) reported")
            }
        }
    }

    /// `record -` (AU to a pipe) stopped in its first milliseconds: SIGINT and SIGTERM at 0…50 ms, 3 runs
    /// each: status 0 within `stopBoundMilliseconds`; the pipe carried nothing or a valid AU stream of
    /// whole frames.
    @Test func exitTimeOfRecordToAPipeStoppedInItsFirstMilliseconds() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try builtProduct("recorder")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess("python3", [signalsScript, "early-pipe", recorder, directory, PrivateServer.monoSink + ".monitor",
                                           "3", "0", "1", "5", "10", "20", "50"], environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let outcomes = try result.stdout.split(separator: "\n")
                .map { try JSONDecoder().decode(EarlyRun.self, from: Data($0.utf8)) }
            #expect(outcomes.count == 2 * 2 * 6 * 3)
            for run in outcomes {
                let label = "\(run.signal) at \(run.offset_ms) ms, SIGINT inherited \(run.inherited)"
                #expect(run.status == .code(0), "\(label): status \(run.status)")
                #expect(run.exit_ms < stopBoundMilliseconds, "\(label): exit \(run.exit_ms) ms after the signal")
                guard run.file else { continue }
                let header = try fileHeader(run.path)
                try #require(header.count >= 8, "\(label): \(header.count) bytes")
                #expect(Array(header[0..<4]) == Array(".snd".utf8), "\(label)")
                let offset = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
                let size = try #require(try FileManager.default.attributesOfItem(atPath: run.path)[.size] as? Int)
                #expect(size >= offset && (size - offset) % 2 == 0, "\(label): \(size) bytes, audio from \(offset)")
                #expect(try decodedFrames(run.path).frames == Int64((size - offset) / 2), "\(label)")
            }
        }
    }

    /// Standard output full (/dev/full) or closed (`>&-`): with level lines to write, one warning and exit
    /// 74, the file complete; with nothing to write there, nothing to report (exit 0).
    @Test(arguments: ["> /dev/full", ">&-"])
    func aFullOrClosedStandardOutputIsReportedOnlyWhenWrittenTo(redirection: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let command = "'\(try builtProduct("recorder"))' record --source \(PrivateServer.monoSink).monitor --duration 0.5"
            let json = try await bash("\(command) '\(directory)/json.aiff' --levels-json \(redirection)", server: server)
            #expect(json.status == 74, "\(json.stderr)")
            let reason = redirection == ">&-" ? "standard output is closed (Bad file descriptor)"
                : "writing to standard output failed: No space left on device"
            // At the end of the first buffer whose line failed: 00:00.100, or earlier when the server's first
            // delivery was a part buffer (once in CI: 00:00.050).
            let warning = json.stderr.split(separator: "\n").first { $0.contains("\(reason); the recording goes on") }
            #expect(warning?.hasPrefix("recorder: warning: at 00:00.") == true
                    && ["00:00.0", "00:00.1"].contains { warning?.contains("at \($0)") == true }, "\(json.stderr)")
            #expect(json.stderr.contains("recorder: \(reason); "), "\(json.stderr)")
            #expect(try expectCompleteAIFF(directory + "/json.aiff") == 22_050)
            let plain = try await bash("\(command) '\(directory)/plain.aiff' \(redirection)", server: server)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(!plain.stderr.contains("standard output"))
            #expect(try expectCompleteAIFF(directory + "/plain.aiff") == 22_050)
        }
    }

    /// The one-shot commands report a failed write to stdout with one line and 74, instead of exit 0.
    @Test(arguments: [["sources"], ["--help"], ["analyze", "TAKE"]])
    func everyCommandReportsAFailedWriteToStandardOutput(arguments: [String]) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            try writeWAV(directory + "/take.wav", samples: noiseSamples(count: 4_410), channels: 1)
            let words = arguments.map { $0 == "TAKE" ? "'\(directory)/take.wav'" : $0 }.joined(separator: " ")
            let result = try await bash("'\(try builtProduct("recorder"))' \(words) > /dev/full", server: server)
            #expect(result.status == 74, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("recorder: writing to standard output failed: No space left on device"),
                    "\(result.stderr)")
        }
    }
}

/// The pid of the `recorder record PATH` process, once it runs.
private func recorderProcess(writing path: String) async throws -> pid_t {
    var pid: pid_t?
    try await waitFor("a recorder process writing \(path)") {
        let found = try runProcess("pgrep", ["-f", "recorder record \(path) "])
        pid = found.stdout.split(separator: "\n").first.flatMap { pid_t($0) }
        return pid != nil
    }
    return pid!
}

/// Waits until the file has `count` complete lines.
private func waitForLines(in path: String, count: Int) async throws {
    try await waitFor("\(path) to have \(count) lines") {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").count >= count
    }
}

/// Waits until the level lines in `path` show signal and then a silent buffer.
private func waitForSilenceAfterSignal(in path: String) async throws {
    try await waitFor("\(path) to show the signal followed by silence") {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        let levels = (try? levelLines(complete)) ?? []
        guard let loud = levels.firstIndex(where: { $0.peak_db[0] > -160 }) else { return false }
        return levels[loud...].contains { $0.peak_db[0] == -160 }
    }
}

/// Whether `pid` still runs: it exists and is not a zombie (an orphan whose exit nobody has collected yet,
/// as when the shell that started it went with the terminal).
private func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    return stat[stat.index(close, offsetBy: 2)] != "Z"
}

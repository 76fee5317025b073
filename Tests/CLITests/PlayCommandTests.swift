// `recorder play` and `recorder sinks` as a user runs them: JSON lines, exit codes and one-line errors,
// and the keys in a real terminal (tmux).
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct PlayCommandTests {
    @Test func playPrintsOneJSONLinePerBufferHeardThenFinishedAndSinksListsTheSinks() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/noise.wav"
            try writeWAV(path, samples: noiseSamples(count: 44_100 * 2), channels: 1)
            let result = try await recorder(["play", path, "--device", PrivateServer.monoSink, "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let levels = try lines.filter { !$0.contains("\"event\"") }.map { try JSONDecoder().decode(LevelLine.self, from: Data($0.utf8)) }
            #expect(levels.count == 20 && levels.first?.frames == 4_410 && levels.last?.frames == 88_200 && levels.last?.t == 2.0)
            #expect(levels.allSatisfy { $0.peak_db[0] > -1 && $0.average_db[0] < -4 })
            #expect(lines.last == "{\"event\": \"finished\", \"file\": \"\(path)\", \"successfully\": true}")
            // The summary, after one warning for each underrun event (a player late on a loaded machine).
            let underruns = lines.filter { $0.hasPrefix("{\"event\": \"underrun\"") }.count
            let warnings = result.stderr.split(separator: "\n").dropLast()
            #expect(result.stderr.hasSuffix("played \(path): 2.000 s to \(PrivateServer.monoSink)\n") && warnings.count == underruns
                    && warnings.allSatisfy { $0.hasPrefix("recorder: warning: playback ran dry at ") }, "\(result.stderr)")

            // --start and --duration: exactly that stretch, the positions in the file.
            let part = try await recorder(["play", path, "--device", PrivateServer.monoSink, "--levels-json", "--quiet",
                                           "--start", "0.5", "--duration", "0.25"], server: server)
            #expect(part.status == 0 && part.stderr.isEmpty, "\(part.stderr)")
            let frames = try part.stdout.split(separator: "\n").filter { !$0.contains("\"event\"") }
                .map { try JSONDecoder().decode(LevelLine.self, from: Data($0.utf8)).frames }
            #expect(frames == [26_460, 30_870, 33_075], "\(frames)")

            let sinks = try await recorder(["sinks"], server: server)
            #expect(sinks.status == 0)
            #expect(sinks.stdout.contains(" \(PrivateServer.monoSink)\t") && sinks.stdout.contains(" \(PrivateServer.stereoSink)\t"))
            let json = try await recorder(["sinks", "--json"], server: server)
            #expect(json.stdout.contains("\"name\":\"\(PrivateServer.stereoSink)\"") && json.stdout.contains("\"channels\":2"))
        }
    }

    @Test func badInputIsOneLineWithTheUsualExitStatus() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/ok.wav"
            try writeWAV(path, samples: noiseSamples(count: 4_410), channels: 1)
            let cases: [([String], Int32, String)] = [
                (["play", directory + "/missing.wav"], 66, "recorder: cannot read '\(directory)/missing.wav': No such file or directory; check the path"),
                (["play", directory], 66, "recorder: cannot read '\(directory)': it is a directory; give a sound file in it"),
                (["play", path, "--device", "nope"], 69, "recorder: no playback sink named 'nope' on "),
                (["play", path, "--server", "unix:\(directory)/none"], 69, "recorder: cannot connect to PulseAudio server unix:\(directory)/none: "),
                (["play", path, "--volume", "2"], 64, "recorder: invalid --volume 2.0: use a gain from 0 to 1"),
                (["play", path, "--volume", "nan"], 64, "recorder: invalid --volume nan: use a gain from 0 to 1"),
                (["play", path, "--pan", "-1e300"], 64, "recorder: invalid --pan -inf: use -1 (left) to 1 (right)"),
                (["play", path, "--start", "1e15"], 64, "recorder: invalid --start 1000000000000000.0: use a number of seconds"),
                (["play", path, "--start", "5"], 64, "recorder: --start 5.000 is past the end of '\(path)' (0.100 s)"),
                (["play", path, "--duration=-1"], 64, "recorder: invalid --duration -1.0: use a number of seconds"),
                (["play"], 64, "recorder: "),
            ]
            for (arguments, status, prefix) in cases {
                let result = try await recorder(arguments, server: server)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix(prefix) && result.stderr.filter { $0 == "\n" }.count == 1,
                        "\(arguments): \(result.stderr)")
            }
        }
    }

    /// The server dies mid-file: exit 74 with one line naming the sink and what to do; the readings
    /// stop, no "finished" line claims success.
    @Test func theServerGoingAwayMidPlayExits74WithOneLine() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/short.wav"
            try writeWAV(path, samples: noiseSamples(count: 44_100), channels: 1)
            // Looped forever: still playing when the crash comes, however late CI's load lets this task
            // run (a 20 s file had been played to its end by then in one CI run).
            let process = try RunningProcess(try builtProduct("recorder"),
                ["play", path, "--device", PrivateServer.monoSink, "--levels-json", "--loops", "-1"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            for _ in 0..<3 { _ = await lines.next() }
            await server.crash()
            var rest: [String] = []
            while let line = await lines.next() { rest.append(line) }
            let (status, stderr) = await process.wait()
            #expect(status == 74, "\(stderr)")
            // The last line says it (an underrun warning may come before it when CI's load starves the reader).
            let errorLines = stderr.split(separator: "\n").map(String.init)
            #expect(errorLines.last == "recorder: playback to '\(PrivateServer.monoSink)' stopped: the server closed the stream "
                    + "(server gone or sink removed); check that the server is running and the sink exists (`recorder sinks`)")
            // Before it, what was heard (marked stopped), after any warning of an underrun.
            #expect(errorLines.dropLast().last?.hasPrefix("played \(path): ") == true
                    && errorLines.dropLast().last?.hasSuffix(" s to \(PrivateServer.monoSink) (stopped)") == true, "\(stderr)")
            #expect(errorLines.dropLast(2).allSatisfy { $0.hasPrefix("recorder: warning: playback ran dry at ") }, "\(stderr)")
            #expect(!rest.contains { $0.contains("\"successfully\": true") }, "\(rest)")
        }
    }
}

/// The keys of `play` in a terminal, where the readout's clock is read against the wall clock since the
/// key: in the test command's timing stage (one test at a time, on its own).
@Suite(.timeLimit(.minutes(2)))
struct PlayKeysTimingTests {
    @Test func positionAfterSpacePausesAndAnArrowSeeksInATerminalThenQStops() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/long.wav"
            try writeWAV(path, samples: sineSamples(frames: 44_100 * 30, frequency: 1_000, amplitudes: [0.5]), channels: 1)
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) play \(path) --device \(PrivateServer.monoSink); echo status $?; sleep 60",
                               width: 160, environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            // The readout is the line that starts with the clock; a warning (a gap heard when CI's load
            // starves the reader) is printed above it and must not be taken for it.
            func readout(_ screen: String) -> String? {
                nonEmptyLines(screen).last { $0.prefixMatch(of: #/\d\d:\d\d\.\d /#) != nil }
            }
            func seconds(_ line: String) -> Double? {
                guard let clock = line.prefixMatch(of: #/(\d\d):(\d\d\.\d) /#) else { return nil }
                return Double(clock.1).flatMap { minutes in Double(clock.2).map { minutes * 60 + $0 } }
            }
            let drawing = try await terminal.waitFor("avg  -9.0 pk  -6.0 dBFS")
            let line = try #require(readout(drawing), "\(drawing)")
            #expect(line.wholeMatch(of: /\d\d:\d\d\.\d \/ 00:30\.0 \[[#.|]+\] avg  -9\.0 pk  -6\.0 dBFS */) != nil, "\(line)")
            try terminal.tmux(["send-keys", "Space"])
            _ = try await terminal.waitFor("paused")
            // The clock where it paused, once the readout has caught up with the readings already heard
            // (its consumer can lag behind the player under load): the same paused line for 0.5 s.
            var pausedLine = ""
            var steadySince = monotonicSeconds()
            let pauseDeadline = monotonicSeconds() + 20
            while monotonicSeconds() < pauseDeadline {
                let line = readout(try terminal.screen()) ?? ""
                if line != pausedLine { pausedLine = line; steadySince = monotonicSeconds() }
                if monotonicSeconds() - steadySince >= 0.5 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(pausedLine.contains("paused"), "\(pausedLine)")
            let at = try #require(seconds(pausedLine), "\(pausedLine)")
            try terminal.tmux(["send-keys", "Right"])
            try terminal.tmux(["send-keys", "Space"])
            let resumed = monotonicSeconds()
            // Resumed 5 s further on: the clock reads at least 5 s more than where it paused.
            var later = 0.0
            var last = ""
            let deadline = monotonicSeconds() + 30
            while monotonicSeconds() < deadline {
                last = try terminal.screen()
                if let text = readout(last), !text.contains("paused"), let clock = seconds(text) {
                    later = clock
                    if later >= at + 5 { break }
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            // Not more than 5 s plus the time it has played since (a second of slack for the screen's 0.1 s steps).
            let since = monotonicSeconds() - resumed
            #expect(later >= at + 5 && later <= at + 5 + since + 1, "paused at \(at), then \(later) after \(since) s; screen:\n\(last)")
            try terminal.tmux(["send-keys", "q"])
            let ended = try await terminal.waitFor("status 0")
            // q stops as a signal does: what was heard is said, marked as stopped.
            #expect(ended.contains("played \(path): ") && ended.contains(" s to \(PrivateServer.monoSink) (stopped)"), "\(ended)")
        }
    }
}

/// Numbers on the command line, apart from `PlayCommandTests` (which hear playback bit for bit, one test
/// at a time): these only need each run to end as it should.
@Suite(.timeLimit(.minutes(3)))
struct PlayOptionNumberTests {
    /// Hostile numbers on every numeric option of `play`, in both spellings (`--x=v`, `--x v`): each is
    /// taken (and the file plays, at most 0.05 s) or refused in one line naming the option, status 64;
    /// none traps (`--loops 9223372036854775807` ended in "arithmetic overflow", status 132), none reads
    /// a negative number as a missing value. AVAudioPlayer's rule for loops: any negative is forever.
    @Test func everyNumericOptionIsTakenOrRefusedInOneLineNeverATrap() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/short.wav"
            try writeWAV(path, samples: noiseSamples(count: 8_820), channels: 1)
            let values = ["0", "-1", "-0.5", "1e-9", "1e15", "1e300", "nan", "inf", "-inf", "9223372036854775807",
                          "-9223372036854775808", "9223372036854775808"]
            let taken: [String: Set<String>] = [
                "--volume": ["0", "1e-9"],
                "--pan": ["0", "-1", "-0.5", "1e-9"],
                "--loops": ["0", "-1", "9223372036854775807", "-9223372036854775808"],
                "--start": ["0", "1e-9"],
                "--duration": ["0", "1e-9"],
                "--loudness-target": ["0", "-1", "-0.5"],
                "--vu-reference": ["0", "-1", "-0.5"],
            ]
            for (option, accepted) in taken.sorted(by: { $0.key < $1.key }) {
                for value in values {
                    // Both spellings where they can differ: "--x -1" must read -1 as the value, not an option.
                    for spelling in value.hasPrefix("-") ? [["\(option)=\(value)"], [option, value]] : [["\(option)=\(value)"]] {
                        let bounded = option == "--duration" ? [] : ["--duration", "0.05"]
                        let meter = option == "--loudness-target" ? ["--meter", "loudness"] : option == "--vu-reference" ? ["--meter", "vu"] : []
                        let arguments = ["play", path, "--device", PrivateServer.monoSink, "--quiet"] + spelling + bounded + meter
                        let result = try await recorder(arguments, server: server)
                        if accepted.contains(value) {
                            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
                        } else {
                            let lines = result.stderr.split(separator: "\n")
                            #expect(result.status == 64 && lines.count == 1 && lines[0].hasPrefix("recorder: ")
                                    && lines[0].contains("invalid") && lines[0].contains(option.dropFirst(2))
                                    && !lines[0].contains("Missing value"), "\(arguments): \(result.stderr)")
                        }
                    }
                }
            }
        }
    }
}

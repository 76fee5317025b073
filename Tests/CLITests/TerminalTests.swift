// The live readout as a person sees it: `recorder` in a real pseudo-terminal (tmux), the screen read back.
import Foundation
import Testing
import TestSupport

/// A tmux server of the test's own (its own socket name), killed at the end.
final class Terminal {
    let socket = "recorder-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    @discardableResult
    func tmux(_ arguments: [String]) throws -> ProcessResult {
        try runProcess("tmux", ["-L", socket] + arguments)
    }

    /// Starts `command` in a detached session of `width` columns with `environment` added.
    func start(_ command: String, width: Int, height: Int = 10, environment: [String: String]) throws {
        let variables = environment.flatMap { ["-e", "\($0.key)=\($0.value)"] }
        let result = try runLeavingDaemons("tmux", ["-L", socket, "new-session", "-d",
                                                    "-x", "\(width)", "-y", "\(height)"] + variables + [command])
        guard result.status == 0 else { throw TestFailure("tmux new-session failed: \(result.stderr)") }
    }

    /// The screen's text (with `escapes`, its colour attributes too).
    func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : [])).stdout
    }

    /// Polls the screen until it contains `text` (bounded at 30 s of the clock, not a count of polls:
    /// under CI's load each capture alone can take tens of milliseconds), and returns it.
    func waitFor(_ text: String) async throws -> String {
        try await waitFor("'\(text)'") { $0.contains(text) }
    }

    /// Polls the screen until `shows` holds for it (the same 30 s ceiling), and returns it.
    func waitFor(_ what: String, until shows: (String) -> Bool) async throws -> String {
        let deadline = monotonicSeconds() + 30
        while monotonicSeconds() < deadline {
            let current = try screen()
            if shows(current) { return current }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the terminal never showed \(what); it shows:\n\(try screen())")
    }

    deinit { _ = try? tmux(["kill-server"]) }
}

func nonEmptyLines(_ screen: String) -> [String] {
    screen.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
}

@Suite(.timeLimit(.minutes(3)))
struct TerminalTests {
    @Test func theReadoutIsOneLineRedrawnInPlaceShowingTheLevels() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) record \(path); sleep 60", width: 160,
                               environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            let drawing = try await terminal.waitFor("avg  -9.0 pk  -6.0 dBFS")
            let lines = nonEmptyLines(drawing)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.last == "keys: space pause/resume, m marker, c circle, n no good, q stop", "the keys are named under the readout")
            let line = try #require(lines.first)
            #expect(line.wholeMatch(of: /\d\d:\d\d\.\d \[[#.|]+\] avg  -9\.0 pk  -6\.0 dBFS +[\d.]+ (B|KiB|MiB)/) != nil, "\(line)")
            #expect(line.contains("avg  -9.0 pk  -6.0 dBFS"))
            #expect(line.count <= 159)
            // Colour zone of −9 dBFS: yellow (−15 … −2).
            #expect(try terminal.screen(escapes: true).contains("\u{1B}[33m"))

            // Ctrl-C, as a person stops it.
            try terminal.tmux(["send-keys", "C-c"])
            let end = try await terminal.waitFor("recorded ")
            let final = nonEmptyLines(end)
            #expect(final.count == 2, "the readout stayed on one line, the keys' line gone: \(final)")
            // The last drawing shows the partial buffer that Ctrl-C flushed: same shape, its own values.
            #expect(final.first?.wholeMatch(of: /\d\d:\d\d\.\d \[[#.|]+\] avg +-?[\d.]+ pk +-?[\d.]+ dBFS +[\d.]+ (B|KiB|MiB)/) != nil,
                    "\(final)")
            let summary = try #require(final.last)
            #expect(summary.hasPrefix("recorded \(path): "))
            // What the file holds: its frames, its average (the sine's −9.03 dBFS, less any silence), and the
            // frames dropped (beside other tests' load a take can lose some: then marked in the file).
            let file = try readSoundFile(path)
            let dropped = try #require(summaryDropped(summary), "\(summary)")
            #expect(try NumberedSource.lossIsMarked(dropped, in: path), "\(summary)")
            let average = summaryAverage(summary) ?? 0
            #expect(abs(average - levels(of: file.samples).average) <= 0.006, "the file holds \(levels(of: file.samples).average) dBFS")
            #expect(summary.hasSuffix(", \(file.frames) frames, average \(String(format: "%.2f", average)) dBFS, "
                                      + "peak -6.02 dBFS, clipped 0 samples, dropped \(dropped) frames"), "\(summary)")
        }
    }

    @Test func aNarrowTerminalAndNoColorAreRespected() async throws {
        try await withPrivateServer { server in
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) meter --duration 2; sleep 60", width: 50,
                               environment: ["PULSE_SERVER": server.address, "NO_COLOR": "1"])
            let drawing = try await terminal.waitFor("-9.0 pk  -6.0 dBFS")
            let lines = nonEmptyLines(drawing)
            #expect(lines.count == 1, "\(lines)")
            #expect((lines.first?.count ?? 99) <= 49)
            #expect(lines.first?.contains("[") == true, "a bar still fits in 50 columns")
            #expect(!(try terminal.screen(escapes: true)).contains("\u{1B}[3"), "no colour with NO_COLOR")
        }
    }

    @Test(.enabled(if: ServerKind.current == .pulseaudio,
                 "on PipeWire, moves are wireplumber's business: 0.4.13 may keep a stream on the source it asked for, so a move is not reliable there"))
    func aWarningIsPrintedAboveTheReadoutWhichGoesOnBelowIt() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) record \(path) --source \(PrivateServer.monoSink).monitor; sleep 60",
                               width: 160, environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            _ = try await terminal.waitFor(" dBFS")
            let other = PrivateServer.stereoSink + ".monitor"
            try server.moveRecordStream(to: other)
            // The warning, and the readout drawn again below it (a redraw is its own write).
            let warned = try await terminal.waitFor("the warning with a readout below it") { screen in
                let lines = nonEmptyLines(screen).filter { !$0.hasPrefix("keys: ") }
                return screen.contains("moved to source '\(other)'") && lines.last?.contains(" dBFS") == true
            }
            let lines = nonEmptyLines(warned).filter { !$0.hasPrefix("keys: ") }
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.wholeMatch(of: /recorder: warning: at \d\d:\d\d\.\d\d\d the stream was moved to source 'rk_stereo.monitor'/) != nil,
                    "\(lines)")
            #expect(lines.last?.contains(" dBFS") == true, "the readout is drawn below the warning: \(lines)")
            try server.moveRecordStream(to: PrivateServer.monoSink + ".monitor")
            let back = nonEmptyLines(try await terminal.waitFor("the second warning with a readout below it") { screen in
                let lines = nonEmptyLines(screen).filter { !$0.hasPrefix("keys: ") }
                return screen.contains("moved to source '\(PrivateServer.monoSink).monitor'") && lines.last?.contains(" dBFS") == true
            }).filter { !$0.hasPrefix("keys: ") }
            #expect(back.count == 3 && back[2].contains(" dBFS"), "\(back)")
        }
    }

    /// The keys of `record` as a person uses them, in a 100-column terminal with a stereo take: space
    /// pauses and resumes, m drops a marker (SIGUSR1 too), q stops as Ctrl-C does; the readout shows
    /// the state with both channels' bars one width; the file holds the markers, the paused time is
    /// left out; and the terminal is back in its normal mode afterwards.
    @Test func keysPauseResumeMarkAndStopAndTheTerminalIsPutBack() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/keys.wav", events = directory + "/events.jsonl"
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) record \(path) --channels 2 --levels-json > \(events); stty -a; sleep 60",
                               width: 100, height: 40, environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            let first = nonEmptyLines(try await terminal.waitFor("pk  -6.0 dBFS"))
            #expect(first.count == 3 && first[2] == "keys: space pause/resume, m marker, c circle, n no good, q stop", "\(first)")
            func bar(_ line: String) -> Substring { line.drop { $0 != "[" }.prefix { $0 != "]" } }
            #expect(first.count == 3 && !bar(first[0]).isEmpty && bar(first[0]).count == bar(first[1]).count, "\(first)")

            try terminal.tmux(["send-keys", "m"])
            _ = try await terminal.waitFor(" 1 marker")
            // c circles the take, n marks it no good, n again takes that back: the hint says how it stands.
            try terminal.tmux(["send-keys", "c"])
            _ = try await terminal.waitFor("q stop  [take circled]")
            try terminal.tmux(["send-keys", "n"])
            _ = try await terminal.waitFor("[take circled, no good]")
            try terminal.tmux(["send-keys", "n"])
            _ = try await terminal.waitFor("the take circled alone") { $0.contains("q stop  [take circled]") && !$0.contains("no good]") }
            try terminal.tmux(["send-keys", "Space"])
            _ = try await terminal.waitFor(" paused")
            // A second of audio captured while paused (the level lines go on), then resume.
            let pausedAt = try await jsonEvent("paused", in: events)
            _ = try await jsonLine(in: events) { ($0["t"] as? Double).map { $0 >= pausedAt.t + 1 } ?? false }
            try terminal.tmux(["send-keys", "Space"])
            _ = try await terminal.waitFor("resumed after ")
            // SIGUSR1 to the recorder: the child of the pane's shell.
            let shell = try terminal.tmux(["display", "-p", "#{pane_pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let child = try runProcess("pgrep", ["-P", shell]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let pid = try #require(Int32(child), "the recorder under the pane's shell \(shell): '\(child)'")
            kill(pid, SIGUSR1)
            _ = try await terminal.waitFor(" 2 markers")
            try terminal.tmux(["send-keys", "q"])
            let end = try await terminal.waitFor("icanon")

            let lines = nonEmptyLines(end)
            let summary = try #require(lines.first { $0.hasPrefix("recorded \(path): ") })
            let unpaused = try await jsonEvent("unpaused", in: events)
            let paused = try #require(unpaused.fields["paused_frames"] as? Int)
            #expect(paused >= 44_100)
            #expect(lines.contains { $0.hasPrefix("paused at ") && $0.hasSuffix(" s left out") }, "\(lines)")
            let markers = try jsonLines(in: events).filter { $0["event"] as? String == "marker" }
            #expect(markers.map { $0["label"] as? String } == ["marker 1", "marker 2"])
            let frames = markers.compactMap { $0["frame"] as? Int }
            let listed = frames.enumerated().map { clockText(Double($1) / 44_100) + " marker \($0 + 1)" }
            #expect(lines.contains("markers: " + listed.joined(separator: ", ")), "\(lines)")
            // The file: the markers where the events said, the paused second left out.
            let analysis = try await recorder(["analyze", "--json", path])
            let file = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
            let stored = try #require(file["markers"] as? [[String: Any]])
            #expect(stored.compactMap { $0["frame"] as? Int } == frames)
            #expect(stored.compactMap { $0["label"] as? String } == ["marker 1", "marker 2"])
            // The take's marks, saved in its iXML when the file closed.
            let sheet = try #require(try ixmlDocument(path), "no iXML chunk in \(path)")
            #expect(sheet.contains("<CIRCLED>TRUE</CIRCLED>") && sheet.contains("<NO_GOOD>FALSE</NO_GOOD>"), "\(sheet)")
            let levels = try jsonLines(in: events).filter { $0["event"] == nil }
            let captured = try #require(levels.last?["frames"] as? Int)
            let fileFrames = Int(((file["duration_s"] as? Double) ?? 0) * 44_100 + 0.5)
            #expect(fileFrames == captured - paused, "\(summary)")
            #expect(summary.contains(", \(fileFrames) frames,"))
            // Raw mode undone: stty, run after the recorder, sees the terminal as it was.
            let modes = lines.joined(separator: " ")
            #expect(modes.contains(" icanon") && !modes.contains("-icanon") && !modes.contains("-echo "), "\(lines)")
        }
    }

    /// A take started as a background job of an interactive shell (`… &`): it takes no keys and leaves
    /// the terminal's modes alone (the shell's user types on it meanwhile; before, the job put it in raw
    /// mode under the shell, and its key reader could only fail: a background read is refused), and it
    /// records to its end.
    @Test func aBackgroundJobRecordsWithoutTakingTheTerminal() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/background.aiff"
            let terminal = Terminal()
            try terminal.start("bash --norc --noprofile -i", width: 120, height: 40,
                               environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            // The user runs stty while the job records (its file has begun, and the job still runs after
            // stty), then waits for it.
            try terminal.tmux(["send-keys", "\(try builtProduct("recorder")) record \(path) --source \(PrivateServer.monoSink).monitor "
                               + "--duration 3 & until [ -s \(path) ]; do sleep 0.05; done; stty -a; kill -0 $! && echo \"job=run\"\"ning\"; "
                               + "wait $!; echo \"sta\"\"tus=$?\"", "Enter"])
            let screen = try await terminal.waitFor("status=")  // typed as "sta""tus=", so only the output matches
            #expect(screen.contains("status=0"), "\(screen)")
            #expect(screen.contains("job=running"), "stty ran while the job recorded: \(screen)")
            #expect(!screen.contains("keys: "), "no keys for a background job: \(screen)")
            #expect(screen.contains(" icanon") && !screen.contains("-icanon") && !screen.contains("-echo "),
                    "the terminal as the shell had it while the job ran: \(screen)")
            #expect(try readSoundFile(path).frames == 132_300)
        }
    }
}

/// The JSON objects in the file at `path`, one per line (a partial last line left out).
private func jsonLines(in path: String) throws -> [[String: Any]] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Waits (bounded at 30 s of the clock) for a JSON line in `path` that satisfies `isMatch`.
private func jsonLine(in path: String, where isMatch: ([String: Any]) -> Bool) async throws -> [String: Any] {
    let deadline = monotonicSeconds() + 30
    while monotonicSeconds() < deadline {
        if let line = try jsonLines(in: path).first(where: isMatch) { return line }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("no such line in \(path): \(try jsonLines(in: path).suffix(3))")
}

/// Waits for the `--levels-json` event `kind`, returning its time and fields.
private func jsonEvent(_ kind: String, in path: String) async throws -> (t: Double, fields: [String: Any]) {
    let line = try await jsonLine(in: path) { $0["event"] as? String == kind }
    return (line["t"] as? Double ?? -1, line)
}

/// The command's clock: mm:ss.mmm.
private func clockText(_ seconds: Double) -> String {
    let millis = Int((seconds * 1000).rounded())
    func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
    return pad(millis / 60_000, 2) + ":" + pad(millis / 1000 % 60, 2) + "." + pad(millis % 1000, 3)
}

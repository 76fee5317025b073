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
    func start(_ command: String, width: Int, environment: [String: String]) throws {
        let variables = environment.flatMap { ["-e", "\($0.key)=\($0.value)"] }
        let result = try runLeavingDaemons("tmux", ["-L", socket, "new-session", "-d",
                                                    "-x", "\(width)", "-y", "10"] + variables + [command])
        guard result.status == 0 else { throw TestFailure("tmux new-session failed: \(result.stderr)") }
    }

    /// The screen's text (with `escapes`, its colour attributes too).
    func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : [])).stdout
    }

    /// Polls the screen until it contains `text` (bounded at 10 s), and returns it.
    func waitFor(_ text: String) async throws -> String {
        for _ in 0..<500 {
            let current = try screen()
            if current.contains(text) { return current }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the terminal never showed '\(text)'; it shows:\n\(try screen())")
    }

    deinit { _ = try? tmux(["kill-server"]) }
}

func nonEmptyLines(_ screen: String) -> [String] {
    screen.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
}

@Suite(.timeLimit(.minutes(1)))
struct TerminalTests {
    @Test func theReadoutIsOneLineRedrawnInPlaceShowingTheLevels() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) record \(path); sleep 60", width: 160,
                               environment: ["PULSE_SERVER": server.address, "NO_COLOR": ""])
            let drawing = try await terminal.waitFor("avg  -9.0 pk  -6.0 dBFS")
            let lines = nonEmptyLines(drawing)
            #expect(lines.count == 1, "\(lines)")
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
            #expect(final.count == 2, "the readout stayed on one line: \(final)")
            // The last drawing shows the partial buffer that Ctrl-C flushed: same shape, its own values.
            #expect(final.first?.wholeMatch(of: /\d\d:\d\d\.\d \[[#.|]+\] avg +-?[\d.]+ pk +-?[\d.]+ dBFS +[\d.]+ (B|KiB|MiB)/) != nil,
                    "\(final)")
            let summary = try #require(final.last)
            #expect(summary.hasPrefix("recorded \(path): "))
            #expect(summary.hasSuffix(" frames, average -9.03 dBFS, peak -6.02 dBFS, clipped 0 samples, dropped 0 frames"))
            let frames = try readSoundFile(path).frames
            #expect(summary.contains(", \(frames) frames,"))
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
            let warned = try await terminal.waitFor("moved to source '\(other)'")
            let lines = nonEmptyLines(warned)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.wholeMatch(of: /recorder: warning: at \d\d:\d\d\.\d\d\d the stream was moved to source 'rk_stereo.monitor'/) != nil,
                    "\(lines)")
            #expect(lines.last?.contains(" dBFS") == true, "the readout is drawn below the warning: \(lines)")
            try server.moveRecordStream(to: PrivateServer.monoSink + ".monitor")
            let back = nonEmptyLines(try await terminal.waitFor("moved to source '\(PrivateServer.monoSink).monitor'"))
            #expect(back.count == 3 && back[2].contains(" dBFS"), "\(back)")
        }
    }
}

// Issue 14, point 6: the README's examples are run, so they cannot drift from what the program does.
// Every code block that follows a `<!-- checked by ReadmeTests -->` line is a shell session: lines
// starting with `$ ` are commands, the lines under one are what it prints (standard output and error,
// as a terminal shows them). Each block runs in a new directory against a private PulseAudio server
// (the one the README's outputs were captured from: `rk_sine`, a 1 kHz sine at half scale, `rk_mono`
// and `rk_stereo`, null sinks), with the built `recorder` first on PATH, and every line must match.
import Foundation
import Testing
import TestSupport

/// A checked README block: its commands, each with the lines it must print.
struct ReadmeSession: CustomStringConvertible, Sendable {
    let line: Int
    var steps: [(command: String, output: [String])] = []
    var description: String { "README.md:\(line)" }

    static let marker = "<!-- checked by ReadmeTests -->"

    /// The checked blocks of the README at `path`.
    static func all(in path: String) throws -> [ReadmeSession] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        var sessions: [ReadmeSession] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index] == marker, index + 1 < lines.count, lines[index + 1].hasPrefix("```") else { continue }
            var session = ReadmeSession(line: index + 3)
            index += 2
            while index < lines.count && !lines[index].hasPrefix("```") {
                let text = lines[index]
                if text.hasPrefix("$ ") {
                    session.steps.append((String(text.dropFirst(2)), []))
                } else if !session.steps.isEmpty {
                    session.steps[session.steps.count - 1].output.append(text)
                }
                index += 1
            }
            sessions.append(session)
        }
        return sessions
    }
}

private let readmePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../README.md").standardizedFileURL.path

@Suite(.timeLimit(.minutes(2)))
struct ReadmeTests {
    @Test func theREADMEHasCheckedExamples() throws {
        let sessions = try ReadmeSession.all(in: readmePath)
        #expect(sessions.count >= 5, "\(sessions.count) checked blocks")
        #expect(sessions.allSatisfy { !$0.steps.isEmpty && $0.steps.allSatisfy { $0.command.contains("recorder") } }, "\(sessions)")
    }

    @Test(.enabled(if: ServerKind.current == .pulseaudio, "the README's outputs are PulseAudio's (source indices, names)"),
          arguments: try ReadmeSession.all(in: readmePath))
    func theREADMEExampleRunsAndPrintsWhatItShows(session: ReadmeSession) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            var environment = server.clientEnvironment
            let binaries = URL(fileURLWithPath: try builtProduct("recorder")).deletingLastPathComponent().path
            environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["NO_COLOR"] = "1"
            for step in session.steps {
                let script = "cd '\(directory)' && { \(step.command)\n} 2>&1"
                let settled = environment
                let result = try await offThread { try runProcess("bash", ["-c", script], environment: settled) }
                let printed = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let lines = printed.last == "" ? Array(printed.dropLast()) : printed
                #expect(lines == step.output, "\(session): $ \(step.command)\nprinted:\n\(lines.joined(separator: "\n"))")
            }
        }
    }
}

// Issue 14, point 6: the examples of README.md and of every docs/*.md are run, so they cannot drift
// from what the program does. Every code block that follows a `<!-- checked by ReadmeTests -->` line in
// one of them is a shell session: lines starting with `$ ` are commands, the lines under one are what it
// prints (standard output and error, as a terminal shows them). Each block runs in a new directory
// against a private PulseAudio server (the one the outputs were captured from: `rk_sine`, a 1 kHz sine
// at half scale, `rk_mono` and `rk_stereo`, null sinks), with the built `recorder` first on PATH, and
// every line must match: word for word, integers exactly, and decimals to within one unit of the last
// digit shown (a meter reading that sits on a rounding boundary, e.g. PPM mark 6.995 on the sine, prints
// 6.99 or 7.00 by the phase the sine starts at).
import Foundation
import Testing
import TestSupport

/// A checked block of the documentation: the file it is in (relative to the package's root), the line
/// of its first command, and its commands, each with the lines it must print.
struct ReadmeSession: CustomStringConvertible, Sendable {
    let file: String
    let line: Int
    var steps: [(command: String, output: [String])] = []
    var description: String { "\(file):\(line)" }

    static let marker = "<!-- checked by ReadmeTests -->"

    /// The checked blocks of `files` (paths relative to the package's root, e.g. `docs/command.md`), in
    /// the order given.
    static func all(in files: [String]) throws -> [ReadmeSession] {
        var sessions: [ReadmeSession] = []
        for file in files {
            let path = packageRoot.appendingPathComponent(file).path
            let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            sessions += blocks(of: lines, in: file)
        }
        return sessions
    }

    /// The checked blocks among `lines`, the text of `file`.
    private static func blocks(of lines: [String], in file: String) -> [ReadmeSession] {
        var sessions: [ReadmeSession] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index] == marker, index + 1 < lines.count, lines[index + 1].hasPrefix("```") else { continue }
            var session = ReadmeSession(file: file, line: index + 3)
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

/// Whether `printed` is the document's `shown` line: the same text and integers, decimals within one unit
/// of the last digit shown (and with as many digits).
func readmeLineMatches(_ printed: String, _ shown: String) -> Bool {
    if printed == shown { return true }
    // Split into runs of digits (with a leading minus and one decimal point) and the text between.
    func parts(_ line: String) -> [(text: String, number: Substring?)] {
        var result: [(String, Substring?)] = []
        var text = ""
        var index = line.startIndex
        while index < line.endIndex {
            var end = index
            if line[end] == "-", line.index(after: end) < line.endIndex, line[line.index(after: end)].isNumber { end = line.index(after: end) }
            if line[end].isNumber {
                while end < line.endIndex && (line[end].isNumber || line[end] == ".") { end = line.index(after: end) }
                result.append((text, line[index..<end]))
                text = ""
                index = end
            } else {
                text.append(line[index])
                index = line.index(after: index)
            }
        }
        result.append((text, nil))
        return result
    }
    let a = parts(printed), b = parts(shown)
    guard a.count == b.count else { return false }
    return zip(a, b).allSatisfy { x, y in
        guard x.text == y.text else { return false }
        guard let p = x.number, let q = y.number else { return x.number == y.number }
        let decimals = { (n: Substring) in n.firstIndex(of: ".").map { n.distance(from: $0, to: n.endIndex) - 1 } ?? 0 }
        // Integers (frame counts, exit statuses, indices) exactly; readings to one unit of the last decimal.
        guard decimals(p) > 0, decimals(p) == decimals(q), let u = Double(p), let v = Double(q) else { return p == q }
        return abs(u - v) <= pow(10, -Double(decimals(p))) * 1.000_001
    }
}

private let readmePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../README.md").standardizedFileURL.path

/// The package's root, where README.md and docs/ are.
private let packageRoot = URL(fileURLWithPath: readmePath).deletingLastPathComponent()

/// Where the usage summary of every subcommand is: the command's reference.
private let usagePath = packageRoot.appendingPathComponent("docs/command.md").path

/// The documents whose checked blocks are run, relative to the package's root: README.md, then every
/// docs/*.md in name order.
private func checkedDocuments() throws -> [String] {
    let docs = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
    return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
}

@Suite(.timeLimit(.minutes(2)))
struct ReadmeTests {
    @Test func aLineMatchesWordForWordAndNumbersToTheLastDigitShown() {
        #expect(readmeLineMatches(#"{"ppm_db": [-6.02], "bbc_mark": [7.00]}"#, #"{"ppm_db": [-6.02], "bbc_mark": [6.99]}"#))
        #expect(readmeLineMatches("0.500 s, 22050 frames", "0.501 s, 22050 frames"))
        #expect(!readmeLineMatches("0.500 s, 22050 frames", "0.500 s, 22049 frames"))
        #expect(!readmeLineMatches("0.500 s, 22050 frames", "0.502 s, 22050 frames"))
        #expect(!readmeLineMatches("exit 64", "exit 65"))
        #expect(!readmeLineMatches("0.50 s", "0.500 s"))
        #expect(!readmeLineMatches("exit 64", "exit 66"))
        #expect(!readmeLineMatches("average -9.03 dBFS", "average -9.03 dB"))
        #expect(!readmeLineMatches("peak -6.02", "peak 6.02"))
    }

    @Test func theREADMEHasCheckedExamples() throws {
        let sessions = try ReadmeSession.all(in: checkedDocuments())
        #expect(sessions.count >= 5, "\(sessions.count) checked blocks")
        #expect(sessions.contains { $0.file == "README.md" }, "no checked block in README.md: \(sessions)")
        // Sessions of the command (a step may make its input, e.g. with sox).
        #expect(sessions.allSatisfy { $0.steps.contains { $0.command.contains("recorder") } }, "\(sessions)")
    }

    /// The usage summary at the top of docs/command.md names every option each subcommand's help lists,
    /// and no other.
    @Test(arguments: ["record", "meter", "play", "sources", "sinks", "analyze", "peaks", "normalize", "serve"])
    func theUsageSummaryNamesEveryOptionOfTheHelp(subcommand: String) throws {
        let lines = try String(contentsOfFile: usagePath, encoding: .utf8).components(separatedBy: "\n")
        let first = try #require(lines.firstIndex { $0.hasPrefix("recorder \(subcommand) ") }, "no usage line for \(subcommand)")
        var usage = lines[first]
        for line in lines[(first + 1)...] {
            guard line.hasPrefix(" ") else { break }
            usage += line
        }
        let help = try runProcess(try builtProduct("recorder"), [subcommand, "--help"], environment: ["COLUMNS": "200"])
        func options(_ text: String) -> Set<String> {
            Set(text.matches(of: /--[a-z][a-z0-9-]+/).map { String($0.output) })
        }
        // The options section's names: a line that begins with a dash, up to its description.
        let names = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("-") }.map { $0.components(separatedBy: "  ")[0] }
        let listed = options(names.joined(separator: " ")).subtracting(["--help", "--version"])
        #expect(!listed.isEmpty)
        #expect(options(usage) == listed, "docs/command.md: \(options(usage).sorted()), help: \(listed.sorted())")
    }

    /// The embedding example is the file `EmbeddingTests` builds and runs, so it compiles and does
    /// what it shows.
    @Test func theEmbeddingExampleIsTheExamplePackagesSource() throws {
        let source = "Examples/ExternalPackage/Sources/take/main.swift"
        let lines = try String(contentsOfFile: readmePath, encoding: .utf8).components(separatedBy: "\n")
        let marker = try #require(lines.firstIndex(of: "<!-- \(source) -->"), "the README quotes \(source)")
        #expect(lines[marker + 1] == "```swift")
        let end = try #require(lines[(marker + 2)...].firstIndex(of: "```"))
        let quoted = lines[(marker + 2)..<end].joined(separator: "\n") + "\n"
        #expect(quoted == (try String(contentsOf: packageRoot.appendingPathComponent(source), encoding: .utf8)))
    }

    @Test(.enabled(if: ServerKind.current == .pulseaudio, "the documents' outputs are PulseAudio's (source indices, names)"),
          arguments: try ReadmeSession.all(in: checkedDocuments()))
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
                let matches = lines.count == step.output.count && zip(lines, step.output).allSatisfy(readmeLineMatches)
                #expect(matches, "\(session): $ \(step.command)\nprinted:\n\(lines.joined(separator: "\n"))")
            }
        }
    }
}

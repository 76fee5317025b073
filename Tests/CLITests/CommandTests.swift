// The built `recorder` binary run as a subprocess against a private PulseAudio server.
import CSndFile
import Foundation
import Testing
import TestSupport

/// Runs `recorder ARGS` to the end against `server`.
func recorder(_ arguments: [String], server: PrivateServer? = nil,
              extraEnvironment: [String: String] = [:]) async throws -> ProcessResult {
    var environment = server?.clientEnvironment ?? ProcessInfo.processInfo.environment
    environment.merge(extraEnvironment) { $1 }
    let executable = try builtProduct("recorder")
    let settled = environment
    return try await offThread { try runProcess(executable, arguments, environment: settled) }
}

/// The JSON level lines of stdout, parsed; silence, which JSON spells null, as the API's −160.
struct LevelLine: Decodable {
    let t: Double
    let frames: Int64
    let average_db: [Double]
    let peak_db: [Double]
    /// The lines' own spelling, null included.
    let rawPeaks: [Double?]

    private enum CodingKeys: String, CodingKey { case t, frames, average_db, peak_db }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        t = try container.decode(Double.self, forKey: .t)
        frames = try container.decode(Int64.self, forKey: .frames)
        average_db = try container.decode([Double?].self, forKey: .average_db).map { $0 ?? -160 }
        rawPeaks = try container.decode([Double?].self, forKey: .peak_db)
        peak_db = rawPeaks.map { $0 ?? -160 }
    }
}

/// The level lines of `--levels-json` output (event lines, which carry "event", are left out).
func levelLines(_ stdout: String) throws -> [LevelLine] {
    try stdout.split(separator: "\n").filter { !$0.hasPrefix("{\"event\"") }
        .map { try JSONDecoder().decode(LevelLine.self, from: Data($0.utf8)) }
}

/// An event line of `--levels-json` output.
struct EventLine: Decodable, Equatable {
    let event: String
    let t: Double
    let frames: Int64?
    let duration_s: Double?
    let source: String?
    let path: String?
    let reason: String?
    var alarm: String? = nil
    var state: String? = nil
    var hook: String? = nil
}

func eventLines(_ stdout: String) throws -> [EventLine] {
    try stdout.split(separator: "\n").filter { $0.hasPrefix("{\"event\"") }
        .map { try JSONDecoder().decode(EventLine.self, from: Data($0.utf8)) }
}

@Suite(.timeLimit(.minutes(3)))
struct CommandTests {
    @Test func durationIsExactAndTheSummarySaysWhatWasWritten() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let mono = try await recorder(["record", directory + "/mono.aiff", "--duration", "0.5",
                                     "--source", PrivateServer.sineSource, "--server", server.address], server: server)
            #expect(mono.status == 0, "\(mono.stderr)")
            #expect(mono.stdout.isEmpty)
            #expect(!mono.stderr.contains("\u{1B}"), "no animation when stderr is not a terminal")
            // The average is the file's: the sine's −9.03, less any silence the server began with.
            let file = try readSoundFile(directory + "/mono.aiff")
            let average = summaryAverage(mono.stderr) ?? 0
            // Frames dropped beside other tests' load are counted and marked in the file.
            let dropped = try #require(summaryDropped(mono.stderr), "\(mono.stderr)")
            #expect(try NumberedSource.lossIsMarked(dropped, in: directory + "/mono.aiff"), "\(mono.stderr)")
            #expect(mono.stderr == "recorded \(directory)/mono.aiff: 0.500 s, 22050 frames, average \(String(format: "%.2f", average)) dBFS, "
                    + "peak -6.02 dBFS, clipped 0 samples, dropped \(dropped) frames\n")
            #expect(abs(average - levels(of: file.samples).average) <= 0.006, "the file holds \(levels(of: file.samples).average) dBFS")
            #expect(file.frames == 22_050 && file.channels == 1 && file.sampleRate == 44_100)
            #expect(Array(try fileHeader(directory + "/mono.aiff")[8..<12]) == Array("AIFF".utf8))

            let stereo = try await recorder(["record", directory + "/stereo.wav", "--duration", "0.25", "--rate", "48000",
                                       "--channels", "2", "--quiet"], server: server)
            #expect(stereo.status == 0, "\(stereo.stderr)")
            #expect(stereo.stderr.isEmpty)
            let wav = try readSoundFile(directory + "/stereo.wav")
            #expect(wav.frames == 12_000 && wav.channels == 2 && wav.sampleRate == 48_000)
            #expect(wav.container == Int32(SF_FORMAT_WAVEX))
        }
    }

    @Test func levelsJSONIsOneObjectPerBufferMatchingTheSignal() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let result = try await recorder(["record", path, "--duration", "1", "--levels-json", "--quiet"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try levelLines(result.stdout)
            #expect(lines.count >= 10 && lines.count <= 11, "\(lines.count) lines")
            // Each whole buffer's line states the levels of its frames in the file (the first may hold
            // frames from before the file began, the last frames after it ended).
            let file = try readSoundFile(path)
            var compared = 0
            for (previous, line) in zip([nil] + lines.map(Optional.some), lines) {
                #expect(abs(line.t - Double(line.frames) / 44_100) < 0.001)
                guard let previous, line.frames - previous.frames == 4_410 else { continue }
                let held = levels(of: file.samples[Int(previous.frames)..<Int(line.frames)])
                #expect(abs(line.average_db[0] - held.average) <= 0.006 && abs(line.peak_db[0] - held.peak) <= 0.006,
                        "\(line.frames): \(line.average_db[0]) / \(line.peak_db[0]) dBFS, the file \(held)")
                compared += 1
            }
            #expect(compared >= 8, "\(compared) whole buffers")
            #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.frames < $1.frames })
            #expect(lines.last?.frames == 44_100)
        }
    }

    /// Issue 12's hostile numbers on every numeric option of `record` and `meter`: each is either taken
    /// (and the run ends normally) or refused with one line naming the option and 64; none reaches a trap
    /// (1e15 used to end in a 60-line backtrace and status 132). The values each option takes (exit 0);
    /// the others of the table must be refused with 64.
    static let hostileTaken: [String: Set<String>] = [
        "--duration": ["0"],
        "--max-file-time": [],
        "--max-file-size": ["9223372036854775807"],
        "--segment": [],
        "--hook-timeout": ["1e-9"],
        "--alarm-silence": [],
        "--reconnect-timeout": ["0", "1e-9", "1e15", "1e300", "9223372036854775807", "9223372036854775808"],
        "--queue-limit": [],
        "--rate": [],
        "--channels": [],
        "--target": ["0", "-1", "-0.5"],
        "--loudness-target": ["0", "-1", "-0.5"],
        "--vu-reference": ["0", "-1", "-0.5"],
        "--pre-roll": ["0", "1e-9"],
        "--start-at": [],
        "--start-above": ["0", "-1", "-0.5"],
        "--stop-below": ["0", "-1", "-0.5"],
        "--hang": ["0", "1e-9"],
    ]

    /// `--start-at +1 --pre-roll 0.5 --duration 0.8`: the take waits for its time, begins half a second
    /// before it and holds 0.8 s in all (the duration is the file's length, pre-roll included); a clock
    /// time that has passed, or is no time, is a one-line usage error.
    @Test func startAtWaitsForItsTimeAndThePreRollReachesBackFromIt() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/later.aiff"
            let began = monotonicSeconds()
            let result = try await recorder(["record", path, "--start-at", "+1", "--pre-roll", "0.5", "--duration", "0.8",
                                             "--source", PrivateServer.monoSink + ".monitor", "--quiet"], server: server)
            let elapsed = monotonicSeconds() - began
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            // 1 s, then the 0.3 s after the start time; less at most a buffer, the precision of the start
            // (on PipeWire the start frame is reckoned 42 ms early).
            #expect(elapsed >= 1.2, "ended \(elapsed) s after it was started")
            #expect(try readSoundFile(path).frames == 35_280)
            for (value, message) in [("00:00:00", "recorder: --start-at 00:00:00 has passed today; give a time to come"),
                                     ("25:00", "recorder: invalid --start-at '25:00': use +SECONDS (e.g. +10) or a clock time today, HH:MM or HH:MM:SS"),
                                     ("+1e15", "recorder: invalid --start-at '+1e15': use +SECONDS (e.g. +10) or a clock time today, HH:MM or HH:MM:SS")] {
                let refused = try await recorder(["record", directory + "/x.aiff", "--start-at", value], server: server)
                #expect(refused.status == 64)
                #expect(refused.stderr.hasPrefix(message), "\(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: directory + "/x.aiff"))
            }
        }
    }

    /// `--start-above -30 --stop-below -40 --hang 0.5 --pre-roll 0.3` while bursts of noise play: two
    /// numbered files, each as long as its take-end event says and holding its burst, the events and
    /// summary naming them; the options without --start-above, or with what cannot go with it, are usage
    /// errors.
    @Test func soundActivatedTakesAreNumberedFiles() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let silence = [Int16](repeating: 0, count: 44_100)
            let first = noiseSamples(count: 44_100, seed: 61), second = noiseSamples(count: 30_870, seed: 62)
            let onoff = silence + first + silence + silence + second + silence + silence
            try writeWAV(directory + "/onoff.wav", samples: onoff,
                         channels: 1)
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", directory + "/take.wav", "--source", PrivateServer.monoSink + ".monitor",
                 "--start-above", "-30", "--stop-below", "-40", "--hang", "0.5", "--pre-roll", "0.3", "--levels-json",
                 "--scene", "7"],
                environment: server.clientEnvironment)
            // The noise once the recorder listens (its first level line), so no burst comes before it; a
            // stop once the second take has ended (no fixed length: on a loaded machine the player may
            // start seconds late).
            var lines: [String] = []
            var player: Task<Void, any Error>?
            for await line in process.lines {
                if player == nil { player = Task { try await server.play(directory + "/onoff.wav") } }
                lines.append(line)
                if lines.filter({ $0.hasPrefix("{\"event\": \"take-end\"") }).count == 2 && lines.last == line
                    && line.hasPrefix("{\"event\": \"take-end\"") {
                    process.send(SIGINT)
                }
            }
            try await player?.value
            let (status, stderr) = await process.wait()
            let result = (status: status, stderr: stderr)
            #expect(result.status == 0, "\(result.stderr)")
            let events = lines.filter { $0.hasPrefix("{\"event\"") }
                .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
            #expect(events.compactMap { $0["event"] as? String } == ["take-start", "take-end", "take-start", "take-end"])
            let ends = events.filter { $0["event"] as? String == "take-end" }
            for (index, (end, burst)) in zip(ends, [first, second]).enumerated() {
                let file = directory + "/take-00\(index + 1).wav"
                #expect(end["path"] as? String == file)
                let take = try readSoundFile(file)
                #expect(take.frames == end["frames"] as? Int)
                // The burst, whole, after the 0.3 s pre-roll (within one buffer) and before the 0.5 s hang.
                let start = try #require(firstIndex(of: Array(burst.prefix(64)), in: take.samples), "take \(index + 1)")
                #expect(start >= 13_230 && start < 13_230 + 4_410, "take \(index + 1) sound from \(start)")
                #expect(take.samples.count >= start + burst.count, "take \(index + 1) ends in its burst")
                let comparison = try await reference.compare(take.samples, played: onoff)
                #expect(comparison.offset != nil && comparison.differing == 0,
                        "take \(index + 1): \(comparison.differing) samples differ from the reference capture")
                #expect(take.samples.count - (start + burst.count) >= 22_050)
                // Each take its own take sheet: TAKE counting on from the first (none of scene 7 in the
                // folder before), a file set of one file of its own.
                let sheet = try #require(try ixmlDocument(file))
                #expect(ixmlValue("SCENE", in: sheet) == "7" && ixmlValue("TAKE", in: sheet) == String(index + 1), "\(sheet)")
                #expect(ixmlValue("TOTAL_FILES", in: sheet) == "1" && ixmlValue("FILE_SET_INDEX", in: sheet) == "A", "\(sheet)")
            }
            let families = try (1...2).map { try ixmlValue("FAMILY_UID", in: ixmlDocument(directory + "/take-00\($0).wav") ?? "") }
            #expect(families[0] != nil && families[0] != families[1], "\(families)")
            #expect(result.stderr.contains("recorded 2 takes: "), "\(result.stderr)")
            #expect(result.stderr.contains("\ntake 1: \(directory)/take-001.wav, ") && result.stderr.contains("\ntake 2: \(directory)/take-002.wav, "),
                    "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/take.wav"))
            for (arguments, message) in [
                (["--hang", "1"], "recorder: --hang needs --start-above: give the level that starts a take, e.g. --start-above -40"),
                (["--start-above", "-30", "--start-at", "+1"], "recorder: --start-above cannot be combined with --start-at: sound-activated takes are files of their own"),
                (["--start-above", "-30", "--stop-below", "-20"], "recorder: invalid --stop-below -20.0: use -160 dBFS up to --start-above (-30.0)"),
            ] {
                let refused = try await recorder(["record", directory + "/x.wav"] + arguments, server: server)
                #expect(refused.status == 64)
                #expect(refused.stderr.hasPrefix(message), "\(refused.stderr)")
            }
        }
    }

    /// parecord/arecord/sox habits: short options (-d/--device for the source, -r, -c, -q), a source by
    /// index, by its description (exact, or a unique beginning in any case), a beginning shared by
    /// several sources refused in one line; `meter` without a terminal prints a line a second; the old
    /// --target still works, with a warning (kept by -q), as --loudness-target; -t names a container; sinks match as sources do.
    @Test func commandLineHabitsOfParecordAndSoxUsers() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let short = try await recorder(["record", directory + "/short.wav", "-d", PrivateServer.sineSource, "-r", "48000",
                                            "-c", "2", "-q", "--duration", "0.2"], server: server)
            #expect(short.status == 0 && short.stderr.isEmpty, "\(short.stderr)")
            let file = try readSoundFile(directory + "/short.wav")
            #expect(file.frames == 9_600 && file.channels == 2 && file.sampleRate == 48_000)
            let sources = try await recorder(["sources", "--json"], server: server)
            struct Source: Decodable { let index: Int; let name: String; let description: String }
            let list = try sources.stdout.split(separator: "\n").map { try JSONDecoder().decode(Source.self, from: Data($0.utf8)) }
            let sine = try #require(list.first { $0.name == PrivateServer.sineSource })
            let text = try await recorder(["sources"], server: server)
            #expect(text.stdout.contains("\(sine.index) *  \(sine.name)\t"), "\(text.stdout)")
            let prefix = String(sine.description.prefix(6)).uppercased()
            for given in ["\(sine.index)", sine.description, prefix] {
                let result = try await recorder(["meter", "--device", given, "--duration", "0.3", "--levels-json"], server: server)
                #expect(result.status == 0, "\(given): \(result.stderr)")
                let lines = try levelLines(result.stdout)
                #expect(!lines.isEmpty && lines.allSatisfy { abs($0.peak_db[0] - -6.02) < 0.1 }, "\(given) records the sine")
            }
            // "Monitor of" begins every monitor's description.
            let ambiguous = try await recorder(["meter", "--source", "monitor of", "--duration", "0.1"], server: server)
            #expect(ambiguous.status == 64)
            #expect(ambiguous.stderr.hasPrefix("recorder: 'monitor of' begins the names of several sources: ")
                    && ambiguous.stderr.contains(PrivateServer.monoSink + ".monitor (") && ambiguous.stderr.hasSuffix("; give more of it, or the name or index (see 'recorder sources')\n"),
                    "\(ambiguous.stderr)")
            // An exact description two sources share, and an empty name: refused, never a silent choice.
            // (PulseAudio describes both null sinks' monitors as "Monitor of Null Output"; PipeWire names each.)
            let sharedDescription = Dictionary(grouping: list, by: \.description).first { $0.value.count > 1 }?.key
            #expect(sharedDescription != nil || ServerKind.current != .pulseaudio, "\(list.map(\.description))")
            if let sharedDescription {
                let shared = try await recorder(["meter", "-d", sharedDescription, "--duration", "0.1"], server: server)
                #expect(shared.status == 64 && shared.stderr.hasPrefix("recorder: '\(sharedDescription)' is the description of several sources: ")
                        && shared.stderr.hasSuffix("; give the name or index (see 'recorder sources')\n"), "\(shared.stderr)")
            }
            let empty = try await recorder(["record", directory + "/empty.aiff", "-d", "", "--duration", "0.1"], server: server)
            #expect(empty.status == 64 && empty.stderr == "recorder: an empty source name: give a name, an index or a description (see 'recorder sources')\n",
                    "\(empty.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/empty.aiff"))
            // Sinks are matched the same way for play: by index and by a unique beginning of the name.
            let tone = directory + "/tone.wav"
            try writeWAV(tone, samples: noiseSamples(count: 4_410), channels: 1)
            let sinks = try await recorder(["sinks", "--json"], server: server)
            let sinkList = try sinks.stdout.split(separator: "\n").map { try JSONDecoder().decode(Source.self, from: Data($0.utf8)) }
            let mono = try #require(sinkList.first { $0.name == PrivateServer.monoSink })
            for given in ["\(mono.index)", String(PrivateServer.monoSink.prefix(4)).uppercased()] {
                let played = try await recorder(["play", tone, "-d", given], server: server)
                #expect(played.status == 0 && played.stderr == "played \(tone): 0.100 s to \(PrivateServer.monoSink)\n",
                        "\(given): \(played.stderr)")
            }
            // -t (--type) names the container when the name does not say it.
            for (name, option, type, container) in [("take.dat", "-t", "wav", SF_FORMAT_WAVEX), ("take.audio", "--type", "au", SF_FORMAT_AU)] {
                let typed = try await recorder(["record", directory + "/" + name, option, type, "-d", PrivateServer.sineSource,
                                                "-q", "--duration", "0.1"], server: server)
                #expect(typed.status == 0 && typed.stderr.isEmpty, "\(typed.stderr)")
                let read = try readSoundFile(directory + "/" + name)
                #expect(read.container == Int32(container) && read.frames == 4_410, "\(name): \(read.format)")
            }
            // Without a terminal or JSON, meter prints a plain line a second.
            let plain = try await recorder(["meter", "-d", PrivateServer.sineSource, "--duration", "2.05"], server: server)
            #expect(plain.status == 0)
            #expect(plain.stdout == "00:01.0 avg -9.03 pk -6.02 dBFS\n00:02.0 avg -9.03 pk -6.02 dBFS\n", "\(plain.stdout)")
            let old = try await recorder(["meter", "-d", PrivateServer.sineSource, "--duration", "0.1", "--meter", "loudness",
                                          "--target", "-16"], server: server)
            #expect(old.status == 0 && old.stderr.hasPrefix("recorder: warning: --target is now --loudness-target"), "\(old.stderr)")
            // --quiet: no readout, no summary, no notes; warnings and errors stay (one line here).
            let quiet = try await recorder(["record", directory + "/quiet.aiff", "-q", "-d", PrivateServer.sineSource,
                                            "--duration", "0.1", "--meter", "loudness", "--target", "-16"], server: server)
            #expect(quiet.status == 0 && quiet.stderr == "recorder: warning: --target is now --loudness-target (pw-record's "
                    + "--target names the device); the old spelling will go\n", "\(quiet.stderr)")
            let new = try await recorder(["meter", "-d", PrivateServer.sineSource, "--duration", "0.1", "--meter", "loudness",
                                          "--loudness-target", "-16"], server: server)
            #expect(new.status == 0 && new.stderr.isEmpty, "\(new.stderr)")
        }
    }

    @Test(arguments: hostileTaken.keys.sorted())
    func hostileNumbersAreRefusedInOneLineOrTakenNeverATrap(option: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let values = ["0", "-1", "-0.5", "1e-9", "1e15", "1e300", "nan", "inf", "-inf", "9223372036854775807",
                          "-9223372036854775808", "9223372036854775808"]
            let taken = Self.hostileTaken[option]!
            // The words each refusal must contain: ours ("invalid duration …") or the argument parser's
            // for a value that is not an integer ("the value '1e15' is invalid for '--rate <rate>'").
            let named = ["--duration": "duration", "--max-file-time": "max-file-time", "--max-file-size": "max-file-size",
                         "--reconnect-timeout": "reconnect timeout", "--queue-limit": "queue-limit", "--rate": "rate",
                         "--channels": "channel", "--target": "target", "--loudness-target": "loudness-target",
                         "--vu-reference": "vu-reference",
                         "--pre-roll": "pre-roll", "--start-at": "start-at", "--start-above": "start-above",
                         "--stop-below": "stop-below", "--hang": "hang", "--segment": "segment", "--hook-timeout": "hook-timeout",
                         "--alarm-silence": "alarm-silence"][option]!
            var runs: [(value: String, arguments: [String])] = []
            for value in values {
                let bounded = option == "--duration" ? [] : ["--duration", "0.05"]
                // The meter whose option it is, so that the value is used, not only parsed.
                let meter = ["--target", "--loudness-target"].contains(option) ? ["--meter", "loudness"]
                    : option == "--vu-reference" ? ["--meter", "vu"]
                    : ["--stop-below", "--hang"].contains(option) ? ["--start-above=0"] : []
                // Both spellings where they can differ: "--x -1" must read -1 as the value, not an option.
                for spelling in value.hasPrefix("-") ? [["\(option)=\(value)"], [option, value]] : [["\(option)=\(value)"]] {
                    runs.append((value, ["record", directory + "/\(runs.count).aiff", "--source", PrivateServer.sineSource,
                                         "--quiet"] + spelling + bounded + meter))
                }
                if !["--max-file-time", "--max-file-size", "--pre-roll", "--start-at", "--start-above", "--stop-below",
                     "--hang", "--segment", "--hook-timeout", "--alarm-silence"].contains(option) {
                    runs.append((value, ["meter", "--source", PrivateServer.sineSource, "\(option)=\(value)"] + bounded + meter))
                }
            }
            for (value, arguments) in runs {
                let result = try await recorder(arguments, server: server)
                let expected: Int32 = taken.contains(value) ? 0 : 64
                #expect(result.status == expected, "\(arguments): \(result.stderr)")
                if expected == 64 {
                    let lines = result.stderr.split(separator: "\n")
                    #expect(lines.count == 1 && lines[0].hasPrefix("recorder: ") && lines[0].contains("invalid")
                            && lines[0].lowercased().contains(named), "\(arguments): \(result.stderr)")
                }
            }
        }
    }

    @Test func anExistingFileIsRefusedAndKeptUnlessForceIsGiven() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/keep.aiff"
            try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
            let refused = try await recorder(["record", path, "--duration", "0.1"], server: server)
            #expect(refused.status == 73)
            #expect(refused.stderr == "recorder: '\(path)' already exists and was left untouched; choose another "
                    + "name or allow overwriting (pass --force to replace it)\n")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("precious".utf8))
            let forced = try await recorder(["record", path, "--duration", "0.1", "--force"], server: server)
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try readSoundFile(path).frames == 4_410)
        }
    }

    @Test(arguments: [
        (["--rate", "0"], 64, "invalid sample rate 0 Hz"),
        (["--rate", "1e9"], 64, "'1e9' is invalid for '--rate"),
        (["--channels", "0"], 64, "invalid channel count 0"),
        (["--channels", "33"], 64, "invalid channel count 33"),
        (["--duration=-1"], 64, "invalid duration -1.0"),
        (["--duration", "nan"], 64, "invalid duration nan"),
        (["--server", "tcp:127.0.0.1:1"], 69, "cannot connect to PulseAudio server tcp:127.0.0.1:1: Connection refused"),
        (["--source", "no;such$(mic)"], 69, "no capture source named 'no;such$(mic)'"),
        (["--meter", "dbfs"], 64, "'dbfs' is invalid for '--meter <meter>'"),
        (["--meter", "loudness", "--loudness-target", "5"], 64, "invalid --loudness-target 5.0: use a loudness between -70 and 0 LUFS"),
        (["--meter", "loudness", "--target", "5"], 64, "invalid --target 5.0: use a loudness between -70 and 0 LUFS"),
        (["--meter", "vu", "--vu-reference", "nan"], 64, "invalid --vu-reference nan: use a level between -60 and 0 dBFS"),
        (["--meter", "ppm2", "--rate", "4000"], 64, "invalid --meter ppm2: the PPM meter cannot run at 4000 Hz: use 8000 to 2822400 Hz"),
        (["--max-file-size", "40"], 64, "invalid file size limit 40 bytes: the AIFF header alone takes 4158 (4104 of them the iXML take sheet); allow more"),
    ] as [([String], Int32, String)])
    func badInputExitsWithItsCodeAndOneLine(options: [String], status: Int32, message: String) async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.aiff"
            let result = try await recorder(["record", path] + options, server: server)
            #expect(result.status == status)
            #expect(result.stderr.hasPrefix("recorder: "))
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func outputPathsThatCannotBeCreatedExit73() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let missing = try await recorder(["record", directory + "/no/dir/take.aiff"], server: server)
            #expect(missing.status == 73)
            #expect(missing.stderr.contains("No such file or directory; create the directory first"))
            try FileManager.default.createDirectory(atPath: directory + "/d.aiff", withIntermediateDirectories: false)
            let isDirectory = try await recorder(["record", directory + "/d.aiff", "--force"], server: server)
            #expect(isDirectory.status == 73)
            #expect(isDirectory.stderr.contains("it is a directory"))
            let m4a = try await recorder(["record", directory + "/take.m4a"], server: server)
            #expect(m4a.status == 64)
            #expect(m4a.stderr.contains("end the name in .aiff"))
        }
    }

    @Test func aFullDiskExits74WithAValidFile() async throws {
        try await withTinyDisk { mountPoint in try await withPrivateServer { server in
            let path = mountPoint + "/take.aiff"
            let result = try await recorder(["record", path, "--duration", "5"], server: server)
            #expect(result.status == 74)
            #expect(result.stderr.contains("recorder: writing '\(path)' failed after"))
            #expect(result.stderr.contains("No space left on device"))
            let file = try readSoundFile(path)
            #expect(file.frames > 20_000)
            #expect(result.stderr.contains("\(file.frames) frames"))
        } }
    }

    @Test func sourcesListsTheServersSources() async throws {
        try await withPrivateServer { server in
            let text = try await recorder(["sources"], server: server)
            #expect(text.status == 0)
            // Formats as the server itself reports them (PulseAudio: the sine source float32le, the null
            // sink's monitor s16le; PipeWire: float32le for both).
            var specs: [String: String] = [:]
            for line in try server.run("pactl", ["list", "short", "sources"]).stdout.split(separator: "\n") {
                let fields = line.split(separator: "\t").map(String.init)
                if fields.count >= 4 { specs[fields[1]] = fields[3] }
            }
            let sineSpec = try #require(specs[PrivateServer.sineSource])
            let monitorSpec = try #require(specs[PrivateServer.monoSink + ".monitor"])
            #expect(sineSpec.hasSuffix(" 1ch 44100Hz") && monitorSpec.hasSuffix(" 1ch 44100Hz"))
            #expect(text.stdout.contains("*  \(PrivateServer.sineSource)\t\(sineSpec)"), "\(text.stdout)")
            #expect(text.stdout.contains(" m \(PrivateServer.monoSink).monitor\t\(monitorSpec)"), "\(text.stdout)")
            let json = try await recorder(["sources", "--json"], server: server)
            struct Source: Decodable { let name: String; let `default`: Bool; let monitor: Bool; let channels: Int }
            let sources = try json.stdout.split(separator: "\n").map {
                try JSONDecoder().decode(Source.self, from: Data($0.utf8))
            }
            #expect(sources.first { $0.name == PrivateServer.sineSource }?.default == true)
            #expect(sources.first { $0.name == PrivateServer.stereoSink + ".monitor" }.map { $0.monitor && $0.channels == 2 } == true)
            let down = try await recorder(["sources", "--server", "unix:/nonexistent/native"])
            #expect(down.status == 69)
        }
    }

    @Test func meterShowsLevelsWithoutWritingAFile() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            var environment = server.clientEnvironment
            environment["PWD"] = directory
            let result = try runProcess("sh", ["-c", "cd \"$1\" && exec \"$2\" meter --duration 0.5 --levels-json",
                                               "sh", directory, try builtProduct("recorder")], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try levelLines(result.stdout)
            #expect(lines.count == 5)
            #expect(lines.allSatisfy { abs($0.peak_db[0] - -6.02) < 0.1 && abs($0.average_db[0] - -9.03) < 0.1 })
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    @Test func helpAndVersion() async throws {
        let help = try await recorder(["--help"])
        #expect(help.status == 0)
        // Every exit status is listed (the help text is wrapped at 80 columns, so compare unwrapped).
        let unwrapped = help.stdout.replacingOccurrences(of: "\n", with: " ")
        for status in ["64 usage error", "65 a file analyze --tag cannot tag", "66 a file to analyze or play cannot be read", "69 server, source or sink unavailable",
                       "73 cannot create the output file", "74 I/O error while recording"] {
            #expect(unwrapped.contains(status), "\(status)")
        }
        for command in ["record", "meter", "play", "sources", "sinks", "analyze"] {
            let sub = try await recorder([command, "--help"])
            #expect(sub.status == 0 && sub.stdout.contains("USAGE: recorder \(command)"))
        }
        let version = try await recorder(["--version"])
        #expect(version.stdout == "0.1.0\n")
    }
}

// Issue 14, point 2: `recorder record -` writes the audio to standard output, into sox and ffmpeg,
// with the readout, the summary and the JSON lines on standard error.
import CSndFile
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Waits until the file at `path` holds a line: the state a shell pipeline leaves for the test to see.
private func waitForALine(in path: String) async throws {
    try await waitFor("a line in \(path)") {
        (try? String(contentsOfFile: path, encoding: .utf8))?.contains("\n") == true
    }
}

@Suite(.timeLimit(.minutes(2)))
struct PipelineTests {
    /// The same played noise through each streaming type and a reader that decodes it: the reader decodes
    /// exactly what the recorder sent (a copy of the stream, decoded by libsndfile), nothing but audio
    /// reached the pipe, and on PulseAudio the reader's file holds what the monitor delivered, sample for
    /// sample. (On PipeWire two record streams of one monitor were seen to get different data, a cycle
    /// of one delayed, so a reference capture cannot stand for the server there: the pipe path is what
    /// this checks on it.)
    @Test(.serialized, arguments: [
        ("au", "sox -t au - OUT"),
        ("raw", "sox -t raw -r 44100 -e signed-integer -b 16 -c 1 -L - OUT"),
        ("flac", "ffmpeg -nostdin -loglevel error -y -f flac -i - -c:a pcm_s16le OUT"),
        ("au", "ffmpeg -nostdin -loglevel error -y -f au -i - -c:a pcm_s16le OUT"),
        ("raw", "ffmpeg -nostdin -loglevel error -y -f s16le -ar 44100 -ac 1 -i - -c:a pcm_s16le OUT"),
        ("flac", "sox -t flac - OUT"),
    ])
    func recordToStandardOutputFeedsSoxAndFFmpegBitExactly(type: String, reader: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 14)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let out = directory + "/out.wav", log = directory + "/stderr.txt", pidFile = directory + "/pid"
            let sent = directory + "/sent.\(type)"
            // The recorder's pid (a subshell that writes its own, then becomes the recorder), to stop it
            // with SIGINT once the noise has been heard and silence after it: no fixed length to outlast a
            // slow start on a loaded machine.
            let command = "set -o pipefail; (echo $BASHPID >'\(pidFile)'; exec '\(try builtProduct("recorder"))' record - -t \(type) "
                + "-d \(PrivateServer.monoSink).monitor --levels-json 2>'\(log)') | tee '\(sent)' | "
                + reader.replacingOccurrences(of: "OUT", with: "'\(out)'")
            let environment = server.clientEnvironment
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let pipeline = Task { try await offThread { try runProcess("bash", ["-c", command], environment: environment) } }
            try await waitForALine(in: log)  // the first level line: capture runs, the file has begun
            try await server.play(directory + "/noise.wav")
            try await waitFor("\(type): the noise and silence after it") {
                let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
                return lines.drop { !$0.contains("\"peak_db\": [0") && !$0.contains("\"peak_db\": [-0") }
                    .contains { $0.contains("\"peak_db\": [null]") }
            }
            let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            kill(pid, SIGINT)
            let result = try await pipeline.value
            #expect(result.status == 0, "\(result.stderr)")
            let take = try readSoundFile(out)
            #expect(holdsStretch(of: noise, in: take.samples), "no noise in what \(type) carried")
            // What was sent: raw is 16-bit little-endian (as the sox reader is told), the others libsndfile reads.
            let rawBytes = type == "raw" ? try Array(Data(contentsOf: URL(fileURLWithPath: sent))) : []
            let sentSamples = type == "raw"
                ? (0..<(rawBytes.count / 2)).map { Int16(bitPattern: UInt16(rawBytes[2 * $0]) | UInt16(rawBytes[2 * $0 + 1]) << 8) }
                : try decodeToEnd(sent).samples
            #expect(take.samples == sentSamples, "\(type): the reader's \(take.samples.count) samples are not the \(sentSamples.count) sent")
            if server.kind == .pulseaudio {
                let comparison = try await reference.compare(take.samples, played: noise)
                #expect(comparison.offset != nil && comparison.differing == 0,
                        "\(type): \(comparison.differing) samples the reader decoded differ from what the monitor delivered")
            }
            let errors = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(errors.filter { $0.hasPrefix("{\"t\":") }.count >= 20, "the level lines are on stderr")
            #expect(errors.last?.hasPrefix("recorded standard output: ") == true
                    && errors.last?.contains(" \(take.frames) frames, ") == true, "\(errors.last ?? "")")
        }
    }

    /// What a pipe cannot take, and what standard output cannot do, is one line with status 64; a reader
    /// that leaves ends the take with 74 and says so.
    @Test func whatAPipeCannotTakeIsOneLineAndAReaderThatLeavesEndsTheTake() async throws {
        try await withPrivateServer { server in
            let program = try builtProduct("recorder")
            let source = PrivateServer.monoSink + ".monitor"
            let environment = server.clientEnvironment
            func pipeline(_ command: String) async throws -> ProcessResult {
                try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
            }
            let wav = try await pipeline("'\(program)' record - -t wav --duration 1 -d \(source) | cat >/dev/null; exit ${PIPESTATUS[0]}")
            #expect(wav.status == 64)
            #expect(wav.stderr == "recorder: cannot write WAV to standard output: it is a pipe, and a WAV header must be "
                    + "rewritten at the end; use AU, raw or FLAC (-t au|raw|flac), or redirect to a file\n")
            let split = try await recorder(["record", "-", "--max-file-time", "10"], server: server)
            #expect(split.status == 64)
            #expect(split.stderr.contains("--max-file-time and --max-file-size split into numbered files: give a file name, not -"),
                    "\(split.stderr)")
            let takes = try await recorder(["record", "-", "--start-above", "-40"], server: server)
            #expect(takes.status == 64 && takes.stderr.contains("each take is a file of its own"), "\(takes.stderr)")
            let unknown = try await recorder(["record", "take.xyz"], server: server)
            #expect(unknown.status == 64)
            #expect(unknown.stderr.contains("cannot tell the file type of 'take.xyz': end the name in .aiff, .aif, .wav, .caf, "
                                            + ".flac, .au, .snd, .raw, .pcm, .w64, .rf64, .ogg, .opus or .mp3, or give -t TYPE"), "\(unknown.stderr)")
            // head reads 10 000 bytes and leaves: the next write fails with EPIPE.
            let left = try await pipeline("'\(program)' record - -t raw -d \(source) | head -c 10000 >/dev/null; exit ${PIPESTATUS[0]}")
            #expect(left.status == 74)
            let lines = left.stderr.split(separator: "\n")
            // The summary, then the one line that says why it ended.
            #expect(lines.first?.hasPrefix("recorded standard output: ") == true, "\(left.stderr)")
            #expect(lines.count == 2 && lines[1].hasPrefix("recorder: standard output was closed by its reader after ")
                    && lines[1].hasSuffix(" frames; the recording ended there"), "\(left.stderr)")
        }
    }

    /// Standard output redirected to a file is seekable: any type is written there, header and all.
    @Test func standardOutputRedirectedToAFileTakesAnyType() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let environment = server.clientEnvironment
            let command = "'\(try builtProduct("recorder"))' record - -t wav --duration 0.5 -d \(PrivateServer.sineSource) "
                + "-q >'\(directory)/take.wav'"
            let result = try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            let take = try readSoundFile(directory + "/take.wav")
            #expect(take.frames == 22_050)
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct PlayFromStandardInputTests {
    /// `sox … -t au - | recorder play -` (and WAV the same way): the sink's monitor hears the noise
    /// sample for sample, with the usual level lines and summary. FLAC from a pipe, which libsndfile
    /// cannot decode, is one line saying what to send instead.
    @Test(.serialized, arguments: ["au", "wav"])
    func playReadsStandardInput(type: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 41)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let ear = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let command = "set -o pipefail; sox '\(directory)/noise.wav' -t \(type) - | '\(try builtProduct("recorder"))' play - "
                + "-d \(PrivateServer.monoSink) --levels-json"
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let levels = try levelLines(result.stdout)
            #expect(levels.count == 20 && levels.last?.frames == 88_200, "\(result.stdout)")
            // The summary, after one warning for each time the player ran dry (a loaded machine), if any.
            let underruns = result.stdout.components(separatedBy: "{\"event\": \"underrun\"").count - 1
            let warnings = result.stderr.split(separator: "\n").dropLast()
            #expect(result.stderr.hasSuffix("played standard input: 2.000 s to \(PrivateServer.monoSink)\n")
                    && warnings.count == underruns && warnings.allSatisfy { $0.hasPrefix("recorder: warning: playback ran dry at ") },
                    "\(result.stderr)")
            // Heard as played, silent only where the player reported an underrun (late, not lost).
            let heard = try await ear.samples(afterFrames: 22_050)
            let departure = departure(ofHeard: heard, from: noise, underruns: underruns)
            #expect(departure == nil, "\(type): the monitor did not hear the noise sample for sample: \(departure ?? "")")

            let flac = "sox '\(directory)/noise.wav' -t flac - | '\(try builtProduct("recorder"))' play - -d \(PrivateServer.monoSink)"
            let refused = try await offThread { try runProcess("bash", ["-c", flac], environment: environment) }
            #expect(refused.status == 66 && refused.stderr == "recorder: cannot read standard input: flac decoder lost sync; from a pipe "
                    + "libsndfile reads AU, WAV and Ogg: send one of those (sox … -t au -), or redirect a file (< take.flac)\n",
                    "\(refused.stderr)")
            let twice = try await recorder(["play", "-", "-"], server: server)
            #expect(twice.status == 64 && twice.stderr.contains("give - (standard input) once"), "\(twice.stderr)")
        }
    }
}

@Suite(.timeLimit(.minutes(3)))
struct SampleFormatOptionTests {
    /// `-f`/`--format` takes our names and parecord's and arecord's spellings of the same depths; the
    /// file holds that depth, and the summary states the sine's peak and the file's average.
    @Test(.serialized, arguments: [("s24", SF_FORMAT_PCM_24), ("S24_3LE", SF_FORMAT_PCM_24), ("s32le", SF_FORMAT_PCM_32),
                      ("float32le", SF_FORMAT_FLOAT), ("FLOAT_LE", SF_FORMAT_FLOAT), ("s16", SF_FORMAT_PCM_16)])
    func theFormatOptionTakesTheUsualSpellings(spelling: String, subtype: Int) async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.wav"
            let result = try await recorder(["record", path, "-f", spelling, "--duration", "0.3", "-d", PrivateServer.sineSource],
                                            server: server)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(": 0.300 s, 13230 frames, average ")
                    && result.stderr.contains(" dBFS, peak -6.02 dBFS, clipped 0 samples"), "\(result.stderr)")
            // The average the summary states is the file's.
            let held = try fileLevels(path).average
            #expect(abs((summaryAverage(result.stderr) ?? 0) - held) <= 0.006, "\(result.stderr): the file holds \(held) dBFS")
            var info = SF_INFO()
            let file = try #require(sf_open(path, Int32(SFM_READ), &info))
            sf_close(file)
            #expect(info.format & Int32(SF_FORMAT_SUBMASK) == Int32(subtype) && info.frames == 13_230)
        }
    }

    /// Ogg Vorbis, Opus and MP3: a second of the sine at two qualities decodes to exactly its frames at
    /// the level the summary states (RMS within 0.3 dB), the better quality takes more bytes; Vorbis to a pipe is
    /// the same stream; a quality for a lossless type, out of range, or Opus at 44.1 kHz is one line.
    @Test(.serialized, arguments: ["ogg", "opus", "mp3"])
    func lossyTypesHoldTheSineAndTheQualityDecidesTheSize(type: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let rate = type == "opus" ? 48_000 : 44_100
            var sizes: [Int] = []
            for quality in ["0.1", "0.9"] {
                let path = directory + "/q\(quality).\(type)"
                let result = try await recorder(["record", path, "-r", String(rate), "--quality", quality, "--duration", "1",
                                                 "-d", PrivateServer.sineSource], server: server)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains(": 1.000 s, \(rate) frames, average "), "\(result.stderr)")
                let take = try readSoundFile(path)
                #expect(take.frames == rate && take.sampleRate == rate, "\(type) q\(quality): \(take.frames) frames")
                // Decoded, it holds what was captured at the level the summary states, within the codec's error.
                let rms = levels(of: take.samples).average, stated = summaryAverage(result.stderr) ?? 0
                #expect(abs(rms - stated) < 0.3, "\(type) q\(quality): RMS \(rms) dBFS, the summary \(stated)")
                sizes.append(try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
            }
            #expect(Double(sizes[1]) > 1.2 * Double(sizes[0]), "\(type): \(sizes) bytes at quality 0.1 and 0.9")
            if type == "ogg" {
                let environment = server.clientEnvironment
                let command = "set -o pipefail; '\(try builtProduct("recorder"))' record - -t ogg --duration 1 -q -d "
                    + "\(PrivateServer.sineSource) | cat >'\(directory)/piped.ogg'"
                let piped = try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
                #expect(piped.status == 0, "\(piped.stderr)")
                // (libsndfile reads the stream's exact length; ffmpeg decodes a Vorbis stream's first packet
                // its own way, 43 972 frames from the file and 44 160 from a pipe.)
                #expect(try readSoundFile(directory + "/piped.ogg").frames == 44_100)
            }
        }
    }

    @Test func aQualityThatCannotApplyIsOneLine() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let cases: [([String], String)] = [
                (["record", directory + "/x.wav", "--quality", "0.5"],
                 "recorder: --quality applies to ogg, opus and mp3; wav is lossless: leave --quality out"),
                (["record", directory + "/x.ogg", "--quality", "1e15"],
                 "recorder: invalid --quality 1000000000000000.0: use 0 (smallest file) to 1 (best)"),
                (["record", directory + "/x.ogg", "--quality", "nan"], "recorder: invalid --quality nan: use 0 (smallest file) to 1 (best)"),
                (["record", directory + "/x.opus", "-d", PrivateServer.sineSource, "-r", "44100"],
                 "recorder: Opus cannot hold 44100 Hz: record at 48000 Hz (or 8000, 12000, 16000, 24000), or choose .ogg or .mp3"),
            ]
            for (arguments, prefix) in cases {
                let result = try await recorder(arguments, server: server)
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix(prefix) && result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/x.opus"))
            // Without -r, Opus records at 48 kHz, as ffmpeg and pw-record do, and the summary says so.
            let path = directory + "/default.opus"
            let opus = try await recorder(["record", path, "-d", PrivateServer.sineSource, "--duration", "0.5"], server: server)
            #expect(opus.status == 0 && opus.stderr.hasPrefix("recorded \(path): 0.500 s, 24000 frames, ")
                    && opus.stderr.hasSuffix("\nrate: 48000 Hz, the rate Opus holds nearest to the default 44100 Hz "
                                             + "(-r chooses another it holds)\n"), "\(opus.stderr)")
            let take = try readSoundFile(path)
            #expect(take.sampleRate == 48_000 && take.frames == 24_000)
        }
    }

    @Test func aFormatItDoesNotKnowOrAContainerThatCannotHoldItIsOneLine() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let unknown = try await recorder(["record", directory + "/x.wav", "-f", "s20"], server: server)
            #expect(unknown.status == 64 && unknown.stderr.contains("'s20' is invalid for '-f <format>'"), "\(unknown.stderr)")
            let flac = try await recorder(["record", directory + "/x.flac", "-f", "float", "-d", PrivateServer.sineSource],
                                          server: server)
            #expect(flac.status == 64)
            #expect(flac.stderr == "recorder: FLAC cannot hold float samples in 1 channels at 44100 Hz: choose another container (.wav, .caf) or format\n",
                    "\(flac.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/x.flac"))
        }
    }
}

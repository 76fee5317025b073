// Issue 14, point 2: `recorder record -` writes the audio to standard output, into sox and ffmpeg,
// with the readout, the summary and the JSON lines on standard error.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Waits (up to 20 s) until the file at `path` holds a line, polling: the state a shell pipeline
/// leaves for the test to see.
private func waitForALine(in path: String) async throws {
    for _ in 0..<1_000 {
        if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains("\n") { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("nothing was written to \(path) in 20 s")
}

@Suite(.timeLimit(.minutes(2)))
struct PipelineTests {
    /// The same played noise through each streaming type and a reader that decodes it: the reader's file
    /// holds the noise sample for sample, and nothing but audio reached the pipe.
    @Test(arguments: [
        ("au", "sox -t au - OUT"),
        ("raw", "sox -t raw -r 44100 -e signed-integer -b 16 -c 1 -L - OUT"),
        ("flac", "ffmpeg -nostdin -loglevel error -y -f flac -i - -c:a pcm_s16le OUT"),
    ])
    func recordToStandardOutputFeedsSoxAndFFmpegBitExactly(type: String, reader: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 14)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let out = directory + "/out.wav", log = directory + "/stderr.txt"
            let command = "set -o pipefail; '\(try builtProduct("recorder"))' record - -t \(type) --duration 5 "
                + "-d \(PrivateServer.monoSink).monitor --levels-json 2>'\(log)' | "
                + reader.replacingOccurrences(of: "OUT", with: "'\(out)'")
            let environment = server.clientEnvironment
            let pipeline = Task { try await offThread { try runProcess("bash", ["-c", command], environment: environment) } }
            try await waitForALine(in: log)  // the first level line: capture runs, the file has begun
            try await server.play(directory + "/noise.wav")
            let result = try await pipeline.value
            #expect(result.status == 0, "\(result.stderr)")
            let take = try readSoundFile(out)
            #expect(take.frames == 220_500, "5 s at 44.1 kHz")
            let start = try #require(firstIndex(of: Array(noise.prefix(64)), in: take.samples), "no noise in what \(type) carried")
            #expect(Array(take.samples[start..<min(take.samples.count, start + noise.count)]) == noise)
            let errors = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(errors.filter { $0.hasPrefix("{\"t\":") }.count >= 45, "the level lines are on stderr")
            #expect(errors.last?.hasPrefix("recorded standard output: 5.000 s, 220500 frames, ") == true, "\(errors.last ?? "")")
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
                                            + ".flac, .au, .snd, .raw, .pcm, .w64 or .rf64, or give -t TYPE"), "\(unknown.stderr)")
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
    /// `sox … -t au - | recorder play -`: the sink's monitor hears the noise sample for sample, with the
    /// usual level lines and summary.
    @Test func playReadsStandardInput() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 41)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let ear = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address)
            defer { ear.stop() }
            let readings = ear.levelReadings()
            try ear.record(to: directory + "/heard.aiff")
            let command = "set -o pipefail; sox '\(directory)/noise.wav' -t au - | '\(try builtProduct("recorder"))' play - "
                + "-d \(PrivateServer.monoSink) --levels-json"
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess("bash", ["-c", command], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let levels = try levelLines(result.stdout)
            #expect(levels.count == 20 && levels.last?.frames == 88_200, "\(result.stdout)")
            #expect(result.stderr == "played standard input: 2.000 s to \(PrivateServer.monoSink)\n")
            // The monitor trails the sink: stop once it has carried the noise and then a silent buffer.
            var heardSignal = false
            for await reading in readings {
                if reading.channels[0].peakPower > -20 { heardSignal = true }
                if heardSignal && reading.channels[0].peakPower <= -160 { break }
            }
            _ = try await ear.stopRecording()
            let heard = try readSoundFile(directory + "/heard.aiff").samples
            let start = try #require(firstIndex(of: Array(noise.prefix(64)), in: heard), "the monitor did not hear the noise")
            #expect(Array(heard[start..<min(heard.count, start + noise.count)]) == noise)

            let twice = try await recorder(["play", "-", "-"], server: server)
            #expect(twice.status == 64 && twice.stderr.contains("give - (standard input) once"), "\(twice.stderr)")
        }
    }
}

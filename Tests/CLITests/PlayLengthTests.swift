// The length `play` reports is what the sink's monitor heard: for pipes whose headers state no true
// length, files cut short, a start near the end, and a stop by a signal.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct PlayLengthTests {
    /// A noise with no zero sample: every frame of it the monitor hears is a non-zero sample, so the
    /// count of those is the number of frames heard (silence before, after, or in an underrun is 0).
    private static func noise(_ count: Int) -> [Int16] { noiseSamples(count: count, seed: 77).map { $0 == 0 ? 1 : $0 } }

    private static func heardFrames(_ capture: [Int16]) -> Int { capture.reduce(0) { $0 + ($1 != 0 ? 1 : 0) } }

    /// The seconds in `played NAME: S s to SINK`.
    private static func reportedSeconds(_ stderr: String) -> Double? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("played ") }),
              let match = line.firstMatch(of: #/: (\d+\.\d{3}) s to /#) else { return nil }
        return Double(match.1)
    }

    private func bash(_ command: String, _ server: PrivateServer) async throws -> ProcessResult {
        let environment = server.clientEnvironment
        return try await offThread { try runProcess("bash", ["-c", "set -o pipefail; " + command], environment: environment) }
    }

    @Test func theReportedLengthIsWhatTheMonitorHeard() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = "'\(try builtProduct("recorder"))'"
            let sink = PrivateServer.monoSink
            let noise = Self.noise(3 * 44_100)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            // A WAV cut to its first second (its header still says 3 s), and a FLAC cut to half its bytes.
            let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/noise.wav"))
            try whole.prefix(44 + 44_100 * 2).write(to: URL(fileURLWithPath: directory + "/cut.wav"))
            let flac = try await bash("sox '\(directory)/noise.wav' '\(directory)/whole.flac'", server)
            #expect(flac.status == 0, "\(flac.stderr)")
            let flacBytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/whole.flac"))
            try flacBytes.prefix(flacBytes.count / 2).write(to: URL(fileURLWithPath: directory + "/cut.flac"))
            // The other containers, whole from ffmpeg and then cut to half their bytes.
            let others = ["aiff", "caf", "ogg", "mp3"]
            for type in others {
                let made = try await bash("ffmpeg -loglevel error -i '\(directory)/noise.wav' '\(directory)/whole.\(type)'", server)
                #expect(made.status == 0, "\(type): \(made.stderr)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/whole.\(type)"))
                try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: directory + "/cut.\(type)"))
            }
            let cases: [(name: String, command: String)] = [
                ("ffmpeg's WAV to a pipe (its header says 0xFFFFFFFF bytes)",
                 "ffmpeg -loglevel error -i '\(directory)/noise.wav' -f wav - | \(recorder) play - -d \(sink)"),
                ("an AU stream of unknown length", "sox '\(directory)/noise.wav' -t au - | \(recorder) play - -d \(sink)"),
                ("a WAV cut short", "\(recorder) play '\(directory)/cut.wav' -d \(sink)"),
                ("a FLAC cut short", "\(recorder) play '\(directory)/cut.flac' -d \(sink)"),
                ("an AIFF cut short", "\(recorder) play '\(directory)/cut.aiff' -d \(sink)"),
                ("an Ogg Vorbis cut short", "\(recorder) play '\(directory)/cut.ogg' -d \(sink)"),
                ("an MP3 cut short", "\(recorder) play '\(directory)/cut.mp3' -d \(sink)"),
                ("a start half a second before the end", "\(recorder) play '\(directory)/noise.wav' -d \(sink) --start 2.5 --duration 1e11"),
                ("three loops of a second", "\(recorder) play '\(directory)/cut.wav' -d \(sink) --loops 2"),
            ]
            for (name, command) in cases {
                let ear = try await ReferenceCapture(server: server, source: sink + ".monitor", directory: directory)
                let result = try await bash(command, server)
                let heard = Self.heardFrames(try await ear.samples(afterFrames: 22_050))
                ear.stop()
                let reported = try #require(Self.reportedSeconds(result.stderr), "\(name): \(result.stderr)")
                // A cut file may end in a decode error (status 74, said in a line after the summary): the
                // summary still says what was heard.
                #expect(result.status == 0 || (name.contains("cut short") && result.status == 74), "\(name): \(result.stderr)")
                // To the summary's precision, a millisecond (half of it either way); a lossy decoder's
                // output may hold a few exact zeros among the noise, which the count misses (a few frames).
                let slack = name.contains("Ogg") || name.contains("MP3") ? 0.002 : 0.0005
                #expect(abs(reported - Double(heard) / 44_100) <= slack, "\(name): reported \(reported) s, the monitor heard \(heard) frames")
                #expect(heard > 0, "\(name): nothing heard")
            }
            // A CAF cut short (ffmpeg's, its data chunk's size stated) is one that libsndfile will not open:
            // one line, nothing played.
            let caf = try await bash("\(recorder) play '\(directory)/cut.caf' -d \(sink)", server)
            #expect(caf.status == 66 && caf.stderr.hasPrefix("recorder: cannot read '\(directory)/cut.caf': ")
                    && caf.stderr.filter { $0 == "\n" }.count == 1, "\(caf.stderr)")
            // A pipe plays once: looping it or starting later in it is refused in one line.
            for option in [["--loops", "2"], ["--start", "1"]] {
                let refused = try await bash("cat '\(directory)/noise.wav' | \(recorder) play - -d \(sink) \(option.joined(separator: " "))", server)
                #expect(refused.status == 64 && refused.stderr == "recorder: standard input is a pipe: it plays once from its start; "
                        + "leave out \(option[0]), or save it to a file and play that\n", "\(option): \(refused.stderr)")
            }
        }
    }

    /// Stopped by a signal, `play` still says how much was heard (as `record` does), marked as stopped;
    /// the server's clock at the stop stands within a buffer of what the monitor heard.
    @Test func aStopBySignalReportsWhatWasHeard() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/noise.wav"
            try writeWAV(path, samples: Self.noise(44_100), channels: 1)
            let ear = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let process = try RunningProcess(try builtProduct("recorder"),
                ["play", path, "--device", PrivateServer.monoSink, "--levels-json", "--loops", "-1"],
                environment: server.clientEnvironment)
            var lines = process.lines.makeAsyncIterator()
            // Fifteen readings (an underrun's event line, which a loaded machine may bring, is no reading).
            var readings = 0
            while readings < 15, let line = await lines.next() {
                if !line.contains("\"event\"") { readings += 1 }
            }
            process.send(SIGTERM)
            while await lines.next() != nil {}
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let line = try #require(stderr.split(separator: "\n").last.map(String.init))
            #expect(line.hasPrefix("played \(path): ") && line.hasSuffix(" s to \(PrivateServer.monoSink) (stopped)"), "\(line)")
            let heard = Self.heardFrames(try await ear.samples(afterFrames: 22_050))
            let reported = try #require(Self.reportedSeconds(stderr))
            // The clock is the server's estimate of the frame being heard; the monitor also holds what the
            // sink had rendered ahead of it when the stream was closed: at most its latency, a buffer.
            #expect(abs(reported * 44_100 - Double(heard)) <= 4_410, "reported \(reported) s, the monitor heard \(heard) frames")
            #expect(reported >= 1.4, "fifteen readings of 0.1 s were heard before the signal: \(reported) s")
        }
    }
}

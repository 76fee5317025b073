// OpenAVFAudio on a private server: the seeds' AVAudioPlayer code (the class reference walk-through and the
// AVMeter VU pair) run as they are, and AVAudioRecorder through `avfaudio-probe`, each checked against
// what the server delivered or what the file holds.
import Foundation
import Testing
import TestSupport

/// Fields of a line as numbers, where they parse.
private func numbers(_ line: Substring) -> [Double] {
    line.split(whereSeparator: { $0 == " " || $0 == "=" || $0 == "/" }).compactMap { Double($0) }
}

/// A 3 s stereo file of 1 kHz: 0.5 of full scale on the left (−9.03 dBFS RMS, −6.02 peak), 0.25 on the
/// right (−15.05, −12.04).
private func writeTwoLevelSine(_ path: String) throws {
    try writeWAV(path, samples: sineSamples(frames: 132_300, frequency: 1_000, amplitudes: [0.5, 0.25]), channels: 2)
}

@Suite(.timeLimit(.minutes(2)))
struct AVFAudioSeedTests {
    /// Seed 004 walks through AVAudioPlayer: what it prints is what the file is (channels, duration,
    /// settings, format), the meters read nothing before `play(atTime:)`'s start and the file's levels
    /// while it plays, `stop()` keeps the position, the seek near the end plays to the end and the delegate
    /// says so, and bytes that are no sound throw one line. The monitor heard the file, mixed down to the
    /// mono sink at the volume set (0.8).
    @Test func theAVAudioPlayerReferenceWalkThroughReportsTheFileAndPlaysIt() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/sine.wav"
            try writeTwoLevelSine(path)
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let seed = try builtProduct("seed-avaudioplayer-reference")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(seed, [path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            func line(_ prefix: String) -> Substring? { lines.first { $0.hasPrefix(prefix) } }
            #expect(line("init(contentsOf:)") == "init(contentsOf:)  url=sine.wav  data=nil")
            #expect(line("init(data:)        ") == "init(data:)        url=nil  data=\(fileSize(path)) bytes")
            let refused = try #require(line("init(data:) with non-audio data"))
            #expect(refused.hasPrefix("init(data:) with non-audio data throws, as documented: cannot"), "\(refused)")
            #expect(line("prepareToPlay") == "prepareToPlay -> true  volume=0.8  pan=0.0  numberOfLoops=0  enableRate=true  rate=1.0")
            #expect(line("numberOfChannels") == "numberOfChannels=2  duration=3.00s")
            #expect(line("settings:") == "settings: format=1819304813  sampleRate=44100.0  channels=2")
            #expect(line("format:") == "format: 44100.0 Hz")
            #expect(line("play(atTime:") == "play(atTime: deviceCurrentTime + 0.5) -> true")
            // Before the start nothing is heard, so nothing is read; while playing, the file's levels.
            let before = numbers(try #require(line("before start")))
            #expect(before.dropFirst() == [-160, -160, -160, -160], "\(before)")
            let playing = numbers(try #require(line("playing")))
            let expected: [Double] = [-9.0, -6.0, -15.1, -12.0]
            #expect(playing.count == 5 && zip(playing.dropFirst(), expected).allSatisfy { abs($0 - $1) <= 0.11 }, "\(playing)")
            let stopped = try #require(line("stop():"))
            let position = numbers(stopped).first ?? 0
            #expect(stopped.hasPrefix("stop(): isPlaying=false  currentTime=") && position > 1, "\(stopped)")
            #expect(line("finishedSuccessfully=") == "finishedSuccessfully=true", "\(result.stdout)")
            #expect(line("audioPlayerDidFinishPlaying") == "audioPlayerDidFinishPlaying(successfully: true)")
            #expect(line("dataPlayer isPlaying=true") != nil, "\(result.stdout)")

            // The mono sink heard the two channels mixed down ((0.5 + 0.25) / 2 = 0.375 of full scale) at 0.8.
            let heard = try reference.samples()
            let loudest = heard.map { abs(Int($0)) }.max() ?? 0
            #expect(abs(Double(loudest) / 32_768 - 0.3) < 0.01, "the monitor's loudest sample: \(loudest)")
        }
    }

    /// Seed 000's VU pair on sample.mp3 beside it: while it plays, the bars settle at (50 + dB) / 50 of the
    /// file's levels less one frame's fall (0.02 for the average, 0.01 for the peak); after Stop, at 0.
    @Test func theAVMeterSeedDrawsTheFileLevels() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            // Encoded by ffmpeg (LAME), whose MP3 of the sine decodes to its levels. Five seconds: the seed
            // presses Stop 3 s after Play, which must find it playing (a 3 s file could have ended, and Stop
            // would then be Play again).
            try writeWAV(directory + "/sample.wav", samples: sineSamples(frames: 220_500, frequency: 1_000, amplitudes: [0.5, 0.25]),
                         channels: 2)
            let encoded = try runProcess("ffmpeg", ["-loglevel", "error", "-y", "-i", directory + "/sample.wav",
                                                    "-codec:a", "libmp3lame", "-b:a", "320k", directory + "/sample.mp3"],
                                         environment: ProcessInfo.processInfo.environment)
            #expect(encoded.status == 0, "\(encoded.stderr)")
            // The main bundle of a program on Linux is its folder: the seed goes beside its sample.
            let seed = directory + "/seed-avmeter"
            try FileManager.default.copyItem(atPath: try builtProduct("seed-avmeter"), toPath: seed)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(seed, [], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "[Stopped]  button: Play", "\(result.stdout)")
            #expect(lines.contains("[Playing]  button: Stop"))
            #expect(lines.last == "VU avg L/R 0.00/0.00  peak L/R 0.00/0.00", "\(result.stdout)")
            // The bars drawn last before Stop, 2.9 s into the file: left (50 − 9.03) / 50 − 0.02 = 0.80,
            // peak (50 − 6.02) / 50 − 0.01 = 0.87; right 0.68 and 0.75.
            let playing = try #require(lines.firstIndex(of: "[Playing]  button: Stop"))
            let stopped = try #require(lines[playing...].firstIndex(of: "[Stopped]  button: Play"))
            let last = try #require(lines[playing..<stopped].last { $0.hasPrefix("VU avg") }, "\(result.stdout)")
            let bar = numbers(last)
            #expect(bar.count == 4 && zip(bar, [0.80, 0.68, 0.87, 0.75]).allSatisfy { abs($0 - $1) <= 0.021 }, "\(last)")
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct AVAudioRecorderTests {
    /// `record(forDuration: 1)` from a monitor while a noise plays: a WAV of exactly 44 100 frames equal to a
    /// reference capture where it stands; the delegate is told it finished successfully; `isRecording`
    /// true while recording and false after; every meter line is silence (before the first buffer) or the
    /// level of a 4 410-frame buffer the server delivered.
    @Test func recordForDurationWritesWhatTheServerDeliveredAndTellsTheDelegate() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (reference, player) = try await noiseOnTheMonoMonitor(server, directory: directory, seed: 4_242)
            defer {
                player.cancel()
                reference.stop()
            }
            let probe = try builtProduct("avfaudio-probe")
            let path = directory + "/take.wav"
            let environment = server.environment(source: PrivateServer.monoSink + ".monitor")
            let result = try await offThread { try runProcess(probe, ["record", path, "1"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "prepareToRecord true")
            #expect(lines.dropFirst().first == "record(forDuration:) true isRecording true")
            #expect(lines.last == "finished true isRecording false", "\(result.stdout)")
            let file = try readSoundFile(path)
            #expect(file.frames == 44_100 && file.channels == 1 && file.sampleRate == 44_100)
            let comparison = try await reference.compare(file.samples)
            #expect(comparison.offset != nil && comparison.covered && comparison.differing == 0, "\(comparison)")
            guard let offset = comparison.offset else { return }
            let blocks = try bufferLevels(reference, gridAt: offset)
            for meter in lines.filter({ $0.hasPrefix("meter") }) {
                let values = numbers(meter)
                guard values.count == 2 else { Issue.record("not a meter line: \(meter)"); continue }
                if values == [-160, -160] { continue }
                #expect(blocks.contains { abs($0.average - values[0]) <= 0.006 && abs($0.peak - values[1]) <= 0.006 }, "\(meter)")
            }
        }
    }

    /// AVAudioRecorder's `isRecording` through record, pause, resume and stop: true, false (paused), true,
    /// false; the delegate is told of the end.
    @Test func isRecordingIsFalseWhilePaused() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(probe, ["pause", directory + "/take.wav"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                prepareToRecord true
                record true isRecording true
                paused isRecording false
                record true isRecording true
                stopped isRecording false finished true

                """)
        }
    }
}

struct AVAudioSessionRouteTests {
    /// The session's route is the server's: the sine source (PULSE_SOURCE) in, the mono sink (PULSE_SINK)
    /// out; the available inputs are the sources without the sinks' monitors; choosing an input or the
    /// speaker is refused in one line that says how to choose it on Linux.
    @Test func theRouteIsTheServersAndChoosingOneIsRefusedWithAWay() async throws {
        try await withPrivateServer { server in
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.environment(source: PrivateServer.sineSource, sink: PrivateServer.monoSink)
            let result = try await offThread { try runProcess(probe, ["route", "-"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "inputs: rk_sine (PulseAudioSource)", "\(result.stdout)")
            #expect(lines.dropFirst().first == "outputs: rk_mono (PulseAudioSink)", "\(result.stdout)")
            #expect(lines.contains { $0.hasPrefix("available inputs: ") && $0.contains("rk_sine") && !$0.contains(".monitor") }, "\(result.stdout)")
            #expect(lines.contains { $0.hasPrefix("setPreferredInput: cannot choose the input") && $0.contains("PULSE_SOURCE=") }, "\(result.stdout)")
            #expect(lines.contains { $0.hasPrefix("overrideOutputAudioPort: cannot route") && $0.contains("PULSE_SINK=") }, "\(result.stdout)")
        }
    }
}

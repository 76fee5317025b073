// The example programs under Examples/, built with the package, run against a private server with
// their output asserted (record-seconds is exercised in RecordingTests).
import Foundation
import RecorderKit
import Testing
import TestSupport

/// The average (RMS) level in dBFS of a sine of `amplitude` (a fraction of full scale), 20·log10(a/√2),
/// printed as the examples print it.
private func sineAverage(_ amplitude: Double) -> String {
    String(format: "%.2f", 20 * log10(amplitude / 2.0.squareRoot()))
}

@Suite(.timeLimit(.minutes(2)))
struct ExampleTests {
    /// The AVMeter port: both bars per channel read the file's levels while it plays, then the
    /// delegate's "finished" arrives.
    @Test func vuMeterDrawsAverageAndPeakBarsPerChannelWhileAFilePlays() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/two-levels.wav"
            // 1 kHz at 0.5 on the left (−6.02 / −9.03 dBFS), 0.05 on the right (−26.02 / −29.03).
            try writeWAV(path, samples: sineSamples(frames: 66_150, frequency: 1_000, amplitudes: [0.5, 0.05]), channels: 2)
            let example = try builtProduct("vu-meter")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(example, [path, PrivateServer.stereoSink], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "playing \(path) (2 ch, 44100 Hz, 1.50 s) on \(PrivateServer.stereoSink)")
            #expect(lines.last == "finished playing (successfully)")
            // A bar spans −60…0 dBFS in 30 cells: −9.03 fills 25, −6.02 fills 27, −29.03 fills 15, −26.02 fills 17.
            func bar(_ cells: Int) -> String { "[" + String(repeating: "#", count: cells) + String(repeating: " ", count: 30 - cells) + "]" }
            let left = "ch1  avg   -9.03 \(bar(25))  peak   -6.02 \(bar(27))"
            let right = "ch2  avg  -29.03 \(bar(15))  peak  -26.02 \(bar(17))"
            #expect(lines.contains { $0.hasSuffix(left) }, "\(result.stdout)")
            #expect(lines.contains { $0.hasSuffix(right) }, "\(result.stdout)")
            // Every line between the first and the last is a meter line (time, channel, both bars), a pair
            // each time the example's 100 ms timer fires while the file plays (how many: the machine's load).
            let meterLines = lines.dropFirst().dropLast()
            #expect(meterLines.count >= 2 && meterLines.count % 2 == 0, "\(result.stdout)")
            #expect(meterLines.allSatisfy { $0.contains(" s  ch") && $0.contains(" avg ") && $0.contains("]  peak ") })
        }
    }

    @Test func vuMeterSaysWhatIsWrongWithAMissingFileOrAMissingSink() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let example = try builtProduct("vu-meter")
            let environment = server.clientEnvironment
            let missing = try await offThread { try runProcess(example, [directory + "/nothing.wav"], environment: environment) }
            #expect(missing.status == 1)
            #expect(missing.stdout.isEmpty)
            #expect(missing.stderr.hasPrefix("vu-meter: "), "\(missing.stderr)")
            #expect(missing.stderr.contains(directory + "/nothing.wav"), "\(missing.stderr)")
            #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")

            try writeWAV(directory + "/short.wav", samples: [Int16](repeating: 0, count: 4_410), channels: 1)
            let noSink = try await offThread { try runProcess(example, [directory + "/short.wav", "no_such_sink"], environment: environment) }
            #expect(noSink.status == 1)
            #expect(noSink.stderr.contains("no_such_sink"), "\(noSink.stderr)")

            let usage = try await offThread { try runProcess(example, [], environment: environment) }
            #expect(usage.status == 64)
            #expect(usage.stderr == "usage: vu-meter FILE [SINK]\n")
        }
    }

    /// The gauge watches a null sink's monitor while a file of known levels plays into the sink (in a
    /// loop): each zone appears with its exact level.
    @Test func gaugeNamesQuietNormalLoudAndTooLoudZones() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let second = 44_100
            // 0.5 s of silence, then 1 s each at 0.03, 0.2 and 0.95 of full scale.
            let amplitudes = [0.03, 0.2, 0.95]
            let samples = [Int16](repeating: 0, count: second / 2)
                + amplitudes.flatMap { sineSamples(frames: second, frequency: 1_000, amplitudes: [$0]) }
            try writeWAV(directory + "/zones.wav", samples: samples, channels: 1)
            // Looped by a player of our own, started first: any 7 s the gauge watches holds every zone
            // whole, however late CI's load lets this test run between the gauge's start and the sound.
            let player = try Player(contentsOf: directory + "/zones.wav", device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            player.numberOfLoops = -1
            try await player.play()
            let gauge = try RunningProcess(try builtProduct("gauge"), ["7", PrivateServer.monoSink + ".monitor"],
                                           environment: server.clientEnvironment)
            var lines = gauge.lines.makeAsyncIterator()
            let header = try #require(await lines.next())
            #expect(header == "level of \(PrivateServer.monoSink).monitor for 7.0 s "
                    + "(quiet < -40 dBFS ≤ normal < -20 ≤ loud < -6 ≤ too loud)")
            var readings: [String] = []
            while let line = await lines.next() { readings.append(line) }
            let (status, stderr) = await gauge.wait()
            #expect(status == 0, "\(stderr)")
            let expected: [(level: String, zone: String)] = [
                ("-160.00", "quiet"), (sineAverage(0.03), "normal"),
                (sineAverage(0.2), "loud"), (sineAverage(0.95), "too loud"),
            ]
            for (level, zone) in expected {
                #expect(readings.contains { $0.contains(" \(level) dBFS ") && $0.hasSuffix("]  \(zone)") },
                        "no \(zone) line at \(level) dBFS in:\n\(readings.joined(separator: "\n"))")
            }
            // Every line's zone is the one its level falls in.
            for line in readings {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let level = try #require(Float(fields[2]), "\(line)")
                let zone = line.components(separatedBy: "]  ").last ?? ""
                let inZone = switch zone {
                case "quiet": level < -40
                case "normal": level >= -40 && level < -20
                case "loud": level >= -20 && level < -6
                case "too loud": true  // from −6 dBFS, or a peak at −1 dBFS or above
                default: false
                }
                #expect(inZone, "\(line)")
            }
            let last = try #require(readings.last)
            #expect(Double(last.split(separator: " ")[0]).map { $0 >= 7 } == true, "\(last)")
        }
    }

    @Test func gaugeRefusesABadDurationAndAMissingSource() async throws {
        try await withPrivateServer { server in
            let example = try builtProduct("gauge")
            let environment = server.clientEnvironment
            for bad in ["0", "-1", "nan", "1e15", "inf", "soon"] {
                let result = try await offThread { try runProcess(example, [bad], environment: environment) }
                #expect(result.status == 64, "\(bad)")
                #expect(result.stderr.hasPrefix("usage: gauge [SECONDS"), "\(bad): \(result.stderr)")
            }
            let missing = try await offThread { try runProcess(example, ["1", "no_such_source"], environment: environment) }
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("gauge: "), "\(missing.stderr)")
            #expect(missing.stderr.contains("no_such_source"), "\(missing.stderr)")
            #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        }
    }

    /// The AudioQueue/AVAudioRecorder tutorial class, ported with AVAudioRecorder's names: it records
    /// exactly the seconds asked for with a pause in the middle left out, its meters read the sine
    /// (−9.03 / −6.02 dBFS), the delegate's finish arrives; bad arguments and a missing directory are
    /// one line each.
    @Test func theTutorialRecorderClassRecordsPausesMetersAndFinishes() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let example = try builtProduct("audio-recorder")
            let environment = server.clientEnvironment
            // A steady sine on a monitor: the sine source's 2 s bursts delivered the whole take at once in a
            // CI run, so it ended before the tutorial's pause button was pressed.
            let result = try await withSteadySine(on: server) {
                try await offThread {
                    // 4 s: the tutorial pauses at its timer's fourth tick (1 s of wall clock) and resumes at its
                    // sixth, well inside the take however late a loaded machine runs the timer.
                    try runProcess(example, [directory + "/tutorial.aiff", "4", PrivateServer.monoSink + ".monitor"],
                                   environment: environment)
                }
            }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "recording \(directory)/tutorial.aiff for 4.0 s")
            #expect(lines.contains("paused") && lines.contains("resumed"), "\(lines)")
            let meters = lines.filter { $0.contains(" average ") }
            #expect(meters.count >= 4, "\(lines)")
            // The first buffer may begin before the sine reaches the monitor (pipewire-pulse starts a capture
            // with part of a quantum of silence): its peak is the sine's, its average lower.
            #expect(meters.first?.hasSuffix("peak   -6.02 dBFS") == true, "\(meters)")
            #expect(meters.dropFirst().allSatisfy { $0.hasSuffix("average   -9.03 dBFS  peak   -6.02 dBFS") }, "\(meters)")
            #expect(lines.last == "finished recording \(directory)/tutorial.aiff: 4.00 s, 176400 frames, paused 1 time(s) (successfully: true)",
                    "\(lines)")
            #expect(try readSoundFile(directory + "/tutorial.aiff").frames == 176_400)
            for bad in [["x.aiff"], ["x.aiff", "nan"], ["x.aiff", "1"], ["x.aiff", "1e15"]] {
                let refused = try await offThread { try runProcess(example, bad, environment: environment) }
                #expect(refused.status == 1)
                #expect(refused.stderr == "audio-recorder: usage: audio-recorder FILE SECONDS [SOURCE] (SECONDS: more than 1, at most 3600)\n")
            }
            let missing = try await offThread {
                try runProcess(example, [directory + "/no/such/dir/x.aiff", "2"], environment: environment)
            }
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("audio-recorder: ") && missing.stderr.contains("no/such/dir"), "\(missing.stderr)")
            #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        }
    }
}

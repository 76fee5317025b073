// Audio Queue Services on a private server, through `audioqueue-probe` (a program that uses only Apple's
// API): what a recording queue's callbacks receive is what the server delivered to a reference capture
// of the same monitor, sample for sample; what a playback queue plays is heard on the monitor bit for bit.
import Foundation
import Testing
import TestSupport

/// The limit is a ceiling only a hang reaches: under ThreadSanitizer beside the CPU stages and `scripts/busy`
/// its six cases took 266 s together (about 100 s each: a server, a reference capture, the noise to reach
/// the monitor, the take, the comparison), and once the slowest (float32 stereo, whose reference the generic
/// path parses, again at each growth) passed two minutes; no way for the queue itself to hang was found.
@Suite(.timeLimit(.minutes(5)))
struct AudioQueueRecordingTests {
    /// One second (ten 4 410-frame buffers) recorded from a monitor while a noise plays, in each sample
    /// type and byte order, mono and stereo, callbacks on the main run loop or on the queue's thread:
    /// equal to the reference capture where it stands, every buffer's start time one buffer after the
    /// last's, every buffer's size its packet count's.
    @Test(arguments: [("s16le", false), ("s16be:1", true), ("s24le:2", true), ("s32be", false),
                      ("f32le:2", false), ("f32be", true)])
    func aRecordingQueueDeliversWhatTheServerDelivered(format name: String, onRunLoop: Bool) async throws {
        let format = ProbeFormat(name)
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (reference, player) = try await noiseOnTheMonoMonitor(server, directory: directory, seed: 2_718,
                                                                      channels: format.channels, format: format.reference)
            defer {
                player.cancel()
                reference.stop()
            }
            let monitor = PrivateServer.monoSink + ".monitor"

            let probe = try builtProduct("audioqueue-probe")
            let output = directory + "/take.raw"
            let environment = server.environment(source: monitor)
            let result = try await offThread {
                try runProcess(probe, ["record", name, "44100", output] + (onRunLoop ? ["runloop"] : []), environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let thread = onRunLoop ? "on the main thread 10, elsewhere 0" : "on the main thread 0, elsewhere 10"
            #expect(result.stdout == "recorded 44100 frames in 10 buffers; sample-time gaps 0; size mismatches 0; callbacks \(thread)\n")

            let take = format.values([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
            #expect(take.count == 44_100 * format.channels)
            #expect(take.filter { $0 != 0 }.count > take.count * 99 / 100, "the take is not inside the noise")
            let comparison = try await reference.compare(take)
            #expect(comparison.offset != nil && comparison.covered, "\(comparison)")
            #expect(comparison.differing == 0, "\(comparison)")
        }
    }

    /// kAudioQueueProperty_CurrentDevice names the source (PULSE_SOURCE unset, the default source the
    /// sine): the take is the monitor's, equal to a reference capture; a name the server lacks fails the
    /// start with kAudioQueueErr_InvalidDevice and a line naming it.
    @Test func theCurrentDevicePropertyChoosesTheSource() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (reference, player) = try await noiseOnTheMonoMonitor(server, directory: directory, seed: 5_151)
            defer {
                player.cancel()
                reference.stop()
            }
            let probe = try builtProduct("audioqueue-probe")
            let output = directory + "/take.raw"
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess(probe, ["record", "s16le", "44100", output, "device=\(PrivateServer.monoSink).monitor"], environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let take = ProbeFormat("s16le").values([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
            let comparison = try await reference.compare(take)
            #expect(comparison.offset != nil && comparison.covered && comparison.differing == 0, "\(comparison)")

            let missing = try await offThread { try runProcess(probe, ["start-input", "s16le", "device=no_such_source"], environment: environment) }
            let lines = missing.stdout.split(separator: "\n")
            #expect(lines.first == "AudioQueueStart: -66680" && lines.last?.contains("no_such_source") == true, "\(missing.stdout)")
        }
    }

    /// AudioQueueStart with no server to reach: kAudioQueueErr_InvalidDevice (−66680), and the message
    /// names the server and says what to do.
    @Test func startingWithNoServerSaysWhichServer() async throws {
        let directory = try temporaryDirectory()
        let probe = try builtProduct("audioqueue-probe")
        var unreachable = ProcessInfo.processInfo.environment
        unreachable["PULSE_SERVER"] = "unix:\(directory)/no-such-socket"
        let environment = unreachable
        let result = try await offThread { try runProcess(probe, ["start-input", "s16le"], environment: environment) }
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "AudioQueueStart: -66680")
        #expect(lines.count == 2 && lines[1].contains("\(directory)/no-such-socket"), "\(result.stdout)")
    }
}

@Suite(.timeLimit(.minutes(2)))
struct AudioQueuePlaybackTests {
    /// A file of samples exact in 16 bits, played through a playback queue whose callback reads it buffer
    /// by buffer (primed before the start, stopped without `inImmediate` at its end): the monitor hears it
    /// whole, sample for sample; IsRunning's listener hears 1, then 0 once it has all been played. A
    /// 24-bit queue is heard rounded to 16 bits (to the nearest, halves up).
    @Test(arguments: [("s16le", true), ("f32le:2", false), ("s24be", false)])
    func aPlaybackQueueIsHeardBitForBit(format name: String, onRunLoop: Bool) async throws {
        let format = ProbeFormat(name)
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sink = format.channels == 2 ? PrivateServer.stereoSink : PrivateServer.monoSink
            let frames = 66_150
            let noise = noiseSamples(count: frames * format.channels, seed: 31_415)
            // 24-bit: the noise with low bytes that make every rounding case (below, at and above a half).
            let samples: [Double] = format.kind == "s24"
                ? noise.enumerated().map { index, sample in (Double(sample) * 256 + Double([0, 127, 128, 129, 255][index % 5])) / 8_388_608 }
                : noise.map { Double($0) / 32_768 }
            let heard: [Int16] = format.kind == "s24"
                ? samples.map { Int16(clamping: (Int(($0 * 8_388_608).rounded()) + 128) >> 8) } : noise
            let input = directory + "/signal.raw"
            try Data(format.bytes(samples)).write(to: URL(fileURLWithPath: input))
            let reference = try await ReferenceCapture(server: server, source: sink + ".monitor", channels: format.channels,
                                                       directory: directory)
            defer { reference.stop() }

            let probe = try builtProduct("audioqueue-probe")
            let environment = server.environment(sink: sink)
            let result = try await offThread {
                try runProcess(probe, ["play", name, input] + (onRunLoop ? ["runloop"] : []), environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            // Three priming calls (the main thread's own), then one per buffer played: fifteen of 4 410
            // frames, the last three finding the file's end (and stopping the queue).
            let thread = onRunLoop ? "on the main thread 18, elsewhere 0" : "on the main thread 3, elsewhere 15"
            #expect(result.stdout == "played \(frames) frames; running 1 then 0; callbacks \(thread)\n")
            let comparison = try await reference.compare(heard)
            #expect(comparison.offset != nil && comparison.covered, "\(comparison)")
            #expect(comparison.differing == 0, "\(comparison)")
        }
    }

    /// Time-pitch on a playback queue (enabled before the start, as Apple's code does): a second of a 1 kHz
    /// tone at play rate 2 (time-domain) is heard for half a second at 1 kHz; at pitch +1200 cents
    /// (spectral), for a second at 2 kHz (each ±1 %, the length within a buffer).
    @Test(arguments: [("rate=2", 1_000.0, 22_050), ("pitch=1200", 2_000.0, 44_100)])
    func aPlaybackQueueStretchesAndShiftsPitch(setting: String, frequency expected: Double, frames: Int) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let tone = (0..<44_100).map { Int16((0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 44_100) * 32_767).rounded()) }
            let input = directory + "/tone.raw"
            try Data(ProbeFormat("s16le").bytes(tone.map { Double($0) / 32_768 })).write(to: URL(fileURLWithPath: input))
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("audioqueue-probe")
            let environment = server.environment(sink: PrivateServer.monoSink)
            let result = try await offThread { try runProcess(probe, ["play", "s16le", input, setting], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let heard = try await reference.samples(afterFrames: 4_410).map { Double($0) / 32_768 }
            guard let first = heard.firstIndex(where: { abs($0) > 0.1 }), let last = heard.lastIndex(where: { abs($0) > 0.1 }) else {
                Issue.record("\(setting): nothing heard")
                return
            }
            #expect(abs(last - first - frames) < 4_410, "\(setting): \(last - first) frames heard")
            let middle = Array(heard[(first + 2_205)..<(last - 2_205)])
            let rising = (1..<middle.count).filter { middle[$0 - 1] < 0 && middle[$0] >= 0 }
            let measured = Double(rising.count - 1) * 44_100 / Double(rising.last! - rising.first!)
            #expect(abs(measured - expected) < expected / 100, "\(setting): \(measured) Hz")
        }
    }

    /// A start time half a second ahead, as a sample time on the device's timeline: before it the queue's
    /// time reads 0 (nothing heard), at the end every frame played, and the monitor hears the file whole,
    /// sample for sample, after the silence.
    @Test func aPlaybackQueueStartedAtADeviceTimeWaitsForIt() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let frames = 22_050
            let noise = noiseSamples(count: frames, seed: 2_718)
            let input = directory + "/signal.raw"
            try Data(ProbeFormat("s16le").bytes(noise.map { Double($0) / 32_768 })).write(to: URL(fileURLWithPath: input))
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("audioqueue-probe")
            let environment = server.environment(sink: PrivateServer.monoSink)
            let result = try await offThread { try runProcess(probe, ["play", "s16le", input, "at=0.5"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "queue time before the start: 0; discontinuity false" || lines.first == "queue time before the start: asked too late",
                    "\(result.stdout)")
            #expect(lines.contains("queue time at the end: \(frames)"), "\(result.stdout)")
            let comparison = try await reference.compare(noise)
            #expect(comparison.offset != nil && comparison.covered && comparison.differing == 0, "\(comparison)")
        }
    }
}

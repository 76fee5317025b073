// Recording through a real private PulseAudio server: known signals in, exact checks out.
import CSndFile
import Foundation
import RecorderKit
import Testing
import TestSupport
import Locking

/// Waits for the first level reading that satisfies `condition` (the suite's time limit bounds it).
func firstReading(_ readings: AsyncStream<LevelReading>,
                  where condition: (LevelReading) -> Bool) async throws -> LevelReading {
    for await reading in readings where condition(reading) { return reading }
    throw TestFailure("the level stream ended before the awaited reading")
}

/// Waits for a reading that ends at or after `frame`.
func readingThrough(_ frame: Int64, _ readings: AsyncStream<LevelReading>) async throws -> LevelReading {
    try await firstReading(readings) { $0.endFrame >= frame }
}

/// Plays a steady 1 kHz sine at half scale (−6.02 dBFS peak, −9.03 average) into the mono sink for up to
/// 30 s, returns once its monitor carries it, and stops the player when `body` returns. A monitor takes
/// the sine in 100 ms fragments, unlike the sine source's 2 s bursts, so a take of a few seconds lasts as
/// long on the wall clock as in the file. paplay's 1 s of latency keeps it playing through CI's load.
func withSteadySine<T>(on server: PrivateServer, _ body: () async throws -> T) async throws -> T {
    let directory = try temporaryDirectory()
    try writeWAV(directory + "/sine.wav", samples: sineSamples(frames: 44_100 * 30, frequency: 1_000, amplitudes: [0.5]),
                 channels: 1)
    // With no signal blocked (a test's thread blocks them, and a child inherits that): the SIGTERM below
    // must stop it, not leave the test waiting out the 30 s.
    let (program, arguments) = unblockingSignals("/usr/bin/paplay", ["--volume=65536", "--latency-msec=1000", "-d",
                                                                    PrivateServer.monoSink, directory + "/sine.wav"])
    let player = try RunningProcess(program, arguments, environment: server.clientEnvironment)
    defer { player.send(SIGTERM); _ = player.waitBlocking() }
    do {
        let probe = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address)
        defer { probe.stop() }
        _ = try await firstReading(probe.levelReadings()) { $0.channels[0].peakPower > -7 }
    }
    return try await body()
}

/// Waits until `readings` has shown signal and then a whole buffer of digital silence after it.
func signalThenSilence(_ readings: AsyncStream<LevelReading>) async throws {
    var sawSignal = false
    _ = try await firstReading(readings) { reading in
        let silent = reading.channels.allSatisfy { $0.peakPower == LevelMeterState.silence }
        if !silent { sawSignal = true }
        return sawSignal && silent
    }
}

// A ceiling only a hang reaches: alone each test takes seconds, but in the test command's parallel stages
// (three at once, each starting its own server, beside the long run) their times run to 35–56 s, and once
// one passed 60 s on PipeWire without hanging (not reproduced in six loaded reruns).
@Suite(.timeLimit(.minutes(3)))
struct RecordingTests {
    /// The engine-tap shape: float samples per channel, each exactly the 16-bit sample / 32 768, for a
    /// stereo capture of the sine; a channel the buffer lacks reads nil or nothing.
    @Test func capturedBuffersOfferFloatSamplesPerChannel() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(format: try StreamFormat(channelCount: 2), source: PrivateServer.sineSource,
                                        server: server.address)
            defer { recorder.stop() }
            struct Checked { var buffers = 0; var mismatches = 0; var peak: Float = 0; var bad: [String] = [] }
            let checked = Locked(Checked())
            recorder.setInputHandler { buffer in
                let channels = buffer.floatChannelData
                var mismatches = 0, peak: Float = 0
                var bad: [String] = []
                if channels.count != 2 || channels.contains(where: { $0.count != buffer.frameCount }) { bad.append("shape") }
                for channel in 0..<min(2, channels.count) {
                    for frame in 0..<min(buffer.frameCount, channels[channel].count) {
                        let expected = Float(buffer.sample(frame: frame, channel: channel)!) / 32_768
                        if channels[channel][frame] != expected { mismatches += 1 }
                        peak = max(peak, abs(channels[channel][frame]))
                    }
                }
                if buffer.floatSamples(channel: 2) != nil || buffer.floatSamples(channel: -1) != nil { bad.append("channel") }
                var small = [Float](repeating: 9, count: 10)
                let copied = small.withUnsafeMutableBufferPointer { buffer.copyFloatSamples(channel: 1, into: $0) }
                if copied != min(10, buffer.frameCount) || small != Array(channels[1].prefix(10)) + Array(small.dropFirst(copied)) {
                    bad.append("copy")
                }
                checked.withLock { $0.buffers += 1; $0.mismatches += mismatches; $0.peak = max($0.peak, peak); $0.bad += bad }
            }
            // Nine buffers through the handler (the first may have been delivered before it was set).
            try await waitFor("nine buffers through the input handler") { checked.withLock { $0.buffers } >= 9 }
            recorder.setInputHandler(nil)
            let done = checked.withLock { $0 }
            #expect(done.mismatches == 0 && done.bad.isEmpty, "\(done)")
            #expect(abs(done.peak - 0.5) < 0.001, "the sine's amplitude, 0.5 of full scale: \(done.peak)")
        }
    }

    @Test func twoSecondsOfTheSineSourceHaveTheRightFormatLengthFrequencyAndLevels() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/sine.aiff"
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            #expect(recorder.sourceName == PrivateServer.sineSource)
            #expect(recorder.bufferFrameCapacity == 4_410)
            // The sine source delivers 2 s blocks, so a wall-clock stop would land anywhere in one:
            // the exact-duration API cuts at 88 200 frames however the server delivers them.
            try recorder.record(to: path, duration: 2)
            #expect(recorder.isRecording)
            let summary = try #require(try recorder.waitForRecording())
            #expect(!recorder.isRecording)
            #expect(summary.path == path && summary.fileType == .aiff && summary.error == nil)
            #expect(summary.frameCount == 88_200)
            // A loss (none but on a machine that stalled the recorder for the server's two seconds of
            // queue) is counted once, and placed: silence of its length where the summary says.
            #expect(summary.droppedFrames == recorder.droppedFrames)
            #expect(summary.gaps.reduce(0) { $0 + $1.frameCount } == summary.droppedFrames, "\(summary.gaps)")

            // Classic AIFF, big-endian 16-bit, as libsndfile and sox read it.
            #expect(Array(try fileHeader(path)[8..<12]) == Array("AIFF".utf8))
            let file = try readSoundFile(path)
            #expect(file.container == Int32(SF_FORMAT_AIFF) && file.subtype == Int32(SF_FORMAT_PCM_16))
            #expect(file.sampleRate == 44_100 && file.channels == 1)
            #expect(Int64(file.frames) == summary.frameCount)
            let type = try runProcess("soxi", ["-t", path]).stdout
            let samples = try runProcess("soxi", ["-s", path]).stdout
            let encoding = try runProcess("soxi", ["-e", path]).stdout
            let bits = try runProcess("soxi", ["-b", path]).stdout
            #expect(type.trimmingCharacters(in: .whitespacesAndNewlines) == "aiff")
            #expect(Int(samples.trimmingCharacters(in: .whitespacesAndNewlines)) == file.frames)
            #expect(encoding.contains("Signed Integer PCM"))
            #expect(bits.trimmingCharacters(in: .whitespacesAndNewlines) == "16")

            // Content: 1 kHz (rising zero crossings per second) at amplitude 0.5. On PulseAudio only: on
            // PipeWire the sine is sox through a pipe source, whose data jumps where the graph missed a
            // cycle under load (seen: 1047 Hz, a take of the right length with no loss reported).
            for gap in summary.gaps {
                let start = Int(gap.startFrame)
                #expect(file.samples[start..<start + Int(gap.frameCount)].allSatisfy { $0 == 0 }, "\(gap)")
            }
            let rising = zip(file.samples, file.samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            // The sine's frequency over what was captured (the counted loss left out).
            let frequency = Double(rising) * 44_100 / Double(Int64(file.frames) - summary.droppedFrames)
            if server.kind == .pulseaudio {
                #expect(abs(frequency - 1_000) < 2, "frequency \(frequency)")
            }
            let peak = file.samples.map { abs(Int($0)) }.max() ?? 0
            #expect(abs(peak - 16_384) <= 2, "peak \(peak)")

            // Meters within 0.1 dB of theory: −6.02 dBFS peak, −9.03 dBFS RMS.
            #expect(abs(recorder.getPeakPower() - (-6.0206)) < 0.1)
            #expect(abs(recorder.getAveragePower() - (-9.0309)) < 0.1)
            #expect(abs(try recorder.getPeakPower(channel: 0) - recorder.getPeakPower()) == 0)
            #expect(recorder.currentLevelMeterStates.count == 1)
            #expect(throws: RecorderError.self) { try recorder.getPeakPower(channel: 5) }
        }
    }

    @Test func metersMatchSoxStatsOnTheWholeFile() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/sine.aiff"
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            try recorder.record(to: path, duration: 0.5)
            _ = try await readingThrough(recorder.capturedFrames + 22_050, readings)
            let summary = try #require(try await recorder.waitForRecording() ?? recorder.lastRecording)
            #expect(summary.frameCount == 22_050)
            let file = try readSoundFile(path)
            let bytes = file.samples.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0) >> 8),
                                                UInt8(truncatingIfNeeded: $0)] }
            let ours = LevelMeter.measure(bigEndianS16: bytes, channelCount: 1)[0]
            let stats = try runProcess("sox", [path, "-n", "stats"]).stderr
            func value(_ label: String) -> Float? {
                stats.split(separator: "\n").first { $0.hasPrefix(label) }
                    .flatMap { Float($0.split(separator: " ").last ?? "") }
            }
            let soxPeak = try #require(value("Pk lev dB"))
            let soxRMS = try #require(value("RMS lev dB"))
            #expect(abs(ours.peakPower - soxPeak) < 0.01, "ours \(ours.peakPower) sox \(soxPeak)")
            #expect(abs(ours.averagePower - soxRMS) < 0.01, "ours \(ours.averagePower) sox \(soxRMS)")
        }
    }

    /// Two seconds of the numbered source: every frame of the feed from the take's first to its last, in
    /// order, none missing (the oracle knows each frame; a reference capture could drop some unsaid).
    @Test func everyFrameOfTheSourceIsInTheRecordingInOrder() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            defer { recorder.stop() }
            try recorder.record(to: directory + "/take.aiff", duration: 2)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 88_200)
            // Every frame of the feed, or its loss counted and placed where the summary says.
            let check = try await source.check(try readSoundFile(directory + "/take.aiff").samples,
                                               gaps: summary.gaps)
            #expect(check.unexplained.isEmpty && check.numbered + check.counted >= 88_200 - 4_410, "\(check)")
        }
    }

    /// `record(to:)` right after `stopRecording()`: each file holds every frame of the feed from its first
    /// to its last, and the second begins where the two start frames alone put it after the first
    /// (frames delivered between the two calls, usually none, belong to neither, and the start frames
    /// say how many).
    @Test func stopRecordingThenRecordAgainPlacesBothFilesExactly() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            try recorder.record(to: directory + "/first.aiff")
            // Switch files once a second of the feed has gone by.
            var signalFrames: Int64 = 0
            _ = try await firstReading(readings) { reading in
                if reading.channels[0].peakPower > -60 { signalFrames += Int64(reading.frameCount) }
                return signalFrames >= 44_100
            }
            // The blocking call and record(to:) right after it, on one thread.
            let first = try await offThread { () throws -> RecordingSummary? in
                let first = try recorder.stopRecording()
                try recorder.record(to: directory + "/second.aiff", duration: 1)
                return first
            }.map { $0 }
            let second = try #require(try await recorder.waitForRecording())

            let firstSummary = try #require(first)
            let firstEnd = firstSummary.startFrame + firstSummary.frameCount
            #expect(second.startFrame >= firstEnd)
            let firstSamples = try readSoundFile(directory + "/first.aiff").samples
            let secondSamples = try readSoundFile(directory + "/second.aiff").samples
            #expect(Int64(firstSamples.count) == firstSummary.frameCount && Int64(secondSamples.count) == second.frameCount)
            let firstCheck = try await source.check(firstSamples)
            let secondCheck = try await source.check(secondSamples)
            #expect(firstCheck.unexplained.isEmpty && firstCheck.numbered >= 44_100 - 4_410, "first: \(firstCheck)")
            #expect(secondCheck.unexplained.isEmpty && secondCheck.numbered == 44_100, "second: \(secondCheck)")
            // The second file's first frame is the feed's frame that many after the first file's last.
            let last = try #require(firstSamples.last), next = try #require(secondSamples.first)
            let between = Int(second.startFrame - firstEnd)
            #expect(Int(UInt16(bitPattern: next)) - 1 == (Int(UInt16(bitPattern: last)) - 1 + 1 + between) % NumberedSource.period,
                    "the second file begins \(next) after \(last), \(between) frames between them by their start frames")
            if between > 0 { print("record(to:) after stopRecording(): \(between) frames between the files") }
        }
    }

    @Test func meteringWithoutAFileAndAnExactDuration() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            let reading = try await firstReading(readings) { $0.channels[0].peakPower > -160 }
            #expect(!recorder.isRecording)
            #expect(abs(reading.channels[0].peakPower - (-6.0206)) < 0.1)
            #expect(abs(reading.channels[0].averagePower - (-9.0309)) < 0.1)
            #expect(reading.frameCount == 4_410)
            #expect(abs(reading.time - Double(reading.endFrame) / 44_100) < 1e-9)

            let path = try temporaryDirectory() + "/exact.wav"
            try recorder.record(to: path, duration: 1.25)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 55_125)
            let file = try readSoundFile(path)
            #expect(file.frames == 55_125 && file.container == Int32(SF_FORMAT_WAVEX))
            #expect(abs((file.samples.map { abs(Int($0)) }.max() ?? 0) - 16_384) <= 2)
        }
    }

    @Test(arguments: [FileType.wav, .caf, .flac, .au, .w64, .rf64, .raw])
    func otherContainersHoldTheSineInTheirOwnByteOrder(type: FileType) async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take." + type.rawValue
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            try recorder.record(to: path, frameLimit: 8_820)
            let summary = try #require(try recorder.waitForRecording())
            #expect(summary.fileType == type && summary.frameCount == 8_820)
            let samples: [Int16]
            if type == .raw {
                // No header: signed 16-bit little-endian, nothing else.
                let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                #expect(data.count == 8_820 * 2)
                samples = stride(from: 0, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
            } else {
                let file = try readSoundFile(path)
                let container: Int
                switch type {
                case .wav: container = SF_FORMAT_WAVEX  // RIFF WAVE, WAVE_FORMAT_EXTENSIBLE (RF64 past 4 GiB)
                case .caf: container = SF_FORMAT_CAF
                case .flac: container = SF_FORMAT_FLAC
                case .aiff: container = SF_FORMAT_AIFF
                case .au: container = SF_FORMAT_AU
                case .w64: container = SF_FORMAT_W64
                case .rf64: container = SF_FORMAT_RF64
                case .raw: container = SF_FORMAT_RAW
                case .ogg, .opus, .mp3: container = 0  // not among the arguments: lossy
                }
                #expect(file.container == Int32(container) && file.subtype == Int32(SF_FORMAT_PCM_16))
                #expect(file.frames == 8_820)
                samples = file.samples
            }
            // A wrong byte order would turn the sine into noise: peak and RMS pin it down. The RMS is the
            // sounding part's: on PipeWire the sine is a pipe fed by sox, and a take can begin with silence
            // the source delivered before sox fed it (runs of exact zeros; the sine has single ones).
            #expect(abs((samples.map { abs(Int($0)) }.max() ?? 0) - 16_384) <= 2)
            var sounding: [Int16] = [], zeros = 0
            for sample in samples {
                if sample == 0 {
                    zeros += 1
                    continue
                }
                if zeros < 3 { sounding += [Int16](repeating: 0, count: zeros) }
                zeros = 0
                sounding.append(sample)
            }
            #expect(sounding.count >= 4_410, "\(sounding.count) of \(samples.count) samples sounding")
            let bytes = sounding.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0) >> 8),
                                                UInt8(truncatingIfNeeded: $0)] }
            #expect(abs(LevelMeter.measure(bigEndianS16: bytes, channelCount: 1)[0].averagePower - (-9.0309)) < 0.05)
        }
    }

    @Test func twoChannelsAreMeteredPerChannel() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let tone = sineSamples(frames: 66_150, frequency: 1_000, amplitudes: [0.5, 0.125])
            try writeWAV(directory + "/stereo.wav", samples: tone, channels: 2)
            let format = try StreamFormat(sampleRate: 44_100, channelCount: 2)
            let recorder = try Recorder(format: format, source: PrivateServer.stereoSink + ".monitor",
                                        server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            let player = Task.detached { try await server.play(directory + "/stereo.wav", sink: PrivateServer.stereoSink) }
            // A buffer wholly inside the tone: both channels steady at their level.
            var steady = 0
            let reading = try await firstReading(readings) { reading in
                steady = abs(reading.channels[0].averagePower - (-9.03)) < 0.2 ? steady + 1 : 0
                return steady == 3
            }
            try await player.value
            #expect(reading.channels.count == 2)
            #expect(abs(reading.channels[0].peakPower - (-6.0206)) < 0.1)
            #expect(abs(reading.channels[0].averagePower - (-9.0309)) < 0.1)
            #expect(abs(reading.channels[1].peakPower - (-18.0618)) < 0.1)
            #expect(abs(reading.channels[1].averagePower - (-21.0721)) < 0.1)
        }
    }

    @Test func anInputHandlerSeesEveryBufferInOrder() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let seen = Locked<[(Int64, Int)]>([])
            let outside = Locked<[Int16?]>([])
            recorder.setInputHandler { buffer in
                // Every sample of the buffer is there; past it (or a channel it lacks) is nil, not a trap.
                let last = buffer.sample(frame: buffer.frameCount - 1, channel: 0)
                outside.withLock {
                    $0 += [last == nil ? 1 : nil, buffer.sample(frame: buffer.frameCount, channel: 0),
                           buffer.sample(frame: -1, channel: 0), buffer.sample(frame: 0, channel: 1),
                           buffer.sample(frame: Int.max, channel: Int.min)]
                }
                seen.withLock { $0.append((buffer.startFrame, buffer.frameCount)) }
            }
            let readings = recorder.levelReadings()
            // The handler runs just after a buffer's reading is published: wait one buffer more.
            _ = try await readingThrough(recorder.capturedFrames + 48_510, readings)
            recorder.setInputHandler(nil)
            let buffers = seen.withLock { $0 }
            #expect(buffers.count >= 10)
            #expect(outside.withLock { $0.allSatisfy { $0 == nil } })
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                #expect(next.0 == previous.0 + Int64(previous.1))
            }
        }
    }

    /// CI crashed inside an input handler nested under 1 380 reabstraction thunks: reading a closure
    /// out of a generic `Locked` through an `inout` wrapped it twice more on every buffer, so each
    /// call ran deeper and slower until the thread died. The handler must run at one depth forever.
    @Test func anInputHandlerRunsAtTheSameStackDepthOnEveryBuffer() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address, bufferDuration: 0.01)
            defer { recorder.stop() }
            let depths = Locked<[UInt]>([])
            let enough = AsyncStream<Void>.makeStream()
            recorder.setInputHandler { _ in
                var local = 0
                let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
                let count = depths.withLock { $0.append(address); return $0.count }
                if count == 300 { enough.continuation.finish() }
            }
            for await _ in enough.stream {}
            recorder.setInputHandler(nil)
            let seen = depths.withLock { $0 }
            let spread = try #require(seen.max()) - (try #require(seen.min()))
            #expect(seen.count >= 300)
            #expect(spread < 512, "the handler ran \(spread) bytes deeper after \(seen.count) buffers")
        }
    }

    @Test func defaultSourceAndPulseServerFromTheEnvironmentThroughTheExample() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/example.aiff"
            let example = try builtProduct("record-seconds")
            // Only PULSE_SERVER points at the private server: libpulse's lookup must honour it.
            var environment = ProcessInfo.processInfo.environment
            environment["PULSE_SERVER"] = server.address
            let settled = environment
            let result = try await offThread { try runProcess(example, [path, "0.5"], environment: settled) }
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("from \(PrivateServer.sineSource) into \(path)"))
            #expect(result.stdout.contains("peak  -6.02 dBFS  average  -9.03 dBFS"), "\(result.stdout)")
            let file = try readSoundFile(path)
            #expect(file.frames >= 22_050)
        }
    }
}

@Suite(.timeLimit(.minutes(5)))
struct EmbeddingTests {
    @Test func aSeparatePackageDependingOnThisOneByPathRecordsWithTheSeedNames() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let package = root.appendingPathComponent("Examples/ExternalPackage").path
        let build = try await offThread { try runProcess("swift", ["build", "--package-path", package]) }
        #expect(build.status == 0, "\(build.stdout) \(build.stderr)")
        // Not even SwiftPM's "prohibited flag(s)" from libpulse's pkg-config file, which every dependent
        // package used to print.
        #expect(!(build.stdout + build.stderr).contains("warning:"), "\(build.stdout) \(build.stderr)")
        try await withPrivateServer { server in
            // The steady sine on the mono sink's monitor, made the default source, so the example's five
            // readings and its stop always fall inside the signal.
            try server.run("pactl", ["set-default-source", PrivateServer.monoSink + ".monitor"])
            let path = try temporaryDirectory() + "/take.aiff"
            let environment = server.clientEnvironment
            let result = try await withSteadySine(on: server) {
                try await offThread { try runProcess(package + "/.build/debug/take", [path], environment: environment) }
            }
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("peak -6.02"), "\(result.stdout)")
            #expect(result.stdout.contains("average -9.03"), "\(result.stdout)")
            let file = try readSoundFile(path)
            #expect(result.stdout.contains("wrote \(file.frames) frames to \(path)"))
            #expect(file.frames > 0)
        }
    }
}

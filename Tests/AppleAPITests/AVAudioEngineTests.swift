// AVAudioEngine: its graph and hostile calls without a server (nothing starts), and on a private server two
// player nodes mixed (the monitor hears their sum, sample for sample, and the mixer's tap holds what it
// heard) and the seeds' engine code (the tutorial's player, time-pitch and mixer tap; the sound meter's input tap).
import CSndFile
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

struct AVAudioEngineCallTests {
    @Test func theGraphTakesItsFormatFromWhatFeedsTheMixer() throws {
        let engine = AVAudioEngine()
        let mixerFormat = engine.mainMixerNode.outputFormat(forBus: 0)
        #expect(mixerFormat.sampleRate == 44_100 && mixerFormat.channelCount == 2 && mixerFormat.isStandard)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let mono48 = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        engine.connect(player, to: engine.mainMixerNode, format: mono48)
        #expect(engine.mainMixerNode.outputFormat(forBus: 0).sampleRate == 48_000)
        #expect(player.outputFormat(forBus: 0) == mono48 && engine.mainMixerNode.inputFormat(forBus: 0) == mono48)
        #expect(engine.mainMixerNode.nextAvailableInputBus == 1)
        #expect(engine.attachedNodes.contains(player) && !engine.isRunning)
        // A node's output feeds one input: connecting it again moves it.
        engine.connect(player, to: engine.mainMixerNode, format: mono48)
        #expect(engine.mainMixerNode.nextAvailableInputBus == 0)
        engine.detach(player)
        #expect(!engine.attachedNodes.contains(player) && player.engine == nil)
    }

    /// The engine's own nodes stay what they are: the output node connected from is refused (it puts
    /// nothing out), the main mixer and output node detached are refused and stay attached and connected.
    @Test func theEnginesOwnNodesAreNotTakenApart() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode(), pitch = AVAudioUnitTimePitch()
        engine.attach(player)
        engine.attach(pitch)
        let mono48 = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        engine.connect(engine.outputNode, to: pitch, format: mono48)
        #expect(pitch.inputFormat(forBus: 0) != mono48, "a connection out of the output node was made")
        engine.connect(player, to: engine.mainMixerNode, format: nil)
        engine.detach(engine.mainMixerNode)
        engine.detach(engine.outputNode)
        #expect(engine.attachedNodes.contains(engine.mainMixerNode) && engine.attachedNodes.contains(engine.outputNode))
        #expect(engine.mainMixerNode.engine === engine && engine.mainMixerNode.nextAvailableInputBus == 1)
    }

    /// What Apple's engine refuses with an exception is refused here with a line, the program going on;
    /// values out of range are clamped, NaN ignored.
    @Test func hostileCallsAreRefusedOrClampedNeverFatal() throws {
        let engine = AVAudioEngine()
        let stray = AVAudioPlayerNode()
        engine.connect(stray, to: engine.mainMixerNode, format: nil)
        #expect(OpenAVFAudioLastErrorMessage()?.contains("attached") == true)
        engine.attach(stray)
        stray.play()
        #expect(!stray.isPlaying && OpenAVFAudioLastErrorMessage()?.contains("engine is not running") == true)
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1_024, format: nil) { _, _ in }
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1_024, format: nil) { _, _ in }
        #expect(OpenAVFAudioLastErrorMessage()?.contains("already installed") == true)
        engine.mainMixerNode.removeTap(onBus: 0)
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: .max, format: nil) { _, _ in }
        engine.mainMixerNode.removeTap(onBus: 0)
        engine.connect(stray, to: stray, format: nil)
        #expect(OpenAVFAudioLastErrorMessage()?.contains("cannot feed itself") == true)

        let timePitch = AVAudioUnitTimePitch()
        for (value, kept) in [(Float.nan, Float(1)), (0, 1.0 / 32), (1e15, 32), (-3, 1.0 / 32), (.infinity, 32), (2, 2)] {
            timePitch.rate = value
            #expect(timePitch.rate == kept, "rate \(value)")
        }
        timePitch.pitch = 1e9
        #expect(timePitch.pitch == 2_400)
        timePitch.pitch = -1e9
        #expect(timePitch.pitch == -2_400)
        let varispeed = AVAudioUnitVarispeed()
        varispeed.rate = 0
        #expect(varispeed.rate == 0.25)
        stray.volume = 7
        stray.pan = -.infinity
        #expect(stray.volume == 1 && stray.pan == -1)
        engine.mainMixerNode.outputVolume = .nan
        #expect(engine.mainMixerNode.outputVolume == 1)

        let directory = try temporaryDirectory()
        try writeWAV(directory + "/short.wav", samples: [Int16](repeating: 100, count: 441), channels: 1)
        let file = try AVAudioFile(forReading: URL(fileURLWithPath: directory + "/short.wav"))
        stray.scheduleSegment(file, startingFrame: .max, frameCount: .max, at: nil)
        stray.scheduleSegment(file, startingFrame: -5, frameCount: .max, at: nil)
        stray.stop()
        #expect(stray.playerTime(forNodeTime: AVAudioTime(sampleTime: 0, atRate: 44_100)) == nil)
    }
}

/// A mono WAV of `samples`.
private func writeMono(_ path: String, _ samples: [Int16]) throws { try writeWAV(path, samples: samples, channels: 1) }

@Suite(.timeLimit(.minutes(2)))
struct AVAudioEngineTests {
    /// Two player nodes started at one sample time into the main mixer, the second's file scheduled at
    /// player time `offset`: the mono sink's monitor hears their sum (the second `offset` frames late),
    /// sample for sample, and the mixer's tap holds the same sum; a second tap on the bus is refused in a
    /// line; both completion handlers run.
    @Test(arguments: [0, 4_410])
    func twoPlayerNodesAreHeardAsTheirSumAndTheMixerTapHoldsIt(offset: Int) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let frames = 88_200
            let noise = noiseSamples(count: frames, seed: 99).map { $0 / 4 }
            let tone = sineSamples(frames: frames, frequency: 440, amplitudes: [0.25])
            try writeMono(directory + "/a.wav", noise)
            try writeMono(directory + "/b.wav", tone)
            let late = [Int16](repeating: 0, count: offset) + tone
            let sum = (0..<(frames + offset)).map { (($0 < frames ? noise[$0] : 0) as Int16) + late[$0] }
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let tap = directory + "/tap.raw"
            let result = try await offThread {
                try runProcess(probe, ["engine-mix", directory + "/a.wav", directory + "/b.wav", tap, String(offset)], environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                second tap: a tap is already installed on bus 0 of AVAudioMixerNode; remove it first
                completed 2 at 44100.0 Hz

                """)
            let heard = try await reference.compare(sum)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")

            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tap)))
            let left = stride(from: 0, to: data.count - 7, by: 8).map { start -> Int16 in
                let bits = UInt32(data[start]) | UInt32(data[start + 1]) << 8 | UInt32(data[start + 2]) << 16 | UInt32(data[start + 3]) << 24
                return Int16(clamping: Int((Float(bitPattern: bits) * 32_768).rounded()))
            }
            // The tap's first sound is the sum's first sound.
            let begin = try #require(left.firstIndex { $0 != 0 }) - (sum.firstIndex { $0 != 0 } ?? 0)
            #expect(begin >= 0 && left.count >= begin + sum.count && Array(left[begin..<(begin + sum.count)]) == sum,
                    "the tap differs from the sum")
        }
    }
}

/// The frequency of `samples` in Hz from its rising zero crossings.
private func frequency(_ samples: ArraySlice<Int16>, rate: Double = 44_100) -> Double {
    var crossings = 0
    var previous = samples.first ?? 0
    for sample in samples.dropFirst() {
        if previous < 0 && sample >= 0 { crossings += 1 }
        previous = sample
    }
    return Double(crossings) * rate / Double(samples.count)
}

@Suite(.timeLimit(.minutes(2)))
struct AVAudioEngineSeedTests {
    /// Seed 001, the AVAudioEngine tutorial, on a 30 s 1 kHz file: each status line's position follows
    /// the steps (forward 10 s and more, faster at 2x, back 10 s, held when paused) and its progress is that
    /// position over 30 s; the mixer tap's level reads the file's (−9.03 dBFS: (80 − 9.03) / 80 = 0.89)
    /// while playing, 0 when paused; the monitor heard 1 kHz, and 1 kHz half an octave up (1 414 Hz).
    @Test func theEngineTutorialPlaysSeeksStretchesAndMeters() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/intro.wav"
            try writeWAV(path, samples: sineSamples(frames: 44_100 * 30, frequency: 1_000, amplitudes: [0.5]), channels: 1)
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let seed = try builtProduct("seed-engine-tutorial")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(seed, [path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            struct Status { var label: String; var time: Double; var progress: Double; var meter: Double; var tail: String }
            let statuses = result.stdout.split(separator: "\n").compactMap { line -> Status? in
                guard let t = line.range(of: "  t="), let progress = line.range(of: "progress="), let meter = line.range(of: "meter="),
                      let rate = line.range(of: "  rate=") else { return nil }
                let time = Double(line[t.upperBound...].prefix { $0 != "s" }) ?? -1
                return Status(label: String(line[..<t.lowerBound]), time: time,
                              progress: Double(line[progress.upperBound...].prefix { $0 != " " }) ?? -1,
                              meter: Double(line[meter.upperBound...].prefix { $0 != " " }) ?? -1,
                              tail: String(line[rate.lowerBound...]))
            }
            #expect(statuses.map(\.label) == ["playing", "after skip +10", "2x, +600 cents", "after skip -10", "paused"], "\(result.stdout)")
            guard statuses.count == 5 else { return }
            let times = statuses.map(\.time)
            #expect(times[0] > 0 && times[1] >= times[0] + 10 && times[2] > times[1] && times[3] < times[2] && times[3] >= times[2] - 10.1
                    && times[4] >= times[3], "\(times)")
            for status in statuses { #expect(abs(status.progress - status.time / 30) <= 0.011, "\(status)") }
            for status in statuses.dropLast() { #expect(abs(status.meter - 0.89) <= 0.03, "\(status)") }
            #expect(statuses[4].meter == 0)
            #expect(statuses[1].tail == "  rate=1x  pitch=0" && statuses[2].tail == "  rate=2x  pitch=+½")

            let heard = try reference.samples()
            let windows = stride(from: 0, to: heard.count - 4_410, by: 4_410).map { heard[$0..<($0 + 4_410)] }
                .filter { levels(of: $0).peak > -7 }.map { frequency($0) }
            #expect(windows.contains { abs($0 - 1_000) <= 10 }, "\(windows)")
            #expect(windows.contains { abs($0 - 1_414.2) <= 20 }, "\(windows)")
        }
    }

    /// Seed 002, the sound meter, on the sine source (amplitude 0.5: mean square 0.125, the document's
    /// 10·log10 of its root −4.52 dB): every gauge reading with samples behind it reads that, in the orange
    /// zone; the record permission is granted.
    @Test func theSoundMeterGaugeReadsTheSineSource() async throws {
        try await withPrivateServer { server in
            let seed = try builtProduct("seed-soundmeter")
            let environment = server.environment(source: PrivateServer.sineSource)
            let result = try await offThread { try runProcess(seed, [], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.contains("record permission granted: true"))
            let readings = lines.filter { $0.hasPrefix("gauge") && !$0.contains("nan") }
            #expect(!readings.isEmpty, "\(result.stdout)")
            for reading in readings {
                let value = Double(reading.dropFirst("gauge".count).prefix { $0 != "d" }.trimmingCharacters(in: .whitespaces)) ?? 0
                #expect(abs(value + 4.515) <= 0.05 && reading.contains("[orange]"), "\(reading)")
            }
        }
    }
}

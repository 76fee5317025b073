// The engine's nodes that call the program, and manual rendering's twin, against a private server: a
// source node's block heard on the monitor sample for sample; a sink node receiving every frame the input
// captured (the numbered source is the oracle); a graph of two players and a time-pitch unit heard on
// the monitor exactly as the same graph renders offline.
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct EngineNodeServerTests {
    /// Two seconds of noise handed out by a source node's render block are heard on the mono sink's
    /// monitor, sample for sample.
    @Test func aSourceNodesBlockIsHeard() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 17).map { $0 / 4 }
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(probe, ["source-node", directory + "/noise.wav"], environment: environment) }
            #expect(result.status == 0 && result.stdout == "rendered 88200 of 88200\n", "\(result.stdout)\(result.stderr)")
            let heard = try await reference.compare(noise)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")
        }
    }

    /// The input node connected to a sink node (the default source the numbered one): the receiver block
    /// gets two seconds of consecutive numbered frames, none missing.
    @Test func aSinkNodeReceivesEveryCapturedFrame() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment.merging(["PULSE_SOURCE": NumberedSource.name]) { $1 }
            let out = directory + "/sink.raw"
            let result = try await offThread { try runProcess(probe, ["sink-node", "88200", out], environment: environment) }
            #expect(result.status == 0 && result.stdout == "received enough in 1 channel(s)\n", "\(result.stdout)\(result.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
            let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
            #expect(samples.count >= 88_200)
            let check = try await source.check(samples)
            #expect(check.unexplained.isEmpty && check.numbered >= 88_200 - 4_410, "\(check)")
        }
    }

    /// Noise into the mixer and a tone through a time-pitch unit at rate 1.25, played to the mono sink
    /// from a sample time a little after the engine started: the monitor hears, sample for sample, what
    /// the same graph renders offline in passes of the played graph's size (2 205 frames) with the
    /// players started at that sample time (the unit has processed the same silence before), rounded to
    /// 16 bits as the server rounds (halves to even).
    @Test func aGraphRenderedOfflineIsWhatItPlays() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let frames = 44_100
            let noise = noiseSamples(count: frames, seed: 23).map { $0 / 4 }
            let tone = sineSamples(frames: frames, frequency: 440, amplitudes: [0.25])
            try writeWAV(directory + "/a.wav", samples: noise, channels: 1)
            try writeWAV(directory + "/b.wav", samples: tone, channels: 1)

            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess(probe, ["graph-play", directory + "/a.wav", directory + "/b.wav", "1.25"], environment: environment)
            }
            #expect(result.status == 0 && result.stdout.hasSuffix("completed 2\n"), "\(result.stdout)\(result.stderr)")
            let start = try #require(result.stdout.split(separator: "\n").first.flatMap { Int64($0.dropFirst("start ".count)) })

            let engine = AVAudioEngine()
            let (first, second) = (AVAudioPlayerNode(), AVAudioPlayerNode())
            let timePitch = AVAudioUnitTimePitch()
            timePitch.rate = 1.25
            [first, second, timePitch].forEach(engine.attach)
            let files = try ["a", "b"].map { try AVAudioFile(forReading: URL(fileURLWithPath: directory + "/\($0).wav")) }
            engine.connect(first, to: engine.mainMixerNode, format: files[0].processingFormat)
            engine.connect(second, to: timePitch, format: files[1].processingFormat)
            engine.connect(timePitch, to: engine.mainMixerNode, format: files[1].processingFormat)
            let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
            try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 2_205)
            first.scheduleFile(files[0], at: nil)
            second.scheduleFile(files[1], at: nil)
            try engine.start()
            let when = AVAudioTime(sampleTime: start, atRate: 44_100)
            first.play(at: when)
            second.play(at: when)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 2_205))
            var rendered: [Int16] = []
            while rendered.count < Int(start) + frames + 2_205 {
                #expect(try engine.renderOffline(2_205, to: buffer) == .success)
                let left = buffer.floatChannelData![0], right = buffer.floatChannelData![1]
                for frame in 0..<2_205 {
                    #expect(left[frame] == right[frame])
                    // As the server converts float to 16 bits: lrintf, halves to even (the unit's overlaps make halves).
                    rendered.append(Int16(clamping: Int((Double(left[frame]) * 32_768).rounded(.toNearestOrEven))))
                }
            }
            engine.stop()
            #expect(rendered.prefix(Int(start)).allSatisfy { $0 == 0 }, "silence before the start")
            let expected = Array(rendered[Int(start)...].prefix(frames))
            #expect(expected.first == noise.first, "the noise from its first frame (the tone's first is 0)")

            let heard = try await reference.compare(expected)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")
        }
    }
}

/// The piano app's chain heard on the monitor (the probe's `piano-chain`): a sampler loading the General
/// MIDI piano into a delay (0.3 s, feedback 40 %, 30 % wet), a reverb (medium hall, 40 % wet) and the
/// main mixer, a C major chord started before the engine. No timing enters its first two seconds (the
/// notes precede the first render pass; each unit is sample-exact), so the monitor hears, sample for
/// sample, what the same chain renders offline, its two channels mixed to the mono sink as the server
/// mixes them (each rounded to 16 bits, then halved in integers: the server's work format is 16-bit).
@Suite(.timeLimit(.minutes(2)))
struct PianoChainServerTests {
    @Test func thePianoChainIsHeardAsRenderedOffline() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(probe, ["piano-chain", generalMIDISoundFont.path], environment: environment) }
            #expect(result.status == 0 && result.stdout == "played 3 s\n", "\(result.stdout)\(result.stderr)")

            // The offline twin: the probe's makePianoChain, the same settings.
            let engine = AVAudioEngine()
            let sampler = AVAudioUnitSampler(), delay = AVAudioUnitDelay(), reverb = AVAudioUnitReverb()
            [sampler, delay, reverb].forEach(engine.attach)
            let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
            engine.connect(sampler, to: delay, format: stereo)
            engine.connect(delay, to: reverb, format: stereo)
            engine.connect(reverb, to: engine.mainMixerNode, format: stereo)
            try sampler.loadSoundBankInstrument(at: generalMIDISoundFont, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB),
                                                bankLSB: UInt8(kAUSampler_DefaultBankLSB))
            delay.delayTime = 0.3
            delay.feedback = 40
            delay.wetDryMix = 30
            reverb.loadFactoryPreset(.mediumHall)
            reverb.wetDryMix = 40
            try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 2_205)
            try engine.start()
            for note: UInt8 in [60, 64, 67] { sampler.startNote(note, withVelocity: 100, onChannel: 0) }
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 2_205))
            var rendered: [Int16] = []
            while rendered.count < 88_200 {
                #expect(try engine.renderOffline(2_205, to: buffer) == .success)
                let left = buffer.floatChannelData![0], right = buffer.floatChannelData![1]
                for frame in 0..<2_205 {
                    // As the server mixes to the mono sink: each channel to 16 bits first (lrintf, halves to
                    // even), then their sum halved in integers (C's division, toward zero).
                    let l = Int(Int16(clamping: Int((Double(left[frame]) * 32_768).rounded(.toNearestOrEven))))
                    let r = Int(Int16(clamping: Int((Double(right[frame]) * 32_768).rounded(.toNearestOrEven))))
                    rendered.append(Int16((l + r) / 2))
                }
            }
            engine.stop()
            #expect(rendered.prefix(4_410).contains { $0 != 0 }, "the chord from the first pass")
            let heard = try await reference.compare(rendered)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct VoiceProcessingTests {
    /// Without an echo canceller on the server, turning voice processing on throws the line that says what
    /// to load; with module-echo-cancel loaded, the input node records its source (the server shows the
    /// engine's record stream there) and plays to its sink, and both ends measure their latency.
    @Test func voiceProcessingUsesTheServersEchoCanceller() async throws {
        try await withPrivateServer { server in
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let refused = try await offThread { try runProcess(probe, ["voice", "-"], environment: environment) }
            #expect(refused.stdout.hasPrefix("refused: cannot turn voice processing on: the server has no echo canceller")
                    && refused.stdout.contains("pactl load-module module-echo-cancel"), "\(refused.stdout)\(refused.stderr)")

            try server.run("pactl", ["load-module", "module-echo-cancel", "aec_method=webrtc", "source_name=rk_echo_cancel_source",
                                     "sink_name=rk_echo_cancel_sink"])
            let running = Task.detached { try runProcess(probe, ["voice", "-"], environment: environment) }
            // The engine's record stream, once the server shows it: on the echo-cancelling source.
            var source: String?
            let deadline = Date(timeIntervalSinceNow: 30)
            while source == nil && Date() < deadline {
                let outputs = try server.run("pactl", ["list", "source-outputs"]).stdout
                if let block = outputs.components(separatedBy: "Source Output #").first(where: { $0.contains("avfaudio-probe") }),
                   let line = block.split(separator: "\n").first(where: { $0.contains("Source:") }) {
                    source = line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) }
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let result = try await running.value
            #expect(result.status == 0 && result.stdout == """
                voice processing true true, tapped true
                latency: input ok, output ok

                """, "\(result.stdout)\(result.stderr)")
            let sources = try server.run("pactl", ["list", "short", "sources"]).stdout
            let index = try #require(source)
            #expect(sources.split(separator: "\n").contains { $0.hasPrefix(index + "\t") && $0.contains("rk_echo_cancel_source") },
                    "the engine recorded source \(index): \(sources)")
        }
    }
}

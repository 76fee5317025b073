// Several sources in one take, through a real private server: one sound into every source, one frame out.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct SeveralSourceTests {
    /// Two sources that copy one sink's monitor (remap sources: what the sink plays, each of them
    /// captures, at the same moment): every frame of the second source's channel equals the first's at
    /// one frame offset, within 1 ms, and both hold the noise that was played. Their clocks are one (the
    /// server's), so the second passes byte for byte, never resampled. (A combine sink feeding two null
    /// sinks is no oracle here: it resamples each of them as it adjusts their rates.)
    @Test func oneNoiseIntoTwoSourcesLandsOnOneFrame() async throws {
        try await withPrivateServer { server in
            for copy in ["rk_copy_a", "rk_copy_b"] {
                try server.run("pactl", ["load-module", "module-remap-source", "source_name=\(copy)",
                                         "master=\(PrivateServer.monoSink).monitor", "channels=1"])
            }
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 40)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let (program, arguments) = unblockingSignals("/usr/bin/paplay", ["--volume=65536", "-d", PrivateServer.monoSink, directory + "/noise.wav"])
            let player = try RunningProcess(program, arguments, environment: server.clientEnvironment)
            defer { player.send(SIGTERM); _ = player.waitBlocking() }

            let recorder = try Recorder(sources: ["rk_copy_a", "rk_copy_b"], server: server.address)
            defer { recorder.stop() }
            #expect(recorder.format.channelCount == 2)
            #expect(recorder.format.sampleRate == 44_100)
            // Noise in both sources' channels before the take begins (the combine sink is running).
            _ = try await firstReading(recorder.levelReadings()) { reading in
                reading.channels.allSatisfy { $0.peakPower > -20 }
            }
            let path = directory + "/take.wav"
            try recorder.record(to: path, duration: 4)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 176_400)

            let take = try readSoundFile(path)
            #expect(take.channels == 2)
            let first = take.channel(0), second = take.channel(1)
            // Each channel the played noise at one offset, sample for sample, but where the recorder
            // counted a loss of its source (silence of the loss's length in its place keeps the offset).
            for (channel, name) in [(first, "rk_copy_a"), (second, "rk_copy_b")] {
                let lost = summary.gaps.filter { $0.source == name }.map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) }
                let mismatch = try departure(of: channel, fromPlayed: noise, outside: lost)
                #expect(mismatch == nil, "\(name) departs from the played noise at frame \(mismatch ?? 0); the gaps \(summary.gaps)")
            }
            // The two channels equal at one offset within 1 ms, but where either source's loss was counted.
            let lost = summary.gaps.map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) }
            let tolerance = 44  // 1 ms
            let lag = (-tolerance...tolerance).first { lag in
                let range = max(0, -lag)..<min(first.count, second.count - lag)
                return range.count > 100_000 && range.allSatisfy { frame in
                    first[frame] == second[frame + lag]
                        || lost.contains { $0.lowerBound - tolerance <= frame && frame < $0.upperBound + tolerance }
                }
            }
            let offsets = try [first, second].map { try offsetInPlayed($0, noise).offset }
            #expect(lag != nil, """
                no offset within 1 ms at which the second source's channel equals the first's (where each channel \
                meets the noise: \(offsets); the sources \(recorder.sources); the gaps \(summary.gaps))
                """)
            let reports = recorder.sources
            #expect(reports.map(\.name) == ["rk_copy_a", "rk_copy_b"])
            #expect(reports.map(\.firstChannel) == [0, 1])
            #expect(reports.allSatisfy { $0.startOffset >= 0 && $0.startOffset < 1 })
            #expect(reports.allSatisfy { !$0.isCorrectingDrift })
        }
    }

    /// Bad input gets one line each, before anything records: no source, the same source twice, a
    /// source the server does not have, more than 64 channels in all.
    @Test func badSourceListsAreRefusedInOneLine() async throws {
        try await withPrivateServer { server in
            let cases: [([String], Int?, RecorderError.Code, String)] = [
                ([], nil, .invalidFormat, "no source given"),
                ([PrivateServer.sineSource, PrivateServer.sineSource], nil, .invalidFormat, "named twice"),
                ([PrivateServer.sineSource, "rk_nowhere"], nil, .sourceNotFound, "no capture source named 'rk_nowhere'"),
                ([PrivateServer.sineSource, PrivateServer.monoSink + ".monitor", PrivateServer.stereoSink + ".monitor"], 32,
                 .invalidFormat, "96 channels"),
            ]
            for (sources, channels, code, words) in cases {
                do throws(RecorderError) {
                    _ = try Recorder(sources: sources, channelsPerSource: channels, server: server.address)
                    Issue.record("\(sources) was accepted")
                } catch {
                    #expect(error.code == code, "\(sources): \(error.message)")
                    #expect(error.message.contains(words), "\(sources): \(error.message)")
                    #expect(!error.message.contains("\n"))
                }
            }
        }
    }
}

/// Plays 40 s of noise into the mono sink (the first source's, as its monitor) at full volume; the
/// noise and the player, which the caller stops.
private func playNoise(on server: PrivateServer, in directory: String) throws -> ([Int16], RunningProcess) {
    let noise = noiseSamples(count: 44_100 * 40)
    try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
    let (program, arguments) = unblockingSignals("/usr/bin/paplay", ["--volume=65536", "--latency-msec=1000", "-d",
                                                                    PrivateServer.monoSink, directory + "/noise.wav"])
    return (noise, try RunningProcess(program, arguments, environment: server.clientEnvironment))
}

/// The first frame of `channel`, from where the played `noise` begins in it, that is not the noise's
/// next sample and not in one of the `outside` ranges (a counted loss; nil: none, not a frame missing or
/// changed).
private func departure(of channel: [Int16], fromPlayed noise: [Int16], outside lost: [Range<Int>] = []) throws -> Int? {
    let (loud, offset) = try offsetInPlayed(channel, noise, outside: lost)
    return (loud..<channel.count).first { frame in
        !lost.contains { $0.contains(frame) } && (frame + offset >= noise.count || channel[frame] != noise[frame + offset])
    }
}

/// The channel's first loud frame from its second buffer on (outside `lost`), and how far the played
/// noise stands from the channel there (noise index − take frame).
private func offsetInPlayed(_ channel: [Int16], _ noise: [Int16], outside lost: [Range<Int>] = []) throws -> (loud: Int, offset: Int) {
    let loud = try #require(channel.indices.first { frame in
        frame >= 4_410 && channel[frame] != 0 && !lost.contains { $0.contains(frame) }
    })
    return (loud, try #require(firstIndex(of: Array(channel[loud..<(loud + 64)]), in: noise)) - loud)
}

/// A source of a several-source take that goes away mid-take: its channels only are silence, counted and
/// placed as its loss; the other source's channel holds what was played, not a frame missing.
@Suite(.timeLimit(.minutes(3)))
struct SeveralSourceLossTests {
    /// Noise into the first source throughout; the second source's sink unloaded after a second and
    /// loaded again two seconds later. With `reconnectTimeout` the take goes on: the second source's loss
    /// is one gap naming it, and the first source's channel is the played noise, sample for sample,
    /// across it. Without, the take ends with one line naming the source, the file valid.
    @Test(arguments: [true, false])
    func aSourceThatGoesAwayLosesItsChannelsOnly(reconnect: Bool) async throws {
        try await withPrivateServer { server in
            let gone = "rk_gone"
            func load() throws -> String {
                try server.run("pactl", ["load-module", "module-null-sink", "sink_name=\(gone)", "channels=1", "rate=44100"])
                    .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            var module = try load()
            let directory = try temporaryDirectory()
            let (noise, player) = try playNoise(on: server, in: directory)
            defer { player.send(SIGTERM); _ = player.waitBlocking() }

            let recorder = try Recorder(sources: [PrivateServer.monoSink + ".monitor", gone + ".monitor"], server: server.address,
                                        reconnectTimeout: reconnect ? 30 : nil)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            _ = try await firstReading(readings) { $0.channels[0].peakPower > -20 }
            let events = recorder.events()
            let path = directory + "/take.wav"
            let start = try recorder.record(to: path, duration: reconnect ? 6 : 30)
            _ = try await readingThrough(start + 44_100, readings)
            try server.run("pactl", ["unload-module", module])
            if reconnect {
                _ = try await firstEvent(events) { if case .captureInterrupted = $0 { true } else { false } }
                _ = try await readingThrough(recorder.capturedFrames + 44_100, readings)
                module = try load()
            }
            var failure: RecorderError?
            var summary: RecordingSummary?
            do throws(RecorderError) {
                summary = try await recorder.waitForRecording()
            } catch {
                failure = error
            }
            let take = try readSoundFile(path)
            #expect(take.channels == 2)
            let first = take.channel(0)
            // The first source's channel: the played noise, every frame of it, from where it begins, but
            // where a loss of that source was counted.
            let firstLost = (summary?.gaps ?? []).filter { $0.source == PrivateServer.monoSink + ".monitor" }
                .map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) }
            let mismatch = try departure(of: first, fromPlayed: noise, outside: firstLost)
            #expect(mismatch == nil, "the first source's channel departs from the played noise at frame \(mismatch ?? 0)")
            if reconnect {
                #expect(failure == nil)
                let done = try #require(summary)
                #expect(done.error == nil)
                #expect(done.frameCount == 264_600)
                let lost = done.gaps.filter { $0.source == gone + ".monitor" }
                #expect(!lost.isEmpty, "no gap names the source that went away: \(done.gaps)")
                #expect(lost.allSatisfy { $0.frameCount > 0 && $0.startFrame >= 44_100 })
                #expect(done.gaps.allSatisfy { $0.source != nil })
                #expect(recorder.sources[1].gapFrames + recorder.sources[1].droppedFrames > 0)
            } else {
                let error = try #require(failure, "the take went on without its second source")
                #expect(error.message.contains("'\(gone).monitor'"), "\(error.message)")
                #expect(!error.message.contains("\n"))
                #expect(take.frames >= 44_100)
            }
        }
    }

    /// The second source suspended for a second and a half mid-take (its sink suspended): the take goes
    /// on at its length, the first source's channel is the played noise without a frame missing, and the
    /// second source's silence is counted and named as its own.
    @Test func aSuspendedSourceIsSilentAndCountedInItsChannelsOnly() async throws {
        try await withPrivateServer { server in
            try server.run("pactl", ["load-module", "module-null-sink", "sink_name=rk_dozing", "channels=1", "rate=44100"])
            let directory = try temporaryDirectory()
            let (noise, player) = try playNoise(on: server, in: directory)
            defer { player.send(SIGTERM); _ = player.waitBlocking() }
            let recorder = try Recorder(sources: [PrivateServer.monoSink + ".monitor", "rk_dozing.monitor"], server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            _ = try await firstReading(readings) { $0.channels[0].peakPower > -20 }
            let path = directory + "/take.wav"
            let start = try recorder.record(to: path, duration: 6)
            _ = try await readingThrough(start + 44_100, readings)
            try server.run("pactl", ["suspend-sink", "rk_dozing", "1"])
            _ = try await readingThrough(recorder.capturedFrames + 66_150, readings)
            try server.run("pactl", ["suspend-sink", "rk_dozing", "0"])
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.error == nil)
            #expect(summary.frameCount == 264_600)
            let first = try readSoundFile(path).channel(0)
            // The first source's channel is the noise but where a loss of its own was counted (none but
            // on a machine that fell behind): the second source's silence is never in it.
            let firstLost = summary.gaps.filter { $0.source == PrivateServer.monoSink + ".monitor" }
                .map { Int($0.startFrame)..<Int($0.startFrame + $0.frameCount) }
            let mismatch = try departure(of: first, fromPlayed: noise, outside: firstLost)
            #expect(mismatch == nil, "the first source's channel departs from the played noise at frame \(mismatch ?? 0)")
            #expect(summary.gaps.allSatisfy { $0.source != nil }, "\(summary.gaps)")
            // (PulseAudio stops a suspended monitor's data, and the server's clock says how long; PipeWire
            // may go on delivering silence, which is no loss.)
            if server.kind == .pulseaudio {
                let dozing = summary.gaps.filter { $0.source == "rk_dozing.monitor" }
                #expect(dozing.reduce(0) { $0 + $1.frameCount } >= 44_100, "\(summary.gaps)")
            }
        }
    }
}

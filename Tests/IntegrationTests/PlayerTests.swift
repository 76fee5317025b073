// Player against a private server, a null sink's monitor as the ear: what is played comes out of the
// monitor bit-exactly, in the right place, at the right time, with meters that read what is heard.
import CSndFile
import Foundation
import RecorderKit
import Testing
import TestSupport
import Locking

/// The ear for the timing tests: the mono sink's monitor in 10 ms buffers, capturing already, and the moment
/// it first heard a sample louder than a quarter of full scale: the arrival of the buffer holding it, less
/// the frames after it (an upper bound: delivery takes time too).
func onsetEar(_ server: PrivateServer) async throws -> (Recorder, Locked<Double?>) {
    let monitor = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address, bufferDuration: 0.01)
    let onset = Locked<Double?>(nil)
    monitor.setInputHandler { buffer in
        let arrived = monotonicSeconds()
        guard onset.withLock({ $0 == nil }),
              let first = (0..<buffer.frameCount).first(where: { abs(Int(buffer.sample(frame: $0, channel: 0) ?? 0)) > 8_000 })
        else { return }
        onset.withLock { $0 = arrived - Double(buffer.frameCount - first) / 44_100 }
    }
    _ = try await firstReading(monitor.levelReadings()) { _ in true }
    return (monitor, onset)
}

/// Records `sink`'s monitor while `body` runs and returns what was recorded, with the stretches the
/// recorder itself reported lost (there what the sink played is unknown, not silent).
/// Capture is running (a first buffer has arrived) before `body` starts.
func monitoring(_ server: PrivateServer, sink: String = PrivateServer.monoSink, channels: Int = 1,
                _ body: (Recorder, Int64) async throws -> Void) async throws -> Heard {
    let recorder = try Recorder(format: try StreamFormat(sampleRate: 44_100, channelCount: channels),
                                source: sink + ".monitor", server: server.address)
    defer { recorder.stop() }
    _ = try await firstReading(recorder.levelReadings()) { _ in true }
    let path = try temporaryDirectory() + "/monitor.wav"
    let start = try recorder.record(to: path)
    try await body(recorder, start)
    guard let summary = try await recorder.stopRecording() else { throw TestFailure("the ear was not recording") }
    return Heard(samples: try readSoundFile(path).samples, channels: channels, gaps: summary.gaps)
}

/// Plays from `currentTime` and waits for the end; returns whether it finished successfully.
func playToEnd(_ player: Player, _ play: (Player) async throws -> Void = { try await $0.play() }) async throws -> Bool {
    let events = player.events()
    try await play(player)
    for await event in events {
        if case .finishedPlaying(let successfully) = event { return successfully }
    }
    throw TestFailure("the player's events ended without finishedPlaying")
}

/// The samples of a file as libsndfile's 32-bit integers (a 24-bit sample s is s << 8).
func readIntSamples(_ path: String) throws -> [Int32] {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw TestFailure("cannot open \(path)") }
    defer { sf_close(file) }
    var samples = [Int32](repeating: 0, count: Int(info.frames) * Int(info.channels))
    _ = samples.withUnsafeMutableBufferPointer { sf_readf_int(file, $0.baseAddress, info.frames) }
    return samples
}

/// dBFS of the RMS of `samples` (full scale 32 768).
func rmsDecibels<S: Collection>(_ samples: S) -> Double where S.Element == Int16 {
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return 10 * log10(sum / Double(max(1, samples.count))) - 20 * log10(32_768)
}

@Suite(.timeLimit(.minutes(2)))
struct PlayerTests {
    private let noise = noiseSamples(count: 44_100 * 3)

    private func noiseFile(_ directory: String, _ name: String = "noise.wav") throws -> String {
        let path = directory + "/" + name
        try writeWAV(path, samples: noise, channels: 1)
        return path
    }

    @Test(arguments: ["wav", "aiff", "flac"])
    func sixteenBitFilesComeOutOfTheMonitorBitExactlyAndContiguously(_ type: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            var path = try noiseFile(directory)
            if type != "wav" {
                let converted = directory + "/noise." + type
                _ = try runProcess("sox", [path, converted])
                path = converted
            }
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            #expect(player.numberOfChannels == 1 && player.duration == 3 && player.deviceName == PrivateServer.monoSink)
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let departure = departure(ofHeard: heard, from: noise, underruns: player.underrunCount)
            #expect(departure == nil, "not bit-exact or not contiguous: \(departure ?? "")")
            if let start = firstIndex(of: Array(noise.prefix(4_410)), in: heard.samples) {
                #expect(heard.samples[..<start].allSatisfy { $0 == 0 }, "heard something before the noise")
            }
            // As AVAudioPlayer: back at the start once the end was played.
            #expect(!player.isPlaying && player.currentTime == 0)
        }
    }

    @Test func aTwentyFourBitFileIsHeardWithinOneLSB() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/noise24.wav"
            _ = try runProcess("sox", ["-R", "-n", "-r", "44100", "-c", "1", "-b", "24", path, "synth", "2", "whitenoise", "vol", "0.5"])
            let expected = try readIntSamples(path).map { Int16(clamping: Int((Double($0) / 65_536).rounded())) }
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let departure = departure(ofHeard: heard, from: expected, underruns: player.underrunCount, tolerance: 1)
            #expect(departure == nil, "not within one LSB of the file, or not contiguous: \(departure ?? "")")
        }
    }

    @Test func halfVolumeIsSixDecibelsDownAndPanSilencesTheOtherSide() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = try noiseFile(directory)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            player.volume = 0.5
            let heard = try await monitoring(server) { _, _ in _ = try await playToEnd(player) }
            // All of it heard, silent only where the player reported running dry (late, not lost).
            let run = try #require(heardSignal(heard, underruns: player.underrunCount),
                                   "more silent gaps heard than the \(player.underrunCount) underruns reported")
            #expect(run.count < noise.count + 50 && run.count > noise.count - heard.lostFrames - 50,
                    "\(run.count) frames heard of \(noise.count), \(heard.lostFrames) lost by the ear")
            let change = rmsDecibels(run) - rmsDecibels(noise)
            #expect(abs(change - -6.02) < 0.05, "volume 0.5 changed the level by \(change) dB")

            // Stereo noise into the stereo sink: pan −1 leaves only the left, +1 only the right.
            let stereoPath = directory + "/stereo.wav"
            let stereo = noiseSamples(count: 44_100 * 2, seed: 7)
            try writeWAV(stereoPath, samples: stereo, channels: 2)
            for pan: Float in [-1, 1] {
                let panned = try Player(contentsOf: stereoPath, device: PrivateServer.stereoSink, server: server.address)
                defer { panned.close() }
                panned.pan = pan
                #expect(panned.pan == pan)
                let both = try await monitoring(server, sink: PrivateServer.stereoSink, channels: 2) { _, _ in
                    _ = try await playToEnd(panned)
                }
                let (kept, silenced) = pan < 0 ? (both.channel(0), both.channel(1)) : (both.channel(1), both.channel(0))
                let original = stride(from: pan < 0 ? 0 : 1, to: stereo.count, by: 2).map { stereo[$0] }
                #expect(silenced.samples.allSatisfy { $0 == 0 }, "pan \(pan): the other side is not silent")
                let departure = departure(ofHeard: kept, from: original, underruns: panned.underrunCount)
                #expect(departure == nil, "pan \(pan): the kept side is not the file's, bit for bit: \(departure ?? "")")
            }

            // Mono noise into the stereo sink at pan −0.5: the left side is the file bit for bit, the right
            // side the file 6.02 dB down (the far side falls linearly: half at half-way).
            let mono = Array(noise.prefix(22_050))
            let monoPath = directory + "/mono.wav"
            try writeWAV(monoPath, samples: mono, channels: 1)
            let monoPlayer = try Player(contentsOf: monoPath, device: PrivateServer.stereoSink, server: server.address)
            defer { monoPlayer.close() }
            monoPlayer.pan = -0.5
            let sides = try await monitoring(server, sink: PrivateServer.stereoSink, channels: 2) { _, _ in
                _ = try await playToEnd(monoPlayer)
            }
            let left = departure(ofHeard: sides.channel(0), from: mono, underruns: monoPlayer.underrunCount)
            #expect(left == nil, "mono at pan −0.5: the left side is not the file's, bit for bit: \(left ?? "")")
            let right = try #require(heardSignal(sides.channel(1), underruns: monoPlayer.underrunCount),
                                     "mono at pan −0.5: the right side has more gaps than underruns reported")
            let fall = rmsDecibels(right) - rmsDecibels(mono)
            #expect(abs(fall - -6.02) < 0.05, "mono at pan −0.5: the right side changed by \(fall) dB")
            #expect(monoPlayer.numberOfChannels == 1 && monoPlayer.averagePower(forChannel: 1) == -160)
        }
    }

    @Test func twoLoopsAreThreeCopiesBackToBackToTheFrame() async throws {
        try await withPrivateServer { server in
            let short = Array(noise.prefix(30_000))  // not a whole number of buffers: the seams fall inside them
            let path = try temporaryDirectory() + "/short.wav"
            try writeWAV(path, samples: short, channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            player.numberOfLoops = 2
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let departure = departure(ofHeard: heard, from: short + short + short, underruns: player.underrunCount)
            #expect(departure == nil, "not three copies back to back: \(departure ?? "")")
            #expect(player.heardFrameCount == 90_000 && player.isSeekable)
        }
    }

    @Test func seekingToTwoSecondsStartsAtFrame88200AndPauseGoesOnAtTheNextFrame() async throws {
        try await withPrivateServer { server in
            let path = try noiseFile(try temporaryDirectory())
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            player.currentTime = 2.0
            #expect(player.currentTime == 2.0)
            let heard = try await monitoring(server) { _, _ in _ = try await playToEnd(player) }
            let seeked = departure(ofHeard: heard, from: Array(noise[88_200...]), underruns: player.underrunCount)
            #expect(seeked == nil, "not the noise from file frame 88 200 on: \(seeked ?? "")")
            let underrunsBefore = player.underrunCount

            // Pause for a second after a second of playing: the file goes on at the exact next frame.
            let readings = player.levelReadings()
            let paused = try await monitoring(server) { _, _ in
                _ = try await playToEnd(player) { player in
                    try await player.play()
                    _ = try await firstReading(readings) { $0.time >= 1.0 }
                    player.pause()
                    #expect(!player.isPlaying)
                    let at = player.currentTime
                    try await Task.sleep(for: .seconds(1))  // the pause itself, not a wait for a state
                    #expect(player.currentTime == at, "the position moved while paused")
                    try await player.play()
                }
            }
            let first = try #require(paused.samples.firstIndex { $0 != 0 })
            let body = Array(paused.samples[first...])
            // The longest run of zeros is the pause: the file before it and after it, without a frame lost.
            var longest = (start: 0, count: 0), current = (start: 0, count: 0)
            for (index, sample) in body.enumerated() {
                if sample == 0 {
                    if current.count == 0 { current.start = index }
                    current.count += 1
                    if current.count > longest.count { longest = current }
                } else {
                    current.count = 0
                }
            }
            // At least most of the second asked (its length beyond that is the machine's load, not the player's).
            #expect(longest.count > 30_000, "the pause lasted \(longest.count) frames")
            // The pause is one silent gap; any others are where the player reported it was late.
            let resumed = departure(ofHeard: paused, from: noise, underruns: player.underrunCount - underrunsBefore + 1)
            #expect(resumed == nil, "pause lost or repeated frames: \(resumed ?? "")")
        }
    }

    @Test func anOutputCallbackPlaysWhatItWritesThroughTheSamePath() async throws {
        try await withPrivateServer { server in
            let tone = sineSamples(frames: 20_000, frequency: 441, amplitudes: [0.25])
            let player = try Player(format: .default, device: PrivateServer.monoSink, server: server.address) { buffer in
                let start = Int(buffer.startFrame)
                let count = min(buffer.frameCapacity, max(0, tone.count - start))
                for frame in 0..<count { buffer.setSample(tone[start + frame], frame: frame, channel: 0) }
                buffer.frameCount = count
            }
            defer { player.close() }
            #expect(player.path == nil && player.duration == 0)
            #expect(throws: RecorderError.self) { try player.seek(to: 1) }
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let departure = departure(ofHeard: heard, from: tone, underruns: player.underrunCount)
            #expect(departure == nil, "\(departure ?? "")")
        }
    }

    /// Two players on one sink at once: each finishes, each one's readings are its own file's levels
    /// (no state shared between them).
    @Test func twoPlayersOnOneSinkKeepTheirOwnReadings() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            try writeWAV(directory + "/loud.wav", samples: sineSamples(frames: 44_100, frequency: 1_000, amplitudes: [0.5]), channels: 1)
            try writeWAV(directory + "/quiet.wav", samples: sineSamples(frames: 44_100, frequency: 1_000, amplitudes: [0.05]), channels: 1)
            let loud = try Player(contentsOf: directory + "/loud.wav", device: PrivateServer.monoSink, server: server.address)
            let quiet = try Player(contentsOf: directory + "/quiet.wav", device: PrivateServer.monoSink, server: server.address)
            defer { loud.close(); quiet.close() }
            func levels(_ player: Player) -> Task<[Float], Never> {
                let readings = player.levelReadings()
                return Task { var peaks: [Float] = []; for await reading in readings { peaks.append(reading.channels[0].peakPower) }; return peaks }
            }
            let loudLevels = levels(loud), quietLevels = levels(quiet)
            async let loudDone = playToEnd(loud)
            async let quietDone = playToEnd(quiet)
            #expect(try await loudDone)
            #expect(try await quietDone)
            await loud.close()
            await quiet.close()
            let loudPeaks = await loudLevels.value, quietPeaks = await quietLevels.value
            #expect(loudPeaks.count == 10 && loudPeaks.allSatisfy { abs($0 - -6.02) < 0.01 }, "\(loudPeaks)")
            #expect(quietPeaks.count == 10 && quietPeaks.allSatisfy { abs($0 - -26.02) < 0.01 }, "\(quietPeaks)")
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct PlayerMeterTests {
    @Test func eachReadingIsTheLevelsOfTheFileSegmentHeardAsSoxMeasuresThem() async throws {
        try await withPrivateServer { server in
            // Noise whose level steps down every half second: each buffer's levels differ.
            var samples = noiseSamples(count: 44_100 * 3)
            for index in samples.indices {
                samples[index] = Int16(Double(samples[index]) * pow(0.5, Double(index / 22_050)))
            }
            let path = try temporaryDirectory() + "/steps.wav"
            try writeWAV(path, samples: samples, channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            let readings = player.levelReadings()
            let collected = Task { await readings.reduce(into: [LevelReading]()) { $0.append($1) } }
            #expect(try await playToEnd(player))
            await player.close()
            let all = await collected.value
            #expect(all.count == 30, "\(all.count) readings for 3 s of 100 ms buffers")
            #expect(all.first?.endFrame == 4_410 && all.last?.endFrame == 132_300)
            #expect(zip(all, all.dropFirst()).allSatisfy { $1.endFrame == $0.endFrame + Int64($1.frameCount) })
            for reading in all {
                let segment = samples[Int(reading.endFrame) - reading.frameCount ..< Int(reading.endFrame)]
                let peak = 20 * log10(Double(segment.map { abs(Int($0)) }.max() ?? 0) / 32_768)
                #expect(abs(Double(reading.channels[0].peakPower) - peak) < 0.05, "at \(reading.time) s")
                #expect(abs(Double(reading.channels[0].averagePower) - rmsDecibels(segment)) < 0.05, "at \(reading.time) s")
            }
            // The same numbers as sox's stats for two of the segments.
            for reading in [all[3], all[17]] {
                let stats = try runProcess("sox", [path, "-n", "trim", "\(reading.endFrame - Int64(reading.frameCount))s",
                                                   "\(reading.frameCount)s", "stats"]).stderr
                func value(_ name: String) -> Double? {
                    stats.split(separator: "\n").first { $0.hasPrefix(name) }
                        .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                }
                #expect(abs(Double(reading.channels[0].peakPower) - (value("Pk lev dB") ?? 0)) < 0.05, "\(stats)")
                #expect(abs(Double(reading.channels[0].averagePower) - (value("RMS lev dB") ?? 0)) < 0.05, "\(stats)")
            }
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct PlayerErrorTests {
    @Test func badFilesMissingSinksAndNoServerAreOneLineTypedErrors() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let text = directory + "/notes.wav"
            try "not audio\n".write(toFile: text, atomically: true, encoding: .utf8)
            for (path, reason) in [(directory + "/missing.wav", "No such file or directory; check the path"),
                                 (text, "Format not recognised; give a sound file")] {
                do throws(RecorderError) {
                    _ = try Player(contentsOf: path, server: server.address)
                    Issue.record("\(path) opened")
                } catch {
                    #expect(error.code == .cannotReadFile)
                    #expect(error.message.hasPrefix("cannot read '\(path)': \(reason)") && !error.message.contains("\n")
                            && !error.message.contains("System error") && !error.message.contains(".;"), "\(error.message)")
                }
            }
            let wav = directory + "/ok.wav"
            try writeWAV(wav, samples: noiseSamples(count: 4_410), channels: 1)
            do throws(RecorderError) {
                _ = try Player(contentsOf: wav, device: "nope", server: server.address)
                Issue.record("a missing sink was accepted")
            } catch {
                #expect(error.code == .sinkNotFound)
                #expect(error.message.hasPrefix("no playback sink named 'nope' on ") && error.message.contains(PrivateServer.monoSink)
                        && error.message.hasSuffix("(list them with `recorder sinks`)"), "\(error.message)")
            }
            do throws(RecorderError) {
                _ = try Player(contentsOf: wav, server: "unix:\(directory)/no-server")
                Issue.record("a missing server was accepted")
            } catch {
                #expect(error.code == .serverUnreachable)
                #expect(error.message.hasPrefix("cannot connect to PulseAudio server unix:\(directory)/no-server: "), "\(error.message)")
            }
            // 33 channels: more than a PulseAudio stream carries.
            let wide = directory + "/wide.wav"
            try writeWAV(wide, samples: [Int16](repeating: 0, count: 33 * 100), channels: 33)
            #expect(throws: RecorderError.self) { try Player(contentsOf: wide, server: server.address) }
        }
    }

    @Test func theServerGoingAwayMidPlayEndsItWithAFailureEvent() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/long.wav"
            try writeWAV(path, samples: noiseSamples(count: 44_100 * 20), channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            // Forever: a test task that runs late (beside a hundred others on two cores) must still find
            // it playing when it kills the server, not finished.
            player.numberOfLoops = -1
            let events = player.events()
            let readings = player.levelReadings()
            try await player.play()
            // A reading comes as its buffer starts to be heard: one ending at 0.6 s means 0.5 s is being heard.
            _ = try await firstReading(readings) { $0.time >= 0.6 }
            #expect(player.isPlaying)
            await server.crash()
            var failure: RecorderError?
            var finished: Bool?
            var seen: [String] = []
            for await event in events {
                seen.append("\(event)")
                if case .playbackFailed(let error) = event { failure = error }
                if case .finishedPlaying(let successfully) = event { finished = successfully; break }
            }
            #expect(finished == false, "events: \(seen), at \(player.currentTime) s, server \(server.isRunning ? "still running" : "gone")")
            #expect(failure?.code == .streamFailed)
            #expect(failure?.message == "playback to '\(PrivateServer.monoSink)' stopped: the server closed the stream "
                    + "(server gone or sink removed); check that the server is running and the sink exists (`recorder sinks`)")
            #expect(!player.isPlaying && player.currentTime >= 0.5 && player.currentTime < 20)
            // A new play() with the server gone says so instead of hanging.
            #expect(throws: RecorderError.self) { try player.play() }
        }
    }

    @Test func hostileNumbersAndCallsFromTheConsumersNeitherTrapNorHang() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/a.wav"
            let samples = noiseSamples(count: 22_050)
            try writeWAV(path, samples: samples, channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            player.currentTime = .nan
            #expect(player.currentTime == 0)
            player.currentTime = 1e15
            #expect(player.currentTime == 0.5)
            player.currentTime = -3
            #expect(player.currentTime == 0)
            player.volume = .nan
            #expect(player.volume == 1)
            player.volume = 1e15
            #expect(player.volume == 1)
            player.volume = -.infinity
            #expect(player.volume == 0)
            player.volume = 1
            player.pan = -.greatestFiniteMagnitude
            #expect(player.pan == -1)
            player.pan = 0
            for time in [Double.nan, .infinity, -1, 1e300] {
                #expect(throws: RecorderError.self) { try player.play(atTime: time) }
            }
            for seconds in [Double.nan, -1, 1e300] {
                #expect(throws: RecorderError.self) { try player.play(forDuration: seconds) }
            }
            #expect(player.peakPower(forChannel: Int.max) == -160 && player.averagePower(forChannel: -1) == -160)
            #expect(throws: RecorderError.self) { try player.meterReadings(.vu, options: MeterOptions(vuReference: .nan)) }

            // Metering as AVAudioPlayer: -160 until enabled and updated.
            let readings = player.levelReadings()
            let events = player.events()
            try await player.play()
            let reading = try await firstReading(readings) { _ in true }
            player.updateMeters()
            #expect(player.peakPower(forChannel: 0) == -160)
            player.isMeteringEnabled = true
            player.updateMeters()
            #expect(player.peakPower(forChannel: 0) > -10 && player.averagePower(forChannel: 0) < player.peakPower(forChannel: 0))
            _ = reading
            // The events consumer plays again at the end: no deadlock, and it finishes a second time.
            var ends = 0
            for await event in events {
                guard case .finishedPlaying = event else { continue }
                ends += 1
                if ends == 2 { break }
                try await player.play()
            }
            #expect(ends == 2)
            // Heard twice over: what the server played, all of it, as `play` reports it.
            #expect(player.heardFrameCount == 2 * 22_050)
            await player.close()
            await player.close()
            #expect(throws: RecorderError.self) { try player.play() }
            // After close() a seek says so too, as play() does (it used to succeed silently).
            #expect(throws: RecorderError.self) { try player.seek(to: 0.1) }

            // NaN samples in a float file play as silence; the finite ones as they are.
            var info = SF_INFO(frames: 0, samplerate: 44_100, channels: 1, format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT), sections: 0, seekable: 0)
            let floatPath = directory + "/nan.wav"
            let file = try #require(sf_open(floatPath, Int32(SFM_WRITE), &info))
            var floats = samples.map { Float($0) / 32_768 }
            for index in 5_000..<6_000 { floats[index] = .nan }
            _ = floats.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t($0.count)) }
            sf_close(file)
            let nanPlayer = try Player(contentsOf: floatPath, device: PrivateServer.monoSink, server: server.address)
            defer { nanPlayer.close() }
            let heard = try await monitoring(server) { _, _ in _ = try await playToEnd(nanPlayer) }
            var expected = samples
            for index in 5_000..<6_000 { expected[index] = 0 }
            let departure = departure(ofHeard: heard, from: expected, underruns: nanPlayer.underrunCount)
            #expect(departure == nil, "the NaN stretch is not 1 000 zeros in place, or the rest not the file's: \(departure ?? "")")
        }
    }

    @Test func closeFromTheOutputCallbackReturnsAndEndsThePlayer() async throws {
        try await withPrivateServer { server in
            let holder = Locked<Player?>(nil)
            let player = try Player(format: .default, device: PrivateServer.monoSink, server: server.address) { buffer in
                if buffer.startFrame >= 44_100 { holder.withLock { $0?.close() } }
                buffer.setSample(Float(0.25), frame: 0, channel: 0)
            }
            holder.withLock { $0 = player }
            let events = player.events()
            try await player.play()
            for await _ in events {}  // ends when the player has closed
            #expect(!player.isPlaying)
            holder.withLock { $0 = nil }
        }
    }
}

/// The player against the clock, in the test command's timing stage (one test at a time, on its own):
/// each test prints what it measured; each bound sits at least 5× above the median measured on a 2-core
/// machine.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PlayerTimingTests {
    /// When the player's reading of a tone burst comes, against when the monitor hears the burst.
    @Test func readingToHearingTimeOfAToneBurst() async throws {
        try await withPrivateServer { server in
            var samples = [Int16](repeating: 0, count: 44_100 * 4)
            let burst = sineSamples(frames: 8_820, frequency: 1_000, amplitudes: [0.5])
            samples.replaceSubrange(132_300..<(132_300 + burst.count), with: burst)
            let path = try temporaryDirectory() + "/burst.wav"
            try writeWAV(path, samples: samples, channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            let playerReadings = player.levelReadings()
            let (monitor, onset) = try await onsetEar(server)
            defer { monitor.stop() }
            // The player's reading of the buffer that starts with the burst (file frames 132 300…136 709).
            let shownTask = Task { () -> (Double, Int64)? in
                for await reading in playerReadings where reading.channels[0].peakPower > -20 {
                    return (monotonicSeconds(), reading.endFrame)
                }
                return nil
            }
            #expect(try await playToEnd(player))
            let (shown, end) = try #require(await shownTask.value)
            let heard = try #require(onset.withLock { $0 })
            #expect(end == 132_300 + 4_410)
            print("player reading - monitor hearing the burst's first frame: \(Int((shown - heard) * 1000)) ms")
            // A reading is published when its buffer's first frame is heard: the burst's reading comes
            // when the monitor hears the burst begin, within one buffer (measured: 0 to 2 ms on both
            // servers; 28 ms on PipeWire when the graph runs a 100 ms quantum).
            #expect(abs(shown - heard) <= 0.1, "the player's reading came \(Int((shown - heard) * 1000)) ms after the monitor heard the burst")
        }
    }

    /// How far from the time asked `play(atTime:)` is heard.
    @Test func startErrorOfPlayAtTime() async throws {
        try await withPrivateServer { server in
            let tone = sineSamples(frames: 22_050, frequency: 1_000, amplitudes: [0.5])
            let path = try temporaryDirectory() + "/tone.wav"
            try writeWAV(path, samples: tone, channels: 1)
            let player = try Player(contentsOf: path, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            var asked = 0.0, offset = Double.infinity, fileStart: Int64 = 0, finished = false
            let heard = try await monitoring(server) { monitor, start in
                fileStart = start
                // When each monitor frame was heard: a reading arrives just after its last frame was
                // captured, so the smallest arrival less its position is the clock's offset.
                for await reading in monitor.levelReadings() {
                    offset = min(offset, monotonicSeconds() - Double(reading.endFrame) / 44_100)
                    if reading.endFrame - start > 44_100 { break }
                }
                asked = player.deviceCurrentTime + 1.0
                let time = asked
                finished = try await playToEnd(player) { try $0.play(atTime: time) }
            }
            #expect(finished)
            let first = try #require(heard.samples.firstIndex { $0 != 0 })
            let heardAt = offset + Double(fileStart + Int64(first)) / 44_100
            print("play(atTime:) heard \(Int((heardAt - asked) * 1000)) ms after the time asked")
            // Measured: −49 ms on PulseAudio, +94 ms on PipeWire (its 100 ms quantum); bound over 5× those.
            #expect(abs(heardAt - asked) <= 0.5, "heard \(Int((heardAt - asked) * 1000)) ms after the time asked")
            // Bit for bit on PulseAudio only: pipewire's graph, starved (two CPU hogs), played a cycle of
            // the tone as silence, telling no client (see the pipewire stage in scripts/test).
            if server.kind == .pulseaudio {
                let departure = departure(ofHeard: heard, from: tone, underruns: player.underrunCount)
                #expect(departure == nil, "\(departure ?? "")")
            }
        }
    }

    /// A callback that stalls 1.5 s on the source's last buffer: the server runs out of everything
    /// written while there is still audio to come, which is an underrun like any other (it was taken
    /// for the end of the source once, and the gap heard went uncounted).
    @Test func anUnderrunBeforeTheLastBufferIsCounted() async throws {
        try await withPrivateServer { server in
            let tone = (0..<60_000).map { Int16((sin(2 * Double.pi * 441.25 * Double($0) / 44_100) * 8_192).rounded()) }
            let player = try Player(format: .default, device: PrivateServer.monoSink, server: server.address) { buffer in
                let start = Int(buffer.startFrame)
                let count = min(buffer.frameCapacity, max(0, tone.count - start))
                if count > 0, count < buffer.frameCapacity { usleep(1_500_000) }
                for frame in 0..<count { buffer.setSample(tone[start + frame], frame: frame, channel: 0) }
                buffer.frameCount = count
            }
            defer { player.close() }
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            print("a 1.5 s stall on the last buffer: \(player.underrunCount) underruns reported")
            #expect(player.underrunCount >= 1)
            let comparison = compare(heard: heard, played: tone, underruns: player.underrunCount)
            #expect(comparison.departure == nil, "\(comparison.departure ?? "")")
            #expect(comparison.silentGaps + comparison.earLosses >= 1, "the stall was not heard")
        }
    }

    /// A callback that stalls 1.5 s (longer than the server and the pool hold: about 0.6 s on PipeWire,
    /// where a 0.4 s stall went unheard) makes the server run dry: an `underrun` event where the audio
    /// ran out, counted, and the audio after the gap goes on at the exact next frame: late, never lost.
    @Test func placementOfTheUnderrunAStalledCallbackCausesCountedLosingNoFrame() async throws {
        try await withPrivateServer { server in
            // 441.25 Hz: the sample at 1 s (where the gap comes) is the crest, not a zero crossing.
            let tone = (0..<88_200).map { Int16((sin(2 * Double.pi * 441.25 * Double($0) / 44_100) * 8_192).rounded()) }
            let player = try Player(format: .default, device: PrivateServer.monoSink, server: server.address) { buffer in
                let start = Int(buffer.startFrame)
                if start == 44_100 { usleep(1_500_000) }
                let count = min(buffer.frameCapacity, max(0, tone.count - start))
                for frame in 0..<count { buffer.setSample(tone[start + frame], frame: frame, channel: 0) }
                buffer.frameCount = count
            }
            defer { player.close() }
            let events = player.events()
            let underruns = Task { () -> [Int64] in
                var frames: [Int64] = []
                for await event in events {
                    if case .underrun(let frame) = event { frames.append(frame) }
                    if case .finishedPlaying = event { break }
                }
                return frames
            }
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            // The stall's underrun, reported near where the audio ran out (the position heard when the
            // reader reports it, after the stall: 9 441 frames later once under CI's load); CI's load may
            // add more, each reported.
            let reported = await underruns.value
            print("underrun after a 1.5 s stall at frame 44 100: reported at frame \(reported.first ?? -1)")
            #expect(reported.first.map { (39_690...66_150).contains($0) } == true, "\(reported)")
            #expect(player.underrunCount == reported.count)
            // Heard: the tone with silent stretches (8 or more zero samples: the tone never has two in a
            // row) where the server ran dry, no more than it reported. Without them (and without what the
            // ear reported it lost) it is the tone exactly: nothing lost or repeated.
            let comparison = compare(heard: heard, played: tone, underruns: reported.count)
            #expect(comparison.departure == nil, "\(comparison.departure ?? "")")
            #expect(comparison.silentGaps + comparison.earLosses >= 1, "the stall was not heard")
        }
    }
}

// Every numeric parameter of OpenAVFAudio's formats, buffers, times, files and engine nodes given 0, −1,
// ±infinity, NaN, 1e300, .min and .max: refused (nil, a thrown error, a refusal line) or clamped, never
// a trap (a trap ends this test process, and the run fails with it).
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

private let doubles: [Double] = [0, -1, .infinity, -.infinity, .nan, 1e300, -1e300, Double(Int64.max), 44_100]
private let floats: [Float] = [0, -1, .infinity, -.infinity, .nan, 1e30, -1e30, .greatestFiniteMagnitude, 0.5]
private let int64s: [Int64] = [0, -1, .min, .max, 1 << 62]
private let uint32s: [UInt32] = [0, 1, .max]

@Suite struct AVFAudioHostileNumberTests {
    /// Formats from every rate, channel count and bit depth: those made hash, compare, describe themselves
    /// and go into a Set (a 1e300 Hz format's hash trapped); the settings' bit depths −16, NaN and 1e30 make
    /// none.
    @Test func formats() throws {
        var made: [AVAudioFormat] = []
        for rate in doubles {
            for channels in uint32s + [2, 32, 33] {
                if let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels) { made.append(format) }
                for common in [AVAudioCommonFormat.pcmFormatInt16, .pcmFormatInt32, .pcmFormatFloat64] {
                    if let format = AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: true) {
                        made.append(format)
                    }
                }
            }
            for depth in doubles + [-16, 1e30, 24] {
                let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate,
                                               AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: depth]
                let format = AVAudioFormat(settings: settings)
                if !(depth.isFinite && depth >= 1 && depth <= 64 && depth == depth.rounded()) {
                    #expect(format == nil, "bit depth \(depth) made a format")
                }
                if let format { made.append(format) }
            }
        }
        #expect(made.contains { $0.sampleRate == 1e300 }, "a rate of 1e300 Hz is a format, as on Apple's systems")
        let set = Set(made)
        #expect(!set.isEmpty)
        for format in made {
            _ = format.hash
            _ = format.settings
            _ = format.description
            #expect(format == format)
            for capacity in uint32s {
                if let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity) {
                    buffer.frameLength = .max
                    #expect(buffer.frameLength == buffer.frameCapacity)
                }
            }
        }
    }

    /// Times from every host time, sample time and rate, and every extrapolation between them (an anchor at
    /// Int64.min or 1e300 Hz trapped).
    @Test func times() throws {
        var times: [AVAudioTime] = []
        for rate in doubles {
            for sample in int64s {
                times.append(AVAudioTime(sampleTime: sample, atRate: rate))
                for host in [UInt64(0), 1, .max] { times.append(AVAudioTime(hostTime: host, sampleTime: sample, atRate: rate)) }
            }
            _ = AVAudioTime.hostTime(forSeconds: rate)
        }
        for host in [UInt64(0), 1, .max] { times.append(AVAudioTime(hostTime: host)) }
        for time in times {
            for anchor in times {
                if let extrapolated = time.extrapolateTime(fromAnchor: anchor) { _ = extrapolated.audioTimeStamp }
            }
            _ = AVAudioTime.seconds(forHostTime: time.hostTime)
        }
        let anchor = AVAudioTime(hostTime: 1_000, sampleTime: .min, atRate: 1e300)
        #expect(AVAudioTime(hostTime: .max).extrapolateTime(fromAnchor: anchor)?.sampleTime == .max)
    }

    /// Files for writing with every rate, channel count and bit depth: made or refused with an error.
    @Test func filesForWriting() throws {
        let directory = try temporaryDirectory()
        for (index, value) in doubles.enumerated() {
            for key in [AVSampleRateKey, AVNumberOfChannelsKey, AVLinearPCMBitDepthKey] {
                var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                               AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16]
                settings[key] = value
                let url = URL(fileURLWithPath: directory + "/f\(index)-\(key.count).wav")
                _ = try? AVAudioFile(forWriting: url, settings: settings)
            }
        }
    }

    /// The engine's nodes, not running: connections in formats of every rate (those no stream plays
    /// refused with a line), buffers of every rate scheduled, segments and times of every size, every
    /// setting; then it renders nothing wrong when started offline is not possible, so only what is set.
    @Test func engineNodes() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode(), pitch = AVAudioUnitTimePitch(), varispeed = AVAudioUnitVarispeed()
        for node in [player, pitch, varispeed] as [AVAudioNode] { engine.attach(node) }
        for rate in doubles {
            for channels in [UInt32(1), 2] {
                guard let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels) else { continue }
                engine.connect(player, to: pitch, format: format)
                if rate > 384_000 {  // refused: the connection keeps the format it had
                    #expect(player.outputFormat(forBus: 0).sampleRate <= 384_000, "a \(rate) Hz connection was made")
                }
                if let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 64) {
                    buffer.frameLength = 64
                    player.scheduleBuffer(buffer, at: nil)
                    for sample in int64s { player.scheduleBuffer(buffer, at: AVAudioTime(sampleTime: sample, atRate: rate)) }
                    player.scheduleBuffer(buffer, at: AVAudioTime(hostTime: .max))
                }
            }
        }
        engine.connect(pitch, to: varispeed, format: nil)
        engine.connect(varispeed, to: engine.mainMixerNode, format: nil)
        for value in floats {
            player.volume = value
            player.pan = value
            pitch.rate = value
            pitch.pitch = value
            varispeed.rate = value
            engine.mainMixerNode.outputVolume = value
            #expect(!player.volume.isNaN && !pitch.rate.isNaN && !varispeed.rate.isNaN)
        }
        for sample in int64s { player.play(at: AVAudioTime(sampleTime: sample, atRate: 44_100)) }
        player.stop()
        engine.stop()
    }
}

/// Audio File Services given hostile numbers: formats of every rate, channel count and size refused with
/// a status or made; packet positions and counts of every size refused or clamped, never a trap.
@Suite struct AudioFileHostileNumberTests {
    @Test func audioFileServices() throws {
        let directory = try temporaryDirectory()
        for (index, rate) in doubles.enumerated() {
            for channels in [UInt32(0), 1, 2, .max] {
                for bits in [UInt32(0), 16, 24, .max] {
                    var format = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
                                                             mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                             mBytesPerPacket: bits &* channels / 8, mFramesPerPacket: 1,
                                                             mBytesPerFrame: bits &* channels / 8, mChannelsPerFrame: channels,
                                                             mBitsPerChannel: bits, mReserved: 0)
                    var file: AudioFileID?
                    let url = URL(fileURLWithPath: directory + "/h\(index)-\(channels)-\(bits).wav")
                    let status = AudioFileCreateWithURL(url as CFURL, kAudioFileWAVEType, &format, .eraseFile, &file)
                    if let file { #expect(status == noErr && AudioFileClose(file) == noErr) }
                }
            }
        }
        var format = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM,
                                                 mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                 mBytesPerPacket: 2, mFramesPerPacket: 1, mBytesPerFrame: 2, mChannelsPerFrame: 1,
                                                 mBitsPerChannel: 16, mReserved: 0)
        var made: AudioFileID?
        #expect(AudioFileCreateWithURL(URL(fileURLWithPath: directory + "/take.wav") as CFURL, kAudioFileWAVEType, &format,
                                       .eraseFile, &made) == noErr)
        let file = try #require(made)
        let bytes = [UInt8](repeating: 1, count: 200)
        for start in int64s {
            for count in uint32s {
                var packets = count
                let status = AudioFileWritePackets(file, false, UInt32(bytes.count), nil, start, &packets, bytes)
                #expect(status == noErr || packets == 0, "start \(start), \(count) packets")
                #expect(packets <= 100)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 200)
        for start in int64s {
            for count in uint32s {
                for size in uint32s {
                    var packets = count, byteCount = min(size, UInt32(buffer.count))
                    _ = AudioFileReadPacketData(file, false, &byteCount, nil, start, &packets, &buffer)
                    #expect(byteCount <= 200 && packets <= 100)
                }
            }
        }
        #expect(AudioFileClose(file) == noErr)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct AVAudioPlayerHostileNumberTests {
    /// Every numeric setting of an AVAudioPlayer (in the probe, against a private server): clamped or
    /// ignored, never a trap (a fade of 1e17 s trapped, exit 132); what it holds after is in range.
    @Test func playerSettings() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/tone.wav"
            try writeWAV(path, samples: sineSamples(frames: 4_410, frequency: 440, amplitudes: [0.5]), channels: 1)
            let probe = try builtProduct("avfaudio-probe")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(probe, ["player-numbers", path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("volume 0.5 pan ") && !result.stdout.contains("nan") && !result.stdout.contains("inf"),
                    "\(result.stdout)")
        }
    }
}

// Audio File Stream Services: the example (Examples/StreamingParser, Swift 5 and 6) feeds a file in uneven
// pieces and writes out the packets it is given. An MP3's packets, decoded one after another, are the file
// decoded whole plus exactly the priming and remainder frames the packet table says; an ADTS stream's are
// the raw data of the frames ffprobe lists; a WAVE's packets are its data chunk byte for byte. Then what a
// porter's mistakes get.
import Foundation
import OpenAVFAudio
import OpenAudioToolbox
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct AudioFileStreamTests {
    /// Three seconds of a stereo chirp and noise at 44.1 kHz, as floats.
    static func signal(frames: Int) -> [[Float]] {
        var seed: UInt32 = 7
        return (0..<2).map { channel in
            (0..<frames).map { index in
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let t = Float(index) / 44_100
                return 0.4 * sin(2 * .pi * (200 + 300 * t) * t + Float(channel)) + 0.05 * (Float(seed >> 8) / Float(1 << 24) - 0.5)
            }
        }
    }

    /// Writes `signal` to `path` with AVAudioFile (MP3 through LAME, WAVE as 16-bit).
    static func write(_ path: String, _ signal: [[Float]], settings: [String: Any]) throws {
        let file = try AVAudioFile(forWriting: URL(fileURLWithPath: path), settings: settings)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(signal[0].count)))
        buffer.frameLength = AVAudioFrameCount(signal[0].count)
        for channel in 0..<2 { for (index, value) in signal[channel].enumerated() { buffer.floatChannelData![channel][index] = value } }
        try file.write(from: buffer)
    }

    @Test(arguments: ["streaming-parser-swift5", "streaming-parser-swift6"])
    func anMP3StreamedInPiecesGivesPacketsThatDecodeToTheWholeFile(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let mp3 = directory + "/song.mp3", packets = directory + "/packets.mp3"
        try Self.write(mp3, Self.signal(frames: 3 * 44_100), settings: [AVFormatIDKey: kAudioFormatMPEGLayer3, AVSampleRateKey: 44_100,
                                                                         AVNumberOfChannelsKey: 2])
        let program = try builtProduct(product)
        let result = try await offThread { try runProcess(program, [mp3, packets]) }
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["file format: MPG3", "data format: .mp3 44100 Hz, 2 channels, 1152 frames a packet, 0 bytes a packet"], "\(result.stdout)")
        func number(_ prefix: String, _ index: Int = 0) -> Int? {
            lines.first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count).split(whereSeparator: { !$0.isNumber }).dropFirst(index).first ?? "") }
        }
        let priming = try #require(number("packet table: "), "\(result.stdout)")
        let remainder = try #require(number("packet table: ", 1))
        let packetCount = try #require(number("packet count: "))
        #expect(number("packets: ") == packetCount && lines.contains("ready to produce packets"), "\(result.stdout)")
        // The packets decoded one after another, against the file decoded whole: by ffmpeg's own MP3
        // decoder (not libmpg123, which found the packets), which trims the whole file by its LAME frame.
        @Sendable func decoded(_ path: String) throws -> [Int16] {
            let raw = path + ".raw"
            let result = try runProcess("ffmpeg", ["-loglevel", "error", "-y", "-i", path, "-f", "s16le", raw])
            guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderr)") }
            return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        }
        let whole = try await offThread { try decoded(mp3) }, parts = try await offThread { try decoded(packets) }
        #expect(whole.count == 2 * 3 * 44_100, "the whole file decodes to \(whole.count / 2) frames")
        #expect(parts.count == 2 * (priming + whole.count / 2 + remainder), "\(parts.count / 2) frames from the packets; \(priming) + \(whole.count / 2) + \(remainder)")
        let trimmed = Array(parts[min(parts.count, 2 * priming)..<min(parts.count, 2 * priming + whole.count)])
        #expect(trimmed == whole, "the packets' decoding differs from the file's past the priming frames")
        // Packet 100 of an MP3 can only be estimated: its frames vary in size.
        #expect(lines.last?.hasSuffix("estimated: true") == true)
    }

    @Test(arguments: ["streaming-parser-swift5", "streaming-parser-swift6"])
    func aWAVEStreamedInPiecesGivesItsDataChunkByteForByte(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let wave = directory + "/take.wav", packets = directory + "/packets.raw"
        try Self.write(wave, Self.signal(frames: 44_100), settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                                                     AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16])
        let program = try builtProduct(product)
        let result = try await offThread { try runProcess(program, [wave, packets]) }
        #expect(result.status == 0, "\(result.stderr)")
        let file = try Data(contentsOf: URL(fileURLWithPath: wave))
        let dataAt = try #require(file.range(of: Data("data".utf8))).lowerBound + 8
        #expect(result.stdout == """
            file format: WAVE
            data format: lpcm 44100 Hz, 2 channels, 1 frames a packet, 4 bytes a packet
            data offset: \(dataAt)
            packet count: 44100
            ready to produce packets
            packets: 44100 in 176400 bytes, 0 described
            packet 100 at byte 400 of the data, estimated: false

            """, "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: packets)) == file[dataAt..<(dataAt + 176_400)])
    }

    /// AAC in ADTS, made by ffmpeg's encoder: the packets are the raw data of the frames ffprobe lists (its
    /// packets are whole ADTS frames: each at its position, its header of 7 bytes, 9 with a CRC, left out),
    /// one for each, in order, 1 024 frames apiece.
    @Test(arguments: ["streaming-parser-swift5", "streaming-parser-swift6"])
    func anAACStreamInADTSGivesEachFramesRawDataAsAPacket(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let aac = directory + "/tone.aac", packets = directory + "/packets.raw"
        let made = try await offThread { try runProcess("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=44100",
                                                   "-ac", "2", "-c:a", "aac", "-b:a", "96k", "-f", "adts", aac]) }
        #expect(made.status == 0, "\(made.stderr)")
        let probe = try await offThread {
            try runProcess("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "packet=pos,size", "-of", "compact=p=0", aac])
        }
        let frames = probe.stdout.split(separator: "\n").compactMap { line -> (position: Int, size: Int)? in
            var fields: [Substring: Int] = [:]
            for field in line.split(separator: "|") {
                let pair = field.split(separator: "=")
                if pair.count == 2 { fields[pair[0]] = Int(pair[1]) }
            }
            guard let position = fields["pos"], let size = fields["size"], size > 9, position + size <= Int.max / 2 else { return nil }
            return (position, size)
        }
        #expect(frames.count > 80, "ffprobe lists \(frames.count) frames")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: aac)))
        #expect(frames.allSatisfy { $0.position + $0.size <= file.count }, "ffprobe lists frames past the file's end")
        var expected: [UInt8] = []
        for frame in frames where frame.position + frame.size <= file.count {
            let header = file[frame.position + 1] & 1 == 1 ? 7 : 9
            expected += file[(frame.position + header)..<(frame.position + frame.size)]
        }
        let program = try builtProduct(product)
        let result = try await offThread { try runProcess(program, [aac, packets]) }
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(4)) == ["file format: adts", "data format: aac  44100 Hz, 2 channels, 1024 frames a packet, 0 bytes a packet",
                                           "data offset: 0", "ready to produce packets"], "\(result.stdout)")
        #expect(lines.contains("packets: \(frames.count) in \(expected.count) bytes, \(frames.count) described"), "\(result.stdout)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: packets))) == expected)
        #expect(lines.last?.hasSuffix("estimated: true") == true)
    }

    @Test func aPortersMistakesGetStatusesNotCrashes() throws {
        let ignoreProperty: AudioFileStream_PropertyListenerProc = { _, _, _, _ in }
        let ignorePackets: AudioFileStream_PacketsProc = { _, _, _, _, _ in }
        var stream: AudioFileStreamID?
        #expect(AudioFileStreamOpen(nil, ignoreProperty, ignorePackets, 0, &stream) == noErr)
        let opened = try #require(stream)
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        var format = AudioStreamBasicDescription()
        // Nothing known yet; a property not here; nothing to seek in.
        #expect(AudioFileStreamGetProperty(opened, kAudioFileStreamProperty_DataFormat, &size, &format) == kAudioFileStreamError_ValueUnknown)
        #expect(AudioFileStreamGetPropertyInfo(opened, kAudioFileStreamProperty_MagicCookieData, &size, nil) == kAudioFileStreamError_UnsupportedProperty)
        var offset: Int64 = 0
        var flags = AudioFileStreamSeekFlags()
        #expect(AudioFileStreamSeek(opened, 5, &offset, &flags) == kAudioFileStreamError_DataUnavailable)
        #expect(AudioFileStreamSeek(opened, -1, &offset, &flags) == kAudioFileStreamError_InvalidPacketOffset)
        // Bytes that are no kind of stream here: refused, and refused again after.
        let text = Array("This is plain text, not audio at all.".utf8)
        #expect(AudioFileStreamParseBytes(opened, UInt32(text.count), text, []) == kAudioFileStreamError_UnsupportedFileType)
        #expect(AudioFileStreamParseBytes(opened, 4, text, []) == kAudioFileStreamError_UnsupportedFileType)
        // No data with a size; a closed stream; a stream never opened.
        #expect(AudioFileStreamParseBytes(opened, 10, nil, []) == kAudio_ParamError)
        #expect(AudioFileStreamClose(opened) == noErr)
        #expect(AudioFileStreamParseBytes(opened, 4, text, []) == kAudio_ParamError)
        #expect(AudioFileStreamClose(opened) == kAudio_ParamError)
        // A WAVE header that is not linear PCM (format tag 2, ADPCM).
        var header = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 2, 0, 1, 0, 0x44, 0xAC, 0, 0]
        header += [0x88, 0x58, 1, 0, 2, 0, 16, 0] + Array("data".utf8) + [0, 0, 0, 0]
        var adpcm: AudioFileStreamID?
        AudioFileStreamOpen(nil, ignoreProperty, ignorePackets, 0, &adpcm)
        #expect(AudioFileStreamParseBytes(adpcm!, UInt32(header.count), header, []) == kAudioFileStreamError_UnsupportedDataFormat)
        AudioFileStreamClose(adpcm!)
    }
}

// Issue 14, point 1: a WAV take is not split at 4 GiB. It is a plain RIFF WAVE file until its audio
// passes 4 GiB, then its header becomes RF64's in place, with every frame where it was.
import CSndFile
import Foundation
import Glibc
import Testing
import TestSupport
@testable import RecorderKit

@Suite(.timeLimit(.minutes(3)))
struct ContainerLimitTests {
    /// 8 channels of 32-bit samples, 32 bytes a frame: 2^27 + 2^20 frames are 4 GiB + 32 MiB of audio.
    @Test func aWAVTakePast4GiBBecomesRF64AndKeepsEveryFrame() throws {
        let path = try temporaryDirectory() + "/long.wav"
        defer { unlink(path) }
        let format = try StreamFormat(sampleRate: 192_000, channelCount: 8, sampleFormat: .int32)
        let chunkFrames = 1 << 16
        let writer = try SoundFileWriter(path: path, format: format, maxFramesPerWrite: chunkFrames)
        #expect(writer.frameCapacity > Int64(1) << 50)
        // Each chunk: sample (frame, channel) of the whole take is frame·8 + channel, big-endian (the
        // packets a recorder of this format captures), so any frame read back tells where it was.
        var packets = [UInt8](repeating: 0, count: chunkFrames * format.bytesPerFrame)
        func fill(startingAt first: Int) {
            packets.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt32.self)
                for index in 0..<words.count { words[index] = UInt32(truncatingIfNeeded: first * 8 + index).bigEndian }
            }
        }
        let total = (1 << 27) + (1 << 20)
        var header: [UInt8] = []
        var written = 0
        while written < total {
            // The samples are rewritten only around the 4 GiB line and at the end: what is read back.
            if written < 1 << 16 || abs(written - (1 << 27)) <= 1 << 17 || total - written <= 1 << 16 { fill(startingAt: written) }
            try packets.withUnsafeBytes { try writer.write(packets: $0) }
            written += chunkFrames
            // Just short of 4 GiB of audio the file on disk is still plain WAV.
            if written == (1 << 27) - chunkFrames { header = try fileHeader(path) }
        }
        #expect(Array(header[0..<4]) == Array("RIFF".utf8) && Array(header[8..<12]) == Array("WAVE".utf8))
        // Before the close: the header refreshed with the last buffer already says RF64 (crash safety).
        let open = try fileHeader(path)
        #expect(Array(open[0..<4]) == Array("RF64".utf8) && Array(open[8..<12]) == Array("WAVE".utf8))
        // Markers are not stored past 4 GiB (RF64 keeps none here): the close says so, the file stays whole.
        #expect(!writer.close(markers: [(frame: 100, label: "in")]))

        var info = SF_INFO()
        let file = try #require(sf_open(path, Int32(SFM_READ), &info))
        defer { sf_close(file) }
        #expect(info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_RF64))
        #expect(info.frames == Int64(total) && info.channels == 8 && info.samplerate == 192_000)
        for first in [0, (1 << 27) - 3, total - 5] {
            var frames = [Int32](repeating: 0, count: 5 * 8)
            #expect(sf_seek(file, sf_count_t(first), SEEK_SET) == sf_count_t(first))
            #expect(sf_readf_int(file, &frames, 5) == 5)
            #expect(frames == (0..<40).map { Int32(bitPattern: UInt32(truncatingIfNeeded: first * 8 + $0)) }, "frame \(first)")
        }
    }

    /// A short WAV take is plain RIFF WAVE that every reader takes, with markers, as before.
    @Test func aShortWAVTakeIsPlainRIFFWave() throws {
        let path = try temporaryDirectory() + "/short.wav"
        defer { unlink(path) }
        let writer = try SoundFileWriter(path: path, format: .default)
        let samples = (0..<4_410).flatMap { index -> [UInt8] in
            let value = UInt16(bitPattern: Int16(truncatingIfNeeded: index * 7))
            return [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        try samples.withUnsafeBytes { try writer.write(packets: $0) }
        #expect(writer.close(markers: [(frame: 100, label: "in"), (frame: 4_000, label: "out")]))
        let header = try fileHeader(path)
        #expect(Array(header[0..<4]) == Array("RIFF".utf8) && Array(header[8..<12]) == Array("WAVE".utf8))
        var info = SF_INFO()
        let file = try #require(sf_open(path, Int32(SFM_READ), &info))
        defer { sf_close(file) }
        #expect(info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_WAVEX) && info.frames == 4_410, "\(String(info.format, radix: 16))")
        var read = [Int16](repeating: 0, count: 4_410)
        #expect(sf_readf_short(file, &read, 4_410) == 4_410)
        #expect(read == (0..<4_410).map { Int16(truncatingIfNeeded: $0 * 7) })
        let markers = MarkerChunk.read(file)
        #expect(markers.map(\.frame) == [100, 4_000] && markers.map(\.label) == ["in", "out"])
    }
}

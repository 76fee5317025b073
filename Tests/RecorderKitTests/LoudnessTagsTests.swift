// Loudness tags without a server: a WAV's bext loudness rewritten in place, the gains as ReplayGain and
// RFC 7845 spell them, and the playback gain never amplifying nor clipping.
import CSndFile
import Foundation
import Glibc
import Testing
@testable import RecorderKit
import TestSupport

@Suite struct LoudnessTagsTests {
    /// A tag write that must grow the file never cuts it short: on a disk filled to the brim it is
    /// refused with one line that says the disk is full, and the FLAC and MP3 are byte for byte as they
    /// were (and `flac -t` passes); with room, the tags are written and every frame is still there.
    @Test(arguments: [FileType.flac, .mp3])
    func tagsOnAFullDiskLeaveTheFileWhole(type: FileType) async throws {
        try await withTinyDisk(size: "1m") { disk in
            let path = disk + "/tone." + type.rawValue
            let writer = try SoundFileWriter(path: path, format: try StreamFormat(sampleRate: 44_100, channelCount: 1), fileType: type)
            let samples = noiseSamples(count: 44_100 * 3, seed: 37).map { $0 / 4 }
            let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
            try bytes.withUnsafeBytes { try writer.write(packets: $0) }
            writer.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let frames = try decodedFrames(path).frames
            let analysis = try FileAnalysis.analyze(path: path)
            // Fill the disk to the brim.
            let filler = open(disk + "/filler", O_WRONLY | O_CREAT, 0o644)
            let block = [UInt8](repeating: 1, count: 4_096)
            while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
            close(filler)
            do throws(RecorderError) {
                _ = try LoudnessTags.write(analysis, to: path)
                Issue.record("tagged on a full disk")
            } catch {
                #expect(error.code == .writeFailed)
                #expect(error.message.hasPrefix("cannot tag '\(path)' with its loudness: the disk is full"), "\(error.message)")
                #expect(error.message.hasSuffix("the file is unchanged") && !error.message.contains("\n"), "\(error.message)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file changed")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk).sorted() == ["filler", "tone." + type.rawValue])
            if type == .flac { #expect(try runProcess("flac", ["-t", "-s", path]).status == 0) }
            // With room: tagged, whole.
            unlink(disk + "/filler")
            let written = try LoudnessTags.write(analysis, to: path)
            #expect(written.first?.name == "REPLAYGAIN_TRACK_GAIN")
            #expect(LoudnessTags.read(path: path)?.trackGain == Double(written[0].value.split(separator: " ")[0]))
            #expect(try decodedFrames(path).frames == frames)
            if type == .flac { #expect(try runProcess("flac", ["-t", "-s", path]).status == 0) }
        }
    }

    /// Non-finite samples in one file of an album are left out of it as a file's own analysis leaves
    /// them out: the album of a float file holding NaN and ±infinity and a plain one measures, in either
    /// order, as the album whose first file has each of them replaced by the sample before it.
    @Test func anAlbumWithNonFiniteSamplesMeasuresInEitherOrder() throws {
        let folder = try temporaryDirectory()
        func write(_ name: String, _ samples: [Float]) throws -> String {
            let path = folder + "/" + name
            var info = SF_INFO(frames: 0, samplerate: 48_000, channels: 1, format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT),
                               sections: 0, seekable: 0)
            let file = try #require(sf_open(path, Int32(SFM_WRITE), &info))
            defer { sf_close(file) }
            #expect(samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t($0.count)) } == sf_count_t(samples.count))
            return path
        }
        let tone = (0..<144_000).map { Float(0.25 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) }
        var hostile = tone
        var repaired = tone
        for (index, value) in [(10_000, Float.nan), (50_000, .infinity), (90_000, -.infinity), (90_001, .nan)] {
            hostile[index] = value
        }
        for index in [10_000, 50_000, 90_000, 90_001] { repaired[index] = repaired[index - 1] }
        let quiet = try write("quiet.wav", tone.map { $0 / 4 })
        let nonFinite = try write("nan.wav", hostile)
        let plain = try write("repaired.wav", repaired)
        let first = try #require(try FileAnalysis.albumLoudness(paths: [nonFinite, quiet]).integrated)
        let second = try #require(try FileAnalysis.albumLoudness(paths: [quiet, nonFinite]).integrated)
        let expected = try #require(try FileAnalysis.albumLoudness(paths: [plain, quiet]).integrated)
        #expect(first == expected, "\(first) vs \(expected) LUFS")
        #expect(abs(second - first) < 0.05, "\(second) vs \(first) LUFS")
        let peak = try FileAnalysis.albumLoudness(paths: [nonFinite, quiet]).samplePeak
        #expect(peak > 0.249 && peak <= 0.25, "the peak leaves out the non-finite samples: \(peak)")
    }

    @Test func aWAVsBextLoudnessIsWrittenInPlaceAndReadBack() throws {
        let path = try temporaryDirectory() + "/take.wav"
        let format = try StreamFormat(sampleRate: 48_000, channelCount: 1)
        let writer = try SoundFileWriter(path: path, format: format, broadcast: BroadcastInfo(firstFrameTime: 0, sampleRate: 48_000))
        let samples = (0..<96_000).map { Int16((sin(2 * Double.pi * 997 * Double($0) / 48_000) * 8_192).rounded()) }
        let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        try bytes.withUnsafeBytes { try writer.write(packets: $0) }
        writer.close()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        let analysis = try FileAnalysis.analyze(path: path)
        let written = try LoudnessTags.write(analysis, to: path)
        #expect(written.map(\.name) == ["LoudnessValue", "LoudnessRange", "MaxTruePeakLevel", "MaxMomentaryLoudness", "MaxShortTermLoudness"])
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size, "the file changed size")
        var info = SF_INFO()
        let file = try #require(sf_open(path, Int32(SFM_READ), &info))
        defer { sf_close(file) }
        let broadcast = try #require(BroadcastInfo.read(file))
        #expect(broadcast.loudnessValue.map { abs($0 - (analysis.integrated ?? 0)) <= 0.005 } == true, "\(broadcast)")
        #expect(info.frames == 96_000)
        let tags = try #require(LoudnessTags.read(path: path))
        #expect(abs(tags.trackGain - (-18 - (analysis.integrated ?? 0))) <= 0.01)
    }

    @Test func gainsAreSpelledAsReplayGainAndRFC7845SpellThem() {
        #expect(LoudnessTags.decibels(-3.214) == "-3.21 dB" && LoudnessTags.decibels(0.004) == "0.00 dB" && LoudnessTags.decibels(12.5) == "12.50 dB")
        #expect(LoudnessTags.fixed(0.5, 6) == "0.500000" && LoudnessTags.fixed(-0.0001, 2) == "0.00")
        #expect(LoudnessTags.q78(-14) == "-3584" && LoudnessTags.q78(1e9) == "32767" && LoudnessTags.q78(-.infinity) == "-32768")
        #expect(LoudnessTags.fixed(.nan, 2) == "nan")
    }

    @Test func playbackNeverAmplifiesNorClipsByThePeak() {
        let quiet = LoudnessTags(trackGain: 6, trackPeak: 0.3)
        #expect(quiet.playbackGain(album: false) == 1)
        let loud = LoudnessTags(trackGain: -6, trackPeak: 0.9, albumGain: -3, albumPeak: 0.95)
        #expect(abs(loud.playbackGain(album: false) - Float(pow(10, -0.3))) < 1e-6)
        #expect(abs(loud.playbackGain(album: true) - Float(pow(10, -0.15))) < 1e-6)
        let hot = LoudnessTags(trackGain: -1, trackPeak: 1.5)
        #expect(abs(hot.playbackGain(album: true) - Float(1 / 1.5)) < 1e-6)
        #expect(LoudnessTags(trackGain: .nan, trackPeak: nil).playbackGain(album: false) == 1)
    }
}

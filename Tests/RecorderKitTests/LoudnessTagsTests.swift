// Loudness tags without a server: a WAV's bext loudness rewritten in place, the gains as ReplayGain and
// RFC 7845 spell them, and the playback gain never amplifying nor clipping.
import CSndFile
import Foundation
import Testing
@testable import RecorderKit
import TestSupport

@Suite struct LoudnessTagsTests {
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

// Normalisation without a server: one gain, the same format, markers and bext kept (its loudness set to
// what the copy holds), the true-peak ceiling enforced, and no number that traps.
import CSndFile
import Foundation
import Testing
@testable import RecorderKit
import TestSupport

@Suite struct NormalizationTests {
    /// A 24-bit 48 kHz WAV of a 997 Hz sine at -26 dBFS peak with a bext chunk and two markers, as a
    /// recording writes one.
    private func recordedFile(_ path: String) throws -> [Int32] {
        let format = try StreamFormat(sampleRate: 48_000, channelCount: 1, sampleFormat: .int24)
        var info = BroadcastInfo(description: "desk mix", firstFrameTime: 1_700_000_000, sampleRate: 48_000)
        info.loudnessValue = -99
        let sheet = IXMLChunk.document(RecordingMetadata(project: "Night Shoot", scene: "12"),
                                       FileSession.firstFile(format: format, firstFrameTime: 0, preRollFrames: 0))
        let writer = try SoundFileWriter(path: path, format: format, broadcast: info, ixml: sheet)
        let samples = (0..<144_000).map { Int32((sin(2 * Double.pi * 997 * Double($0) / 48_000) * 0.05 * 8_388_607).rounded()) }
        var bytes: [UInt8] = []
        for sample in samples { bytes += [UInt8(truncatingIfNeeded: sample >> 16), UInt8(truncatingIfNeeded: sample >> 8), UInt8(truncatingIfNeeded: sample)] }
        for start in stride(from: 0, to: bytes.count, by: 3 * 4_410) {
            let piece = Array(bytes[start..<min(bytes.count, start + 3 * 4_410)])
            try piece.withUnsafeBytes { try writer.write(packets: $0) }
        }
        #expect(writer.close(markers: [(frame: 1_000, label: "one"), (frame: 96_000, label: "two")]))
        return samples
    }

    private func file(_ path: String) throws -> (OpaquePointer, SF_INFO) {
        var info = SF_INFO()
        let file = try #require(sf_open(path, Int32(SFM_READ), &info))
        return (file, info)
    }

    @Test func oneGainToTheTargetKeepingFormatMarkersAndBroadcastInfo() throws {
        let directory = try temporaryDirectory()
        let input = directory + "/in.wav", output = directory + "/out.wav"
        let samples = try recordedFile(input)
        let result = try Normalization.normalize(input, to: output, target: -20)
        #expect(abs(result.measuredLoudness - -29.05) < 0.1, "\(result.measuredLoudness)")
        #expect(abs(result.gain - (-20 - result.measuredLoudness)) < 1e-9 && result.loudness == -20)
        let after = try FileAnalysis.analyze(path: output)
        #expect(abs((after.integrated ?? 0) - -20) < 0.05, "\(after.integrated ?? 0)")
        #expect(after.markers.map(\.label) == ["one", "two"] && after.markers.map(\.frame) == [1_000, 96_000])
        let (copy, info) = try file(output)
        defer { sf_close(copy) }
        let (original, originalInfo) = try file(input)
        defer { sf_close(original) }
        #expect(info.format == originalInfo.format && info.samplerate == 48_000 && info.channels == 1 && info.frames == 144_000)
        let broadcast = try #require(BroadcastInfo.read(copy))
        #expect(broadcast.description == "desk mix" && broadcast.version == 2)
        #expect(broadcast.loudnessValue == -20 && broadcast.maxTruePeakLevel.map { abs($0 - (result.truePeak ?? 0)) < 0.01 } == true)
        #expect(broadcast.codingHistory.components(separatedBy: "A=PCM").count == 3, "\(broadcast.codingHistory)")
        // The take sheet as it was.
        #expect(try ixmlDocument(output)?.trimmingCharacters(in: .whitespaces) == ixmlDocument(input)?.trimmingCharacters(in: .whitespaces))
        #expect(try ixmlDocument(output)?.contains("<PROJECT>Night Shoot</PROJECT>") == true)
        // Each sample times the gain, rounded once (a 24-bit sample is libsndfile's int >> 8).
        var copied = [Int32](repeating: 0, count: 144_000)
        _ = copied.withUnsafeMutableBufferPointer { sf_readf_int(copy, $0.baseAddress, 144_000) }
        let factor = pow(10, result.gain / 20)
        let worst = zip(samples, copied).map { abs(Double($1 >> 8) - Double($0) * factor) }.max() ?? 99
        #expect(worst <= 0.5 + 1e-6, "a sample off by \(worst) LSB")
    }

    @Test func aTargetTheCeilingForbidsIsRefusedWithTheOneReachable() throws {
        let directory = try temporaryDirectory()
        let input = directory + "/in.wav"
        _ = try recordedFile(input)
        // The sine's true peak is -26 dBFS at -29 LUFS: -2 LUFS would put it at +1 dBTP.
        do {
            _ = try Normalization.normalize(input, to: directory + "/loud.wav", target: -2)
            Issue.record("a target above the ceiling was written")
        } catch {
            #expect(error.code == .loudnessUnreachable)
            #expect(error.message.contains("above the -1.0 dBTP ceiling; the loudest target within it is -4."), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/loud.wav"))
        #expect(throws: RecorderError.self) { try Normalization.normalize(input, to: input, target: -20, overwrite: true) }
        for bad in [Double.nan, .infinity, -.infinity, 1e300, -71, 0.5] {
            #expect(throws: RecorderError.self) { try Normalization.normalize(input, to: directory + "/x.wav", target: bad) }
            #expect(throws: RecorderError.self) {
                try Normalization.normalize(input, to: directory + "/x.wav", target: -20, truePeakCeiling: bad == -71 ? -31 : bad)
            }
        }
        // Silence has no loudness to bring anywhere.
        try writeWAV(directory + "/silence.wav", samples: [Int16](repeating: 0, count: 48_000), channels: 1)
        #expect(throws: RecorderError.self) { try Normalization.normalize(directory + "/silence.wav", to: directory + "/s.wav", target: -20) }
    }
}

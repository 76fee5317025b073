// `recorder analyze` on what libebur128's defaults got wrong: channels past the sixth and an LFE by
// position, files cut short, rates and channel counts libebur128 cannot measure, names with control
// characters and directories.
import Foundation
import Testing
import TestSupport

/// A 1 kHz sine at `level` dBFS in the channels listed (from 0), silence in the others, interleaved.
private func sineIn(_ channels: Set<Int>, of count: Int, level: Double = -20, seconds: Double = 3, rate: Int = 48_000) -> [Int16] {
    let amplitude = pow(10, level / 20) * 32_767
    var samples = [Int16](repeating: 0, count: Int(seconds * Double(rate)) * count)
    for frame in 0..<Int(seconds * Double(rate)) {
        let value = Int16((amplitude * sin(2 * .pi * 1_000 * Double(frame) / Double(rate))).rounded())
        for channel in channels { samples[frame * count + channel] = value }
    }
    return samples
}

/// ffmpeg's integrated loudness of `path` (its ebur128 filter weighs channels by the file's layout).
private func ffmpegIntegrated(_ path: String) async throws -> Double {
    let result = try await offThread {
        try runProcess("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128", "-f", "null", "-"])
    }
    let summary = try #require(result.stderr.components(separatedBy: "Summary:").last, "\(result.stderr)")
    let line = try #require(summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") })
    return try #require(Double(line.split(separator: " ").dropFirst().first { Double($0) != nil } ?? ""))
}

private func analysis(_ path: String) async throws -> AnalysisLine {
    let result = try await recorder(["analyze", "--json", path])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(path): \(result.stderr)")
    return try JSONDecoder().decode(AnalysisLine.self, from: Data(result.stdout.utf8))
}

@Suite(.timeLimit(.minutes(5)))
struct AnalyzeChannelTests {
    /// Every channel counts, by its place: with no layout in the file, 8 channels are 7.1 (the fourth the
    /// LFE, left out; the eighth a surround, +1.5 dB) as ffmpeg reads them; a layout the file states (a
    /// WAVE_FORMAT_EXTENSIBLE mask: 6.0, whose fourth channel is the back centre) is used; past eight
    /// channels each counts at 1.0: n equal channels read 10·log10(n) LU above one.
    @Test func channelsAreWeighedByTheirPlaceAsFFmpegDoes() async throws {
        let directory = try temporaryDirectory()
        let eighth = directory + "/eighth.wav", fourth = directory + "/fourth.wav"
        try writeWAV(eighth, samples: sineIn([7], of: 8), channels: 8, sampleRate: 48_000)
        try writeWAV(fourth, samples: sineIn([3], of: 8), channels: 8, sampleRate: 48_000)
        let surround = try #require(try await analysis(eighth).integrated_lufs, "channel 8 alone is not silence")
        let reference = try await ffmpegIntegrated(eighth)
        #expect(abs(surround - reference) < 0.1 && abs(surround - (-23.01 + 1.49)) < 0.1, "ours \(surround), ffmpeg \(reference)")
        #expect(try await analysis(fourth).integrated_lufs == nil, "the LFE of 7.1 is left out, as BS.1770 says")

        // 6.0 with its channel mask, written by ffmpeg: the sine in the back centre, fourth.
        let plain = directory + "/plain6.wav", stated = directory + "/six.wav"
        try writeWAV(plain, samples: sineIn([3], of: 6), channels: 6, sampleRate: 48_000)
        let made = try await offThread { [plain, stated] in
            try runProcess("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", plain,
                                      "-af", "channelmap=map=0|1|2|3|4|5:channel_layout=6.0", "-c:a", "pcm_s16le", stated])
        }
        #expect(made.status == 0, "\(made.stderr)")
        let back = try #require(try await analysis(stated).integrated_lufs, "a back centre stated by the file is counted")
        let backReference = try await ffmpegIntegrated(stated)
        #expect(abs(back - backReference) < 0.1 && abs(back - (-23.01 + 1.49)) < 0.1, "ours \(back), ffmpeg \(backReference)")
        #expect(try await analysis(plain).integrated_lufs == nil, "without the mask, the fourth of six is 5.1's LFE")

        for count in [10, 64] {
            let path = directory + "/all\(count).wav"
            try writeWAV(path, samples: sineIn(Set(0..<count), of: count, seconds: 1), channels: count, sampleRate: 48_000)
            let loudness = try #require(try await analysis(path).integrated_lufs)
            let expected = -23.01 + 10 * log10(Double(count))
            #expect(abs(loudness - expected) < 0.05, "\(count) channels: \(loudness) LUFS, expected \(expected)")
        }
    }

    /// A FLAC cut to half its bytes still says its whole length: the true peak is measured over what it
    /// holds (it read -inf, with a -6 dBFS sample peak, when the parallel scan's last segments failed).
    @Test func aCutFLACHasATruePeak() async throws {
        let directory = try temporaryDirectory()
        let source = directory + "/noise.wav", whole = directory + "/whole.flac", cut = directory + "/cut.flac"
        try writeWAV(source, samples: noiseSamples(count: 8_000 * 24).map { $0 / 2 }, channels: 1, sampleRate: 8_000)
        #expect(try runProcess("sox", [source, whole]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let result = try await recorder(["analyze", "--json", cut])
        let line = try JSONDecoder().decode(AnalysisLine.self, from: Data(result.stdout.utf8))
        #expect(line.duration_s > 5 && line.duration_s < 20 && line.missing_frames > 0, "\(result.stdout)")
        // The oracle: the same frames as a WAV (FLAC is lossless), whose analysis needs no fallback.
        let held = Int((line.duration_s * 8_000).rounded())
        let same = directory + "/same.wav"
        try writeWAV(same, samples: Array(noiseSamples(count: 8_000 * 24).map { $0 / 2 }.prefix(held)), channels: 1, sampleRate: 8_000)
        let reference = try await analysis(same)
        let truePeak = try #require(line.true_peak_dbtp[0], "true peak of a cut FLAC: \(result.stdout)")
        #expect(line.true_peak_dbtp == reference.true_peak_dbtp && line.sample_peak_dbfs == reference.sample_peak_dbfs,
                "cut FLAC \(truePeak) dBTP, the same frames as WAV \(reference.true_peak_dbtp)")
    }

    /// Rates and channel counts loudness is not measured at (below 8 kHz; more than 64 channels) still get
    /// their levels; the loudness is not measured, and the text says why rather than "silence".
    @Test func levelsAreGivenWhereLoudnessCannotBeMeasured() async throws {
        let directory = try temporaryDirectory()
        let slow = directory + "/slow.wav", wide = directory + "/wide.wav"
        try writeWAV(slow, samples: [Int16](repeating: 16_384, count: 40), channels: 1, sampleRate: 8)
        try writeWAV(wide, samples: sineIn(Set(0..<65), of: 65, seconds: 0.5), channels: 65, sampleRate: 48_000)
        for (path, channels) in [(slow, 1), (wide, 65)] {
            let line = try await analysis(path)
            #expect(line.channels == channels && line.integrated_lufs == nil && line.max_momentary_lufs == nil)
            #expect(line.sample_peak_dbfs.allSatisfy { $0 != nil } && line.rms_dbfs.allSatisfy { $0 != nil }, "\(path)")
            let text = try await recorder(["analyze", path])
            #expect(text.status == 0 && text.stdout.contains("integrated not measured (loudness is measured at 8000 to "),
                    "\(text.stdout)")
        }
        let slowLine = try await analysis(slow)
        #expect(slowLine.sample_peak_dbfs == [-6.02] && slowLine.rms_dbfs == [-6.02], "\(slowLine)")
    }

    /// A directory, and names holding control characters (an escape sequence, a newline): one line, the
    /// characters shown as \xHH, never sent to the terminal as they are.
    @Test func directoriesAndControlCharactersInNamesAreOneLine() async throws {
        let directory = try temporaryDirectory()
        let folder = try await recorder(["analyze", directory])
        #expect(folder.status == 66 && folder.stderr == "recorder: cannot read '\(directory)': it is a directory; give a sound file in it\n",
                "\(folder.stderr)")
        let hostile = directory + "/\u{1B}[2J\u{1B}[31mred\nline.wav"
        let missing = try await recorder(["analyze", hostile])
        #expect(missing.status == 66 && missing.stderr == "recorder: cannot read '\(directory)/\\x1B[2J\\x1B[31mred\\x0Aline.wav': "
                + "No such file or directory; check the path\n", "\(missing.stderr)")
        try writeWAV(hostile, samples: [Int16](repeating: 1_000, count: 4_410), channels: 1)
        let shown = try await recorder(["analyze", hostile])
        #expect(shown.status == 0 && shown.stdout.hasPrefix("\(directory)/\\x1B[2J\\x1B[31mred\\x0Aline.wav: 0.100 s"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}") && !shown.stderr.contains("\u{1B}"))
    }
}

// `recorder analyze` on generated files, cross-checked against sox's stats and ffmpeg's ebur128 filter.
import Foundation
import Testing
import TestSupport

/// One line of `recorder analyze --json`.
struct AnalysisLine: Decodable {
    let file: String
    let duration_s: Double
    let channels: Int
    let sample_rate: Int
    let sample_peak_dbfs: [Double?]
    let true_peak_dbtp: [Double?]
    let rms_dbfs: [Double?]
    let clipped_samples: [Int64]
    let dc_offset: [Double]
    let nonfinite_samples: [Int64]
    let missing_frames: Int64
    let integrated_lufs: Double?
    let loudness_range_lu: Double?
    let max_momentary_lufs: Double?
    let max_short_term_lufs: Double?
}

/// Speech-like mono: noise low-passed twice at about 3 kHz (speech has little energy near Nyquist, where
/// true-peak interpolators differ most), shaped into 4 Hz syllables, in phrases of irregular length and
/// level (1.3…4.1 s, 15 dB apart at most) separated by irregular pauses holding a −60 dB room floor.
private func speechLike(seconds: Int, rate: Int) -> [Int16] {
    let noise = noiseSamples(count: seconds * rate, seed: 42)
    // (phrase seconds, level, pause seconds), repeated.
    let phrases: [(Double, Double, Double)] = [(2.3, 1.0, 0.4), (3.7, 0.5, 0.9), (1.3, 1.4, 0.3), (4.1, 0.7, 1.2),
                                               (2.9, 0.25, 0.5), (1.9, 1.2, 0.7), (3.3, 0.6, 0.35)]
    var levels = [Double](repeating: 0.001, count: noise.count)
    var start = 0.0, index = 0
    while Int(start * Double(rate)) < noise.count {
        let (length, level, pause) = phrases[index % phrases.count]
        let from = Int(start * Double(rate)), to = min(noise.count, Int((start + length) * Double(rate)))
        if from < to { for i in from..<to { levels[i] = level } }
        start += length + pause
        index += 1
    }
    let a = 1 - exp(-2 * Double.pi * 3_000 / Double(rate))
    var first = 0.0, second = 0.0
    return noise.enumerated().map { index, sample in
        first += a * (Double(sample) - first)
        second += a * (first - second)
        let t = Double(index) / Double(rate)
        let envelope = levels[index] > 0.001 ? levels[index] * (0.2 + 0.8 * pow(sin(.pi * t * 4), 2)) : 0.001
        return Int16(max(-32_768, min(32_767, (second * envelope).rounded())))
    }
}

/// ffmpeg's ebur128 summary: integrated, LRA, true peak.
private func ffmpegLoudness(_ path: String) async throws -> (integrated: Double, range: Double, peak: Double) {
    let result = try await offThread {
        try runProcess("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"])
    }
    let summary = try #require(result.stderr.components(separatedBy: "Summary:").last)
    func value(_ label: String) throws -> Double {
        let line = try #require(summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) })
        return try #require(Double(line.split(separator: " ").dropFirst().first { Double($0) != nil } ?? ""))
    }
    return (try value("I:"), try value("LRA:"), try value("Peak:"))
}

/// sox's `stats`: per channel, "Pk lev dB" and "RMS lev dB" (the channel columns, or Overall for mono).
private func soxLevels(_ path: String, channels: Int) async throws -> (peak: [Double], rms: [Double]) {
    let result = try await offThread { try runProcess("sox", [path, "-n", "stats"]) }
    func row(_ label: String) throws -> [Double] {
        let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix(label) })
        let numbers = line.dropFirst(label.count).split(separator: " ").compactMap { Double($0) }
        return channels == 1 ? [numbers[0]] : Array(numbers.dropFirst())
    }
    return (try row("Pk lev dB"), try row("RMS lev dB"))
}

// The time limit catches a hang: the test command runs these suites beside ThreadSanitizer's, every
// analysis a debug build's CPU work on two shared cores (a minute was not enough there).
@Suite(.timeLimit(.minutes(5)))
struct AnalyzeTests {
    @Test func filesAreMeasuredLikeSoxAndFFmpegAndAnUnreadableOneExits66() async throws {
        let directory = try temporaryDirectory()
        let programme = directory + "/ebu3341-case5.wav"
        try writeWAV(programme, samples: toneSamples([(20, -26), (20.1, -20), (20, -26)], rate: 48_000, channels: 2),
                     channels: 2, sampleRate: 48_000)
        let speech = directory + "/speech.wav"
        try writeWAV(speech, samples: speechLike(seconds: 60, rate: 44_100), channels: 1)
        // Real speech: espeak-ng's voice (22.05 kHz mono), and the same made 48 kHz stereo by sox.
        let spoken = directory + "/spoken.wav", spoken48 = directory + "/spoken-48k.wav"
        let text = "Recording on Linux should be as dependable as recording on a Mac. Every frame the server "
            + "delivered is in the file, even after a crash. The meters mean what the README says, and bad input "
            + "gets a one line error that says what to do. Loudness is measured as the European Broadcasting Union "
            + "recommends, with gating, so that the pauses between sentences do not pull the programme level down."
        let voiced = try await offThread { try runProcess("espeak-ng", ["-w", spoken, "-s", "150", text]) }
        #expect(voiced.status == 0, "\(voiced.stderr)")
        let converted = try await offThread { try runProcess("sox", [spoken, "-r", "48000", "-c", "2", spoken48]) }
        #expect(converted.status == 0, "\(converted.stderr)")
        // 0.25 of full scale throughout (the DC offset), with 10 samples at +32 767 and 5 at −32 768.
        var clipping = [Int16](repeating: 8_192, count: 44_100)
        for index in 0..<10 { clipping[1_000 + index * 100] = 32_767 }
        for index in 0..<5 { clipping[20_000 + index * 100] = -32_768 }
        let clipped = directory + "/clipped.wav"
        try writeWAV(clipped, samples: clipping, channels: 1)

        let result = try await recorder(["analyze", "--json", programme, directory + "/missing.wav", speech, spoken,
                                         spoken48, clipped])
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("recorder: cannot read '\(directory)/missing.wav': "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        let lines = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(AnalysisLine.self, from: Data($0.utf8)) }
        #expect(lines.map(\.file) == [programme, speech, spoken, spoken48, clipped])

        for (line, channels) in zip(lines.prefix(4), [2, 1, 1, 2]) {
            let ffmpeg = try await ffmpegLoudness(line.file)
            let integrated = try #require(line.integrated_lufs)
            let range = try #require(line.loudness_range_lu)
            let truePeak = try #require(line.true_peak_dbtp.compactMap { $0 }.max())
            #expect(abs(integrated - ffmpeg.integrated) <= 0.1, "\(line.file): \(integrated) vs ffmpeg \(ffmpeg.integrated)")
            #expect(abs(range - ffmpeg.range) <= 0.5, "\(line.file): LRA \(range) vs ffmpeg \(ffmpeg.range)")
            #expect(abs(truePeak - ffmpeg.peak) <= 0.3, "\(line.file): true peak \(truePeak) vs ffmpeg \(ffmpeg.peak)")
            let sox = try await soxLevels(line.file, channels: channels)
            for channel in 0..<channels {
                #expect(abs((line.sample_peak_dbfs[channel] ?? 0) - sox.peak[channel]) <= 0.05)
                #expect(abs((line.rms_dbfs[channel] ?? 0) - sox.rms[channel]) <= 0.05)
            }
            print("analyze \(line.file): I \(integrated) (ffmpeg \(ffmpeg.integrated)), LRA \(range) (ffmpeg \(ffmpeg.range)), "
                  + "TP \(truePeak) (ffmpeg \(ffmpeg.peak))")
        }
        #expect(abs((lines[0].integrated_lufs ?? 0) - -23) <= 0.1, "EBU 3341 case 5")
        #expect(lines[0].duration_s == 60.1 && lines[0].channels == 2 && lines[0].sample_rate == 48_000)
        #expect(lines[2].duration_s > 20 && lines[2].sample_rate == 22_050, "espeak-ng spoke: \(lines[2])")
        #expect(lines[4].clipped_samples == [15])
        #expect(abs(lines[4].dc_offset[0] - (8_192.0 * 44_085 + 32_767 * 10 - 32_768 * 5) / 44_100 / 32_768) < 1e-6)
    }

    @Test func silenceHasUndefinedLoudnessAndLevels() async throws {
        let path = try temporaryDirectory() + "/silence.wav"
        try writeWAV(path, samples: [Int16](repeating: 0, count: 44_100), channels: 1)
        let result = try await recorder(["analyze", "--json", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"sample_peak_dbfs\": [null], \"true_peak_dbtp\": [null], \"rms_dbfs\": [null]"))
        #expect(result.stdout.contains("\"integrated_lufs\": null, \"loudness_range_lu\": null, \"max_momentary_lufs\": null, \"max_short_term_lufs\": null, \"loudness_not_measured\": null, \"markers\": []}"))
        let text = try await recorder(["analyze", path])
        #expect(text.stdout.contains("integrated undefined (silence), range undefined"))
    }
}

/// A 32-bit float WAV (WAVE_FORMAT_IEEE_FLOAT) of interleaved `samples`.
private func writeFloatWAV(_ path: String, samples: [Float], channels: Int, rate: Int = 48_000) throws {
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let dataBytes = samples.count * 4
    var bytes = Array("RIFF".utf8) + le32(4 + 26 + 8 + dataBytes) + Array("WAVE".utf8)
    bytes += Array("fmt ".utf8) + le32(18) + le16(3) + le16(channels) + le32(rate) + le32(rate * channels * 4)
        + le16(channels * 4) + le16(32) + le16(0)
    bytes += Array("data".utf8) + le32(dataBytes)
    for sample in samples { bytes += le32(Int(sample.bitPattern)) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Issue 12, point 4: NaN and infinite samples, and files that end early.
// The time limit catches a hang: the test command runs these suites beside ThreadSanitizer's, every
// analysis a debug build's CPU work on two shared cores (a minute was not enough there).
@Suite(.timeLimit(.minutes(5)))
struct HostileFileTests {
    @Test func nanAndInfiniteSamplesAreCountedLeftOutAndTheJSONStaysValid() async throws {
        let directory = try temporaryDirectory()
        // A −9 dBFS 1 kHz sine, 5 s of 48 kHz stereo; channel 1 gets one NaN, channel 2 a +inf and a −inf.
        let rate = 48_000, frames = rate * 5
        let amplitude = Float(pow(10, -9.0 / 20))
        var samples = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = amplitude * Float(sin(2 * Double.pi * 1_000 * Double(frame) / Double(rate)))
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        let clean = directory + "/clean.wav", hostile = directory + "/hostile.wav"
        try writeFloatWAV(clean, samples: samples, channels: 2)
        samples[2 * 1_000] = .nan
        samples[2 * 2_000 + 1] = .infinity
        samples[2 * 3_000 + 1] = -.infinity
        try writeFloatWAV(hostile, samples: samples, channels: 2)

        let result = try await recorder(["analyze", "--json", clean, hostile])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        for line in lines {
            // Valid for Python's json module, which refuses NaN and Infinity when asked to be strict.
            let check = try runProcess("python3", ["-c", "import json,sys; json.loads(sys.argv[1], parse_constant=lambda c: sys.exit('bad constant ' + c))", line])
            #expect(check.status == 0, "\(check.stderr): \(line)")
        }
        let decoded = try lines.map { try JSONDecoder().decode(AnalysisLine.self, from: Data($0.utf8)) }
        let (reference, measured) = (decoded[0], decoded[1])
        #expect(reference.nonfinite_samples == [0, 0])
        #expect(measured.nonfinite_samples == [1, 2])
        // One sample out of 240 000 left out: the statistics are the clean file's.
        for channel in 0..<2 {
            let rms = try #require(measured.rms_dbfs[channel]), cleanRMS = try #require(reference.rms_dbfs[channel])
            #expect(abs(rms - cleanRMS) < 0.01 && abs(rms - (-12.01)) < 0.02, "RMS \(rms)")
            #expect(measured.sample_peak_dbfs[channel] == reference.sample_peak_dbfs[channel])
            let truePeak = try #require(measured.true_peak_dbtp[channel])
            #expect(abs(truePeak - (-9.0)) < 0.1, "true peak \(truePeak)")
        }
        let loudness = try #require(measured.integrated_lufs), cleanLoudness = try #require(reference.integrated_lufs)
        #expect(abs(loudness - cleanLoudness) < 0.05, "\(loudness) against \(cleanLoudness)")

        let text = try await recorder(["analyze", hostile])
        #expect(text.status == 0)
        #expect(text.stdout.contains("ch 1: sample peak -9.0 dBFS") && text.stdout.contains(", 1 NaN/infinite samples left out"), "\(text.stdout)")
        #expect(text.stdout.contains(", 2 NaN/infinite samples left out"))
        #expect(!text.stdout.contains("nan") && !text.stdout.contains("inf dB") && !text.stdout.contains("undefined (silence)"), "\(text.stdout)")
    }

    @Test func aFileThatEndsBeforeItsHeaderSaysIsAnalysedWithAWarning() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/cut.wav"
        try writeWAV(path, samples: sineSamples(frames: 44_100 * 2, frequency: 1_000, amplitudes: [0.5]), channels: 1)
        // Cut off the last second (88 200 bytes), as a copy interrupted halfway would.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: try handle.seekToEnd() - 88_200)
        try handle.close()
        let result = try await recorder(["analyze", "--json", path])
        #expect(result.status == 0)
        #expect(result.stderr == "recorder: warning: '\(path)' ends 44100 frames (1.000 s) before its header says; "
                + "what it holds was analysed (a truncated copy or an interrupted recording?)\n")
        let line = try JSONDecoder().decode(AnalysisLine.self, from: Data(result.stdout.utf8))
        #expect(line.missing_frames == 44_100 && abs(line.duration_s - 1) < 1e-9)
    }

    /// A FLAC whose STREAMINFO does not say how long it is (total 0, as an encoder writing to a pipe
    /// leaves it; libsndfile then reports SF_COUNT_MAX frames), with audio and with none: analysed whole,
    /// as the same FLAC with its length is (a sum on that count once trapped the true-peak scan).
    @Test func aFLACThatDoesNotSayItsLengthIsAnalysedWhole() async throws {
        let directory = try temporaryDirectory()
        let source = directory + "/noise.wav", full = directory + "/full.flac"
        let streamed = directory + "/streamed.flac", empty = directory + "/empty.flac"
        try writeWAV(source, samples: noiseSamples(count: 132_300), channels: 1)
        #expect(try runProcess("sox", [source, full]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))
        // STREAMINFO's 36-bit total: the low nibble of byte 21, then bytes 22…25.
        func total(_ bytes: [UInt8]) -> Int { bytes[22...25].reduce(Int(bytes[21] & 0x0F)) { $0 << 8 | Int($1) } }
        #expect(bytes.count > 26 && bytes[0..<4] == [0x66, 0x4C, 0x61, 0x43] && total(bytes) == 132_300)
        bytes[21] &= 0xF0
        for index in 22...25 { bytes[index] = 0 }
        #expect(total(bytes) == 0)
        try Data(bytes).write(to: URL(fileURLWithPath: streamed))
        let made = try runProcess("sox", ["-n", "-r", "44100", "-c", "1", "-b", "16", "-t", "flac", empty, "trim", "0", "0"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(total([UInt8](try Data(contentsOf: URL(fileURLWithPath: empty)))) == 0)

        let result = try await recorder(["analyze", "--json", full, streamed, empty])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(AnalysisLine.self, from: Data($0.utf8)) }
        try #require(lines.count == 3)
        let (known, unknown, nothing) = (lines[0], lines[1], lines[2])
        #expect(unknown.duration_s == 3 && known.duration_s == 3 && unknown.missing_frames == 0)
        #expect(unknown.sample_peak_dbfs == known.sample_peak_dbfs && unknown.true_peak_dbtp == known.true_peak_dbtp)
        #expect(unknown.rms_dbfs == known.rms_dbfs && unknown.integrated_lufs == known.integrated_lufs)
        #expect(known.true_peak_dbtp[0] != nil)
        #expect(nothing.duration_s == 0 && nothing.missing_frames == 0 && nothing.rms_dbfs == [nil] && nothing.true_peak_dbtp == [nil])
    }

    /// `analyze -` reads standard input: redirected from a file, any type, measured exactly as the file
    /// (25 s, so the true peak's parallel 10 s segments each read the file through a reader of their
    /// own: libsndfile read "-" as a pipe, a FLAC so gave 0.09 s of 1 s and a CAF nothing); from a pipe,
    /// AU and WAV the same, and FLAC, which libsndfile cannot decode from a pipe, one line saying what to do.
    @Test func standardInputIsMeasuredAsTheFileFromARedirectAndFromAPipe() async throws {
        let directory = try temporaryDirectory()
        let source = directory + "/noise.wav"
        try writeWAV(source, samples: noiseSamples(count: 1_102_500, seed: 9), channels: 1)
        let reference = try await recorder(["analyze", "--json", source])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try JSONDecoder().decode(AnalysisLine.self, from: Data(reference.stdout.utf8))
        #expect(expected.duration_s == 25)
        let program = try builtProduct("recorder")
        for type in ["flac", "caf", "wav"] {
            let file = directory + "/copy." + type
            #expect(try runProcess("sox", [source, file]).status == 0)
            for (how, command) in [("redirected", "'\(program)' analyze --json - < '\(file)'"),
                                   ("piped", "sox -V1 '\(source)' -t \(type == "wav" ? "wav" : "au") - | '\(program)' analyze --json -")]
            where how == "redirected" || type != "caf" {
                let result = try runProcess("bash", ["-c", command])
                #expect(result.status == 0 && result.stderr.isEmpty, "\(type) \(how): \(result.stderr)")
                let line = try JSONDecoder().decode(AnalysisLine.self, from: Data(result.stdout.utf8))
                #expect(line.file == "-" && line.duration_s == expected.duration_s && line.missing_frames == 0
                        && line.sample_peak_dbfs == expected.sample_peak_dbfs && line.true_peak_dbtp == expected.true_peak_dbtp
                        && line.rms_dbfs == expected.rms_dbfs && line.integrated_lufs == expected.integrated_lufs,
                        "\(type) \(how): \(result.stdout)")
            }
        }
        let flac = try runProcess("bash", ["-c", "sox '\(source)' -t flac - | '\(program)' analyze -"])
        #expect(flac.status == 66 && flac.stderr == "recorder: cannot read standard input: flac decoder lost sync; from a pipe "
                + "libsndfile reads AU, WAV and Ogg: send one of those (sox … -t au -), or redirect a file (< take.flac)\n",
                "\(flac.stderr)")
    }

    /// Every bad file gives valid JSON or a one-line error: empty, garbage, a header only, all NaN, silent.
    @Test func everyOutputIsValidJSONForEveryBadFile() async throws {
        let directory = try temporaryDirectory()
        let nanFile = directory + "/allnan.wav", silent = directory + "/silent.wav", headerOnly = directory + "/header.wav"
        try writeFloatWAV(nanFile, samples: [Float](repeating: .nan, count: 4_800), channels: 1)
        try writeFloatWAV(silent, samples: [Float](repeating: 0, count: 4_800), channels: 1)
        try writeFloatWAV(headerOnly, samples: [], channels: 2)
        try Data().write(to: URL(fileURLWithPath: directory + "/empty.wav"))
        try Data("not a sound file at all".utf8).write(to: URL(fileURLWithPath: directory + "/garbage.wav"))
        let files = [nanFile, silent, headerOnly, directory + "/empty.wav", directory + "/garbage.wav"]
        let result = try await recorder(["analyze", "--json"] + files)
        #expect(result.status == 66)  // two files cannot be read; the others are analysed
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.stdout)")
        for line in lines {
            let check = try runProcess("python3", ["-c", "import json,sys; json.loads(sys.argv[1], parse_constant=lambda c: sys.exit('bad constant ' + c))", line])
            #expect(check.status == 0, "\(check.stderr): \(line)")
        }
        let allNaN = try JSONDecoder().decode(AnalysisLine.self, from: Data(lines[0].utf8))
        #expect(allNaN.nonfinite_samples == [4_800] && allNaN.rms_dbfs == [nil] && allNaN.integrated_lufs == nil)
        #expect(result.stderr.split(separator: "\n").count == 2, "\(result.stderr)")
    }
}

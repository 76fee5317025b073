// `recorder peaks` read back by a reader written from audiowaveform's format description, its pairs
// equal to the min/max computed here from the samples.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

@Suite struct PeakFileTests {
    static let rate = 44_100

    /// 3 s of stereo: noise in channel 1, a sine in channel 2 (different, so a mix or a swap shows).
    static func samples() -> [Int16] {
        let noise = noiseSamples(count: 3 * rate, seed: 7)
        let sine = sineSamples(frames: 3 * rate, frequency: 220, sampleRate: Double(rate), amplitudes: [0.7])
        return (0..<(3 * rate)).flatMap { [noise[$0] / 2, sine[$0]] }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let file: String
        let version: Int
        let bits: Int
        let perPixel: Int
        let mixed: Bool
        var testDescription: String { arguments.joined(separator: " ") + " → " + file }
    }

    static let cases: [Case] = [
        Case(arguments: ["--split-channels", "-z", "300"], file: "a.dat", version: 2, bits: 16, perPixel: 300, mixed: false),
        Case(arguments: ["--split-channels", "-z", "512", "-b", "8"], file: "b.dat", version: 2, bits: 8, perPixel: 512, mixed: false),
        Case(arguments: ["-z", "256"], file: "c.dat", version: 2, bits: 16, perPixel: 256, mixed: true),
        Case(arguments: ["--data-version", "1", "-b", "8"], file: "d.dat", version: 1, bits: 8, perPixel: 256, mixed: true),
        Case(arguments: ["--pixels-per-second", "100", "--split-channels"], file: "e.json", version: 2, bits: 16, perPixel: 441, mixed: false),
        Case(arguments: ["--data-version", "1", "-z", "1000"], file: "f.json", version: 1, bits: 16, perPixel: 1_000, mixed: true),
    ]

    @Test(arguments: cases)
    func thePairsAreTheSamplesMinAndMax(_ example: Case) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let samples = Self.samples()
        try writeWAV(folder + "/in.wav", samples: samples, channels: 2, sampleRate: Self.rate)
        let out = folder + "/" + example.file
        let result = try runProcess(try builtProduct("recorder"), ["peaks", folder + "/in.wav", "-o", out] + example.arguments,
                                    environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let data = example.file.hasSuffix(".dat") ? try PeakData(dat: out) : try PeakData(json: out)
        #expect(data.version == example.version && data.bits == example.bits)
        #expect(data.sampleRate == Self.rate && data.samplesPerPixel == example.perPixel)
        #expect(data.channels == (example.mixed ? 1 : 2))
        let expected = expectedPairs(samples, channels: 2, perPixel: example.perPixel, bits: example.bits, mixed: example.mixed)
        #expect(data.length == expected.count)
        #expect(data.pairs == expected)
    }

    @Test func badArgumentsAreOneLine() throws {
        let recorder = try builtProduct("recorder")
        for arguments in [["peaks", "/nonexistent.wav", "-o", "/tmp/x.dat"], ["peaks", "x.wav", "-o", "x.png"],
                          ["peaks", "x.wav", "-o", "x.dat", "-b", "12"], ["peaks", "x.wav", "-o", "x.dat", "-z", "0"],
                          ["peaks", "x.wav", "-o", "x.dat", "--data-version", "1", "--split-channels"]] {
            let result = try runProcess(recorder, arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 64 || result.status == 66, "\(arguments): \(result.status)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}

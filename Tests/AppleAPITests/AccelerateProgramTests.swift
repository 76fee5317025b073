// The vDSP example (Examples/AcceleratePrograms), real programs' shapes built in Swift 5 and Swift 6
// language modes, run on a known clip: every number it prints and every vector it writes checked against
// numpy (Tests/Scripts/vdsp_oracle.py: Apple's documented conventions, computed in double).
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct AccelerateProgramTests {
    /// Tests/Scripts/vdsp_oracle.py.
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/vdsp_oracle.py").path

    /// 4 096 frames at 44.1 kHz: 0.3 of a 1 033.6 Hz sine (bin 96 of 4 096), 0.1 of 2 750 Hz and a small
    /// deterministic noise, with a DC offset of 0.01, as 16-bit PCM.
    static func clip() -> [Int16] {
        var seed: UInt32 = 1
        return (0..<4_096).map { index in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let t = Double(index) / 44_100
            let noise = Double(seed >> 8) / Double(1 << 24) - 0.5
            let value = 0.3 * sin(2 * .pi * 44_100 * 96 / 4_096 * t) + 0.1 * sin(2 * .pi * 2_750 * t) + 0.01 * noise + 0.01
            return Int16((value * 32_768).rounded())
        }
    }

    @Test(arguments: ["accelerate-programs-swift5", "accelerate-programs-swift6"])
    func vDSPProgramsRunAsOnApple(_ product: String) async throws {
        let directory = try temporaryDirectory()
        let clip = directory + "/clip.wav"
        try writeWAV(clip, samples: Self.clip(), channels: 1)
        let program = try builtProduct(product)
        let result = try await offThread { try runProcess(program, [clip, directory]) }
        #expect(result.status == 0, "\(result.stderr)")
        let reference = try await offThread { try runProcess("python3", [Self.oracle, clip, directory]) }
        #expect(reference.status == 0, "\(reference.stderr)")
        let oracle = try #require(try JSONSerialization.jsonObject(with: Data(reference.stdout.utf8)) as? [String: Any], "\(reference.stdout)")
        let printed = Dictionary(result.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let space = line.lastIndex(of: " ") else { return nil }
            return (String(line[..<space]), String(line[line.index(after: space)...]))
        }, uniquingKeysWith: { first, _ in first })
        func value(_ key: String) -> Double? { printed[key].flatMap(Double.init) }
        func expected(_ key: String) -> Double { (oracle[key] as? NSNumber)?.doubleValue ?? .nan }
        // The meter: float sums of 4 096 samples, within a few parts in a million.
        for key in ["rms", "peak", "mean"] {
            let got = try #require(value(key), "\(key) not printed: \(result.stdout)")
            #expect(abs(got - expected(key)) <= 2e-6 * max(1, abs(expected(key))), "\(key): \(got) against \(expected(key))")
        }
        // The tuner finds the 1 kHz sine's bin, 96: 1 033.6 Hz.
        let bin = try #require(oracle["loudest_bin"] as? Int)
        #expect(bin == 96)
        #expect(result.stdout.contains("loudest bin \(bin): 1033.59375 Hz"), "\(result.stdout)")
        #expect(result.stdout.contains("no setup for 100 points: true"), "\(result.stdout)")
        // Every vector within float precision of numpy's double (relative to the vector's largest value).
        let errors = try #require(oracle["errors"] as? [String: Double], "\(oracle)")
        #expect(errors.count == 13, "\(errors.keys.sorted())")
        for (name, error) in errors where name != "pixels_db" {
            #expect(error <= 1e-5, "\(name): \(error) of its largest value from numpy's")
        }
        #expect(try #require(errors["pixels_db"]) <= 1e-3, "waveform peaks: \(errors["pixels_db"]!) dB from numpy's")
        // The overlay agrees with the C calls and with numpy.
        let overlay = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("overlay rms ") })
        let fields = overlay.split(separator: " ")
        #expect(fields.count == 5 && Double(fields[2]).map { abs($0 - expected("rms")) <= 2e-6 } == true
                && Double(fields[4]).map { abs($0 - expected("peak")) <= 2e-6 } == true, "\(overlay)")
        let loudest = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("overlay loudest sample ") })
        let decibels = try #require(Double(loudest.split(separator: " ")[3]))
        #expect(abs(decibels - expected("loudest_db")) <= 1e-4, "\(loudest)")
    }
}

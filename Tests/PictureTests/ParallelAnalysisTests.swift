// `analyze -j N`: several files at once, the results printed in the order given and equal to one at a time.
import Foundation
import Testing
import TestSupport

@Suite struct ParallelAnalysisTests {
    @Test func resultsComeInTheOrderGivenAndEqualOneAtATime() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Longest first, so that the files finish in another order than they are given.
        var paths: [String] = []
        for (index, seconds) in [6, 1, 4, 2, 3, 1].enumerated() {
            let path = folder + "/f\(index).wav"
            let samples = sineSamples(frames: seconds * 48_000, frequency: 200 + 100 * Double(index), sampleRate: 48_000,
                                      amplitudes: [0.1 * Double(index + 1), 0.05])
            try writeWAV(path, samples: samples, channels: 2, sampleRate: 48_000)
            paths.append(path)
        }
        paths.insert(folder + "/missing.wav", at: 3)
        let serial = try runRecorder(["analyze", "--json", "--overs", "-j", "1"] + paths + ["--plot", folder + "/{}-a.svg"])
        let parallel = try runRecorder(["analyze", "--json", "--overs", "-j", "4"] + paths + ["--plot", folder + "/{}-b.svg"])
        #expect(serial.status == 66 && parallel.status == 66)
        #expect(serial.stderr == parallel.stderr && serial.stderr.contains("missing.wav"))
        let lines = parallel.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines.map { $0.contains("\"file\": \"\(folder)/f") } == [Bool](repeating: true, count: 6))
        #expect(lines.enumerated().allSatisfy { $0.element.contains("/f\($0.offset).wav\"") })
        #expect(serial.stdout.replacingOccurrences(of: "-a.svg", with: "-b.svg") == parallel.stdout)
        // The same pictures (cairo numbers its surfaces across a process: the ids aside).
        func drawing(_ path: String) throws -> String {
            try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: #"surface[0-9]+"#, with: "surface", options: .regularExpression)
        }
        for index in 0..<6 { #expect(try drawing(folder + "/f\(index)-a.svg") == drawing(folder + "/f\(index)-b.svg")) }
    }
}

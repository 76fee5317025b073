// `recorder play --rate/--pitch`: the summary's length is what was heard, the JSON positions stay in the
// file's time, and a value out of range is one line.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct PlayRateTests {
    /// The seconds in `played NAME: S s to SINK`.
    private static func reportedSeconds(_ stderr: String) -> Double? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("played ") }),
              let match = line.firstMatch(of: #/: (\d+\.\d{3}) s to /#) else { return nil }
        return Double(match.1)
    }

    @Test func aTwoSecondToneAtRateTwoIsReportedAsTheSecondHeardWithPositionsInTheFile() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/tone.wav"
            try writeWAV(path, samples: sineSamples(frames: 88_200, frequency: 1_000, amplitudes: [0.5]), channels: 1)
            let fast = try await recorder(["play", path, "--rate", "2", "--levels-json", "-d", PrivateServer.monoSink],
                                          server: server)
            #expect(fast.status == 0, "\(fast.stderr)")
            let seconds = try #require(Self.reportedSeconds(fast.stderr), "\(fast.stderr)")
            #expect(abs(seconds - 1) <= 0.1, "reported \(seconds) s")
            // Each buffer heard stands for about twice its frames of the file, up to the file's end.
            let lines = try levelLines(fast.stdout)
            #expect(abs(Int(lines.last?.frames ?? 0) - 88_200) <= 4_410, "last position \(lines.last?.frames ?? 0)")
            #expect(lines.count >= 9 && lines.count <= 12, "\(lines.count) buffers heard")
            #expect(lines.allSatisfy { abs($0.peak_db[0] - -6.02) < 0.5 }, "\(lines.map { $0.peak_db[0] })")

            let high = try await recorder(["play", path, "--pitch", "1200", "-d", PrivateServer.monoSink], server: server)
            #expect(high.status == 0, "\(high.stderr)")
            #expect(abs((Self.reportedSeconds(high.stderr) ?? 0) - 2) <= 0.1, "\(high.stderr)")
        }
    }

    @Test(arguments: [["--rate", "0"], ["--rate", "nan"], ["--rate", "1e15"], ["--rate", "-1"],
                      ["--pitch", "1e9"], ["--pitch", "-2401"], ["--pitch", "inf"]])
    func aRateOrPitchOutOfRangeIsOneLine(_ option: [String]) async throws {
        let result = try await recorder(["play", "nothing.wav"] + option)
        #expect(result.status == 64 && result.stderr.contains("invalid \(option[0]) "), "\(result.stderr)")
    }
}

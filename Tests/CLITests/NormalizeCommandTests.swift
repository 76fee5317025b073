// `recorder normalize` (issue 28, point 5): one gain to the target, measured afterwards by ffmpeg's
// ebur128 filter as well as by `analyze`; the format kept; a target the ceiling forbids refused in one line.
import Foundation
import Testing
import TestSupport

/// ffmpeg's integrated loudness of `path` (its ebur128 filter's summary).
func ffmpegIntegratedLoudness(_ path: String) throws -> Double? {
    let result = try runProcess("ffmpeg", ["-nostats", "-hide_banner", "-i", path, "-af", "ebur128", "-f", "null", "-"])
    let summary = result.stderr.components(separatedBy: "Summary:").last ?? ""
    let line = summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") }
    return line.flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") }
}

@Suite(.timeLimit(.minutes(5)))
struct NormalizeCommandTests {
    @Test func normalizeReachesTheTargetWithOneGainAndRefusesWhatTheCeilingForbids() async throws {
        let directory = try temporaryDirectory()
        let input = directory + "/quiet.wav", output = directory + "/level.wav"
        _ = try runProcess("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "24", input, "synth", "3", "sine", "997", "vol", "0.03"])
        let result = try await recorder(["normalize", input, output, "--target", "-16"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(output): -16.0 LUFS ("), "\(result.stdout)")
        let analysis = try await recorder(["analyze", "--json", output])
        let measured = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
        #expect(abs(((measured["integrated_lufs"] as? NSNumber)?.doubleValue ?? 0) - -16) <= 0.1, "\(measured)")
        let ffmpeg = try #require(try ffmpegIntegratedLoudness(output))
        #expect(abs(ffmpeg - -16) <= 0.1, "ffmpeg measured \(ffmpeg) LUFS")
        for flag in ["-r", "-c", "-b", "-s"] {
            #expect(try runProcess("soxi", [flag, output]).stdout == runProcess("soxi", [flag, input]).stdout, "soxi \(flag)")
        }
        // A stereo sine at -30.5 dBFS peak reads -30.5 LUFS: -1 LUFS would lift its true peak to -1 dBTP,
        // above a -3 dBTP ceiling.
        let loud = directory + "/loud.wav"
        let refused = try await recorder(["normalize", input, loud, "--target", "-1", "--true-peak", "-3"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("recorder: cannot bring '\(input)' to -1.0 LUFS with one gain: its true peak would reach ")
                && refused.stderr.contains("above the -3.0 dBTP ceiling; the loudest target within it is "), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: loud))
        // The target it names is reachable.
        let named = try #require(refused.stderr.components(separatedBy: "within it is ").last?.split(separator: " ").first)
        let reached = try await recorder(["normalize", input, loud, "--target", String(named), "--true-peak", "-3"])
        #expect(reached.status == 0, "\(reached.stderr)")
        let peaks = try #require(try JSONSerialization.jsonObject(with: Data(try await recorder(["analyze", "--json", loud]).stdout.utf8))
                                 as? [String: Any])
        #expect(((peaks["true_peak_dbtp"] as? [NSNumber]) ?? []).allSatisfy { $0.doubleValue <= -3 }, "\(peaks)")
        let again = try await recorder(["normalize", input, output, "--target", "-16"])
        #expect(again.status == 73 && again.stderr.contains("already exists"), "\(again.stderr)")
        let bad = try await recorder(["normalize", input, output, "--target", "nan", "--force"])
        #expect(bad.status == 64 && bad.stderr.hasPrefix("recorder: invalid target nan LUFS: use -70 to 0 LUFS"), "\(bad.stderr)")
    }
}

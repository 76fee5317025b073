// `--meter` in `recorder meter` and `recorder record`: the selected meter's values in --levels-json and on
// the terminal, on the private server's 1 kHz sine at −6.02 dBFS.
import Foundation
import Testing
import TestSupport

/// The level lines of `--levels-json` output as JSON objects.
private func jsonLines(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(separator: "\n").filter { !$0.hasPrefix("{\"event\"") }.map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
}

private func number(_ line: [String: Any], _ key: String) -> Double? { line[key] as? Double }
private func first(_ line: [String: Any], _ key: String) -> Double? { (line[key] as? [Any])?.first as? Double }

@Suite(.timeLimit(.minutes(3)))
struct MeterCommandTests {
    /// Silence has one spelling in the JSON: null, in the level arrays and every meter's values, never
    /// −160 beside null as one line once had.
    @Test(arguments: ["", "peak", "vu", "ppm1", "ppm2", "loudness"])
    func silenceIsNullInTheJSON(meter: String) async throws {
        try await withPrivateServer { server in
            let result = try await recorder(["meter", "--source", PrivateServer.monoSink + ".monitor", "--duration", "0.5",
                                             "--levels-json"] + (meter.isEmpty ? [] : ["--meter", meter]), server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try jsonLines(result.stdout)
            #expect(lines.count >= 4)
            for line in lines {
                for key in ["average_db", "peak_db", "peak_hold_dbfs", "vu", "ppm_db", "din_db", "bbc_mark", "true_peak_dbtp"]
                where line[key] != nil {
                    let values = try #require(line[key] as? [Any], "\(key)")
                    #expect(values.allSatisfy { $0 is NSNull }, "\(meter) \(key): \(values)")
                }
                for key in ["momentary_lufs", "short_term_lufs", "integrated_lufs", "loudness_range_lu"] where meter == "loudness" {
                    #expect(line[key] is NSNull, "\(key): \(String(describing: line[key]))")
                }
            }
        }
    }

    /// Each ballistic meter's steady reading of the sine, on its own scale, once it has settled (1 s).
    @Test(arguments: ["peak", "vu", "ppm1", "ppm2"])
    func theSelectedMetersValuesAreInTheLevelLines(meter: String) async throws {
        try await withPrivateServer { server in
            let result = try await recorder(["meter", "--duration", "1.5", "--levels-json", "--meter", meter,
                                             "--vu-reference", "-6.02"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try jsonLines(result.stdout)
            #expect(lines.count == 15, "one line per buffer: \(lines.count)")
            #expect(lines.allSatisfy { $0["meter"] as? String == meter })
            let settled = lines.filter { (number($0, "t") ?? 0) >= 1 }
            #expect(!settled.isEmpty)
            for line in settled {
                switch meter {
                case "peak":
                    #expect(abs((first(line, "peak_hold_dbfs") ?? 0) - -6.02) < 0.05, "\(line)")
                    #expect((line["clip_events"] as? [Int]) == [0] && (line["clipped_samples"] as? [Int]) == [0])
                case "vu":
                    // The reference is the sine's own level: 0 VU.
                    #expect(abs(first(line, "vu") ?? 9) < 0.15, "\(line)")
                case "ppm1":
                    // −6.02 dB under a full-scale sine is +2.98 on the DIN scale (0 dB = −9 dBFS).
                    #expect(abs((first(line, "ppm_db") ?? 0) - -6.02) < 0.2, "\(line)")
                    #expect(abs((first(line, "din_db") ?? 0) - 2.98) < 0.2, "\(line)")
                default:
                    // BBC marks: 4 at −18 dBFS, 4 dB a mark: −6.02 is mark 7.0.
                    #expect(abs((first(line, "bbc_mark") ?? 0) - 7) < 0.05, "\(line)")
                }
            }
        }
    }

    /// The live loudness meter and `recorder analyze` of the file it was recording agree.
    @Test func liveLoudnessAgreesWithTheAnalysisOfTheFile() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.wav"
            let result = try await recorder(["record", path, "--duration", "4", "--levels-json", "--quiet",
                                             "--meter", "loudness"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try jsonLines(result.stdout)
            let last = try #require(lines.last)
            // The short-term window (3 s) counts what came before the meter's first buffer as silence, as
            // libebur128 does, so it rises while the window fills and never falls on a steady sine.
            let shortTerm = lines.compactMap { number($0, "short_term_lufs") }
            #expect(shortTerm.count == lines.count)
            #expect(zip(shortTerm, shortTerm.dropFirst()).allSatisfy { $1 >= $0 - 0.05 }, "\(shortTerm)")
            let analysis = try await recorder(["analyze", path, "--json"])
            let file = try #require(try JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
            let integrated = try #require(number(file, "integrated_lufs"))
            #expect(abs(integrated - -9.03) < 0.1, "a mono 1 kHz sine at −6.02 dBFS: \(integrated) LUFS")
            for key in ["momentary_lufs", "short_term_lufs", "integrated_lufs"] {
                #expect(abs((number(last, key) ?? 0) - integrated) < 0.1, "\(key): \(last)")
            }
            // True peak: the live meter reads the sine's. The file begins wherever the recording began,
            // mid-waveform, and its analysis counts the ringing of that step as libebur128 and ffmpeg do
            // (up to ~1 dB more, depending on the phase), so it reads at least as high.
            let truePeak = try #require(first(file, "true_peak_dbtp"))
            let live = try #require(first(last, "true_peak_dbtp"))
            #expect(abs(live - -6.02) < 0.1, "\(last)")
            #expect(truePeak >= live - 0.1 && truePeak < live + 1.5, "file \(truePeak), live \(live)")
        }
    }

    @Test func theLoudnessReadoutShowsTheTargetOnItsScale() async throws {
        try await withPrivateServer { server in
            let terminal = Terminal()
            try terminal.start("\(try builtProduct("recorder")) meter --meter loudness --loudness-target -16; sleep 60", width: 100,
                               environment: ["PULSE_SERVER": server.address, "NO_COLOR": "1"])
            let drawing = try await terminal.waitFor("LRA")
            let lines = nonEmptyLines(drawing)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.wholeMatch(of: /\d\d:\d\d\.\d \[[#.:]+\] M +(-inf|-?[\d.]+) S +(-inf|-?[\d.]+) I +(-inf|-?[\d.]+) LUFS \(target -16\.0\) */) != nil,
                    "\(lines)")
            #expect(lines.last?.wholeMatch(of: /\ +LRA +(-inf|[\d.]+) LU  TP +(-inf|-?[\d.]+) dBTP */) != nil, "\(lines)")
            // Once a momentary value exists (400 ms), it is the sine's −9.0.
            let settled = try await terminal.waitFor("M  -9.0")
            #expect(settled.contains("TP  -6.0 dBTP"), "\(settled)")
        }
    }
}

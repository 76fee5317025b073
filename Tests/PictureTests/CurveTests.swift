// The loudness series against EBU Tech 3341's signals (their known momentary, short-term and
// integrated values), and the curve files the command writes from it.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

/// Stereo 1 kHz sine segments (seconds, dBFS of each channel's peak), 48 kHz.
func toneSegments(_ segments: [(Double, Double)]) -> [Int16] { toneSamples(segments, rate: 48_000, channels: 2) }

@Suite struct CurveTests {
    /// Tech 3341 case 1 and 2: a stereo 1 kHz sine at −23 (and −33) dBFS reads −23.0 (−33.0) LUFS
    /// momentary, short-term and integrated, ±0.1.
    @Test(arguments: [-23.0, -33.0])
    func aSteadyToneReadsItsLevelAllAlong(level: Double) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tone.wav"
        try writeWAV(path, samples: toneSegments([(20, level)]), channels: 2, sampleRate: 48_000)
        let analysis = try FileAnalysis.analyze(path: path, request: AnalysisRequest(loudnessSeries: true))
        let series = try #require(analysis.loudnessSeries)
        #expect(series.stepFrames == 4_800)
        #expect(series.momentary.count == 200 && series.shortTerm.count == 200)
        // From the first full window on (400 ms; 3 s).
        for value in series.momentary.dropFirst(3) { #expect(abs(Double(value ?? 0) - level) <= 0.1) }
        for value in series.shortTerm.dropFirst(29) { #expect(abs(Double(value ?? 0) - level) <= 0.1) }
        #expect(abs((analysis.integrated ?? 0) - level) <= 0.1)
    }

    /// Tech 3341 case 3 (−36, −23, −36 dBFS for 10, 60 and 10 s): the momentary reads each segment's level
    /// once its window is inside it, the short-term likewise after 3 s, the integrated −23 ±0.1 (the
    /// relative gate leaves the quiet ends out).
    @Test func stepsReadTheirLevelsOnceTheWindowIsInside() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/steps.wav"
        try writeWAV(path, samples: toneSegments([(10, -36), (60, -23), (10, -36)]), channels: 2, sampleRate: 48_000)
        let analysis = try FileAnalysis.analyze(path: path, request: AnalysisRequest(loudnessSeries: true))
        let series = try #require(analysis.loudnessSeries)
        for (first, length, level) in [(0, 100, -36.0), (100, 600, -23), (700, 100, -36)] {
            // Value k is the window ending at (k + 1) × 100 ms.
            for index in (first + 4)..<(first + length) { #expect(abs(Double(series.momentary[index] ?? 0) - level) <= 0.1, "M at \(index)") }
            for index in (first + 30)..<(first + length) { #expect(abs(Double(series.shortTerm[index] ?? 0) - level) <= 0.1, "S at \(index)") }
        }
        #expect(abs((analysis.integrated ?? 0) + 23) <= 0.1)
    }

    @Test func theCommandWritesTheSeriesAsCSVAndJSON() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/steps.wav"
        try writeWAV(path, samples: toneSegments([(5, -36), (5, -23)]), channels: 2, sampleRate: 48_000)
        let analysis = try FileAnalysis.analyze(path: path, request: AnalysisRequest(loudnessSeries: true))
        let series = try #require(analysis.loudnessSeries)
        let result = try runProcess(try builtProduct("recorder"), ["analyze", path, "--curve", folder + "/c.csv"],
                                    environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0)
        let rows = try String(contentsOfFile: folder + "/c.csv", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(rows.first == "time_s,momentary_lufs,short_term_lufs")
        #expect(rows.count == 101)
        for (index, row) in rows.dropFirst().enumerated() {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(abs((Double(fields[0]) ?? -1) - Double(index + 1) * 0.1) < 1e-9)
            #expect(abs((Double(fields[1]) ?? 99) - Double(series.momentary[index] ?? 99)) <= 0.005)
            #expect(abs((Double(fields[2]) ?? 99) - Double(series.shortTerm[index] ?? 99)) <= 0.005)
        }
        _ = try runProcess(try builtProduct("recorder"), ["analyze", path, "--curve", folder + "/c.json"],
                           environment: ProcessInfo.processInfo.environment)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/c.json"))) as! [String: Any]
        #expect(object["step_s"] as? Double == 0.1)
        let momentary = object["momentary"] as! [Double]
        #expect(momentary.count == 100)
        #expect(abs(momentary[60] + 23) <= 0.1 && abs(momentary[40] + 36) <= 0.1)
    }
}

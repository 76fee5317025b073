// The smoke test of `scripts/test --quick` (and of the full run): record, analyze, play and meter through
// the command, once each, against a private PulseAudio server.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct QuickTests {
    /// A second of the sine recorded, analyzed, played into a sink (heard there sample for sample, as a
    /// reference capture of its monitor shows) and metered live.
    @Test func recordAnalyzePlayAndMeterTheSine() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let take = directory + "/take.wav"
            let recorded = try await recorder(["record", take, "--duration", "1", "--source", PrivateServer.sineSource], server: server)
            #expect(recorded.status == 0, "\(recorded.stderr)")
            // The summary says what the file holds: its average (the sine's −9.03 dBFS, less any silence), and
            // any frames dropped (a second beside other tests' load can lose some: then marked in the file).
            let dropped = try #require(summaryDropped(recorded.stderr), "\(recorded.stderr)")
            #expect(try NumberedSource.lossIsMarked(dropped, in: take), "\(recorded.stderr)")
            let average = summaryAverage(recorded.stderr) ?? 0, held = levels(of: try readSoundFile(take).samples)
            #expect(abs(average - held.average) <= 0.006, "the file holds \(held.average) dBFS")
            #expect(recorded.stderr == "recorded \(take): 1.000 s, 44100 frames, average \(String(format: "%.2f", average)) dBFS, "
                    + "peak -6.02 dBFS, clipped 0 samples, dropped \(dropped) frames\n")

            let analyzed = try await recorder(["analyze", take, "--json"], server: server)
            #expect(analyzed.status == 0, "\(analyzed.stderr)")
            let analysis = try #require(try JSONSerialization.jsonObject(with: Data(analyzed.stdout.utf8)) as? [String: Any],
                                        "\(analyzed.stdout)")
            #expect((analysis["duration_s"] as? NSNumber)?.doubleValue == 1, "\(analysis)")
            #expect((analysis["sample_peak_dbfs"] as? [NSNumber])?.first?.doubleValue == -6.02, "\(analysis)")
            #expect((analysis["missing_frames"] as? NSNumber)?.intValue == 0, "\(analysis)")

            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor",
                                                       directory: directory)
            let played = try await recorder(["play", take, "--device", PrivateServer.monoSink, "--quiet"], server: server)
            #expect(played.status == 0, "\(played.stderr)")
            let samples = try readSoundFile(take).samples
            let heard = try await reference.compare(samples)
            #expect(heard.offset != nil && heard.differing == 0,
                    "\(heard.differing) of \(samples.count) samples heard differ from the take, the first at \(heard.firstDifference ?? -1)")

            let metered = try await recorder(["meter", "--duration", "0.5", "--levels-json", "--source", PrivateServer.sineSource],
                                             server: server)
            #expect(metered.status == 0, "\(metered.stderr)")
            let levels = try levelLines(metered.stdout)
            #expect(levels.count == 5 && levels.last?.frames == 22_050, "\(metered.stdout)")
            #expect(levels.allSatisfy { abs($0.peak_db[0] + 6.02) < 0.01 && abs($0.average_db[0] + 9.03) < 0.01 }, "\(metered.stdout)")
        }
    }
}

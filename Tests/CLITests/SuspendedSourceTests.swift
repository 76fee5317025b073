// A source suspended before the command starts (`pactl suspend-source`, or a sink's monitor after
// `pactl suspend-sink`) delivers nothing at all: record, meter and a sound-activated record still end
// at their --duration, say so at once, and write the time as silence.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SuspendedSourceTests {
    private func pactl(_ arguments: [String], _ server: PrivateServer) async throws {
        let environment = server.clientEnvironment
        let result = try await offThread { try runProcess("pactl", arguments, environment: environment) }
        #expect(result.status == 0, "pactl \(arguments): \(result.stderr)")
    }

    @Test(arguments: ["source", "monitor"])
    func aSourceSuspendedFromTheStartEndsAtItsDurationWithSilence(kind: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = kind == "source" ? PrivateServer.sineSource : PrivateServer.monoSink + ".monitor"
            if kind == "source" {
                try await pactl(["suspend-source", source, "1"], server)
            } else {
                try await pactl(["suspend-sink", PrivateServer.monoSink, "1"], server)
            }
            let warning = "recorder: warning: at 00:00.000 the source was suspended: nothing is captured until it resumes"
            let path = directory + "/take.wav"
            let take = try await recorder(["record", path, "-d", source, "--duration", "2", "--levels-json"], server: server)
            #expect(take.status == 0, "\(take.stderr)")
            // pipewire-pulse wakes a suspended node for a new stream: the audio comes, as on any source.
            guard server.kind == .pulseaudio else {
                #expect(try readSoundFile(path).frames == 88_200 && !take.stderr.contains("suspended"), "\(take.stderr)")
                return
            }
            let lines = take.stderr.split(separator: "\n").map(String.init)
            #expect(lines.first == warning, "said at once, before anything else: \(take.stderr)")
            #expect(lines.contains { $0.hasPrefix("recorded \(path): 2.000 s, 88200 frames, average -160.00 dBFS") }, "\(take.stderr)")
            #expect(lines.contains { $0.hasPrefix("gap at 00:00.000: ") && $0.hasSuffix(" s of silence (source suspended)") },
                    "\(take.stderr)")
            let events = try eventLines(take.stdout)
            #expect(events.first?.event == "suspended" && events.contains { $0.event == "gap" && $0.reason == "suspended" },
                    "\(take.stdout)")
            let file = try readSoundFile(path)
            #expect(file.frames == 88_200 && file.samples.allSatisfy { $0 == 0 }, "the time the source was silent, as silence")

            let meter = try await recorder(["meter", "-d", source, "--duration", "1"], server: server)
            #expect(meter.status == 0 && meter.stderr.hasPrefix(warning), "\(meter.stderr)")
            let triggered = try await recorder(["record", directory + "/t.wav", "-d", source, "--start-above", "-40",
                                                "--duration", "1"], server: server)
            #expect(triggered.status == 0 && triggered.stderr.hasPrefix(warning)
                    && triggered.stderr.hasSuffix("no take: the level never rose above -40.0 dBFS; no file was written\n"),
                    "\(triggered.stderr)")
        }
    }
}

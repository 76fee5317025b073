// `record --alarm-…`: dead air, clipping, a source lost and the disk nearly full, each alarm's start and end
// (Alarms, fed by hand), and a take whose clicks leave dead air between them (a line, an event and a marker each).
import Foundation
import RecorderCommandLine
import RecorderKit
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct AlarmTests {
    /// 100 ms buffers at 8 kHz: dead air after 0.5 s below -50 dBFS, over when sound comes back, with how
    /// long it lasted; clipping from the first full-scale sample until 2 s without one.
    @Test func deadAirAndClippingStartAndEnd() {
        var settings = Alarms.Settings()
        settings.silence = (0.5, -50)
        settings.clipping = true
        let alarms = Alarms(settings, sampleRate: 8_000)
        var changes: [Alarms.Change] = []
        var end: Int64 = 0
        func buffers(_ count: Int, peak: Float) {
            for _ in 0..<count {
                end += 800
                changes += alarms.reading(endFrame: end, frameCount: 800, peak: peak)
            }
        }
        buffers(3, peak: -12)
        buffers(4, peak: -60)  // 0.4 s: not yet
        #expect(changes.isEmpty)
        buffers(1, peak: -70)  // 0.5 s
        #expect(changes == [Alarms.Change(kind: "silence", on: true, frame: 6_400, message: "dead air: below -50.0 dBFS for 0.5 s")])
        buffers(7, peak: -160)
        buffers(1, peak: 0)  // sound back after 1.2 s, and a full-scale sample
        #expect(changes.dropFirst() == [Alarms.Change(kind: "silence", on: false, frame: 12_800, message: "sound back after 1.2 s of dead air"),
                                        Alarms.Change(kind: "clipping", on: true, frame: 12_800, message: "clipping: a full-scale sample")])
        buffers(19, peak: -3)  // 1.9 s without clipping: still on
        #expect(changes.count == 3)
        buffers(1, peak: -3)
        #expect(changes.last == Alarms.Change(kind: "clipping", on: false, frame: 28_800, message: "clipping over: 1 buffer clipped in 0.1 s"))
    }

    /// A source lost and back (one source: the events of a reconnection; of several: one loss, reported
    /// once it ended); the disk below its margin, and above it again with 1 % to spare.
    @Test func aSourceLostAndTheDiskNearlyFull() throws {
        let free = Mutex<Int64>(500)
        var settings = Alarms.Settings()
        settings.diskFree = .fraction(0.1)
        settings.folder = "/srv/log"
        let alarms = Alarms(settings, sampleRate: 8_000) { _ in (free.withLock { $0 }, 10_000) }
        let error = RecorderError(.streamFailed, "the server went away")
        #expect(alarms.event(.captureInterrupted(error, atFrame: 8_000)).map(\.message) == ["source lost: the server went away"])
        #expect(alarms.event(.captureResumed(gapFrames: 20_000, atFrame: 28_000, recordingFrame: nil)).map(\.message)
                == ["source back after 2.5 s"])
        let several = alarms.event(.sourceLost(source: "mic", frames: 4_000, atFrame: 80_000, reason: .serverLost))
        #expect(several.map(\.on) == [true, false] && several.map(\.frame) == [80_000, 84_000])
        #expect(alarms.event(.sourceLost(source: "mic", frames: 80, atFrame: 90_000, reason: .dropped)).isEmpty,
                "frames dropped are a loss, reported as such, not a source lost")
        let low = alarms.reading(endFrame: 8_000, frameCount: 800, peak: -20)
        #expect(low.map(\.message) == ["the disk is nearly full: 500 bytes free in /srv/log"])
        free.withLock { $0 = 1_050 }  // above the margin, not by 1 %
        #expect(alarms.reading(endFrame: 16_000, frameCount: 800, peak: -20).isEmpty)
        free.withLock { $0 = 1_100 }
        #expect(alarms.reading(endFrame: 24_000, frameCount: 800, peak: -20).map(\.on) == [false])
    }

    /// Full-scale clicks once a second at 8 kHz, `--alarm-silence 0.5s@-50 --alarm-clip`: between clicks,
    /// dead air after half a second and sound back at the next click, each a line, an alarm event and a
    /// marker in the file; clipping once, at the first click.
    @Test func aTakeOfClicksRaisesDeadAirBetweenThem() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            try server.run("pactl", ["load-module", "module-pipe-source", "source_name=rk_alarm_clicks", "file=\(directory)/clicks",
                                     "rate=8000", "channels=1", "format=s16le"])
            let clicks = PacedClicks(paths: [directory + "/clicks"], sampleRate: 8_000, ppm: [0], seconds: 600, amplitude: .max)
            try clicks.start()
            defer { clicks.stop() }
            let path = directory + "/take.wav"
            let result = try await recorder(["record", path, "--duration", "4.5", "-d", "rk_alarm_clicks", "--rate", "8000",
                                             "--alarm-silence", "0.5s@-50", "--alarm-clip", "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let alarms = try eventLines(result.stdout).filter { $0.event == "alarm" }
            let take = try readSoundFile(path)
            let clickFrames = clickPositions(take.channel(0))
            #expect(clickFrames.count >= 4, "\(clickFrames)")
            // Each stretch between two clicks: dead air on, then sound back at the next click.
            // (The alarms' own lines: the summary lists the markers too.)
            let stderrLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("recorder: alarm") }
            let on = stderrLines.filter { $0.contains("alarm: dead air: below -50.0 dBFS for 0.5 s") }
            let off = stderrLines.filter { $0.contains("alarm over: sound back after") }
            #expect(on.count >= clickFrames.count - 1 && off.count >= clickFrames.count - 1, "\(result.stderr)")
            #expect(stderrLines.filter { $0.contains("alarm: clipping: a full-scale sample") }.count == 1, "\(result.stderr)")
            #expect(alarms.count == on.count + off.count + 1, "\(alarms.map(\.t)) \(result.stderr)")
            // The markers in the file say the same, in order.
            let markers = try FileAnalysis.analyze(path: path).markers.map(\.label).filter { $0.hasPrefix("alarm") }
            #expect(markers.count == alarms.count && markers.first(where: { $0.contains("dead air") }) != nil, "\(markers)")
        }
    }
}

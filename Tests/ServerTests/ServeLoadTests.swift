// Fifty pages watching a 32-channel 96 kHz take: the take loses nothing, every watcher gets its levels all
// along, and a watcher that stops reading is dropped within seconds without touching the take.
import Foundation
import Testing
import TestSupport

private let clientsScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/sse_clients.py").path

@Suite struct ServeLoadTests {
    @Test func fiftyWatchersOfAThirtyTwoChannelTakeGetTheirLevelsAndTheTakeLosesNothing() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let loaded = try server.run("pactl", ["load-module", "module-null-sink", "sink_name=rk_32", "channels=32",
                                                  "rate=96000", "format=s16le"])
            #expect(loaded.status == 0, "\(loaded.stderr)")
            // Noise into the sink: every channel has a level.
            let player = try RunningProcess("/usr/bin/paplay", ["--device", "rk_32", "--raw", "--rate", "96000", "--channels", "32",
                                                                "--format", "s16le", "/dev/urandom"], environment: server.clientEnvironment)
            defer { player.send(SIGTERM) }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0", "-d", "rk_32.monitor",
                                                "-r", "96000", "-c", "32"], server: server)
            let started = try await http("POST", serve.url + "api/record", body: "{\"name\": \"load.wav\"}")
            #expect(started.status == 200, "\(started.body)")
            let seconds = 10.0
            let run = try await offThread { try runProcess("python3", [clientsScript, serve.url, "50", String(seconds), "--closing", "10"]) }
            #expect(run.status == 0, "\(run.stderr)")
            let stopped = try object(try await http("POST", serve.url + "api/stop").body)
            let log = await serve.stop()
            #expect(log.status == 0, "\(log.stderr)")

            // The take: nothing dropped or lost in a gap, every frame the recorder counted in the file.
            #expect(stopped["dropped_frames"] as? Int == 0, "\(stopped)")
            #expect(stopped["gaps"] as? Int == 0, "\(stopped)")
            let file = try readSoundFile(folder + "/load.wav")
            #expect(file.channels == 32 && file.sampleRate == 96_000)
            #expect(file.frames == stopped["frames"] as? Int)
            #expect(Double(file.frames) >= seconds * 96_000, "\(file.frames) frames")

            // The watchers: each had 32-channel levels from its first second to its last, none left out;
            // the one that stopped reading was dropped.
            let result = try object(run.stdout.split(separator: "\n").last.map(String.init) ?? "")
            let clients = (result["clients"] as? [[String: Any]]) ?? []
            #expect(clients.count == 50)
            for (index, client) in clients.enumerated() {
                let watched = index < 10 ? seconds / 2 : seconds
                let levels = client["levels"] as? Int ?? 0
                #expect(Double(levels) >= watched * 5, "client \(index): \(levels) levels messages in \(watched) s")
                #expect(Double(levels) <= watched * 10 + 2, "client \(index): \(levels) levels messages in \(watched) s (at most 10 a second)")
                #expect((client["first"] as? Double ?? 99) < 1, "client \(index): first levels after \(client["first"] ?? "never")")
                #expect((client["longest_gap"] as? Double ?? 99) < 1, "client \(index): \(client["longest_gap"] ?? "?") s without levels")
                #expect(client["channels"] as? [Int] == [32])
                #expect(client["left_out"] as? Int == 0)
            }
            let dropped = try #require(result["stalled_dropped_after"] as? Double, "the stalled client was never dropped")
            #expect(dropped < 10, "dropped after \(dropped) s")
            print("50 watchers of 32 ch at 96 kHz: fewest levels messages \(clients.map { $0["levels"] as? Int ?? 0 }.min() ?? 0), "
                  + "longest gap \(clients.map { $0["longest_gap"] as? Double ?? 0 }.max() ?? 0) s; a stalled reader dropped after \(dropped) s")
            #expect(log.stderr.contains("dropped the event stream of"))
        }
    }
}

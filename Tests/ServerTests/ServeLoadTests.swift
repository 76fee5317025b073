// Fifty pages watching a 32-channel 96 kHz take: the take holds every frame the recorder counted, any loss
// counted and placed; every watcher gets 32-channel levels, none left out, never more than ten a second; a
// watcher that stops reading is dropped without touching the take. (Whether a machine keeps up with 32
// channels at 96 kHz is a figure of the benchmarks, not a promise a test can hold a busy machine to:
// a newcomer's machine dropped 28 407 frames, counted and placed, in one of three takes.)
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
            // 32 channels are a multitrack take: the page says its loudness is not measured (levels only).
            let state = try object(try await http("GET", serve.url + "api/state").body)
            #expect((state["loudness_note"] as? String)?.hasPrefix("loudness not measured: 32 channels make a multitrack take") == true,
                    "\(state)")
            let seconds = 10.0
            let run = try await offThread { try runProcess("python3", [clientsScript, serve.url, "50", String(seconds), "--closing", "10"]) }
            #expect(run.status == 0, "\(run.stderr)")
            let stopped = try object(try await http("POST", serve.url + "api/stop").body)
            let log = await serve.stop()
            #expect(log.status == 0, "\(log.stderr)")

            // The take: every frame the recorder counted is in the file; a loss, if the machine made one, is
            // counted and placed (a gap where it stands), never silent.
            let file = try readSoundFile(folder + "/load.wav")
            #expect(file.channels == 32 && file.sampleRate == 96_000)
            #expect(file.frames == stopped["frames"] as? Int)
            #expect(file.frames > 0)
            let dropped = stopped["dropped_frames"] as? Int ?? -1, gaps = stopped["gaps"] as? Int ?? -1
            #expect(dropped >= 0 && gaps >= 0 && (dropped == 0) == (gaps == 0), "\(stopped)")
            #expect(dropped < file.frames, "\(stopped)")

            // The watchers: each had 32-channel levels, at most ten a second (the hub's promise, an upper
            // bound: a slow machine sends fewer), none left out; the one that stopped reading was dropped.
            let result = try object(run.stdout.split(separator: "\n").last.map(String.init) ?? "")
            let clients = (result["clients"] as? [[String: Any]]) ?? []
            #expect(clients.count == 50)
            for (index, client) in clients.enumerated() {
                let watched = index < 10 ? seconds / 2 : seconds
                let levels = client["levels"] as? Int ?? 0
                #expect(levels >= 1, "client \(index): no levels message in \(watched) s")
                #expect(Double(levels) <= watched * 10 + 2, "client \(index): \(levels) levels messages in \(watched) s (at most 10 a second)")
                #expect(client["channels"] as? [Int] == [32])
                #expect(client["left_out"] as? Int == 0)
            }
            // (The script waits 30 s past the watchers for it: a ceiling only a hang reaches.)
            let stalledAfter = try #require(result["stalled_dropped_after"] as? Double, "the stalled client was never dropped")
            print("50 watchers of 32 ch at 96 kHz: fewest levels messages \(clients.map { $0["levels"] as? Int ?? 0 }.min() ?? 0), "
                  + "longest gap \(clients.map { $0["longest_gap"] as? Double ?? 0 }.max() ?? 0) s; a stalled reader dropped after \(stalledAfter) s; "
                  + "the take: \(file.frames) frames, \(dropped) dropped in \(gaps) gaps")
            #expect(log.stderr.contains("dropped the event stream of"))
        }
    }
}

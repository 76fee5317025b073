// A take started from the page when things go wrong: the disk fills, the sound server goes, the browser
// is closed. The page says what happened, the file stays valid, and a take nobody watches goes on.
import Foundation
import RecorderKit
import Testing
import TestSupport

private let browserScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/browser_session.py").path

@Suite struct ServeFaultTests {
    @Test func aDiskThatFillsStopsTheTakeValidAndThePageSaysSo() async throws {
        try await withPrivateServer { server in
            try await withTinyDisk(size: "400k") { disk in
                let serve = try await ServeProcess(["--folder", disk, "--listen", "127.0.0.1:0"], server: server)
                // Before the take: the room the page shows is the disk's, at the take's rate (44.1 kHz mono s16).
                let before = try object(try await http("GET", serve.url + "api/state").body)
                var info = statvfs()
                #expect(statvfs(disk, &info) == 0)
                let free = Double(info.f_bavail) * Double(info.f_frsize)
                let left = try #require(before["time_left_s"] as? Double)
                #expect(abs(left - free / 88_200) < 0.5, "time left \(left) s for \(free) bytes free")
                #expect(try await http("POST", serve.url + "api/record", body: "{\"name\": \"full.wav\"}").status == 200)
                let state = try await waitForState(serve.url, "the take stopped by the full disk") {
                    $0["recording"] as? Bool == false && ($0["warning"] as? String)?.contains("the take stopped") == true
                }
                let warning = state["warning"] as? String ?? ""
                #expect(warning.contains("the file is valid"), "\(warning)")
                let log = await serve.stop()
                #expect(log.status == 0)
                let file = try readSoundFile(disk + "/full.wav")
                #expect(file.frames > 44_100, "\(file.frames) frames")
                let analysis = try FileAnalysis.analyze(path: disk + "/full.wav")
                #expect(analysis.frames == Int64(file.frames) && analysis.missingFrames == 0)
            }
        }
    }

    @Test func theSoundServerGoingEndsTheTakeValidAndThePageStaysUp() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let aside = folder + "/aside"
            try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
            let numbered = try await NumberedSource(server: server, directory: aside)
            defer { numbered.stop() }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0", "-d", NumberedSource.name], server: server)
            #expect(try await http("POST", serve.url + "api/record", body: "{\"name\": \"lost.wav\"}").status == 200)
            _ = try await waitForState(serve.url, "a second recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 1 }
            await server.crash()
            let state = try await waitForState(serve.url, "the take ended with the server") {
                $0["recording"] as? Bool == false && ($0["warning"] as? String)?.contains("the take stopped") == true
            }
            #expect((state["warning"] as? String)?.contains("the file is valid") == true)
            #expect(try await http("GET", serve.url).status == 200)  // the page is still served
            let log = await serve.stop()
            #expect(log.status == 0, "\(log.stderr)")
            let file = try readSoundFile(folder + "/lost.wav")
            #expect(file.frames >= 44_100)
            // Every frame up to the loss is the source's, in order, or a loss the file marks where it stands.
            let check = try await numbered.check(file: folder + "/lost.wav")
            #expect(check.unexplained.isEmpty, "\(check)")
        }
    }

    @Test(arguments: [SIGHUP, SIGQUIT, SIGTERM])
    func aStopSignalMidTakeClosesTheFileValidAndExitsZero(signal: Int32) async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0"], server: server)
            #expect(try await http("POST", serve.url + "api/record", body: "{\"name\": \"cut.wav\"}").status == 200)
            _ = try await waitForState(serve.url, "half a second recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 0.5 }
            serve.process.send(signal)
            let result = await serve.process.wait()
            #expect(result.status == 0, "\(result.stderr)")
            let file = try readSoundFile(folder + "/cut.wav")
            let analysis = try FileAnalysis.analyze(path: folder + "/cut.wav")
            #expect(file.frames >= 22_050 && analysis.frames == Int64(file.frames) && analysis.missingFrames == 0)
        }
    }

    @Test func closingTheBrowserMidTakeLeavesTheTakeRecording() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let takes = folder + "/takes", aside = folder + "/aside"
            for path in [takes, aside] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
            let numbered = try await NumberedSource(server: server, directory: aside)
            defer { numbered.stop() }
            let serve = try await ServeProcess(["--folder", takes, "--listen", "127.0.0.1:0"], server: server)
            let run = try await offThread {
                try runProcess("python3", [browserScript, serve.url, aside, aside + "/shot.png", NumberedSource.name, "-", "--close-mid-take"])
            }
            #expect(run.status == 0, "\(run.stderr)")
            let seen = try object(run.stdout.split(separator: "\n").last.map(String.init) ?? "")
            #expect(seen["closed"] as? Bool == true)
            let name = try #require(seen["file"] as? String)
            // The browser is gone; the take goes on.
            let state = try await waitForState(serve.url, "two more seconds recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 3 }
            #expect(state["recording"] as? Bool == true)
            let stopped = try object(try await http("POST", serve.url + "api/stop").body)
            _ = await serve.stop()
            let file = try readSoundFile(takes + "/" + name)
            #expect(file.frames == stopped["frames"] as? Int)
            let check = try await numbered.check(file: takes + "/" + name)
            #expect(check.unexplained.isEmpty && check.bySource.isEmpty, "\(check)")
            #expect(check.numbered + check.counted >= 3 * 44_100 - 4_410, "\(check)")
        }
    }
}

// `record --serve`: the page watching a take started from the terminal, read-only unless --serve-control;
// with it, the page's marker, pause and stop act on that take.
import Foundation
import Glibc
import RecorderKit
import Testing
import TestSupport

/// A port nothing listens on now, for a command to bind later. Chosen at random below the kernel's
/// ephemeral range (32768 up here), not the kernel's choice for `bind(0)` released: that port is free
/// again for the next `bind(0)` of any test running beside this one, and two tests could be handed it.
func freePort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000...32_000)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
        }
        if bound { return port }
    }
    throw TestFailure("no free port in 20000...32000")
}

@Suite struct RecordServeTests {
    @Test func thePageWatchesATakeFromTheTerminalAndChangesNothingByDefault() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let port = try freePort(), url = "http://127.0.0.1:\(port)/"
            let process = try RunningProcess(try builtProduct("recorder"), ["record", folder + "/take.wav", "--duration", "10", "--serve", String(port)],
                                             environment: server.clientEnvironment)
            try await waitFor("the page") { (try? runProcess("curl", ["-sf", url + "api/state"]).status) == 0 }
            let state = try await waitForState(url, "the take recording") { $0["recording"] as? Bool == true }
            #expect(state["file"] as? String == "take.wav" && state["control"] as? Bool == false)
            #expect(try await http("POST", url + "api/marker", body: "{\"name\": \"no\"}").status == 403)
            #expect(try await http("POST", url + "api/stop").status == 403)
            // Its levels come as they come for `serve`: the sine's, every message a --levels-json object.
            // The first three read, however long they take (the take lasts ten seconds; 30 s is a hang).
            let stream = try await offThread {
                try runProcess("sh", ["-c", "curl -sN --max-time 30 \"$1\" | grep -m 3 '^data: {\"t\"'", "sh", url + "api/events"])
            }
            let levels = stream.stdout.split(separator: "\n")
            #expect(levels.count == 3 && levels.allSatisfy { $0.contains("\"peak_since_last_db\"") && $0.contains("\"average_db\"") },
                    "\(stream.stdout)")
            let result = await process.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("page at \(url)"))
            #expect(result.stderr.contains("refused POST /api/marker"))
            let analysis = try FileAnalysis.analyze(path: folder + "/take.wav")
            // No marker from the page (a loss the file marks is the recorder's, not the page's).
            #expect(analysis.markers.allSatisfy { $0.label.hasPrefix("gap ") } && abs(analysis.duration - 10) < 0.001, "\(analysis.markers)")
        }
    }

    @Test func withServeControlThePageMarksPausesAndStopsTheTake() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let port = try freePort(), url = "http://127.0.0.1:\(port)/"
            let process = try RunningProcess(try builtProduct("recorder"), ["record", folder + "/take.wav", "--serve", "127.0.0.1:\(port)",
                                                                            "--serve-control"],
                                             environment: server.clientEnvironment)
            try await waitFor("the page") { (try? runProcess("curl", ["-sf", url + "api/state"]).status) == 0 }
            _ = try await waitForState(url, "a second recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 1 }
            let marker = try object(try await http("POST", url + "api/marker", body: "{\"name\": \"cue\"}").body)
            #expect(marker["label"] as? String == "cue")
            #expect(try object(try await http("POST", url + "api/pause").body)["paused"] as? Bool == true)
            _ = try await waitForState(url, "paused") { $0["paused"] as? Bool == true }
            #expect(try object(try await http("POST", url + "api/pause").body)["paused"] as? Bool == false)
            #expect(try await http("POST", url + "api/next").status == 409)  // next take is serve's
            #expect(try await http("POST", url + "api/stop").status == 200)
            let result = await process.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("paused at"))
            let analysis = try FileAnalysis.analyze(path: folder + "/take.wav")
            let cue = try #require(analysis.markers.first { $0.label == "cue" })
            #expect(cue.frame == marker["frame"] as? Int64 ?? Int64(marker["frame"] as? Int ?? -1))
        }
    }
}

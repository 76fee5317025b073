// The page's defences, each tried as an attacker would and each refused with nothing touched: a foreign
// Host (DNS rebinding), a foreign Origin, no token off loopback, a one-time link used twice, downloads and
// deletes reaching out of the take folder (by `..`, by a link), and changes on a read-only page.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite struct ServeSecurityTests {
    @Test func aForeignHostOrOriginIsRefusedAndNothingStarts() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0"], server: server)
            let own = "Host: 127.0.0.1:\(serve.port)"
            // A page on evil.example whose name was rebound to 127.0.0.1: the browser sends its own Host.
            let rebound = try await http("GET", serve.url + "api/state", headers: ["Host: evil.example:\(serve.port)"])
            #expect(rebound.status == 421)
            let otherPort = try await http("GET", serve.url + "api/state", headers: ["Host: 127.0.0.1:1"])
            #expect(otherPort.status == 421)
            // Another site's page posting to the recorder: its Origin says so.
            let foreign = try await http("POST", serve.url + "api/record", headers: [own, "Origin: http://evil.example"], body: "{}")
            #expect(foreign.status == 403)
            let state = try object(try await http("GET", serve.url + "api/state").body)
            #expect(state["recording"] as? Bool == false)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
            // The page's own Origin passes (and a take starts).
            let mine = try await http("POST", serve.url + "api/record", headers: [own, "Origin: http://127.0.0.1:\(serve.port)"], body: "{}")
            #expect(mine.status == 200, "\(mine.body)")
            _ = try await http("POST", serve.url + "api/stop", headers: [own])
            let log = await serve.stop()
            #expect(log.status == 0)
            let refusals = log.stderr.split(separator: "\n").filter { $0.contains("refused") }
            #expect(refusals.count == 3, "\(log.stderr)")
            #expect(refusals.filter { $0.contains("DNS rebinding") }.count == 2)
            #expect(refusals.contains { $0.contains("Origin 'http://evil.example'") })
        }
    }

    @Test func offLoopbackTheTokenIsAskedAndTheLinkWorksOnce() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var environment = server.clientEnvironment
            environment["XDG_CONFIG_HOME"] = folder + "/config"
            let serve = try await ServeProcess(["--folder", folder, "--listen", "0.0.0.0:0"], environment: environment, token: true)
            let tokenFile = folder + "/config/recorder/serve-token"
            var status = stat()
            #expect(stat(tokenFile, &status) == 0 && status.st_mode & 0o777 == 0o600, "the token file's mode")
            let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.count == 64)
            let url = "http://127.0.0.1:\(serve.port)/"
            #expect(try await http("GET", url + "api/state").status == 401)
            #expect(try await http("GET", url + "api/state", headers: ["Authorization: Bearer 0123456789abcdef0123"]).status == 401)
            #expect(try await http("GET", url + "api/state", headers: ["Authorization: Bearer \(token)"]).status == 200)
            #expect(try await http("POST", url + "api/record", body: "{}").status == 401)
            // The link: a cookie, HttpOnly and SameSite, once; the second time it opens nothing.
            let link = try #require(serve.login)
            let path = String(link.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
            let first = try await http("GET", url + path.dropFirst())
            #expect(first.status == 303)
            let cookie = first.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
            #expect(cookie.contains("recorder_token=\(token)") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
            #expect(try await http("GET", url + path.dropFirst()).status == 401)
            #expect(try await http("GET", url + "api/state", headers: ["Cookie: recorder_token=\(token)"]).status == 200)
            let log = await serve.stop()
            #expect(log.stderr.split(separator: "\n").filter { $0.contains("refused") }.count == 4, "\(log.stderr)")
        }
    }

    @Test func downloadsAndDeletesStayInsideTheFolder() async throws {
        try await withPrivateServer { server in
            let root = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let folder = root + "/takes"
            try FileManager.default.createDirectory(atPath: folder + "/sub.wav", withIntermediateDirectories: true)
            for path in [folder + "/take.wav", root + "/victim.wav", folder + "/.hidden.wav"] {
                #expect(try runProcess("sox", ["-n", "-r", "8000", "-c", "1", path, "synth", "0.2", "sine", "440"]).status == 0)
            }
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.wav", withDestinationPath: root + "/victim.wav")
            try FileManager.default.createSymbolicLink(atPath: folder + "/passwd.wav", withDestinationPath: "/etc/passwd")
            #expect(mkfifo(folder + "/pipe.wav", 0o600) == 0)  // a FIFO where takes are listed: never opened to block
            let victim = try Data(contentsOf: URL(fileURLWithPath: root + "/victim.wav"))
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0"], server: server)
            let list = try object(try await http("GET", serve.url + "api/takes").body)
            #expect(((list["takes"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String } == ["take.wav"])
            let out = root + "/out"
            var refused = 0
            for path in ["takes/..%2Fvictim.wav", "takes/../victim.wav", "takes/link.wav", "takes/passwd.wav",
                         "takes/.hidden.wav", "takes/pipe.wav", "takes/sub.wav", "takes/%2Fetc%2Fpasswd", "takes/take.wav/../../victim.wav"] {
                let exchange = try await http("GET", serve.url + path, output: out)
                #expect((400..<500).contains(exchange.status), "GET \(path): \(exchange.status)")
                let got = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
                #expect(got != victim && !String(decoding: got, as: UTF8.self).contains("root:"), "GET \(path) sent the file")
                refused += 1
            }
            for path in ["takes/..%2Fvictim.wav", "takes/../victim.wav", "takes/link.wav", "takes/sub.wav", "takes/passwd.wav"] {
                let exchange = try await http("DELETE", serve.url + path)
                #expect((400..<500).contains(exchange.status), "DELETE \(path): \(exchange.status)")
                refused += 1
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/victim.wav")) == victim)
            #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
            for name in ["link.wav", "passwd.wav", "sub.wav", ".hidden.wav", "pipe.wav"] {
                var status = stat()
                #expect(lstat(folder + "/" + name, &status) == 0, "\(name) was removed")
            }
            // What is inside goes: downloaded whole, then deleted.
            let take = try Data(contentsOf: URL(fileURLWithPath: folder + "/take.wav"))
            #expect(try await http("GET", serve.url + "takes/take.wav", output: out).status == 200)
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == take)
            #expect(try await http("DELETE", serve.url + "takes/take.wav").status == 200)
            #expect(!FileManager.default.fileExists(atPath: folder + "/take.wav"))
            let log = await serve.stop()
            let lines = log.stderr.split(separator: "\n").filter { $0.contains("refused") }
            #expect(lines.count == refused, "\(refused) refusals, log:\n\(log.stderr)")
        }
    }

    @Test func aReadOnlyPageChangesNothing() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try runProcess("sox", ["-n", "-r", "8000", "-c", "1", folder + "/take.wav", "synth", "0.2", "sine", "440"]).status == 0)
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0", "--read-only"], server: server)
            for control in ["record", "stop", "pause", "marker", "next", "circle", "nogood"] {
                #expect(try await http("POST", serve.url + "api/" + control, body: "{}").status == 403, "\(control)")
            }
            #expect(try await http("DELETE", serve.url + "takes/take.wav").status == 403)
            #expect(FileManager.default.fileExists(atPath: folder + "/take.wav"))
            let state = try object(try await http("GET", serve.url + "api/state").body)
            #expect(state["recording"] as? Bool == false && state["control"] as? Bool == false)
            #expect(try await http("GET", serve.url + "takes/take.wav").status == 200)
            // Its plot (the picture of `analyze --plot`) is drawn when asked, read-only or not.
            let plot = try await http("GET", serve.url + "takes/take.wav/plot.svg")
            #expect(plot.status == 200 && plot.headers.lowercased().contains("content-type: image/svg+xml"))
            #expect(plot.body.contains("<svg") && plot.body.contains("width=\"1600") && plot.body.count > 10_000, "\(plot.body.prefix(300))")
            let log = await serve.stop()
            #expect(log.stderr.split(separator: "\n").filter { $0.contains("read-only") }.count == 8, "\(log.stderr)")
        }
    }
}

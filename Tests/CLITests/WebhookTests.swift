// `record --webhook URL`: every event posted, as --levels-json prints it, to a listener on loopback; a webhook
// that never answers is given up at the time limit, reported and counted, and delays the take by no frame.
import Foundation
import RecorderCommandLine
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(5)))
struct WebhookTests {
    /// Clicks once a second at 8 kHz with `--alarm-silence 0.5s@-50`: each event the take reports (the alarms
    /// and their markers) is one POST to the URL's path, `Content-Type: application/json`, its body exactly
    /// the event's --levels-json line, in the order they were printed; the summary counts the posts.
    @Test func everyEventIsPostedAsItsJSONLine() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let clicks = try PacedClicks.pipeSource("rk_webhook_clicks", server: server, directory: directory)
            defer { clicks.stop() }
            let listener = try LoopbackListener(status: 204)
            defer { listener.stop() }
            let path = directory + "/take.wav"
            let result = try await recorder(["record", path, "--duration", "4.5", "-d", "rk_webhook_clicks", "--rate", "8000",
                                             "--alarm-silence", "0.5s@-50", "--webhook", "http://127.0.0.1:\(listener.port)/hooks/recorder",
                                             "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let printed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"event\"") }.map(String.init)
            let alarms = try eventLines(result.stdout).filter { $0.event == "alarm" }
            #expect(alarms.count >= 6, "\(alarms)")
            let requests = listener.requests
            #expect(requests.map(\.body) == printed, "\(requests.map(\.body)) \(printed)")
            #expect(requests.allSatisfy { $0.method == "POST" && $0.path == "/hooks/recorder" && $0.headers["content-type"] == "application/json" },
                    "\(requests)")
            #expect(result.stderr.contains("webhook: \(printed.count) posts, 0 failed"), "\(result.stderr)")
        }
    }

    /// A listener that reads each post and never answers, `--hook-timeout 0.5`: every post is given up at the
    /// time limit, each a warning and a `hook-failed` event (itself never posted), counted in the summary, and
    /// those still waiting half a second after the take's end are left out, said and counted the same way;
    /// the take is exactly its 4.5 s with nothing dropped. A URL nothing listens on: each post fails at once,
    /// said and counted the same way.
    @Test func aWebhookThatHangsOrIsNotThereDelaysNothing() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let clicks = try PacedClicks.pipeSource("rk_webhook_hang", server: server, directory: directory)
            defer { clicks.stop() }
            let hanging = try LoopbackListener(status: nil)
            let closedPort = try LoopbackListener(status: 200)
            closedPort.stop()  // its port: nothing listens there now
            defer { hanging.stop() }
            var hangingTried = 0
            for (index, (url, reason)) in [("http://127.0.0.1:\(hanging.port)/", "was not answered within its 0.5 s time limit"),
                                  ("http://127.0.0.1:\(closedPort.port)/", "could not be sent: ")].enumerated() {
                let path = directory + "/take-\(index).wav"
                let result = try await recorder(["record", path, "--duration", "4.5", "-d", "rk_webhook_hang", "--rate", "8000",
                                                 "--alarm-silence", "0.5s@-50", "--webhook", url, "--hook-timeout", "0.5", "--levels-json"],
                                                server: server)
                #expect(result.status == 0, "\(result.stderr)")
                let events = try eventLines(result.stdout)
                let posted = events.filter { $0.event != "hook-failed" }
                let failed = events.filter { $0.event == "hook-failed" }
                #expect(posted.count >= 6 && failed.count == posted.count, "\(events)")
                // Each post failed as this URL fails, or, once the take had ended, was left out when the
                // queue's time to finish (one time limit) was up.
                let leftOut = failed.filter { $0.reason == "was left out: the take had ended and the hooks' 0.5 s to finish were up" }
                let tried = failed.filter { $0.reason?.hasPrefix(reason) == true }
                #expect(failed.allSatisfy { $0.hook == "webhook" } && tried.count + leftOut.count == failed.count && tried.count >= 1, "\(failed)")
                let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("recorder: warning: --webhook '\(url)' for the event ") }
                #expect(warnings.count == failed.count, "\(result.stderr)")
                let timedOut = url.contains("\(hanging.port)") ? " (\(tried.count) at the time limit)" : ""
                let summary = "webhook: \(tried.count) posts, \(tried.count) failed\(timedOut)" + (leftOut.isEmpty ? "\n" : ", \(leftOut.count) left out\n")
                #expect(result.stderr.contains(summary), "\(result.stderr)")
                if url.contains("\(hanging.port)") { hangingTried = tried.count }
                #expect(try readSoundFile(path).frames == 36_000)
                #expect(!events.contains { $0.event == "dropped" }, "\(events)")
            }
            #expect(hanging.requests.count >= 1 && hanging.requests.count <= hangingTried, "posts reached the listener that never answers")
        }
    }

    /// A URL that is not http(s) or names no host: refused in one line that says what to give, exit 64, no file.
    @Test func aURLThatCannotBePostedToIsRefusedInOneLine() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/take.wav"
        for (url, why) in [("ftp://127.0.0.1/x", "is not an http:// or https:// URL"), ("http:///x", "names no host"),
                           ("127.0.0.1:9000", "is not an http:// or https:// URL"), ("http://?x", "names no host"),
                           ("https://user:secret@:8080/x", "names no host"), ("http://[]/", "names no host")] {
            let result = try await recorder(["record", path, "--webhook", url])
            #expect(result.status == 64, "\(url): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("invalid --webhook '\(url)': it \(why)")
                    && lines[0].contains("give the URL to post each event to"), "\(url): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// What a line shows of a URL: its user and password never (they would reach a logger's log).
    @Test func aURLsPasswordIsNeverShown() {
        #expect(Webhook.shown("https://user:secret@hooks.example/x?y=1") == "https://…@hooks.example/x?y=1")
        #expect(Webhook.shown("http://127.0.0.1:9000/a@b") == "http://127.0.0.1:9000/a@b", "an @ in the path is not a user")
        #expect(Webhook.refusal("http://user:secret@127.0.0.1:9000/") == nil && Webhook.refusal("http://[::1]:9000/") == nil)
    }
}

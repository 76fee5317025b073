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
    /// time limit, each a warning and a `hook-failed` event (itself never posted), counted in the summary;
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
                #expect(failed.allSatisfy { $0.hook == "webhook" && $0.reason?.hasPrefix(reason) == true }, "\(failed)")
                let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("recorder: warning: --webhook '\(url)' for the event ") }
                #expect(warnings.count == failed.count, "\(result.stderr)")
                let timedOut = url.contains("\(hanging.port)") ? " (\(failed.count) at the time limit)" : ""
                #expect(result.stderr.contains("webhook: \(posted.count) posts, \(failed.count) failed\(timedOut)"), "\(result.stderr)")
                #expect(try readSoundFile(path).frames == 36_000)
                #expect(!events.contains { $0.event == "dropped" }, "\(events)")
            }
            #expect(hanging.requests.count >= 6, "each post reached the listener that never answers")
        }
    }

    /// A URL that is not http(s) or names no host: refused in one line that says what to give, exit 64, no file.
    @Test func aURLThatCannotBePostedToIsRefusedInOneLine() async throws {
        let directory = try temporaryDirectory()
        let path = directory + "/take.wav"
        for (url, why) in [("ftp://127.0.0.1/x", "is not an http:// or https:// URL"), ("http:///x", "names no host"),
                           ("127.0.0.1:9000", "is not an http:// or https:// URL")] {
            let result = try await recorder(["record", path, "--webhook", url])
            #expect(result.status == 64, "\(url): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("invalid --webhook '\(url)': it \(why)")
                    && lines[0].contains("give the URL to post each event to"), "\(url): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}

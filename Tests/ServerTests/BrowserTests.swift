// The page in a real browser (headless Chromium through Selenium): the bars show the source's level as the
// JSON levels say it, a take started from the page holds every frame the source sent, its marker is in the
// file, and the file downloaded from the page is the file recorded.
import Foundation
import RecorderKit
import Testing
import TestSupport

private let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/browser_session.py").path
private let alarmScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Scripts/browser_alarms.py").path
/// docs/pictures in the repository this file is in.
private let docsPictures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/pictures").path

@Suite struct BrowserTests {
    @Test func aTakeFromThePageHoldsEveryFrameItsMarkerAndDownloadsWhole() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let takes = folder + "/takes", downloads = folder + "/downloads", aside = folder + "/aside"
            for path in [takes, downloads, aside] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
            let numbered = try await NumberedSource(server: server, directory: aside)
            defer { numbered.stop() }
            // The sine's level as the server delivers it: the oracle for the bars.
            let sine = try await ReferenceCapture(server: server, source: PrivateServer.sineSource, directory: aside)
            try await waitFor("half a second of the sine") { fileSize(sine.path) >= 44_100 }
            let sinePeak = 20 * log10(try sine.values().map(abs).max()!)
            sine.stop()

            let serve = try await ServeProcess(["--folder", takes, "--listen", "127.0.0.1:0", "-d", PrivateServer.sineSource], server: server)
            let screenshot = try artifacts() + "/serve-page.png"
            let run = try await offThread {
                try runProcess("python3", [script, serve.url, downloads, screenshot, NumberedSource.name, "chorus"])
            }
            let log = await serve.stop()
            #expect(run.status == 0, "\(run.stderr)\n\(log.stderr)")
            let seen = try object(run.stdout.split(separator: "\n").last.map(String.init) ?? "")

            // The bars: what the page shows is what the JSON said, and what the server delivered.
            let json = Set(((seen["json"] as? [[Double?]]) ?? []).compactMap { $0.first ?? nil })
            let page = (seen["page"] as? [[String: String]]) ?? []
            #expect(page.count == 3)
            for reading in page {
                let db = try #require(Double(reading["db"] ?? ""))
                #expect(json.contains(db), "the page's \(db) dBFS is not among the JSON levels \(json.sorted())")
                #expect(abs(db - sinePeak) < 0.05, "the page shows \(db) dBFS; the server delivered a \(sinePeak) dBFS peak")
                #expect(reading["text"] == String(format: "%.1f", db))
                let width = Double(reading["width"]!.dropLast(2))!, track = Double(reading["track"]!.dropLast(2))!
                #expect(abs(width / track - (db + 60) / 60) < 0.015, "bar \(width) of \(track) px for \(db) dBFS")
            }
            #expect((seen["integrated_text"] as? String)?.hasSuffix("LUFS") == true)
            // A mono programme's loudness is measured: no note that it is not (a multitrack take's is
            // ServeLoadTests').
            #expect(seen["loudness_note_shown"] as? Bool == false, "\(seen)")

            // The take: every frame the numbered source sent, or its loss marked in the file where it
            // stands; the marker in the file.
            let name = try #require(seen["file"] as? String)
            let take = takes + "/" + name
            let contents = try readSoundFile(take)
            let check = try await numbered.check(file: take)
            #expect(check.unexplained.isEmpty && check.bySource.isEmpty, "\(check)")
            #expect(contents.frames >= 4 * 44_100 && check.numbered + check.counted >= contents.frames - 4_410, "\(check)")
            let analysis = try FileAnalysis.analyze(path: take)
            let marker = try #require(analysis.markers.first { $0.label == "chorus" }, "markers: \(analysis.markers)")
            #expect(marker.frame >= 2 * 44_100 && marker.frame < Int64(contents.frames))
            #expect((seen["marker_reply"] as? String)?.contains("chorus") == true)

            // The download is the file, byte for byte.
            let downloaded = try Data(contentsOf: URL(fileURLWithPath: try #require(seen["downloaded"] as? String)))
            #expect(downloaded == (try Data(contentsOf: URL(fileURLWithPath: take))))
            // The listing's length is the file's (whole seconds).
            let seconds = contents.frames / 44_100
            #expect((seen["listed_length"] as? String) == "00:\(seconds / 600)\(seconds / 60 % 10):\(seconds % 60 / 10)\(seconds % 10)")

            // The screenshot (a PNG taken while recording) goes into the docs.
            let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && png.count > 10_000)
            try? FileManager.default.createDirectory(atPath: docsPictures, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: docsPictures + "/serve-page.png")
            try FileManager.default.copyItem(atPath: screenshot, toPath: docsPictures + "/serve-page.png")
            #expect(log.stderr.contains("recording \(take)"))
        }
    }

    /// A logger's page: `record --serve` with `--alarm-silence 0.3s@-50` over clicks a second apart. In the
    /// browser the alarm box shows dead air in red, its line the message the take printed for it, and hides
    /// again when sound is back; the event list says the alarm ended. The screenshot goes into the docs.
    @Test func aLoggersPageShowsItsAlarmsWhileTheyAreOn() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let clicks = try PacedClicks.pipeSource("rk_page_alarm", server: server, directory: folder)
            defer { clicks.stop() }
            let port = try freePort(), url = "http://127.0.0.1:\(port)/"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", folder + "/take.wav", "--duration", "60", "-d", "rk_page_alarm", "--rate", "8000", "--alarm-silence", "0.3s@-50",
                 "--levels-json", "--serve", String(port)], environment: server.clientEnvironment)
            try await waitFor("the page") { (try? runProcess("curl", ["-sf", url + "api/state"]).status) == 0 }
            let screenshot = try artifacts() + "/serve-alarm.png"
            let run = try await offThread { try runProcess("python3", [alarmScript, url, screenshot]) }
            process.send(SIGINT)
            var printed: [String] = []
            for await line in process.lines where line.hasPrefix("{\"event\": \"alarm\"") { printed.append(line) }
            let result = await process.wait()
            #expect(run.status == 0 && result.status == 0, "\(run.stderr)\n\(result.stderr)")
            let seen = try object(run.stdout.split(separator: "\n").last.map(String.init) ?? "")
            let shown = try #require(seen["shown"] as? [String: Any], "\(seen)")
            // What the page showed is an alarm the take printed, as it printed it.
            let messages = printed.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["state"] as? String == "on" }.compactMap { $0["message"] as? String }
            let text = try #require(shown["text"] as? String)
            #expect(text.hasPrefix("ALARM dead air: below -50.0 dBFS for 0.3 s (since 00:00:") && messages.contains { text.contains($0) },
                    "\(text) \(messages)")
            #expect(shown["kind"] as? String == "silence" && shown["count"] as? Int == 1, "\(shown)")
            #expect(shown["background"] as? String == "rgba(238, 51, 51, 1)", "red, as REC is: \(shown)")
            #expect(seen["cleared"] as? Bool == true, "\(seen)")
            let ended = (seen["ended_in_list"] as? [String])?.first ?? ""
            #expect(ended.hasPrefix("alarm at ") && ended.contains(" over: sound back after "), "\(seen)")
            #expect(seen["alarm_markers_listed"] as? Int == 0, "an alarm's marker is said by the alarm's own line: \(seen)")
            let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && png.count > 10_000)
            try? FileManager.default.removeItem(atPath: docsPictures + "/serve-alarm.png")
            try FileManager.default.copyItem(atPath: screenshot, toPath: docsPictures + "/serve-alarm.png")
        }
    }
}

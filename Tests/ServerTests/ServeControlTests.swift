// The page's controls on `recorder serve`'s takes: next take, circle and no good into the take sheet, the
// format and the rate chosen, one take at a time; each read back from the files.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite struct ServeControlTests {
    @Test func nextTakeCircleAndNoGoodLandInTheFilesTakeSheets() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0"], server: server)
            let started = try object(try await http("POST", serve.url + "api/record", body: "{\"scene\": \"s1\", \"project\": \"field\"}").body)
            #expect(started["file"] as? String == "s1-001.wav" && started["take"] as? Int == 1)
            #expect(try await http("POST", serve.url + "api/record", body: "{}").status == 409, "one take at a time")
            _ = try await waitForState(serve.url, "half a second recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 0.5 }
            #expect(try object(try await http("POST", serve.url + "api/circle").body)["circled"] as? Bool == true)
            let next = try object(try await http("POST", serve.url + "api/next").body)
            #expect(next["file"] as? String == "s1-002.wav" && next["take"] as? Int == 2, "\(next)")
            let state = try await waitForState(serve.url, "the second take recording") { ($0["elapsed_s"] as? Double ?? 0) >= 0.5 }
            #expect(state["file"] as? String == "s1-002.wav" && state["circled"] as? Bool == false && state["take"] as? Int == 2)
            #expect(try object(try await http("POST", serve.url + "api/nogood").body)["no_good"] as? Bool == true)
            let stopped = try object(try await http("POST", serve.url + "api/stop").body)
            // A loss, if a loaded machine made one, is counted and placed (a gap), never silent.
            let dropped = stopped["dropped_frames"] as? Int ?? -1, gaps = stopped["gaps"] as? Int ?? -1
            #expect(dropped >= 0 && gaps >= 0 && (dropped == 0) == (gaps == 0), "\(stopped)")
            #expect(try await http("POST", serve.url + "api/stop").status == 409, "nothing to stop")

            let first = try #require(RecordingMetadata.read(path: folder + "/s1-001.wav"))
            #expect(first.scene == "s1" && first.take == 1 && first.project == "field" && first.circled && !first.noGood)
            let second = try #require(RecordingMetadata.read(path: folder + "/s1-002.wav"))
            #expect(second.scene == "s1" && second.take == 2 && !second.circled && second.noGood)
            // The take list says the same, once each file is measured.
            let deadline = monotonicSeconds() + 60
            var takes: [[String: Any]] = []
            while monotonicSeconds() < deadline {
                takes = (try object(try await http("GET", serve.url + "api/takes").body)["takes"] as? [[String: Any]]) ?? []
                if takes.count == 2 && takes.allSatisfy({ $0["measured"] as? Bool == true }) { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            let byName = Dictionary(uniqueKeysWithValues: takes.map { ($0["name"] as? String ?? "", $0) })
            #expect(byName["s1-001.wav"]?["circled"] as? Bool == true && byName["s1-002.wav"]?["no_good"] as? Bool == true)
            let seconds = try #require(byName["s1-002.wav"]?["seconds"] as? Double)
            #expect(abs(seconds - Double(try readSoundFile(folder + "/s1-002.wav").frames) / 44_100) < 0.001)
            #expect((byName["s1-001.wav"]?["integrated_lufs"] as? Double).map { abs($0 - -9.0) < 0.5 } == true,
                    "the sine at −6 dBFS peak reads about −9 LUFS: \(byName["s1-001.wav"]?["integrated_lufs"] ?? "none")")
            _ = await serve.stop()
        }
    }

    @Test func theFormatRateAndChannelsChosenAreTheFiles() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let serve = try await ServeProcess(["--folder", folder, "--listen", "127.0.0.1:0"], server: server)
            let started = try object(try await http("POST", serve.url + "api/record",
                                                     body: "{\"type\": \"flac\", \"rate\": 48000, \"channels\": 2}").body)
            #expect(started["file"] as? String == "take-001.flac", "\(started)")
            let state = try await waitForState(serve.url, "a second recorded") { ($0["elapsed_s"] as? Double ?? 0) >= 1 }
            let format = state["format"] as? [String: Any]
            #expect(format?["type"] as? String == "flac" && format?["rate"] as? Int == 48_000 && format?["channels"] as? Int == 2)
            _ = try await http("POST", serve.url + "api/stop")
            let file = try readSoundFile(folder + "/take-001.flac")
            #expect(file.sampleRate == 48_000 && file.channels == 2 && file.frames >= 48_000)
            for (body, words) in [("{\"rate\": 1}", "invalid rate 1"), ("{\"channels\": 99}", "invalid channel count 99"),
                                  ("{\"type\": \"exe\"}", "invalid format 'exe'"), ("{\"name\": \"../x.wav\"}", "invalid take name"),
                                  ("not json", "not a JSON object")] {
                let refused = try await http("POST", serve.url + "api/record", body: body)
                #expect(refused.status == 400 && refused.body.contains(words), "\(body): \(refused.status) \(refused.body)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["take-001.flac"])
            _ = await serve.stop()
        }
    }
}

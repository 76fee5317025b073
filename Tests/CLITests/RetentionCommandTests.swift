// `record --segment --keep`: a logger removes its own expired files as it goes, each removal a line and an
// event, and leaves every other file in its folder.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct RetentionCommandTests {
    @Test func aLoggerRemovesItsOwnExpiredFilesAndNothingElse() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory + "/log", withIntermediateDirectories: true)
            let other = directory + "/log/other.wav"
            try "not the logger's".write(toFile: other, atomically: true, encoding: .utf8)
            let source = try await NumberedSource(server: server, directory: try temporaryDirectory())
            defer { source.stop() }
            let result = try await recorder(["record", directory + "/log/%H%M%S.wav", "--segment", "1s", "--utc", "--keep", "2s",
                                             "--duration", "6.5", "--source", NumberedSource.name, "--rate", "44100",
                                             "--channels", "1", "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let events = try eventLines(result.stdout)
            let finished = events.filter { $0.event == "file-finished" }.compactMap(\.path)
            let removed = events.filter { $0.event == "removed" }
            #expect(removed.allSatisfy { $0.reason == "expired" }, "\(removed)")
            let removedPaths = removed.compactMap(\.path)
            // 6.5 s in one-second files kept for 2 s after their last frame: the first ones go as later ones end.
            #expect(removedPaths.count >= 3 && finished.count >= 7, "\(removedPaths) of \(finished)")
            #expect(removedPaths == Array(finished.prefix(removedPaths.count)), "oldest first: \(removedPaths) \(finished)")
            for path in removedPaths {
                #expect(access(path, F_OK) != 0, "\(path) is still there")
                #expect(result.stderr.contains("removed \(path): older than --keep 2s"), "\(result.stderr)")
            }
            let kept = finished.dropFirst(removedPaths.count)
            #expect(kept.count >= 2 && kept.allSatisfy { access($0, F_OK) == 0 }, "\(kept)")
            #expect(access(other, F_OK) == 0, "a file the logger did not write stays")
            // The index lists what is left, and nothing else.
            let index = try FileManager.default.contentsOfDirectory(atPath: directory + "/log").filter { $0.hasPrefix(".recorder-index-") }
            #expect(index.count == 1)
            let listed = try String(contentsOfFile: directory + "/log/" + (index.first ?? ""), encoding: .utf8)
                .split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
            #expect(listed == Array(kept), "\(listed)")
        }
    }
}

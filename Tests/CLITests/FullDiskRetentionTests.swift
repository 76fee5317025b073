// `record --segment --keep-free` on a disk that fills: a 1 MiB tmpfs, one-second files, the logger's oldest
// removed to keep 40 % free while a file of someone else's stays; the take goes on to its end.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct FullDiskRetentionTests {
    @Test func aLoggerOnASmallDiskKeepsItsRoomByRemovingItsOldestFiles() async throws {
        // A disk of its own, small enough to fill in seconds (root only: the test stages run as root).
        try #require(getuid() == 0, "mounting a tmpfs needs root (scripts/test runs as root)")
        let disk = try temporaryDirectory()
        let mounted = try runProcess("mount", ["-t", "tmpfs", "-o", "size=1m", "rk-logger-test", disk])
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? runProcess("umount", [disk]) }
        let other = disk + "/notes.txt"
        try String(repeating: "x", count: 100_000).write(toFile: other, atomically: false, encoding: .utf8)
        try await withPrivateServer { server in
            let source = try await NumberedSource(server: server, directory: try temporaryDirectory())
            defer { source.stop() }
            // 44.1 kHz mono 16-bit WAV: 88 KiB a second; 40 % of 1 MiB is 410 KiB kept free.
            let result = try await recorder(["record", disk + "/%H%M%S.wav", "--segment", "1s", "--utc", "--keep-free", "40%",
                                             "--duration", "10.5", "--source", NumberedSource.name, "--rate", "44100",
                                             "--channels", "1", "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let removed = try eventLines(result.stdout).filter { $0.event == "removed" }
            #expect(removed.count >= 3 && removed.allSatisfy { $0.reason == "disk-room" }, "\(removed)")
            #expect(removed.compactMap(\.path).allSatisfy { access($0, F_OK) != 0 })
            #expect(access(other, F_OK) == 0, "a file the logger did not write stays")
            // What is left fits with the room kept, but for the file being written when it was last looked at.
            let left = try FileManager.default.contentsOfDirectory(atPath: disk).filter { $0.hasSuffix(".wav") }
            let bytes = try left.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: disk + "/" + $1)[.size] as? Int) ?? 0) }
            print("full disk: \(removed.count) files removed for room, \(left.count) left, \(bytes) bytes")
            #expect(bytes <= 1_048_576 - 419_430 - 100_000 + 2 * 88_300, "\(left): \(bytes) bytes")
            #expect(!result.stderr.contains("disk is full"), "\(result.stderr)")
        }
    }
}

// A logger's retention (SegmentRetention): only the files its index lists, oldest first, by age or for
// room on the disk, never the file being written, the folders it empties removed, across restarts.
import Foundation
import Glibc
@testable import RecorderKit
import Testing
import TestSupport

struct SegmentRetentionTests {
    /// A file of `frames` at 1 kHz named for its start (`base/log/HH/MMSS.wav`), made on disk; its last
    /// frame `start + frames / 1000`.
    func finished(_ base: String, start: Double, frames: Int64 = 60_000) throws -> FinishedFile {
        let name = try #require(SegmentNames(pattern: base + "/log/%H/%M%S.wav", zone: .utc).name(at: start))
        try SegmentNames.makeFolders(for: name)
        try "audio".write(toFile: name, atomically: true, encoding: .utf8)
        return FinishedFile(path: name, index: 1, frameCount: frames, sampleRate: 1_000, channelCount: 1, startTime: start, endFrame: frames)
    }

    @Test func expiredFilesGoOldestFirstAndNothingElse() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let pattern = base + "/log/%H/%M%S.wav"
        let retention = try SegmentRetention(pattern: pattern, policy: RetentionPolicy(maxAge: 3_600))
        #expect(retention.root == base + "/log" && retention.indexPath.hasPrefix(base + "/log/.recorder-index-"))
        // Minute files from 10:00 to 11:59 UTC on 2026-11-29; one of the folder's files is not the logger's.
        let start = 1_795_946_400.0
        var files: [FinishedFile] = []
        for minute in 0..<120 {
            let file = try finished(base, start: start + Double(minute) * 60)
            try retention.add(file)
            files.append(file)
        }
        try "not the logger's".write(toFile: base + "/log/10/other.wav", atomically: true, encoding: .utf8)
        // At 12:00: files whose last frame is more than an hour old (10:00 to 10:58, ending by 10:59) go.
        let removals = retention.expire(now: start + 7_200)
        #expect(removals.map(\.path) == files.prefix(59).map(\.path) && removals.allSatisfy { $0.reason == .expired })
        #expect(files.prefix(59).allSatisfy { access($0.path, F_OK) != 0 } && files.dropFirst(59).allSatisfy { access($0.path, F_OK) == 0 })
        #expect(access(base + "/log/10/other.wav", F_OK) == 0, "a file the logger did not write stays, and so does its folder")
        // A logger started again reads the index: what is left, and expires it in turn.
        let again = try SegmentRetention(pattern: pattern, policy: RetentionPolicy(maxAge: 60))
        #expect(again.files == files.dropFirst(59).map(\.path))
        // (A minute old exactly is not older than a minute: 11:58's file, ended 11:59, stays.)
        _ = again.expire(now: start + 7_200)
        #expect(again.files == files.suffix(2).map(\.path))
        var status = stat()
        #expect(stat(base + "/log/11", &status) == 0, "the folder of the file kept stays")
        #expect(stat(base + "/log/10", &status) == 0 && access(base + "/log/10/1000.wav", F_OK) != 0)
        // A second logger with its own pattern in the same folder keeps its own index.
        let other = try SegmentRetention(pattern: base + "/log/%H/%M%S-b.wav", policy: RetentionPolicy(maxAge: 1))
        #expect(other.indexPath != retention.indexPath && other.files.isEmpty)
    }

    @Test func roomOnTheDiskIsMadeOldestFirstButNeverFromTheFileBeingWritten() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        // A 1 000-byte disk with 50 free, and 100 more for each of the logger's files gone from it.
        let start = 1_795_946_400.0
        let files = try (0..<5).map { try finished(base, start: start + Double($0) * 60) }
        let paths = files.map(\.path)
        let retention = try SegmentRetention(pattern: base + "/log/%H/%M%S.wav", policy: RetentionPolicy(minimumFree: .fraction(0.2))) { _ in
            (50 + 100 * Int64(paths.count { access($0, F_OK) != 0 }), 1_000)
        }
        for file in files { try retention.add(file) }
        // Left alone when the oldest is the one being written.
        #expect(retention.expire(now: start + 600, writing: files[0].path).isEmpty)
        // 200 of 1 000 wanted free: the two oldest go (50 → 150 → 250), no more.
        let removals = retention.expire(now: start + 600)
        #expect(removals.map(\.path) == Array(paths.prefix(2)) && removals.allSatisfy { $0.reason == .diskRoom }, "\(removals)")
        #expect(retention.files == Array(paths.dropFirst(2)))
    }
}

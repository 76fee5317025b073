// Issue 4.8: a recording while every core is kept busy by other processes loses no frame unaccounted for.
// The test command runs this suite on its own (it saturates the machine for 30 s, which would
// distort the timing of the other suites).
import Foundation
import Glibc
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct OverloadTests {
    /// 30 s of the numbered source recorded beside busy loops on every core (and one more): every frame
    /// of the feed in the file in order, or counted and placed as silence where the summary says (its
    /// feeder runs at real-time priority, so the load cannot starve the source itself).
    @Test func thirtySecondsWithEveryCoreSaturatedAreBitExact() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            // Busy loops at normal priority, one per core (plus one), running until killed, or until this
            // process is gone (a test run killed from outside leaves none behind).
            let hogs = try (0...cores).map { _ in
                try RunningProcess("/bin/sh", ["-c", "while kill -0 \(getpid()) 2>/dev/null; do :; done"], environment: [:])
            }
            defer { for hog in hogs { hog.send(SIGKILL); _ = hog.waitBlocking() } }
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            defer { recorder.stop() }
            let path = directory + "/loaded.aiff"
            try recorder.record(to: path, frameLimit: 44_100 * 30)
            let summary = try #require(try await recorder.waitForRecording())
            print("overload: \(cores + 1) busy loops on \(cores) cores; \(summary.frameCount) frames recorded, "
                  + "\(summary.droppedFrames) dropped, \(recorder.droppedFrames) dropped in capture overall; "
                  + "the feed woke at most \(source.worstLateness) s late")
            // The promise, not the machine's speed: the take is as long as asked, and every frame of the feed
            // is in it in order, or its loss is counted and placed (silence of exactly its length where the
            // summary says). How much a saturated machine drops is a figure for the benchmarks.
            #expect(summary.frameCount == 44_100 * 30)
            #expect(summary.droppedFrames == summary.gaps.filter { $0.reason == .dropped }.reduce(0) { $0 + $1.frameCount })
            let check = try await source.check(try readSoundFile(path).samples,
                                               gaps: summary.gaps)
            #expect(check.unexplained.isEmpty, "\(check)")
            #expect(check.numbered + check.counted >= 44_100 * 30 - 4_410, "\(check)")
        }
    }
}

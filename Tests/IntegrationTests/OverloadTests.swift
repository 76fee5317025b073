// Issue 4.8: a recording while every core is kept busy by other processes loses no frame.
// The test command runs this suite on its own (it saturates the machine for 30 s, which would
// distort the timing of the other suites).
import Foundation
import Glibc
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct OverloadTests {
    /// 30 s of the numbered source recorded beside busy loops on every core (and one more): nothing
    /// dropped, every frame of the feed in the file in order (its feeder runs at real-time priority, so
    /// the load cannot starve the source itself).
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
            #expect(summary.droppedFrames == 0 && summary.gaps.isEmpty && summary.frameCount == 44_100 * 30)
            let check = try await source.check(try readSoundFile(path).samples)
            #expect(check.unexplained.isEmpty && check.numbered >= 44_100 * 30 - 4_410, "\(check)")
        }
    }
}

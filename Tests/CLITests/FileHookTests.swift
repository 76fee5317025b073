// `record --on-file`: a program run once per finished file with its figures, whose failure, hang or
// flood is reported and counted while the take goes on untouched.
import Foundation
import Glibc
import RecorderCommandLine
import RecorderKit
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct FileHookTests {
    /// A script that logs its argument and environment, then for the second file exits 3 and for the
    /// third sleeps past the time limit; it also writes to its standard output, which must not reach the
    /// command's (the level lines).
    static func script(in directory: String) throws -> String {
        let path = directory + "/hook.sh"
        try """
            #!/bin/sh
            echo "$1|$RECORDER_FILE|$RECORDER_FILE_INDEX|$RECORDER_FRAMES|$RECORDER_SECONDS|$RECORDER_SAMPLE_RATE|$RECORDER_CHANNELS|$RECORDER_START" >> \(directory)/hook.log
            echo HOOK-SAYS-HELLO
            [ "$RECORDER_FILE_INDEX" = 2 ] && exit 3
            [ "$RECORDER_FILE_INDEX" = 3 ] && exec sleep 30
            exit 0

            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func eachFinishedFileRunsTheProgramOnceAndItsFailuresAreCountedNotFelt() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let hook = try Self.script(in: directory)
            // A source at real time (the sine source runs ahead of the clock by its latency: its 3.5 s take
            // passed two boundaries).
            let source = try await NumberedSource(server: server, directory: try temporaryDirectory())
            defer { source.stop() }
            let result = try await recorder(["record", directory + "/%H%M%S.wav", "--segment", "1s", "--utc", "--duration", "3.5",
                                             "--source", NumberedSource.name, "--rate", "44100", "--channels", "1",
                                             "--on-file", hook, "--hook-timeout", "1",
                                             "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wav") }.sorted()
                .map { directory + "/" + $0 }
            #expect((4...5).contains(files.count), "\(files)")
            // The take untouched: 3.5 s across its files, exactly.
            let frames = try files.map { try readSoundFile($0).frames }
            #expect(frames.reduce(0, +) == 154_350, "\(frames)")
            // One run per file, in order, each with its own figures.
            let runs = try String(contentsOfFile: directory + "/hook.log", encoding: .utf8).split(separator: "\n")
                .map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
            #expect(runs.count == files.count, "\(runs)")
            for (index, (run, path)) in zip(runs, files).enumerated() where run.count == 8 {
                #expect(run[0] == path && run[1] == path && run[2] == String(index + 1), "\(run)")
                #expect(run[3] == String(frames[index]) && run[4] == format(Double(frames[index]) / 44_100, 3), "\(run)")
                #expect(run[5] == "44100" && run[6] == "1", "\(run)")
                if index > 0 {
                    // A cut file starts at its boundary (UTC, as its name): 2026-11-29T23:04:29Z for 230429.wav.
                    let name = String(path.split(separator: "/").last!.prefix(6))
                    #expect(run[7].count == 20 && run[7].hasSuffix("Z") && String(run[7].filter(\.isNumber).suffix(6)) == name, "\(run)")
                }
            }
            // Failures said as they happen, counted at the end; the hook's output on stderr, not stdout.
            #expect(result.stderr.contains("--on-file '\(hook)' for \(files[1]) exited with status 3"), "\(result.stderr)")
            #expect(result.stderr.contains("--on-file '\(hook)' for \(files[2]) ran past its 1.0 s time limit and was stopped"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("on-file: \(files.count) runs, 2 failed (1 at the time limit)"), "\(result.stderr)")
            #expect(!result.stdout.contains("HOOK-SAYS-HELLO") && result.stderr.contains("HOOK-SAYS-HELLO"))
            let failures = try eventLines(result.stdout).filter { $0.event == "hook-failed" }
            #expect(failures.map(\.path) == [files[1], files[2]], "\(failures)")
            let finished = try eventLines(result.stdout).filter { $0.event == "file-finished" }.compactMap(\.path)
            #expect(finished == files)
        }
    }

    /// A program slower than the files come: at most `queueLimit` wait, the rest are left out, each one
    /// reported and counted; nothing blocks the caller.
    @Test func aFloodIsBoundedAndEveryFileLeftOutIsReported() throws {
        let slow = try slowProgram()
        let reported = Mutex<[String]>([])
        let hooks = HookRunner(program: slow, timeout: 10, queueLimit: 2) { job, what in
            reported.withLock { $0.append("\(job.path ?? "") \(what)") }
        }
        let began = Date()
        for index in 1...10 {
            hooks.enqueue(fileJob(index))
        }
        #expect(Date().timeIntervalSince(began) < 1, "enqueueing never waits for a run")
        let outcome = hooks.finish()
        #expect(outcome.run + outcome.leftOut == 10 && outcome.leftOut >= 7 && outcome.failed == 0, "\(outcome)")
        let lines = reported.withLock { $0 }
        #expect(lines.count == outcome.leftOut && lines.allSatisfy { $0.hasSuffix("was left out: 2 runs were waiting already") },
                "\(lines)")
    }

    /// At the end of a take the runner gives what waits its time limit once more, no longer: with ten runs
    /// of at least 0.3 s queued and a 1 s limit, at most five begin (one in progress, then those begun
    /// within the second), the rest are left out, each reported; so a dead hook cannot hold the exit for
    /// 64 time limits.
    @Test func theEndWaitsForTheQueueOneTimeLimitAtMost() throws {
        let slow = try slowProgram()
        let reported = Mutex<[String]>([])
        let hooks = HookRunner(program: slow, timeout: 1) { job, what in reported.withLock { $0.append(what) } }
        for index in 1...10 {
            hooks.enqueue(fileJob(index))
        }
        let outcome = hooks.finish()
        #expect(outcome.run + outcome.leftOut == 10 && outcome.run <= 5 && outcome.failed == 0, "\(outcome)")
        let lines = reported.withLock { $0 }
        #expect(lines.count == outcome.leftOut
                && lines.allSatisfy { $0 == "was left out: the take had ended and the hooks' 1.0 s to finish were up" }, "\(lines)")
    }

    /// A program that takes 0.3 s and succeeds.
    private func slowProgram() throws -> String {
        let slow = try temporaryDirectory() + "/slow.sh"
        try "#!/bin/sh\nsleep 0.3\n".write(toFile: slow, atomically: true, encoding: .utf8)
        chmod(slow, 0o755)
        return slow
    }

    /// The job of a one-frame file `/fINDEX`.
    private func fileJob(_ index: Int) -> HookJob {
        HookJob(file: FinishedFile(path: "/f\(index)", index: index, frameCount: 1, sampleRate: 8_000, channelCount: 1, startTime: nil, endFrame: 1))
    }
}

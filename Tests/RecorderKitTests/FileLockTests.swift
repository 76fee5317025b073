// One writer per file, without false refusals: a lock another process holds for a moment (as a child
// of this process holds every descriptor between its fork and its exec) is waited for; one held for
// good, or by a writer in this process, is refused and the file left untouched.
import Foundation
import Glibc
import Testing
import TestSupport
@testable import RecorderKit

@Suite(.timeLimit(.minutes(2)))
struct FileLockTests {
    private let format = try! StreamFormat(sampleRate: 44_100, channelCount: 1, sampleFormat: .int16)
    private let tenMilliseconds = [UInt8](repeating: 1, count: 882)

    /// Starts a shell that takes an exclusive lock on `path` (util-linux's `flock` on its descriptor 9)
    /// and then runs `command` in its own process, and returns once the lock is held.
    private func holdLock(on path: String, running command: String) async throws -> RunningProcess {
        let script = "exec 9>>\"$0\"; flock --exclusive 9 || exit 1; echo held; " + command
        let holder = try RunningProcess("/bin/sh", ["-c", script, path], environment: ["PATH": "/usr/bin:/bin"])
        for await line in holder.lines where line == "held" { return holder }
        throw TestFailure("flock did not take the lock: \(await holder.wait().stderr)")
    }

    /// The original failure (CI, ControlPathTests): a take closed and recorded again at once was
    /// refused because a test running beside it had just started a child, which held a copy of the
    /// closed file's locked descriptor until its exec.
    @Test func aLockAnotherProcessHoldsForAMomentIsWaitedFor() async throws {
        let path = try temporaryDirectory() + "/brief.aiff"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let holder = try await holdLock(on: path, running: "sleep 0.1")
        let began = monotonicSeconds()
        let writer = try SoundFileWriter(path: path, format: format, overwrite: true)
        let waited = monotonicSeconds() - began
        try tenMilliseconds.withUnsafeBytes { try writer.write(packets: $0) }
        writer.close()
        #expect(waited > 0.02, "the lock was released before the writer asked: the test proves nothing")
        #expect(await holder.wait().status == 0)
        #expect(try readSoundFile(path).frames == 441)
    }

    @Test func aLockAnotherProcessKeepsIsRefusedAndTheFileLeftAlone() async throws {
        let path = try temporaryDirectory() + "/kept.aiff"
        let first = try SoundFileWriter(path: path, format: format)
        try tenMilliseconds.withUnsafeBytes { try first.write(packets: $0) }
        first.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let holder = try await holdLock(on: path, running: "exec sleep 60")
        let began = monotonicSeconds()
        do {
            _ = try SoundFileWriter(path: path, format: format, overwrite: true).close()
            Issue.record("a file another process holds was opened for writing")
        } catch {
            #expect(error.code == .fileInUse)
            #expect(error.message == "'\(path)' is in use by another recording and was left untouched; "
                    + "choose another name or stop that recording first")
        }
        let waited = monotonicSeconds() - began
        #expect(waited >= Double(FileLock.patience) / 1e9 && waited < 5)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        holder.send(SIGTERM)
        _ = await holder.wait()
        // Released: the next writer gets the file.
        let after = try SoundFileWriter(path: path, format: format, overwrite: true)
        after.close()
        #expect(try readSoundFile(path).frames == 0)
    }

    /// A writer in this process is known exactly: refused at once, not after the wait, and free
    /// again the moment it is closed, however many children the process starts meanwhile.
    @Test func aWriterInThisProcessIsRefusedAtOnceAndFreedByItsClose() async throws {
        let path = try temporaryDirectory() + "/mine.aiff"
        let first = try SoundFileWriter(path: path, format: format)
        let began = monotonicSeconds()
        do {
            _ = try SoundFileWriter(path: path, format: format, overwrite: true).close()
            Issue.record("a second writer opened a file this process writes")
        } catch {
            #expect(error.code == .fileInUse)
        }
        #expect(monotonicSeconds() - began < Double(FileLock.patience) / 1e9)
        try tenMilliseconds.withUnsafeBytes { try first.write(packets: $0) }
        first.close()
        #expect(try readSoundFile(path).frames == 441)
        // Closed and reopened a hundred times while children are started beside it.
        let spawner = Task.detached {
            for _ in 0..<40 { _ = await (try? RunningProcess("/bin/true", [], environment: [:]))?.wait() }
        }
        for _ in 0..<100 {
            let writer = try SoundFileWriter(path: path, format: format, overwrite: true)
            writer.close()
        }
        await spawner.value
    }
}

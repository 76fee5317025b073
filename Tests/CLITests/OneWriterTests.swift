// Issue 12, point 3: one writer per file, and a file deleted under a recording is reported, not trusted.
import Foundation
import Testing
import TestSupport

/// Starts `recorder record PATH --levels-json` (plus `extra`) on the mono sink's monitor and returns it
/// once a level line reports at least `frames` frames (so the file is open and locked).
private func recordingStarted(_ path: String, on server: PrivateServer, extra: [String] = [],
                              through frames: Int64 = 4_410) async throws -> RunningProcess {
    try await recordingStartedAt(path, on: server, extra: extra, through: frames).0
}

/// As `recordingStarted`, also returning the frames last reported.
private func recordingStartedAt(_ path: String, on server: PrivateServer, extra: [String] = [],
                                through frames: Int64) async throws -> (RunningProcess, Int64) {
    let process = try RunningProcess(try builtProduct("recorder"),
        ["record", path, "--source", PrivateServer.monoSink + ".monitor", "--levels-json"] + extra,
        environment: server.clientEnvironment)
    for await line in process.lines where !line.contains("\"event\"") {
        let reported = try JSONDecoder().decode(LevelLine.self, from: Data(line.utf8)).frames
        if reported >= frames { return (process, reported) }
    }
    throw TestFailure("recorder stopped before \(frames) frames: \(await process.wait().stderr)")
}

@Suite(.timeLimit(.minutes(3)))
struct OneWriterTests {
    @Test func forceOnAFileAnotherRecordingHoldsIsRefusedAndTheFirstTakeIsKept() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/f.aiff"
            // The first recording runs until it is told to stop, so the second surely meets it.
            let first = try await recordingStarted(path, on: server)
            let second = try await recorder(["record", path, "--duration", "1", "--force"], server: server)
            #expect(second.status == 73)
            #expect(second.stderr == "recorder: '\(path)' is in use by another recording and was left untouched; "
                    + "choose another name or stop that recording first\n")
            first.send(SIGINT)
            for await _ in first.lines {}
            let (status, stderr) = await first.wait()
            #expect(status == 0, "\(stderr)")
            // The first take is whole: the file holds every frame its summary counts, from its start.
            let file = try readSoundFile(path)
            #expect(file.frames >= 4_410 && stderr.contains(" \(file.frames) frames,"),
                    "\(file.frames) frames; \(stderr)")
            #expect(try runProcess("soxi", ["-s", path]).stdout == "\(file.frames)\n")
            // Once the first recording is over, --force replaces the file as before.
            let third = try await recorder(["record", path, "--duration", "0.5", "--force"], server: server)
            #expect(third.status == 0, "\(third.stderr)")
            let replaced = try readSoundFile(path).frames
            #expect(replaced == 22_050 && third.stderr.contains(": 0.500 s, 22050 frames,"), "\(replaced) frames; \(third.stderr)")
        }
    }

    @Test(arguments: ["the file", "its directory"])
    func aFileDeletedDuringTheRecordingEndsItWith74(_ what: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory() + "/takes"
            #expect(mkdir(directory, 0o755) == 0)
            let path = directory + "/x.aiff"
            let process = try await recordingStarted(path, on: server, through: 22_050)
            // The file's size right after the removal (read through a descriptor that outlives it), and
            // at the end: how much audio the recorder wrote after the removal, however late the test runs.
            let descriptor = open(path, O_RDONLY)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            if what == "the file" {
                #expect(unlink(path) == 0)
            } else {
                try FileManager.default.removeItem(atPath: directory)
            }
            var status = stat()
            #expect(fstat(descriptor, &status) == 0)
            let sizeAtRemoval = Int64(status.st_size)
            for await _ in process.lines {}
            let (exitStatus, stderr) = await process.wait()
            #expect(exitStatus == 74, "\(stderr)")
            #expect(stderr.contains("recorder: '\(path)' was deleted (or replaced) during the recording: the "), "\(stderr)")
            #expect(stderr.contains("are only in the deleted file and are lost when it closes"), "\(stderr)")
            #expect(fstat(descriptor, &status) == 0 && status.st_nlink == 0)
            // Checked once a second of audio: found within a second of audio after the removal, plus the
            // buffers in flight, at most the pool's three (more audio waits in the server's queue): a bound
            // of structure, not of time.
            let written = (Int64(status.st_size) - sizeAtRemoval) / 2
            #expect(written <= 44_100 + 3 * 4_410, "\(written) frames written after removing \(what)")
            print("removing \(what) during a recording: exit 74, \(written) frames of audio later")
        }
    }
}

// Faults a recording must survive (issue 4, first part): SIGKILL, the server dying, nothing to record.
import Foundation
import Testing
import TestSupport

/// Starts `recorder record PATH --levels-json` on the mono sink's monitor and returns once the JSON lines
/// report at least `frames` frames, with the frames last reported.
private func recording(to path: String, on server: PrivateServer,
                       through frames: Int64) async throws -> (RunningProcess, Int64) {
    let process = try RunningProcess(try builtProduct("recorder"),
        ["record", path, "--source", PrivateServer.monoSink + ".monitor", "--levels-json"],
        environment: server.clientEnvironment)
    for await line in process.lines {
        let reported = try JSONDecoder().decode(LevelLine.self, from: Data(line.utf8)).frames
        if reported >= frames { return (process, reported) }
    }
    throw TestFailure("recorder stopped before \(frames) frames: \(process.wait().stderr)")
}

@Suite(.timeLimit(.minutes(1)))
struct FaultTests {
    @Test func afterSIGKILLTheFileIsValidAndLosesAtMostThreeTenthsOfASecond() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/killed.aiff"
            let (process, frames) = try await recording(to: path, on: server, through: 88_200)
            process.send(SIGKILL)
            let (status, _) = process.wait()
            #expect(status == 9)
            // No chance to finalize: the header written with the last buffer must describe the data.
            let file = try readSoundFile(path)
            #expect(Int64(file.frames) >= frames - 13_230, "\(file.frames) frames on disk, \(frames) reported")
            let soxi = try runProcess("soxi", ["-s", path])
            #expect(Int(soxi.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == file.frames)
        }
    }

    @Test func whenTheServerDiesTheFileIsFinalizedAndTheExitIs74() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/lost.aiff"
            let (process, frames) = try await recording(to: path, on: server, through: 22_050)
            kill(server.pid, SIGKILL)
            for await _ in process.lines {}
            let (status, stderr) = process.wait()
            #expect(status == 74)
            #expect(stderr.contains("recorder: capture from '\(PrivateServer.monoSink).monitor' stopped: the server closed the stream"))
            let file = try readSoundFile(path)
            #expect(Int64(file.frames) >= frames)
            #expect(stderr.contains("recorded \(path): ") && stderr.contains("\(file.frames) frames"))
        }
    }

    @Test func anEmptyRecordingIsAValidAIFFWithZeroFramesThatSoxAndLibsndfileOpen() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/empty.aiff"
            let result = try await recorder(["record", path, "--duration", "0"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("0.000 s, 0 frames"))
            let file = try readSoundFile(path)
            #expect(file.frames == 0 && file.channels == 1 && file.sampleRate == 44_100)
            let sox = try runProcess("sox", [path, "-n", "stat"])
            #expect(sox.status == 0, "\(sox.stderr)")
            #expect(sox.stderr.contains("Samples read:                 0"), "\(sox.stderr)")
            #expect(try runProcess("soxi", ["-s", path]).stdout == "0\n")
            #expect(Array(try fileHeader(path)[8..<12]) == Array("AIFF".utf8))
        }
    }
}

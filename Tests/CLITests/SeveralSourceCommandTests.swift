// `recorder record` and `meter` with the source option repeated: one take of several sources, as the command says it.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SeveralSourceCommandTests {
    private struct SourcesLine: Decodable {
        struct Source: Decodable {
            let name: String
            let first_channel: Int
            let channels: Int
        }
        let frames: Int64
        let peak_db: [Double?]
        let sources: [Source]
    }

    /// `-d` twice: a three-channel take (the sine source's one, the stereo sink's monitor's two), each
    /// JSON line naming the sources and their channels, the summary a line per source; the file holds
    /// the sine in channel 1.
    @Test func theSourceOptionRepeatedRecordsOneTakeOfEverySource() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/two.wav"
            let result = try await recorder(["record", path, "-d", PrivateServer.sineSource, "-d", PrivateServer.stereoSink + ".monitor",
                                             "--duration", "1.5", "--levels-json"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try result.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"t\"") }
                .map { try JSONDecoder().decode(SourcesLine.self, from: Data($0.utf8)) }
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(line.sources.map(\.name) == [PrivateServer.sineSource, PrivateServer.stereoSink + ".monitor"])
                #expect(line.sources.map(\.first_channel) == [0, 1])
                #expect(line.sources.map(\.channels) == [1, 2])
                #expect(line.peak_db.count == 3)
            }
            let summary = result.stdout + result.stderr
            #expect(summary.contains("source 1 \(PrivateServer.sineSource): channel 1, began"), "\(summary)")
            #expect(summary.contains("source 2 \(PrivateServer.stereoSink).monitor: channels 2-3, began"), "\(summary)")
            let take = try readSoundFile(path)
            #expect(take.channels == 3)
            #expect(take.frames == 66_150)
            #expect(levels(of: take.channel(0).suffix(22_050)).peak > -7)
            #expect(levels(of: take.channel(1)).peak == -.infinity || levels(of: take.channel(1)).peak < -100)
        }
    }

    /// Bad lists of sources get one line and a usage status, and leave no file.
    @Test func aSourceNamedTwiceIsRefusedInOneLine() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let path = directory + "/twice.wav"
            let result = try await recorder(["record", path, "-d", PrivateServer.sineSource, "-d", PrivateServer.sineSource,
                                             "--duration", "1"], server: server)
            #expect(result.status != 0)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("named twice"))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// A take of several sources to standard output (an AU stream, whose reader knows its channels), and
    /// one stopped by Ctrl-C (SIGINT) once it has levels to show: both files valid, three channels, the
    /// stopped one with at least the second of audio its level lines showed.
    @Test func aPipelineAndASignal() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let executable = try builtProduct("recorder")
            let piped = try runProcess("/bin/sh", ["-c", "\"$0\" record - -d \"$1\" -d \"$2\" --duration 1 | cat > \"$3\"", executable,
                                                   PrivateServer.sineSource, PrivateServer.stereoSink + ".monitor", directory + "/piped.au"],
                                       environment: server.clientEnvironment)
            #expect(piped.status == 0, "\(piped.stderr)")
            let stream = try readSoundFile(directory + "/piped.au")
            #expect(stream.channels == 3 && stream.frames == 44_100)
            let path = directory + "/stopped.wav"
            let process = try RunningProcess(try builtProduct("recorder"),
                ["record", path, "-d", PrivateServer.sineSource, "-d", PrivateServer.stereoSink + ".monitor", "--levels-json"],
                environment: server.clientEnvironment)
            var levelLines = 0
            for await line in process.lines where line.hasPrefix("{\"t\"") {
                levelLines += 1
                if levelLines == 10 { process.send(SIGINT) }
            }
            let (status, stderr) = await process.wait()
            #expect(status == 0, "\(stderr)")
            let take = try readSoundFile(path)
            #expect(take.channels == 3)
            #expect(take.frames >= 44_100 * 9 / 10)
            #expect(stderr.contains("source 2 \(PrivateServer.stereoSink).monitor: channels 2-3"), "\(stderr)")
        }
    }
}

// Issue 4.10: no leaks. The test command builds `recorder` with AddressSanitizer (LeakSanitizer on
// Linux) and names it in RECORDER_LEAK_CHECK_BINARY; these runs then exercise recording, splitting,
// reconnection, metering and a failure, and LeakSanitizer reports any leak at exit.
import Foundation
import Testing
import TestSupport

private let leakCheckBinary = ProcessInfo.processInfo.environment["RECORDER_LEAK_CHECK_BINARY"]

@Suite(.timeLimit(.minutes(2)), .enabled(if: leakCheckBinary != nil, "set RECORDER_LEAK_CHECK_BINARY (scripts/test does)"))
struct LeakTests {
    private func run(_ arguments: [String], _ server: PrivateServer) async throws -> ProcessResult {
        var environment = server.clientEnvironment
        environment["ASAN_OPTIONS"] = "detect_leaks=1"
        let binary = leakCheckBinary!
        let settled = environment
        return try await offThread { try runProcess(binary, arguments, environment: settled) }
    }

    @Test func recordingSplittingMeteringAndFailingLeakNothing() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let record = try await run(["record", directory + "/a.aiff", "--duration", "1.2", "--max-file-time", "0.5",
                                        "--levels-json"], server)
            #expect(record.status == 0 && !record.stderr.contains("Sanitizer"), "\(record.stderr)")
            #expect(try readSoundFile(directory + "/a-003.aiff").frames == 8_820)
            let meter = try await run(["meter", "--duration", "0.5", "--levels-json"], server)
            #expect(meter.status == 0 && !meter.stderr.contains("Sanitizer"), "\(meter.stderr)")
            let missing = try await run(["record", directory + "/b.aiff", "--source", "nothing"], server)
            #expect(missing.status == 69 && !missing.stderr.contains("Sanitizer"), "\(missing.stderr)")
        }
    }

    @Test func reconnectingLeaksNothing() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/r.aiff"
            var environment = server.clientEnvironment
            environment["ASAN_OPTIONS"] = "detect_leaks=1"
            let process = try RunningProcess(leakCheckBinary!, ["record", path, "--source", PrivateServer.monoSink + ".monitor",
                                                                "--levels-json", "--reconnect"], environment: environment)
            for await _ in process.lines { break }
            await server.crash()
            try await server.restart()
            for await line in process.lines where line.contains("\"event\": \"gap\"") { break }
            process.send(SIGINT)
            for await _ in process.lines {}
            let (status, stderr) = await process.wait()
            #expect(status == 0 && !stderr.contains("Sanitizer"), "\(stderr)")
        }
    }
}

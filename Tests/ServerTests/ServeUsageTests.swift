// Bad input to `recorder serve` and `record --serve`: one line that says what to do, the right exit status,
// and nothing recorded.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite struct ServeUsageTests {
    /// A socket listening on a port of loopback, for as long as the test holds it.
    private func occupiedPort() throws -> (descriptor: Int32, port: Int) {
        try LoopbackListener.listeningSocket(backlog: 1)
    }

    @Test func aPortInUseIsOneLineAndNoTake() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory(prefix: "recorder-serve")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (descriptor, port) = try occupiedPort()
            defer { close(descriptor) }
            let recorder = try builtProduct("recorder")
            let serve = try await offThread {
                try runProcess(recorder, ["serve", "--folder", folder, "--listen", "127.0.0.1:\(port)"], environment: server.clientEnvironment)
            }
            #expect(serve.status == 69)
            #expect(serve.stderr.split(separator: "\n").count == 1)
            #expect(serve.stderr.contains("cannot listen on 127.0.0.1:\(port)") && serve.stderr.contains("choose another port"), "\(serve.stderr)")
            let record = try await offThread {
                try runProcess(recorder, ["record", folder + "/take.wav", "--duration", "1", "--serve", String(port)],
                               environment: server.clientEnvironment)
            }
            #expect(record.status == 69)
            #expect(record.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(record.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing recorded")
        }
    }

    @Test(arguments: [
        (["serve", "--listen", "example.com:80"], "invalid --listen 'example.com:80'"),
        (["serve", "--listen", "127.0.0.1:70000"], "invalid --listen '127.0.0.1:70000'"),
        (["serve", "--duration", "5"], "--duration does not apply to serve"),
        (["serve", "--folder", "/nonexistent/takes"], "the take folder /nonexistent/takes is not a directory"),
        (["record", "x.wav", "--serve", "[::1"], "invalid --serve '[::1'"),
        (["record", "x.wav", "--serve-control"], "go with --serve PORT"),
    ])
    func badOptionsAreOneLineSayingWhatToGive(arguments: [String], expected: String) async throws {
        try await withPrivateServer { server in
            let recorder = try builtProduct("recorder")
            let result = try await offThread { try runProcess(recorder, arguments, environment: server.clientEnvironment) }
            #expect(result.status == (arguments.contains("/nonexistent/takes") ? 66 : 64))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(expected), "\(result.stderr)")
        }
    }
}

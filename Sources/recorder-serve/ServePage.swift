// What `recorder-serve` adds to the command: `serve`'s page and `record --serve`'s, on RecorderServer; the
// command line itself is RecorderCommandLine's, the same as `recorder`'s.
import ArgumentParser
import Dispatch
import Glibc
import Locking
import RecorderCommandLine
import RecorderKit
import RecorderPictures
import RecorderServer

/// The page, registered with the command by `main`. Sendable: no state of its own.
struct Page: PageServing {
    func isAddress(_ text: String) -> Bool { ServeAddress(text) != nil }

    func serve(_ command: Serve) async throws {
        let address = ServeAddress(command.listen)!
        let takeFolder: TakeFolder
        do { takeFolder = try TakeFolder(path: command.folder) } catch { writeLine("recorder: \(error.message)"); throw ExitCode(ExitStatus.noInput) }
        let token = try command.access.token(for: address)
        let log: @Sendable (String) -> Void = { writeLine("recorder: serve: " + $0) }
        let settings = ServeSettings(address: address, folder: takeFolder, token: token?.token,
                                     allowedHosts: command.access.allowedHosts, readOnly: command.readOnly)
        let server: WebServer
        let studio: Studio
        do {
            // The hub belongs to the server; the studio publishes into it.
            let proxy = StudioProxy()
            server = try WebServer(settings: settings, control: proxy, log: log, plot: drawPlot)
            studio = Studio(serving: command.options, folder: takeFolder, control: !command.readOnly, hub: server.hub, log: log)
            proxy.target.withLock { $0 = studio }
        } catch {
            writeLine("recorder: \(error.message)")
            throw ExitCode(ExitStatus.usage)
        }
        do { try studio.start() } catch { throw fail(error) }
        do {
            try await server.start()
        } catch {
            await studio.close()
            writeLine("recorder: \(error.message)")
            throw ExitCode(ExitStatus.unavailable)
        }
        // The address (and the login link) on standard output, one line each: what a script starting the
        // page reads; the log goes to standard error.
        let scope = address.isLoopback ? "this machine only" : "token required"
        writeOutput("serving \(server.url) (\(scope); takes in \(command.folder)); Ctrl-C stops\n")
        if let token {
            writeOutput("log a browser in once with \(server.loginLink(host: address.host == "0.0.0.0" || address.host == "::" ? nil : address.host)) "
                        + "(the token is in \(token.file)\(token.made ? ", new" : ""))\n")
        }
        standardOutput.flush(seconds: 1)
        standardError.goLive()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Locked(false)
            StopRequests.shared.arm { _ in
                if once.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
            }
            if StopRequests.shared.isStopping, once.withLock({ done in defer { done = true }; return !done }) { continuation.resume() }
        }
        await studio.close()
        await server.stop()
    }

    func attach(_ command: Record, to recorder: Recorder) async throws -> any AttachedPage {
        try await command.startPage(recorder)
    }
}

/// Draws a take's plot (the waveform and loudness picture of `analyze --plot`) as SVG, for the take list.
@Sendable func drawPlot(_ path: String) async -> Result<[UInt8], ServeError> {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            var template = Array("/tmp/recorder-plot-XXXXXX.svg".utf8CString)
            let descriptor = mkstemps(&template, 4)
            guard descriptor >= 0 else {
                continuation.resume(returning: .failure(ServeError("cannot make a temporary file in /tmp")))
                return
            }
            close(descriptor)
            let output = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            defer { unlink(output) }
            do {
                let options = PlotOptions()
                let request = AnalysisRequest(waveformColumns: options.columns, loudnessSeries: true, overs: true)
                let analysis = try FileAnalysis.analyze(path: path, request: request)
                try Plot.draw(analysis, to: output, options: options)
                let descriptor = open(output, O_RDONLY)
                defer { close(descriptor) }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(descriptor, &chunk, chunk.count)
                    if count <= 0 { break }
                    bytes += chunk.prefix(count)
                }
                continuation.resume(returning: .success(bytes))
            } catch let error as RecorderError {
                continuation.resume(returning: .failure(ServeError(error.message)))
            } catch {
                continuation.resume(returning: .failure(ServeError("\(error)")))
            }
        }
    }
}

/// The studio behind a server made before it (the server owns the hub the studio publishes into).
/// Sendable: the target is behind a lock.
final class StudioProxy: StudioControl {
    let target = Locked<(any StudioControl)?>(nil)
    private var current: (any StudioControl)? { target.withLock { $0 } }
    func state() -> String { current?.state() ?? "{\"running\": false}" }
    func sources() -> String { current?.sources() ?? "[]" }
    func perform(_ action: StudioAction) async -> StudioReply {
        await current?.perform(action) ?? .refused(status: 503, reason: "starting")
    }
    func busyFiles() -> Set<String> { current?.busyFiles() ?? [] }
}

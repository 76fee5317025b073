// `record --serve`: the page watching a take started in the terminal (read-only unless --serve-control),
// bound before the take begins so that a port in use fails before anything is recorded.
import ArgumentParser
import RecorderCommandLine
import RecorderKit
import RecorderServer

/// `record --serve`'s page: the server and the studio watching the take.
struct WatchingPage: AttachedPage {
    let server: WebServer
    let studio: Studio

    func watch(fileStart: Int64) { studio.watch(fileStart: fileStart) }

    func alarm(_ kind: String, on: Bool, message: String, seconds: Double, json: String) {
        studio.alarm(kind, on: on, message: message, seconds: seconds, json: json)
    }

    func close() async {
        await studio.close()
        await server.stop()
    }
}

extension Record {
    /// `--serve`: the page watching this take, listening before the take begins (validated: --serve is an address).
    func startPage(_ recorder: Recorder) async throws -> WatchingPage {
        guard let serve, let address = ServeAddress(serve) else { throw ExitCode(ExitStatus.usage) }
        let token = try serveAccess.token(for: address)
        let directory = output.contains("/") ? String(output[..<output.lastIndex(of: "/")!]) : "."
        let folder = output == "-" ? nil : try? TakeFolder(path: directory.isEmpty ? "/" : directory)
        let log: @Sendable (String) -> Void = { writeLine("recorder: serve: " + $0) }
        let settings = ServeSettings(address: address, folder: folder, token: token?.token, allowedHosts: serveAccess.allowedHosts,
                                     readOnly: !serveControl)
        let proxy = StudioProxy()
        let server: WebServer
        do {
            server = try WebServer(settings: settings, control: proxy, log: log, plot: drawPlot)
            try await server.start()
        } catch {
            await recorder.stop()
            writeLine("recorder: \(error.message)")
            throw ExitCode(ExitStatus.unavailable)
        }
        let name = output == "-" ? "-" : String(output.split(separator: "/").last ?? Substring(output))
        let studio = Studio(watching: recorder, file: name, capture: capture, folder: folder, control: serveControl,
                            hub: server.hub, requestStop: { StopRequests.shared.requestStop() }, log: log)
        proxy.target.withLock { $0 = studio }
        do { try studio.start() } catch { throw fail(error) }
        writeLine("recorder: page at \(server.url)" + (token.map { " — log in once with \(server.loginLink()) (token in \($0.file))" } ?? ""))
        return WatchingPage(server: server, studio: studio)
    }
}

// `record --serve`: the page watching a take started in the terminal (read-only unless --serve-control),
// bound before the take begins so that a port in use fails before anything is recorded.
import ArgumentParser
import RecorderKit
import RecorderServer

extension Record {
    /// `--serve`: the page watching this take, listening before the take begins; nil without --serve.
    func startPage(_ recorder: Recorder) async throws -> (server: WebServer, studio: Studio)? {
        guard let serve, let address = ServeAddress(serve) else { return nil }
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
        return (server, studio)
    }
}

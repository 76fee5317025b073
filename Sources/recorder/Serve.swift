// `recorder serve`: the recorder in a browser — live meters, record/stop/pause, markers, takes, the take
// list with downloads — for boxes with no screen. Loopback unless told; a token on any other address.
import ArgumentParser
import Dispatch
import Glibc
import Locking
import RecorderKit
import RecorderPictures
import RecorderServer

/// Where the page listens and who may use it: shared by `serve` and `record --serve`.
struct ServeAccessOptions: ParsableArguments {
    @Option(name: .customLong("token-file"), help: ArgumentHelp(
        "The token's file: read if it exists, else a new token is written there (mode 0600). Default off loopback: a new token in ~/.config/recorder/serve-token. On loopback, giving it asks for the token there too.",
        valueName: "file"))
    var tokenFile: String?

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A host name that reaches this machine, allowed in the Host header (its addresses, localhost and its own name always are); repeat for more.",
        valueName: "name"))
    var allowedHosts: [String] = []

    /// The token the address needs: nil on loopback without --token-file; read or made otherwise.
    func token(for address: ServeAddress) throws -> (token: AccessToken, file: String, made: Bool)? {
        guard !address.isLoopback || tokenFile != nil else { return nil }
        let path = tokenFile ?? Self.defaultTokenFile()
        var status = stat()
        do {
            if stat(path, &status) == 0 { return (try AccessToken.read(path: path), path, false) }
            let token = AccessToken()
            try token.write(path: path)
            return (token, path, true)
        } catch {
            writeLine("recorder: \(error.message)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
    }

    /// ~/.config/recorder/serve-token (the folder made, 0700).
    static func defaultTokenFile() -> String {
        let config = getenv("XDG_CONFIG_HOME").map { String(cString: $0) } ?? ((getenv("HOME").map { String(cString: $0) } ?? ".") + "/.config")
        mkdir(config, 0o700)
        mkdir(config + "/recorder", 0o700)
        return config + "/recorder/serve-token"
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a page for a browser: live meters and loudness, record, stop, pause, markers, next take, circle, the take list with downloads.",
        discussion: """
            The page is served by this command (nothing from the internet) at http://ADDRESS:PORT/. It listens \
            on 127.0.0.1:8080 unless --listen says otherwise; any address but loopback needs a token, written \
            to a file only you can read and printed once as a link that logs a browser in (a cookie). Scripts \
            send 'Authorization: Bearer TOKEN'. Levels are pushed as Server-Sent Events (/api/events): each \
            message the --levels-json object of the newest buffer plus the highest peak since the message \
            before. Stop with Ctrl-C: a take in progress is closed first, valid.
            """)

    @Option(name: .customLong("listen"), help: ArgumentHelp("ADDRESS:PORT, [IPv6]:PORT or PORT to listen on (0.0.0.0 for every interface).",
                                                             valueName: "address:port"))
    var listen: String = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("The take folder: takes are recorded, listed, downloaded and deleted there (default: the current folder).",
                               valueName: "dir"))
    var folder: String = "."

    @Flag(name: .customLong("read-only"), help: "Meters and the take list only: no control, no delete.")
    var readOnly = false

    @OptionGroup(title: "Access") var access: ServeAccessOptions

    @OptionGroup var options: CaptureOptions

    func validate() throws {
        guard ServeAddress(listen) != nil else {
            throw ValidationError("invalid --listen '\(listen)': use PORT, ADDRESS:PORT or [IPv6]:PORT with a numeric address, e.g. 0.0.0.0:8080")
        }
        if options.duration != nil { throw ValidationError("--duration does not apply to serve: each take is started and stopped from the page") }
        if options.sources.count > 1 { throw ValidationError("serve records one source at a time: give one -d (the page chooses among them)") }
    }

    func run() async throws {
        let address = ServeAddress(listen)!
        let takeFolder: TakeFolder
        do { takeFolder = try TakeFolder(path: folder) } catch { writeLine("recorder: \(error.message)"); throw ExitCode(ExitStatus.noInput) }
        let token = try access.token(for: address)
        let log: @Sendable (String) -> Void = { writeLine("recorder: serve: " + $0) }
        let settings = ServeSettings(address: address, folder: takeFolder, token: token?.token,
                                     allowedHosts: access.allowedHosts, readOnly: readOnly)
        let server: WebServer
        let studio: Studio
        do {
            // The hub belongs to the server; the studio publishes into it.
            let proxy = StudioProxy()
            server = try WebServer(settings: settings, control: proxy, log: log, plot: drawPlot)
            studio = Studio(serving: options, folder: takeFolder, control: !readOnly, hub: server.hub, log: log)
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
        writeOutput("serving \(server.url) (\(scope); folder \(folder)); Ctrl-C stops\n")
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

// The page's HTTP server: listens, checks every request (AccessCheck), and routes it to the page, the
// event stream, the take list, downloads, deletes and the controls.
import FlyingFox
import FlyingSocks
import Foundation
import Locking

/// How the page is served.
public struct ServeSettings: Sendable {
    /// Where to listen.
    public var address: ServeAddress
    /// nil: no take folder (the list, downloads and deletes answer 404).
    public var folder: TakeFolder?
    /// Required on any address but loopback (`WebServer.init` refuses otherwise); optional on loopback.
    public var token: AccessToken?
    /// Host names that reach this machine besides its addresses and localhost (`--allow-host`).
    public var allowedHosts: [String]
    /// No control and no delete: what changes anything answers 403.
    public var readOnly: Bool
    /// Seconds a client may leave its event stream unread before it is dropped.
    public var stallLimit: Double

    /// Settings; the defaults: loopback port 8080, no folder, no token, control allowed, 3 s for a stalled client.
    public init(address: ServeAddress = .loopback, folder: TakeFolder? = nil, token: AccessToken? = nil,
                allowedHosts: [String] = [], readOnly: Bool = false, stallLimit: Double = 3) {
        self.address = address
        self.folder = folder
        self.token = token
        self.allowedHosts = allowedHosts
        self.readOnly = readOnly
        self.stallLimit = stallLimit
    }
}

/// The page's server. Start it, publish to `hub`, stop it; the take goes on whatever happens here.
///
/// Threads: any; `start` and `stop` once each, from Swift concurrency. The log lines (`log`) come from the
/// server's tasks, one call per line, never from the capture. A host process must ignore SIGPIPE (the
/// command does): a client that leaves mid-write would otherwise end it.
public final class WebServer: Sendable {
    /// How it serves.
    public let settings: ServeSettings
    /// Where the take's levels, events and state are published for the pages.
    public let hub: LevelHub
    private let control: any StudioControl
    private let log: @Sendable (String) -> Void
    private let plot: (@Sendable (String) async -> Result<[UInt8], ServeError>)?
    private let logins = LoginCodes()
    private let details: TakeDetails
    private let takesVersion = Locked(0)
    private let running = Locked<(server: HTTPServer, task: Task<Void, Error>, watch: Task<Void, Never>, port: UInt16)?>(nil)
    private let boundPort: Locked<UInt16>
    private let checks = Locked<AccessCheck?>(nil)

    /// `plot`: draws a take's picture (SVG bytes) for `/takes/NAME/plot.svg`; nil: no plots.
    public init(settings: ServeSettings, control: any StudioControl, log: @escaping @Sendable (String) -> Void,
                plot: (@Sendable (String) async -> Result<[UInt8], ServeError>)? = nil) throws(ServeError) {
        if !settings.address.isLoopback && settings.token == nil {
            throw ServeError("listening on \(settings.address) (not loopback) needs a token: leave --token-file out for a new one, or listen on 127.0.0.1")
        }
        self.settings = settings
        self.control = control
        self.log = log
        self.plot = plot
        let port = Locked<UInt16>(0)
        boundPort = port
        hub = LevelHub(stallLimit: settings.stallLimit) { peer in
            log("dropped the event stream of \(peer.address):\(peer.port): it read nothing for \(settings.stallLimit) s")
            StalledConnection.shutDown(peer: peer, localPort: port.withLock { $0 })
        }
        let version = takesVersion
        details = TakeDetails { version.withLock { $0 += 1 } }
    }

    /// The port listened on (the one chosen for port 0), once started.
    public var port: UInt16 { boundPort.withLock { $0 } }

    /// The page's address, e.g. http://127.0.0.1:8080/.
    public var url: String {
        let host = settings.address.host == "0.0.0.0" || settings.address.host == "::" ? "127.0.0.1" : settings.address.host
        return "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)/"
    }

    /// A link that logs a browser in once (sets the token's cookie); the page's address without a token.
    public func loginLink(host: String? = nil) -> String {
        guard settings.token != nil else { return url }
        let base = host.map { "http://" + ($0.contains(":") ? "[\($0)]" : $0) + ":\(port)/" } ?? url
        return base + "login?code=" + logins.make()
    }

    /// Starts listening; returns once the socket is bound (or throws why it could not be).
    public func start() async throws(ServeError) {
        let address = settings.address
        let socketAddress: any SocketAddress
        do {
            socketAddress = address.isIPv6 ? try sockaddr_in6.inet6(ip6: address.host, port: address.port)
                : try sockaddr_in.inet(ip4: address.host, port: address.port)
        } catch {
            throw ServeError("cannot listen on \(address): not an address of this machine; give one, e.g. --listen 127.0.0.1:8080")
        }
        let server = HTTPServer(address: socketAddress, timeout: 60, handler: Router(server: self))
        let failure = Locked<String?>(nil)
        let task = Task {
            do { try await server.run() } catch {
                failure.withLock { $0 = "\(error)" }
                throw error
            }
        }
        // Bound, or failed: whichever comes first (a ceiling only a hang reaches).
        for _ in 0..<2_000 {
            if await server.isListening { break }
            if let failure = failure.withLock({ $0 }) {
                throw ServeError("cannot listen on \(address): \(failure); choose another port with --listen ADDRESS:PORT")
            }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        guard await server.isListening, let bound = await server.listeningAddress else {
            task.cancel()
            throw ServeError("cannot listen on \(address): the server did not start; try another port with --listen ADDRESS:PORT")
        }
        switch bound {
        case .ip4(_, let port), .ip6(_, let port): boundPort.withLock { $0 = port }
        case .unix: break
        }
        checks.withLock { $0 = makeAccess() }
        let hub = self.hub
        let watch = Task { await hub.watch() }
        running.withLock { $0 = (server, task, watch, port) }
    }

    /// Stops listening and ends every client's stream; the take is not touched.
    public func stop() async {
        guard let running = running.withLock({ $0.take() }) else { return }
        hub.finish()
        running.watch.cancel()
        await running.server.stop(timeout: 1)
        running.task.cancel()
    }

    /// Marks the take list changed (a take ended or a file was deleted): the pages fetch it again.
    public func takesChanged() { takesVersion.withLock { $0 += 1 } }

    /// The number the pages compare to know the take list changed.
    public var takesListVersion: Int { takesVersion.withLock { $0 } }

    // MARK: Routes

    struct Router: HTTPHandler {
        let server: WebServer
        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            await server.respond(request)
        }
    }

    /// What every request must carry; made once the port is bound.
    private var access: AccessCheck { checks.withLock { $0 } ?? makeAccess() }

    private func makeAccess() -> AccessCheck {
        var names: Set<String> = []
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            names.insert(name)
            names.insert(name + ".local")
        }
        settings.allowedHosts.forEach { names.insert($0.lowercased()) }
        return AccessCheck(address: settings.address, port: port, names: names, token: settings.token)
    }

    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = access.refusal(request) { return refuse(refusal) }
        // A `..` in the path as sent (the server resolves it before routing): someone reaching out.
        let raw = request.target.path(percentEncoded: false)
        if raw.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
            return refuse(Refusal(status: .badRequest, reason: "refused \(request.method.rawValue) \(request.target.path()): a path with '..'"))
        }
        let changes = request.method != .GET && request.method != .HEAD
        if changes && settings.readOnly {
            return refuse(Refusal(status: .forbidden, reason: "refused \(request.method.rawValue) \(request.path): the page is read-only"
                                  + " (serve without --read-only, or record with --serve-control)"))
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch (request.method, parts.first ?? "") {
        case (.GET, ""): return page(PageText.html, type: "text/html; charset=utf-8")
        case (.GET, "page.js"): return page(PageText.script, type: "text/javascript; charset=utf-8")
        case (.GET, "page.css"): return page(PageText.style, type: "text/css; charset=utf-8")
        case (.GET, "favicon.ico"): return HTTPResponse(statusCode: .noContent)
        case (.GET, "login"): return login(request)
        case (.GET, "api") where parts.count == 2: return await api(parts[1], request)
        case (.POST, "api") where parts.count == 2: return await action(parts[1], request)
        case (_, "takes") where parts.count >= 2: return await take(parts, request)
        default:
            return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("not found\n".utf8))
        }
    }

    private func refuse(_ refusal: Refusal) -> HTTPResponse {
        log(refusal.reason)
        return HTTPResponse(statusCode: refusal.status, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: Data((refusal.reason + "\n").utf8))
    }

    private func json(_ text: String, status: HTTPStatusCode = .ok) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                     body: Data(text.utf8))
    }

    private func page(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(statusCode: .ok, headers: [.contentType: type, .cacheControl: "no-store",
                                                HTTPHeader("Content-Security-Policy"): "default-src 'self'; img-src 'self' data:",
                                                HTTPHeader("X-Content-Type-Options"): "nosniff"],
                     body: Data(text.utf8))
    }

    /// The one-time link (`?code=`) or the token itself (`?token=`): sets the cookie and goes to the page.
    private func login(_ request: HTTPRequest) -> HTTPResponse {
        guard let token = settings.token else { return redirectHome([:]) }
        let code = request.query.first { $0.name == "code" }?.value
        let given = request.query.first { $0.name == "token" }?.value
        guard code.map(logins.use) == true || given.map(token.matches) == true else {
            return refuse(Refusal(status: .unauthorized, reason: "refused a login: the link was used already or the token is wrong (read the token from its file, and open /login?token=TOKEN)"))
        }
        return redirectHome([.setCookie: "\(AccessCheck.cookieName)=\(token.value); HttpOnly; SameSite=Strict; Path=/"])
    }

    private func redirectHome(_ headers: [HTTPHeader: String]) -> HTTPResponse {
        var all = headers
        all[.location] = "/"
        return HTTPResponse(statusCode: .seeOther, headers: HTTPHeaders(all))
    }

    private func api(_ name: String, _ request: HTTPRequest) async -> HTTPResponse {
        switch name {
        case "state": return json(control.state())
        case "sources": return json(control.sources())
        case "takes": return json(takeList())
        case "server": return json("{\"clients\": \(hub.clientCount), \"dropped_stalled\": \(hub.stalledCount), "
                                    + "\"read_only\": \(settings.readOnly), \"token\": \(settings.token != nil)}")
        case "events":
            let peer: ClientPeer
            switch request.remoteAddress {
            case .ip4(let address, let port)?, .ip6(let address, let port)?: peer = ClientPeer(address: address, port: port)
            default: peer = ClientPeer(address: "", port: 0)
            }
            StalledConnection.limitSendBuffer(peer: peer, localPort: port)
            let body = EventStreamBody(registration: EventStreamBody.Registration(hub: hub, peer: peer))
            return HTTPResponse(statusCode: .ok,
                                headers: [.contentType: "text/event-stream", .cacheControl: "no-store",
                                          HTTPHeader("X-Accel-Buffering"): "no"],
                                body: HTTPBodySequence(from: body))
        default:
            return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no such API\n".utf8))
        }
    }

    /// The take list: each file's name, size, time, and once measured its length, loudness and marks.
    private func takeList() -> String {
        guard let folder = settings.folder else { return "{\"version\": 0, \"takes\": []}" }
        let busy = control.busyFiles()
        let takes = folder.list().map { entry -> String in
            let facts = details.facts(entry, in: folder, busy: busy.contains(entry.name))
            return "{\"name\": \(jsonQuoted(entry.name)), \"bytes\": \(entry.bytes), \"modified\": \(entry.modified), "
                + "\"recording\": \(busy.contains(entry.name)), "
                + "\"seconds\": \(jsonNumber(facts?.seconds, digits: 3)), "
                + "\"integrated_lufs\": \(jsonNumber(facts?.integrated, digits: 1)), "
                + "\"true_peak_dbtp\": \(jsonNumber(facts?.truePeak, digits: 1)), "
                + "\"circled\": \(facts?.circled ?? false), \"no_good\": \(facts?.noGood ?? false), "
                + "\"measured\": \(facts != nil), \"plot\": \(plot != nil)}"
        }
        return "{\"version\": \(takesListVersion), \"takes\": [" + takes.joined(separator: ", ") + "]}"
    }

    private func action(_ name: String, _ request: HTTPRequest) async -> HTTPResponse {
        let body = (try? await request.bodyData) ?? Data()
        guard body.count <= 65_536 else {
            return refuse(Refusal(status: .payloadTooLarge, reason: "refused POST /api/\(name): a body of \(body.count) bytes (at most 64 KiB)"))
        }
        let chosen: StudioAction
        switch name {
        case "record":
            guard let settings = body.isEmpty ? TakeSettings() : try? JSONDecoder().decode(TakeSettings.self, from: body) else {
                return refuse(Refusal(status: .badRequest, reason: "refused POST /api/record: the body is not a JSON object of take settings"))
            }
            chosen = .record(settings)
        case "stop": chosen = .stop
        case "pause": chosen = .pause
        case "next": chosen = .nextTake
        case "circle": chosen = .circle
        case "nogood": chosen = .noGood
        case "marker":
            let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            chosen = .marker(((object?["name"] as? String) ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        default:
            return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no such control\n".utf8))
        }
        switch await control.perform(chosen) {
        case .done(let reply):
            if case .stop = chosen { takesChanged() }
            if case .nextTake = chosen { takesChanged() }
            return json(reply)
        case .refused(let status, let reason):
            return refuse(Refusal(status: HTTPStatusCode(status, phrase: status == 409 ? "Conflict" : "Refused"), reason: reason))
        }
    }

    /// `/takes/NAME` (GET: download; DELETE: delete) and `/takes/NAME/plot.svg`.
    private func take(_ parts: [String], _ request: HTTPRequest) async -> HTTPResponse {
        guard let folder = settings.folder else {
            return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no take folder\n".utf8))
        }
        let name = parts[1].removingPercentEncoding ?? parts[1]
        switch (request.method, parts.count) {
        case (.GET, 2):
            switch folder.open(name) {
            case .failure(let refusal): return refuse(refusal)
            case .success(let opened):
                let handle = FileBody.Handle(descriptor: opened.descriptor, bytes: opened.bytes)
                let ascii = name.unicodeScalars.allSatisfy { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 }
                return HTTPResponse(statusCode: .ok,
                                    headers: [.contentType: "application/octet-stream",
                                              .contentDisposition: ascii ? "attachment; filename=\"\(name)\"" : "attachment",
                                              .cacheControl: "no-store"],
                                    body: HTTPBodySequence(from: FileBody(handle: handle), count: Int(opened.bytes)))
            }
        case (.GET, 3) where parts[2] == "plot.svg":
            guard let plot else {
                return HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no plots here\n".utf8))
            }
            guard TakeFolder.isPlainName(name), case .success(let opened) = folder.open(name) else {
                return refuse(Refusal(status: .forbidden, reason: "refused a plot of '\(name)': not a take's name in the folder"))
            }
            close(opened.descriptor)
            switch await plot(folder.file(name)) {
            case .success(let svg):
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"], body: Data(svg))
            case .failure(let error):
                return refuse(Refusal(status: .unprocessableContent, reason: "could not draw '\(name)': \(error.message)"))
            }
        case (.DELETE, 2):
            if let refusal = folder.delete(name, busy: control.busyFiles()) { return refuse(refusal) }
            log("deleted \(folder.file(name))")
            takesChanged()
            return json("{\"deleted\": \(jsonQuoted(name))}")
        default:
            return refuse(Refusal(status: .forbidden, reason: "refused \(request.method.rawValue) \(request.path): not a take of the folder"))
        }
    }
}

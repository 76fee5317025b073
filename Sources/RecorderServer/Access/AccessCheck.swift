// The checks every request passes before any route sees it: Host (against DNS rebinding), Origin (against
// other sites' pages), the token (on any address but loopback), read-only.
import FlyingFox

/// A request refused: the status for the client and the one line for the log.
struct Refusal: Error, Sendable {
    let status: HTTPStatusCode
    let reason: String
}

/// What a request must carry. Sendable: every field is a constant.
struct AccessCheck: Sendable {
    /// The address listened on.
    let address: ServeAddress
    /// The bound port (the given one, or the one chosen for port 0).
    let port: UInt16
    /// Host names besides numeric addresses and localhost that reach this machine (its own name, its
    /// `.local` name, `--allow-host`).
    let names: Set<String>
    /// nil on loopback without `--token-file`: no token asked.
    let token: AccessToken?
    /// The cookie the one-time link sets.
    static let cookieName = "recorder_token"

    /// Refuses what may not pass; nil when the request may go on to its route.
    func refusal(_ request: HTTPRequest) -> Refusal? {
        guard let host = request.headers[.host], hostIsOurs(host) else {
            return Refusal(status: .misdirectedRequest,
                           reason: "refused \(request.method.rawValue) \(request.path): Host '\(request.headers[.host] ?? "")' is not this server (a page on another name reaching this one: DNS rebinding); open it by its address, or add the name with --allow-host")
        }
        // A browser sends Origin with every POST and cross-origin request: it must be this page.
        if let origin = request.headers[HTTPHeader("Origin")], origin != "http://" + host {
            return Refusal(status: .forbidden,
                           reason: "refused \(request.method.rawValue) \(request.path): Origin '\(origin)' is another site's page")
        }
        if let token, !carries(token, request), !isLogin(request) {
            return Refusal(status: .unauthorized,
                           reason: "refused \(request.method.rawValue) \(request.path) from \(peer(request)): no valid token (open the link printed at start, or send 'Authorization: Bearer TOKEN')")
        }
        return nil
    }

    /// True for the one-time link's path (it checks its own code).
    private func isLogin(_ request: HTTPRequest) -> Bool { request.path == "/login" && request.method == .GET }

    /// True when the request has the token in its Authorization header or its cookie.
    func carries(_ token: AccessToken, _ request: HTTPRequest) -> Bool {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
           token.matches(String(authorization.dropFirst("Bearer ".count))) {
            return true
        }
        return Self.cookie(Self.cookieName, in: request).map(token.matches) ?? false
    }

    /// `name`'s value in the request's Cookie headers.
    static func cookie(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: .cookie) {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingPrefix(" ").split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    /// A Host header naming this server: a numeric address (rebinding needs a name, so any address
    /// that reached this socket is fine), localhost, or one of `names`; with this server's port (or
    /// none, port 80).
    func hostIsOurs(_ header: String) -> Bool {
        var name = Substring(header.lowercased())
        var givenPort: UInt16 = 80
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()) else { return false }
                givenPort = port
            }
            name = name[name.index(after: name.startIndex)..<close]
            guard ServeAddress.isNumeric(String(name)) else { return false }
            return givenPort == port
        }
        if let colon = name.lastIndex(of: ":") {
            guard let port = UInt16(name[name.index(after: colon)...]) else { return false }
            givenPort = port
            name = name[..<colon]
        }
        guard givenPort == port else { return false }
        let text = String(name)
        return ServeAddress.isNumeric(text) || text == "localhost" || names.contains(text)
    }

    private func peer(_ request: HTTPRequest) -> String {
        switch request.remoteAddress {
        case .ip4(let address, let port)?: "\(address):\(port)"
        case .ip6(let address, let port)?: "[\(address)]:\(port)"
        case .unix(let path)?: path
        case nil: "an unknown peer"
        }
    }
}

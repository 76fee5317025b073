// Where the page listens: `PORT`, `ADDRESS:PORT` or `[IPv6]:PORT`, and whether that is loopback only.
import Glibc

/// An address and port to listen on. Loopback (127.0.0.0/8, ::1, localhost) needs no token; any other
/// address, the wildcard ones included, does. A value: any thread.
public struct ServeAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric address (IPv4 dotted or IPv6 without brackets).
    public let host: String
    /// 0: any free port (the bound one is `WebServer.port`).
    public let port: UInt16

    /// The default: loopback, port 8080.
    public static let loopback = ServeAddress(validHost: "127.0.0.1", port: 8080)

    private init(validHost: String, port: UInt16) {
        host = validHost
        self.port = port
    }

    /// Parses `8080`, `127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`, `localhost:8080`; a bare address with
    /// no port takes `defaultPort`. nil for anything else (names other than localhost are not resolved:
    /// give the address of the interface to listen on).
    public init?(_ text: String, defaultPort: UInt16 = 8080) {
        var hostPart = "127.0.0.1"
        var portPart: Substring? = nil
        if let port = UInt16(text) {
            self.init(validHost: hostPart, port: port)
            return
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portPart = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            hostPart = String(text[..<colon])
            portPart = text[text.index(after: colon)...]
        } else {
            hostPart = text
        }
        if hostPart == "localhost" { hostPart = "127.0.0.1" }
        guard Self.isNumeric(hostPart) else { return nil }
        var port = defaultPort
        if let portPart {
            guard let given = UInt16(portPart) else { return nil }
            port = given
        }
        self.init(validHost: hostPart, port: port)
    }

    /// True for 127.0.0.0/8 and ::1: only this machine can connect.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// True for an IPv6 address.
    public var isIPv6: Bool { host.contains(":") }

    /// `ADDRESS:PORT`, an IPv6 address in brackets.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// True when `text` is a numeric IPv4 or IPv6 address.
    static func isNumeric(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

// An HTTP listener on loopback for the tests of --webhook: it keeps every request it is sent and answers each with a status, or never.
import Foundation
import Glibc
import Synchronization

/// Listens on 127.0.0.1 (a port the system chose) on a thread of its own, reads each HTTP/1.1 request
/// whole (headers and a Content-Length body) and keeps it, in the order they came; then answers it with
/// `status` and closes, or, with `status` nil, holds the connection unanswered until `stop()` (a webhook
/// that hangs). Nothing else is ever sent.
public final class LoopbackListener: Sendable {
    public struct Request: Sendable, Equatable {
        public let method: String
        public let path: String
        /// Header names lowercased.
        public let headers: [String: String]
        public let body: String
    }

    public let port: Int
    private let descriptor: Int32
    private let received = Mutex<[Request]>([])
    /// Connections held unanswered, closed by `stop()`.
    private let held = Mutex<[Int32]>([])
    private let done = DispatchSemaphore(value: 0)

    public init(status: Int?) throws {
        (descriptor, port) = try Self.listeningSocket(backlog: 64)
        Thread { [self] in
            serve(status: status)
            done.signal()
        }.start()
    }

    /// A TCP socket listening on a port of 127.0.0.1 the system chose, and that port.
    public static func listeningSocket(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, backlog) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            close(descriptor)
            throw TestFailure("cannot listen on loopback: \(String(cString: strerror(errno)))")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The requests so far, in the order they came.
    public var requests: [Request] { received.withLock { $0 } }

    /// Stops listening and closes every connection held; returns once the thread is over.
    public func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        done.wait()
        close(descriptor)
        for connection in held.withLock({ $0 }) { close(connection) }
    }

    private func serve(status: Int?) {
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            guard let request = read(connection) else {
                close(connection)
                continue
            }
            received.withLock { $0.append(request) }
            guard let status else {
                held.withLock { $0.append(connection) }
                continue
            }
            let answer = "HTTP/1.1 \(status) Answered\r\nContent-Length: 2\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nok"
            _ = answer.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(connection)
        }
    }

    /// One request, or nil if the connection ended before it was whole.
    private func read(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        var headerEnd: Int?
        var bodyLength = 0
        while headerEnd.map({ bytes.count < $0 + bodyLength }) ?? true {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += chunk[0..<count]
            if headerEnd == nil, let end = Self.endOfHeaders(bytes) {
                headerEnd = end
                let head = String(decoding: bytes[0..<end], as: UTF8.self)
                bodyLength = Self.headers(head)["content-length"].flatMap { Int($0) } ?? 0
            }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        let requestLine = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return nil }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: Self.headers(head),
                       body: String(decoding: bytes[end..<(end + bodyLength)], as: UTF8.self))
    }

    /// Where the body begins (after the blank line), if the headers are whole.
    private static func endOfHeaders(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    private static func headers(_ head: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}

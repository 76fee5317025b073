// The socket of one client of the event stream, found by its peer among this process's descriptors: its
// send buffer bounded when it joins, and shut down if it stops reading (which wakes the writer stuck on it).
import Glibc

enum StalledConnection {
    /// Shuts down (both ways) every socket of this process connected from `peer` to local port `port`.
    ///
    /// The HTTP server keeps its sockets to itself; a writer blocked on a full socket can only be woken
    /// by the socket failing. `shutdown` does not close the descriptor (its owner still does), so no other
    /// socket can take its number meanwhile; a peer's address and port name one connection at a time.
    static func shutDown(peer: ClientPeer, localPort port: UInt16) {
        forEachSocket(of: peer, localPort: port) { shutdown($0, Int32(SHUT_RDWR)) }
    }

    /// Bounds what the kernel holds for an event stream's client to `bytes` (about a second and a half of
    /// a 32-channel take's messages): Linux grows a socket's send buffer to megabytes by itself, behind
    /// which a client that stopped reading would hide for minutes before its writer ever waited.
    static func limitSendBuffer(peer: ClientPeer, localPort port: UInt16, bytes: Int32 = 16_384) {
        forEachSocket(of: peer, localPort: port) { descriptor in
            var size = bytes
            setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Calls `body` with each of this process's sockets connected from `peer` to local port `port`.
    private static func forEachSocket(of peer: ClientPeer, localPort port: UInt16, _ body: (Int32) -> Void) {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor != own else { continue }
            guard let local = address(descriptor, getsockname), local.port == port,
                  let remote = address(descriptor, getpeername), remote == peer else { continue }
            body(descriptor)
        }
    }

    /// The address `call` (getsockname or getpeername) gives for `descriptor`, if it is an IP socket.
    private static func address(_ descriptor: Int32,
                                _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> ClientPeer? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                    var address = socket.pointee.sin_addr
                    inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                    return ClientPeer(address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: socket.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { socket in
                    var address = socket.pointee.sin6_addr
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    return ClientPeer(address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: socket.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}

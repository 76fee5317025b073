// The secret a non-loopback page asks for: generated, written once to a 0600 file, compared in constant time;
// and the one-time login codes that turn a printed link into a cookie.
import Glibc
import Locking

/// A token of 32 random bytes (64 hex digits), as Jupyter's: kept in a file only its owner can read,
/// because a headless box's user may never see the terminal that printed it. Any thread.
public struct AccessToken: Sendable, Hashable {
    /// The token's text.
    public let value: String

    /// A new random token.
    public init() {
        var generator = SystemRandomNumberGenerator()
        value = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }

    /// The token `text` (at least 16 characters of printable ASCII); nil otherwise.
    public init?(text: String) {
        let trimmed = text.filter { !$0.isWhitespace }
        guard trimmed.count >= 16, trimmed.allSatisfy({ $0.isASCII && $0.asciiValue! > 32 && $0.asciiValue! < 127 }) else {
            return nil
        }
        value = trimmed
    }

    /// Reads the token from `path` (a file of the user's own: its mode is not checked, only read).
    public static func read(path: String) throws(ServeError) -> AccessToken {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ServeError("cannot read the token file \(path): \(String(cString: strerror(errno))); give a file holding the token, or leave --token-file out for a new one")
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &bytes, bytes.count)
        guard count > 0, let token = AccessToken(text: String(decoding: bytes.prefix(count), as: UTF8.self)) else {
            throw ServeError("the token file \(path) holds no token (16 or more printable characters): write one there, or remove the file for a new one")
        }
        return token
    }

    /// Writes the token to `path`, created with mode 0600 (an existing file is replaced, its mode set to
    /// 0600 before the token is written).
    public func write(path: String) throws(ServeError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw ServeError("cannot write the token file \(path): \(String(cString: strerror(errno))); give a writable --token-file")
        }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let line = Array((value + "\n").utf8)
        guard Glibc.write(descriptor, line, line.count) == line.count else {
            throw ServeError("cannot write the token file \(path): \(String(cString: strerror(errno))); free some space or give another --token-file")
        }
    }

    /// True when `candidate` is this token; the time taken does not depend on where they differ.
    public func matches(_ candidate: String) -> Bool {
        let given = Array(candidate.utf8), mine = Array(value.utf8)
        var difference = UInt8(given.count == mine.count ? 0 : 1)
        for index in 0..<mine.count {
            difference |= mine[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}

/// Login codes that work once: the link printed at start carries one, so a link left in a terminal's
/// scroll-back or a shell history opens nothing after its first use.
final class LoginCodes: Sendable {
    private let unused = Locked<Set<String>>([])

    /// A new code, valid until used.
    func make() -> String {
        let code = AccessToken().value
        unused.withLock { _ = $0.insert(code) }
        return code
    }

    /// True (once) for a code made here and not used yet.
    func use(_ code: String) -> Bool { unused.withLock { $0.remove(code) != nil } }
}

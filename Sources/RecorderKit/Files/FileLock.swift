// A writer's claim on its file: one writer per file, in this process and across processes.
import Glibc
import Locking

/// A writer's claim on its file: the process's set of files its writers hold (device and inode), and
/// an exclusive `flock` for other processes.
///
/// The set answers "another writer in this process" at once and exactly. The `flock` alone could not:
/// a child started by any thread of this process (a `Process`, `posix_spawn`) holds a copy of every
/// descriptor, the lock's included, from its fork until its exec closes them (`O_CLOEXEC`), so for that
/// moment a file its writer has closed still looks locked. A lock this process does not account for is
/// therefore retried for up to `patience` before the file is called in use: longer than a child takes
/// to exec on a loaded machine, short next to any real recording that holds the file.
final class FileLock: Sendable {
    private struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
    }
    private static let held = Locked<Set<Identity>>([])
    /// How long a lock held outside this process's writers is retried, in nanoseconds.
    static let patience: Int64 = 500_000_000
    private let identity: Identity

    /// Claims the file open at `fd` for one writer, or throws `.fileInUse` (the file untouched).
    init(_ fd: Int32, path: String) throws(RecorderError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            throw RecorderError(.cannotCreateFile, "cannot create '\(path)': \(String(cString: strerror(code))); choose another path",
                                underlying: .init(.posix, code))
        }
        let identity = Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        guard Self.held.withLock({ $0.insert(identity).inserted }) else { throw Self.inUse(path, code: EWOULDBLOCK) }
        let deadline = monotonicNanoseconds() + Self.patience
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code != EWOULDBLOCK || monotonicNanoseconds() >= deadline {
                _ = Self.held.withLock { $0.remove(identity) }
                throw Self.inUse(path, code: code)
            }
            usleep(2_000)
        }
        self.identity = identity
    }

    /// Gives the claim up, once the descriptor (and with it the `flock`) is closed.
    func release() {
        _ = Self.held.withLock { $0.remove(identity) }
    }

    private static func inUse(_ path: String, code: Int32) -> RecorderError {
        RecorderError(.fileInUse,
            "'\(path)' is in use by another recording and was left untouched; choose another name or stop that "
            + "recording first", underlying: .init(.posix, code))
    }
}

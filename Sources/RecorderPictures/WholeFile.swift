// A file written beside its path and renamed into place when complete: the curve files, and where a
// picture is drawn until cairo has written it.
import Glibc
import RecorderKit

/// A file written beside its path and renamed into place when finished: never half a file at `path`.
/// Removed if dropped unfinished.
final class WholeFile {
    let path: String
    let what: String
    private let partial: String
    private var descriptor: Int32

    init(path: String, what: String) throws(RecorderError) {
        self.path = path
        self.what = what
        partial = Self.partialPath(for: path)
        descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw RecorderError(.cannotCreateFile, "cannot write \(what) to '\(path)': \(String(cString: strerror(errno))); choose a folder you can write to")
        }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(partial)
        }
    }

    /// Where a file for `path` is written until it is complete: beside it, hidden, named for this process.
    static func partialPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + "." + name + ".partial-\(getpid())"
    }

    func append(_ bytes: [UInt8]) throws(RecorderError) {
        var done = 0
        while done < bytes.count {
            let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw RecorderError(.writeFailed, "cannot write \(what) to '\(path)': \(String(cString: strerror(errno))); free some space")
            }
            done += wrote
        }
    }

    func finish() throws(RecorderError) {
        let synced = fsync(descriptor) == 0 || errno == EINVAL
        close(descriptor)
        descriptor = -1
        guard synced, rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw RecorderError(.writeFailed, "cannot write \(what) to '\(path)': \(reason); free some space or choose another folder")
        }
    }
}

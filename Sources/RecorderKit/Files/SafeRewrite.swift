// Rewriting a file whole or not at all: the change is made in a copy beside it, with room reserved for
// it to grow, synced, and renamed over the file. Used where a library rewrites a file in place without
// reporting a failed write (TagLib, which cuts a FLAC or MP3 short on a full disk and says it saved).
import Glibc

enum SafeRewrite {
    /// Room reserved beyond the file's size for the change to grow it: tags are a few hundred bytes, and
    /// TagLib adds padding of a few KiB at most.
    static let growthReserve = 64 << 10

    /// Copies the file at `path` (its real file, links followed) to a new file beside it, reserves
    /// `growthReserve` more bytes for it, runs `change` on the copy's path, syncs the copy and renames it
    /// over the file. On any failure the copy is removed and the file is as it was. Any thread.
    /// `what` begins each message ("cannot tag 'x.flac' with its loudness").
    /// - Throws: `.cannotCreateFile` when the folder cannot be written (read-only, no permission);
    ///   `.writeFailed` for anything else (the disk full), each saying what failed; or what `change` throws.
    static func rewrite(_ path: String, what: String, _ change: (String) throws(RecorderError) -> Void) throws(RecorderError) {
        let target = realPath(path)
        let folder = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        let name = target.lastIndex(of: "/").map { String(target[target.index(after: $0)...]) } ?? target
        let copy = (folder.isEmpty ? "" : folder) + "/.\(name).rewrite-\(getpid())"
        func failure(_ reason: String, _ code: Int32) -> RecorderError {
            unlink(copy)
            let place = folder.isEmpty ? "/" : folder
            if code == EROFS || code == EACCES || code == EPERM {
                return RecorderError(.cannotCreateFile,
                    "\(what): \(reason): \(String(cString: strerror(code))) (\(place)); copy it to a writable folder and "
                    + "work on that; the file is unchanged", underlying: .init(.posix, code))
            }
            let advice = code == ENOSPC || code == EDQUOT
                ? "the disk is full (its copy with the change, \(sizeText(target)), did not fit in \(place)); free some space "
                    + "and try again"
                : "\(reason): \(String(cString: strerror(code))); check the disk and its folder \(place)"
            return RecorderError(.writeFailed, "\(what): \(advice); the file is unchanged", underlying: .init(.posix, code))
        }
        let source = open(target, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure("cannot open it", errno) }
        defer { close(source) }
        var status = stat()
        guard fstat(source, &status) == 0 else { throw failure("cannot read it", errno) }
        let destination = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, status.st_mode & 0o7777)
        guard destination >= 0 else { throw failure("cannot make a copy beside it", errno) }
        var closed = false
        defer { if !closed { close(destination) } }
        _ = fchown(destination, status.st_uid, status.st_gid)  // kept where allowed (as root)
        _ = fchmod(destination, status.st_mode & 0o7777)
        // Room for the copy and its growth before a byte is copied (`DiskRoom`; a filesystem that cannot
        // reserve goes without, and the sync below still reports a write that failed).
        var room = DiskRoom(descriptor: destination, closingReserve: Int64(growthReserve))
        guard room.make(for: Int64(status.st_size)) else { throw failure("cannot make room for the copy", errno) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("cannot read it", errno) }
            guard count > 0 else { break }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + written, count - written) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { throw failure("cannot write its copy", result == 0 ? ENOSPC : errno) }
                written += result
            }
        }
        guard fsync(destination) == 0 else { throw failure("cannot write its copy", errno) }
        do {
            try change(copy)
        } catch {
            unlink(copy)
            throw error
        }
        // What the change wrote reaches the disk, or the failure is known, before the copy replaces the file.
        let synced = fsync(destination) == 0
        let syncError = errno
        room.release()
        closed = true
        guard close(destination) == 0, synced else { throw failure("cannot write its copy", synced ? errno : syncError) }
        guard rename(copy, target) == 0 else { throw failure("cannot put the copy in its place", errno) }
        let directory = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// The file a path names, links followed (the path itself if it cannot be resolved).
    private static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func sizeText(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "its size" }
        let bytes = Double(status.st_size)
        return bytes >= 1_048_576 ? "\(Int((bytes / 1_048_576).rounded())) MiB" : "\(Int((bytes / 1_024).rounded(.up))) KiB"
    }
}

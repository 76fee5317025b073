// The folder of takes the page lists, downloads from and deletes in: only plain files directly inside it,
// named by one path component, never through a link, never the take being written.
import Glibc
import RecorderKit

/// One file of the take folder as the page lists it.
public struct TakeEntry: Sendable, Hashable {
    /// The file's name in the folder.
    public let name: String
    /// Its size in bytes.
    public let bytes: Int64
    /// Modification time, seconds since 1970.
    public let modified: Int64
}

/// The take folder. Any thread, several at once (each call reads the folder afresh). Sendable: its path
/// is a constant.
public struct TakeFolder: Sendable {
    /// The folder, as given (absolute or relative to the working directory at start).
    public let path: String

    /// The folder at `path`, which must be a directory.
    public init(path: String) throws(ServeError) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw ServeError("the take folder \(path) is not a directory: create it, or give another with --folder")
        }
        self.path = path
    }

    /// Where the file `name` of the folder is.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The sound files in the folder (the containers `record` writes), newest first; links, hidden
    /// files and anything but regular files left out.
    public func list() -> [TakeEntry] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var entries: [TakeEntry] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard Self.isPlainName(name), FileType(path: name) != nil else { continue }
            var status = stat()
            guard lstat(file(name), &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            entries.append(TakeEntry(name: name, bytes: Int64(status.st_size), modified: Int64(status.st_mtim.tv_sec)))
        }
        return entries.sorted { ($0.modified, $0.name) > ($1.modified, $1.name) }
    }

    /// True for a name of one path component that is not hidden: no `/`, no NUL, not `.` or `..`, not
    /// starting with `.`, at most 255 bytes.
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".") && !name.contains("/") && !name.utf8.contains(0)
    }

    /// Opens `name` for reading: a descriptor and its size, or why not (the refusal for the client).
    func open(_ name: String) -> Result<(descriptor: Int32, bytes: Int64), Refusal> {
        guard Self.isPlainName(name), FileType(path: name) != nil else {
            return .failure(Refusal(status: .forbidden, reason: "refused a download of '\(name)': not a take's name in the folder"))
        }
        // O_NOFOLLOW: a link (to anything, inside or out) is refused at the open itself, so nothing can
        // swap one in between a check and the open.
        let descriptor = Glibc.open(file(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let why = errno == ELOOP ? "it is a link" : String(cString: strerror(errno))
            return .failure(Refusal(status: errno == ENOENT ? .notFound : .forbidden,
                                    reason: "refused a download of '\(name)': \(why)"))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .failure(Refusal(status: .forbidden, reason: "refused a download of '\(name)': not a regular file"))
        }
        return .success((descriptor, Int64(status.st_size)))
    }

    /// Deletes `name` unless it is not a plain take file of the folder or is in `busy` (being written).
    func delete(_ name: String, busy: Set<String>) -> Refusal? {
        guard Self.isPlainName(name), FileType(path: name) != nil else {
            return Refusal(status: .forbidden, reason: "refused to delete '\(name)': not a take's name in the folder")
        }
        guard !busy.contains(name) else {
            return Refusal(status: .conflict, reason: "refused to delete '\(name)': it is being recorded; stop the take first")
        }
        var status = stat()
        guard lstat(file(name), &status) == 0 else {
            return Refusal(status: .notFound, reason: "refused to delete '\(name)': no such take")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return Refusal(status: .forbidden, reason: "refused to delete '\(name)': not a regular file (a link or a folder)")
        }
        guard unlink(file(name)) == 0 else {
            return Refusal(status: .internalServerError, reason: "could not delete '\(name)': \(String(cString: strerror(errno)))")
        }
        // Its peak data, written beside it by --peaks, goes with it.
        let peaks = file(name) + ".dat"
        if lstat(peaks, &status) == 0, status.st_mode & S_IFMT == S_IFREG { unlink(peaks) }
        return nil
    }
}

// A logger's retention: the files it wrote, listed in its own index beside them, removed oldest first when they expire or the disk needs room.
import Glibc

/// How long a logger keeps its files, and how much of the disk it leaves free.
public struct RetentionPolicy: Sendable, Hashable {
    /// Room to leave free on the logger's disk.
    public enum FreeSpace: Sendable, Hashable {
        /// A share of the disk (0 < share < 1).
        case fraction(Double)
        /// A number of bytes.
        case bytes(Int64)
    }

    /// Files older than this (seconds since their last frame, as a file's modification time) are removed;
    /// nil: kept whatever their age.
    public var maxAge: Double?
    /// The oldest files are removed while the disk has less free; nil: no such limit.
    public var minimumFree: FreeSpace?

    /// A policy: files older than `maxAge` seconds removed, and the oldest while less than `minimumFree` is free.
    public init(maxAge: Double? = nil, minimumFree: FreeSpace? = nil) {
        self.maxAge = maxAge
        self.minimumFree = minimumFree
    }
}

/// The retention of a logger's files (`Recorder.record(toSegments:every:)`): only the files it wrote, as
/// its own index lists them, never another file in its folders, and never the file being written (a file
/// is listed once finished).
///
/// The index is a text file in the pattern's first folder without fields (`log/` for
/// `log/%Y/%m/%d/%H%M.flac`), named for the pattern (`.recorder-index-` and a hash of it: two loggers with
/// their own patterns in one folder keep their own files), one line per file: when its last frame was
/// captured (Unix seconds, its first frame's time plus its length) and its absolute path. It outlives the process, so a logger restarted goes on expiring
/// the files of its earlier runs. A removal takes the file (and its peak file, if any) and the folders it
/// leaves empty up to the index's folder, then rewrites the index (a copy renamed over it).
///
/// Used from one thread at a time (the caller's; the command's event task).
public final class SegmentRetention: @unchecked Sendable {
    // @unchecked Sendable: its state is used from one thread at a time, as documented; it is handed
    // between tasks, never shared by two at once.

    /// One file removed, and why.
    public struct Removal: Sendable, Hashable {
        /// Why a file was removed.
        public enum Reason: String, Sendable, Hashable {
            /// Older than the policy's `maxAge`.
            case expired
            /// The disk had less free than the policy's `minimumFree`.
            case diskRoom = "disk-room"
        }

        /// The file removed.
        public let path: String
        /// When its last frame was captured (Unix seconds).
        public let endTime: Double
        /// Why.
        public let reason: Reason
    }

    /// The policy applied.
    public let policy: RetentionPolicy
    /// The index's path.
    public let indexPath: String
    /// The folder the index is in: the top of what the logger writes.
    public let root: String
    /// Free and total bytes of the disk holding a path (statvfs; the tests give their own disk).
    private let space: (String) -> (free: Int64, total: Int64)?
    /// The files listed, oldest first.
    private var entries: [(time: Double, path: String)] = []

    /// The retention of the files named by `pattern` (as given to `record(toSegments:)`): reads the index
    /// left by earlier runs, if any.
    public convenience init(pattern: String, policy: RetentionPolicy) throws(RecorderError) {
        try self.init(pattern: pattern, policy: policy, space: Self.diskSpace)
    }

    init(pattern: String, policy: RetentionPolicy, space: @escaping (String) -> (free: Int64, total: Int64)?) throws(RecorderError) {
        self.policy = policy
        self.space = space
        root = Self.root(of: pattern)
        indexPath = root + "/.recorder-index-" + Self.hash(Self.absolute(pattern))
        try SegmentNames.makeFolders(for: indexPath)
        let descriptor = open(indexPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            guard errno == ENOENT else {
                throw RecorderError(.cannotCreateFile,
                    "cannot read the logger's index '\(indexPath)': \(String(cString: strerror(errno))); check its permissions")
            }
            return
        }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            text += chunk[0..<count]
        }
        close(descriptor)
        for line in text.split(separator: UInt8(ascii: "\n")) {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")),
                  let time = Double(String(decoding: line[line.startIndex..<tab], as: UTF8.self)), time.isFinite else { continue }
            entries.append((time, String(decoding: line[(tab + 1)...], as: UTF8.self)))
        }
        entries.sort { $0.time < $1.time }
    }

    /// The files listed now, oldest first (absolute paths).
    public var files: [String] { entries.map(\.path) }

    /// A file the logger finished: listed (appended to the index).
    public func add(_ file: FinishedFile) throws(RecorderError) {
        let path = Self.absolute(file.path)
        let time = file.startTime.map { $0 + file.duration } ?? realtimeSeconds()
        entries.append((time, path))
        entries.sort { $0.time < $1.time }
        let line = Array("\(time)\t\(path)\n".utf8)
        let descriptor = open(indexPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw RecorderError(.cannotCreateFile,
                "cannot write the logger's index '\(indexPath)': \(String(cString: strerror(errno))); check the folder's permissions")
        }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw RecorderError(.writeFailed, "cannot write the logger's index '\(indexPath)': \(String(cString: strerror(errno))); free some space")
        }
    }

    /// Removes what the policy says must go at `now` (Unix seconds): every file older than `maxAge`, then
    /// the oldest while the disk has less free than `minimumFree`, never `writing` (the file being
    /// written) nor a file not listed. Returns the removals, oldest first.
    public func expire(now: Double, writing: String? = nil) -> [Removal] {
        let current = writing.map(Self.absolute)
        var removals: [Removal] = []
        if let maxAge = policy.maxAge, maxAge.isFinite {
            while let oldest = entries.first, oldest.path != current, now - oldest.time > maxAge {
                remove(0)
                removals.append(Removal(path: oldest.path, endTime: oldest.time, reason: .expired))
            }
        }
        if let minimumFree = policy.minimumFree {
            while let oldest = entries.first, oldest.path != current, let disk = space(root), disk.total > 0 {
                let wanted = switch minimumFree {
                case .fraction(let share): Int64(Double(disk.total) * share)
                case .bytes(let bytes): bytes
                }
                guard disk.free < wanted else { break }
                remove(0)
                removals.append(Removal(path: oldest.path, endTime: oldest.time, reason: .diskRoom))
            }
        }
        if !removals.isEmpty { rewriteIndex() }
        return removals
    }

    /// Removes entry `index`'s file, its peak file, and the folders that leaves empty up to the root.
    private func remove(_ index: Int) {
        let path = entries.remove(at: index).path
        unlink(path)
        unlink(FileSession.peakPath(for: path))
        let top = Self.absolute(root)
        var folder = path
        while let slash = folder.lastIndex(of: "/") {
            folder = String(folder[..<slash])
            guard folder.count > top.count, folder.hasPrefix(top), rmdir(folder) == 0 else { break }
        }
    }

    /// The index as it stands, written to a copy and renamed over it (a crash leaves the old or the new).
    private func rewriteIndex() {
        let copy = indexPath + ".new"
        let text = Array(entries.map { "\($0.time)\t\($0.path)\n" }.joined().utf8)
        let descriptor = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        if written == text.count { rename(copy, indexPath) } else { unlink(copy) }
    }

    /// A name pattern's first folder without strftime fields ("log" for `log/%Y/%m/%H.flac`, "." for a
    /// bare name): where the index goes, and the disk a logger writes to. Any thread.
    public static func root(of pattern: String) -> String {
        var folders = pattern.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        if let field = folders.firstIndex(where: { $0.contains("%") }) { folders = folders[..<field] }
        let joined = folders.joined(separator: "/")
        return joined.isEmpty ? (pattern.hasPrefix("/") ? "/" : ".") : joined
    }

    /// `path` from the root of the file system (the current folder before it, for a relative one).
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let folder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (folder == "/" ? "" : folder) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// FNV-1a, 64 bits, in hex: the index's name for a pattern.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Free (for an unprivileged writer) and total bytes of the disk holding `path` (statvfs), nil when it
    /// cannot be read. Any thread.
    public static func diskSpace(_ path: String) -> (free: Int64, total: Int64)? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize)
        return (Int64(info.f_bavail) * unit, Int64(info.f_blocks) * unit)
    }
}

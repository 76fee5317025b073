// A logger's file names: a strftime(3) pattern read at each file's start, the folders it names made as needed.
import Glibc

/// Names a logger's files from a strftime(3) pattern (`%Y/%m/%d/%H%M%S.flac`), read at the time each
/// file starts in the zone its boundaries are read in (`SegmentClock.Zone`): the first file at the
/// take's start, every other at its boundary. A pattern without a conversion names one file, and the
/// files after it are numbered as a split take's are (`log-002.flac`, `log-003.flac`, …).
///
/// A name already taken (by a file of the same take, as when the clock goes back an hour and the pattern
/// has no `%z`; or by a file on disk, without `overwrite`) is numbered in the same way (`0100-002.flac`):
/// a logger that restarts within its file's period goes on beside the file it left, never over it.
///
/// Values, usable from any thread. The local zone is the process's (`TZ`), read through `localtime_r`.
public struct SegmentNames: Sendable, Hashable {
    /// The strftime(3) pattern.
    public let pattern: String
    /// The zone the pattern's fields are read in.
    public let zone: SegmentClock.Zone

    /// The longest name a pattern may give (bytes): a path's limit.
    static let maxBytes = Int(PATH_MAX) - 1

    /// Names from `pattern`, its fields read in `zone`.
    public init(pattern: String, zone: SegmentClock.Zone) {
        self.pattern = pattern
        self.zone = zone
    }

    /// True when the pattern has a conversion (a `%` other than `%%`): each file's name tells its time.
    public var isTimed: Bool {
        var percent = false
        for character in pattern.utf8 {
            if percent {
                if character != UInt8(ascii: "%") { return true }
                percent = false
            } else if character == UInt8(ascii: "%") {
                percent = true
            }
        }
        return false
    }

    /// The name of a file that starts at `time` (Unix seconds): the pattern with its fields filled, or nil
    /// for a time no calendar holds, a pattern with a NUL, or a name longer than a path may be.
    public func name(at time: Double) -> String? {
        guard time.isFinite, abs(time) < 1e15, !pattern.utf8.contains(0) else { return nil }
        var seconds = time_t(Int64(time.rounded(.down)))
        var broken = tm()
        guard (zone == .utc ? gmtime_r(&seconds, &broken) : localtime_r(&seconds, &broken)) != nil else { return nil }
        // strftime returns 0 both for "no room" and for an empty result: the room is doubled until the
        // result fits or passes the limit (an empty pattern is the empty name).
        guard !pattern.isEmpty else { return "" }
        var room = 256
        while room <= 4 * Self.maxBytes {
            var buffer = [CChar](repeating: 0, count: room)
            let count = strftime(&buffer, room, pattern, &broken)
            if count > 0 {
                return count > Self.maxBytes ? nil : String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            room *= 2
        }
        return nil
    }

    /// Makes the folders `path` names (as `mkdir -p` does for its parent), each with the umask's
    /// permissions. A folder that exists is fine; anything else in the way is the error.
    static func makeFolders(for path: String) throws(RecorderError) {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, part) in parts.enumerated() {
            folder += (index == 0 ? "" : "/") + part
            guard !part.isEmpty, part != ".", part != ".." else { continue }
            if mkdir(folder, 0o777) == 0 || errno == EEXIST {
                var status = stat()
                if stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { continue }
                throw RecorderError(.cannotCreateFile,
                    "cannot create '\(path)': '\(folder)' is not a folder; move it away or choose another name pattern")
            }
            throw RecorderError(.cannotCreateFile,
                "cannot create the folder '\(folder)' for '\(path)': \(String(cString: strerror(errno))); "
                + "check the permissions, or choose another name pattern")
        }
    }
}

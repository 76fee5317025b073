// Disk space kept ahead of a file being written, so a full disk is met before a write, never inside one.
import CSemaphore
import Glibc

/// The room a file being written keeps on its disk: past its end, for the next write and for what
/// closing adds (an encoder's last blocks, a header, markers). An encoder (FLAC, Vorbis, Opus, MP3) holds
/// frames it has taken and writes them later; on a full disk that later write failed unseen and the file
/// was cut short (a FLAC not a valid stream, 2 920 frames fewer than counted; an MP3's end lost without a
/// word). With the room made first, a write that cannot have it is refused before any frame of it is
/// handed on, and what was handed on always fits.
///
/// Reserved with `fallocate(FALLOC_FL_KEEP_SIZE)`: the file's size does not change; a filesystem that
/// cannot reserve is written as before. One thread at a time (the file's writer).
package struct DiskRoom {
    private let descriptor: Int32
    /// Bytes kept free past what each write adds; 0: nothing is reserved (not a regular file, or the
    /// filesystem cannot).
    package private(set) var closingReserve: Int64
    /// The file's bytes reserved on the disk so far.
    private var reservedTo: Int64 = 0
    /// Reserved past what is needed when the disk has it.
    private static let ahead: Int64 = 256 << 10

    /// Room for the file open on `descriptor`, `closingReserve` bytes past each write (nothing for what is
    /// not a regular file: a pipe, a device).
    package init(descriptor: Int32, closingReserve: Int64) {
        self.descriptor = descriptor
        var status = stat()
        let regular = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        self.closingReserve = regular ? max(0, closingReserve) : 0
    }

    /// What a file of `encoded` content keeps for closing: an encoder's two blocks of 4 096 frames (at
    /// least 32 KiB), or 4 KiB for markers after PCM.
    package static func closingReserve(encoded: Bool, bytesPerFrame: Int) -> Int64 {
        encoded ? max(32 << 10, 2 * 4_096 * Int64(bytesPerFrame)) : 4 << 10
    }

    /// Makes room for `bytes` more and the closing reserve (256 KiB ahead: one call serves many writes).
    /// False, with errno ENOSPC or EDQUOT, when the disk cannot give even the least of it.
    package mutating func make(for bytes: Int64) -> Bool {
        guard closingReserve > 0 else { return true }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return true }
        let needed = Int64(status.st_size) + max(0, bytes) + closingReserve
        guard needed > reservedTo else { return true }
        // FALLOC_FL_KEEP_SIZE (1): blocks past the end, the size unchanged. 256 KiB ahead, so a call serves
        // many writes (a mono 16-bit take's 100 ms buffers: 30 of them); near a full disk, just what is needed.
        if fallocate(descriptor, 1, 0, off_t(needed + Self.ahead)) == 0 {
            reservedTo = needed + Self.ahead
            return true
        }
        let code = errno
        guard code == ENOSPC || code == EDQUOT else {
            closingReserve = 0  // this filesystem cannot reserve (EOPNOTSUPP): written as before
            return true
        }
        if fallocate(descriptor, 1, 0, off_t(needed)) == 0 {
            reservedTo = needed
            return true
        }
        errno = code
        return false
    }

    /// Gives back what was reserved past the end and not used (FALLOC_FL_PUNCH_HOLE | KEEP_SIZE), once
    /// the file is complete.
    package func release() {
        var status = stat()
        guard reservedTo > 0, fstat(descriptor, &status) == 0, reservedTo > Int64(status.st_size) else { return }
        _ = fallocate(descriptor, 3, status.st_size, off_t(reservedTo - Int64(status.st_size)))
    }
}

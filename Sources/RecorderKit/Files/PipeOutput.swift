// Writing a stream to standard output when it is a pipe, so that a reader that stops reading cannot hold
// the writing thread past a stop.
import Glibc

/// Relays what libsndfile writes for a `SoundFileWriter` on to standard output when that is a pipe (or
/// anything else that cannot seek). Used only from the writer's thread.
///
/// A blocking `write` to a full pipe sleeps until the reader reads: a reader that stalls (`| sleep 60`,
/// a paused pager) would hold the delivery thread in libsndfile, and with it the stop the user asked
/// for. How much a pipe can still take is not measurable in bytes (the kernel stores writes in pages,
/// partly filled), but `poll` says when it can take one more page, and a write of at most `PIPE_BUF`
/// bytes then never blocks. So libsndfile writes into a pipe of our own (it streams to it as to any
/// pipe: no header rewritten, no length stated), which is always emptied before libsndfile is given
/// more, and its bytes are passed on to standard output a page at a time, each once `poll` says it
/// fits. Waiting for the reader is unbounded while recording (as a blocking write would be), and
/// bounded by `stallLimit` once the recording is being stopped.
final class PipeOutput {
    /// Seconds a reader may take nothing after a stop was asked before the recording ends without it.
    static let stallLimit = 1.0
    /// The most bytes passed on per write: a pipe that `poll` says is writable takes this many at once.
    private static let pageBytes = Int(PIPE_BUF)

    /// The write end of our pipe: libsndfile's descriptor.
    let sndfileDescriptor: Int32
    private let internalRead: Int32
    /// Standard output (a duplicate, closed by `close()`).
    private let output: Int32
    private let bytesPerFrame: Int
    /// Whether the stream's bytes after the header are whole frames (raw and AU; FLAC is encoded).
    private let framed: Bool
    /// Bytes read from our pipe, not yet passed on: `relay[relayStart..<relayEnd]`.
    private var relay: [UInt8]
    private var relayStart = 0, relayEnd = 0
    /// Bytes passed on to standard output so far, and of them the stream's header.
    private(set) var bytesOut: Int64 = 0
    private var headerBytes: Int64 = 0
    /// The header has not been read from our pipe yet: the first read takes exactly it.
    private var headerPending = false
    /// The reader stalled past a stop: nothing more is passed on.
    private(set) var abandoned = false

    /// nil when our pipe cannot take what one piece may produce (a FLAC block of many channels and a
    /// pipe that may not be enlarged): libsndfile then writes standard output itself, blocking.
    /// - Parameter output: the duplicate of standard output; closed by `close` once the relay exists.
    init?(output: Int32, bytesPerFrame: Int, encodes: Bool) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], Self.setPipeSize, Int32(1 << 20))
        let capacity = Int(fcntl(ends[1], Self.getPipeSize))
        // A piece of raw frames: a quarter of the pipe. FLAC: 1 024 frames, which complete at most one
        // block of 4 096 (its bytes verbatim at worst, and the stream's header with the first).
        let pieceFrames = encodes ? 1_024 : max(1, min(16_384, capacity / 4) / bytesPerFrame)
        let worst = encodes ? 4_096 * bytesPerFrame + 16_384 : pieceFrames * bytesPerFrame
        // Pages the kernel may use for it, partly filled ones at both ends counted.
        guard capacity > 0, (worst + 4_095) / 4_096 + 2 <= capacity / 4_096 else {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            return nil
        }
        internalRead = ends[0]
        sndfileDescriptor = ends[1]
        self.output = output
        self.bytesPerFrame = bytesPerFrame
        self.framed = !encodes
        self.pieceFrames = pieceFrames
        // Whole frames per write, so that a stream ended by a stalled reader ends on a frame.
        relay = [UInt8](repeating: 0, count: 4 * Self.pageBytes)
        _ = fcntl(internalRead, F_SETFL, fcntl(internalRead, F_GETFL) | O_NONBLOCK)
    }

    /// fcntl's F_SETPIPE_SZ and F_GETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7 and + 8), which Glibc's module
    /// leaves out without _GNU_SOURCE.
    private static let setPipeSize: Int32 = 1_031, getPipeSize: Int32 = 1_032

    /// The most frames to hand libsndfile at once: what they produce always fits in our (empty) pipe.
    let pieceFrames: Int

    /// Once libsndfile has opened the stream: what it wrote so far is the header, counted apart from
    /// the audio (and passed on with the first audio).
    func markHeader() {
        var queued: Int32 = 0
        headerBytes = ioctl(internalRead, UInt(FIONREAD), &queued) == 0 ? Int64(queued) : 0
        headerPending = framed && headerBytes > 0
    }

    /// Frames of audio that reached standard output (raw and AU; nil for FLAC, which is encoded).
    var framesOut: Int64? { framed ? max(0, bytesOut - headerBytes) / Int64(bytesPerFrame) : nil }

    /// Passes everything libsndfile has written on to standard output, waiting for the reader as long
    /// as it takes while `isStopping()` is false, and at most `stallLimit` seconds of no progress once
    /// it is true (then throws the stall, and drops what is left).
    /// - Throws: `.writeFailed` for a stall past a stop, a reader that left (EPIPE) or another error.
    func passOn(isStopping: () -> Bool) throws(PipeFailure) {
        guard !abandoned else { throw .stalled }
        var stalledSince: Int64?
        while true {
            if relayStart == relayEnd {
                // The header alone first, then whole frames (libsndfile writes whole frames; what a read
                // splits is topped up). Everything read so far was passed on: `bytesOut` bytes.
                let isHeader = headerPending
                let wanted = isHeader ? min(Int(headerBytes - bytesOut), relay.count) : relay.count
                let count = relay.withUnsafeMutableBytes { read(internalRead, $0.baseAddress, wanted) }
                if count <= 0 { return }  // empty (EAGAIN): all passed on
                if isHeader && bytesOut + Int64(count) >= headerBytes { headerPending = false }
                relayStart = 0
                relayEnd = count
                while framed && !isHeader && relayEnd % bytesPerFrame != 0 {
                    let more = relay.withUnsafeMutableBytes {
                        read(internalRead, $0.baseAddress! + relayEnd, bytesPerFrame - relayEnd % bytesPerFrame)
                    }
                    guard more > 0 else { break }
                    relayEnd += more
                }
            }
            var ready = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, 50)
            if polled == 1 {
                // At most what the pipe's last page can still take (the kernel adds a write that fits
                // to it, else starts a page: writes that end on page boundaries leave none half empty),
                // after the header in whole frames, and never more than a page: it cannot block.
                let pending = relayEnd - relayStart
                var size = min(pending, Self.pageBytes - Int(bytesOut % Int64(Self.pageBytes)))
                if framed && !headerPending {
                    size -= size % bytesPerFrame
                    if size == 0 { size = min(pending, Self.pageBytes) / bytesPerFrame * bytesPerFrame }
                    if size == 0 { size = pending }  // less than a frame left: libsndfile wrote a partial one
                }
                let written = relay.withUnsafeBytes { write(output, $0.baseAddress! + relayStart, size) }
                if written > 0 {
                    relayStart += written
                    bytesOut += Int64(written)
                    stalledSince = nil
                    continue
                }
                let code = errno
                if written < 0 && (code == EINTR || code == EAGAIN) { continue }
                throw .failed(code)
            }
            if polled < 0 && errno != EINTR { throw .failed(errno) }
            if isStopping() {
                let now = monotonicNanoseconds()
                if let since = stalledSince {
                    if Double(now - since) / 1e9 >= Self.stallLimit {
                        abandon()
                        throw .stalled
                    }
                } else {
                    stalledSince = now
                }
            }
        }
    }

    /// Nothing more goes out: what is in our pipe is dropped, and libsndfile's last writes (a FLAC
    /// encoder's final block at close) fail at once instead of filling it.
    private func abandon() {
        abandoned = true
        let flags = fcntl(sndfileDescriptor, F_GETFL)
        _ = fcntl(sndfileDescriptor, F_SETFL, flags | O_NONBLOCK)
        relayStart = 0
        relayEnd = 0
        while relay.withUnsafeMutableBytes({ read(internalRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// After libsndfile closed its stream: passes the rest on (bounded as `passOn` once stopping), then
    /// closes both pipes' descriptors. Returns why the rest did not all reach standard output, if it did
    /// not (a FLAC stream's last block is written only now).
    @discardableResult
    func close(isStopping: () -> Bool) -> PipeFailure? {
        // Passed on before any descriptor is closed: a stall makes `abandon` change libsndfile's end,
        // whose number, once closed, another thread may already have been given for a file of its own.
        var failure: PipeFailure?
        if !abandoned {
            do throws(PipeFailure) { try passOn(isStopping: isStopping) } catch { failure = error }
        }
        Glibc.close(sndfileDescriptor)
        Glibc.close(internalRead)
        Glibc.close(output)
        return failure
    }

    /// Why standard output took no more.
    enum PipeFailure: Error {
        /// The reader took nothing for `stallLimit` seconds after a stop was asked.
        case stalled
        /// A write failed with this errno (EPIPE: the reader left).
        case failed(Int32)
    }

    /// The error that ends the recording, `frames` (of audio) having reached standard output (for FLAC:
    /// been given to the encoder).
    static func error(_ failure: PipeFailure, frames: Int64, encoded: Bool) -> RecorderError {
        switch failure {
        case .stalled:
            return RecorderError(.writeFailed,
                "standard output took nothing for \(Int(stallLimit)) s after the stop (its reader stalled): the recording "
                + "ended after \(frames) frames\(encoded ? " (the encoder's last block, up to 4096 of them, is not in the stream)" : ""), "
                + "and what was captured after them was not written; let the reader keep reading, or record to a file")
        case .failed(let code):
            return RecorderError(.writeFailed,
                code == EPIPE ? "standard output was closed by its reader after \(frames) frames; the recording ended there"
                    : "writing to standard output failed after \(frames) frames: \(String(cString: strerror(code))); "
                    + "the recording ended there",
                underlying: .init(.posix, code))
        }
    }
}

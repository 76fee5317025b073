// Reads sound files through libsndfile: for analysis and for playback. The only libsndfile reading in
// RecorderKit, as SoundFileWriter is the only writing.
import CSndFile
import Glibc

/// One sound file opened for reading (any format libsndfile reads: WAV, AIFF, CAF, FLAC, Ogg Vorbis and
/// Opus, MP3, W64, RF64, AU…), read as 32-bit float frames, full scale ±1.0.
///
/// Use it from one thread at a time.
final class SoundFileReader: @unchecked Sendable {
    // @unchecked Sendable: the libsndfile handle is used by one thread at a time (the player hands it to
    // its reader thread through a lock, analysis keeps it on one thread); the other fields are immutable.
    let path: String
    let sampleRate: Int
    let channelCount: Int
    /// Frames the file holds: what it announces (libsndfile's count; for a PCM file, what it holds), or
    /// where it does not say (a FLAC stream written to a pipe, a killed take), the frames decoded to its
    /// end when it is seekable; 0 for standard input from a pipe that does not say.
    let frameCount: Int64
    /// True when `seek` works (not a pipe).
    let isSeekable: Bool
    /// libsndfile's SF_FORMAT_* value: container | subtype | endianness.
    let sndfileFormat: Int32

    /// Whether its samples can be NaN or infinite: float and double PCM can; integers, and what codecs
    /// decode, cannot.
    var mayHoldNonFiniteSamples: Bool {
        let subtype = sndfileFormat & Int32(SF_FORMAT_SUBMASK)
        return subtype == Int32(SF_FORMAT_FLOAT) || subtype == Int32(SF_FORMAT_DOUBLE)
    }
    private(set) var file: OpaquePointer?
    /// Standard input's file opened anew when it was redirected from one, closed with the file (-1: none).
    private var ownedDescriptor: Int32 = -1
    /// The bytes of a sound read from memory, held while libsndfile reads them.
    private var memory: MemoryFile?

    /// Opens `path`.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    convenience init(path: String) throws(RecorderError) {
        let (file, info, owned) = try Self.openHandle(path)
        self.init(path: path, file: file, info: info, ownedDescriptor: owned, memory: nil)
    }

    /// Opens `path` with libsndfile: the handle, what it read of the file, and the descriptor it reads
    /// through when that was opened here (-1: none).
    private static func openHandle(_ path: String) throws(RecorderError) -> (OpaquePointer, SF_INFO, Int32) {
        var info = SF_INFO()
        var ownedDescriptor: Int32 = -1
        // (Asked first: a failed sf_open of "-" closes standard input.)
        var status = stat()
        let stdinType = path == "-" && fstat(STDIN_FILENO, &status) == 0 ? status.st_mode & S_IFMT : 0
        let fromPipe = stdinType == S_IFIFO
        var opened: OpaquePointer?
        // Standard input redirected from a file: libsndfile reads "-" as a pipe whatever it is (a FLAC
        // read so gave 0.09 s of 1 s, a CAF nothing), so the file is opened anew, as the file it is:
        // seekable, any type, with an offset of its own (the analysis reads segments of one file through
        // several readers at once, which a shared descriptor would mix up). Without /proc, as before.
        let reopened = stdinType == S_IFREG ? open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC) : -1
        if reopened >= 0 {
            opened = sf_open_fd(reopened, Int32(SFM_READ), &info, Int32(SF_FALSE))
            if opened == nil { Glibc.close(reopened) } else { ownedDescriptor = reopened }
        } else {
            opened = sf_open(path, Int32(SFM_READ), &info)
        }
        guard let file = opened else {
            // A file that cannot be opened at all: the system's reason and what to check.
            if path != "-" && access(path, R_OK) != 0 {
                let code = errno
                throw RecorderError(.cannotReadFile,
                    "cannot read '\(path)': \(String(cString: strerror(code))); "
                    + (code == ENOENT || code == ENOTDIR ? "check the path" : "check the file's permissions"),
                    underlying: .init(.posix, code))
            }
            var named = stat()
            if path != "-" && stat(path, &named) == 0 && named.st_mode & S_IFMT == S_IFDIR {
                throw RecorderError(.cannotReadFile, "cannot read '\(path)': it is a directory; give a sound file in it",
                                    underlying: .init(.posix, EISDIR))
            }
            if fromPipe {
                // libsndfile (1.2) decodes AU, WAV and Ogg from a pipe; FLAC loses sync there, because
                // its decoder starts after the bytes libsndfile read to tell the type.
                throw RecorderError(.cannotReadFile,
                    "cannot read standard input: \(sndfileReason(nil)); from a pipe libsndfile reads AU, WAV and Ogg: "
                    + "send one of those (sox … -t au -), or redirect a file (< take.flac)",
                    underlying: .init(.sndfile, sf_error(nil)))
            }
            throw RecorderError(.cannotReadFile,
                "cannot read '\(path)': \(sndfileReason(nil)); give a sound file libsndfile opens (WAV, AIFF, CAF, FLAC, …)",
                underlying: .init(.sndfile, sf_error(nil)))
        }
        return (file, info, ownedDescriptor)
    }

    /// Reads a sound held in memory: `bytes` are a whole file of any type libsndfile reads (through
    /// its virtual I/O, seekable); `name` stands for a path in what is said of it.
    /// - Throws: `.cannotReadFile` with libsndfile's reason.
    convenience init(bytes: [UInt8], name: String) throws(RecorderError) {
        let memory = MemoryFile(bytes)
        var info = SF_INFO()
        var io = MemoryFile.io
        guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(memory).toOpaque()) else {
            throw RecorderError(.cannotReadFile,
                "cannot read \(name) (\(bytes.count) bytes): \(sndfileReason(nil)); give the bytes of a whole sound file "
                + "libsndfile reads (WAV, AIFF, CAF, FLAC, …)",
                underlying: .init(.sndfile, sf_error(nil)))
        }
        self.init(path: name, file: file, info: info, ownedDescriptor: -1, memory: memory)
    }

    /// The one place a reader is made: from an open handle and what libsndfile read of the file.
    private init(path: String, file: OpaquePointer, info: SF_INFO, ownedDescriptor: Int32, memory: MemoryFile?) {
        self.path = path
        self.file = file
        self.ownedDescriptor = ownedDescriptor
        self.memory = memory
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = statedOrCountedFrames(file, info)
        isSeekable = info.seekable != 0
        sndfileFormat = info.format
    }

    deinit { close() }

    /// The file's channel positions as libsndfile reads them (`SF_CHANNEL_MAP_*`: a WAV's
    /// WAVE_FORMAT_EXTENSIBLE mask, a CAF's layout), or nil when the file states none.
    var channelMap: [Int32]? {
        guard let file else { return nil }
        var map = [Int32](repeating: 0, count: channelCount)
        let found = map.withUnsafeMutableBytes {
            sf_command(file, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count))
        }
        return found == Int32(SF_TRUE) && map.allSatisfy({ $0 != Int32(SF_CHANNEL_MAP_INVALID) }) ? map : nil
    }

    /// The file's markers, frame and label, as libsndfile reads them (AIFF `MARK`, WAV `cue ` and `labl`).
    var markers: [(frame: Int64, label: String)] {
        file.map(MarkerChunk.read) ?? []
    }

    /// Closes the file. Idempotent.
    func close() {
        if let file { sf_close(file) }
        file = nil
        memory = nil
        if ownedDescriptor >= 0 { Glibc.close(ownedDescriptor) }
        ownedDescriptor = -1
    }

    /// Reads up to `frames` interleaved frames into `destination`; returns how many were read (0 at the
    /// end of the file, or on an error: see `readError`).
    func read(into destination: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        guard let file, frames > 0 else { return 0 }
        return max(0, Int(sf_readf_float(file, destination, sf_count_t(frames))))
    }

    /// libsndfile's account of a failed read (a damaged or cut compressed stream), or nil if the last
    /// read failed for no reason but the end of the file.
    var readError: RecorderError? {
        guard let file else { return nil }
        let code = sf_error(file)
        guard code != 0 else { return nil }
        return RecorderError(.readFailed,
            "cannot read '\(path)' on: \(sndfileReason(file)); the file is damaged or cut short",
            underlying: .init(.sndfile, code))
    }

    /// Moves to frame `frame` (from the start); false if the file cannot seek there.
    @discardableResult
    func seek(to frame: Int64) -> Bool {
        guard let file, isSeekable else { return false }
        return sf_seek(file, sf_count_t(frame), SEEK_SET) >= 0
    }

    /// The container and sample type in libsndfile's words, e.g. "WAV (Microsoft), Signed 16 bit PCM".
    var formatDescription: String {
        func name(_ command: Int32, _ format: Int32) -> String? {
            var info = SF_FORMAT_INFO()
            info.format = format
            guard sf_command(nil, command, &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
                  let text = info.name else { return nil }
            return String(cString: text)
        }
        let major = name(Int32(SFC_GET_FORMAT_INFO), sndfileFormat & Int32(SF_FORMAT_TYPEMASK)) ?? "unknown container"
        let minor = name(Int32(SFC_GET_FORMAT_INFO), sndfileFormat & Int32(SF_FORMAT_SUBMASK)) ?? "unknown encoding"
        return major + ", " + minor
    }

    /// Frames a PCM file's header announces beyond what the file holds, from libsndfile's log of the
    /// header (`SFC_GET_LOG_INFO`: "data : 176400 (should be 88200)" for WAV, "SSND : …" for AIFF); 0
    /// when the log says nothing of the kind.
    var headerShortfall: Int64 {
        guard let file else { return 0 }
        let sampleBytes: Int64
        switch Int(sndfileFormat) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8): sampleBytes = 1
        case Int(SF_FORMAT_PCM_16): sampleBytes = 2
        case Int(SF_FORMAT_PCM_24): sampleBytes = 3
        case Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT): sampleBytes = 4
        case Int(SF_FORMAT_DOUBLE): sampleBytes = 8
        default: return 0
        }
        var log = [CChar](repeating: 0, count: 16_384)
        let length = log.withUnsafeMutableBufferPointer {
            Int(sf_command(file, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count)))
        }
        guard length > 0 else { return 0 }
        let text = String(decoding: log.prefix(min(length, log.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("data : ") || trimmed.hasPrefix("SSND : "),
                  let open = trimmed.firstRange(of: " (should be "), trimmed.hasSuffix(")") else { continue }
            let said = Int64(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 7)..<open.lowerBound])
            let held = Int64(trimmed[open.upperBound..<trimmed.index(before: trimmed.endIndex)])
            guard let said, let held, said > held else { return 0 }
            return (said - held) / (sampleBytes * Int64(max(channelCount, 1)))
        }
        return 0
    }
}

/// libsndfile's error text for `file` (nil: the last failed open) as a clause of one of our lines:
/// without its "System error : " or "Error : " prefix and its closing period ("System error : No space left on
/// device." reads "No space left on device").
func sndfileReason(_ file: OpaquePointer?) -> String {
    var text = String(cString: sf_strerror(file))
    for prefix in ["System error : ", "Error : "] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
    while text.hasSuffix(".") || text.hasSuffix(" ") { text.removeLast() }
    return text
}

/// The `MemoryFile` libsndfile's virtual I/O hands back as its user data.
private func memoryFile(_ user: UnsafeMutableRawPointer?) -> MemoryFile {
    Unmanaged<MemoryFile>.fromOpaque(user!).takeUnretainedValue()
}

/// Bytes libsndfile reads as a file (`sf_open_virtual`): its position, and the callbacks that read them.
private final class MemoryFile {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// libsndfile's virtual I/O over a `MemoryFile` (its user data); writing is refused.
    static var io: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
        get_filelen: { user in sf_count_t(memoryFile(user).bytes.count) },
        seek: { offset, whence, user in
            let memory = memoryFile(user)
            let base = whence == SEEK_CUR ? memory.position : whence == SEEK_END ? memory.bytes.count : 0
            let (target, overflow) = base.addingReportingOverflow(Int(truncatingIfNeeded: offset))
            guard !overflow, target >= 0 else { return -1 }
            memory.position = target
            return sf_count_t(target)
        },
        read: { destination, count, user in
            let memory = memoryFile(user)
            guard let destination, count > 0, memory.position < memory.bytes.count else { return 0 }
            let length = min(Int(count), memory.bytes.count - memory.position)
            memory.bytes.withUnsafeBytes {
                destination.copyMemory(from: $0.baseAddress! + memory.position, byteCount: length)
            }
            memory.position += length
            return sf_count_t(length)
        },
        write: { _, _, _ in 0 },
        tell: { user in sf_count_t(memoryFile(user).position) })
    }
}

/// The frames the libsndfile handle `file` holds, opened for reading with `info`: `info.frames` where the
/// header states it; where it does not (libsndfile's SF_COUNT_MAX or 0: a FLAC stream written to a pipe,
/// a take killed before its header was finished), counted by decoding to the end and then put back at the
/// start, so a caller gets the frames that are there, never SF_COUNT_MAX. 0 for what cannot be counted
/// (not seekable). Any thread, with the handle its own.
package func statedOrCountedFrames(_ file: OpaquePointer, _ info: SF_INFO) -> Int64 {
    // An AU stream whose header leaves its length unspecified (written to a pipe) is stated as
    // SF_COUNT_MAX over the frame size (2^61 frames for 16-bit stereo): no length. Anything past 2^48
    // frames (three years at 2.8 MHz) is taken as that.
    if info.frames > 0 && info.frames < 1 << 48 { return Int64(info.frames) }
    guard info.seekable != 0, info.channels > 0 else { return 0 }
    var scratch = [Float](repeating: 0, count: 4_096 * Int(info.channels))
    var frames: Int64 = 0
    while true {
        let read = scratch.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, 4_096) }
        guard read > 0 else { break }
        frames += Int64(read)
    }
    sf_seek(file, 0, SEEK_SET)
    return frames
}


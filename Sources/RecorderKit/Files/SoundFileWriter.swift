// Writes captured big-endian packets into a sound file through libsndfile, keeping its header valid.
import CSndFile
import Glibc
import Locking

/// One output file written with captured packets (AudioFileWritePackets for linear PCM): what a
/// `Recorder` uses for `record(to:)`, also usable on its own for buffers from `setInputHandler`.
/// Use it from one thread at a time.
public final class SoundFileWriter: @unchecked Sendable {
    // @unchecked Sendable: a Recorder hands it once from the creating thread to the delivery thread
    // through a lock and never uses it from two threads at once; other users must do the same.
    /// The file being written.
    public let path: String
    /// The container, from the path's extension.
    public let fileType: FileType
    let channelCount: Int
    let sampleRate: Int
    var file: OpaquePointer?
    let descriptor: Int32
    /// The writer's claim on the file (nil for standard output), released by `close()`.
    let lock: FileLock?
    /// True when the file stores the samples as captured (big-endian, same format), so captured bytes
    /// go in unchanged.
    let writesRawBigEndian: Bool
    /// The samples `write(packets:)` takes.
    public let sampleFormat: SampleFormat
    /// The lossy encoder's quality asked for (0…1), or nil for libsndfile's default.
    public let quality: Double?
    /// The file's bext chunk as last set (WAV and RF64 only; nil: none). See `setBroadcastInfo(_:)`.
    public internal(set) var broadcastInfo: BroadcastInfo?
    /// Set by `close()` when what libsndfile wrote at its close did not reach standard output (a stalled
    /// or departed reader): the stream ends short of what was written to it.
    public internal(set) var closeError: RecorderError?
    /// Bytes reserved for the iXML chunk (0: none), and the document to write there at `close()`.
    var ixmlReserved = 0
    var ixmlDocument: String?
    /// Host-order samples for containers that are not big-endian PCM: 16-bit, 24/32-bit (as libsndfile's
    /// ints, the sample in the top bits) or float; only the one the format needs, sized once.
    var shortScratch: [Int16] = []
    var intScratch: [Int32] = []
    var floatScratch: [Float] = []
    /// 16-bit samples go to libsndfile as ints (the sample in the top bits): its MP3 encoder distorts
    /// shorts of two or more channels (libsndfile 1.2.0: a 0.5 sine read back 2 dB low with a peak above
    /// full scale), and takes ints and floats whole.
    let widensShorts: Bool
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0
    /// The largest write the conversion buffer was sized for (more is written in pieces).
    let maxFramesPerWrite: Int
    /// Bytes of the header as first written (the file's size with no audio in it).
    public let headerBytes: Int
    /// The most frames this file can take without passing what its container can describe
    /// (AIFF's and AU's 32-bit sizes: about 4 GiB). `write` refuses frames beyond it.
    public let frameCapacity: Int64
    /// False for a pipe (its header is written once) and the lossy types (no header to refresh).
    let refreshesHeader: Bool
    /// The room the file keeps on its disk for each write and for closing (none for a pipe or a device).
    var room: DiskRoom
    /// How writes to standard output that cannot seek wait for room, so that a reader that stops
    /// reading cannot hold the writing thread past a stop (nil: a file, written as it comes).
    let pipe: PipeOutput?
    /// Asked while a write waits for room in a pipe: true once the recording is being stopped. From
    /// then on a reader that takes nothing for `PipeOutput.stallLimit` seconds ends the recording
    /// (`.writeFailed`) instead of holding up the stop. Set by the owner before writing.
    var isStopping: @Sendable () -> Bool = { false }
    /// True when the file is the process's standard output (`path` "-").
    public let isStandardOutput: Bool
    /// True when `path` named an existing FIFO or character device, written into as standard output is
    /// (nothing created, truncated, locked or removed).
    let isDevice: Bool
    /// Frames between checks that the file is still linked (one second), and the next check's position.
    let linkCheckFrames: Int64
    var nextLinkCheck: Int64

    /// Creates the file exclusively (no race with another creator; a symlink at the path is refused)
    /// with the user's umask, unless `overwrite` is true.
    ///
    /// One writer per file: the writer holds an exclusive `flock` on the file until `close()`. A file
    /// another writer holds (in this process or another) is refused with `.fileInUse` and left
    /// untouched, even with `overwrite` (it is truncated only once the lock is held). A lock held by
    /// another process is waited for up to `FileLock.patience` (0.5 s) first: a child this process
    /// starts holds a copy of every descriptor from its fork until its exec, so a file closed a moment
    /// ago can still be locked for that long. Once a second of
    /// audio, `write` checks that the file is still linked: a file deleted (or its directory removed, or
    /// replaced by a rename) under the writer fails the next write with `.writeFailed`, since everything
    /// written is then only in the deleted file.
    ///
    /// `path` "-" is the process's standard output (a pipe, or a file it was redirected to), as for sox
    /// and parecord: written through a duplicate of descriptor 1 (closed by `close()`), with no lock and
    /// no deletion check; AU is the type unless `fileType` names another. A pipe takes only the types
    /// that stream (`FileType.streams`: AU, raw, FLAC, Ogg Vorbis, Opus, MP3). A regular file there
    /// must be open at its start and not for appending (`>`, not `>>`), unless the type is raw: every
    /// other type's header is rewritten at the file's start as the take grows, and an appended one
    /// would not begin the file.
    ///
    /// A `path` that names an existing FIFO or character device (`/dev/null`, a named pipe) is written
    /// into as standard output is, with or without `overwrite` (nothing there is replaced); a FIFO
    /// must have a reader already.
    /// - Parameters:
    ///   - path: the file to create, or "-" for standard output.
    ///   - format: the rate and channel count of the packets `write` will be given.
    ///   - overwrite: replace an existing file (truncated once the lock is held).
    ///   - maxFramesPerWrite: the largest write the conversion buffer is sized for, once.
    ///   - fileType: the container, when the name's extension does not say it (or says another).
    ///   - quality: for the lossy types (Ogg Vorbis, Opus, MP3), the encoder's quality from 0 (smallest)
    ///     to 1 (best), as AVEncoderAudioQualityKey; nil: libsndfile's default. Refused for the others.
    ///   - broadcast: a bext chunk (Broadcast Wave) for a WAV or RF64 file, in its header from the start
    ///     (`headerBytes` counts it); left out of other types, which have no place for it.
    ///   - ixml: an iXML document for a WAV, RF64, AIFF or CAF file, in its header from the start with
    ///     at least 1 KiB of room to grow, in 4 KiB blocks (`setIXML(_:)`); left out of other types.
    public init(path: String, format: StreamFormat, overwrite: Bool = false,
                maxFramesPerWrite: Int = 4_410, fileType: FileType? = nil, quality: Double? = nil,
                broadcast: BroadcastInfo? = nil, ixml: String? = nil) throws(RecorderError) {
        let toStandardOutput = path == "-"
        var existing = stat()
        let deviceType = !toStandardOutput && lstat(path, &existing) == 0 ? existing.st_mode & S_IFMT : 0
        let toDevice = deviceType == S_IFIFO || deviceType == S_IFCHR
        guard let type = fileType ?? (toStandardOutput ? .au : FileType(path: path)) else {
            throw RecorderError(.unsupportedFileType,
                "cannot tell the file type of '\(path)': end the name in \(FileType.extensionList), or name the type")
        }
        self.path = path
        self.fileType = type
        self.channelCount = format.channelCount
        self.sampleRate = format.sampleRate
        self.maxFramesPerWrite = maxFramesPerWrite
        var info = SF_INFO(frames: 0, samplerate: Int32(format.sampleRate), channels: Int32(format.channelCount),
                           format: type.sndfileFormat(format.sampleFormat), sections: 0, seekable: 0)
        if let quality {
            guard type.isLossy else {
                throw RecorderError(.invalidFormat,
                    "an encoder quality applies to Ogg Vorbis, Opus and MP3 only: \(type.rawValue.uppercased()) is lossless; "
                    + "leave the quality out or choose .ogg, .opus or .mp3")
            }
            guard (0...1).contains(quality) else {
                throw RecorderError(.invalidFormat, "invalid encoder quality \(quality): use 0 (smallest) to 1 (best)")
            }
        }
        if type == .opus && ![8_000, 12_000, 16_000, 24_000, 48_000].contains(format.sampleRate) {
            throw RecorderError(.invalidFormat,
                "Opus cannot hold \(format.sampleRate) Hz: record at 48000 Hz (or 8000, 12000, 16000, 24000), or choose .ogg or .mp3")
        }
        guard sf_format_check(&info) != 0 else {
            throw RecorderError(.invalidFormat,
                "\(type.rawValue.uppercased()) cannot hold \(format.sampleFormat.rawValue) samples in \(format.channelCount) "
                + "channels at \(format.sampleRate) Hz: choose another container (.wav, .caf) or format")
        }
        sampleFormat = format.sampleFormat
        let fd: Int32
        if toStandardOutput {
            fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
            guard fd >= 0 else {
                let code = errno
                throw RecorderError(.cannotCreateFile,
                    "cannot write to standard output: \(String(cString: strerror(code))); run with standard output open",
                    underlying: .init(.posix, code))
            }
            var status = stat()
            let kind = fstat(fd, &status) == 0 ? status.st_mode & S_IFMT : 0
            let isPipe = kind != S_IFREG && kind != S_IFBLK
            if isPipe && !type.streams {
                Glibc.close(fd)
                throw RecorderError(.unsupportedFileType,
                    "cannot write \(type.rawValue.uppercased()) to standard output: it is a pipe, and a \(type.rawValue.uppercased()) "
                    + "header must be rewritten at the end; use AU, raw or FLAC (-t au|raw|flac), or redirect to a file")
            }
            let name = type.rawValue.uppercased()
            if kind == S_IFREG && type != .raw && fcntl(fd, F_GETFL) & O_APPEND != 0 {
                Glibc.close(fd)
                throw RecorderError(.unsupportedFileType,
                    "cannot write \(name) to standard output opened for appending (>>): its header is rewritten at the "
                    + "file's start as the take grows; redirect with > to a new file, or use -t raw")
            }
            let offset = kind == S_IFREG ? lseek(fd, 0, SEEK_CUR) : 0
            if type != .raw && offset > 0 {
                Glibc.close(fd)
                throw RecorderError(.unsupportedFileType,
                    "cannot write \(name) to standard output at byte \(offset) of a file: a \(name) file must begin with its "
                    + "header; redirect with > to a new file, or use -t raw")
            }
        } else if toDevice {
            if deviceType == S_IFIFO && !type.streams {
                throw RecorderError(.unsupportedFileType,
                    "cannot write \(type.rawValue.uppercased()) into FIFO '\(path)': a \(type.rawValue.uppercased()) header must be "
                    + "rewritten at the end; use AU, raw or FLAC (-t au|raw|flac)")
            }
            // Without blocking: a FIFO nobody reads would hold the open (and the stop) indefinitely.
            fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else {
                let code = errno
                throw RecorderError(.cannotCreateFile,
                    code == ENXIO ? "cannot write into FIFO '\(path)': nothing is reading it; start its reader first"
                        : "cannot write into '\(path)': \(String(cString: strerror(code)))",
                    underlying: .init(.posix, code))
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        } else {
            let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (overwrite ? 0 : O_EXCL)
            fd = open(path, flags, 0o666)
            guard fd >= 0 else { throw Self.creationError(path: path, errno: errno) }
        }
        var held: FileLock?
        if !toStandardOutput && !toDevice {
            do { held = try FileLock(fd, path: path) } catch {
                Glibc.close(fd)
                throw error
            }
        }
        if overwrite && !toStandardOutput && !toDevice && ftruncate(fd, 0) != 0 {
            let code = errno
            Glibc.close(fd)
            held?.release()
            throw Self.creationError(path: path, errno: code)
        }
        // Standard output that cannot seek (a pipe): libsndfile streams into a relay that never lets a
        // stalled reader hold this thread past a stop (see `PipeOutput`).
        let relay = (toStandardOutput || toDevice) && lseek(fd, 0, SEEK_CUR) < 0
            ? PipeOutput(output: fd, bytesPerFrame: format.bytesPerFrame, encodes: type == .flac || type.isLossy) : nil
        guard let file = sf_open_fd(relay?.sndfileDescriptor ?? fd, Int32(SFM_WRITE), &info, 0) else {
            let reason = sndfileReason(nil)
            let code = sf_error(nil)
            relay?.close(isStopping: { true })
            if relay == nil { Glibc.close(fd) }
            held?.release()
            if !overwrite && !toStandardOutput && !toDevice { unlink(path) }  // only a file this call created; never someone else's
            // Standard output exists already: what failed is writing the header to it (/dev/full).
            if toStandardOutput {
                throw RecorderError(.writeFailed, "writing to standard output failed before any audio: \(reason); "
                    + "free space where it goes, or redirect it elsewhere", underlying: .init(.sndfile, code))
            }
            throw RecorderError(.cannotCreateFile, "cannot create '\(path)': \(reason)", underlying: .init(.sndfile, code))
        }
        self.descriptor = fd
        self.lock = held
        self.file = file
        self.quality = quality
        if type == .wav {
            // RIFF WAVE until the audio passes 4 GiB, then RF64 (before any header refresh below).
            sf_command(file, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
        }
        // Before any audio: libsndfile takes a first bext chunk only then.
        broadcastInfo = (type == .wav || type == .rf64) && broadcast?.set(on: file) == true ? broadcast : nil
        if let ixml, [.wav, .rf64, .aiff, .caf].contains(type) { ixmlReserved = IXMLChunk.reserve(ixml, on: file) }
        if var quality {
            // Before any audio: the encoder is set up with it at the first write.
            sf_command(file, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality, Int32(MemoryLayout<Double>.size))
        }
        linkCheckFrames = Int64(max(format.sampleRate, 1))
        // Standard output is not a file this writer made: whether it is deleted is not its business.
        nextLinkCheck = toStandardOutput || toDevice ? .max : linkCheckFrames
        isStandardOutput = toStandardOutput
        isDevice = toDevice
        let needsSwap = sf_command(file, Int32(SFC_RAW_DATA_NEEDS_ENDSWAP), nil, 0) != 0
        let hostIsLittleEndian = 1.littleEndian == 1
        writesRawBigEndian = type != .flac && !type.isLossy && needsSwap == hostIsLittleEndian
        widensShorts = type == .mp3 && format.channelCount > 1
        if !writesRawBigEndian {
            let count = maxFramesPerWrite * format.channelCount
            switch format.sampleFormat {
            case .int16 where widensShorts: intScratch = [Int32](repeating: 0, count: count)
            case .int16: shortScratch = [Int16](repeating: 0, count: count)
            case .int24, .int32: intScratch = [Int32](repeating: 0, count: count)
            case .float32: floatScratch = [Float](repeating: 0, count: count)
            }
        }
        // A pipe's header is written once, as libsndfile streams it; a header refresh would seek.
        // (libsndfile's `info.seekable` is not set for writing: ask the descriptor. A pipe cannot seek.)
        // A lossy stream has no header to refresh: its encoder writes pages or frames as they fill
        // (asked to, libsndfile wrote Ogg Vorbis headers again into the stream: an unreadable file).
        refreshesHeader = !type.isLossy && lseek(fd, 0, SEEK_CUR) >= 0
        if refreshesHeader {
            // Twice: libsndfile's first header leaves the chunks added before it (iXML) out of the
            // container's size, its second counts them (an AIFF killed before its first buffer said FORM
            // held 46 bytes of 4 150, and its SSND lay outside).
            sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
            sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        }
        relay?.markHeader()
        pipe = relay
        var status = stat()
        headerBytes = fstat(fd, &status) == 0 ? Int(status.st_size) : 0
        // Chunk sizes count the header's chunks too; keep a page of room for what libsndfile adds.
        let audioBytes = type.maxAudioBytes(bytesPerFrame: format.bytesPerFrame) - Int64(max(headerBytes, 4096))
        // A stream to a pipe states no length, so it has none to outgrow.
        frameCapacity = refreshesHeader ? audioBytes / Int64(format.bytesPerFrame) : StreamFormat.maxFrameCount
        room = DiskRoom(descriptor: relay == nil && !toDevice ? fd : -1,
                        closingReserve: DiskRoom.closingReserve(encoded: type == .flac || type.isLossy, bytesPerFrame: format.bytesPerFrame))
        // An AIFF is a valid empty take from now on, as a WAV is, should the process die before its first
        // buffer: its sound chunk padded as at close (the first audio overwrites the padding).
        if type == .aiff && refreshesHeader { padEmptySoundChunk() }
    }

    /// Appends whole frames of interleaved big-endian samples of the writer's `sampleFormat` (packets, as
    /// a `Recorder` of that format captures them), then refreshes the header so the file on disk is valid
    /// at every buffer.
    public func write(packets bytes: UnsafeRawBufferPointer) throws(RecorderError) {
        guard let file, !bytes.isEmpty else { return }
        let bytesPerFrame = channelCount * sampleFormat.bytesPerSample
        let frames = bytes.count / bytesPerFrame
        guard Int64(frames) <= frameCapacity - framesWritten else {
            throw RecorderError(.writeFailed,
                "'\(path)' is full at \(framesWritten) frames: a \(fileType.rawValue.uppercased()) file cannot "
                + "describe more; record into numbered files (split) or use .caf")
        }
        // Room first (see `DiskRoom`): a write the disk cannot hold fails before libsndfile takes a frame
        // of it (an encoder would write part of it later, unseen).
        guard room.make(for: Int64(bytes.count)) else { throw writeError() }
        let conversionFrames = max(shortScratch.count, intScratch.count, floatScratch.count) / channelCount
        var done = 0
        while done < frames {
            let chunk = min(frames - done, writesRawBigEndian ? frames : conversionFrames, pipe?.pieceFrames ?? frames)
            // To a pipe: our relay's pipe is emptied first, so what libsndfile writes now fits in it.
            try passOn(given: done)
            let piece = UnsafeRawBufferPointer(rebasing: bytes[(done * bytesPerFrame)..<((done + chunk) * bytesPerFrame)])
            let written = writesRawBigEndian
                ? Int(max(0, sf_write_raw(file, piece.baseAddress, sf_count_t(piece.count)))) / bytesPerFrame
                : convertAndWrite(piece, frames: chunk, to: file)
            guard written == chunk else {
                framesWritten += Int64(done + written)  // what reached the file
                throw writeError()
            }
            done += chunk
        }
        try passOn(given: done)
        framesWritten += Int64(frames)
        if refreshesHeader { sf_command(file, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
        if framesWritten >= nextLinkCheck {
            nextLinkCheck = framesWritten + linkCheckFrames
            var status = stat()
            if fstat(descriptor, &status) == 0 && status.st_nlink == 0 {
                throw RecorderError(.writeFailed,
                    "'\(path)' was deleted (or replaced) during the recording: the \(framesWritten) frames recorded "
                    + "are only in the deleted file and are lost when it closes; record where nothing removes the file")
            }
        }
    }

    /// To a pipe: passes what libsndfile wrote on to standard output (waiting for the reader, bounded
    /// once stopping). On failure the frames written are those that reached it (`given`: this call's
    /// frames handed to libsndfile so far, the count for FLAC).
    private func passOn(given: Int) throws(RecorderError) {
        guard let pipe else { return }
        do throws(PipeOutput.PipeFailure) {
            try pipe.passOn(isStopping: isStopping)
        } catch {
            framesWritten = pipe.framesOut ?? framesWritten + Int64(given)
            throw PipeOutput.error(error, frames: framesWritten, encoded: pipe.framesOut == nil)
        }
    }

    /// Converts `frames` big-endian frames to the host-order samples libsndfile takes for this
    /// container and writes them; returns the frames written.
    private func convertAndWrite(_ piece: UnsafeRawBufferPointer, frames: Int, to file: OpaquePointer) -> Int {
        let samples = frames * channelCount
        let written: sf_count_t
        switch sampleFormat {
        case .int16 where widensShorts:
            written = intScratch.withUnsafeMutableBufferPointer { out -> sf_count_t in
                for index in 0..<samples {
                    out[index] = Int32(bitPattern: UInt32(piece[2 * index]) << 24 | UInt32(piece[2 * index + 1]) << 16)
                }
                return sf_writef_int(file, out.baseAddress, sf_count_t(frames))
            }
        case .int16:
            written = shortScratch.withUnsafeMutableBufferPointer { out -> sf_count_t in
                rk_samples_from_big_endian_16(piece.baseAddress?.assumingMemoryBound(to: UInt8.self), out.baseAddress, samples)
                return sf_writef_short(file, out.baseAddress, sf_count_t(frames))
            }
        case .int24:
            written = intScratch.withUnsafeMutableBufferPointer { out -> sf_count_t in
                // libsndfile's ints carry the sample in their top bits: 24-bit ones shifted up by 8.
                for index in 0..<samples {
                    let raw = UInt32(piece[3 * index]) << 24 | UInt32(piece[3 * index + 1]) << 16 | UInt32(piece[3 * index + 2]) << 8
                    out[index] = Int32(bitPattern: raw)
                }
                return sf_writef_int(file, out.baseAddress, sf_count_t(frames))
            }
        case .int32:
            written = intScratch.withUnsafeMutableBufferPointer { out -> sf_count_t in
                out.withMemoryRebound(to: UInt32.self) { words in
                    rk_samples_from_big_endian_32(piece.baseAddress?.assumingMemoryBound(to: UInt8.self), words.baseAddress, samples)
                }
                return sf_writef_int(file, out.baseAddress, sf_count_t(frames))
            }
        case .float32:
            written = floatScratch.withUnsafeMutableBufferPointer { out -> sf_count_t in
                out.withMemoryRebound(to: UInt32.self) { words in
                    rk_samples_from_big_endian_32(piece.baseAddress?.assumingMemoryBound(to: UInt8.self), words.baseAddress, samples)
                }
                return sf_writef_float(file, out.baseAddress, sf_count_t(frames))
            }
        }
        return Int(max(0, written))
    }

    deinit {
        assert(file == nil, "SoundFileWriter for '\(path)' deinitialized without close(): the header may not be final")
        close()
    }
}

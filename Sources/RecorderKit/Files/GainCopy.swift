// A sound file copied with every sample multiplied by one gain: the same container, encoding, rate and
// channels, with its text fields, channel map, bext chunk (as the caller updates it), iXML and markers.
import CSndFile
import Glibc

enum GainCopy {
    /// Frames read and written at a time.
    static let blockFrames = 16_384

    /// Copies `input` into a new file at `output` (an existing one is replaced only with `overwrite`),
    /// every sample multiplied by `gain` (linear) in double precision: integer samples rounded once to
    /// their depth and clipped rather than wrapped (a gain of 1 gives the same samples), others written
    /// as libsndfile encodes them. `broadcast` makes the output's bext chunk from the input's, if it has one. Returns the
    /// frames copied. On failure nothing is left at `output` (a partial copy is not a normalised file).
    static func copy(from input: String, to output: String, gain: Double, overwrite: Bool,
                     broadcast: (BroadcastInfo) -> BroadcastInfo) throws(RecorderError) -> Int64 {
        let reader = try SoundFileReader(path: input)
        defer { reader.close() }
        var inputStatus = stat(), outputStatus = stat()
        if stat(input, &inputStatus) == 0, stat(output, &outputStatus) == 0,
           inputStatus.st_dev == outputStatus.st_dev, inputStatus.st_ino == outputStatus.st_ino {
            throw RecorderError(.cannotCreateFile,
                "'\(output)' is the file being read: write the result under another name")
        }
        var format = reader.sndfileFormat
        // WAV (libsndfile reads an extensible one as WAVEX) as recordings are written: RIFF WAVE, RF64
        // past 4 GiB.
        let isWAV = [SF_FORMAT_WAV, SF_FORMAT_WAVEX].map { Int32($0) }.contains(format & Int32(SF_FORMAT_TYPEMASK))
        if isWAV { format = (format & ~Int32(SF_FORMAT_TYPEMASK)) | Int32(SF_FORMAT_RF64) }
        var info = SF_INFO(frames: 0, samplerate: Int32(reader.sampleRate), channels: Int32(reader.channelCount),
                           format: format, sections: 0, seekable: 0)
        let descriptor = open(output, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (overwrite ? O_TRUNC : O_EXCL), 0o666)
        guard descriptor >= 0 else { throw SoundFileWriter.creationError(path: output, errno: errno) }
        guard let file = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) else {
            Glibc.close(descriptor)
            unlink(output)
            throw RecorderError(.cannotCreateFile,
                "cannot write '\(output)' as '\(input)' is written (\(reader.formatDescription)): \(sndfileReason(nil))",
                underlying: .init(.sndfile, sf_error(nil)))
        }
        var closed = false
        func fail(_ error: RecorderError) -> RecorderError {
            if !closed { sf_close(file) }
            Glibc.close(descriptor)
            unlink(output)
            return error
        }
        if isWAV { sf_command(file, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) }
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        reader.copyMetadata(into: file, broadcast: broadcast)
        let channels = reader.channelCount
        // Integer PCM at its own depth, each sample rounded once (libsndfile's conversion from doubles
        // truncates 24-bit samples); anything else (float, compressed) through doubles.
        let bits: Int? = switch Int(format & Int32(SF_FORMAT_SUBMASK)) {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8): 8
        case Int(SF_FORMAT_PCM_16): 16
        case Int(SF_FORMAT_PCM_24): 24
        case Int(SF_FORMAT_PCM_32): 32
        default: nil
        }
        // Room for each block before it is handed on (see `DiskRoom`): an encoder's output would otherwise
        // fail unseen on a full disk, at its close, and a cut-short copy be taken for the normalised file.
        let encoded = bits == nil && format & Int32(SF_FORMAT_SUBMASK) != Int32(SF_FORMAT_FLOAT)
            && format & Int32(SF_FORMAT_SUBMASK) != Int32(SF_FORMAT_DOUBLE)
        var room = DiskRoom(descriptor: descriptor, closingReserve: DiskRoom.closingReserve(encoded: encoded, bytesPerFrame: 8 * channels))
        func noRoom(_ frames: Int64) -> RecorderError {
            let code = errno  // before `fail` closes and removes
            return fail(RecorderError(.writeFailed,
                "writing '\(output)' failed after \(frames) frames: \(String(cString: strerror(code))); it was removed; free space "
                + "or choose another disk", underlying: .init(.posix, code)))
        }
        var integers = [Int32](repeating: 0, count: bits == nil ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: bits == nil ? blockFrames * channels : 0)
        var frames: Int64 = 0
        while true {
            let read: Int, written: sf_count_t
            if let bits {
                // libsndfile's ints hold the sample in their top bits.
                let shift = Int32(32 - bits), top = Double(Int64(1) << (bits - 1))
                read = integers.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: blockFrames) }
                guard read > 0 else { break }
                guard room.make(for: Int64(read * channels * 4)) else { throw noRoom(frames) }
                for index in 0..<(read * channels) {
                    let scaled = (Double(integers[index] >> shift) * gain).rounded()
                    integers[index] = Int32(max(-top, min(top - 1, scaled))) << shift
                }
                written = integers.withUnsafeBufferPointer { sf_writef_int(file, $0.baseAddress, sf_count_t(read)) }
            } else {
                read = doubles.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: blockFrames) }
                guard read > 0 else { break }
                guard room.make(for: Int64(read * channels * 4)) else { throw noRoom(frames) }
                for index in 0..<(read * channels) { doubles[index] *= gain }
                written = doubles.withUnsafeBufferPointer { sf_writef_double(file, $0.baseAddress, sf_count_t(read)) }
            }
            guard written == sf_count_t(read) else {
                let code = errno
                throw fail(RecorderError(.writeFailed,
                    "writing '\(output)' failed after \(frames) frames: \(code != 0 ? String(cString: strerror(code)) : sndfileReason(file)); "
                    + "it was removed; free space or choose another disk"))
            }
            frames += Int64(read)
        }
        if let error = reader.readError { throw fail(error) }
        sf_close(file)
        closed = true
        guard fsync(descriptor) == 0 else { throw noRoom(frames) }
        // Markers after the final header, as a recording's are (libsndfile sets cue points without labels).
        let type: FileType? = format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_AIFF) ? .aiff : isWAV ? .wav : nil
        let markers = reader.markers
        if let type, !markers.isEmpty, let chunk = MarkerChunk(type: type, markers: markers),
           !chunk.append(to: descriptor, bigEndian: type == .aiff, byteLimit: nil) {
            throw fail(RecorderError(.writeFailed, "cannot add the markers of '\(input)' to '\(output)'; it was removed; "
                                     + "check the space where it goes"))
        }
        room.release()
        Glibc.close(descriptor)
        return frames
    }
}

extension SoundFileReader {
    /// Doubles, full scale ±1.0: reads up to `frames` interleaved frames into `destination`; returns
    /// how many were read (0 at the end or on an error: see `readError`).
    func read(into destination: UnsafeMutablePointer<Double>, frames: Int) -> Int {
        guard let file, frames > 0 else { return 0 }
        return max(0, Int(sf_readf_double(file, destination, sf_count_t(frames))))
    }

    /// libsndfile's 32-bit integers (the sample in the top bits), as `read(into:frames:)`.
    func read(into destination: UnsafeMutablePointer<Int32>, frames: Int) -> Int {
        guard let file, frames > 0 else { return 0 }
        return max(0, Int(sf_readf_int(file, destination, sf_count_t(frames))))
    }

    /// Sets what the file says besides its audio on `output` (before any frame is written): its text
    /// fields (title, artist, …), channel map, bext chunk (made by `broadcast` from this file's) and
    /// iXML document.
    func copyMetadata(into output: OpaquePointer, broadcast: (BroadcastInfo) -> BroadcastInfo) {
        guard let file else { return }
        for kind in Int32(SF_STR_TITLE)...Int32(SF_STR_GENRE) {  // SF_STR_FIRST...SF_STR_LAST
            if let text = sf_get_string(file, kind) { sf_set_string(output, kind, text) }
        }
        if var map = channelMap {
            _ = map.withUnsafeMutableBytes { sf_command(output, Int32(SFC_SET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count)) }
        }
        if let info = BroadcastInfo.read(file) { _ = broadcast(info).set(on: output) }
        // The take sheet as it is (its padding left for the new chunk's own).
        if let document = IXMLChunk.read(file) {
            let end = document.firstRange(of: "</BWFXML>")?.upperBound
            _ = IXMLChunk.reserve(end.map { String(document[..<$0]) + "\n" } ?? document, on: output)
        }
    }
}

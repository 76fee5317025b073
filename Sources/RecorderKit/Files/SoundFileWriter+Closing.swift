// Closing a sound file: its final header, the markers' chunks appended within the size limit, and the
// empty sound chunk padded for readers that need one.
import CSndFile
import Glibc

extension SoundFileWriter {
    /// Finalizes the header and closes the file. Idempotent.
    public func close() {
        close(markers: [])
    }

    /// Finalizes the header, appends `markers` (frames in this file, labels) as an AIFF `MARK` chunk or
    /// a WAV `cue ` chunk with a `LIST`/`adtl` of `labl` labels, and closes the file. Returns whether the
    /// file holds the markers: false for CAF and FLAC, or when a write failed (the file is then still
    /// valid, without them). Idempotent.
    ///
    /// libsndfile writes cue points only into a file with no audio yet (`SFC_SET_CUE`), so markers
    /// dropped while recording are appended here after its header is final: the chunk first, then the
    /// container's size, so a file cut short in between is the file without the markers.
    @discardableResult
    public func close(markers: [(frame: Int64, label: String)]) -> Bool { close(markers: markers, byteLimit: nil) }

    /// `close(markers:)`, storing the markers only if the file stays within `byteLimit` bytes with them
    /// (a marker added as a file reached its size limit is then listed, not stored).
    func close(markers: [(frame: Int64, label: String)], byteLimit: Int64?) -> Bool {
        guard let file else { return false }
        self.file = nil
        // A FLAC stream's last block is written here: to a pipe, into the relay, which passes it on.
        sf_close(file)
        if fileType == .aiff && framesWritten == 0 { padEmptySoundChunk() }
        if let ixmlDocument {  // after libsndfile's last header, which holds the first document
            _ = IXMLChunk.fill(ixmlDocument, reserved: ixmlReserved, descriptor: descriptor, headerBytes: headerBytes, type: fileType)
        }
        let stored = markers.isEmpty
            || MarkerChunk(type: fileType, markers: markers).map { $0.append(to: descriptor, bigEndian: fileType == .aiff, byteLimit: byteLimit) } ?? false
        if let pipe {
            // What libsndfile wrote at its close (a FLAC stream's last block) that the reader did not take.
            if let failure = pipe.close(isStopping: isStopping) {
                closeError = PipeOutput.error(failure, frames: pipe.framesOut ?? framesWritten, encoded: pipe.framesOut == nil)
            }
        } else {
            room.release()
            Glibc.close(descriptor)
        }
        lock?.release()
        return stored
    }

    /// sox refuses an AIFF whose SSND chunk holds no bytes ("Missing SSND chunk"), which is what an empty
    /// recording is. The AIFF spec lets SSND's `offset` field skip bytes before the first sample frame, so
    /// an empty file gets offset 4 and 4 zero bytes: still 0 frames for libsndfile, and sox opens it.
    func padEmptySoundChunk() {
        let padding: UInt32 = 4
        var header = [UInt8](repeating: 0, count: 12)
        guard pread(descriptor, &header, 12, 0) == 12, header[0..<4].elementsEqual("FORM".utf8) else { return }
        var position: off_t = 12
        var chunk = [UInt8](repeating: 0, count: 16)
        while pread(descriptor, &chunk, 8, position) == 8 {
            let size = chunk[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if chunk[0..<4].elementsEqual("SSND".utf8) {
                // Only the layouts of an empty file: libsndfile's 8-byte SSND chunk at the end, or (at close,
                // after the padding made at open) that chunk counting the padding as audio.
                var status = stat()
                guard fstat(descriptor, &status) == 0 else { return }
                let bare = size == 8 && status.st_size == position + 16
                let padded = size == 8 + padding && status.st_size == position + 16 + off_t(padding)
                guard bare || padded else { return }
                func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
                let formSize = header[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } + (bare ? padding : 0)
                let soundChunk = Array("SSND".utf8) + bigEndian(8 + padding) + bigEndian(padding) + bigEndian(0)
                    + [UInt8](repeating: 0, count: Int(padding))
                _ = pwrite(descriptor, soundChunk, soundChunk.count, position)
                _ = pwrite(descriptor, bigEndian(formSize), 4, 4)
                return
            }
            position += off_t(8 + size + size % 2)
        }
    }
}

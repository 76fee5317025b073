// Markers in a sound file: the AIFF `MARK` chunk and the WAV `cue ` chunk with its `labl` labels, as
// libsndfile, sox and DAWs read them, appended to a file whose header is final.
import CSndFile
import Glibc

/// The bytes of the chunk(s) that hold a file's markers.
struct MarkerChunk {
    /// The most markers one file holds: AIFF's marker ids are positive 16-bit numbers.
    static let maxCount = 32_767
    /// The longest label in bytes: an AIFF label is a Pascal string.
    static let maxLabelBytes = 255

    let bytes: [UInt8]

    /// nil for containers without markers (CAF, FLAC), for more than `maxCount` markers, or for a frame
    /// a 32-bit position cannot hold.
    init?(type: FileType, markers: [(frame: Int64, label: String)]) {
        guard markers.count <= Self.maxCount, markers.allSatisfy({ (0...Int64(UInt32.max)).contains($0.frame) }) else {
            return nil
        }
        var bytes: [UInt8] = []
        func append(_ value: UInt32, bigEndian: Bool) {
            for index in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (bigEndian ? 24 - 8 * index : 8 * index))) }
        }
        func append16(_ value: UInt16) {
            bytes.append(UInt8(value >> 8))
            bytes.append(UInt8(truncatingIfNeeded: value))
        }
        func label(_ text: String) -> [UInt8] { Array(Self.sanitized(text).utf8) }
        switch type {
        case .aiff:
            // MARK: count, then per marker an id, a frame position and a padded Pascal string.
            bytes += Array("MARK".utf8)
            append(0, bigEndian: true)
            append16(UInt16(markers.count))
            for (index, marker) in markers.enumerated() {
                append16(UInt16(index + 1))
                append(UInt32(marker.frame), bigEndian: true)
                let text = label(marker.label)
                bytes.append(UInt8(text.count))
                bytes += text
                if text.count % 2 == 0 { bytes.append(0) }  // count byte + text: an even length
            }
            Self.setSize(&bytes, at: 4, bigEndian: true)
        case .wav:
            // cue: count, then per point: id, position, 'data', chunk start, block start, sample offset.
            bytes += Array("cue ".utf8)
            append(0, bigEndian: false)
            append(UInt32(markers.count), bigEndian: false)
            for (index, marker) in markers.enumerated() {
                append(UInt32(index + 1), bigEndian: false)
                append(UInt32(marker.frame), bigEndian: false)
                bytes += Array("data".utf8)
                append(0, bigEndian: false)
                append(0, bigEndian: false)
                append(UInt32(marker.frame), bigEndian: false)
            }
            Self.setSize(&bytes, at: 4, bigEndian: false)
            // LIST/adtl: a labl per cue point, its id and a NUL-terminated text, padded to even.
            let list = bytes.count
            bytes += Array("LIST".utf8)
            append(0, bigEndian: false)
            bytes += Array("adtl".utf8)
            for (index, marker) in markers.enumerated() {
                let text = label(marker.label) + [0]
                bytes += Array("labl".utf8)
                append(UInt32(4 + text.count), bigEndian: false)
                append(UInt32(index + 1), bigEndian: false)
                bytes += text
                if text.count % 2 == 1 { bytes.append(0) }
            }
            Self.setSize(&bytes, at: list + 4, bigEndian: false)
        case .caf, .flac, .au, .raw, .w64, .rf64, .ogg, .opus, .mp3:
            return nil
        }
        self.bytes = bytes
    }

    /// Appends the chunk at the end of the file open at `descriptor` (after a pad byte if the file's
    /// length is odd) and adds it to the container's size (FORM big-endian, RIFF little-endian, at
    /// offset 4), if the file stays within `byteLimit` bytes; false (the file as it was) otherwise.
    func append(to descriptor: Int32, bigEndian: Bool, byteLimit: Int64?) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        var end = Int64(status.st_size)
        var bytes = self.bytes
        if end % 2 == 1 { bytes.insert(0, at: 0) }
        var header = [UInt8](repeating: 0, count: 8)
        guard pread(descriptor, &header, 8, 0) == 8 else { return false }
        let declared = bigEndian ? header[4..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            : header[4..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Only a container whose size covers the whole file (libsndfile's own), and that stays within 4 GiB.
        guard declared + 8 == UInt64(end), UInt64(end) + UInt64(bytes.count) - 8 <= UInt64(UInt32.max),
              end + Int64(bytes.count) <= byteLimit ?? .max else { return false }
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(end)) }
        guard written == bytes.count else {
            _ = ftruncate(descriptor, off_t(end))
            return false
        }
        end += Int64(bytes.count)
        let newSize = UInt32(end - 8)
        let sizeBytes: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: newSize >> (bigEndian ? 24 - 8 * $0 : 8 * $0)) }
        return pwrite(descriptor, sizeBytes, 4, 4) == 4
    }

    /// The most bytes the chunk(s) for `markers` (those from `index` on) add to a `type` file, the pad
    /// byte that may precede them included; 0 for containers without markers. Without allocating: the
    /// writer reserves this much of a size limit while it writes.
    static func maxByteCount(type: FileType, markers: [PendingMarker], from firstPosition: Int64) -> Int64 {
        guard type == .aiff || type == .wav else { return 0 }
        var count: Int64 = 0
        var total: Int64 = 1 + (type == .aiff ? 10 : 24)  // pad byte; MARK header and count, or cue and LIST headers
        for marker in markers where marker.position >= firstPosition {
            count += 1
            let text = Int64(min(marker.label.utf8.count, maxLabelBytes))
            total += type == .aiff ? 6 + (text + 2) / 2 * 2  // id, position, count byte, text, even
                : 24 + 12 + (text + 2) / 2 * 2  // cue point; labl header, id, text, NUL, even
        }
        return count == 0 ? 0 : total
    }

    /// Writes the size of the chunk whose size field is at `offset` (the bytes after that field; every
    /// part above has an even length, so no pad byte follows).
    private static func setSize(_ bytes: inout [UInt8], at offset: Int, bigEndian: Bool) {
        let size = UInt32(bytes.count - offset - 4)
        for index in 0..<4 {
            bytes[offset + index] = UInt8(truncatingIfNeeded: size >> (bigEndian ? 24 - 8 * index : 8 * index))
        }
    }

    /// A label as files hold it: control characters (NUL included) as spaces, at most `maxLabelBytes`
    /// bytes of UTF-8, cut between characters.
    static func sanitized(_ label: String) -> String {
        var result = ""
        var count = 0
        for character in label {
            let clean: Character = character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? " " : character
            let length = clean.utf8.count
            guard count + length <= maxLabelBytes else { break }
            result.append(clean)
            count += length
        }
        return result
    }

    /// The markers of a sound file as libsndfile reads them (`SFC_GET_CUE`): frame and label, in order.
    static func read(_ file: OpaquePointer) -> [(frame: Int64, label: String)] {
        var count: UInt32 = 0
        guard sf_command(file, Int32(SFC_GET_CUE_COUNT), &count, Int32(MemoryLayout<UInt32>.size)) != 0, count > 0 else {
            return []
        }
        // SF_CUES with `count` points: a 32-bit count, then the points.
        let pointSize = MemoryLayout<SF_CUE_POINT>.stride
        let offset = MemoryLayout<SF_CUES>.offset(of: \SF_CUES.cue_points) ?? 4
        let size = offset + Int(count) * pointSize
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        storage.storeBytes(of: count, as: UInt32.self)
        guard sf_command(file, Int32(SFC_GET_CUE), storage, Int32(size)) != 0 else { return [] }
        let stored = Int(min(count, storage.load(as: UInt32.self)))
        return (0..<stored).map { index in
            let point = storage.load(fromByteOffset: offset + index * pointSize, as: SF_CUE_POINT.self)
            let label = withUnsafeBytes(of: point.name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return (Int64(point.sample_offset), label)
        }
    }
}

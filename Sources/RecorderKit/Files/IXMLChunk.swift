// The iXML chunk of a WAV, RF64, AIFF or CAF file (the take sheet field recorders write): its document,
// reserved in the header when the file is made, filled in place once the file is closed, and read back.
import CSndFile
import Glibc

/// What one file's iXML says besides the recording's metadata: its format, time stamp and place in
/// the recording's set of files.
struct IXMLFacts: Sendable, Hashable {
    var sampleRate: Int
    var bitDepth: Int
    var channelCount: Int
    /// Frames from local midnight to the file's first frame.
    var timeReference: UInt64
    /// Unique to the file.
    var fileUID: String
    /// The same for every file of one take (a recording, or one take of a sound-activated one).
    var familyUID: String
    /// The file's place in its take's files (1, 2, …) and how many there are (so far).
    var fileIndex: Int
    var totalFiles: Int
    /// Frames of pre-roll at the file's start (audio from before the take was started).
    var preRecordFrames: Int64
    /// Takes before this file's in its recording (a sound-activated recording's later takes): added to
    /// the metadata's TAKE, so each take counts on.
    var takeOffset = 0
    /// A take split on the clock: the boundary (Unix seconds) the file starts at, and how many frames
    /// after the frame captured then its first frame is (0 unless the cut came late).
    var segmentBoundary: Double?
    var segmentLateFrames: Int64 = 0
}

enum IXMLChunk {
    /// Bytes reserved beyond a file's first document, for what is known only at its end; the chunk is
    /// a whole number of `block`s, so that a header's size does not follow the document's length.
    static let slack = 1_024
    static let block = 4_096
    /// The chunk's id in every container.
    static let id = "iXML"
    /// The longest text field, in bytes (a longer one is cut between characters).
    static let maxFieldBytes = 4_096

    /// The iXML 2.10 document of a file of a recording with `metadata`.
    static func document(_ metadata: RecordingMetadata, _ facts: IXMLFacts) -> String {
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<BWFXML>", "  <IXML_VERSION>2.10</IXML_VERSION>"]
        func add(_ name: String, _ value: String?, indent: Int = 2) {
            guard let value, !value.isEmpty else { return }
            lines.append(String(repeating: " ", count: indent) + "<\(name)>\(escaped(value))</\(name)>")
        }
        func flag(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
        add("PROJECT", metadata.project)
        add("SCENE", metadata.scene)
        add("TAKE", metadata.take.flatMap { $0 >= 1 ? String($0.addingReportingOverflow(facts.takeOffset).partialValue) : nil })
        add("TAPE", metadata.tape)
        add("CIRCLED", flag(metadata.circled))
        add("NO_GOOD", flag(metadata.noGood))
        add("FALSE_START", flag(metadata.falseStart))
        add("WILD_TRACK", flag(metadata.wildTrack))
        // iXML 2's own form of the three above (they are kept for readers of version 1).
        let types = [(metadata.noGood, "NO_GOOD"), (metadata.falseStart, "FALSE_START"), (metadata.wildTrack, "WILD_TRACK")]
            .filter(\.0).map(\.1)
        add("TAKE_TYPE", types.isEmpty ? "DEFAULT" : types.joined(separator: ","))
        add("FILE_UID", facts.fileUID)
        add("NOTE", metadata.note)
        lines.append("  <SPEED>")
        add("FILE_SAMPLE_RATE", String(facts.sampleRate), indent: 4)
        add("AUDIO_BIT_DEPTH", String(facts.bitDepth), indent: 4)
        add("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI", String(facts.timeReference >> 32), indent: 4)
        add("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO", String(facts.timeReference & 0xFFFF_FFFF), indent: 4)
        add("TIMESTAMP_SAMPLE_RATE", String(facts.sampleRate), indent: 4)
        lines.append("  </SPEED>")
        lines.append("  <TRACK_LIST>")
        add("TRACK_COUNT", String(facts.channelCount), indent: 4)
        for channel in 0..<facts.channelCount {
            lines.append("    <TRACK>")
            add("CHANNEL_INDEX", String(channel + 1), indent: 6)
            add("INTERLEAVE_INDEX", String(channel + 1), indent: 6)
            add("NAME", channel < metadata.trackNames.count ? metadata.trackNames[channel] : nil, indent: 6)
            add("FUNCTION", channel < metadata.trackFunctions.count ? metadata.trackFunctions[channel] : nil, indent: 6)
            lines.append("    </TRACK>")
        }
        lines.append("  </TRACK_LIST>")
        lines.append("  <FILE_SET>")
        add("TOTAL_FILES", String(facts.totalFiles), indent: 4)
        add("FAMILY_UID", facts.familyUID, indent: 4)
        add("FILE_SET_INDEX", fileSetIndex(facts.fileIndex), indent: 4)
        lines.append("  </FILE_SET>")
        // The pre-roll as iXML 1 placed it, and as a sync point, its form since.
        add("PRE_RECORD_SAMPLECOUNT", String(facts.preRecordFrames))
        lines.append("  <SYNC_POINT_LIST>")
        add("SYNC_POINT_COUNT", "1", indent: 4)
        lines.append("    <SYNC_POINT>")
        add("SYNC_POINT_TYPE", "RELATIVE", indent: 6)
        add("SYNC_POINT_FUNCTION", "PRE_RECORD_SAMPLECOUNT", indent: 6)
        add("SYNC_POINT_LOW", String(UInt64(max(0, facts.preRecordFrames)) & 0xFFFF_FFFF), indent: 6)
        add("SYNC_POINT_HIGH", String(UInt64(max(0, facts.preRecordFrames)) >> 32), indent: 6)
        add("SYNC_POINT_EVENT_DURATION", "0", indent: 6)
        lines.append("    </SYNC_POINT>")
        lines.append("  </SYNC_POINT_LIST>")
        // A file of a take split on the clock: the boundary it starts at (UTC) and how far after the frame
        // captured then its first frame is (0 unless its cut came late), as the logger's own fields.
        if let boundary = facts.segmentBoundary,
           let stamp = SegmentNames(pattern: "%Y-%m-%dT%H:%M:%SZ", zone: .utc).name(at: boundary) {
            add("USER", "SEGMENT_BOUNDARY=\(stamp); SEGMENT_LATE_SAMPLES=\(facts.segmentLateFrames)")
        }
        lines.append("</BWFXML>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A file's place in its set as iXML counts it: A, B, … Z, AA, AB, …
    static func fileSetIndex(_ index: Int) -> String {
        var number = max(1, index), letters = ""
        while number > 0 {
            number -= 1
            letters = String(UnicodeScalar(UInt8(65 + number % 26))) + letters
            number /= 26
        }
        return letters
    }

    /// Text as an iXML element holds it: XML's five special characters escaped, control characters
    /// other than tab and line feed as spaces, U+FFFE and U+FFFF as U+FFFD, at most `maxFieldBytes`
    /// bytes (counted as stored, escapes included), cut between characters.
    static func escaped(_ text: String) -> String {
        var result = "", bytes = 0
        for character in text {
            let piece: String = switch character {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&apos;"
            default: character.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t" && $0 != "\n") || $0.value == 0x7F }
                ? " "
                // U+FFFE and U+FFFF are not characters XML 1.0 allows: a strict parser rejects the document.
                : character.unicodeScalars.contains { $0.value == 0xFFFE || $0.value == 0xFFFF } ? "\u{FFFD}"
                : String(character)
            }
            guard bytes + piece.utf8.count <= maxFieldBytes else { break }
            result += piece
            bytes += piece.utf8.count
        }
        return result
    }

    /// `document` padded with spaces (after its root element, where XML allows them) to `length` bytes.
    static func padded(_ document: String, to length: Int) -> [UInt8] {
        let bytes = Array(document.utf8)
        return bytes + [UInt8](repeating: 0x20, count: max(0, length - bytes.count))
    }

    /// Adds the chunk to `file`'s header (`sf_set_chunk`, before any audio): `document` with room for
    /// `slack` more bytes. Returns the bytes reserved, 0 if libsndfile refused.
    static func reserve(_ document: String, on file: OpaquePointer) -> Int {
        // (A multiple of 4 bytes, as libsndfile rounds a chunk up to one.)
        let length = (document.utf8.count + slack + block - 1) / block * block
        var data = padded(document, to: length)
        var info = SF_CHUNK_INFO()
        withUnsafeMutableBytes(of: &info.id) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.copyBytes(from: id.utf8)
        }
        info.id_size = UInt32(id.utf8.count)
        info.datalen = UInt32(length)
        let status = data.withUnsafeMutableBytes { raw -> Int32 in
            info.data = raw.baseAddress
            return sf_set_chunk(file, &info)
        }
        return status == Int32(SF_ERR_NO_ERROR) ? length : 0
    }

    /// Writes `document` over the reserved chunk of the closed file open at `descriptor`, whose header
    /// spans its first `headerBytes` bytes. False if the chunk is not found there or the document does
    /// not fit it.
    static func fill(_ document: String, reserved: Int, descriptor: Int32, headerBytes: Int, type: FileType) -> Bool {
        guard reserved > 0, document.utf8.count <= reserved, headerBytes > 0 else { return false }
        var header = [UInt8](repeating: 0, count: headerBytes)
        let read = pread(descriptor, &header, headerBytes, 0)
        guard read > 0 else { return false }
        // The chunk's id, its size as the container writes sizes, then the document's first bytes.
        let size: [UInt8] = switch type {
        case .aiff: (0..<4).map { UInt8(truncatingIfNeeded: reserved >> (24 - 8 * $0)) }
        case .caf: (0..<8).map { UInt8(truncatingIfNeeded: reserved >> (56 - 8 * $0)) }
        default: (0..<4).map { UInt8(truncatingIfNeeded: reserved >> (8 * $0)) }
        }
        let marker = Array(id.utf8) + size + Array("<?xml".utf8)
        guard let start = header.prefix(read).firstRange(of: marker)?.lowerBound else { return false }
        let offset = start + 4 + size.count
        let bytes = padded(document, to: reserved)
        return bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) } == reserved
    }

    /// The iXML document of the sound file `file`, or nil if it has none.
    static func read(_ file: OpaquePointer) -> String? {
        var info = SF_CHUNK_INFO()
        withUnsafeMutableBytes(of: &info.id) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.copyBytes(from: id.utf8)
        }
        info.id_size = UInt32(id.utf8.count)
        guard let iterator = sf_get_chunk_iterator(file, &info) else { return nil }
        var found = SF_CHUNK_INFO()
        guard sf_get_chunk_size(iterator, &found) == Int32(SF_ERR_NO_ERROR), found.datalen > 0, found.datalen < 16 << 20 else {
            return nil
        }
        var data = [UInt8](repeating: 0, count: Int(found.datalen))
        let status = data.withUnsafeMutableBytes { raw -> Int32 in
            found.data = raw.baseAddress
            return sf_get_chunk_data(iterator, &found)
        }
        guard status == Int32(SF_ERR_NO_ERROR) else { return nil }
        return String(decoding: data.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The text of the first element `name` in an iXML document (entities of XML's five characters
    /// turned back), or nil.
    static func value(of name: String, in document: String) -> String? {
        guard let open = document.firstRange(of: "<\(name)>"),
              let close = document[open.upperBound...].firstRange(of: "</\(name)>") else { return nil }
        return String(document[open.upperBound..<close.lowerBound])
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&apos;", with: "'")
            .replacing("&amp;", with: "&")
    }
}

extension RecordingMetadata {
    /// The take after the highest iXML TAKE of `scene` among the WAV, RF64, AIFF and CAF files in
    /// `folder` (1 when there is none): a field recorder's next take number. Any thread; it opens each
    /// such file in the folder that is a regular file (or a link to one), never blocking: a FIFO, a
    /// socket, a device or a dangling link of that name is skipped.
    public static func nextTake(scene: String, in folder: String) -> Int {
        guard let directory = opendir(folder.isEmpty ? "." : folder) else { return 1 }
        defer { closedir(directory) }
        let wanted = IXMLChunk.value(of: "SCENE", in: "<SCENE>\(IXMLChunk.escaped(scene))</SCENE>")
        var highest = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let type = FileType(path: name), [.wav, .rf64, .aiff, .caf].contains(type),
                  let descriptor = openRegularFile((folder.isEmpty ? "." : folder) + "/" + name) else { continue }
            var info = SF_INFO()
            guard let file = sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else { close(descriptor); continue }
            defer { sf_close(file) }
            guard let document = IXMLChunk.read(file), IXMLChunk.value(of: "SCENE", in: document) == wanted,
                  let take = IXMLChunk.value(of: "TAKE", in: document).flatMap({ Int($0) }), take < Int.max else { continue }
            highest = max(highest, take)
        }
        return highest + 1
    }
}

extension RecordingMetadata {
    /// The take sheet stored in the iXML chunk of the WAV, RF64, AIFF or CAF file at `path` (project,
    /// scene, take, tape, note, circled, no good), or nil when it has none or is not a regular sound file.
    /// Any thread; never blocks on a FIFO or device of that name (see `nextTake(scene:in:)`).
    public static func read(path: String) -> RecordingMetadata? {
        guard let descriptor = openRegularFile(path) else { return nil }
        var info = SF_INFO()
        guard let file = sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else {
            close(descriptor)
            return nil
        }
        defer { sf_close(file) }
        guard let document = IXMLChunk.read(file) else { return nil }
        func text(_ name: String) -> String { IXMLChunk.value(of: name, in: document) ?? "" }
        var metadata = RecordingMetadata()
        metadata.ixml = true
        metadata.project = text("PROJECT")
        metadata.scene = text("SCENE")
        metadata.take = Int(text("TAKE"))
        metadata.tape = text("TAPE")
        metadata.note = text("NOTE")
        metadata.circled = text("CIRCLED") == "TRUE"
        metadata.noGood = text("NO_GOOD") == "TRUE"
        return metadata
    }
}

/// A descriptor for reading `path` if it is a regular file (links followed), else nil. Nothing here can
/// block: the type is checked before the open, and the open is non-blocking in case the name was
/// replaced by a FIFO in between (then the type checked again on the descriptor refuses it).
func openRegularFile(_ path: String) -> Int32? {
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
        close(descriptor)
        return nil
    }
    return descriptor
}

extension RecordingMetadata {
    /// The most bytes a text field (project, scene, tape, note, a track name) holds in the iXML chunk,
    /// counted as stored: `&` takes 5 bytes there, `<` and `>` 4, `"` and `'` 6.
    public static let maxFieldBytes = IXMLChunk.maxFieldBytes

    /// The bytes `text` takes in the iXML chunk, escaped as it is stored (uncut); a text longer than
    /// `maxFieldBytes` is cut there. Any thread.
    public static func storedByteCount(of text: String) -> Int {
        var bytes = 0
        for character in text {
            let stored = switch character {
            case "&": 5
            case "<", ">": 4
            case "\"", "'": 6
            default: character.unicodeScalars.contains { $0.value == 0xFFFE || $0.value == 0xFFFF } ? 3 : character.utf8.count
            }
            bytes += stored
        }
        return bytes
    }
}


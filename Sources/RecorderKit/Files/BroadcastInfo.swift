// The broadcast extension (bext, EBU Tech 3285 version 2) of a WAV or RF64 file: who made it, when its
// first frame was captured, and the loudness of what it holds; read and written through libsndfile.
import CSndFile
import Glibc

/// A WAV or RF64 file's `bext` chunk (Broadcast Wave Format, EBU Tech 3285 version 2), as BWF readers
/// (mediainfo, BWF MetaEdit, DAWs) show it.
///
/// Text fields are cut to their size in bytes (between characters) and hold no control characters
/// (written as spaces). EBU asks for ASCII: other characters are written as UTF-8. A loudness value
/// that is nil (not measured, or silence) is stored as 0x7FFF, EBU's "not set"; others are stored in
/// hundredths, so they read back rounded to 0.01.
public struct BroadcastInfo: Sendable, Hashable {
    /// Free text about the file (at most 256 bytes).
    public var description: String
    /// Who or what made the file (at most 32 bytes).
    public var originator: String
    /// A reference unique to the file (at most 32 bytes).
    public var originatorReference: String
    /// The local date of the first frame, `yyyy-mm-dd`.
    public var originationDate: String
    /// The local time of the first frame, `hh:mm:ss`.
    public var originationTime: String
    /// Frames from local midnight to the first frame: the time stamp editors place the file by.
    public var timeReference: UInt64
    /// Integrated loudness, LUFS.
    public var loudnessValue: Double?
    /// Loudness range, LU.
    public var loudnessRange: Double?
    /// The highest true peak of any channel, dBTP.
    public var maxTruePeakLevel: Double?
    /// The highest momentary (400 ms) loudness, LUFS.
    public var maxMomentaryLoudness: Double?
    /// The highest short-term (3 s) loudness, LUFS.
    public var maxShortTermLoudness: Double?
    /// Coding history, one line per process the audio went through (`A=PCM,F=48000,W=24,M=mono,T=…`,
    /// lines ending in CR LF). When a file is written, libsndfile adds the line for what it writes.
    public var codingHistory: String
    /// The chunk's version: 2 as written here (and by libsndfile); as read, the file's.
    public internal(set) var version: Int

    static let sizes = (description: 256, originator: 32, reference: 32)

    /// A file's broadcast information with no loudness yet: `firstFrameTime` is the wall-clock time
    /// (seconds since 1970, as `CLOCK_REALTIME`) of its first frame, at `sampleRate` frames per second.
    public init(description: String = "", originator: String = "recorder", firstFrameTime: Double, sampleRate: Int) {
        self.description = description
        self.originator = originator
        originatorReference = Self.uniqueReference()
        let time = firstFrameTime.isFinite ? max(0, min(firstFrameTime, 253_402_300_799)) : 0  // up to 9999-12-31
        var whole = time_t(time.rounded(.down))
        var local = tm()
        localtime_r(&whole, &local)
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        originationDate = "\(digits(local.tm_year + 1900, 4))-\(digits(local.tm_mon + 1, 2))-\(digits(local.tm_mday, 2))"
        originationTime = "\(digits(local.tm_hour, 2)):\(digits(local.tm_min, 2)):\(digits(local.tm_sec, 2))"
        let sinceMidnight = Double(local.tm_hour * 3_600 + local.tm_min * 60 + local.tm_sec) + (time - time.rounded(.down))
        timeReference = UInt64((sinceMidnight * Double(max(0, sampleRate))).rounded())
        codingHistory = ""
        version = 2
    }

    /// 32 characters unlikely ever to repeat: the program's mark and 96 random bits.
    static func uniqueReference() -> String {
        let parts = (0..<3).map { _ in UInt32.random(in: .min ... .max) }
        return "recorder" + parts.map { value in
            let hex = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// A loudness field as stored: hundredths, or 0x7FFF when not set (or beyond what 16 bits hold).
    static func stored(_ value: Double?) -> Int16 {
        guard let value, value.isFinite else { return 0x7FFF }
        let hundredths = (value * 100).rounded()
        return hundredths >= -32_768 && hundredths < 32_767 ? Int16(hundredths) : 0x7FFF
    }

    /// A stored loudness field read back: nil for 0x7FFF.
    static func value(_ stored: Int16) -> Double? { stored == 0x7FFF ? nil : Double(stored) / 100 }

    /// Text as a bext field holds it: control characters as spaces, at most `bytes` bytes of UTF-8, cut
    /// between characters.
    static func field(_ text: String, bytes: Int) -> [UInt8] {
        var result: [UInt8] = []
        for character in text {
            let clean: Character = character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? " " : character
            let encoded = Array(clean.utf8)
            guard result.count + encoded.count <= bytes else { break }
            result += encoded
        }
        return result
    }

    /// Sets this as `file`'s bext chunk (`SFC_SET_BROADCAST_INFO`); libsndfile rewrites the header with
    /// it. Before the first frame is written it may change the header's size; afterwards only the same
    /// text and history may be set again (the chunk is then rewritten in place). Returns false if
    /// libsndfile refused it (not WAV or RF64, or audio written before any bext was set).
    func set(on file: OpaquePointer) -> Bool {
        var info = SF_BROADCAST_INFO()
        func fill<T>(_ field: inout T, _ text: String, _ size: Int) {
            let bytes = Self.field(text, bytes: size)
            withUnsafeMutableBytes(of: &field) { raw in
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                raw.copyBytes(from: bytes.prefix(raw.count))
            }
        }
        fill(&info.description, description, Self.sizes.description)
        fill(&info.originator, originator, Self.sizes.originator)
        fill(&info.originator_reference, originatorReference, Self.sizes.reference)
        fill(&info.origination_date, originationDate, 10)
        fill(&info.origination_time, originationTime, 8)
        info.time_reference_low = UInt32(truncatingIfNeeded: timeReference)
        info.time_reference_high = UInt32(truncatingIfNeeded: timeReference >> 32)
        info.version = 2
        info.loudness_value = Self.stored(loudnessValue)
        info.loudness_range = Self.stored(loudnessRange)
        info.max_true_peak_level = Self.stored(maxTruePeakLevel)
        info.max_momentary_loudness = Self.stored(maxMomentaryLoudness)
        info.max_shortterm_loudness = Self.stored(maxShortTermLoudness)
        // The history after the fixed part, NUL-terminated: libsndfile keeps up to 16 KiB of it.
        let history = Array(codingHistory.utf8.prefix(16_000).map { $0 == 0 ? 0x20 : $0 })
        info.coding_history_size = UInt32(history.count)
        let offset = MemoryLayout<SF_BROADCAST_INFO>.offset(of: \SF_BROADCAST_INFO.coding_history) ?? 0
        let size = offset + max(256, history.count + 2)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        withUnsafeBytes(of: &info) { storage.copyMemory(from: $0.baseAddress!, byteCount: offset) }
        history.withUnsafeBytes { (storage + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return sf_command(file, Int32(SFC_SET_BROADCAST_INFO), storage, Int32(size)) == Int32(SF_TRUE)
    }

    /// `file`'s bext chunk, or nil if it has none.
    static func read(_ file: OpaquePointer) -> BroadcastInfo? {
        let offset = MemoryLayout<SF_BROADCAST_INFO>.offset(of: \SF_BROADCAST_INFO.coding_history) ?? 0
        let size = offset + 16_384
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        guard sf_command(file, Int32(SFC_GET_BROADCAST_INFO), storage, Int32(size)) == Int32(SF_TRUE) else { return nil }
        var info = SF_BROADCAST_INFO()
        withUnsafeMutableBytes(of: &info) { $0.copyMemory(from: UnsafeRawBufferPointer(start: storage, count: offset)) }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let historyBytes = UnsafeRawBufferPointer(start: storage + offset, count: min(Int(info.coding_history_size), size - offset))
        return BroadcastInfo(
            description: text(info.description), originator: text(info.originator),
            originatorReference: text(info.originator_reference), originationDate: text(info.origination_date),
            originationTime: text(info.origination_time),
            timeReference: UInt64(info.time_reference_high) << 32 | UInt64(info.time_reference_low),
            loudnessValue: value(info.loudness_value), loudnessRange: value(info.loudness_range),
            maxTruePeakLevel: value(info.max_true_peak_level), maxMomentaryLoudness: value(info.max_momentary_loudness),
            maxShortTermLoudness: value(info.max_shortterm_loudness),
            codingHistory: String(decoding: historyBytes.prefix { $0 != 0 }, as: UTF8.self), version: Int(info.version))
    }

    private init(description: String, originator: String, originatorReference: String, originationDate: String,
                 originationTime: String, timeReference: UInt64, loudnessValue: Double?, loudnessRange: Double?,
                 maxTruePeakLevel: Double?, maxMomentaryLoudness: Double?, maxShortTermLoudness: Double?,
                 codingHistory: String, version: Int) {
        self.description = description
        self.originator = originator
        self.originatorReference = originatorReference
        self.originationDate = originationDate
        self.originationTime = originationTime
        self.timeReference = timeReference
        self.loudnessValue = loudnessValue
        self.loudnessRange = loudnessRange
        self.maxTruePeakLevel = maxTruePeakLevel
        self.maxMomentaryLoudness = maxMomentaryLoudness
        self.maxShortTermLoudness = maxShortTermLoudness
        self.codingHistory = codingHistory
        self.version = version
    }

    /// Where the bext chunk of the WAV or RF64 file open at `descriptor` begins (its id), if it has one
    /// before its audio.
    static func chunkOffset(descriptor: Int32) -> Int? {
        var header = [UInt8](repeating: 0, count: 12)
        guard pread(descriptor, &header, 12, 0) == 12, header[0..<4].elementsEqual("RIFF".utf8) || header[0..<4].elementsEqual("RF64".utf8),
              header[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        var offset = 12
        var chunk = [UInt8](repeating: 0, count: 8)
        while pread(descriptor, &chunk, 8, off_t(offset)) == 8 {
            let size = Int(UInt32(chunk[4]) | UInt32(chunk[5]) << 8 | UInt32(chunk[6]) << 16 | UInt32(chunk[7]) << 24)
            if chunk[0..<4].elementsEqual("bext".utf8) { return size >= 602 ? offset : nil }
            if chunk[0..<4].elementsEqual("data".utf8) { return nil }
            offset += 8 + size + size % 2
        }
        return nil
    }

    /// Sets the loudness fields from what `meter` measured (nil where it has no value).
    mutating func takeLoudness(from meter: LoudnessMeter, channelCount: Int) {
        loudnessValue = meter.integrated
        loudnessRange = meter.integrated == nil ? nil : meter.loudnessRange
        maxTruePeakLevel = (0..<channelCount).compactMap { meter.truePeak(channel: $0) }.max()
        maxMomentaryLoudness = meter.maxMomentary
        maxShortTermLoudness = meter.maxShortTerm
    }
}

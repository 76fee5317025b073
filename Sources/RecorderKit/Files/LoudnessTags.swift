// Loudness tags as loudgain and rsgain write them: ReplayGain 2.0 in FLAC, Ogg Vorbis and MP3 (through
// TagLib), R128 gains in Opus (RFC 7845), the bext loudness fields in WAV and RF64; read back for playback.
import CSndFile
import Glibc
import Locking

/// A file's loudness tags: the gain that brings its track (and album) to the reference loudness, and
/// its peak. What `write(_:album:to:)` stores and `read(path:)` finds, in each container's own way:
/// - FLAC, Ogg Vorbis and MP3 (an ID3v2 TXXX frame each): ReplayGain 2.0, REPLAYGAIN_TRACK_GAIN and
///   _PEAK (and ALBUM_ ones), reference −18 LUFS, gains "−3.21 dB", peaks linear sample peaks;
/// - Opus: R128_TRACK_GAIN (and R128_ALBUM_GAIN), reference −23 LUFS, a Q7.8 number of dB (RFC 7845),
///   and no ReplayGain tags (an Opus player takes R128 only);
/// - WAV and RF64: the bext chunk's loudness fields (EBU Tech 3285 v2), rewritten in place.
public struct LoudnessTags: Sendable, Hashable {
    /// ReplayGain 2.0's reference loudness, LUFS.
    public static let replayGainReference = -18.0
    /// The reference of Opus's R128 gains, LUFS.
    public static let r128Reference = -23.0

    /// dB that bring the track to −18 LUFS (ReplayGain's reference, whatever the file stores).
    public var trackGain: Double
    /// The track's peak, linear (1.0 is full scale); nil where the file does not say.
    public var trackPeak: Double?
    /// dB that bring the album to −18 LUFS; nil without album tags.
    public var albumGain: Double?
    /// The album's peak, linear.
    public var albumPeak: Double?

    /// The containers loudness tags go into.
    public static let taggedTypes: [FileType] = [.flac, .ogg, .opus, .mp3, .wav, .rf64]

    /// Writes the tags of `analysis` (the file at `path`, analysed) and of `album` (the loudness and
    /// sample peak of the files analysed together, if an album is tagged) into the file; returns the
    /// tags written, name and value, in order. Any thread.
    /// - Throws: `.unsupportedFileType` for a container without loudness tags, or a WAV without a bext
    ///   chunk; `.loudnessUnreachable` for a silent file; `.cannotCreateFile` when the file or its folder
    ///   cannot be written (read-only, no permission); `.writeFailed` when it cannot be saved (the disk
    ///   full: the file is then unchanged).
    public static func write(_ analysis: FileAnalysis, album: (integrated: Double, samplePeak: Double)? = nil,
                             to path: String) throws(RecorderError) -> [(name: String, value: String)] {
        // One file at a time: TagLib is not thread-safe (`analyze --tag -j 2` crashed in it, two
        // files tagged at once on two threads).
        tagLock.lock()
        defer { tagLock.unlock() }
        return try writeAlone(analysis, album: album, to: path)
    }

    /// Held around every tag write: TagLib keeps state that two threads may not touch at once.
    private static let tagLock = PosixMutex()

    private static func writeAlone(_ analysis: FileAnalysis, album: (integrated: Double, samplePeak: Double)?,
                                   to path: String) throws(RecorderError) -> [(name: String, value: String)] {
        guard let type = FileType(path: path), taggedTypes.contains(type) else {
            throw RecorderError(.unsupportedFileType,
                "cannot tag '\(path)' with its loudness: loudness tags go into FLAC, Ogg Vorbis, Opus, MP3 (ReplayGain, R128) "
                + "and WAV or RF64 (bext); convert it to one of those, or leave --tag out")
        }
        guard let integrated = analysis.integrated else {
            throw RecorderError(.loudnessUnreachable,
                "cannot tag '\(path)' with its loudness: " + (analysis.loudnessNotMeasured ?? "it is silent"))
        }
        let peak = analysis.samplePeak.compactMap { $0 }.max().map { pow(10, $0 / 20) } ?? 0
        var tags: [(String, String?)]
        switch type {
        case .wav, .rf64:
            return try writeBroadcastLoudness(analysis, integrated: integrated, to: path)
        case .opus:
            tags = [("R128_TRACK_GAIN", q78(r128Reference - integrated)),
                    ("R128_ALBUM_GAIN", album.map { q78(r128Reference - $0.integrated) })]
            tags += ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN", "REPLAYGAIN_ALBUM_PEAK"]
                .map { ($0, nil) }
        default:
            tags = [("REPLAYGAIN_TRACK_GAIN", decibels(replayGainReference - integrated)),
                    ("REPLAYGAIN_TRACK_PEAK", fixed(peak, 6))]
            tags += [("REPLAYGAIN_ALBUM_GAIN", album.map { decibels(replayGainReference - $0.integrated) }),
                     ("REPLAYGAIN_ALBUM_PEAK", album.map { fixed($0.samplePeak, 6) })]
        }
        try setTags(tags, in: path)
        return tags.compactMap { name, value in value.map { (name, $0) } }
    }

    /// The loudness tags of the file at `path`, or nil if it has none (or cannot be read). Any thread.
    public static func read(path: String) -> LoudnessTags? {
        guard let type = FileType(path: path) else { return nil }
        switch type {
        case .wav, .rf64:
            var info = SF_INFO()
            guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
            defer { sf_close(file) }
            guard let broadcast = BroadcastInfo.read(file), let loudness = broadcast.loudnessValue else { return nil }
            return LoudnessTags(trackGain: replayGainReference - loudness,
                                trackPeak: broadcast.maxTruePeakLevel.map { pow(10, $0 / 20) })
        case .opus:
            // R128 gains are to −23 LUFS: 5 dB more reach ReplayGain's −18 (as mpv reads them).
            guard let track = tag("R128_TRACK_GAIN", in: path).flatMap({ Double($0) }) else { return nil }
            let offset = replayGainReference - r128Reference
            return LoudnessTags(trackGain: track / 256 + offset, trackPeak: nil,
                                albumGain: tag("R128_ALBUM_GAIN", in: path).flatMap { Double($0) }.map { $0 / 256 + offset })
        default:
            func gain(_ name: String) -> Double? {
                tag(name, in: path).flatMap { Double($0.split(separator: " ").first ?? "") }
            }
            guard let track = gain("REPLAYGAIN_TRACK_GAIN") else { return nil }
            return LoudnessTags(trackGain: track, trackPeak: tag("REPLAYGAIN_TRACK_PEAK", in: path).flatMap { Double($0) },
                                albumGain: gain("REPLAYGAIN_ALBUM_GAIN"),
                                albumPeak: tag("REPLAYGAIN_ALBUM_PEAK", in: path).flatMap { Double($0) })
        }
    }

    /// The linear gain for playing at the reference: `album`'s if asked and present, else the track's,
    /// lowered where the stored peak would pass full scale, and never above 1 (a player does not
    /// amplify).
    public func playbackGain(album: Bool) -> Float {
        let (gain, peak) = album && albumGain != nil ? (albumGain!, albumPeak ?? trackPeak) : (trackGain, trackPeak)
        var linear = pow(10, gain / 20)
        if let peak, peak > 0 { linear = min(linear, 1 / peak) }
        return Float(min(1, max(0, linear.isFinite ? linear : 1)))
    }

    /// Sets the tags through TagLib, in a copy renamed over the file (`SafeRewrite`): TagLib saves in
    /// place, rewriting all that follows tags that grow, and does not report a write that failed, so on
    /// a full disk the file itself would be cut short.
    private static func setTags(_ tags: [(String, String?)], in path: String) throws(RecorderError) {
        try SafeRewrite.rewrite(path, what: "cannot tag '\(path)' with its loudness") { copy throws(RecorderError) in
            try setTagsInPlace(tags, in: copy, named: path)
        }
    }

    private static func setTagsInPlace(_ tags: [(String, String?)], in file: String, named path: String) throws(RecorderError) {
        let keys = tags.map { strdup($0.0) }, values = tags.map { $0.1.map { strdup($0) } ?? nil }
        defer { (keys + values).forEach { free($0) } }
        let set = try TagLibrary.set()
        let status = keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keyPointers in
            values.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { valuePointers in
                set(file, keyPointers.baseAddress, valuePointers.baseAddress, Int32(tags.count))
            }
        }
        guard status == 0 else {
            throw RecorderError(.writeFailed, "cannot tag '\(path)' with its loudness: "
                + (status == -1 ? "TagLib cannot open it; check that it is a whole, readable file"
                   : status == -2 ? "its tags cannot hold \(tags.map(\.0).joined(separator: ", "))"
                   : "TagLib could not save it; check the file's permissions and the free space"))
        }
    }

    private static func tag(_ name: String, in path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard let get = try? TagLibrary.get(), get(path, name, &buffer, Int32(buffer.count)) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bext loudness fields of a WAV or RF64 file, rewritten in place (their bytes only).
    private static func writeBroadcastLoudness(_ analysis: FileAnalysis, integrated: Double,
                                               to path: String) throws(RecorderError) -> [(name: String, value: String)] {
        let fields: [(String, Double?)] = [
            ("LoudnessValue", integrated), ("LoudnessRange", analysis.loudnessRange),
            ("MaxTruePeakLevel", analysis.truePeak.compactMap { $0 }.max()),
            ("MaxMomentaryLoudness", analysis.maxMomentary), ("MaxShortTermLoudness", analysis.maxShortTerm),
        ]
        var bytes: [UInt8] = []
        for (_, value) in fields {
            let stored = UInt16(bitPattern: BroadcastInfo.stored(value))
            bytes += [UInt8(truncatingIfNeeded: stored), UInt8(truncatingIfNeeded: stored >> 8)]
        }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            throw RecorderError(code == EROFS || code == EACCES || code == EPERM ? .cannotCreateFile : .writeFailed,
                                "cannot tag '\(path)' with its loudness: \(String(cString: strerror(code))); "
                                + (code == EROFS ? "copy it to a writable folder and tag that" : "check the file's permissions"),
                                underlying: .init(.posix, code))
        }
        defer { close(descriptor) }
        // The chunk's data begins 8 bytes after its id; the loudness fields 412 bytes into it.
        guard let chunk = BroadcastInfo.chunkOffset(descriptor: descriptor),
              bytes.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, off_t(chunk + 8 + 412)) }) == bytes.count else {
            throw RecorderError(.unsupportedFileType,
                "cannot tag '\(path)' with its loudness: it has no bext chunk to hold it (`recorder record` writes one in "
                + "every WAV and RF64); convert it to FLAC (sox IN.wav OUT.flac) and tag that")
        }
        return fields.map { ($0.0, $0.1.map { fixed($0, 2) } ?? "not set") }
    }

    /// dB as ReplayGain writes them: "-3.21 dB".
    static func decibels(_ value: Double) -> String { fixed(value, 2) + " dB" }

    /// dB as a Q7.8 number (RFC 7845: 1/256 dB steps, within a signed 16-bit value).
    static func q78(_ value: Double) -> String { String(Int(max(-32_768, min(32_767, (value * 256).rounded())))) }

    /// `value` with `decimals` digits after the point.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        let scale = pow(10, Double(decimals))
        let scaled = (abs(value) * scale).rounded()
        guard scaled.isFinite, scaled < 1e15 else { return String(value) }
        let whole = Int64(scaled)
        let fraction = String(whole % Int64(scale))
        return (value < 0 && whole != 0 ? "-" : "") + String(whole / Int64(scale))
            + (decimals > 0 ? "." + String(repeating: "0", count: decimals - fraction.count) + fraction : "")
    }
}

/// TagLib's two calls, through the package's C++ library over it (`librecorder-tags.so`, see
/// Sources/CTagLib), loaded when a file is first tagged or its tags read: a plain take never maps TagLib.
private enum TagLibrary {
    typealias Set = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?,
                                    UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> Int32
    typealias Get = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32) -> Int32

    /// `rk_tags_set`: keys[i] set to values[i] (removed where NULL), saved; 0 or a negative status.
    static func set() throws(RecorderError) -> Set { try LazyLibrary.tags.function("rk_tags_set", as: Set.self) }

    /// `rk_tags_get`: the first value of a key into a buffer; its length, or a negative status.
    static func get() throws(RecorderError) -> Get { try LazyLibrary.tags.function("rk_tags_get", as: Get.self) }
}


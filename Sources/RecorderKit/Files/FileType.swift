// The containers RecorderKit writes: names, extensions, what each can hold, and libsndfile's format codes.
import CSndFile

/// The containers RecorderKit writes, chosen by the file name's extension or named (`record(to:fileType:)`,
/// the command's `-t`). Each holds the recorder's `SampleFormat` (16-bit by default; FLAC takes 16 and
/// 24 bits only).
public enum FileType: String, Sendable, CaseIterable {
    /// Classic AIFF (`FORM…AIFF`), big-endian: the captured bytes are written as they are.
    case aiff
    /// RIFF WAVE, little-endian (WAVE_FORMAT_EXTENSIBLE, with a `JUNK` chunk reserving room for
    /// RF64's `ds64`, as EBU Tech 3306 recommends). A take whose audio passes 4 GiB becomes RF64 in
    /// place (its header is rewritten; the audio does not move) instead of being split.
    case wav
    /// Core Audio Format.
    case caf
    /// FLAC, lossless. Streams to a pipe (its header then gives no length).
    case flac
    /// Sun/NeXT AU (`.snd`), big-endian. Streams to a pipe (its header then says "length unknown").
    case au
    /// Headerless samples, signed 16-bit little-endian (`s16le`, what parecord and arecord write raw):
    /// the reader must be told the rate and channels. Streams to a pipe.
    case raw
    /// Sony Wave64: WAV with 64-bit sizes (no 4 GiB limit).
    case w64
    /// RF64 (EBU Tech 3306): WAV with 64-bit sizes, for takes past 4 GiB.
    case rf64
    /// Ogg Vorbis, lossy (`encoderQuality` sets its quality). Written page by page: after a crash it
    /// decodes up to its last whole page.
    case ogg
    /// Ogg Opus, lossy, at 8, 12, 16, 24 or 48 kHz only.
    case opus
    /// MPEG-1 layer III (MP3, through LAME), lossy.
    case mp3

    /// The type for a path's extension (`.aiff`/`.aif`, `.wav`, `.caf`, `.flac`, `.au`/`.snd`,
    /// `.raw`/`.pcm`, `.w64`, `.rf64`, `.ogg`/`.oga`, `.opus`, `.mp3`, any case), or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "aiff", "aif": self = .aiff
        case "wav": self = .wav
        case "caf": self = .caf
        case "flac": self = .flac
        case "au", "snd": self = .au
        case "raw", "pcm": self = .raw
        case "w64": self = .w64
        case "rf64": self = .rf64
        case "ogg", "oga": self = .ogg
        case "opus": self = .opus
        case "mp3": self = .mp3
        default: return nil
        }
    }

    /// The types libsndfile writes to a pipe (standard output when it is not a file): the others
    /// need to go back to their header.
    public var streams: Bool { self == .flac || self == .au || self == .raw || isLossy }

    /// The extensions `init(path:)` knows, for messages: ".aiff, .aif, .wav, …".
    public static let extensionList = ".aiff, .aif, .wav, .caf, .flac, .au, .snd, .raw, .pcm, .w64, .rf64, .ogg, .opus or .mp3"

    /// Lossy (Ogg Vorbis, Opus, MP3): the only types an encoder quality applies to. They take any
    /// `SampleFormat` and store what their encoder makes of it.
    public var isLossy: Bool { self == .ogg || self == .opus || self == .mp3 }

    /// The most audio bytes a file of this type can describe: the 32-bit sizes of AIFF and AU,
    /// FLAC's 36-bit sample count; CAF's, W64's and RF64's sizes are 64-bit (a WAV file becomes RF64
    /// past 4 GiB), raw has none.
    func maxAudioBytes(bytesPerFrame: Int) -> Int64 {
        switch self {
        case .aiff, .au: return Int64(UInt32.max)
        case .flac: return (Int64(1) << 36 - 1) * Int64(bytesPerFrame)
        case .wav, .caf, .raw, .w64, .rf64, .ogg, .opus, .mp3: return Int64.max
        }
    }

    /// The path with `-NNN` (at least three digits) before the extension: `take.aiff` → `take-002.aiff`.
    public static func numberedPath(_ path: String, _ number: Int) -> String {
        var digits = String(number)
        while digits.count < 3 { digits = "0" + digits }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "-" + digits }
        return path[..<dot] + "-" + digits + path[dot...]
    }

    /// libsndfile's format for writing this container holding `sample`: the container, then PCM_16,
    /// PCM_24, PCM_32 or FLOAT (the lossy ones: their codec). WAV is written as RF64 told to downgrade
    /// (`SFC_RF64_AUTO_DOWNGRADE`): a plain RIFF WAVE file until its audio passes 4 GiB, RF64 after.
    func sndfileFormat(_ sample: SampleFormat) -> Int32 {
        let container: Int32
        switch self {
        case .aiff: container = Int32(SF_FORMAT_AIFF)
        case .wav, .rf64: container = Int32(SF_FORMAT_RF64)
        case .caf: container = Int32(SF_FORMAT_CAF)
        case .flac: container = Int32(SF_FORMAT_FLAC)
        case .au: container = Int32(SF_FORMAT_AU)
        case .raw: container = Int32(SF_FORMAT_RAW) | Int32(SF_ENDIAN_LITTLE)
        case .w64: container = Int32(SF_FORMAT_W64)
        case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case .opus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        }
        // Default endianness otherwise: for AIFF that is classic big-endian AIFF (SF_ENDIAN_BIG would
        // make AIFF-C), for AU big-endian.
        switch sample {
        case .int16: return container | Int32(SF_FORMAT_PCM_16)
        case .int24: return container | Int32(SF_FORMAT_PCM_24)
        case .int32: return container | Int32(SF_FORMAT_PCM_32)
        case .float32: return container | Int32(SF_FORMAT_FLOAT)
        }
    }
}

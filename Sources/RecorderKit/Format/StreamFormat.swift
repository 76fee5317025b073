// The capture format: rate, channel count and sample format of big-endian interleaved linear PCM.
import CPulse

/// How one sample is stored in captured buffers: always big-endian (AIFF's order), as the server
/// delivers it.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// Signed 16-bit integers (full scale 32 768): the default.
    case int16 = "s16"
    /// Signed 24-bit integers, three bytes each (full scale 8 388 608).
    case int24 = "s24"
    /// Signed 32-bit integers (full scale 2 147 483 648).
    case int32 = "s32"
    /// 32-bit IEEE floats, full scale ±1.0 (values beyond it are kept: floats do not clip).
    case float32 = "float"

    /// Bytes in one sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .int24: 3
        case .int32, .float32: 4
        }
    }

    /// The smallest magnitude, as a fraction of full scale, that counts as a clipped sample: the largest
    /// positive integer (32 767 / 32 768 for 16 bits), or 1.0 for floats.
    var clipLevel: Double {
        switch self {
        case .int16: 32_767.0 / 32_768
        case .int24: 8_388_607.0 / 8_388_608
        case .int32: 2_147_483_647.0 / 2_147_483_648
        case .float32: 1
        }
    }

    var pulseFormat: pa_sample_format_t {
        switch self {
        case .int16: PA_SAMPLE_S16BE
        case .int24: PA_SAMPLE_S24BE
        case .int32: PA_SAMPLE_S32BE
        case .float32: PA_SAMPLE_FLOAT32BE
        }
    }

    /// Sample `index` (counted in samples, not bytes) of big-endian `bytes` as a fraction of full scale;
    /// a NaN or infinite float reads 0.
    @inline(__always)
    func value(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Double {
        switch self {
        case .int16:
            let offset = index * 2
            return Double(Int16(bitPattern: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))) / 32_768
        case .int24:
            let offset = index * 3
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            return Double(Int32(bitPattern: raw) >> 8) / 8_388_608
        case .int32:
            let offset = index * 4
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            return Double(Int32(bitPattern: raw)) / 2_147_483_648
        case .float32:
            let offset = index * 4
            let raw = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            let value = Float(bitPattern: raw)
            return value.isFinite ? Double(value) : 0
        }
    }

    /// Converts the whole samples of big-endian `bytes` to floats (fractions of full scale) in `out`;
    /// returns how many were written (at most `out.count`). Allocates nothing.
    func decode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(bytes.count / bytesPerSample, out.count)
        for index in 0..<count { out[index] = Float(value(bytes, index)) }
        return count
    }
}

/// The format a `Recorder` captures and writes: linear PCM, interleaved, big-endian, signed 16-bit
/// unless `sampleFormat` says 24-bit, 32-bit or float.
///
/// The server converts from whatever its source delivers; the default is the AudioQueue design's
/// 44 100 Hz mono 16-bit.
public struct StreamFormat: Hashable, Sendable {
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels, 1 to `maxChannels`.
    public let channelCount: Int
    /// How each sample is stored (16-bit by default).
    public let sampleFormat: SampleFormat

    /// Bytes in one sample of one channel of the default 16-bit format (`sampleFormat.bytesPerSample`
    /// for others).
    public static let bytesPerSample = 2
    /// The largest channel count PulseAudio streams carry (PA_CHANNELS_MAX).
    public static let maxChannels = 32
    /// The highest rate PulseAudio 16 accepts (PA_RATE_MAX).
    public static let maxSampleRate = 384_000

    /// 44 100 Hz, mono, signed 16-bit big-endian.
    public static let `default` = StreamFormat(validSampleRate: 44_100, channelCount: 1)

    /// Checks the values before anything connects.
    /// - Throws: `RecorderError` with code `.invalidFormat` naming the bad value and the accepted range.
    public init(sampleRate: Int = 44_100, channelCount: Int = 1, sampleFormat: SampleFormat = .int16) throws(RecorderError) {
        guard (1...Self.maxSampleRate).contains(sampleRate) else {
            throw RecorderError(.invalidFormat,
                "invalid sample rate \(sampleRate) Hz: use a rate from 1 to \(Self.maxSampleRate) Hz, e.g. 44100 or 48000")
        }
        guard (1...Self.maxChannels).contains(channelCount) else {
            throw RecorderError(.invalidFormat,
                "invalid channel count \(channelCount): use 1 to \(Self.maxChannels) channels")
        }
        self.init(validSampleRate: sampleRate, channelCount: channelCount, sampleFormat: sampleFormat)
    }

    private init(validSampleRate: Int, channelCount: Int, sampleFormat: SampleFormat = .int16) {
        self.sampleRate = validSampleRate
        self.channelCount = channelCount
        self.sampleFormat = sampleFormat
    }

    /// Bytes in one frame (one sample of every channel): also one AIFF packet.
    public var bytesPerFrame: Int { channelCount * sampleFormat.bytesPerSample }

    /// The most frames a duration, limit or position may count: 2^61, some 1.6 million years at 44.1 kHz,
    /// with room to add positions to it without overflow.
    public static let maxFrameCount: Int64 = 1 << 61

    /// `seconds` as whole frames at this rate (rounded by `rule`, to the nearest by default), or nil
    /// unless it is a finite number from 0 to `maxFrameCount` frames' worth.
    public func frames(seconds: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        let frames = (seconds * Double(sampleRate)).rounded(rule)
        guard frames <= Double(Self.maxFrameCount) else { return nil }
        return Int64(frames)
    }

    /// The longest duration `frames(seconds:)` takes at this rate, in seconds.
    public var maxSeconds: Double { Double(Self.maxFrameCount) / Double(sampleRate) }

    /// Frames in `milliseconds` of audio, rounded to the nearest frame (4 410 for 100 ms at 44.1 kHz),
    /// or nil for a negative count or one whose frames times 1000 would not fit in an `Int` (some 6.6
    /// million years at 44.1 kHz).
    public func frames(milliseconds: Int) -> Int? {
        guard milliseconds >= 0 else { return nil }
        let (product, overflow) = sampleRate.multipliedReportingOverflow(by: milliseconds)
        guard !overflow else { return nil }
        return product / 1000 + (product % 1000 >= 500 ? 1 : 0)
    }
}

/// AVAudioRecorder's settings dictionary, typed: what `Recorder(path:settings:)` records. The file
/// type follows the path's extension.
public struct RecorderSettings: Sendable, Hashable {
    /// AVSampleRateKey: frames per second (as `StreamFormat` takes them).
    public var sampleRate: Int
    /// AVNumberOfChannelsKey: 1…32.
    public var numberOfChannels: Int
    /// AVLinearPCMBitDepthKey and AVLinearPCMIsFloatKey together: 16-bit by default.
    public var sampleFormat: SampleFormat
    /// The source to record (nil: the server's default).
    public var source: String?
    /// The server address (nil: libpulse's usual lookup, honouring `PULSE_SERVER`).
    public var server: String?
    /// Seconds of audio kept so that a take may begin before it is started (see `Recorder.init`).
    public var maximumPreRoll: Double
    /// AVEncoderAudioQualityKey: the lossy encoder's quality, 0…1 (`Recorder.encoderQuality`).
    public var encoderQuality: Double?

    /// AVAudioRecorder's defaults where it has them: 44.1 kHz mono, the default source and server.
    public init(sampleRate: Int = 44_100, numberOfChannels: Int = 1, source: String? = nil,
                server: String? = nil, maximumPreRoll: Double = 0, sampleFormat: SampleFormat = .int16,
                encoderQuality: Double? = nil) {
        self.encoderQuality = encoderQuality
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
        self.numberOfChannels = numberOfChannels
        self.source = source
        self.server = server
        self.maximumPreRoll = maximumPreRoll
    }
}

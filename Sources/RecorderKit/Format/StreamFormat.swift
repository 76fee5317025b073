// The capture format: rate, channel count and sample format of big-endian interleaved linear PCM.

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

    /// The most channels a take from several sources holds in all (each source's stream: `maxChannels`).
    public static let maxTakeChannels = 64

    /// A several-source take's format: up to `maxTakeChannels` channels, the rate already checked.
    init(takeRate: Int, channelCount: Int, sampleFormat: SampleFormat) {
        self.init(validSampleRate: takeRate, channelCount: channelCount, sampleFormat: sampleFormat)
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

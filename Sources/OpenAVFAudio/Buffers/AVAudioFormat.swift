// AVAudioFormat: a stream's rate, channels and sample layout, from a common format, a stream description
// or a settings dictionary; immutable.
import Foundation

/// The sample layouts a buffer of floats or integers holds.
public enum AVAudioCommonFormat: UInt, Sendable {
    case otherFormat = 0
    case pcmFormatFloat32 = 1
    case pcmFormatFloat64 = 2
    case pcmFormatInt16 = 3
    case pcmFormatInt32 = 4
}

/// A format: immutable once made (so it may be shared between threads).
open class AVAudioFormat: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every field is set in init and never changed; `basic` points at memory
    // this object owns and never writes after init.
    private let basic: UnsafeMutablePointer<AudioStreamBasicDescription>
    /// The sample layout, or `.otherFormat` for compressed audio and other PCM.
    public let commonFormat: AVAudioCommonFormat
    /// Which speaker each channel is for: the layout the format was made with (or AVChannelLayoutKey's);
    /// nil when made from a channel count alone, as Apple's is.
    public let channelLayout: AVAudioChannelLayout?

    /// Linear PCM of `format` (float32, float64, int16 or int32) at `sampleRate`, `channels` (1…32)
    /// interleaved or one buffer per channel; nil for anything else (a rate that is not positive and
    /// finite, no channels, `.otherFormat`).
    public init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) {
        guard sampleRate.isFinite, sampleRate > 0, (1...32).contains(channels) else { return nil }
        let bits: UInt32
        var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
        switch format {
        case .pcmFormatFloat32: bits = 32; flags |= kAudioFormatFlagIsFloat
        case .pcmFormatFloat64: bits = 64; flags |= kAudioFormatFlagIsFloat
        case .pcmFormatInt16: bits = 16; flags |= kAudioFormatFlagIsSignedInteger
        case .pcmFormatInt32: bits = 32; flags |= kAudioFormatFlagIsSignedInteger
        case .otherFormat: return nil
        }
        if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        let frameBytes = bits / 8 * (interleaved ? channels : 1)
        basic = .allocate(capacity: 1)
        basic.initialize(to: AudioStreamBasicDescription(
            mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags, mBytesPerPacket: frameBytes,
            mFramesPerPacket: 1, mBytesPerFrame: frameBytes, mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0))
        commonFormat = format
        channelLayout = nil
        super.init()
    }

    /// Linear PCM of `format` at `sampleRate` with `layout`'s channels, interleaved or not. Never nil, as
    /// Apple's: a rate or channel count no stream takes (NaN, none, 1 000) makes a format the engine,
    /// files and converters refuse when it is used.
    public init(commonFormat format: AVAudioCommonFormat, sampleRate: Double, interleaved: Bool, channelLayout layout: AVAudioChannelLayout) {
        let channels = layout.channelCount
        let (bits, kind): (UInt32, AudioFormatFlags) = switch format {
        case .pcmFormatFloat64: (64, kAudioFormatFlagIsFloat)
        case .pcmFormatInt16: (16, kAudioFormatFlagIsSignedInteger)
        case .pcmFormatInt32: (32, kAudioFormatFlagIsSignedInteger)
        case .pcmFormatFloat32, .otherFormat: (32, kAudioFormatFlagIsFloat)
        }
        let flags = kAudioFormatFlagIsPacked | kind | (interleaved ? 0 : kAudioFormatFlagIsNonInterleaved)
        let frameBytes = bits / 8 &* (interleaved ? channels : 1)
        basic = .allocate(capacity: 1)
        basic.initialize(to: AudioStreamBasicDescription(
            mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags, mBytesPerPacket: frameBytes,
            mFramesPerPacket: 1, mBytesPerFrame: frameBytes, mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0))
        commonFormat = format == .otherFormat ? .pcmFormatFloat32 : format
        channelLayout = layout
        super.init()
    }

    /// The standard format (32-bit float, a buffer per channel) with `layout`'s channels. Never nil.
    public convenience init(standardFormatWithSampleRate sampleRate: Double, channelLayout layout: AVAudioChannelLayout) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, interleaved: false, channelLayout: layout)
    }

    /// The standard format: 32-bit float, one buffer per channel (`isStandard`).
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// The format `streamDescription` describes (any format ID; the common format is found for native-endian
    /// packed PCM); nil for a rate that is not positive and finite or no channels.
    public init?(streamDescription: UnsafePointer<AudioStreamBasicDescription>) {
        let given = streamDescription.pointee
        guard given.mSampleRate.isFinite, given.mSampleRate > 0, given.mChannelsPerFrame > 0 else { return nil }
        basic = .allocate(capacity: 1)
        basic.initialize(to: given)
        commonFormat = Self.common(given)
        channelLayout = nil
        super.init()
    }

    /// The format `streamDescription` describes with `layout` (which must have as many channels, else
    /// nil); nil also as for init(streamDescription:).
    public init?(streamDescription: UnsafePointer<AudioStreamBasicDescription>, channelLayout layout: AVAudioChannelLayout?) {
        let given = streamDescription.pointee
        guard given.mSampleRate.isFinite, given.mSampleRate > 0, given.mChannelsPerFrame > 0,
              layout.map({ $0.channelCount == given.mChannelsPerFrame }) ?? true else { return nil }
        basic = .allocate(capacity: 1)
        basic.initialize(to: given)
        commonFormat = Self.common(given)
        channelLayout = layout
        super.init()
    }

    /// The format a settings dictionary describes (AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey,
    /// AVLinearPCMBitDepthKey, AVLinearPCMIsFloatKey, AVLinearPCMIsBigEndianKey,
    /// AVLinearPCMIsNonInterleaved); nil without a rate or a channel count, or with a bit depth that is not
    /// a whole number from 1 to 64.
    public convenience init?(settings: [String: Any]) {
        let reader = SettingsReader(settings: settings)
        guard let rate = reader.number(AVSampleRateKey), let channels = reader.number(AVNumberOfChannelsKey),
              channels >= 1, channels <= 32 else { return nil }
        let formatID = reader.formatID
        var description = AudioStreamBasicDescription()
        description.mSampleRate = rate
        description.mFormatID = formatID
        description.mChannelsPerFrame = UInt32(channels)
        if formatID == kAudioFormatLinearPCM {
            let float = reader.flag(AVLinearPCMIsFloatKey) ?? false
            // A depth of whole bits, 1…64 (NaN, −16 or 1e30: no format, as Apple gives none).
            let depth = reader.number(AVLinearPCMBitDepthKey) ?? (float ? 32 : 16)
            guard depth.isFinite, depth >= 1, depth <= 64, depth == depth.rounded() else { return nil }
            let bits = UInt32(depth)
            let interleaved = !(reader.flag(AVLinearPCMIsNonInterleaved) ?? false)
            var flags: AudioFormatFlags = kAudioFormatFlagIsPacked | (float ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger)
            if reader.flag(AVLinearPCMIsBigEndianKey) ?? false { flags |= kAudioFormatFlagIsBigEndian }
            if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
            description.mFormatFlags = flags
            description.mBitsPerChannel = bits
            description.mFramesPerPacket = 1
            description.mBytesPerFrame = (bits + 7) / 8 * (interleaved ? UInt32(channels) : 1)
            description.mBytesPerPacket = description.mBytesPerFrame
        }
        var layout: AVAudioChannelLayout?
        if let data = settings[AVChannelLayoutKey] as? Data {
            // The structure's bytes: its descriptions must lie within them, and its channels match.
            guard let read = AVAudioChannelLayout(data: data) else { return nil }
            layout = read
        }
        self.init(streamDescription: &description, channelLayout: layout)
    }

    deinit {
        basic.deinitialize(count: 1)
        basic.deallocate()
    }

    private static func common(_ description: AudioStreamBasicDescription) -> AVAudioCommonFormat {
        let flags = description.mFormatFlags
        guard description.mFormatID == kAudioFormatLinearPCM, flags & kAudioFormatFlagIsBigEndian == kAudioFormatFlagsNativeEndian,
              flags & kAudioFormatFlagIsPacked != 0 else { return .otherFormat }
        switch (flags & kAudioFormatFlagIsFloat != 0, description.mBitsPerChannel) {
        case (true, 32): return .pcmFormatFloat32
        case (true, 64): return .pcmFormatFloat64
        case (false, 16) where flags & kAudioFormatFlagIsSignedInteger != 0: return .pcmFormatInt16
        case (false, 32) where flags & kAudioFormatFlagIsSignedInteger != 0: return .pcmFormatInt32
        default: return .otherFormat
        }
    }

    /// Frames per second.
    public var sampleRate: Double { basic.pointee.mSampleRate }
    /// Channels.
    public var channelCount: AVAudioChannelCount { basic.pointee.mChannelsPerFrame }
    /// Whether the channels' samples alternate in one buffer (false: a buffer per channel).
    public var isInterleaved: Bool { basic.pointee.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 }
    /// 32-bit float, a buffer per channel: what AVAudioEngine's nodes and AVAudioFile's processing use.
    public var isStandard: Bool { commonFormat == .pcmFormatFloat32 && !isInterleaved }
    /// The format as a stream description (valid while this object lives).
    public var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(basic) }

    /// The format as a settings dictionary.
    public var settings: [String: Any] {
        let described = basic.pointee
        var settings: [String: Any] = [AVFormatIDKey: described.mFormatID, AVSampleRateKey: described.mSampleRate,
                                       AVNumberOfChannelsKey: described.mChannelsPerFrame]
        if described.mFormatID == kAudioFormatLinearPCM {
            settings[AVLinearPCMBitDepthKey] = described.mBitsPerChannel
            settings[AVLinearPCMIsFloatKey] = described.mFormatFlags & kAudioFormatFlagIsFloat != 0
            settings[AVLinearPCMIsBigEndianKey] = described.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
            settings[AVLinearPCMIsNonInterleaved] = !isInterleaved
        }
        if let channelLayout { settings[AVChannelLayoutKey] = channelLayout.data }
        return settings
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        let mine = basic.pointee, theirs = other.basic.pointee
        return mine.mSampleRate == theirs.mSampleRate && mine.mFormatID == theirs.mFormatID
            && mine.mFormatFlags == theirs.mFormatFlags && mine.mBitsPerChannel == theirs.mBitsPerChannel
            && mine.mChannelsPerFrame == theirs.mChannelsPerFrame && mine.mBytesPerFrame == theirs.mBytesPerFrame
    }

    open override var hash: Int { basic.pointee.mSampleRate.hashValue ^ Int(basic.pointee.mChannelsPerFrame) << 20 }

    open override var description: String {
        let described = self.basic.pointee
        let layout = commonFormat == .otherFormat ? "format \(described.mFormatID)" : "\(commonFormat)"
        return "<AVAudioFormat: \(channelCount) ch, \(sampleRate) Hz, \(layout), \(isInterleaved ? "interleaved" : "deinterleaved")>"
    }
}

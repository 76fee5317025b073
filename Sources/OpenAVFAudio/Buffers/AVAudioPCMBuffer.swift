// AVAudioBuffer and AVAudioPCMBuffer: PCM frames of a format, in memory taken once when the buffer is
// made, with per-channel pointers that no access allocates.
import Foundation

/// A buffer of audio of one format.
open class AVAudioBuffer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: as Apple's buffers, shared only as the caller arranges (a tap's block, a
    // completion handler); the format is immutable.
    /// The format of the audio the buffer holds.
    public let format: AVAudioFormat

    init(format: AVAudioFormat) {
        self.format = format
        super.init()
    }

    /// The buffer's memory as Core Audio's buffer list, for lower-level calls: one buffer per channel for a
    /// deinterleaved format, one in all for an interleaved one; each `mDataByteSize` the buffer's current
    /// `frameLength`. Change the samples, not the list. From the thread that owns the buffer.
    public var audioBufferList: UnsafePointer<AudioBufferList> { UnsafePointer(bufferList(sizedToCapacity: false)) }

    /// The same list, for calls that fill it (`AudioUnitRender`, `ExtAudioFileRead`, a converter): each
    /// `mDataByteSize` the buffer's `frameCapacity`. Set `frameLength` to what was filled afterwards.
    public var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> { bufferList(sizedToCapacity: true) }

    /// The list, its pointers and channel counts restored (a caller may have changed them) and its sizes set.
    func bufferList(sizedToCapacity: Bool) -> UnsafeMutablePointer<AudioBufferList> {
        AVAudioBuffer.noBuffers.unsafeMutablePointer
    }

    /// The list of a buffer that holds no PCM: no buffers.
    nonisolated(unsafe) private static let noBuffers: UnsafeMutableAudioBufferListPointer = {
        let list = AudioBufferList.allocate(maximumBuffers: 1)
        list.count = 0
        return list
    }()
    // nonisolated(unsafe): made once, never freed, its one field 0 (a caller writing to it writes to no buffer).
}

/// PCM frames: `frameCapacity` of them allocated, `frameLength` of them valid. Channel data is one buffer
/// per channel for a deinterleaved format (`stride` 1), one buffer of alternating samples for an
/// interleaved one (`stride` = channels).
open class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    // @unchecked Sendable: see AVAudioBuffer; the pointers are fixed for the buffer's life.
    /// Frames the buffer can hold.
    public let frameCapacity: AVAudioFrameCount
    private var length: AVAudioFrameCount = 0
    /// Bytes per sample.
    let sampleBytes: Int
    /// The samples, zeroed when made.
    let storage: UnsafeMutableRawPointer
    /// Where each channel's samples begin (one in all for an interleaved format).
    private let bases: [UnsafeMutableRawPointer]
    /// The same pointers as the typed pointers `floatChannelData` (or the int variants) hands out: memory
    /// bound once, when the buffer is made, to the pointer type of its format.
    private let channelPointers: UnsafeMutableRawPointer
    /// Core Audio's view of the same memory (`audioBufferList`), refreshed each time it is handed out.
    private let list: UnsafeMutableAudioBufferListPointer

    /// A buffer of `frameCapacity` frames of `format` (float32, float64, int16 or int32 PCM); nil for a
    /// compressed or other format, no frames, or more than 2 GiB of samples.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let bytes: Int
        switch format.commonFormat {
        case .pcmFormatFloat32, .pcmFormatInt32: bytes = 4
        case .pcmFormatFloat64: bytes = 8
        case .pcmFormatInt16: bytes = 2
        case .otherFormat: return nil
        }
        let channelCount = Int(format.channelCount)
        let total = Int(frameCapacity) * channelCount * bytes
        guard frameCapacity > 0, total <= Int(Int32.max) else { return nil }
        self.frameCapacity = frameCapacity
        sampleBytes = bytes
        let start = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        start.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        storage = start
        let pointers = format.isInterleaved ? 1 : channelCount
        bases = (0..<pointers).map { start + $0 * Int(frameCapacity) * bytes }
        list = AudioBufferList.allocate(maximumBuffers: pointers)
        channelPointers = .allocate(byteCount: pointers * MemoryLayout<UnsafeMutableRawPointer>.stride,
                                    alignment: MemoryLayout<UnsafeMutableRawPointer>.alignment)
        switch format.commonFormat {
        case .pcmFormatFloat32: Self.bind(channelPointers, bases, samples: Int(frameCapacity) * channelCount, as: Float.self)
        case .pcmFormatFloat64: Self.bind(channelPointers, bases, samples: Int(frameCapacity) * channelCount, as: Double.self)
        case .pcmFormatInt16: Self.bind(channelPointers, bases, samples: Int(frameCapacity) * channelCount, as: Int16.self)
        case .pcmFormatInt32, .otherFormat: Self.bind(channelPointers, bases, samples: Int(frameCapacity) * channelCount, as: Int32.self)
        }
        super.init(format: format)
    }

    private static func bind<T>(_ memory: UnsafeMutableRawPointer, _ bases: [UnsafeMutableRawPointer], samples: Int, as: T.Type) {
        _ = bases[0].bindMemory(to: T.self, capacity: samples)  // bases[0] is the storage's start
        let typed = memory.bindMemory(to: UnsafeMutablePointer<T>.self, capacity: bases.count)
        for (index, base) in bases.enumerated() {
            (typed + index).initialize(to: base.assumingMemoryBound(to: T.self))
        }
    }

    deinit {
        free(list.unsafeMutablePointer)
        channelPointers.deallocate()
        storage.deallocate()
    }

    /// Frames that hold audio, 0…`frameCapacity` (a larger value is taken as the capacity). Setting it sets
    /// `mDataByteSize` in `audioBufferList`.
    public var frameLength: AVAudioFrameCount {
        get { length }
        set { length = min(newValue, frameCapacity) }
    }

    override func bufferList(sizedToCapacity: Bool) -> UnsafeMutablePointer<AudioBufferList> {
        let frames = Int(sizedToCapacity ? frameCapacity : length)
        let channels = Int(format.channelCount)
        let perBuffer = format.isInterleaved ? channels : 1
        list.count = bases.count
        for (index, base) in bases.enumerated() {
            list[index] = AudioBuffer(mNumberChannels: UInt32(perBuffer),
                                      mDataByteSize: UInt32(frames * perBuffer * sampleBytes), mData: base)
        }
        return list.unsafeMutablePointer
    }

    /// The distance, in samples, between one frame's sample of a channel and the next frame's.
    public var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    /// The channels as 32-bit floats, or nil for another format.
    public var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { channelData(.pcmFormatFloat32) }
    /// The channels as 16-bit integers, or nil for another format.
    public var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { channelData(.pcmFormatInt16) }
    /// The channels as 32-bit integers, or nil for another format.
    public var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { channelData(.pcmFormatInt32) }

    private func channelData<T>(_ common: AVAudioCommonFormat) -> UnsafePointer<UnsafeMutablePointer<T>>? {
        guard format.commonFormat == common else { return nil }
        return UnsafePointer(channelPointers.assumingMemoryBound(to: UnsafeMutablePointer<T>.self))
    }

    /// The sample of `channel` in `frame` as a float of full scale ±1 (integers over 2^(bits−1)).
    func sample(channel: Int, frame: Int) -> Float {
        let index = format.isInterleaved ? frame * Int(format.channelCount) + channel : frame
        let base = bases[format.isInterleaved ? 0 : channel]
        switch format.commonFormat {
        case .pcmFormatFloat32: return base.load(fromByteOffset: index * 4, as: Float.self)
        case .pcmFormatFloat64: return Float(base.load(fromByteOffset: index * 8, as: Double.self))
        case .pcmFormatInt16: return Float(base.load(fromByteOffset: index * 2, as: Int16.self)) / 32_768
        case .pcmFormatInt32: return Float(Double(base.load(fromByteOffset: index * 4, as: Int32.self)) / 2_147_483_648)
        case .otherFormat: return 0
        }
    }

    /// Sets the sample of `channel` in `frame` from a float of full scale ±1 (integers rounded and clipped).
    func setSample(_ value: Float, channel: Int, frame: Int) {
        let index = format.isInterleaved ? frame * Int(format.channelCount) + channel : frame
        let base = bases[format.isInterleaved ? 0 : channel]
        switch format.commonFormat {
        case .pcmFormatFloat32: base.storeBytes(of: value, toByteOffset: index * 4, as: Float.self)
        case .pcmFormatFloat64: base.storeBytes(of: Double(value), toByteOffset: index * 8, as: Double.self)
        case .pcmFormatInt16:
            let scaled = value.isNaN ? 0 : (Double(value) * 32_768).rounded()
            base.storeBytes(of: Int16(max(-32_768, min(32_767, scaled))), toByteOffset: index * 2, as: Int16.self)
        case .pcmFormatInt32:
            let scaled = value.isNaN ? 0 : (Double(value) * 2_147_483_648).rounded()
            base.storeBytes(of: Int32(max(-2_147_483_648, min(2_147_483_647, scaled))), toByteOffset: index * 4, as: Int32.self)
        case .otherFormat: break
        }
    }
}

// How the samples of one linear PCM format lie in a buffer list — integers of 8 to 32 bits or floats of 32
// or 64, either byte order, interleaved or one buffer per channel — read and written as floats of full
// scale ±1: what the converters and Extended Audio File Services convert through.

/// One linear PCM format's sample layout, from its stream description.
package struct SampleCodec: Equatable {
    /// Whether `description` is a format the converters take (and an I/O unit's client side: at most 32
    /// channels, a whole rate of 1 to 384 000 Hz).
    package static func accepts(_ description: AudioStreamBasicDescription) -> Bool {
        SampleCodec(description) != nil && description.mChannelsPerFrame <= 32 && description.mSampleRate >= 1
            && description.mSampleRate <= 384_000 && description.mSampleRate == description.mSampleRate.rounded()
    }

    let channels: Int
    let interleaved: Bool
    /// Bytes per sample (1, 2, 3, 4 or 8).
    let bytes: Int
    let isFloat: Bool
    let bigEndian: Bool
    /// 8-bit samples without the signed flag: offset binary (128 is silence), as WAV holds them.
    let offsetBinary: Bool

    /// The layout `description` describes; nil for anything but packed linear PCM of 1…1 024 channels
    /// with 8-, 16-, 24- or 32-bit integers or 32- or 64-bit floats, one frame per packet.
    init?(_ description: AudioStreamBasicDescription) {
        let flags = description.mFormatFlags
        guard description.mFormatID == kAudioFormatLinearPCM, description.mFramesPerPacket == 1 else { return nil }
        let channels = Int(description.mChannelsPerFrame)
        guard (1...1_024).contains(channels) else { return nil }
        let isFloat = flags & kAudioFormatFlagIsFloat != 0
        let bits = Int(description.mBitsPerChannel)
        guard isFloat ? (bits == 32 || bits == 64) : [8, 16, 24, 32].contains(bits) else { return nil }
        let interleaved = flags & kAudioFormatFlagIsNonInterleaved == 0
        let frameBytes = bits / 8 * (interleaved ? channels : 1)
        guard Int(description.mBytesPerFrame) == frameBytes, Int(description.mBytesPerPacket) == frameBytes else { return nil }
        let rate = description.mSampleRate
        guard rate.isFinite, rate > 0, rate <= 1e7 else { return nil }
        self.channels = channels
        self.interleaved = interleaved
        bytes = bits / 8
        self.isFloat = isFloat
        bigEndian = flags & kAudioFormatFlagIsBigEndian != 0
        offsetBinary = !isFloat && bits == 8 && flags & kAudioFormatFlagIsSignedInteger == 0
    }

    /// Buffers a list of this layout has: one, or one per channel.
    var bufferCount: Int { interleaved ? 1 : channels }
    /// Bytes one buffer holds per frame.
    var bufferStride: Int { bytes * (interleaved ? channels : 1) }

    /// True when `list` has the buffers for `frames` frames: enough of them, each with data and bytes.
    func fits(_ list: UnsafeMutableAudioBufferListPointer, frames: Int) -> Bool {
        guard list.count >= bufferCount else { return false }
        return (0..<bufferCount).allSatisfy { list[$0].mData != nil && Int(list[$0].mDataByteSize) >= frames * bufferStride }
    }

    private func address(_ list: UnsafeMutableAudioBufferListPointer, frame: Int, channel: Int) -> UnsafeMutableRawPointer {
        interleaved ? list[0].mData! + (frame * channels + channel) * bytes : list[channel].mData! + frame * bytes
    }

    /// The sample of `channel` in `frame` (the list must fit), as a float of full scale ±1 (NaN read as 0).
    func read(_ list: UnsafeMutableAudioBufferListPointer, frame: Int, channel: Int) -> Float {
        let at = address(list, frame: frame, channel: channel).assumingMemoryBound(to: UInt8.self)
        var bits: UInt64 = 0
        for byte in 0..<bytes { bits = bits << 8 | UInt64(at[bigEndian ? byte : bytes - 1 - byte]) }
        if isFloat {
            let value = bytes == 4 ? Float(bitPattern: UInt32(truncatingIfNeeded: bits)) : Float(Double(bitPattern: bits))
            return value.isNaN ? 0 : value
        }
        if offsetBinary { return (Float(bits) - 128) / 128 }
        let unused = UInt64(64 - 8 * bytes)
        let signed = Int64(bitPattern: bits << unused) >> Int64(unused)
        return Float(Double(signed) / Double(Int64(1) << (8 * bytes - 1)))
    }

    /// Writes `value` (full scale ±1) as the sample of `channel` in `frame`: integers rounded to the nearest
    /// and clipped, NaN as 0.
    func write(_ value: Float, _ list: UnsafeMutableAudioBufferListPointer, frame: Int, channel: Int) {
        let at = address(list, frame: frame, channel: channel).assumingMemoryBound(to: UInt8.self)
        let sample = value.isNaN ? 0 : value
        var bits: UInt64
        if isFloat {
            bits = bytes == 4 ? UInt64(sample.bitPattern) : Double(sample).bitPattern
        } else if offsetBinary {
            bits = UInt64(max(0, min(255, (Double(sample) * 128 + 128).rounded())))
        } else {
            let scale = Double(Int64(1) << (8 * bytes - 1))
            let clipped = max(-scale, min(scale - 1, (Double(sample) * scale).rounded()))
            bits = UInt64(bitPattern: Int64(clipped))
        }
        for byte in 0..<bytes {
            at[bigEndian ? bytes - 1 - byte : byte] = UInt8(truncatingIfNeeded: bits)
            bits >>= 8
        }
    }
}

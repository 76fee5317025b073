// Which linear PCM an AudioStreamBasicDescription describes, checked, and the conversions between it and
// RecorderKit's big-endian formats (capture) and signed 16-bit big-endian (playback).
import RecorderKit

/// Interleaved, packed linear PCM: signed 16-, 24- or 32-bit integers or 32-bit floats, either byte order.
struct PCMLayout: Sendable, Equatable {
    let sampleRate: Int
    let channelCount: Int
    let sampleFormat: SampleFormat
    let bigEndian: Bool

    var bytesPerSample: Int { sampleFormat.bytesPerSample }
    var bytesPerFrame: Int { channelCount * bytesPerSample }

    /// The layout `description` asks for, or the status that refuses it: `kAudioFormatUnsupportedDataFormatError`
    /// for anything but interleaved packed linear PCM of those sample types at a whole rate PulseAudio
    /// takes (1…384 000 Hz) and 1…32 channels.
    static func checking(_ description: AudioStreamBasicDescription) -> Result<PCMLayout, PCMRefusal> {
        let flags = description.mFormatFlags
        guard description.mFormatID == kAudioFormatLinearPCM else { return .failure(.notLinearPCM) }
        guard flags & kAudioFormatFlagIsNonInterleaved == 0 else { return .failure(.nonInterleaved) }
        let rate = description.mSampleRate
        guard rate.isFinite, rate >= 1, rate <= Double(StreamFormat.maxSampleRate), rate == rate.rounded() else {
            return .failure(.sampleRate)
        }
        let channels = Int(description.mChannelsPerFrame)
        guard (1...StreamFormat.maxChannels).contains(channels) else { return .failure(.channels) }
        let isFloat = flags & kAudioFormatFlagIsFloat != 0
        let format: SampleFormat
        switch (isFloat, description.mBitsPerChannel) {
        case (true, 32): format = .float32
        case (false, 16) where flags & kAudioFormatFlagIsSignedInteger != 0: format = .int16
        case (false, 24) where flags & kAudioFormatFlagIsSignedInteger != 0: format = .int24
        case (false, 32) where flags & kAudioFormatFlagIsSignedInteger != 0: format = .int32
        default: return .failure(.sampleType)
        }
        let frameBytes = UInt32(channels * format.bytesPerSample)
        guard description.mFramesPerPacket == 1, description.mBytesPerFrame == frameBytes,
              description.mBytesPerPacket == frameBytes else { return .failure(.packing) }
        return .success(PCMLayout(sampleRate: Int(rate), channelCount: channels, sampleFormat: format,
                                  bigEndian: flags & kAudioFormatFlagIsBigEndian != 0))
    }

    /// RecorderKit's capture format of the same rate, channels and sample type (it captures big-endian).
    var streamFormat: StreamFormat? { try? StreamFormat(sampleRate: sampleRate, channelCount: channelCount, sampleFormat: sampleFormat) }

    /// Copies `frames` frames of big-endian samples of this layout's type to `destination` in this
    /// layout's byte order.
    func copyFromBigEndian(_ source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, frames: Int) {
        let bytes = frames * bytesPerFrame
        guard !bigEndian else {
            destination.copyMemory(from: source, byteCount: bytes)
            return
        }
        let width = bytesPerSample
        let from = source.assumingMemoryBound(to: UInt8.self)
        let to = destination.assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset < bytes {
            for byte in 0..<width { to[offset + byte] = from[offset + width - 1 - byte] }
            offset += width
        }
    }

    /// The bits of the sample at `index` (counted in samples) of `source`: 16- and 24-bit integers
    /// sign-extended, 32-bit integers and floats as they are.
    func integerSample(_ source: UnsafeRawPointer, at index: Int) -> Int32 {
        let bytes = source.assumingMemoryBound(to: UInt8.self) + index * bytesPerSample
        var bits: UInt32 = 0
        for byte in 0..<bytesPerSample {
            bits = bits << 8 | UInt32(bytes[bigEndian ? byte : bytesPerSample - 1 - byte])
        }
        let unused = UInt32(32 - 8 * bytesPerSample)
        return Int32(bitPattern: bits << unused) >> Int32(unused)
    }

    /// The sample at `index` (counted in samples) of `source`, as a signed 16-bit value: integers rounded
    /// to the nearest (halves up) and clipped, floats scaled by 32 768, rounded and clipped (NaN: 0).
    func int16Sample(_ source: UnsafeRawPointer, at index: Int) -> Int16 {
        let value = integerSample(source, at: index)
        switch sampleFormat {
        case .int16:
            return Int16(truncatingIfNeeded: value)
        case .int24:
            return Self.clipped((Int64(value) + 128) >> 8)
        case .int32:
            return Self.clipped((Int64(value) + 32_768) >> 16)
        case .float32:
            let sample = Float(bitPattern: UInt32(bitPattern: value))
            guard !sample.isNaN else { return 0 }
            return Self.clipped(Int64(max(-40_000, min(40_000, sample * 32_768)).rounded()))
        }
    }

    private static func clipped(_ value: Int64) -> Int16 { Int16(max(-32_768, min(32_767, value))) }
}

/// Why a format was refused (each is `kAudioFormatUnsupportedDataFormatError` to the caller).
enum PCMRefusal: Error, Equatable {
    case notLinearPCM, nonInterleaved, sampleRate, channels, sampleType, packing
}

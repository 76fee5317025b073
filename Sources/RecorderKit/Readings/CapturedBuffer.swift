// One filled capture buffer, as an input handler sees it.

/// One filled capture buffer, as an AudioQueue input callback sees it.
///
/// `bytes` (interleaved big-endian PCM of `format.sampleFormat`: signed 16-bit by default) is valid only
/// during the handler call; copy what you keep. The buffer returns to the free set when the handler returns.
public struct CapturedBuffer {
    /// Position of the first frame since the recorder started (AudioTimeStamp's mSampleTime).
    public let startFrame: Int64
    /// Frames in the buffer.
    public let frameCount: Int
    /// The recorder's format.
    public let format: StreamFormat
    /// Interleaved big-endian PCM of `format.sampleFormat`; valid only during the handler call.
    public let bytes: UnsafeRawBufferPointer

    /// The sample of `channel` in frame `frame`, as a host-order integer; nil outside the buffer, and for
    /// a format other than 16-bit (use `copyFloatSamples`).
    public func sample(frame: Int, channel: Int) -> Int16? {
        guard format.sampleFormat == .int16, (0..<frameCount).contains(frame),
              (0..<format.channelCount).contains(channel) else { return nil }
        let offset = (frame * format.channelCount + channel) * 2
        guard offset + 1 < bytes.count else { return nil }
        return bytes.baseAddress!.bigEndianInt16(at: offset)
    }

    /// Writes channel `channel`'s samples as floats, full scale ±1.0 (sample / 32 768 for 16 bits; a
    /// float format's NaN and infinities read 0), into
    /// `destination`, without allocating; returns how many (at most the buffer's frames, at most the
    /// destination's count; 0 for a channel the buffer lacks).
    @discardableResult
    public func copyFloatSamples(channel: Int, into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        guard (0..<format.channelCount).contains(channel) else { return 0 }
        let channels = format.channelCount
        let sampleFormat = format.sampleFormat
        let count = min(frameCount, destination.count, bytes.count / (sampleFormat.bytesPerSample * channels))
        for frame in 0..<count {
            destination[frame] = Float(sampleFormat.value(bytes, frame * channels + channel))
        }
        return count
    }

    /// Channel `channel`'s samples as floats, full scale ±1.0; nil for a channel the buffer lacks.
    public func floatSamples(channel: Int) -> [Float]? {
        guard (0..<format.channelCount).contains(channel) else { return nil }
        return [Float](unsafeUninitializedCapacity: frameCount) { storage, initialized in
            initialized = copyFloatSamples(channel: channel, into: storage)
        }
    }

    /// Every channel's samples as floats, deinterleaved: the shape of AVAudioEngine's tap
    /// (`installTap(onBus:bufferSize:format:block:)`, `AVAudioPCMBuffer.floatChannelData`). Allocates.
    public var floatChannelData: [[Float]] {
        (0..<format.channelCount).map { floatSamples(channel: $0) ?? [] }
    }
}

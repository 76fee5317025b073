// The buffer an output callback fills, as an AudioQueue output callback sees it.

/// One buffer for an output callback to fill, as an AudioQueue output callback sees it.
///
/// `bytes` (interleaved signed 16-bit big-endian PCM, zeroed) is valid only during the call.
public struct OutputBuffer {
    /// Frames the callback produced before this buffer.
    public let startFrame: Int64
    /// Frames the buffer holds.
    public let frameCapacity: Int
    /// Frames filled; set it below `frameCapacity` to make this the last buffer.
    public var frameCount: Int
    /// The player's format.
    public let format: StreamFormat
    /// Interleaved signed 16-bit big-endian PCM, zeroed; valid only during the call.
    public let bytes: UnsafeMutableRawBufferPointer

    init(startFrame: Int64, frameCapacity: Int, format: StreamFormat, bytes: UnsafeMutableRawBufferPointer) {
        self.startFrame = startFrame
        self.frameCapacity = frameCapacity
        frameCount = frameCapacity
        self.format = format
        self.bytes = bytes
    }

    /// Sets the sample of `channel` in `frame`; ignored outside the buffer.
    public func setSample(_ value: Int16, frame: Int, channel: Int) {
        guard (0..<frameCapacity).contains(frame), (0..<format.channelCount).contains(channel) else { return }
        let offset = (frame * format.channelCount + channel) * 2
        let bits = UInt16(bitPattern: value)
        bytes[offset] = UInt8(bits >> 8)
        bytes[offset + 1] = UInt8(bits & 0xFF)
    }

    /// Sets the sample from a float, full scale ±1.0: rounded, clipped, NaN as 0.
    public func setSample(_ value: Float, frame: Int, channel: Int) {
        setSample(Int16(fullScale: value), frame: frame, channel: channel)
    }
}

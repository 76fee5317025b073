// Seconds told from frames: the recording values that count in frames at the recording's rate.

/// A place in a recording, counted in frames from its first frame.
public protocol FramePlaced {
    /// Frames from the recording's first frame to this place.
    var startFrame: Int64 { get }
    /// The recording's frames per second.
    var sampleRate: Int { get }
}

extension FramePlaced {
    /// `startFrame` in seconds.
    public var start: Double { Double(startFrame) / Double(sampleRate) }
}

/// A stretch of a recording whose length is counted in frames.
public protocol FrameCounted {
    /// Frames in the stretch.
    var frameCount: Int64 { get }
    /// The recording's frames per second.
    var sampleRate: Int { get }
}

extension FrameCounted {
    /// The length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}

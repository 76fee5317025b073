// What a server says of its capture sources and playback sinks.
import CPulse

/// A capture source or a playback sink as the server describes it (`Recorder.sources()`,
/// `Player.sinks()`).
public struct DeviceInfo: Hashable, Sendable {
    /// The server's index for the device (a stream may name it by this number too).
    public let index: Int
    /// The name streams and `--source`/`--device` use.
    public let name: String
    /// The server's description, for people.
    public let description: String
    /// The device's own sample format as PulseAudio names it (e.g. "s16le", "float32le").
    public let sampleFormat: String
    /// Its own rate (the server converts to the stream's).
    public let sampleRate: Int
    /// Its own channel count.
    public let channelCount: Int
    /// True for a sink's monitor (a source: what is being played to that sink); false for a sink.
    public let isMonitor: Bool
    /// True for the server's default source (or sink).
    public let isDefault: Bool
    /// The device's volume as its volume control shows it, the channels' average: 1 is the server's 100 %,
    /// 0.5 its 50 % (a cubic scale: −18 dB), above 1 amplification.
    public let volume: Float
    /// Whether the server has muted the device.
    public let isMuted: Bool

    /// An entry of a server's list, as libpulse gives it.
    init(index: UInt32, name: UnsafePointer<CChar>?, description: UnsafePointer<CChar>?, spec: pa_sample_spec,
         volume: pa_cvolume, muted: Int32, isMonitor: Bool, defaultName: String?) {
        self.index = Int(index)
        self.name = name.map { String(cString: $0) } ?? ""
        self.description = description.map { String(cString: $0) } ?? ""
        sampleFormat = String(cString: pa_sample_format_to_string(spec.format))
        sampleRate = Int(spec.rate)
        channelCount = Int(spec.channels)
        self.isMonitor = isMonitor
        isDefault = self.name == defaultName
        var volume = volume
        self.volume = Float(pa_cvolume_avg(&volume)) / 65_536  // PA_VOLUME_NORM, a cast macro Swift does not import
        isMuted = muted != 0
    }
}

/// A capture source (monitors included).
public typealias SourceInfo = DeviceInfo

/// A playback sink (`isMonitor` is false).
public typealias SinkInfo = DeviceInfo

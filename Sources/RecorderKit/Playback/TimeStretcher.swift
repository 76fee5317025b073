// Playback's tempo and pitch: interleaved float frames through SoundTouch, and where in the source the
// frames that come out stand.
import CSoundTouch
import Glibc

/// Changes the speed of a stream without its pitch (`rate`), its pitch without its speed (`pitch`,
/// cents), or both, through SoundTouch's time-domain stretcher (WSOLA) and resampler. Frames go in with
/// `put`, come out with `receive`; the stretcher holds some (its window) between the two.
///
/// `sourcePosition` is the source frame the next frame out stands for: it advances by `rate` for each
/// frame taken out, so over a stretch of constant rate it is exact, and within the stretcher's window
/// of what is heard at any moment. Not thread-safe: one thread at a time (the player's worker owns the
/// player's); a playback graph's effects use it the same way.
public final class TimeStretcher {
    /// Channels SoundTouch can process.
    public static let channelCounts = 1...16
    /// `rate`'s range: AVAudioUnitTimePitch's (1/32 to 32).
    public static let rates: ClosedRange<Double> = (1.0 / 32)...32
    /// `pitch`'s range in cents: AVAudioUnitTimePitch's (two octaves either way).
    public static let pitches: ClosedRange<Double> = -2_400...2_400

    /// Interleaved channels per frame.
    public let channelCount: Int
    private let handle: HANDLE
    /// Source frames per frame out (1 plays at the source's speed).
    public private(set) var rate = 1.0
    /// Cents above (below, negative) the source's pitch.
    public private(set) var pitch = 0.0
    /// The source frame the next frame out stands for (see the type's comment).
    public private(set) var sourcePosition = 0.0
    /// Frames still to come out for those put in (each put adds its frames over the rate then).
    private var owed = 0.0
    /// After `flush`: SoundTouch pads its last window with silence, which is not the source's.
    private var flushed = false

    /// A stretcher for `channelCount` channels at `sampleRate`; nil where SoundTouch cannot take them.
    public init?(channelCount: Int, sampleRate: Int) {
        guard Self.channelCounts.contains(channelCount), sampleRate > 0, let handle = soundtouch_createInstance() else {
            return nil
        }
        guard soundtouch_setChannels(handle, UInt32(channelCount)) != 0,
              soundtouch_setSampleRate(handle, UInt32(sampleRate)) != 0 else {
            soundtouch_destroyInstance(handle)
            return nil
        }
        self.handle = handle
        self.channelCount = channelCount
    }

    deinit { soundtouch_destroyInstance(handle) }

    /// Applies `rate` and `pitch` (clamped to `rates` and `pitches`) to the frames put in from now on;
    /// frames already in come out at the settings they went in with, so a change makes no click.
    public func set(rate: Double, pitch: Double) {
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        self.pitch = min(max(pitch, Self.pitches.lowerBound), Self.pitches.upperBound)
        soundtouch_setRate(handle, 1)
        soundtouch_setTempo(handle, Float(self.rate))
        soundtouch_setPitchSemiTones(handle, Float(self.pitch / 100))
    }

    /// Plays the frames put in from now on `rate` times as fast with the pitch following (a tape's
    /// varispeed: SoundTouch's resampler alone, no time-stretch), `rate` clamped to `rates`; `pitch` then
    /// reads the cents that makes. Resamples too: `rate` = the source's rate ÷ the rate played at.
    public func set(varispeed rate: Double) {
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        pitch = 1_200 * log2(self.rate)
        soundtouch_setTempo(handle, 1)
        soundtouch_setPitch(handle, 1)
        soundtouch_setRate(handle, Float(self.rate))
    }

    /// True when frames pass unchanged in speed and pitch.
    public var isNeutral: Bool { rate == 1 && pitch == 0 }

    /// Puts `frames` interleaved frames in.
    public func put(_ samples: UnsafePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        _ = soundtouch_putSamples(handle, samples, UInt32(frames))
        owed += Double(frames) / rate
    }

    /// Takes up to `maxFrames` frames out into `destination`; returns how many (0: it needs more in,
    /// or, after `flush`, everything owed has come out).
    public func receive(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        let limit = flushed ? min(maxFrames, Int(owed.rounded())) : maxFrames
        guard limit > 0 else { return 0 }
        let frames = Int(soundtouch_receiveSamples(handle, destination, UInt32(limit)))
        sourcePosition += Double(frames) * rate
        owed = max(0, owed - Double(frames))
        return frames
    }

    /// The source has ended: the frames still held come out (padded by SoundTouch to its window).
    public func flush() {
        guard !flushed else { return }
        flushed = true
        _ = soundtouch_flush(handle)
    }

    /// True once `flush` was called (until `clear`).
    public var isFlushed: Bool { flushed }

    /// Drops every frame held; the next frame out stands for source frame `position`.
    public func clear(at position: Int64) {
        soundtouch_clear(handle)
        sourcePosition = Double(position)
        owed = 0
        flushed = false
    }
}

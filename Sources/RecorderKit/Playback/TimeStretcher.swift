// Playback's tempo and pitch: interleaved float frames through SoundTouch, and where in the source the
// frames that come out stand.
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
    private let handle: UnsafeMutableRawPointer
    private let library: SoundTouch
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

    /// A stretcher for `channelCount` channels at `sampleRate`; nil where SoundTouch cannot take them (or
    /// cannot be loaded: it is loaded with the first stretcher, not at start).
    public init?(channelCount: Int, sampleRate: Int) {
        guard Self.channelCounts.contains(channelCount), sampleRate > 0, sampleRate <= Int(UInt32.max),
              let library = SoundTouch.loaded, let handle = library.createInstance() else {
            return nil
        }
        guard library.setChannels(handle, UInt32(channelCount)) != 0, library.setSampleRate(handle, UInt32(sampleRate)) != 0 else {
            library.destroyInstance(handle)
            return nil
        }
        self.handle = handle
        self.library = library
        self.channelCount = channelCount
    }

    deinit { library.destroyInstance(handle) }

    /// Applies `rate` and `pitch` (clamped to `rates` and `pitches`) to the frames put in from now on;
    /// frames already in come out at the settings they went in with, so a change makes no click.
    public func set(rate: Double, pitch: Double) {
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        self.pitch = min(max(pitch, Self.pitches.lowerBound), Self.pitches.upperBound)
        library.setRate(handle, 1)
        library.setTempo(handle, Float(self.rate))
        library.setPitchSemiTones(handle, Float(self.pitch / 100))
    }

    /// Plays the frames put in from now on `rate` times as fast with the pitch following (a tape's
    /// varispeed: SoundTouch's resampler alone, no time-stretch), `rate` clamped to `rates`; `pitch` then
    /// reads the cents that makes. Resamples too: `rate` = the source's rate ÷ the rate played at.
    public func set(varispeed rate: Double) {
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        pitch = 1_200 * log2(self.rate)
        library.setTempo(handle, 1)
        library.setPitch(handle, 1)
        library.setRate(handle, Float(self.rate))
    }

    /// True when frames pass unchanged in speed and pitch.
    public var isNeutral: Bool { rate == 1 && pitch == 0 }

    /// Puts `frames` interleaved frames in.
    public func put(_ samples: UnsafePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        _ = library.putSamples(handle, samples, UInt32(frames))
        owed += Double(frames) / rate
    }

    /// Takes up to `maxFrames` frames out into `destination`; returns how many (0: it needs more in,
    /// or, after `flush`, everything owed has come out).
    public func receive(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        let limit = flushed ? min(maxFrames, Int(owed.rounded())) : maxFrames
        guard limit > 0 else { return 0 }
        let frames = Int(library.receiveSamples(handle, destination, UInt32(limit)))
        sourcePosition += Double(frames) * rate
        owed = max(0, owed - Double(frames))
        return frames
    }

    /// The source has ended: the frames still held come out (padded by SoundTouch to its window).
    public func flush() {
        guard !flushed else { return }
        flushed = true
        _ = library.flush(handle)
    }

    /// True once `flush` was called (until `clear`).
    public var isFlushed: Bool { flushed }

    /// Drops every frame held; the next frame out stands for source frame `position`.
    public func clear(at position: Int64) {
        library.clear(handle)
        sourcePosition = Double(position)
        owed = 0
        flushed = false
    }
}

/// SoundTouch's C interface (libSoundTouchDll), looked up when the first stretcher is made: a plain take
/// never maps it.
private struct SoundTouch: @unchecked Sendable {
    // @unchecked Sendable: C function pointers, set once and never changed; each call is made on a
    // handle one thread owns.
    typealias Handle = UnsafeMutableRawPointer
    let createInstance: @convention(c) () -> Handle?
    let destroyInstance: @convention(c) (Handle?) -> Void
    let setRate: @convention(c) (Handle?, Float) -> Void
    let setTempo: @convention(c) (Handle?, Float) -> Void
    let setPitch: @convention(c) (Handle?, Float) -> Void
    let setPitchSemiTones: @convention(c) (Handle?, Float) -> Void
    let setChannels: @convention(c) (Handle?, UInt32) -> Int32
    let setSampleRate: @convention(c) (Handle?, UInt32) -> Int32
    let flush: @convention(c) (Handle?) -> Int32
    let putSamples: @convention(c) (Handle?, UnsafePointer<Float>?, UInt32) -> Int32
    let receiveSamples: @convention(c) (Handle?, UnsafeMutablePointer<Float>?, UInt32) -> UInt32
    let clear: @convention(c) (Handle?) -> Void

    /// The functions, or nil when the library cannot be loaded (loaded once, on first use).
    static let loaded: SoundTouch? = try? SoundTouch(LazyLibrary.soundTouch)

    private init(_ library: LazyLibrary) throws(RecorderError) {
        createInstance = try library.function("soundtouch_createInstance", as: (@convention(c) () -> Handle?).self)
        destroyInstance = try library.function("soundtouch_destroyInstance", as: (@convention(c) (Handle?) -> Void).self)
        setRate = try library.function("soundtouch_setRate", as: (@convention(c) (Handle?, Float) -> Void).self)
        setTempo = try library.function("soundtouch_setTempo", as: (@convention(c) (Handle?, Float) -> Void).self)
        setPitch = try library.function("soundtouch_setPitch", as: (@convention(c) (Handle?, Float) -> Void).self)
        setPitchSemiTones = try library.function("soundtouch_setPitchSemiTones", as: (@convention(c) (Handle?, Float) -> Void).self)
        setChannels = try library.function("soundtouch_setChannels", as: (@convention(c) (Handle?, UInt32) -> Int32).self)
        setSampleRate = try library.function("soundtouch_setSampleRate", as: (@convention(c) (Handle?, UInt32) -> Int32).self)
        flush = try library.function("soundtouch_flush", as: (@convention(c) (Handle?) -> Int32).self)
        putSamples = try library.function("soundtouch_putSamples", as: (@convention(c) (Handle?, UnsafePointer<Float>?, UInt32) -> Int32).self)
        receiveSamples = try library.function("soundtouch_receiveSamples",
                                              as: (@convention(c) (Handle?, UnsafeMutablePointer<Float>?, UInt32) -> UInt32).self)
        clear = try library.function("soundtouch_clear", as: (@convention(c) (Handle?) -> Void).self)
    }
}


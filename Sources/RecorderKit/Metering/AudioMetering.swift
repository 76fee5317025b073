// The metering a recorder and a player share: AVAudioRecorder's and AVAudioPlayer's `updateMeters()` model,
// and the level and standard-meter streams.
import Locking

/// The meters of a `Recorder` or a `Player`: what `AudioMetering`'s calls read. Opaque.
public final class Metering: Sendable {
    let readout: Readout
    private let snapshot = Locked(Snapshot())

    private struct Snapshot {
        var enabled = false
        var levels: [LevelMeterState] = []
    }

    init(readout: Readout) { self.readout = readout }

    /// The level of `channel` as of the last `updateMeters()`; nil while disabled or for a channel that
    /// does not exist.
    fileprivate func level(_ channel: Int) -> LevelMeterState? {
        snapshot.withLock { $0.enabled && $0.levels.indices.contains(channel) ? $0.levels[channel] : nil }
    }

    fileprivate var isEnabled: Bool {
        get { snapshot.withLock { $0.enabled } }
        set { snapshot.withLock { $0.enabled = newValue } }
    }

    fileprivate func update() {
        let current = readout.currentLevels.withLock { $0 }
        snapshot.withLock { if $0.enabled { $0.levels = current } }
    }
}

/// What a `Recorder` measures of each buffer captured, and a `Player` of each buffer as it begins to be
/// heard, read the same way: AVAudioRecorder's and AVAudioPlayer's metering (off until enabled, a
/// snapshot per `updateMeters()`), and streams of readings. Every call, any thread.
public protocol AudioMetering: AnyObject, Sendable {
    /// The meters behind the calls.
    var metering: Metering { get }
}

extension AudioMetering {
    /// Whether `updateMeters()` takes readings (`isMeteringEnabled`); off by default, when
    /// `peakPower(forChannel:)` and `averagePower(forChannel:)` read −160. (The level streams, the
    /// standard meters and a recorder's `getPeakPower()` always run.)
    public var isMeteringEnabled: Bool {
        get { metering.isEnabled }
        set { metering.isEnabled = newValue }
    }

    /// Takes the levels of the latest buffer measured (a recorder's last captured, a player's being
    /// heard), for `peakPower(forChannel:)` and `averagePower(forChannel:)` to return until the next call.
    public func updateMeters() { metering.update() }

    /// Sample peak of `channel` (from 0) as of `updateMeters()`, in dBFS: 0 full scale, −160 silence,
    /// a channel that does not exist, or metering not enabled.
    public func peakPower(forChannel channel: Int) -> Float { metering.level(channel)?.peakPower ?? LevelMeterState.silence }

    /// RMS of `channel` as of `updateMeters()`, in dBFS (a full-scale sine reads −3.01); −160 as for
    /// `peakPower(forChannel:)`.
    public func averagePower(forChannel channel: Int) -> Float {
        metering.level(channel)?.averagePower ?? LevelMeterState.silence
    }

    /// A stream of readings, one per buffer (a recorder's as it is captured, a player's as it begins to
    /// be heard), from now until the recorder stops or the player closes. Each call makes a new,
    /// independent stream; none drops a reading.
    public func levelReadings() -> AsyncStream<LevelReading> { metering.readout.levelReadings() }

    /// A stream of `kind` meter readings, one per buffer as `levelReadings()`: each call makes a new
    /// meter, fed with every buffer from now on (a loudness meter's integrated value covers what it was
    /// fed). The meters are defined in `StandardMeter`.
    /// - Throws: `.invalidFormat` for options out of range.
    public func meterReadings(_ kind: MeterKind, options: MeterOptions = MeterOptions()) throws(RecorderError)
        -> AsyncStream<MeterReading> {
        try metering.readout.meterReadings(kind, options: options)
    }
}

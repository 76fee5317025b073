// The readings side of metering: each buffer measured (the core level meter, the latest levels) and
// published to the level readings and the standard meters' streams.
import Locking

/// Meters a stream of buffers the way a `Recorder` and a `Player` do: `measure` each buffer, then
/// `publish` it, and any number of `levelReadings()` and `meterReadings(_:)` streams get their readings.
/// A recorder's worker feeds one with every buffer captured, a player's with each buffer as it is
/// heard; an embedder may feed one with audio from elsewhere (the long-run check feeds a day of audio
/// through one at full speed, with every meter on, without a server).
///
/// Threads: `measure` and `publish` from one thread at a time; the streams and `finish`, any thread.
public final class Readout: Sendable {
    let format: StreamFormat
    let levels = Broadcaster<LevelReading>()
    let meters = MeterFeeds()
    /// The latest buffer's meter state per channel.
    let currentLevels: Locked<[LevelMeterState]>

    /// A readout for buffers of `format`.
    public init(format: StreamFormat) {
        self.format = format
        currentLevels = Locked(Self.silentLevels(format))
    }

    /// One silent state per channel: what the scratch of `measure` starts as.
    public static func silentLevels(_ format: StreamFormat) -> [LevelMeterState] {
        [LevelMeterState](repeating: LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence),
                          count: format.channelCount)
    }

    /// A new level-readings stream (`Recorder.levelReadings()`). Any thread.
    public func levelReadings() -> AsyncStream<LevelReading> { levels.makeStream() }

    /// A new standard-meter stream (`Recorder.meterReadings(_:options:)`). Any thread.
    public func meterReadings(_ kind: MeterKind, options: MeterOptions = MeterOptions()) throws(RecorderError)
        -> AsyncStream<MeterReading> {
        try meters.makeStream(kind: kind, format: format, options: options)
    }

    /// Measures a buffer (interleaved, big-endian, of `format`) into `scratch`, one state per channel,
    /// and makes it the latest. The delivery thread, before the buffer is written.
    public func measure(_ bytes: UnsafeRawBufferPointer, into scratch: inout [LevelMeterState]) {
        scratch.withUnsafeMutableBufferPointer { LevelMeter.measure(bytes, sampleFormat: format.sampleFormat, into: $0) }
        makeLatest(scratch)
    }

    /// `measure(_:into:)` that also leaves the buffer's sums in `sums` (one per channel), for the take's
    /// totals: one pass over the samples serves both. The delivery thread.
    func measure(_ bytes: UnsafeRawBufferPointer, into scratch: inout [LevelMeterState], sums: inout [ChannelSums]) {
        let frames = sums.withUnsafeMutableBufferPointer { LevelMeter.sum(bytes, sampleFormat: format.sampleFormat, into: $0) }
        for channel in scratch.indices where channel < sums.count { scratch[channel] = sums[channel].level(frames: frames) }
        makeLatest(scratch)
    }

    /// Back to silence: nothing measured is being heard (a player's stream that closed or has not yet
    /// played a buffer), so the meters read −160 until the next buffer is published.
    func silence() {
        currentLevels.withLock { levels in
            for channel in levels.indices { levels[channel] = LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence) }
        }
    }

    private func makeLatest(_ scratch: [LevelMeterState]) {
        currentLevels.withLock { levels in
            for channel in levels.indices where channel < scratch.count { levels[channel] = scratch[channel] }
        }
    }

    /// Publishes a measured buffer ending at `endFrame`: its level reading, and the buffer to every
    /// standard meter, whose readings follow. The delivery thread, after the buffer is written.
    public func publish(_ bytes: UnsafeRawBufferPointer, endFrame: Int64, frameCount: Int, measured: [LevelMeterState]) {
        publish(bytes, endFrame: endFrame, frameCount: frameCount, measured: measured, recording: nil)
    }

    /// `publish` of a recorder's buffer, with its place in the recording (nil when not recording).
    func publish(_ bytes: UnsafeRawBufferPointer, endFrame: Int64, frameCount: Int, measured: [LevelMeterState],
                 recording: RecordingPlace?) {
        let time = Double(endFrame) / Double(format.sampleRate)
        levels.yield(LevelReading(endFrame: endFrame, frameCount: frameCount, sampleRate: format.sampleRate,
                                  channels: measured, recording: recording))
        meters.deliver(bytes, sampleFormat: format.sampleFormat, endFrame: endFrame, frameCount: frameCount, time: time,
                       levels: measured, recording: recording)
    }

    /// Ends every stream.
    public func finish() {
        levels.finish()
        meters.finish()
    }
}

// What every captured buffer feeds besides the file: the core level meter, the latest levels, the level
// readings and the standard meters' streams.

/// The readings side of delivery, one per recorder: fed by its delivery thread with every buffer, read
/// by `Recorder`'s level calls and streams.
///
/// SPI (`@_spi(LongRun)`) only for the long-run check (`Tests/LongRun`), which feeds a day of audio
/// through it at full speed, with every meter on, without a server.
@_spi(LongRun) public final class Readout: Sendable {
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

    private func makeLatest(_ scratch: [LevelMeterState]) {
        currentLevels.withLock { levels in
            for channel in levels.indices where channel < scratch.count { levels[channel] = scratch[channel] }
        }
    }

    /// Publishes a measured buffer ending at `endFrame`: its level reading, and the buffer to every
    /// standard meter, whose readings follow. The delivery thread, after the buffer is written.
    public func publish(_ bytes: UnsafeRawBufferPointer, endFrame: Int64, frameCount: Int, measured: [LevelMeterState],
                        recordingPosition: Int64? = nil) {
        let time = Double(endFrame) / Double(format.sampleRate)
        levels.yield(LevelReading(endFrame: endFrame, frameCount: frameCount, sampleRate: format.sampleRate,
                                  channels: measured, recordingPosition: recordingPosition))
        meters.deliver(bytes, sampleFormat: format.sampleFormat, endFrame: endFrame, frameCount: frameCount, time: time,
                       levels: measured)
    }

    /// Ends every stream.
    public func finish() {
        levels.finish()
        meters.finish()
    }
}

/// AVAudioRecorder's and AVAudioPlayer's metering model, shared by `Recorder` and `Player`: off until
/// enabled; `update(from:)` (their `updateMeters()`) copies the latest buffer's levels, and the power
/// calls read that copy, −160 while disabled or for a channel that does not exist.
final class MeteringSnapshot: Sendable {
    private struct State {
        var enabled = false
        var levels: [LevelMeterState] = []
    }
    private let state = Locked(State())

    var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    func update(from readout: Readout) {
        let current = readout.currentLevels.withLock { $0 }
        state.withLock { if $0.enabled { $0.levels = current } }
    }

    func peakPower(_ channel: Int) -> Float { level(channel)?.peakPower ?? LevelMeterState.silence }

    func averagePower(_ channel: Int) -> Float { level(channel)?.averagePower ?? LevelMeterState.silence }

    private func level(_ channel: Int) -> LevelMeterState? {
        state.withLock { $0.enabled && $0.levels.indices.contains(channel) ? $0.levels[channel] : nil }
    }
}

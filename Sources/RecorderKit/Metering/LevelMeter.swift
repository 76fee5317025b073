// Per-buffer sample peak and RMS of big-endian PCM (16-bit by default), in dBFS: the AudioQueue level-meter reading.
import Glibc

/// One channel's level for one completed buffer: the shape of `AudioQueueLevelMeterState`.
///
/// Both values are dBFS: `20·log10(x / full scale)`, full scale = 32 768, so 0 dBFS is a
/// full-scale sample and digital silence reads `LevelMeterState.silence` (−160 dB).
/// `peakPower` is the largest |sample|; `averagePower` is the RMS of the buffer's samples
/// (plain convention: a full-scale sine reads −3.01 dBFS, as `sox … stats` reports "RMS lev dB").
public struct LevelMeterState: Hashable, Sendable {
    /// RMS of the samples, dBFS (−160 for silence).
    public var averagePower: Float
    /// The largest |sample|, dBFS (−160 for silence).
    public var peakPower: Float

    /// The floor: what digital silence reads, as AVAudioRecorder documents.
    public static let silence: Float = -160

    /// A state with these levels (dBFS).
    public init(averagePower: Float, peakPower: Float) {
        self.averagePower = averagePower
        self.peakPower = peakPower
    }
}

/// One channel's sums over some samples, as fractions of full scale: what a buffer's level and a take's
/// totals are both made of, so one pass over a buffer serves both.
struct ChannelSums: Sendable {
    /// The largest magnitude.
    var peak = 0.0
    /// The sum of the squared samples.
    var sumOfSquares = 0.0
    /// Samples at full scale (see `LevelTotals`).
    var clipped: Int64 = 0

    /// The level of these sums over `frames` frames: RMS and peak in dBFS.
    func level(frames: Int) -> LevelMeterState {
        let rms = frames > 0 ? (sumOfSquares / Double(frames)).squareRoot() : 0
        return LevelMeterState(averagePower: LevelMeter.decibels(rms), peakPower: LevelMeter.decibels(peak))
    }
}

/// The meter arithmetic, kept apart from capture so it can be tested on its own.
public enum LevelMeter {
    /// Full scale for signed 16-bit samples.
    public static let fullScale = 32_768.0

    /// `20·log10(linear)`, clamped to the −160 dB floor (0 and tiny values read −160).
    public static func decibels(_ linear: Double) -> Float {
        guard linear > 0 else { return LevelMeterState.silence }
        return Float(max(Double(LevelMeterState.silence), 20 * log10(linear)))
    }

    /// Measures interleaved signed 16-bit big-endian samples, writing one state per channel into `states`.
    ///
    /// `states.count` is the channel count (none: nothing to do). Allocates nothing. A buffer with no
    /// frames reads silence; a partial last frame is left out.
    public static func measure(bigEndianS16 bytes: UnsafeRawBufferPointer,
                               into states: UnsafeMutableBufferPointer<LevelMeterState>) {
        measure(bytes, sampleFormat: .int16, into: states)
    }

    /// Measures interleaved big-endian samples of `sampleFormat` (what a `Recorder` of that format
    /// captures) into `states`, as `measure(bigEndianS16:into:)` does for 16-bit ones: full scale is the
    /// format's (±1.0 for floats, which may read above 0 dBFS; NaN and infinities read 0). Allocates nothing.
    public static func measure(_ bytes: UnsafeRawBufferPointer, sampleFormat: SampleFormat,
                               into states: UnsafeMutableBufferPointer<LevelMeterState>) {
        guard states.count > 0 else { return }
        withUnsafeTemporaryAllocation(of: ChannelSums.self, capacity: states.count) { sums in
            let frames = sum(bytes, sampleFormat: sampleFormat, into: sums)
            for channel in states.indices { states[channel] = sums[channel].level(frames: frames) }
        }
    }

    /// One pass over interleaved big-endian samples of `sampleFormat`: per channel (`sums.count` of
    /// them), the largest magnitude, the sum of squares (both as fractions of full scale) and the samples
    /// at full scale, written into `sums`. Returns the whole frames read. Allocates nothing.
    ///
    /// 16-bit samples are summed as integers (exact), then scaled by 2⁻³⁰: the same doubles a
    /// per-sample sum of fractions gives, since every term and partial sum is exact below 2⁵³.
    static func sum(_ bytes: UnsafeRawBufferPointer, sampleFormat: SampleFormat,
                    into sums: UnsafeMutableBufferPointer<ChannelSums>) -> Int {
        let channels = sums.count
        guard channels > 0, let base = bytes.baseAddress else {
            for channel in sums.indices { sums[channel] = ChannelSums() }
            return 0
        }
        let frames = bytes.count / (channels * sampleFormat.bytesPerSample)
        guard sampleFormat == .int16 else {
            let clipLevel = sampleFormat.clipLevel
            for channel in 0..<channels {
                var result = ChannelSums()
                var index = channel
                for _ in 0..<frames {
                    let value = sampleFormat.value(bytes, index)
                    let magnitude = abs(value)
                    if magnitude > result.peak { result.peak = magnitude }
                    if magnitude >= clipLevel { result.clipped += 1 }
                    result.sumOfSquares += value * value
                    index += channels
                }
                sums[channel] = result
            }
            return frames
        }
        let stride = channels * 2
        for channel in 0..<channels {
            var peak: Int32 = 0
            var sumOfSquares: Int64 = 0
            var clipped: Int64 = 0
            var offset = channel * 2
            for _ in 0..<frames {
                let sample = Int32(base.bigEndianInt16(at: offset))
                let magnitude = sample < 0 ? -sample : sample
                peak = max(peak, magnitude)
                clipped += magnitude >= 32_767 ? 1 : 0
                sumOfSquares += Int64(sample * sample)
                offset += stride
            }
            sums[channel] = ChannelSums(peak: Double(peak) / fullScale,
                                        sumOfSquares: Double(sumOfSquares) / (fullScale * fullScale),
                                        clipped: clipped)
        }
        return frames
    }

    /// Convenience for tests and offline use: one state per channel of the given bytes (none for a
    /// channel count under 1).
    public static func measure(bigEndianS16 bytes: [UInt8], channelCount: Int) -> [LevelMeterState] {
        guard channelCount > 0 else { return [] }
        var states = [LevelMeterState](repeating: LevelMeterState(averagePower: LevelMeterState.silence,
                                                                  peakPower: LevelMeterState.silence),
                                       count: channelCount)
        bytes.withUnsafeBytes { raw in
            states.withUnsafeMutableBufferPointer { measure(bigEndianS16: raw, into: $0) }
        }
        return states
    }
}

/// Running per-channel totals over many buffers: sample peak, RMS and clipped samples of a whole take.
///
/// A sample counts as clipped when it reaches full scale: the largest positive integer of its format
/// (|s| ≥ 32 767 for 16 bits; the negative maximum, −32 768, also counts), or ±1.0 for floats. Values
/// are kept as fractions of full scale (for 16 bits, exactly the integers scaled by 2⁻¹⁵). Arrays are
/// sized once; `add` allocates nothing.
public struct LevelTotals: Sendable, Hashable {
    /// Frames added so far.
    public private(set) var frames: Int64 = 0
    /// The format `add(_:)` reads.
    public let sampleFormat: SampleFormat
    private var peaks: [Double]
    private var sumsOfSquares: [Double]
    /// Per channel: samples at full scale so far.
    public private(set) var clippedSamples: [Int64]

    /// No channels (empty totals) for a count under 1.
    public init(channelCount: Int, sampleFormat: SampleFormat = .int16) {
        let count = max(0, channelCount)
        self.sampleFormat = sampleFormat
        peaks = [Double](repeating: 0, count: count)
        sumsOfSquares = [Double](repeating: 0, count: count)
        clippedSamples = [Int64](repeating: 0, count: count)
    }

    /// Adds interleaved signed 16-bit big-endian frames (for totals of the default 16-bit format).
    public mutating func add(bigEndianS16 bytes: UnsafeRawBufferPointer) {
        add(bytes, as: .int16)
    }

    /// Adds interleaved big-endian frames of `sampleFormat`.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        add(bytes, as: sampleFormat)
    }

    private mutating func add(_ bytes: UnsafeRawBufferPointer, as format: SampleFormat) {
        guard !peaks.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: ChannelSums.self, capacity: peaks.count) { sums in
            let frameCount = LevelMeter.sum(bytes, sampleFormat: format, into: sums)
            add(UnsafeBufferPointer(sums), frames: frameCount)
        }
    }

    /// Adds the sums of `frames` frames already measured (one per channel; `LevelMeter.sum`).
    mutating func add(_ sums: UnsafeBufferPointer<ChannelSums>, frames frameCount: Int) {
        guard sums.count == peaks.count else { return }
        for channel in peaks.indices {
            peaks[channel] = max(peaks[channel], sums[channel].peak)
            sumsOfSquares[channel] += sums[channel].sumOfSquares
            clippedSamples[channel] += sums[channel].clipped
        }
        frames += Int64(frameCount)
    }

    /// Per channel: peak and RMS over everything added, in dBFS (−160 when nothing or silence).
    public var levels: [LevelMeterState] {
        peaks.indices.map { channel in
            let rms = frames > 0 ? (sumsOfSquares[channel] / Double(frames)).squareRoot() : 0
            return LevelMeterState(averagePower: LevelMeter.decibels(rms), peakPower: LevelMeter.decibels(peaks[channel]))
        }
    }
}

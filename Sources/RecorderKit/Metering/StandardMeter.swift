// One standard meter over all channels of a stream (peak hold, VU, PPM or loudness), and its live feed
// from a Recorder's buffers.
import Glibc

/// The meters a `StandardMeter` can be.
public enum MeterKind: String, Sendable, Hashable, CaseIterable {
    /// Sample peak with hold and decay, and clip counting (`PeakHoldMeter`), dBFS.
    case peak
    /// VU, IEC 60268-17 (`VUMeter`), in VU.
    case vu
    /// Quasi-peak programme meter, IEC 60268-10 type I (DIN) or type II (BBC/EBU) (`PPMMeter`), in dB
    /// relative to the steady reading of a full-scale sine.
    case ppm1, ppm2
    /// EBU R128 loudness and true peak (`LoudnessMeter`).
    case loudness
}

/// Settings of the meters; the defaults are the standards' (and the issue's) values.
public struct MeterOptions: Sendable, Hashable {
    /// Peak hold time, seconds, and the fall after it, dB per second.
    public var peakHold: Double = 1.5
    /// The peak meter's fall after the hold, dB per second.
    public var peakDecay: Double = 20
    /// Consecutive full-scale samples that make one clip event.
    public var clipRun: Int = 1
    /// The dBFS level of a sine that reads 0 VU.
    public var vuReference: Double = -18

    /// The standards' values by default; `validate()` checks them.
    public init(peakHold: Double = 1.5, peakDecay: Double = 20, clipRun: Int = 1, vuReference: Double = -18) {
        self.peakHold = peakHold
        self.peakDecay = peakDecay
        self.clipRun = clipRun
        self.vuReference = vuReference
    }

    /// Checks every value, whichever meter will use it.
    /// - Throws: `.invalidFormat` naming the first bad value and its range (see `MeterLimits`).
    public func validate() throws(RecorderError) {
        try MeterLimits.checkPeakHold(peakHold, decay: peakDecay, clipRun: clipRun)
        try MeterLimits.checkVUReference(vuReference)
    }
}

/// The programme loudness at one moment (EBU R128), LUFS and LU; nil while undefined (silence, or less
/// than a window of audio).
public struct LoudnessReading: Sendable, Hashable {
    /// Momentary loudness (400 ms window), LUFS.
    public let momentary: Double?
    /// Short-term loudness (3 s window), LUFS.
    public let shortTerm: Double?
    /// Integrated (gated) loudness since the meter started, LUFS.
    public let integrated: Double?
    /// Loudness range since the meter started, LU.
    public let loudnessRange: Double?
}

/// A standard meter's state after one buffer: what `Recorder.meterReadings(_:)` yields.
public struct MeterReading: Sendable, Hashable {
    /// Which meter this is.
    public let kind: MeterKind
    /// Frames captured since the recorder started, through this buffer's last frame.
    public let endFrame: Int64
    /// Frames in this buffer.
    public let frameCount: Int
    /// Seconds of audio since the recorder started, at this buffer's end.
    public let time: Double
    /// The core meter of the same buffer (what `LevelReading` carries).
    public let levels: [LevelMeterState]
    /// Per channel, the meter's reading in its unit, −160 at rest (silence): `peak` the held sample peak (dBFS),
    /// `vu` VU, `ppm1`/`ppm2` dB relative to a full-scale sine, `loudness` the true peak so far (dBTP).
    public let values: [Double]
    /// `peak` only (zeros otherwise): full-scale samples so far, and clip events, per channel.
    public let clippedSamples: [Int64]
    /// See `clippedSamples`.
    public let clipEvents: [Int64]
    /// `loudness` only.
    public let loudness: LoudnessReading?
    /// While recording: where this buffer's end is in the recording, and the frames its pauses have
    /// left out so far (see `LevelReading`); nil otherwise.
    public private(set) var recordingPosition: Int64? = nil
    /// See `recordingPosition`.
    public private(set) var pausedFrames: Int64? = nil
}

/// One meter of `kind` on every channel of an interleaved stream: feed it samples, read its values.
/// Usable on any stream (a file's blocks, another library's buffers). Not thread-safe: feed and read it
/// from one thread at a time.
public final class StandardMeter {
    /// Which meter this is.
    public let kind: MeterKind
    /// Channels of the interleaved samples fed to it.
    public let channelCount: Int
    /// Frames per second.
    public let sampleRate: Int
    private var peaks: [PeakHoldMeter] = []
    private var vus: [VUMeter] = []
    private var ppms: [PPMMeter] = []
    private let loudnessMeter: LoudnessMeter?
    private var scratch: [Float] = []

    /// One meter of `kind` per channel.
    /// - Throws: `.invalidFormat` naming the first value the meter cannot take (see `MeterLimits`).
    public init(kind: MeterKind, channelCount: Int, sampleRate: Int, options: MeterOptions = MeterOptions()) throws(RecorderError) {
        guard MeterLimits.channelCounts.contains(channelCount) else {
            throw RecorderError(.invalidFormat, "cannot meter \(channelCount) channels: use "
                + "\(MeterLimits.channelCounts.lowerBound) to \(MeterLimits.channelCounts.upperBound)")
        }
        try options.validate()
        self.kind = kind
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        // Each meter checks its own values (one line naming the bad one), before any is repeated.
        switch kind {
        case .peak:
            peaks = Array(repeating: try PeakHoldMeter(sampleRate: sampleRate, hold: options.peakHold,
                                                       decay: options.peakDecay, clipRun: options.clipRun),
                          count: channelCount)
        case .vu:
            vus = Array(repeating: try VUMeter(sampleRate: sampleRate, reference: options.vuReference), count: channelCount)
        case .ppm1, .ppm2:
            ppms = Array(repeating: try PPMMeter(kind: kind == .ppm1 ? .typeI : .typeII, sampleRate: sampleRate),
                         count: channelCount)
        case .loudness:
            break
        }
        // A live meter starts mid-signal: its true peak leaves out the oversampler's start from silence;
        // it may run for days: histograms, constant memory.
        loudnessMeter = kind == .loudness
            ? try LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate, ignoringStartTransient: true,
                                histogram: true) : nil
        // Channels in the order a stream of this many has by default (PulseAudio's, WAV's): every
        // channel counts, by its place (`ChannelWeight`), as in a file's analysis.
        loudnessMeter?.weigh(ChannelWeight.of(channelCount: channelCount, map: nil))
    }

    /// Adds interleaved samples in −1…1.
    public func add(interleaved samples: UnsafeBufferPointer<Float>) {
        let channels = channelCount
        func each(_ body: (Int, UnsafeBufferPointer<Float>) -> Void) {
            for channel in 0..<min(channels, samples.count) {
                body(channel, UnsafeBufferPointer(rebasing: samples[channel...]))
            }
        }
        switch kind {
        case .peak: each { peaks[$0].add($1, stride: channels) }
        case .vu: each { vus[$0].add($1, stride: channels) }
        case .ppm1, .ppm2: each { ppms[$0].add($1, stride: channels) }
        case .loudness: loudnessMeter?.add(interleaved: samples)
        }
    }

    /// Adds interleaved big-endian samples of `sampleFormat` (what a `Recorder` of that format captures).
    public func add(_ bytes: UnsafeRawBufferPointer, sampleFormat: SampleFormat) {
        guard sampleFormat != .int16 else { return add(bigEndianS16: bytes) }
        let count = bytes.count / sampleFormat.bytesPerSample
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
        let decoded = scratch.withUnsafeMutableBufferPointer { sampleFormat.decode(bytes, into: $0) }
        scratch.withUnsafeBufferPointer { add(interleaved: UnsafeBufferPointer(rebasing: $0[0..<decoded])) }
    }

    /// Adds interleaved signed 16-bit big-endian samples (what a `Recorder` captures by default).
    public func add(bigEndianS16 bytes: UnsafeRawBufferPointer) {
        if let loudnessMeter {
            loudnessMeter.add(bigEndianS16: bytes)
            return
        }
        let count = floats(bigEndianS16: bytes, into: &scratch)
        scratch.withUnsafeBufferPointer { add(interleaved: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Per channel, in the meter's unit (see `MeterReading.values`).
    public var values: [Double] {
        switch kind {
        case .peak: peaks.map(\.peak)
        case .vu: vus.map(\.reading)
        case .ppm1, .ppm2: ppms.map(\.reading)
        case .loudness: (0..<channelCount).map { loudnessMeter?.truePeak(channel: $0).map(floored) ?? Double(LevelMeterState.silence) }
        }
    }

    /// `peak` only (zeros otherwise): samples at full scale so far, per channel.
    public var clippedSamples: [Int64] { kind == .peak ? peaks.map(\.clippedSamples) : zeros }
    /// `peak` only (zeros otherwise): clip events so far, per channel.
    public var clipEvents: [Int64] { kind == .peak ? peaks.map(\.clipEvents) : zeros }
    private var zeros: [Int64] { [Int64](repeating: 0, count: channelCount) }

    /// `loudness` only (nil otherwise): the programme's loudness so far.
    public var loudness: LoudnessReading? {
        loudnessMeter.map { meter in
            let integrated = meter.integrated
            return LoudnessReading(momentary: meter.momentary, shortTerm: meter.shortTerm, integrated: integrated,
                                   // libebur128 gives 0 LU when nothing passed the gates: undefined, as silence.
                                   loudnessRange: integrated == nil ? nil : meter.loudnessRange)
        }
    }
}

/// Converts interleaved signed 16-bit big-endian samples to floats in −1…1 in `scratch` (grown only
/// when a larger block arrives) and returns the sample count.
func floats(bigEndianS16 bytes: UnsafeRawBufferPointer, into scratch: inout [Float]) -> Int {
    let count = bytes.count / 2
    if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
    scratch.withUnsafeMutableBufferPointer { out in
        for index in 0..<count {
            out[index] = Float(bytes.baseAddress!.bigEndianInt16(at: 2 * index)) / 32_768
        }
    }
    return count
}

/// The live meters of a recorder: each stream from `Recorder.meterReadings` owns a `StandardMeter`, fed
/// with every buffer on the delivery thread.
final class MeterFeeds: Sendable {
    /// A meter and its stream's continuation.
    final class Feed: @unchecked Sendable {
        // @unchecked Sendable: `meter` is created by the registering thread and handed over through the
        // registry's lock; from then on only the delivery thread touches it (in `deliver`).
        let meter: StandardMeter
        let continuation: AsyncStream<MeterReading>.Continuation

        init(meter: StandardMeter, continuation: AsyncStream<MeterReading>.Continuation) {
            self.meter = meter
            self.continuation = continuation
        }
    }

    private let feeds = StreamRegistry<Feed>()

    func makeStream(kind: MeterKind, format: StreamFormat, options: MeterOptions) throws(RecorderError) -> AsyncStream<MeterReading> {
        let meter = try StandardMeter(kind: kind, channelCount: format.channelCount, sampleRate: format.sampleRate,
                                      options: options)
        let (stream, continuation) = AsyncStream.makeStream(of: MeterReading.self, bufferingPolicy: .unbounded)
        feeds.add(Feed(meter: meter, continuation: continuation), for: continuation)
        return stream
    }

    /// Feeds one buffer to every meter and yields each one's reading. Delivery thread only.
    func deliver(_ bytes: UnsafeRawBufferPointer, sampleFormat: SampleFormat = .int16, endFrame: Int64, frameCount: Int,
                 time: Double, levels: [LevelMeterState], recording: RecordingPlace? = nil) {
        for feed in feeds.entries {
            let meter = feed.meter
            meter.add(bytes, sampleFormat: sampleFormat)
            feed.continuation.yield(MeterReading(
                kind: meter.kind, endFrame: endFrame, frameCount: frameCount, time: time, levels: levels,
                values: meter.values, clippedSamples: meter.clippedSamples, clipEvents: meter.clipEvents,
                loudness: meter.loudness, recordingPosition: recording?.position, pausedFrames: recording?.pausedFrames))
        }
    }

    func finish() {
        for feed in feeds.finish() { feed.continuation.finish() }
    }
}

// Offline analysis of a whole file: levels per channel and the programme's loudness.
import CEbur128
import Glibc
import Synchronization
import Locking

/// What `recorder analyze` reports for one file. Per-channel arrays have one value per channel; a value
/// that is undefined (the level of digital silence, the loudness of a silent programme) is nil.
public struct FileAnalysis: Sendable, Hashable {
    /// The file analysed.
    public let path: String
    /// Frames read (what the file holds).
    public let frames: Int64
    /// Frames per second.
    public let sampleRate: Int
    /// Channels in the file.
    public let channelCount: Int
    /// `frames` in seconds.
    public var duration: Double { Double(frames) / Double(sampleRate) }
    /// 20·log10(max |sample|), full scale = 1.0 (32 768 for 16-bit), as the core meters and sox.
    public let samplePeak: [Double?]
    /// libebur128's true peak (4× oversampled), dBTP.
    public let truePeak: [Double?]
    /// 20·log10(RMS), plain convention: a full-scale sine reads −3.01 dBFS (as sox's "RMS lev dB").
    public let rms: [Double?]
    /// Samples at full scale: |s| ≥ 32 767/32 768.
    public let clippedSamples: [Int64]
    /// Mean sample value, full scale = 1.0.
    public let dcOffset: [Double]
    /// Per channel: NaN and ±infinity samples (float files only). They are left out of the peaks, RMS,
    /// DC offset and clip count; the loudness and true-peak meters, which need every instant, read each
    /// as the channel's sample before it (a 0 would be a click that true peak reads as an overshoot).
    public let nonFiniteSamples: [Int64]
    /// Frames the header announces that the file does not hold (its data ends early: a truncated
    /// copy, a recording cut off); 0 when the file is whole or its header announces nothing.
    public let missingFrames: Int64
    /// Programme loudness (EBU R128, libebur128), LUFS / LU.
    public let integrated: Double?
    /// Loudness range (EBU Tech 3342), LU; nil when the programme has none.
    public let loudnessRange: Double?
    /// The highest momentary loudness (400 ms), LUFS, sampled every 100 ms.
    public let maxMomentary: Double?
    /// The highest short-term loudness (3 s), LUFS, sampled every 100 ms.
    public let maxShortTerm: Double?
    /// The file's markers (AIFF `MARK`, WAV `cue `, as libsndfile reads them), in the file's order.
    public let markers: [FileMarker]
    /// Why the loudness values are nil although the file has sound: its rate or channel count is one
    /// libebur128 cannot measure (below 16 Hz, more than 64 channels); nil when loudness was measured.
    /// The levels are measured all the same.
    public let loudnessNotMeasured: String?

    /// Reads `path` (any format libsndfile opens) in blocks of one second and measures it.
    ///
    /// True peak (4× oversampling, most of the work) runs in parallel when the file can be seeked: 10 s
    /// segments, each scanned by its own libebur128 state after a 64-frame pre-roll that fills the
    /// interpolator, shared out between one thread per extra core and, once its own pass is done, the
    /// calling thread. The result is the same as one state's over the whole file.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    public static func analyze(path: String) throws(RecorderError) -> FileAnalysis {
        let file = try SoundFileReader(path: path)
        defer { file.close() }
        let channels = file.channelCount
        let rate = file.sampleRate
        let scan = file.isSeekable && file.frameCount > 0
            ? TruePeakScan(path: path, channels: channels, sampleRate: rate, frames: file.frameCount) : nil
        let meter = try? LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: scan == nil)
        meter?.weigh(ChannelWeight.of(channelCount: channels, map: file.channelMap))
        let helpers = scan.map { scan in
            (0..<min(7, max(0, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1))).compactMap { _ in
                // A helper the system refuses is a helper fewer: this thread scans too.
                try? startThread(named: "rk-truepeak") { scan.work() }.get()
            }
        } ?? []
        let blockFrames = max(rate, 1)
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var peaks = [Float](repeating: 0, count: channels)
        var squares = [Double](repeating: 0, count: channels)
        var sums = [Double](repeating: 0, count: channels)
        var clipped = [Int64](repeating: 0, count: channels)
        var nonFinite = [Int64](repeating: 0, count: channels)
        var lastFinite = [Float](repeating: 0, count: channels)
        var frames: Int64 = 0
        let fullScale: Float = 32_767 / 32_768
        while true {
            let count = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: blockFrames) }
            guard count > 0 else { break }
            block.withUnsafeMutableBufferPointer { samples in
                // Statistics over the finite samples; then the others are replaced for the meter.
                for channel in 0..<channels {
                    var peak = peaks[channel], square = 0.0, sum = 0.0, clips: Int64 = 0
                    var index = channel
                    for _ in 0..<count {
                        let value = samples[index]
                        index += channels
                        guard value.isFinite else { continue }
                        let magnitude = abs(value)
                        if magnitude > peak { peak = magnitude }
                        if magnitude >= fullScale { clips += 1 }
                        square += Double(value) * Double(value)
                        sum += Double(value)
                    }
                    peaks[channel] = peak
                    squares[channel] += square
                    sums[channel] += sum
                    clipped[channel] += clips
                    nonFinite[channel] += replaceNonFinite(in: samples, count: count, channels: channels, channel: channel,
                                                           last: &lastFinite[channel])
                }
                meter?.add(interleaved: UnsafeBufferPointer(rebasing: samples[0..<(count * channels)]))
            }
            frames += Int64(count)
        }
        func decibels(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
        var truePeak = (0..<channels).map { meter?.truePeak(channel: $0) ?? nil }
        if let scan {
            scan.work()
            for thread in helpers { pthread_join(thread, nil) }
            // A file that ends before its header says (a cut FLAC) has segments that cannot be read:
            // then once more over the frames it does hold, on this thread.
            var peaks = scan.peaks
            if peaks == nil || frames < scan.frames {
                let again = TruePeakScan(path: path, channels: channels, sampleRate: rate, frames: frames)
                again.work()
                peaks = again.peaks
            }
            truePeak = peaks.map { $0.map(decibels) } ?? [Double?](repeating: nil, count: channels)
        }
        // Non-finite samples were read as 0: the mean is over the others.
        let totals = nonFinite.map { Double(max(frames - $0, 1)) }
        // libsndfile sizes a PCM file by what it holds (and logs what the header said); for others the
        // header's count stands and the reads come up short.
        let announced = max(file.frameCount > 0 ? file.frameCount : frames,
                            frames + file.headerShortfall)
        return FileAnalysis(
            path: path, frames: frames, sampleRate: rate, channelCount: channels,
            samplePeak: peaks.map { decibels(Double($0)) },
            truePeak: truePeak,
            rms: zip(squares, totals).map { decibels(($0 / $1).squareRoot()) },
            clippedSamples: clipped,
            dcOffset: zip(sums, totals).map { $0 / $1 },
            nonFiniteSamples: nonFinite, missingFrames: max(0, announced - frames),
            // libebur128 gives 0 LU for a programme with nothing above the gates: undefined, as silence is.
            integrated: meter?.integrated, loudnessRange: meter?.integrated == nil ? nil : meter?.loudnessRange,
            maxMomentary: meter?.maxMomentary, maxShortTerm: meter?.maxShortTerm,
            markers: file.markers.map { FileMarker(frame: $0.frame, label: $0.label) },
            loudnessNotMeasured: meter != nil ? nil
                : "libebur128 measures loudness at \(MeterLimits.loudnessSampleRates.lowerBound) to "
                  + "\(MeterLimits.loudnessSampleRates.upperBound) Hz in 1 to \(MeterLimits.loudnessChannelCounts.upperBound) "
                  + "channels, not \(channels) channels at \(rate) Hz")
    }
}

/// A marker stored in a sound file: a frame (from the file's first) and its label.
public struct FileMarker: Sendable, Hashable {
    /// The frame it marks, from the file's first.
    public let frame: Int64
    /// Its name as the file stores it.
    public let label: String

    /// A marker at `frame` named `label`.
    public init(frame: Int64, label: String) {
        self.frame = frame
        self.label = label
    }
}

/// Replaces the NaN and ±infinity samples of `channel` in the first `count` interleaved frames by the
/// channel's sample before them (`last`: the previous block's last finite sample, 0 at the start), so
/// the loudness and true-peak filters see no click where they were; returns how many there were.
func replaceNonFinite(in samples: UnsafeMutableBufferPointer<Float>, count: Int, channels: Int, channel: Int,
                      last: inout Float) -> Int64 {
    var found: Int64 = 0
    var index = channel
    for _ in 0..<count {
        if samples[index].isFinite {
            last = samples[index]
        } else {
            samples[index] = last
            found += 1
        }
        index += channels
    }
    return found
}

/// True peak over a seekable file in 10 s segments that any number of threads take in turn (`work`).
/// Each segment gets fresh `TruePeakScanner`s fed 64 frames from before the segment first, whose
/// interpolated values are left out: the interpolator's 49 taps at 4× span 13 input frames, so from the
/// segment's first frame on every interpolated value is the one a single scan over the file computes.
final class TruePeakScan: Sendable {
    let path: String
    let channels: Int
    let sampleRate: Int
    let frames: Int64
    let segmentFrames: Int64
    private let next = Atomic<Int64>(0)
    private let maxima: Locked<[Double]>
    private let failed = Atomic<Bool>(false)
    static let preroll: Int64 = 64

    init(path: String, channels: Int, sampleRate: Int, frames: Int64) {
        self.path = path
        self.channels = channels
        self.sampleRate = sampleRate
        self.frames = frames
        segmentFrames = Int64(max(sampleRate, 1)) * 10
        maxima = Locked([Double](repeating: 0, count: channels))
    }

    /// Linear true peak per channel once every `work` call returned; nil if a segment could not be read.
    var peaks: [Double]? { failed.load(ordering: .acquiring) ? nil : maxima.withLock { $0 } }

    /// Scans segments until none is left.
    func work() {
        guard let file = try? SoundFileReader(path: path) else {
            failed.store(true, ordering: .releasing)
            return
        }
        defer { file.close() }
        let blockFrames = Int64(max(sampleRate, 1))
        var block = [Float](repeating: 0, count: Int(blockFrames) * channels)
        var local = [Double](repeating: 0, count: channels)
        var lastFinite = [Float](repeating: 0, count: channels)
        let segments = frames / segmentFrames + (frames % segmentFrames == 0 ? 0 : 1)
        while true {
            let segment = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard segment < segments else { break }
            let start = segment * segmentFrames
            let end = min(frames, start + segmentFrames)
            let preroll = min(start, Self.preroll)
            for channel in 0..<channels { lastFinite[channel] = 0 }
            guard file.seek(to: start - preroll) else {
                failed.store(true, ordering: .releasing)
                return
            }
            var scanners = [TruePeakScanner](repeating: TruePeakScanner(sampleRate: sampleRate), count: channels)
            var position = start - preroll
            while position < end {
                // The pre-roll alone first, so that its output (the interpolator starting from zeros) is
                // left out; then whole blocks.
                let wanted = position < start ? start - position : min(blockFrames, end - position)
                let read = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(wanted)) }
                guard read > 0 else { break }
                block.withUnsafeMutableBufferPointer { samples in
                    // As the main pass does: a NaN would make every later interpolated value NaN.
                    for channel in 0..<channels {
                        _ = replaceNonFinite(in: samples, count: Int(read), channels: channels, channel: channel,
                                             last: &lastFinite[channel])
                    }
                    for channel in 0..<channels {
                        scanners[channel].add(samples.baseAddress! + channel, count: Int(read), stride: channels,
                                              counting: position >= start)
                    }
                }
                position += Int64(read)
            }
            for channel in 0..<channels {
                local[channel] = max(local[channel], Double(max(scanners[channel].samplePeak, scanners[channel].interpolatedPeak)))
            }
        }
        maxima.withLock { maxima in
            for channel in 0..<channels { maxima[channel] = max(maxima[channel], local[channel]) }
        }
    }
}

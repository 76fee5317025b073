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
    /// loudness is not measured at (below 8 kHz, more than 64 channels); nil when loudness was measured.
    /// The levels are measured all the same.
    public let loudnessNotMeasured: String?

    /// The waveform's columns, when asked for (`AnalysisRequest.waveformColumns`).
    public let waveform: Waveform?
    /// The momentary and short-term loudness every 100 ms, when asked for and measured.
    public let loudnessSeries: LoudnessSeries?
    /// Every true-peak over above `overCeiling` and every clipped run, by channel and then by time,
    /// when asked for (`AnalysisRequest.overs`); empty otherwise.
    public let overs: [Over]
    /// Runs past the 10 000 a channel and kind kept, counted only (a file that is over everywhere).
    public let oversLeftOut: Int
    /// The dBTP ceiling the overs were found above.
    public let overCeiling: Double

    /// Reads `path` (any format libsndfile opens) once, in blocks of up to one second, and measures it:
    /// `analyze(path:request:taps:)` with nothing more asked for.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    public static func analyze(path: String) throws(RecorderError) -> FileAnalysis {
        try analyze(path: path, request: AnalysisRequest(), taps: [])
    }

    /// Reads `path` once, in blocks of up to one second, and measures it; what `request` asks for
    /// besides is kept from the same pass, and every `tap` sees every block. Memory does not grow with
    /// the file's length, except by what is asked for (the loudness series: 8 bytes per 100 ms; the overs).
    ///
    /// True peak (4× oversampling, most of the work) is scanned block by block on `request.threads`
    /// threads (helpers and this one), each block after 64 frames of the one before: the result is the
    /// same as one scan over the whole file. Call from any thread; it returns when the file is read.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    public static func analyze(path: String, request: AnalysisRequest, taps: [any AnalysisTap] = []) throws(RecorderError) -> FileAnalysis {
        let file = try SoundFileReader(path: path)
        defer { file.close() }
        let channels = file.channelCount
        let rate = file.sampleRate
        let meter = try? LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: false)
        meter?.weigh(ChannelWeight.of(channelCount: channels, map: file.channelMap))
        let series = StageState((momentary: [Float?](), shortTerm: [Float?]()))
        if request.loudnessSeries {
            // As many values as the file's length makes, so the arrays are never copied to grow.
            let steps = Int(min(max(file.frameCount, 0) / Int64(max(1, rate / 10)) + 1, 50_000_000))
            series.value.momentary.reserveCapacity(steps)
            series.value.shortTerm.reserveCapacity(steps)
            meter?.onStep = { value, window in
                series.value.momentary.append(value.map { Float($0) })
                series.value.shortTerm.append(window.map { Float($0) })
            }
        }
        var columns: [WaveformColumn] = []
        let waveform = request.waveformColumns > 0
            ? WaveformColumns(channelCount: channels, frames: file.frameCount, columns: request.waveformColumns) { columns.append($1) }
            : nil
        let gap = max(1, Int64((Over.joiningGap * Double(rate)).rounded()))
        var clipRuns = (0..<channels).map { OverRuns(kind: .clipped, channel: $0, gap: gap, limit: 10_000) }
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let threads = request.threads > 0 ? request.threads : min(8, cores)
        // Blocks of a second, or fewer frames when there are many channels (4 MB a block at most).
        let blockFrames = max(1, min(max(rate, 1), max(1_024, (1 << 20) / max(channels, 1))))
        // The loudness meter and the taps take the blocks in order, each on whichever thread is free.
        let loudness = StageState(meter)
        let tapping = StageState(taps)
        var stages: [@Sendable (UnsafeBufferPointer<Float>) -> Void] = []
        if meter != nil { stages.append { block in loudness.value?.add(interleaved: block) } }
        if !taps.isEmpty { stages.append { block in for tap in tapping.value { tap.add(interleaved: block) } } }
        let jobs = BlockWork(channels: channels, sampleRate: rate, blockFrames: blockFrames, helpers: threads - 1,
                             ceiling: request.overs ? Float(pow(10, request.ceiling / 20)) : nil, gap: gap, stages: stages)
        let helpers = (0..<(threads - 1)).compactMap { _ in
            // A helper the system refuses is a helper fewer: this thread scans too.
            try? startThread(named: "rk-analysis") { jobs.work() }.get()
        }
        for tap in taps { tap.begin(sampleRate: rate, channelCount: channels, frames: file.frameCount) }
        var peaks = [Float](repeating: 0, count: channels)
        var squares = [Double](repeating: 0, count: channels)
        var sums = [Double](repeating: 0, count: channels)
        var clipped = [Int64](repeating: 0, count: channels)
        var nonFinite = [Int64](repeating: 0, count: channels)
        var lastFinite = [Float](repeating: 0, count: channels)
        // One waveform run's lowest and highest sample and sum of squares, per channel.
        var runLow = [Float](repeating: 0, count: channels)
        var runHigh = runLow
        var runSquares = [Double](repeating: 0, count: channels)
        // The last frames of the block before (after NaN replacement): the next block's pre-roll.
        var tail = [Float](repeating: 0, count: BlockWork.preroll * channels)
        var tailFrames = 0
        var frames: Int64 = 0
        let fullScale: Float = 32_767 / 32_768
        // Integer PCM cannot hold NaN or infinity: its samples are measured without the check.
        let checked = file.mayHoldNonFiniteSamples
        while true {
            let storage = jobs.buffer()
            let samples = UnsafeMutableBufferPointer(start: storage + BlockWork.preroll * channels, count: blockFrames * channels)
            let count = file.read(into: samples.baseAddress!, frames: blockFrames)
            guard count > 0 else {
                jobs.giveBack(storage)
                break
            }
            // One pass over the finite samples for the statistics and the waveform, in runs that end
            // where a waveform column does; then the others are replaced for the meters.
            var offset = 0
            while offset < count {
                let run = waveform.map { Int(min(Int64(count - offset), $0.framesToColumnEnd())) } ?? count - offset
                for channel in 0..<channels {
                    let measured = checked
                        ? Self.measureChecked(samples, from: offset, count: run, channel: channel, channels: channels)
                        : Self.measure(samples, from: offset, count: run, channel: channel, channels: channels)
                    peaks[channel] = max(peaks[channel], max(-measured.low, measured.high))
                    squares[channel] += measured.squares
                    sums[channel] += measured.sum
                    runLow[channel] = measured.low
                    runHigh[channel] = measured.high
                    runSquares[channel] = measured.squares
                    // Full scale reached: the run again, for its clipped samples (where they are).
                    if measured.high >= fullScale || -measured.low >= fullScale {
                        var index = offset * channels + channel
                        for frame in offset..<(offset + run) {
                            let magnitude = abs(samples[index])
                            index += channels
                            guard magnitude >= fullScale, magnitude.isFinite else { continue }
                            clipped[channel] += 1
                            if request.overs { clipRuns[channel].note(frame: frames + Int64(frame), level: magnitude) }
                        }
                    }
                }
                runLow.withUnsafeBufferPointer { low in
                    runHigh.withUnsafeBufferPointer { high in
                        runSquares.withUnsafeBufferPointer { waveform?.add(frames: run, minimum: low, maximum: high, squares: $0) }
                    }
                }
                offset += run
            }
            for channel in 0..<channels {
                nonFinite[channel] += replaceNonFinite(in: samples, count: count, channels: channels, channel: channel,
                                                       last: &lastFinite[channel])
            }
            // This block's pre-roll: the frames before it, then keep its own last frames for the next.
            let preroll = tailFrames
            tail.withUnsafeBufferPointer { tail in
                (storage + (BlockWork.preroll - preroll) * channels)
                    .update(from: tail.baseAddress! + (BlockWork.preroll - preroll) * channels, count: preroll * channels)
            }
            let kept = min(BlockWork.preroll, count + tailFrames)
            tail.withUnsafeMutableBufferPointer { tail in
                // Shift what stays of the old tail, then this block's last frames after it.
                let fromBlock = min(kept, count)
                let fromTail = kept - fromBlock
                let base = tail.baseAddress!
                (base + (BlockWork.preroll - kept) * channels)
                    .update(from: base + (BlockWork.preroll - fromTail) * channels, count: fromTail * channels)
                (base + (BlockWork.preroll - fromBlock) * channels)
                    .update(from: samples.baseAddress! + (count - fromBlock) * channels, count: fromBlock * channels)
            }
            tailFrames = kept
            jobs.submit(storage, firstFrame: frames, preroll: preroll, frames: count)
            frames += Int64(count)
        }
        waveform?.finish()
        let scanned = jobs.finish { for thread in helpers { pthread_join(thread, nil) } }
        for tap in taps { tap.end() }
        for channel in clipRuns.indices { clipRuns[channel].close() }
        func decibels(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
        // Non-finite samples were read as 0: the mean is over the others.
        let totals = nonFinite.map { Double(max(frames - $0, 1)) }
        // libsndfile sizes a PCM file by what it holds (and logs what the header said); for others the
        // header's count stands and the reads come up short.
        let announced = max(file.frameCount > 0 ? file.frameCount : frames,
                            frames + file.headerShortfall)
        let overs = (0..<channels).flatMap { channel in
            (scanned.overs.filter { $0.channel == channel } + clipRuns[channel].runs)
                .sorted { ($0.startFrame, $0.kind == .clipped ? 1 : 0) < ($1.startFrame, $1.kind == .clipped ? 1 : 0) }
        }
        return FileAnalysis(
            path: path, frames: frames, sampleRate: rate, channelCount: channels,
            samplePeak: peaks.map { decibels(Double($0)) },
            // The samples' peak (finite ones; a non-finite one is its channel's sample before) or the
            // oversampled signal's, whichever is higher.
            truePeak: zip(peaks, scanned.peaks).map { decibels(Double(max($0, $1))) },
            rms: zip(squares, totals).map { decibels(($0 / $1).squareRoot()) },
            clippedSamples: clipped,
            dcOffset: zip(sums, totals).map { $0 / $1 },
            nonFiniteSamples: nonFinite, missingFrames: max(0, announced - frames),
            // libebur128 gives 0 LU for a programme with nothing above the gates: undefined, as silence is.
            integrated: meter?.integrated, loudnessRange: meter?.integrated == nil ? nil : meter?.loudnessRange,
            maxMomentary: meter?.maxMomentary, maxShortTerm: meter?.maxShortTerm,
            markers: file.markers.map { FileMarker(frame: $0.frame, label: $0.label) },
            loudnessNotMeasured: meter != nil ? nil
                : "loudness is measured at \(MeterLimits.loudnessSampleRates.lowerBound) to "
                  + "\(MeterLimits.loudnessSampleRates.upperBound) Hz in 1 to \(MeterLimits.loudnessChannelCounts.upperBound) "
                  + "channels, not \(channels) channels at \(rate) Hz",
            waveform: waveform == nil ? nil : Waveform(frames: max(0, file.frameCount), channelCount: max(1, channels), columns: columns),
            loudnessSeries: request.loudnessSeries && meter != nil
                ? LoudnessSeries(stepFrames: max(1, rate / 10), momentary: series.value.momentary, shortTerm: series.value.shortTerm) : nil,
            overs: overs,
            oversLeftOut: scanned.leftOut + clipRuns.reduce(0) { $0 + $1.leftOut },
            overCeiling: request.ceiling)
    }
}

extension FileAnalysis {
    /// What one pass over a run of one channel's samples gives.
    struct RunMeasure {
        var low = Float.infinity, high = -Float.infinity, squares = 0.0, sum = 0.0
    }

    /// The lowest and highest sample, the sum of squares and the sum of `count` frames of `channel` from
    /// frame `from`, for samples that are all finite: four chains of accumulators, so that the adds do
    /// not wait on each other, and the extremes kept by `<` and `>` selects (one `minss`/`maxss` each;
    /// `Swift.min`'s NaN ordering, not needed for finite samples, took four instructions).
    static func measure(_ samples: UnsafeMutableBufferPointer<Float>, from: Int, count: Int, channel: Int, channels: Int) -> RunMeasure {
        var low = (Float.infinity, Float.infinity, Float.infinity, Float.infinity)
        var high = (-Float.infinity, -Float.infinity, -Float.infinity, -Float.infinity)
        var squares = (0.0, 0.0, 0.0, 0.0), sums = (0.0, 0.0, 0.0, 0.0)
        var pointer = UnsafePointer(samples.baseAddress! + from * channels + channel)
        var frame = 0
        while frame + 4 <= count {
            let a = pointer.pointee, b = pointer[channels], c = pointer[2 &* channels], d = pointer[3 &* channels]
            low.0 = a < low.0 ? a : low.0
            low.1 = b < low.1 ? b : low.1
            low.2 = c < low.2 ? c : low.2
            low.3 = d < low.3 ? d : low.3
            high.0 = a > high.0 ? a : high.0
            high.1 = b > high.1 ? b : high.1
            high.2 = c > high.2 ? c : high.2
            high.3 = d > high.3 ? d : high.3
            let (w, x, y, z) = (Double(a), Double(b), Double(c), Double(d))
            squares.0 += w * w
            squares.1 += x * x
            squares.2 += y * y
            squares.3 += z * z
            sums.0 += w
            sums.1 += x
            sums.2 += y
            sums.3 += z
            pointer += 4 &* channels
            frame &+= 4
        }
        while frame < count {
            let a = pointer.pointee
            low.0 = a < low.0 ? a : low.0
            high.0 = a > high.0 ? a : high.0
            squares.0 += Double(a) * Double(a)
            sums.0 += Double(a)
            pointer += channels
            frame &+= 1
        }
        return RunMeasure(low: min(min(low.0, low.1), min(low.2, low.3)), high: max(max(high.0, high.1), max(high.2, high.3)),
                          squares: (squares.0 + squares.1) + (squares.2 + squares.3), sum: (sums.0 + sums.1) + (sums.2 + sums.3))
    }

    /// As `measure`, passing over NaN and ±infinity (a float file's).
    static func measureChecked(_ samples: UnsafeMutableBufferPointer<Float>, from: Int, count: Int, channel: Int,
                               channels: Int) -> RunMeasure {
        var result = RunMeasure()
        var index = from * channels + channel
        for _ in 0..<count {
            let value = samples[index]
            index += channels
            guard value.isFinite else { continue }
            result.low = min(result.low, value)
            result.high = max(result.high, value)
            result.squares += Double(value) * Double(value)
            result.sum += Double(value)
        }
        return result
    }
}

/// State one ordered stage of an analysis keeps (its meter, its taps, the loudness series), touched by
/// one thread at a time.
final class StageState<Value>: @unchecked Sendable {
    // @unchecked Sendable: an ordered stage runs on one thread at a time, handed over under `BlockWork`'s
    // lock; the analysing thread reads it only after `BlockWork.finish` has returned.
    var value: Value
    init(_ value: Value) { self.value = value }
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

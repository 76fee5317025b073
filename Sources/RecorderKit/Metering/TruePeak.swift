// True peak (ITU-R BS.1770-4, Annex 2) of one channel: the signal oversampled 4× below 96 kHz and 2×
// below 192 kHz (at and above 192 kHz the samples themselves) by a polyphase interpolator with a 49-tap
// Hann-windowed sinc, the design libebur128 uses, computed eight output samples at a time. libebur128's
// own interpolator, one multiply at a time in double precision, was four fifths of a live loudness
// meter's cost (252 s of CPU for a day of 48 kHz stereo, against 105 s for everything else it does).
// The inner loop is C's (`rk_interpolated_peak`).
import CTruePeak
import Glibc

/// The largest magnitude so far of one channel's samples and of its oversampled signal. Not
/// thread-safe; allocates only when a block larger than any before arrives.
struct TruePeakScanner {
    /// Oversampling factor: 4 below 96 kHz, 2 below 192 kHz, 1 above (no interpolation).
    let factor: Int
    /// Taps per interpolating phase: ceil(49 / factor).
    private let length: Int
    /// For each interpolating phase (1..<factor), `length` weights, one phase after the other; weight
    /// `k` applies to the sample `k` frames before the current one. (Phase 0 is a sample, delayed: it
    /// adds nothing to the sample peak.)
    private let weights: [Float]
    /// The last `length - 1` samples (oldest first), then the current block.
    private var buffer: [Float]
    /// Largest |sample| and largest |oversampled value| so far.
    private(set) var samplePeak: Float = 0
    private(set) var interpolatedPeak: Float = 0

    init(sampleRate: Int) {
        factor = sampleRate < 96_000 ? 4 : sampleRate < 192_000 ? 2 : 1
        let taps = 49
        length = (taps + factor - 1) / factor
        var phases = [[Float]](repeating: [Float](repeating: 0, count: length), count: factor)
        for j in 0..<taps {
            let m = Double(j) - Double(taps - 1) / 2
            var c = abs(m) > 1e-6 ? sin(m * .pi / Double(factor)) / (m * .pi / Double(factor)) : 1
            c *= 0.5 * (1 - cos(2 * .pi * Double(j) / Double(taps - 1)))
            if abs(c) > 1e-6 { phases[j % factor][j / factor] = Float(c) }
        }
        weights = Array(phases.dropFirst().joined())
        buffer = [Float](repeating: 0, count: length - 1)
    }

    /// Adds `count` samples read `stride` floats apart from `samples`. `counting` false: these samples'
    /// interpolated values are left out of the peak (a stream that starts mid-waveform; see
    /// `LoudnessMeter`), their samples still count.
    mutating func add(_ samples: UnsafePointer<Float>, count: Int, stride: Int, counting: Bool = true) {
        guard count > 0 else { return }
        let history = length - 1
        if buffer.count < history + count { buffer.append(contentsOf: repeatElement(0, count: history + count - buffer.count)) }
        let length = length, phaseCount = factor - 1
        buffer.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let sampleMax = Self.copy(samples, count: count, stride: stride, to: base + history)
            samplePeak = max(samplePeak, sampleMax)
            if counting && phaseCount > 0 {
                let peak = weights.withUnsafeBufferPointer { weights in
                    rk_interpolated_peak(base + history, count, weights.baseAddress!, Int32(phaseCount), Int32(length))
                }
                interpolatedPeak = max(interpolatedPeak, peak)
            }
            // Keep the last samples for the next block's first outputs (the regions may overlap).
            memmove(base, base + count, history * MemoryLayout<Float>.stride)
        }
    }

    /// Copies `count` samples read `stride` floats apart to `target` and returns their largest magnitude
    /// (NaN passed over). Four running maxima, each a `>` select (one `maxss`), so that no sample waits
    /// for the comparison before it: one chain through `Swift.max` (a NaN-ordered select of four
    /// instructions) was a tenth of a file's analysis.
    private static func copy(_ samples: UnsafePointer<Float>, count: Int, stride: Int, to target: UnsafeMutablePointer<Float>) -> Float {
        var peaks: (Float, Float, Float, Float) = (0, 0, 0, 0)
        var index = 0
        var source = samples
        while index + 4 <= count {
            let a = source.pointee, b = source[stride], c = source[2 &* stride], d = source[3 &* stride]
            target[index] = a
            target[index &+ 1] = b
            target[index &+ 2] = c
            target[index &+ 3] = d
            peaks.0 = abs(a) > peaks.0 ? abs(a) : peaks.0
            peaks.1 = abs(b) > peaks.1 ? abs(b) : peaks.1
            peaks.2 = abs(c) > peaks.2 ? abs(c) : peaks.2
            peaks.3 = abs(d) > peaks.3 ? abs(d) : peaks.3
            source += 4 &* stride
            index &+= 4
        }
        while index < count {
            let a = source.pointee
            target[index] = a
            peaks.0 = abs(a) > peaks.0 ? abs(a) : peaks.0
            source += stride
            index &+= 1
        }
        let high = peaks.0 > peaks.1 ? peaks.0 : peaks.1, low = peaks.2 > peaks.3 ? peaks.2 : peaks.3
        return high > low ? high : low
    }

    /// As `add`, and every frame whose sample or oversampled value is above `ceiling` (linear) noted in
    /// `overs`: a sample at `firstFrame` + its index, an oversampled value where the interpolator's delay
    /// (half its length) puts it. The block is checked whole first, as `add` does; only a block above the
    /// ceiling is looked at 16 outputs at a time, and a group above it output by output, so a file that
    /// is never over costs what `add` costs.
    mutating func add(_ samples: UnsafePointer<Float>, count: Int, stride: Int, counting: Bool,
                      ceiling: Float, firstFrame: Int64, overs: inout OverRuns) {
        guard count > 0 else { return }
        let history = length - 1
        if buffer.count < history + count { buffer.append(contentsOf: repeatElement(0, count: history + count - buffer.count)) }
        let length = length, phaseCount = factor - 1, delay = Int64(history / 2)
        buffer.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let blockMax = Self.copy(samples, count: count, stride: stride, to: base + history)
            weights.withUnsafeBufferPointer { weights in
                let whole = counting && phaseCount > 0
                    ? rk_interpolated_peak(base + history, count, weights.baseAddress!, Int32(phaseCount), Int32(length)) : 0
                samplePeak = max(samplePeak, blockMax)
                interpolatedPeak = max(interpolatedPeak, whole)
                guard counting && max(blockMax, whole) > ceiling else { return }
                var start = 0
                while start < count {
                    let chunk = min(16, count - start)
                    var sampleMax: Float = 0
                    for index in start..<(start + chunk) { sampleMax = max(sampleMax, abs(base[history + index])) }
                    let interpolated = phaseCount > 0
                        ? rk_interpolated_peak(base + history + start, chunk, weights.baseAddress!, Int32(phaseCount), Int32(length))
                        : 0
                    if max(sampleMax, interpolated) > ceiling {
                        for index in start..<(start + chunk) {
                            let sample = abs(base[history + index])
                            if sample > ceiling { overs.note(frame: firstFrame + Int64(index), level: sample) }
                            guard phaseCount > 0 else { continue }
                            let value = rk_interpolated_peak(base + history + index, 1, weights.baseAddress!,
                                                             Int32(phaseCount), Int32(length))
                            if value > ceiling { overs.note(frame: max(0, firstFrame + Int64(index) - delay), level: value) }
                        }
                    }
                    start += chunk
                }
            }
            memmove(base, base + count, history * MemoryLayout<Float>.stride)
        }
    }
}


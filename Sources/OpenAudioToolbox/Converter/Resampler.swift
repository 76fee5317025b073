// Sample-rate conversion of interleaved float frames through libsoxr, for AVAudioConverter and the Audio
// Converter: a stream in, a stream out, its first output frame aligned with its first input frame (soxr
// compensates its filter's delay), the tail given out by `flush`.
import CSoxr

/// One stream's resampler. Not thread-safe: one converter uses it from one thread at a time.
package final class Resampler {
    private let soxr: soxr_t
    let channels: Int
    /// Output frames per input frame.
    let ratio: Double

    /// How closely the filter keeps the signal, as Apple's quality values name it: `min` is soxr's quick
    /// cubic interpolation, `low` and `medium` its 16-bit filters, `high` its 20-bit and `max` its 28-bit
    /// ("very high", what `sox rate -v` uses).
    package enum Quality: Sendable {
        case min, low, medium, high, max
        var recipe: UInt {
            switch self {
            case .min: UInt(SOXR_QQ)
            case .low: UInt(SOXR_LQ)
            case .medium: UInt(SOXR_MQ)
            case .high: UInt(SOXR_20_BITQ)
            case .max: UInt(SOXR_28_BITQ)
            }
        }
    }

    /// The filter's phase response: linear (Apple's normal and mastering algorithms), or minimum phase.
    package enum Phase: Sendable { case linear, steep, minimum }

    /// Nil when soxr refuses the rates (either not positive and finite) or the channel count.
    package init?(from inputRate: Double, to outputRate: Double, channels: Int, quality: Quality, phase: Phase) {
        guard inputRate.isFinite, outputRate.isFinite, inputRate > 0, outputRate > 0, channels > 0, channels <= 1_024 else { return nil }
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        let flags: UInt = switch phase {
        case .linear: UInt(SOXR_LINEAR_PHASE)
        case .steep: UInt(SOXR_LINEAR_PHASE) | UInt(SOXR_STEEP_FILTER)
        case .minimum: UInt(SOXR_MINIMUM_PHASE)
        }
        var spec = soxr_quality_spec(quality.recipe, flags)
        var error: soxr_error_t?
        guard let made = soxr_create(inputRate, outputRate, UInt32(channels), &error, &io, &spec, nil), error == nil else { return nil }
        soxr = made
        self.channels = channels
        ratio = outputRate / inputRate
    }

    deinit { soxr_delete(soxr) }

    /// Appends to `output` what `input` (interleaved frames) resamples to so far; the filter keeps a tail.
    package func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        let frames = input.count / channels
        guard frames > 0, let base = input.baseAddress else { return }
        var used = 0
        while used < frames {
            var consumed = 0
            let produced = drain(room: Int((Double(frames - used) * ratio).rounded(.up)) + 64, into: &output) { out, room, done in
                soxr_process(soxr, base + used * channels, frames - used, &consumed, out, room, &done)
            }
            used += consumed
            if consumed == 0 && produced == 0 { break }  // soxr refused the input (it never does once made)
        }
    }

    /// Appends the filter's tail: the end of the stream.
    package func flush(into output: inout [Float]) {
        var produced = 0
        repeat {
            produced = drain(room: 4_096, into: &output) { out, room, done in
                soxr_process(soxr, nil, 0, nil, out, room, &done)
            }
        } while produced > 0
    }

    /// Forgets the stream: the next input starts afresh.
    package func reset() { soxr_clear(soxr) }

    @discardableResult
    private func drain(room: Int, into output: inout [Float],
                       _ call: (UnsafeMutablePointer<Float>, Int, inout Int) -> soxr_error_t?) -> Int {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: room * channels))
        var produced = 0
        _ = output.withUnsafeMutableBufferPointer { call($0.baseAddress! + start, room, &produced) }
        output.removeLast((room - produced) * channels)
        return produced
    }
}

// The loudness meter (libebur128) against EBU Tech 3341 and 3342 test signals, generated here.
import CEbur128
import Foundation
import Testing
@testable import RecorderKit

/// 1 kHz tone segments, interleaved: in each segment, channel c is a sine at peak level `dBFS[c]`.
private func toneSamples(_ segments: [(seconds: Double, dBFS: [Double])], rate: Int = 48_000,
                         frequency: Double = 1_000) -> [Float] {
    let channels = segments[0].dBFS.count
    var samples = [Float]()
    var phase = 0
    for segment in segments {
        let amplitudes = segment.dBFS.map { pow(10, $0 / 20) }
        let frames = Int((segment.seconds * Double(rate)).rounded())
        samples.reserveCapacity(samples.count + frames * channels)
        for frame in 0..<frames {
            let value = sin(2 * .pi * frequency * Double(phase + frame) / Double(rate))
            for channel in 0..<channels { samples.append(Float(amplitudes[channel] * value)) }
        }
        phase += frames
    }
    return samples
}

/// A meter fed with `samples` in one block; it scans for the true peak only when asked (the cases that
/// check it): in a debug build the oversampler is nine tenths of the time of minutes of audio.
private func measured(_ samples: [Float], channels: Int, rate: Int = 48_000, truePeak: Bool = false) throws -> LoudnessMeter {
    let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: truePeak)
    samples.withUnsafeBufferPointer { meter.add(interleaved: $0) }
    return meter
}

/// Stereo (or `channels`) 1 kHz tone segments, every channel at the segment's level, fed to a meter.
private func tones(_ segments: [(seconds: Double, dBFS: Double)], rate: Int = 48_000, frequency: Double = 1_000,
                   channels: Int = 2) throws -> LoudnessMeter {
    let samples = toneSamples(segments.map { ($0.seconds, [Double](repeating: $0.dBFS, count: channels)) },
                              rate: rate, frequency: frequency)
    return try measured(samples, channels: channels, rate: rate)
}

/// Feeds stereo `samples` 10 ms at a time and returns `reading` after each step from `after` seconds on.
private func readings(_ samples: [Float], after seconds: Double, rate: Int = 48_000,
                      _ reading: (LoudnessMeter) -> Double?) throws -> [Double?] {
    let meter = try LoudnessMeter(channelCount: 2, sampleRate: rate, truePeak: false)
    let step = rate / 100 * 2
    var values = [Double?]()
    samples.withUnsafeBufferPointer { all in
        for start in stride(from: 0, to: all.count, by: step) {
            meter.add(interleaved: UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + step)]))
            if Double(start + step) / 2 / Double(rate) >= seconds - 1e-9 { values.append(reading(meter)) }
        }
    }
    return values
}

@Suite struct LoudnessTests {
    @Test(arguments: [48_000, 44_100])
    func ebu3341Cases1And2ReadTheirLevelMomentaryShortTermAndIntegrated(rate: Int) throws {
        for level in [-23.0, -33.0] {
            let meter = try tones([(20, level)], rate: rate)
            let readings = [meter.momentary, meter.shortTerm, meter.integrated]
            #expect(readings.allSatisfy { abs(($0 ?? 0) - level) <= 0.1 }, "\(level) dBFS at \(rate) Hz: \(readings)")
        }
    }

    /// K-weighting's high shelf is at 1.68 kHz: below 2 × 1.68 kHz it is past Nyquist, and libebur128
    /// (which takes any rate from 16 Hz) read a −20 dBFS sine at 2 kHz as +2 300 LUFS, at 4 kHz 0.47 dB
    /// off. The meter takes 8 kHz and up, where it reads 0.22 dB from 48 kHz (libebur128's filter design).
    /// A file's meter gates the blocks itself from its 100 ms steps (`GatedBlocks`); libebur128's block
    /// mode gates the same signal in the same meter's other mode. Noise whose level moves in steps from
    /// digital silence and −80 dBFS (under the absolute gate) to −8 dBFS (segments of 0.7 to 9 s, so gating
    /// and short-term blocks straddle them), fed in odd-sized pieces: the same integrated loudness and range
    /// to a millionth of a LU, and neither is trivially zero.
    @Test(arguments: [(48_000, 2), (44_100, 2), (8_000, 1), (48_000, 6)])
    func gatingFromStepsReadsWhatLibebur128Gates(rate: Int, channels: Int) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let levels: [(seconds: Double, dBFS: Double?)] = [
            (2.3, -30), (0.7, nil), (9, -20), (4.1, -80), (6, -45), (3.3, -8), (8.2, -26), (1.9, -60), (7, -14), (5, -33),
        ]
        var samples: [Float] = []
        for (seconds, dBFS) in levels {
            let gain = dBFS.map { Float(pow(10, $0 / 20)) } ?? 0
            for _ in 0..<(Int(seconds * Double(rate)) * channels) {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                samples.append(gain * Float(Double(state >> 11) / Double(1 << 53) * 2 - 1))
            }
        }
        var readings: [(integrated: Double?, range: Double?)] = []
        for libebur128Gating in [false, true] {
            let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: false,
                                          ignoringStartTransient: false, histogram: false, libebur128Gating: libebur128Gating)
            meter.weigh(ChannelWeight.of(channelCount: channels, map: nil))
            samples.withUnsafeBufferPointer { all in
                var offset = 0
                for size in [1, 999, 4_801, 12_345, 77].cycled(until: all.count / channels) {
                    let count = min(size, all.count / channels - offset)
                    guard count > 0 else { break }
                    meter.add(interleaved: UnsafeBufferPointer(rebasing: all[(offset * channels)..<((offset + count) * channels)]))
                    offset += count
                }
            }
            readings.append((meter.integrated, meter.loudnessRange))
        }
        let (own, reference) = (readings[0], readings[1])
        let integrated = try #require(own.integrated), expected = try #require(reference.integrated)
        let range = try #require(own.range), expectedRange = try #require(reference.range)
        #expect(abs(integrated - expected) < 1e-6, "\(rate) Hz × \(channels): \(integrated) against libebur128's \(expected) LUFS")
        #expect(abs(range - expectedRange) < 1e-6, "\(rate) Hz × \(channels): \(range) against libebur128's \(expectedRange) LU")
        #expect(integrated > -40 && integrated < -5 && range > 5, "\(integrated) LUFS, \(range) LU")
    }

    @Test func ratesWhereKWeightingCannotBeBuiltAreRefused() throws {
        #expect(MeterLimits.loudnessSampleRates.lowerBound == 8_000)
        for rate in [16, 2_000, 7_999] {
            #expect(throws: RecorderError.self) { _ = try LoudnessMeter(channelCount: 1, sampleRate: rate) }
        }
        var readings: [Double] = []
        for rate in [8_000, 48_000] {
            let meter = try LoudnessMeter(channelCount: 1, sampleRate: rate)
            let samples = (0..<(10 * rate)).map { Float(0.1 * sin(2 * Double.pi * 100 * Double($0) / Double(rate))) }
            samples.withUnsafeBufferPointer { meter.add(interleaved: $0) }
            readings.append(try #require(meter.integrated))
        }
        print("a 100 Hz tone at −20 dBFS: \(readings[0]) LUFS at 8 kHz, \(readings[1]) LUFS at 48 kHz")
        #expect(abs(readings[0] - readings[1]) < 0.3, "\(readings)")
    }

    @Test func ebu3341Cases3To5ReadIntegratedMinus23() throws {
        let cases: [[(seconds: Double, dBFS: Double)]] = [
            [(10, -36), (60, -23), (10, -36)],
            [(10, -72), (10, -36), (60, -23), (10, -36), (10, -72)],
            [(20, -26), (20.1, -20), (20, -26)],
        ]
        for segments in cases {
            let integrated = try #require(try tones(segments).integrated)
            #expect(abs(integrated - -23) <= 0.1, "\(segments): \(integrated)")
        }
    }

    @Test func ebu3342Cases1To4ReadTheirLoudnessRange() throws {
        let cases: [([(seconds: Double, dBFS: Double)], Double)] = [
            ([(20, -20), (20, -30)], 10),
            ([(20, -20), (20, -15)], 5),
            ([(20, -40), (20, -20)], 20),
            ([(20, -50), (20, -35), (20, -20), (20, -35), (20, -50)], 15),
        ]
        for (segments, expected) in cases {
            let range = try #require(try tones(segments).loudnessRange)
            #expect(abs(range - expected) <= 1, "\(segments): \(range) LU")
        }
    }

    @Test func aFullScale997HzSineInOneChannelReadsMinus3Point01() throws {
        let meter = try tones([(10, 0)], rate: 48_000, frequency: 997, channels: 1)
        let integrated = try #require(meter.integrated)
        #expect(abs(integrated - -3.01) <= 0.1, "\(integrated)")
    }

    /// A sine at a quarter of the rate, 45° off the samples: every sample is at 0.707 of the peak, so the
    /// sample peak under-reads by 3.01 dB and only oversampling finds the true peak (EBU 3341's
    /// true-peak cases). Tolerance +0.2/−0.4 dB.
    @Test(arguments: [-6.0, 3.01])
    func theTruePeakOfAQuarterRateSineBetweenSamples(truePeak expected: Double) throws {
        let samplePeak = expected + 20 * log10(0.5.squareRoot())
        let rate = 48_000
        let amplitude = pow(10, expected / 20)
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: rate)
        var block = [Float](repeating: 0, count: rate * 2)
        for frame in 0..<rate {
            let value = Float(amplitude * sin(2 * .pi * Double(frame) / 4 + .pi / 4))
            block[2 * frame] = value
            block[2 * frame + 1] = value
        }
        block.withUnsafeBufferPointer { meter.add(interleaved: $0) }
        let peak = try #require(meter.truePeak(channel: 0))
        #expect(peak >= expected - 0.4 && peak <= expected + 0.2, "\(peak) dBTP, expected \(expected)")
        let sampled = 20 * log10(Double(block.map { abs($0) }.max()!))
        #expect(abs(sampled - samplePeak) < 0.01)
    }

    /// Case 6: five channels (L, R, C, Ls, Rs at −28, −28, −24, −30, −30 dBFS): the surround channels
    /// weigh 1.41 (+1.5 dB), so the programme reads −23.0 LUFS. libebur128's default order for five
    /// channels is L, R, C, Ls, Rs, as in the EBU file.
    @Test func ebu3341Case6FiveChannelsReadsMinus23() throws {
        let samples = toneSamples([(20, [-28, -28, -24, -30, -30])])
        // Without the surround weighting it would read −23.37, outside the ±0.1 tolerance.
        let integrated = try #require(try measured(samples, channels: 5).integrated)
        #expect(abs(integrated - -23) <= 0.1, "\(integrated)")
    }

    /// Case 9: 20 × (1.34 s at −20 dBFS, 1.66 s at −30 dBFS). Every 3 s window holds one period, so the
    /// short-term loudness is −23.0 ± 0.1 from 3 s on (checked every 10 ms).
    @Test func ebu3341Case9ShortTermIsMinus23AfterThreeSeconds() throws {
        let period: [(seconds: Double, dBFS: [Double])] = [(1.34, [-20, -20]), (1.66, [-30, -30])]
        let values = try readings(toneSamples(Array(repeating: period, count: 20).flatMap { $0 }), after: 3) { $0.shortTerm }
        #expect(values.count == 5_701)
        let worst = values.map { abs(($0 ?? 0) - -23) }.max()!
        #expect(worst <= 0.1, "worst short-term deviation \(worst) LU")
    }

    /// Case 12: 25 × (0.18 s at −20 dBFS, 0.22 s at −30 dBFS). Every 400 ms window holds one period, so
    /// the momentary loudness is −23.0 ± 0.1 from 1 s on (checked every 10 ms).
    @Test func ebu3341Case12MomentaryIsMinus23AfterOneSecond() throws {
        let period: [(seconds: Double, dBFS: [Double])] = [(0.18, [-20, -20]), (0.22, [-30, -30])]
        let values = try readings(toneSamples(Array(repeating: period, count: 25).flatMap { $0 }), after: 1) { $0.momentary }
        #expect(values.count == 901)
        let worst = values.map { abs(($0 ?? 0) - -23) }.max()!
        #expect(worst <= 0.1, "worst momentary deviation \(worst) LU")
    }

    /// Cases 15–19: stereo sines at 48 kHz whose peaks fall between samples (frequency as a fraction of
    /// the rate, peak, phase of the first sample) → true peak. Tolerance +0.2/−0.4 dB.
    struct SineCase: Sendable, CustomTestStringConvertible {
        let number: Int, frequency: Double, peak: Double, phase: Double, expected: Double
        var testDescription: String { "case \(number)" }
    }

    @Test(arguments: [
        SineCase(number: 15, frequency: 1.0 / 4, peak: 0.5, phase: 0, expected: -6),
        SineCase(number: 16, frequency: 1.0 / 4, peak: 0.5, phase: 45, expected: -6),
        SineCase(number: 17, frequency: 1.0 / 6, peak: 0.5, phase: 60, expected: -6),
        SineCase(number: 18, frequency: 1.0 / 8, peak: 0.5, phase: 67.5, expected: -6),
        SineCase(number: 19, frequency: 1.0 / 4, peak: 1.41, phase: 45, expected: 3),
    ])
    func ebu3341TruePeakSineCases(_ sine: SineCase) throws {
        let (number, expected) = (sine.number, sine.expected)
        let samples = (0..<48_000).flatMap { frame -> [Float] in
            // A 20 ms fade-in: a sine switched on at full amplitude is not band-limited, and its
            // reconstruction rings up to 0.6 dB over the sine's peak at the start.
            let fade = frame < 960 ? 0.5 - 0.5 * cos(.pi * Double(frame) / 960) : 1
            let value = Float(fade * sine.peak * sin(2 * .pi * sine.frequency * Double(frame) + sine.phase * .pi / 180))
            return [value, value]
        }
        let meter = try measured(samples, channels: 2, truePeak: true)
        for channel in 0..<2 {
            let truePeak = try #require(meter.truePeak(channel: channel))
            #expect(truePeak >= expected - 0.4 && truePeak <= expected + 0.2, "case \(number): \(truePeak) dBTP")
        }
    }

    /// Cases 20–23: one inter-sample peak of exactly 0 dBTP, placed 0, ¼, ½ and ¾ of a sample after a
    /// sample instant. The signal is a sum of cosines (3, 9 and 15 kHz, weights 0.3, 0.3, 0.4) in phase at
    /// the peak under a 2 ms Gaussian envelope: its continuous-time maximum is 1.0 at that instant and
    /// below it everywhere else. The sample peak under-reads by up to 2.3 dB; the true peak must read
    /// 0.0 +0.2/−0.4 dBTP at every offset.
    @Test(arguments: [20, 21, 22, 23])
    func ebu3341TruePeakBetweenSamples(number: Int) throws {
        let rate = 48_000.0
        let offset = Double(number - 20) / 4
        let peakAt = 24_000 + offset
        let components: [(frequency: Double, weight: Double)] = [(3_000, 0.3), (9_000, 0.3), (15_000, 0.4)]
        let samples = (0..<48_000).flatMap { frame -> [Float] in
            let t = (Double(frame) - peakAt) / rate
            let envelope = exp(-0.5 * (t / 0.002) * (t / 0.002))
            let value = Float(envelope * components.reduce(0) { $0 + $1.weight * cos(2 * .pi * $1.frequency * t) })
            return [value, value]
        }
        let meter = try measured(samples, channels: 2, truePeak: true)
        let truePeak = try #require(meter.truePeak(channel: 0))
        #expect(truePeak >= -0.4 && truePeak <= 0.2, "case \(number): \(truePeak) dBTP")
        let samplePeak = 20 * log10(Double(samples.map { abs($0) }.max()!))
        if offset == 0 {
            #expect(abs(samplePeak) < 0.01)
        } else {
            #expect(samplePeak < -0.5, "the peak is between samples: sample peak \(samplePeak) dBFS")
        }
    }

    /// A meter that starts listening mid-waveform (a live one) sees a step from silence, which 4×
    /// oversampling reconstructs with ringing: up to ~1 dB over the sine's peak. With
    /// `ignoringStartTransient` the true peak is the sine's; without it (a file, which begins there) the
    /// step counts, as in libebur128 and ffmpeg.
    @Test func aLiveMeterLeavesOutTheStepItStartedOn() throws {
        // 1 kHz at 48 kHz, 0.5 peak, starting at 80° (a large first sample) and later a quieter stretch.
        let samples = (0..<48_000).map { Float(0.5 * sin(2 * .pi * 1_000 * Double($0) / 48_000 + 80 * .pi / 180)) }
        let live = try LoudnessMeter(channelCount: 1, sampleRate: 48_000, ignoringStartTransient: true)
        let plain = try LoudnessMeter(channelCount: 1, sampleRate: 48_000)
        samples.withUnsafeBufferPointer { live.add(interleaved: $0); plain.add(interleaved: $0) }
        let livePeak = try #require(live.truePeak(channel: 0)), plainPeak = try #require(plain.truePeak(channel: 0))
        #expect(abs(livePeak - -6.02) < 0.05, "\(livePeak)")
        #expect(plainPeak > livePeak + 0.3, "the step rings over the peak: \(plainPeak)")
    }

    @Test func silenceHasNoLoudness() throws {
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        let zeros = [Float](repeating: 0, count: 48_000 * 2 * 5)
        zeros.withUnsafeBufferPointer { meter.add(interleaved: $0) }
        #expect(meter.integrated == nil && meter.momentary == nil && meter.shortTerm == nil)
        #expect(meter.truePeak(channel: 0) == nil && meter.maxMomentary == nil)
        // A tone far below the −70 LUFS gate has a momentary level but no integrated loudness.
        let quiet = try tones([(5, -90)])
        #expect(quiet.integrated == nil && (quiet.momentary ?? 0) < -85)
    }

    @Test func bigEndianSamplesFromTheRecorderAreMeasuredTheSame() throws {
        let floats = try tones([(5, -20)], rate: 44_100, channels: 1)
        let meter = try LoudnessMeter(channelCount: 1, sampleRate: 44_100)
        let amplitude = pow(10, -20.0 / 20)
        var bytes = [UInt8]()
        for frame in 0..<(5 * 44_100) {
            let value = Int16((amplitude * sin(2 * .pi * 1_000 * Double(frame) / 44_100) * 32_768).rounded())
            bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
        }
        bytes.withUnsafeBytes { meter.add(bigEndianS16: $0) }
        #expect(abs((meter.integrated ?? 0) - (floats.integrated ?? 1)) < 0.01)
    }
}

/// The vectorised true-peak interpolator against libebur128's own (`EBUR128_MODE_TRUE_PEAK`), which it
/// replaces: noise with steep inter-sample peaks, fed in blocks of odd sizes (tails shorter than eight
/// outputs, blocks shorter than the interpolator's history), at each of the oversampling factors.
@Suite struct TruePeakScannerTests {
    @Test(arguments: [44_100, 48_000, 96_000, 192_000])
    func readsWhatLibebur128ReadsToAThousandthOfADecibel(rate: Int) throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let frames = rate * 3
        let samples: [Float] = (0..<(frames * 2)).map { index in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let noise = Float(Double(state >> 11) / Double(1 << 53) * 2 - 1)
            // Alternating near-full-scale samples now and then: their reconstruction overshoots.
            let burst = (index / 2) % (rate / 3) < 6 ? Float((index / 2) % 2 == 0 ? 0.9 : -0.9) : 0
            return 0.3 * noise + burst
        }
        let channels = 2
        guard let made = ebur128_init(UInt32(channels), UInt(rate), Int32(EBUR128_MODE_TRUE_PEAK.rawValue)) else {
            throw RecorderError(.invalidFormat, "libebur128 refused \(rate) Hz")
        }
        var reference: UnsafeMutablePointer<ebur128_state>? = made
        defer { ebur128_destroy(&reference) }
        var scanners = [TruePeakScanner](repeating: TruePeakScanner(sampleRate: rate), count: channels)
        samples.withUnsafeBufferPointer { all in
            var offset = 0
            for size in [1, 5, 7, 8, 13, 100, 4_410, 33_333].cycled(until: frames) {
                let count = min(size, frames - offset)
                guard count > 0 else { break }
                let start = all.baseAddress! + offset * channels
                _ = ebur128_add_frames_float(reference, start, count)
                for channel in 0..<channels { scanners[channel].add(start + channel, count: count, stride: channels) }
                offset += count
            }
        }
        for channel in 0..<channels {
            var expected = 0.0
            #expect(ebur128_true_peak(reference, UInt32(channel), &expected) == Int32(EBUR128_SUCCESS.rawValue))
            let peak = Double(max(scanners[channel].samplePeak, scanners[channel].interpolatedPeak))
            #expect(abs(20 * log10(peak) - 20 * log10(expected)) < 0.001, "\(rate) Hz, channel \(channel): \(peak) vs \(expected)")
            if rate < 192_000 {
                // The point of it: the interpolated peak is above the sample peak.
                #expect(scanners[channel].interpolatedPeak > scanners[channel].samplePeak * 1.05, "\(scanners[channel])")
            }
        }
    }
}

private extension Array where Element == Int {
    /// The sizes over and over until they add up to at least `total`.
    func cycled(until total: Int) -> [Int] {
        var result: [Int] = [], sum = 0, index = 0
        while sum < total {
            result.append(self[index % count])
            sum += self[index % count]
            index += 1
        }
        return result
    }
}

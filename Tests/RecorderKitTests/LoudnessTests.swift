// The loudness meter (libebur128) against EBU Tech 3341 and 3342 test signals, generated here.
import Foundation
import Testing
@testable import RecorderKit

/// Stereo 1 kHz tone segments, each at a per-channel peak level in dBFS, at `rate`; fed to a meter.
private func tones(_ segments: [(seconds: Double, dBFS: Double)], rate: Int = 48_000, frequency: Double = 1_000,
                   channels: Int = 2) throws -> LoudnessMeter {
    let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate)
    var phase = 0
    for segment in segments {
        let amplitude = pow(10, segment.dBFS / 20)
        let frames = Int((segment.seconds * Double(rate)).rounded())
        var block = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let value = Float(amplitude * sin(2 * .pi * frequency * Double(phase + frame) / Double(rate)))
            for channel in 0..<channels { block[frame * channels + channel] = value }
        }
        phase += frames
        block.withUnsafeBufferPointer { meter.add(interleaved: $0) }
    }
    return meter
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

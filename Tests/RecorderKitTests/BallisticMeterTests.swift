// VU, PPM and peak-hold ballistics against the standards' timing numbers, on generated signals.
import Foundation
import Testing
@testable import RecorderKit

private func sine(seconds: Double, dBFS: Double, frequency: Double = 1_000, rate: Int = 48_000, from start: Int = 0) -> [Float] {
    let amplitude = pow(10, dBFS / 20)
    return (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double(start + $0) / Double(rate))) }
}

/// Feeds `samples` one at a time and returns the meter's value after each.
private func trace<M>(_ meter: inout M, _ samples: [Float], add: (inout M, UnsafeBufferPointer<Float>) -> Void,
                      value: (M) -> Double) -> [Double] {
    samples.map { sample in
        [sample].withUnsafeBufferPointer { add(&meter, $0) }
        return value(meter)
    }
}

@Suite struct BallisticMeterTests {
    @Test func vuRisesTo99PercentIn300msWithAbout1PercentOvershootAndFallsAlike() throws {
        let rate = 48_000
        var meter = try VUMeter(sampleRate: rate)
        let rise = trace(&meter, sine(seconds: 2, dBFS: -18, rate: rate), add: { $0.add($1) }, value: \.needle)
        let steady = rise.last!
        #expect(abs(20 * log10(steady)) < 0.1, "a −18 dBFS sine reads 0 VU: \(20 * log10(steady))")
        let reached = Double(rise.firstIndex { $0 >= 0.99 * steady }!) / Double(rate)
        #expect(abs(reached - 0.3) <= 0.03, "99 % after \(reached) s")
        let overshoot = rise.max()! / steady - 1
        #expect(overshoot >= 0.005 && overshoot <= 0.02, "overshoot \(overshoot * 100) %")
        let fall = trace(&meter, [Float](repeating: 0, count: rate), add: { $0.add($1) }, value: \.needle)
        let fell = Double(fall.firstIndex { $0 <= 0.01 * steady }!) / Double(rate)
        #expect(abs(fell - 0.3) <= 0.03, "back to 1 % after \(fell) s")
    }

    @Test(arguments: PPMMeter.Kind.allCases)
    func ppmBurstsReadMinus2dBAndFallAtTheirRate(kind: PPMMeter.Kind) throws {
        let rate = 48_000
        var steadyMeter = try PPMMeter(kind: kind, sampleRate: rate)
        let steadyTone = sine(seconds: 1, dBFS: 0, frequency: 5_000, rate: rate)
        steadyTone.withUnsafeBufferPointer { steadyMeter.add($0) }
        let steady = steadyMeter.reading
        // 0 dB is a steady full-scale 1 kHz sine; at 5 kHz (9.6 samples a period) within 0.3 dB of it.
        #expect(abs(steady) < 0.3, "a full-scale tone reads about 0 dB: \(steady)")
        var burstMeter = try PPMMeter(kind: kind, sampleRate: rate)
        sine(seconds: kind.burst, dBFS: 0, frequency: 5_000, rate: rate).withUnsafeBufferPointer { burstMeter.add($0) }
        #expect(abs(burstMeter.reading - steady - -2) <= 0.2, "\(kind) burst reads \(burstMeter.reading - steady) dB")
        let drop = kind == .typeI ? 20.0 : 24.0
        let expected = kind == .typeI ? 1.7 : 2.8
        let fall = trace(&steadyMeter, [Float](repeating: 0, count: 4 * rate), add: { $0.add($1) }, value: \.reading)
        let fell = Double(fall.firstIndex { $0 <= steady - drop }!) / Double(rate)
        #expect(abs(fell - expected) <= expected * 0.1, "\(kind): \(drop) dB in \(fell) s")
    }

    @Test func peakIsHeldThenFallsAt20dBPerSecond() throws {
        let rate = 48_000
        var meter = try PeakHoldMeter(sampleRate: rate)
        let signal: [Float] = [0.5] + [Float](repeating: 0, count: 3 * rate)
        let peaks = trace(&meter, signal, add: { $0.add($1) }, value: \.peak)
        #expect(abs(peaks[Int(1.49 * Double(rate))] - -6.02) < 0.01, "held for 1.5 s")
        #expect(abs(peaks[Int(2.5 * Double(rate))] - -26.02) < 0.1, "then 20 dB/s: \(peaks[Int(2.5 * Double(rate))])")
        // A higher peak takes over at once.
        [Float(0.9)].withUnsafeBufferPointer { meter.add($0) }
        #expect(abs(meter.peak - 20 * log10(0.9)) < 0.001)
    }

    @Test func fullScaleSamplesAreCountedAndRunsMakeClipEvents() throws {
        var signal = [Float](repeating: 0.1, count: 10_000)
        for index in [100, 300, 500, 700, 900, 1_100, 1_300] { signal[index] = 1.0 }  // 7 single clips
        for index in 5_000..<5_005 { signal[index] = -1.0 }                            // one run of 5
        for run in [1, 3, 6] {
            var meter = try PeakHoldMeter(sampleRate: 48_000, clipRun: run)
            signal.withUnsafeBufferPointer { meter.add($0) }
            #expect(meter.clippedSamples == 12)
            #expect(meter.clipEvents == (run == 1 ? 8 : run == 3 ? 1 : 0), "clip run \(run): \(meter.clipEvents)")
        }
    }
}

// The meter arithmetic on known sample buffers, no server involved.
import Glibc
import Testing
@testable import RecorderKit

private func bigEndianBytes(_ samples: [Int16]) -> [UInt8] {
    samples.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0) >> 8), UInt8(truncatingIfNeeded: $0)] }
}

private func sine(frames: Int, amplitude: Double, frequency: Double = 1000, rate: Double = 44_100) -> [Int16] {
    (0..<frames).map { frame -> Int16 in
        let phase: Double = 2 * Double.pi * frequency * Double(frame) / rate
        return Int16((sin(phase) * amplitude).rounded())
    }
}

@Suite struct LevelMeterTests {
    @Test func fullScaleSineReadsZeroPeakAndMinus3Point01Average() {
        let state = LevelMeter.measure(bigEndianS16: bigEndianBytes(sine(frames: 4410, amplitude: 32_767)),
                                       channelCount: 1)[0]
        #expect(abs(state.peakPower - 0.0) < 0.01)
        #expect(abs(state.averagePower - (-3.0103)) < 0.01)
    }

    @Test func halfAmplitudeSineReadsMinus6Point02PeakAndMinus9Point03Average() {
        let state = LevelMeter.measure(bigEndianS16: bigEndianBytes(sine(frames: 4410, amplitude: 16_384)),
                                       channelCount: 1)[0]
        #expect(abs(state.peakPower - (-6.0206)) < 0.01)
        #expect(abs(state.averagePower - (-9.0309)) < 0.01)
    }

    @Test func digitalSilenceReadsTheFloor() {
        let state = LevelMeter.measure(bigEndianS16: [UInt8](repeating: 0, count: 8820), channelCount: 1)[0]
        #expect(state == LevelMeterState(averagePower: -160, peakPower: -160))
    }

    @Test func negativeFullScaleIsZeroDecibelsAndOneSampleInTenIsMinus20RMS() {
        var samples = [Int16](repeating: 0, count: 10)
        samples[3] = -32_768
        let state = LevelMeter.measure(bigEndianS16: bigEndianBytes(samples), channelCount: 1)[0]
        #expect(state.peakPower == 0)
        // RMS = sqrt(32768² / 10) / 32768 = 1/√10 → −10 dB.
        #expect(abs(state.averagePower - (-10)) < 0.001)
    }

    @Test func channelsAreMeteredSeparately() {
        let left = sine(frames: 4410, amplitude: 16_384)
        let right = sine(frames: 4410, amplitude: 4_096)
        let interleaved = zip(left, right).flatMap { [$0, $1] }
        let states = LevelMeter.measure(bigEndianS16: bigEndianBytes(interleaved), channelCount: 2)
        #expect(abs(states[0].peakPower - (-6.0206)) < 0.01)
        #expect(abs(states[1].peakPower - (-18.0618)) < 0.01)
        #expect(abs(states[1].averagePower - (-21.0721)) < 0.01)
    }

    @Test func decibelsClampAtTheFloor() {
        #expect(LevelMeter.decibels(0) == -160)
        #expect(LevelMeter.decibels(1e-12) == -160)
        #expect(abs(LevelMeter.decibels(0.5) - (-6.0206)) < 0.0001)
    }

    @Test func emptyBufferReadsSilence() {
        #expect(LevelMeter.measure(bigEndianS16: [], channelCount: 2)
                == [LevelMeterState(averagePower: -160, peakPower: -160), .init(averagePower: -160, peakPower: -160)])
    }

    /// One metering pass serves the buffer's level and the take's totals: the sums it leaves, added to
    /// the totals, give exactly what measuring the bytes again gives, and both agree with a per-sample
    /// reference (clipping and a NaN included), for every sample format.
    @Test(arguments: SampleFormat.allCases)
    func theBuffersSumsGiveTheSameTotalsAsASecondPass(format: SampleFormat) {
        let channels = 3, frames = 4410
        var generator = SystemRandomNumberGenerator()
        let scale: Double = switch format {
        case .int16: 32_768
        case .int24: 8_388_608
        case .int32: 2_147_483_648
        case .float32: 1
        }
        // Fractions of full scale, a few at and past it; one NaN for floats (it reads 0).
        var values = (0..<(channels * frames)).map { _ in Double.random(in: -0.9...0.9, using: &generator) }
        values[7] = -1
        values[8] = (scale - 1) / scale
        values[9 * channels + 1] = format == .float32 ? 1.25 : -1
        if format == .float32 { values[5] = .nan }
        var bytes: [UInt8] = []
        for value in values {
            switch format {
            case .int16:
                let sample = UInt16(bitPattern: Int16((value * scale).rounded(.down)))
                bytes += [UInt8(sample >> 8), UInt8(sample & 0xff)]
            case .int24:
                let sample = UInt32(bitPattern: Int32((value * scale).rounded(.down)))
                bytes += [UInt8((sample >> 16) & 0xff), UInt8((sample >> 8) & 0xff), UInt8(sample & 0xff)]
            case .int32:
                let sample = UInt32(bitPattern: Int32(clamping: Int64((value * scale).rounded(.down))))
                bytes += [UInt8(sample >> 24), UInt8((sample >> 16) & 0xff), UInt8((sample >> 8) & 0xff), UInt8(sample & 0xff)]
            case .float32:
                let sample = Float(value).bitPattern
                bytes += [UInt8(sample >> 24), UInt8((sample >> 16) & 0xff), UInt8((sample >> 8) & 0xff), UInt8(sample & 0xff)]
            }
        }
        var byBytes = LevelTotals(channelCount: channels, sampleFormat: format)
        var bySums = LevelTotals(channelCount: channels, sampleFormat: format)
        var sums = [ChannelSums](repeating: ChannelSums(), count: channels)
        var states = [LevelMeterState](repeating: LevelMeterState(averagePower: 0, peakPower: 0), count: channels)
        bytes.withUnsafeBytes { raw in
            byBytes.add(raw)
            let counted = sums.withUnsafeMutableBufferPointer { LevelMeter.sum(raw, sampleFormat: format, into: $0) }
            #expect(counted == frames)
            sums.withUnsafeBufferPointer { bySums.add($0, frames: counted) }
            states.withUnsafeMutableBufferPointer { LevelMeter.measure(raw, sampleFormat: format, into: $0) }
        }
        #expect(bySums == byBytes)
        #expect(states == sums.map { $0.level(frames: frames) })
        #expect(bySums.levels == states)
        for channel in 0..<channels {
            // The reference, sample by sample, from the values as stored.
            var peak = 0.0, sumOfSquares = 0.0, clipped: Int64 = 0
            for frame in 0..<frames {
                let stored = values[frame * channels + channel]
                let value = format == .float32 ? (stored.isNaN ? 0 : Double(Float(stored)))
                    : (stored * scale).rounded(.down) / scale
                peak = max(peak, abs(value))
                sumOfSquares += value * value
                if abs(value) >= (format == .float32 ? 1 : (scale - 1) / scale) { clipped += 1 }
            }
            #expect(bySums.clippedSamples[channel] == clipped)
            #expect(abs(Double(bySums.levels[channel].peakPower) - 20 * log10(peak)) < 1e-4)
            #expect(abs(Double(bySums.levels[channel].averagePower) - 10 * log10(sumOfSquares / Double(frames))) < 1e-4)
        }
        #expect(bySums.clippedSamples.reduce(0, +) == (format == .float32 ? 2 : 3))  // -1 twice and the positive maximum; floats: -1 and 1.25
    }
}

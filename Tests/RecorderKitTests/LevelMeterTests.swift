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
}

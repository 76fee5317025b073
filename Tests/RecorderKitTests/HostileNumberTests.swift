// Issue 12, point 2, through the public API: every numeric parameter fed the hostile table is either
// taken (and then works) or refused with `.invalidFormat` and one line naming the value and the range.
// None traps: a trap here would end the test process.
import Foundation
import Testing
@testable import RecorderKit

/// The issue's table as Doubles, and its Int counterparts (1e15, and 2^63 saturated to Int.max).
private let hostileDoubles: [Double] = [0, -1, 1e-9, 1e15, 1e300, .nan, .infinity, -.infinity, 0x1p63]
private let hostileInts: [Int] = [0, -1, 1_000_000_000_000_000, .max, .min, 1 << 62]

/// Runs `body`; it must succeed exactly when `taken`, and otherwise throw `.invalidFormat` with a
/// one-line message that contains `mentioning`.
private func expectTakenOrRefused<T>(_ value: Any, taken: Bool, mentioning: String,
                                     sourceLocation: SourceLocation = #_sourceLocation,
                                     _ body: () throws -> T) {
    do {
        _ = try body()
        #expect(taken, "\(value) was taken", sourceLocation: sourceLocation)
    } catch {
        guard let error = error as? RecorderError else {
            Issue.record("\(value): \(error) is not a RecorderError", sourceLocation: sourceLocation)
            return
        }
        #expect(!taken, "\(value) was refused: \(error.message)", sourceLocation: sourceLocation)
        #expect(error.code == .invalidFormat, "\(value): \(error.code)", sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n") && error.message.contains(mentioning),
                "\(value): \(error.message)", sourceLocation: sourceLocation)
    }
}

@Suite struct HostileNumberTests {
    @Test func streamFormatTakesOnlyItsRanges() throws {
        for value in hostileInts {
            expectTakenOrRefused(value, taken: false, mentioning: "sample rate") {
                try StreamFormat(sampleRate: value)
            }
            expectTakenOrRefused(value, taken: false, mentioning: "channel count") {
                try StreamFormat(channelCount: value)
            }
        }
        let format = StreamFormat.default
        for value in hostileDoubles {
            let frames = format.frames(seconds: value)
            // 0, 1e-9 (no frame) and 1e15 s (4.4e19 frames, past 2^61) ... only 0 and 1e-9 are in range.
            #expect((frames != nil) == (value == 0 || value == 1e-9), "\(value) s → \(String(describing: frames))")
        }
        #expect(format.frames(seconds: 1e-9) == 0)
        for value in hostileInts {
            let frames = format.frames(milliseconds: value)
            #expect((frames != nil) == (value == 0), "\(value) ms → \(String(describing: frames))")
        }
        #expect(format.frames(milliseconds: 100) == 4_410)
        // The longest duration still counts exactly; one millisecond more is refused.
        let most = Int.max / 44_100
        #expect(format.frames(milliseconds: most) == (most * 44_100 + 500) / 1000)
        #expect(format.frames(milliseconds: most + 1) == nil)
        #expect(try StreamFormat(sampleRate: 1).frames(milliseconds: .max) == Int.max / 1000 + 1)
    }

    /// The recorder checks its numbers before it connects: a refused value never reaches the server
    /// (here: none exists at the address, so a value taken by mistake would fail as unreachable).
    @Test func recorderParametersAreCheckedBeforeConnecting() {
        let nowhere = "unix:/nonexistent/recorder-hostile-numbers"
        func connect(_ body: () throws -> Recorder) throws {
            do {
                _ = try body()
            } catch let error as RecorderError where error.code == .serverUnreachable {
                return  // the numbers were taken; only the missing server stopped it
            }
        }
        for value in hostileInts {
            expectTakenOrRefused(value, taken: false, mentioning: "buffer count") {
                try connect { try Recorder(server: nowhere, bufferCount: value) }
            }
        }
        for value in hostileDoubles {
            // Durations in seconds: a 1e-9 s buffer is under 10 ms, 1e15 s over 2 s; none is taken.
            expectTakenOrRefused(value, taken: false, mentioning: "buffer duration") {
                try connect { try Recorder(server: nowhere, bufferDuration: value) }
            }
            expectTakenOrRefused(value, taken: false, mentioning: "queue duration") {
                try connect { try Recorder(server: nowhere, maxQueueDuration: value) }
            }
            let taken = value.isFinite && value >= 0
            expectTakenOrRefused(value, taken: taken, mentioning: "reconnect timeout") {
                try connect { try Recorder(server: nowhere, reconnectTimeout: value) }
            }
        }
    }

    @Test func meterOptionsAndMetersTakeOnlyTheirRanges() throws {
        for value in hostileDoubles {
            expectTakenOrRefused(value, taken: value == 0 || value == 1e-9, mentioning: "peak hold") {
                try MeterOptions(peakHold: value).validate()
            }
            expectTakenOrRefused(value, taken: value.isFinite && value > 0, mentioning: "peak decay") {
                try MeterOptions(peakDecay: value).validate()
            }
            expectTakenOrRefused(value, taken: value == 0 || value == -1, mentioning: "VU reference") {
                try MeterOptions(vuReference: value).validate()
            }
            // The meters check the same values themselves, and a StandardMeter whatever its kind.
            expectTakenOrRefused(value, taken: value == 0 || value == 1e-9, mentioning: "peak hold") {
                try PeakHoldMeter(sampleRate: 44_100, hold: value)
            }
            expectTakenOrRefused(value, taken: value.isFinite && value > 0, mentioning: "peak decay") {
                try PeakHoldMeter(sampleRate: 44_100, decay: value)
            }
            expectTakenOrRefused(value, taken: value == 0 || value == -1, mentioning: "VU reference") {
                try VUMeter(sampleRate: 44_100, reference: value)
            }
            for kind in MeterKind.allCases {
                expectTakenOrRefused(value, taken: value == 0 || value == -1, mentioning: "VU reference") {
                    try StandardMeter(kind: kind, channelCount: 1, sampleRate: 44_100, options: MeterOptions(vuReference: value))
                }
            }
        }
        for value in hostileInts {
            expectTakenOrRefused(value, taken: value > 0, mentioning: "clip run") {
                try MeterOptions(clipRun: value).validate()
            }
            expectTakenOrRefused(value, taken: false, mentioning: "Hz") { try PeakHoldMeter(sampleRate: value) }
            expectTakenOrRefused(value, taken: false, mentioning: "Hz") { try VUMeter(sampleRate: value) }
            expectTakenOrRefused(value, taken: false, mentioning: "Hz") { try PPMMeter(kind: .typeII, sampleRate: value) }
            expectTakenOrRefused(value, taken: false, mentioning: "Hz") { try LoudnessMeter(channelCount: 1, sampleRate: value) }
            expectTakenOrRefused(value, taken: false, mentioning: "channels") { try LoudnessMeter(channelCount: value, sampleRate: 48_000) }
            for kind in MeterKind.allCases {
                expectTakenOrRefused(value, taken: false, mentioning: "Hz") {
                    try StandardMeter(kind: kind, channelCount: 1, sampleRate: value)
                }
                expectTakenOrRefused(value, taken: false, mentioning: "channels") {
                    try StandardMeter(kind: kind, channelCount: value, sampleRate: 48_000)
                }
            }
        }
        // The edges of the ranges are taken, and the meters read there.
        var vu = try VUMeter(sampleRate: MeterLimits.ballisticSampleRates.lowerBound, reference: -60)
        [Float](repeating: 0.001, count: 8_000).withUnsafeBufferPointer { vu.add($0) }
        #expect(vu.reading.isFinite)
        var ppm = try PPMMeter(kind: .typeI, sampleRate: MeterLimits.ballisticSampleRates.lowerBound)
        [Float](repeating: 0.5, count: 8_000).withUnsafeBufferPointer { ppm.add($0) }
        #expect(ppm.reading.isFinite)
        var peak = try PeakHoldMeter(sampleRate: 1, hold: 3_600, decay: 1e300)
        [Float(0.5), 0].withUnsafeBufferPointer { peak.add($0) }
        #expect(abs(peak.peak - 20 * log10(0.5)) < 1e-9)
        _ = try LoudnessMeter(channelCount: MeterLimits.loudnessChannelCounts.upperBound,
                              sampleRate: MeterLimits.loudnessSampleRates.upperBound)
        _ = try LoudnessMeter(channelCount: 1, sampleRate: MeterLimits.loudnessSampleRates.lowerBound)
        _ = try StandardMeter(kind: .peak, channelCount: MeterLimits.channelCounts.upperBound, sampleRate: 1)
        expectTakenOrRefused(65, taken: false, mentioning: "65 channels") {
            try StandardMeter(kind: .loudness, channelCount: 65, sampleRate: 48_000)
        }
    }

    @Test func countsAndChannelsOutsideABufferReadNothing() throws {
        for value in hostileInts where value < 1 {
            #expect(LevelMeter.measure(bigEndianS16: [1, 2, 3, 4], channelCount: value).isEmpty)
            var totals = LevelTotals(channelCount: value)
            [UInt8](repeating: 0x7f, count: 8).withUnsafeBytes { totals.add(bigEndianS16: $0) }
            #expect(totals.clippedSamples.isEmpty)
        }
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        for value in hostileInts {
            #expect(meter.truePeak(channel: value) == nil)
        }
        for value in hostileDoubles {
            let decibels = LevelMeter.decibels(value)
            #expect(!decibels.isNaN && decibels >= LevelMeterState.silence, "\(value) → \(decibels)")
        }
    }
}

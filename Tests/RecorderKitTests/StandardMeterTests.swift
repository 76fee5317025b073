// StandardMeter: each meter kind over interleaved 16-bit big-endian buffers, channel by channel.
import Foundation
import Testing
@testable import RecorderKit

/// Two channels of 1 kHz sine, 0.8 s at (−12, −30) dBFS then 0.2 s of silence, as the recorder's
/// big-endian bytes, and each channel's samples as the floats they stand for.
private func stereoSignal(rate: Int = 44_100) -> (bytes: [UInt8], channels: [[Float]]) {
    var bytes = [UInt8]()
    var channels: [[Float]] = [[], []]
    for frame in 0..<rate {
        let on = frame < rate * 8 / 10
        for (channel, level) in [-12.0, -30.0].enumerated() {
            let value = on ? Int16((pow(10, level / 20) * sin(2 * .pi * 1_000 * Double(frame) / Double(rate)) * 32_768).rounded()) : 0
            bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            channels[channel].append(Float(value) / 32_768)
        }
    }
    return (bytes, channels)
}

@Suite struct StandardMeterTests {
    /// Fed 100 ms buffers of interleaved big-endian samples, each channel reads what a meter fed that
    /// channel alone reads, at every buffer.
    @Test(arguments: [MeterKind.peak, .vu, .ppm1, .ppm2])
    func eachChannelReadsAsItsOwnMeter(kind: MeterKind) throws {
        let (bytes, channels) = stereoSignal()
        let meter = try StandardMeter(kind: kind, channelCount: 2, sampleRate: 44_100)
        var peaks = [PeakHoldMeter](repeating: try PeakHoldMeter(sampleRate: 44_100), count: 2)
        var vus = [VUMeter](repeating: try VUMeter(sampleRate: 44_100), count: 2)
        var ppms = [PPMMeter](repeating: try PPMMeter(kind: kind == .ppm1 ? .typeI : .typeII, sampleRate: 44_100), count: 2)
        for buffer in 0..<10 {
            bytes[(buffer * 17_640)..<((buffer + 1) * 17_640)].withUnsafeBytes { meter.add(bigEndianS16: $0) }
            var expected = [Double]()
            for channel in 0..<2 {
                channels[channel][(buffer * 4_410)..<((buffer + 1) * 4_410)].withUnsafeBufferPointer { samples in
                    switch kind {
                    case .peak: peaks[channel].add(samples); expected.append(peaks[channel].peak)
                    case .vu: vus[channel].add(samples); expected.append(vus[channel].reading)
                    default: ppms[channel].add(samples); expected.append(ppms[channel].reading)
                    }
                }
            }
            #expect(meter.values == expected, "\(kind), buffer \(buffer)")
            if buffer == 7 {
                // The channels differ as their signals do: 18 dB apart after 0.8 s of tone.
                #expect(abs(meter.values[0] - meter.values[1] - 18) < 0.2, "\(meter.values)")
            }
        }
        #expect(meter.loudness == nil)
    }

    @Test func theLoudnessKindReadsAsALoudnessMeterWithTruePeaksPerChannel() throws {
        let (bytes, _) = stereoSignal()
        let meter = try StandardMeter(kind: .loudness, channelCount: 2, sampleRate: 44_100)
        // The live meter keeps histograms (constant memory); integrated and LRA come from them.
        let reference = try LoudnessMeter(channelCount: 2, sampleRate: 44_100, histogram: true)
        let blocks = try LoudnessMeter(channelCount: 2, sampleRate: 44_100)
        bytes.withUnsafeBytes { meter.add(bigEndianS16: $0); reference.add(bigEndianS16: $0); blocks.add(bigEndianS16: $0) }
        let loudness = try #require(meter.loudness)
        #expect(loudness.momentary == reference.momentary && loudness.shortTerm == reference.shortTerm)
        #expect(loudness.momentary == blocks.momentary && loudness.shortTerm == blocks.shortTerm)
        #expect(loudness.integrated == reference.integrated && loudness.integrated != nil)
        #expect(abs((loudness.integrated ?? 0) - (blocks.integrated ?? 0)) < 0.1, "\(loudness) vs \(String(describing: blocks.integrated))")
        #expect(meter.values == [reference.truePeak(channel: 0)!, reference.truePeak(channel: 1)!])
        #expect(abs(meter.values[0] - -12) < 0.1 && abs(meter.values[1] - -30) < 0.1)
        #expect(meter.clippedSamples == [0, 0] && meter.clipEvents == [0, 0])
    }

    @Test func theVUReferenceIsTheLevelThatReadsZero() throws {
        let (bytes, _) = stereoSignal()
        let meter = try StandardMeter(kind: .vu, channelCount: 2, sampleRate: 44_100, options: MeterOptions(vuReference: -12))
        bytes[0..<(8 * 17_640)].withUnsafeBytes { meter.add(bigEndianS16: $0) }
        #expect(abs(meter.values[0]) < 0.1, "\(meter.values)")
        #expect(abs(meter.values[1] - -18) < 0.1, "\(meter.values)")
    }

    @Test func badOptionsAreRefusedWithWhatToUse() {
        #expect(throws: RecorderError.self) { try StandardMeter(kind: .peak, channelCount: 1, sampleRate: 44_100, options: MeterOptions(clipRun: 0)) }
        #expect(throws: RecorderError.self) { try StandardMeter(kind: .vu, channelCount: 0, sampleRate: 44_100) }
        do {
            _ = try StandardMeter(kind: .peak, channelCount: 1, sampleRate: 44_100, options: MeterOptions(peakDecay: 0))
            Issue.record("a decay of 0 dB/s was accepted")
        } catch {
            #expect(error.code == .invalidFormat && error.message == "invalid peak decay 0.0 dB/s: use a number above 0, e.g. 20")
        }
    }
}

// FileAnalysis's shortcuts against libebur128 used the plain way: true peak over parallel segments, and
// the maximum momentary and short-term loudness from 100 ms step energies.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// 25 s of stereo at 48 kHz: quiet noise, a loudness that changes every 0.7 s, and on each channel one
/// inter-sample peak (a 12 kHz burst under a 2 ms envelope, peaking half a sample after a sample) at a
/// 10 s segment boundary, where a scan that mishandled the boundary would err.
private func testSignal() -> [Int16] {
    let rate = 48_000.0
    let noise = noiseSamples(count: 25 * 48_000 * 2, seed: 7)
    var samples = [Int16](repeating: 0, count: noise.count)
    for frame in 0..<(25 * 48_000) {
        let level = [0.02, 0.1, 0.05, 0.2, 0.01][(frame / 33_600) % 5]
        for channel in 0..<2 {
            let boundary = channel == 0 ? 480_000.5 : 960_000.5
            let t = (Double(frame) - boundary) / rate
            let burst = abs(t) < 0.02 ? 0.85 * exp(-0.5 * (t / 0.002) * (t / 0.002)) * cos(2 * .pi * 12_000 * t) : 0
            let value = level * Double(noise[2 * frame + channel]) / 32_768 + burst
            samples[2 * frame + channel] = Int16((value * 32_768).rounded())
        }
    }
    return samples
}

@Suite struct FileAnalysisTests {
    @Test func theShortcutsGiveWhatLibebur128GivesUsedThePlainWay() throws {
        let samples = testSignal()
        let path = try temporaryDirectory() + "/signal.wav"
        try writeWAV(path, samples: samples, channels: 2, sampleRate: 48_000)
        let analysis = try FileAnalysis.analyze(path: path)

        // One state over the whole file, fed 100 ms at a time, its windows read after every step.
        let reference = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        let floats = samples.map { Float($0) / 32_768 }
        var maxMomentary = -Double.infinity, maxShortTerm = -Double.infinity
        floats.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 9_600) {
                reference.add(interleaved: UnsafeBufferPointer(rebasing: all[start..<(start + 9_600)]))
                maxMomentary = max(maxMomentary, reference.momentary ?? -.infinity)
                maxShortTerm = max(maxShortTerm, reference.shortTerm ?? -.infinity)
            }
        }
        for channel in 0..<2 {
            let truePeak = try #require(analysis.truePeak[channel])
            #expect(abs(truePeak - (reference.truePeak(channel: channel) ?? 0)) < 1e-9, "channel \(channel): \(truePeak)")
            // The burst's true peak is what decides it, not the noise or a sample.
            #expect(truePeak > (analysis.samplePeak[channel] ?? 0) + 2, "\(truePeak) dBTP, sample peak \(String(describing: analysis.samplePeak[channel]))")
        }
        #expect(abs((analysis.maxMomentary ?? 0) - maxMomentary) < 1e-6, "\(String(describing: analysis.maxMomentary)) vs \(maxMomentary)")
        #expect(abs((analysis.maxShortTerm ?? 0) - maxShortTerm) < 1e-6, "\(String(describing: analysis.maxShortTerm)) vs \(maxShortTerm)")
        #expect(analysis.integrated == reference.integrated)
    }
}

// The drift correction's resampler (LaneResampler over libsoxr's variable-rate mode): where its output
// puts the input's audio.
@testable import RecorderKit
import Testing

struct LaneResamplerTests {
    /// Impulses every 8 000 input frames, fed in chunks of 800 after `primed` frames of silence: the
    /// frame each comes out at (its largest sample), against where the resampler says it stands.
    func impulses(ratio: Double, primed: Int) throws -> [(found: Int, expected: Double)] {
        let resampler = try #require(LaneResampler(channels: 1, chunkFrames: 4_096, ratio: ratio, primed: primed))
        let total = primed + 8_000 * 12
        var output: [Float] = []
        var fed = 0
        while fed < total {
            let frames = min(800, total - fed)
            for frame in 0..<frames {
                let position = fed + frame - primed
                resampler.inputBuffer[frame] = position >= 0 && position % 8_000 == 4_000 ? 0.5 : 0
            }
            output.append(contentsOf: resampler.process(frames: frames, ratio: ratio))
            fed += frames
        }
        // Output frame k stands for input position k × ratio after the priming.
        return (0..<11).map { index in
            let expected = Double(4_000 + index * 8_000) / ratio
            let window = max(0, Int(expected) - 300)..<min(output.count, Int(expected) + 300)
            let found = window.max { abs(output[$0]) < abs(output[$1]) } ?? -1
            return (found, expected)
        }
    }

    /// Within a frame (the largest sample of an impulse between two frames is the nearer one, and the
    /// priming's skip is rounded), whichever way the clock drifts and however long the priming: soxr's own
    /// delay left two frames more before `uncompensatedDelay` was skipped (a corrected source stood two
    /// frames late against the first).
    @Test(arguments: [1 + 200e-6, 1 - 300e-6, 1.004], [0, 512])
    func anImpulseComesOutWhereTheRatioPutsIt(ratio: Double, primed: Int) throws {
        let found = try impulses(ratio: ratio, primed: primed)
        #expect(found.count == 11)
        for (frame, expected) in found {
            #expect(abs(Double(frame) - expected) <= 1, "ratio \(ratio), primed \(primed): at \(frame), expected \(expected)")
        }
    }
}

// BS.1770 gating and EBU Tech 3342 loudness range over a meter's 100 ms step energies, as libebur128's block mode computes them.
import Glibc

/// The blocks a loudness meter's 100 ms steps make, and the integrated loudness and loudness range from
/// them: the same blocks, gates and percentile picks as libebur128's block mode (ebur128.c,
/// `ebur128_gated_loudness` and `ebur128_loudness_range_multiple`), so that a file's meter asks
/// libebur128 for the K-weighting and one sum of squares per step, not for the block sums it would
/// otherwise make again at every step (400 ms every 100 ms and 3 s every second: seven more passes over
/// each sample, most of an analysis's loudness time).
///
/// Invariants: `steps` counts every step fed; a gating block is the mean energy of steps `n-3...n` for
/// every `n >= 4` (libebur128's first block ends at 400 ms, the next every 100 ms); a short-term block is
/// the mean of steps `n-29...n` for `n = 30, 40, 50, …` (its first at 3 s, then every second). Only the
/// blocks at or above the absolute gate (−70 LUFS) are kept, as libebur128 keeps them. A step's energy is
/// the K-weighted mean square summed over the channels with their weights: the mean of four steps is the
/// 400 ms block's energy, up to rounding in the last bits.
struct GatedBlocks {
    /// −70 LUFS as an energy: blocks under it are not kept (libebur128's `histogram_energy_boundaries[0]`).
    static let absoluteGate = pow(10.0, (-70.0 + 0.691) / 10.0)
    /// 10 LU under the absolute-gated mean: the integrated loudness's relative gate.
    static let relativeGate = pow(10.0, -10.0 / 10.0)
    /// 20 LU under the short-term blocks' mean: the loudness range's relative gate.
    static let rangeGate = pow(10.0, -20.0 / 10.0)

    /// Steps fed so far.
    private(set) var steps = 0
    /// Gating blocks (400 ms) at or above the absolute gate, in order.
    private var blocks: [Double] = []
    /// Short-term blocks (3 s) at or above the absolute gate, in order.
    private var shortTermBlocks: [Double] = []

    /// After each 100 ms step: the mean energy of the last 4 steps and of the last 30 (zero for steps
    /// before the first, which are not asked for here).
    mutating func stepEnded(lastFour: Double, lastThirty: Double) {
        steps += 1
        if steps >= 4, lastFour >= Self.absoluteGate { blocks.append(lastFour) }
        if steps >= 30, (steps - 30) % 10 == 0, lastThirty >= Self.absoluteGate { shortTermBlocks.append(lastThirty) }
    }

    /// Gated LUFS: the mean of the kept blocks at or above a tenth of their mean; nil when none is kept.
    var integrated: Double? {
        guard !blocks.isEmpty else { return nil }
        var sum = 0.0
        for block in blocks { sum += block }
        let threshold = sum / Double(blocks.count) * Self.relativeGate
        var gated = 0.0
        var count = 0
        for block in blocks where block >= threshold {
            gated += block
            count += 1
        }
        return count > 0 ? Self.loudness(gated / Double(count)) : nil
    }

    /// LU: the 95th minus the 10th percentile of the short-term blocks at or above a hundredth of their
    /// mean (picked at index `(n − 1) · p + 0.5`, as libebur128 does); 0 when none is kept.
    var loudnessRange: Double {
        guard !shortTermBlocks.isEmpty else { return 0 }
        let sorted = shortTermBlocks.sorted()
        var sum = 0.0
        for block in sorted { sum += block }
        let threshold = sum / Double(sorted.count) * Self.rangeGate
        let gated = sorted.drop { $0 < threshold }
        guard !gated.isEmpty else { return 0 }
        let high = gated[gated.startIndex + Int(Double(gated.count - 1) * 0.95 + 0.5)]
        let low = gated[gated.startIndex + Int(Double(gated.count - 1) * 0.1 + 0.5)]
        return Self.loudness(high) - Self.loudness(low)
    }

    /// LUFS of a positive energy, as libebur128 converts it.
    private static func loudness(_ energy: Double) -> Double { 10 * (log(energy) / log(10.0)) - 0.691 }
}

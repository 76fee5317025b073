// A file brought to a loudness by one gain, as `recorder normalize` does it: measured, refused where the
// true peak would pass its ceiling, then copied with the gain.
import Glibc

/// A file brought to a target integrated loudness (EBU R128) by one linear gain: the same container,
/// encoding, rate, channels, markers and metadata (text fields, channel map, bext and iXML chunks), the
/// bext loudness fields updated. Never a limiter,
/// a compressor or a resample: when the gain would lift the true peak above the ceiling, nothing is
/// written and the error names the loudest target one gain reaches.
public struct Normalization: Sendable, Hashable {
    /// The file measured and copied.
    public let input: String
    /// The file written.
    public let output: String
    /// The input's integrated loudness, LUFS.
    public let measuredLoudness: Double
    /// The gain applied, dB: the target less `measuredLoudness`.
    public let gain: Double
    /// The input's highest true peak over its channels, dBTP (nil: silence).
    public let measuredTruePeak: Double?
    /// Frames copied.
    public let frames: Int64

    /// The output's integrated loudness: the target (a gain moves it by exactly its dB).
    public var loudness: Double { measuredLoudness + gain }
    /// The output's highest true peak, dBTP.
    public var truePeak: Double? { measuredTruePeak.map { $0 + gain } }

    /// The targets accepted, LUFS.
    public static let targetRange: ClosedRange<Double> = -70...0
    /// The true-peak ceilings accepted, dBTP.
    public static let truePeakCeilingRange: ClosedRange<Double> = -30...0

    /// Measures `input` (any file libsndfile reads) and writes `output` (a new file, or a replaced one
    /// with `overwrite`) at `target` LUFS, if its true peak stays at or below `truePeakCeiling` dBTP.
    /// Any thread; it reads and writes the whole file before it returns.
    /// - Throws: `.invalidFormat` for a target or ceiling out of range; `.loudnessUnreachable` for a
    ///   silent file or a target the ceiling forbids (naming the loudest one reachable); the errors of
    ///   reading `input` and creating or writing `output`.
    public static func normalize(_ input: String, to output: String, target: Double, truePeakCeiling: Double = -1,
                                 overwrite: Bool = false) throws(RecorderError) -> Normalization {
        guard target.isFinite, targetRange.contains(target) else {
            throw RecorderError(.invalidFormat,
                "invalid target \(target) LUFS: use \(Int(targetRange.lowerBound)) to \(Int(targetRange.upperBound)) LUFS, "
                + "e.g. -16 (podcasts) or -23 (EBU R128 broadcast)")
        }
        guard truePeakCeiling.isFinite, truePeakCeilingRange.contains(truePeakCeiling) else {
            throw RecorderError(.invalidFormat,
                "invalid true-peak ceiling \(truePeakCeiling) dBTP: use \(Int(truePeakCeilingRange.lowerBound)) to "
                + "\(Int(truePeakCeilingRange.upperBound)) dBTP, e.g. -1")
        }
        let analysis = try FileAnalysis.analyze(path: input)
        guard let measured = analysis.integrated else {
            throw RecorderError(.loudnessUnreachable,
                "cannot normalize '\(input)': "
                + (analysis.loudnessNotMeasured ?? "it is silent (no loudness above EBU R128's gate to measure)"))
        }
        let gain = target - measured
        let peak = analysis.truePeak.compactMap { $0 }.max()
        if let peak, peak + gain > truePeakCeiling {
            let reachable = ((truePeakCeiling - peak + measured) * 10).rounded(.down) / 10
            throw RecorderError(.loudnessUnreachable,
                "cannot bring '\(input)' to \(oneDecimal(target)) LUFS with one gain: its true peak would reach "
                + "\(oneDecimal(peak + gain)) dBTP, above the \(oneDecimal(truePeakCeiling)) dBTP ceiling; the loudest target "
                + "within it is \(oneDecimal(reachable)) LUFS (or raise the ceiling)")
        }
        let factor = pow(10, gain / 20)
        let frames = try GainCopy.copy(from: input, to: output, gain: factor, overwrite: overwrite) { info in
            var updated = info
            updated.loudnessValue = target
            updated.maxTruePeakLevel = peak.map { $0 + gain }
            updated.maxMomentaryLoudness = analysis.maxMomentary.map { $0 + gain }
            updated.maxShortTermLoudness = analysis.maxShortTerm.map { $0 + gain }
            updated.loudnessRange = analysis.loudnessRange
            return updated
        }
        return Normalization(input: input, output: output, measuredLoudness: measured, gain: gain,
                             measuredTruePeak: peak, frames: frames)
    }
}

/// A level for a message: one decimal ("-16.0", "-1.5").
func oneDecimal(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    guard tenths.isFinite, abs(tenths) < 1e15 else { return String(value) }
    let whole = Int64(tenths)
    return (whole < 0 ? "-" : "") + "\(abs(whole) / 10).\(abs(whole) % 10)"
}

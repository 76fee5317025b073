// `recorder normalize IN OUT --target LUFS`: one gain to a loudness, refused where the true peak would pass its ceiling.
import ArgumentParser
import RecorderKit

struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write IN at an EBU R128 loudness into OUT with one gain: same container, format, rate, channels, markers and metadata.",
        discussion: """
            Never a limiter, a compressor or a resample: when the gain would lift the true peak above \
            --true-peak, nothing is written and the loudest target within it is named. A WAV or RF64 \
            file's bext loudness is set to what OUT holds.
            """)

    @Argument(help: "The file to measure (anything libsndfile reads).")
    var input: String

    @Argument(help: "The file to write; it must not exist unless --force is given.")
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The integrated loudness to reach, -70 to 0 LUFS (e.g. -16 for podcasts, -23 for broadcast).", valueName: "LUFS"))
    var target: Double

    @Option(name: .customLong("true-peak"), parsing: .unconditional, help: ArgumentHelp("The highest true peak OUT may have, -30 to 0 dBTP.", valueName: "dBTP"))
    var truePeak: Double = -1

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    func run() throws {
        let result: Normalization
        do {
            result = try Normalization.normalize(input, to: output, target: target, truePeakCeiling: truePeak, overwrite: force)
        } catch {
            throw fail(error)
        }
        writeOutput("\(output): \(format(result.loudness, 1)) LUFS (\(format(result.measuredLoudness, 1)) LUFS "
            + "\(result.gain < 0 ? "-" : "+") \(format(abs(result.gain), 2)) dB), true peak "
            + "\(result.truePeak.map { format($0, 1) } ?? "-inf") dBTP, \(result.frames) frames\n")
    }
}

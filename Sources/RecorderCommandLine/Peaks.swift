// `recorder peaks FILE -o OUT.dat|OUT.json`: waveform data in BBC audiowaveform's formats, for peaks.js
// and wavesurfer.js.
import ArgumentParser
import RecorderKit
import RecorderPictures

struct Peaks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a file's waveform data (min/max per pixel) in audiowaveform's .dat or .json format.",
        discussion: """
            As audiowaveform: channels mixed into one unless --split-channels; binary version 2 (version 1 with \
            --data-version 1, one channel only); 16-bit values unless --bits 8 (the 16-bit value's high byte).
            """)

    @Argument(help: "A sound file (anything libsndfile reads).")
    var file: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The peak data file: .dat (binary) or .json.", valueName: "OUT"))
    var output: String

    @Option(name: [.customShort("z"), .customLong("samples-per-pixel")], parsing: .unconditional,
            help: ArgumentHelp("Frames per min/max pair (default 256).", valueName: "N"))
    var samplesPerPixel: Int?

    @Option(name: .customLong("pixels-per-second"), parsing: .unconditional,
            help: ArgumentHelp("Pairs per second instead (frames per pair: the rate divided by this, rounded).", valueName: "N"))
    var pixelsPerSecond: Int?

    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("8 or 16.", valueName: "BITS"))
    var bits: Int = 16

    @Option(name: .customLong("data-version"), parsing: .unconditional, help: ArgumentHelp("1 or 2.", valueName: "N"))
    var dataVersion: Int = 2

    @Flag(name: .customLong("split-channels"), help: "Every channel's own waveform (version 2), not their mix.")
    var splitChannels = false

    func validate() throws {
        guard bits == 8 || bits == 16 else { throw ValidationError("--bits \(bits): give 8 or 16") }
        guard dataVersion == 1 || dataVersion == 2 else { throw ValidationError("--data-version \(dataVersion): give 1 or 2") }
        if dataVersion == 1 && splitChannels { throw ValidationError("--split-channels needs --data-version 2: version 1 holds one channel") }
        if samplesPerPixel != nil && pixelsPerSecond != nil {
            throw ValidationError("give --samples-per-pixel or --pixels-per-second, not both")
        }
        if let samplesPerPixel, !(1...Int(Int32.max)).contains(samplesPerPixel) {
            throw ValidationError("--samples-per-pixel \(samplesPerPixel) is not from 1 to \(Int32.max)")
        }
        if let pixelsPerSecond, !(1...1_000_000).contains(pixelsPerSecond) {
            throw ValidationError("--pixels-per-second \(pixelsPerSecond) is not from 1 to 1000000")
        }
        let lower = output.lowercased()
        guard lower.hasSuffix(".dat") || lower.hasSuffix(".json") else {
            throw ValidationError("-o '\(output)': name a .dat or .json file")
        }
    }

    func run() throws {
        do throws(RecorderError) {
            let peaks = try PeakFile(path: output, format: PeakFormat(
                version: dataVersion, mixed: !splitChannels, bits: bits, samplesPerPixel: samplesPerPixel ?? 256,
                pixelsPerSecond: pixelsPerSecond))
            try FileAnalysis.scan(path: file, taps: [peaks])
            if let failure = peaks.failure { throw failure }
        } catch {
            throw fail(error)
        }
    }
}

// `recorder analyze FILE...`: levels and EBU R128 loudness of whole files, as text or JSON lines.
import ArgumentParser
import Dispatch
import Glibc
import Locking
import RecorderKit
import RecorderPictures

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure files: duration, sample and true peak, RMS, loudness (EBU R128), LRA, clipping, DC; draw them.",
        discussion: """
            One pass over each file gives every number and picture asked for. With several files, "{}" in \
            --plot, --spectrogram and --curve stands for each file's name without its extension.
            """)

    @Argument(help: "Sound files (anything libsndfile reads: WAV, AIFF, CAF, FLAC, …).")
    var files: [String]

    @Flag(help: "One JSON object per file per line.")
    var json = false

    @Flag(help: "Write each file's loudness into it: ReplayGain 2.0 (-18 LUFS) in FLAC, Ogg Vorbis and MP3, R128 gains (-23 LUFS) in Opus, the bext loudness in WAV and RF64, as loudgain and rsgain do.")
    var tag = false

    @Flag(help: "With --tag: the files are one album; each also gets the album's gain and peak.")
    var album = false

    @Option(help: ArgumentHelp("Draw the file: waveform, loudness curves, target band, overs, markers and gaps (.svg or .png).", valueName: "OUT"))
    var plot: String?

    @Option(help: ArgumentHelp("Draw its spectrogram (.png or .svg).", valueName: "OUT"))
    var spectrogram: String?

    @Flag(name: .customLong("log-frequency"), help: "The spectrogram's frequency on a logarithmic scale (20 Hz up).")
    var logFrequency = false

    @Option(help: ArgumentHelp("Write the momentary and short-term loudness every 100 ms (.csv or .json).", valueName: "OUT"))
    var curve: String?

    @Flag(help: "List every true-peak over and clipped run: start, length, channel, level.")
    var overs = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The plot's target loudness, -70 to 0 LUFS (default -23; -16 for podcasts, -24 for ATSC A/85).", valueName: "LUFS"))
    var target: Double = -23

    @Option(parsing: .unconditional, help: ArgumentHelp("The true-peak ceiling above which a peak is an over, -30 to 0 dBTP.", valueName: "dBTP"))
    var ceiling: Double = -1

    @Option(parsing: .unconditional, help: ArgumentHelp("Picture width in pixels, 320 to 20000.", valueName: "PIXELS"))
    var width: Int = 1_600

    @Option(parsing: .unconditional, help: ArgumentHelp("Picture height in pixels (default 900 for a plot, 600 for a spectrogram), 240 to 20000.", valueName: "PIXELS"))
    var height: Int?

    @Option(name: [.customShort("j"), .customLong("jobs")], parsing: .unconditional,
            help: ArgumentHelp("Threads in all (default: one per core): up to N files at once, a file alone on all N; results are printed in the order given.", valueName: "N"))
    var jobs: Int?

    func validate() throws {
        if album && !tag { throw ValidationError("--album goes with --tag: add --tag to write the album's gain") }
        if tag, let untaggable = files.first(where: { FileType(path: $0).map { !LoudnessTags.taggedTypes.contains($0) } ?? true }) {
            throw ValidationError("cannot tag '\(untaggable)': loudness tags go into .flac, .ogg, .opus, .mp3, .wav and .rf64 files")
        }
        guard target.isFinite, (-70...0).contains(target) else { throw ValidationError("--target \(target) is not a loudness from -70 to 0 LUFS: give e.g. -23 or -16") }
        guard ceiling.isFinite, (-30...0).contains(ceiling) else { throw ValidationError("--ceiling \(ceiling) is not from -30 to 0 dBTP: give e.g. -1") }
        guard (320...20_000).contains(width) else { throw ValidationError("--width \(width) is not from 320 to 20000 pixels") }
        if let height, !(240...20_000).contains(height) { throw ValidationError("--height \(height) is not from 240 to 20000 pixels") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs \(jobs) is not from 1 to 256") }
        if let plot, PictureKind(path: plot) == nil { throw ValidationError("--plot '\(plot)': name a .svg or .png file") }
        if let spectrogram, PictureKind(path: spectrogram) == nil { throw ValidationError("--spectrogram '\(spectrogram)': name a .png or .svg file") }
        if let curve, !curve.lowercased().hasSuffix(".csv") && !curve.lowercased().hasSuffix(".json") {
            throw ValidationError("--curve '\(curve)': name a .csv or .json file")
        }
        if files.count > 1, let output = [plot, spectrogram, curve].compactMap({ $0 }).first(where: { !$0.contains("{}") }) {
            throw ValidationError("'\(output)' would be written for each of \(files.count) files: put {} in its name (it stands for each file's name)")
        }
    }

    /// `template` for the file at `path`: "{}" replaced by its name without folder and extension.
    static func output(_ template: String, for path: String) -> String {
        guard template.contains("{}") else { return template }
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        var result = ""
        var rest = Substring(template)
        while let range = rest.firstRange(of: "{}") {
            result += rest[..<range.lowerBound] + name
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    func run() throws {
        var albumLoudness: (integrated: Double, samplePeak: Double)?
        if album {
            do throws(RecorderError) {
                let measured = try FileAnalysis.albumLoudness(paths: files)
                guard let integrated = measured.integrated else {
                    throw RecorderError(.loudnessUnreachable, "cannot tag the album: it is silent")
                }
                albumLoudness = (integrated, measured.samplePeak)
            } catch {
                throw fail(error)
            }
        }
        // `-j N` is the number of threads the analysis works on in all, as make's and xz's are: N files
        // at once, each on one thread, or fewer files sharing them out (one file alone: N threads for its
        // true peak and its loudness). By default one per core.
        let budget = jobs ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let parallel = min(files.count, budget)
        let threads = max(1, budget / max(1, parallel))
        let results = Locked([Int: Outcome]())
        let next = Locked(0)
        let album = albumLoudness
        let command = self
        // `parallel` workers (serial queues: each its own thread, however many cores) take the files in
        // turn; this thread prints each file's result in the order given as soon as it is there.
        let done = DispatchGroup()
        for worker in 0..<max(1, parallel) {
            DispatchQueue(label: "recorder.analyze.\(worker)").async(group: done) {
                while let index = next.withLock({ value -> Int? in
                    defer { value += 1 }
                    return value < command.files.count ? value : nil
                }) {
                    let outcome = command.analyse(command.files[index], album: album, threads: threads)
                    results.withLockBroadcasting { $0[index] = outcome }
                }
            }
        }
        var status: Int32?
        for index in files.indices {
            _ = results.wait { $0[index] != nil }
            let outcome = results.withLock { $0.removeValue(forKey: index)! }
            for line in outcome.messages { writeLine(line) }
            writeOutput(outcome.output)
            if status == nil, let failed = outcome.status { status = failed }
        }
        done.wait()
        if let status { throw ExitCode(status) }
    }

    /// What one file gives: its lines for standard output, its lines for standard error (warnings and
    /// failures), and its exit status when it failed.
    struct Outcome: Sendable {
        var output = ""
        var messages: [String] = []
        var status: Int32?
    }

    /// Measures, tags and draws one file (on a worker thread: it prints nothing itself).
    func analyse(_ path: String, album: (integrated: Double, samplePeak: Double)?, threads: Int) -> Outcome {
        var outcome = Outcome()
        let plotOptions = PlotOptions(width: width, height: height ?? 900, target: target)
        let spectrogramOptions = SpectrogramOptions(width: width, height: height ?? 600, logarithmic: logFrequency)
        let request = AnalysisRequest(waveformColumns: plot == nil ? 0 : plotOptions.columns,
                                      loudnessSeries: plot != nil || curve != nil, overs: overs || plot != nil,
                                      ceiling: ceiling, threads: threads)
        let spectrum = spectrogram == nil ? nil : spectrogramOptions.tap()
        do throws(RecorderError) {
            let analysis = try FileAnalysis.analyze(path: path, request: request, taps: spectrum.map { [$0] } ?? [])
            if analysis.missingFrames > 0 {
                outcome.messages.append("recorder: warning: '\(path)' ends \(analysis.missingFrames) frames "
                    + "(\(format(Double(analysis.missingFrames) / Double(max(analysis.sampleRate, 1)), 3)) s) before its "
                    + "header says; what it holds was analysed (a truncated copy or an interrupted recording?)")
            }
            let tags = tag ? try LoudnessTags.write(analysis, album: album, to: path) : nil
            var written: [(String, String)] = []
            if let plot {
                let out = Self.output(plot, for: path)
                try Plot.draw(analysis, to: out, options: plotOptions)
                written.append(("plot", out))
            }
            if let spectrogram, let spectrum {
                let out = Self.output(spectrogram, for: path)
                let name = path.split(separator: "/").last.map(String.init) ?? path
                try SpectrogramPicture.draw(spectrum, title: name, to: out, options: spectrogramOptions)
                written.append(("spectrogram", out))
            }
            if let curve {
                let out = Self.output(curve, for: path)
                try CurveFile.write(analysis, to: out)
                written.append(("curve", out))
            }
            outcome.output = json ? Self.json(analysis, tags: tags, overs: overs, written: written) + "\n"
                : Self.text(analysis) + (tags.map { "  tagged: " + $0.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + "\n" } ?? "")
                  + (overs ? Self.oversText(analysis) : "")
                  + written.map { "  \($0.0): \(visible($0.1))\n" }.joined()
        } catch {
            // The other files are still analysed; the exit status is the first failure's.
            outcome.messages.append("recorder: \(error.message)")
            outcome.status = Self.status(for: error)
        }
        return outcome
    }

    /// The overs as lines: a count, then one line per run.
    static func oversText(_ analysis: FileAnalysis) -> String {
        let rate = Double(max(analysis.sampleRate, 1))
        let truePeak = analysis.overs.filter { $0.kind == .truePeak }.count
        var text = "  overs above \(format(analysis.overCeiling, 1)) dBTP: \(truePeak) true-peak, "
            + "\(analysis.overs.count - truePeak) clipped"
            + (analysis.oversLeftOut > 0 ? " (and \(analysis.oversLeftOut) more not listed)" : "") + "\n"
        for over in analysis.overs {
            let length = Double(over.frames) / rate
            text += "    \(clock(Double(over.startFrame) / rate))  ch \(over.channel + 1)  "
                + (over.kind == .truePeak ? "true peak \(format(over.level, 2)) dBTP" : "clipped \(format(over.level, 2)) dBFS")
                + ", \(format(length * 1_000, 1)) ms"
                + (over.kind == .clipped ? ", \(over.clippedSamples) samples" : "") + "\n"
        }
        return text
    }

    /// A file's failure as an exit status: 66 it cannot be read; 65 it holds what cannot be tagged
    /// (silence, a WAV without a bext chunk); 73 it cannot be written (read-only, no permission); 74 the
    /// write failed (a full disk: the file is unchanged).
    static func status(for error: RecorderError) -> Int32 {
        switch error.code {
        case .loudnessUnreachable, .unsupportedFileType: return ExitStatus.dataError
        default: return ExitStatus.status(for: error)
        }
    }

    static func json(_ analysis: FileAnalysis, tags: [(name: String, value: String)]? = nil, overs: Bool = false,
                     written: [(String, String)] = []) -> String {
        let rate = Double(max(analysis.sampleRate, 1))
        // JSON has no NaN or infinity: an undefined value is null.
        func number(_ value: Double?, _ decimals: Int) -> String {
            value.flatMap { $0.isFinite ? format($0, decimals) : nil } ?? "null"
        }
        func list(_ values: [Double?], _ decimals: Int) -> String { "[" + values.map { number($0, decimals) }.joined(separator: ", ") + "]" }
        return "{\"file\": \(jsonString(analysis.path)), \"duration_s\": \(format(analysis.duration, 6)), "
            + "\"channels\": \(analysis.channelCount), \"sample_rate\": \(analysis.sampleRate), "
            + "\"sample_peak_dbfs\": \(list(analysis.samplePeak, 2)), \"true_peak_dbtp\": \(list(analysis.truePeak, 2)), "
            + "\"rms_dbfs\": \(list(analysis.rms, 2)), "
            + "\"clipped_samples\": [\(analysis.clippedSamples.map(String.init).joined(separator: ", "))], "
            + "\"dc_offset\": \(list(analysis.dcOffset, 6)), "
            + "\"nonfinite_samples\": [\(analysis.nonFiniteSamples.map(String.init).joined(separator: ", "))], "
            + "\"missing_frames\": \(analysis.missingFrames), "
            + "\"integrated_lufs\": \(number(analysis.integrated, 2)), \"loudness_range_lu\": \(number(analysis.loudnessRange, 2)), "
            + "\"max_momentary_lufs\": \(number(analysis.maxMomentary, 2)), \"max_short_term_lufs\": \(number(analysis.maxShortTerm, 2)), "
            + "\"loudness_not_measured\": \(analysis.loudnessNotMeasured.map(jsonString) ?? "null"), "
            + "\"markers\": [" + analysis.markers.map { marker in
                "{\"frame\": \(marker.frame), \"t\": \(format(Double(marker.frame) / Double(max(analysis.sampleRate, 1)), 3)), "
                    + "\"label\": \(jsonString(marker.label))}"
            }.joined(separator: ", ") + "]"
            + (tags.map { ", \"tags\": {" + $0.map { "\(jsonString($0.name)): \(jsonString($0.value))" }.joined(separator: ", ") + "}" } ?? "")
            + (overs ? ", \"ceiling_dbtp\": \(format(analysis.overCeiling, 2)), \"overs\": [" + analysis.overs.map { over in
                "{\"kind\": \"\(over.kind.rawValue)\", \"channel\": \(over.channel + 1), \"start_frame\": \(over.startFrame), "
                    + "\"start_s\": \(format(Double(over.startFrame) / rate, 6)), \"frames\": \(over.frames), "
                    + "\"duration_s\": \(format(Double(over.frames) / rate, 6)), \"level_db\": \(format(over.level, 2)), "
                    + "\"clipped_samples\": \(over.clippedSamples)}"
            }.joined(separator: ", ") + "], \"overs_left_out\": \(analysis.oversLeftOut)" : "")
            + written.map { ", \"\($0.0)\": \(jsonString($0.1))" }.joined()
            + "}"
    }

    static func text(_ analysis: FileAnalysis) -> String {
        func value(_ number: Double?, _ unit: String) -> String { number.map { format($0, 1) + " " + unit } ?? "-inf " + unit }
        var text = "\(visible(analysis.path)): \(format(analysis.duration, 3)) s, \(analysis.channelCount) ch, \(analysis.sampleRate) Hz\n"
        text += "  integrated \(analysis.integrated.map { format($0, 1) + " LUFS" } ?? analysis.loudnessNotMeasured.map { "not measured (\($0))" } ?? "undefined (silence)"), "
            + "range \(analysis.loudnessRange.map { format($0, 1) + " LU" } ?? "undefined"), "
            + "max momentary \(value(analysis.maxMomentary, "LUFS")), max short-term \(value(analysis.maxShortTerm, "LUFS"))\n"
        for channel in 0..<analysis.channelCount {
            text += "  ch \(channel + 1): sample peak \(value(analysis.samplePeak[channel], "dBFS")), "
                + "true peak \(value(analysis.truePeak[channel], "dBTP")), RMS \(value(analysis.rms[channel], "dBFS")), "
                + "clipped \(analysis.clippedSamples[channel]), DC \(format(analysis.dcOffset[channel], 6))"
                + (analysis.nonFiniteSamples[channel] > 0
                    ? ", \(analysis.nonFiniteSamples[channel]) NaN/infinite samples left out" : "") + "\n"
        }
        if !analysis.markers.isEmpty {
            text += "  markers: " + analysis.markers.map { marker in
                clock(Double(marker.frame) / Double(max(analysis.sampleRate, 1))) + " " + marker.label
            }.joined(separator: ", ") + "\n"
        }
        return text
    }
}

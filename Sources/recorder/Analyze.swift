// `recorder analyze FILE...`: levels and EBU R128 loudness of whole files, as text or JSON lines.
import ArgumentParser
import RecorderKit

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure files: duration, sample and true peak, RMS, loudness (EBU R128), LRA, clipping, DC.")

    @Argument(help: "Sound files (anything libsndfile reads: WAV, AIFF, CAF, FLAC, …).")
    var files: [String]

    @Flag(help: "One JSON object per file per line.")
    var json = false

    @Flag(help: "Write each file's loudness into it: ReplayGain 2.0 (-18 LUFS) in FLAC, Ogg Vorbis and MP3, R128 gains (-23 LUFS) in Opus, the bext loudness in WAV and RF64, as loudgain and rsgain do.")
    var tag = false

    @Flag(help: "With --tag: the files are one album; each also gets the album's gain and peak.")
    var album = false

    func validate() throws {
        if album && !tag { throw ValidationError("--album goes with --tag: add --tag to write the album's gain") }
        if tag, let untaggable = files.first(where: { FileType(path: $0).map { !LoudnessTags.taggedTypes.contains($0) } ?? true }) {
            throw ValidationError("cannot tag '\(untaggable)': loudness tags go into .flac, .ogg, .opus, .mp3, .wav and .rf64 files")
        }
    }

    func run() throws {
        var status: Int32?
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
        for path in files {
            do {
                let analysis = try FileAnalysis.analyze(path: path)
                if analysis.missingFrames > 0 {
                    writeLine("recorder: warning: '\(path)' ends \(analysis.missingFrames) frames "
                        + "(\(format(Double(analysis.missingFrames) / Double(max(analysis.sampleRate, 1)), 3)) s) before its "
                        + "header says; what it holds was analysed (a truncated copy or an interrupted recording?)")
                }
                let tags = tag ? try LoudnessTags.write(analysis, album: albumLoudness, to: path) : nil
                writeOutput(json ? Self.json(analysis, tags: tags) + "\n"
                                 : Self.text(analysis) + (tags.map { "  tagged: " + $0.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + "\n" } ?? ""))
            } catch {
                // The other files are still analysed; the exit status is the first failure's.
                writeLine("recorder: \(error.message)")
                if status == nil { status = Self.status(for: error) }
            }
        }
        if let status { throw ExitCode(status) }
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

    static func json(_ analysis: FileAnalysis, tags: [(name: String, value: String)]? = nil) -> String {
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

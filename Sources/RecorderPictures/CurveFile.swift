// The loudness series as a file for spreadsheets and other tools: CSV (time, momentary, short-term) or
// JSON, written beside its path and renamed into place.
import Glibc
import RecorderKit

/// Writes a file's loudness series (`FileAnalysis.loudnessSeries`).
public enum CurveFile {
    /// Writes `analysis`'s series to `path`: `.csv` (a header line, then `time_s,momentary_lufs,short_term_lufs`
    /// per 100 ms, an empty field where the window is silent) or `.json` (`step_s`, `momentary`,
    /// `short_term`, null where silent). Time is each window's end.
    /// - Throws: `.unsupportedFileType` for another extension, `.invalidFormat` when the file's loudness
    ///   was not measured, `.cannotCreateFile`/`.writeFailed` naming the path.
    public static func write(_ analysis: FileAnalysis, to path: String) throws(RecorderError) {
        let lower = path.lowercased()
        guard lower.hasSuffix(".csv") || lower.hasSuffix(".json") else {
            throw RecorderError(.unsupportedFileType, "cannot write the loudness curve to '\(path)': it is written as .csv or .json; name the file so")
        }
        guard let series = analysis.loudnessSeries else {
            throw RecorderError(.invalidFormat, "no loudness curve for '\(analysis.path)': "
                + (analysis.loudnessNotMeasured ?? "its loudness was not measured"))
        }
        let step = Double(series.stepFrames) / Double(max(analysis.sampleRate, 1))
        func number(_ value: Float?) -> String? { value.map { plain(Double($0), 2) } }
        // Written as it is formatted, 64 kB at a time: a ten-hour curve is never one string in memory.
        let file = try WholeFile(path: path, what: "the loudness curve")
        var text = ""
        func flush(_ force: Bool = false) throws(RecorderError) {
            guard force || text.utf8.count >= 1 << 16 else { return }
            try file.append(Array(text.utf8))
            text = ""
        }
        if lower.hasSuffix(".csv") {
            text = "time_s,momentary_lufs,short_term_lufs\n"
            for index in series.momentary.indices {
                text += plain(Double(index + 1) * step, 3) + "," + (number(series.momentary[index]) ?? "") + ","
                    + (number(series.shortTerm[index]) ?? "") + "\n"
                try flush()
            }
        } else {
            text = "{\"file\": " + json(analysis.path) + ", \"step_s\": " + plain(step, 6) + ", \"sample_rate\": \(analysis.sampleRate), "
                + "\"momentary\": ["
            for (index, value) in series.momentary.enumerated() {
                text += (index == 0 ? "" : ", ") + (number(value) ?? "null")
                try flush()
            }
            text += "], \"short_term\": ["
            for (index, value) in series.shortTerm.enumerated() {
                text += (index == 0 ? "" : ", ") + (number(value) ?? "null")
                try flush()
            }
            text += "]}\n"
        }
        try flush(true)
        try file.finish()
    }

    /// ASCII decimals with a plain minus (for other programs to read).
    static func plain(_ value: Double, _ decimals: Int) -> String {
        String(fixed(value, decimals).map { $0 == "−" ? "-" : $0 })
    }

    static func json(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

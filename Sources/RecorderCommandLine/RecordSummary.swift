// What `record` prints when a take ends: the summary line, takes, gaps, pauses, markers, and each source of
// a several-source take.
import RecorderKit

extension Record {
    /// One line per source of a several-source take: its channels, where it began, its clock, its losses.
    func printSources(_ sources: [SourceReport]) {
        guard sources.count > 1 else { return }
        for (number, source) in sources.enumerated() {
            let channels = source.channelCount == 1 ? "channel \(source.firstChannel + 1)"
                : "channels \(source.firstChannel + 1)-\(source.firstChannel + source.channelCount)"
            let drift = number == 0 ? "the take's clock"
                : source.driftPPM.map { "drift \(format($0, 1)) ppm" + (source.isCorrectingDrift ? ", corrected" : "") }
                    ?? "drift not measured yet"
            let placed = source.lossesPlacedByCount == 0 ? ""
                : "; \(source.lossesPlacedByCount == 1 ? "1 loss" : "\(source.lossesPlacedByCount) losses") placed by the server's count "
                    + "alone (the machine too busy for its clock to answer in time): within a few ms after it until the clock settled"
            writeLine("source \(number + 1) \(source.name): \(channels), began \(format(source.startOffset * 1_000, 2)) ms in, "
                      + "\(drift), dropped \(source.droppedFrames) frames, gaps \(source.gapFrames) frames" + placed)
        }
    }

    func printSummary(_ summary: RecordingSummary, rate: Int) {
        func list(_ values: [String]) -> String { values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]" }
        let seconds = Double(summary.frameCount) / Double(rate)
        if let startAbove, summary.takes.isEmpty {
            writeLine("no take: the level never rose above \(format(Double(startAbove), 1)) dBFS; no file was written")
            return
        }
        let what = startAbove == nil ? (summary.path == "-" ? "standard output" : summary.path)
            : summary.takes.count == 1 ? "1 take" : "\(summary.takes.count) takes"
        let text = "recorded \(what): \(format(seconds, 3)) s, \(summary.frameCount) frames, "
            + "average \(list(summary.levels.map { format(Double($0.averagePower), 2) })) dBFS, "
            + "peak \(list(summary.levels.map { format(Double($0.peakPower), 2) })) dBFS, "
            + "clipped \(list(summary.clippedSamples.map(String.init))) samples, "
            + "dropped \(summary.droppedFrames) frames"
        writeLine(text)
        if startAbove != nil {
            for take in summary.takes {
                // When the sound came, in the time since the command began listening.
                let onset = Double(take.onsetFrame - summary.startFrame) / Double(rate)
                writeLine("take \(take.number): \(take.path)" + (oneFile ? " at \(clock(take.start))" : "")
                          + ", \(format(take.duration, 3)) s, sound from \(clock(onset))")
            }
        } else if segment != nil, summary.fileCount > 1, let last = summary.files.last {
            // A logger's files: each was said as it began; the summary gives how many and the span.
            writeLine("files: \(summary.fileCount), from \(summary.path) to \(last)")
        } else if summary.files.count > 1 {
            writeLine("files: " + summary.files.joined(separator: ", "))
        }
        for gap in summary.gaps {
            writeLine("gap at \(clock(gap.start)): \(format(gap.duration, 3)) s of silence"
                      + (gap.source.map { " in source '\($0)'" } ?? "") + " (" + gapReason(gap.reason) + ")")
        }
        for pause in summary.pauses {
            writeLine("paused at \(clock(pause.startTime)): \(format(pause.duration, 3)) s left out")
        }
        if !summary.markers.isEmpty {
            let split = summary.files.count > 1
            writeLine("markers: " + summary.markers.map { marker in
                clock(marker.start) + " " + marker.label + (split ? " (\(marker.path) at \(clock(Double(marker.fileFrame) / Double(rate))))" : "")
            }.joined(separator: ", "))
            if summary.markers.contains(where: { !$0.isStoredInFile }) {
                writeError(summary.fileType == .aiff || summary.fileType == .wav
                    ? "recorder: warning: a file could not store its markers (a WAV take past 4 GiB is RF64, which "
                      + "keeps none; or a marker came as the file reached --max-file-size); they are only listed here\n"
                    : "recorder: warning: \(summary.fileType.rawValue.uppercased()) files do not store markers; "
                      + "they are only listed here (record to .aiff or .wav to keep them in the file)\n")
            }
        }
    }
}

/// Why a gap is silence, for the summary.
private func gapReason(_ reason: RecordingGap.Reason) -> String {
    switch reason {
    case .dropped: "frames dropped"
    case .serverLost: "server or source lost"
    case .suspended: "source suspended"
    case .systemSleep: "machine asleep"
    }
}

// What `record` and `meter` say about events while they run: a stderr line for people, a JSON line for
// scripts (with --levels-json), both timed from the start of the file (or of the metering).
import RecorderKit

/// One event as the command reports it.
package struct EventReport: Equatable {
    /// The stderr line, without "recorder: " and the newline; nil for events that need none.
    let message: String?
    /// The `--levels-json` line, without the newline; nil for events scripts do not see.
    package let json: String?

    init(message: String?, json: String?) {
        self.message = message
        self.json = json
    }

    /// `start`: the recorder frame the times count from. A place in the file (`position_s`) is the
    /// event's own (paused time left out).
    package init?(_ event: RecorderEvent, start: Int64, rate: Int) {
        func time(_ frame: Int64) -> Double { Double(frame - start) / Double(rate) }
        func seconds(_ frames: Int64) -> String { format(Double(frames) / Double(rate), 3) }
        func at(_ frame: Int64) -> String { clock(max(0, time(frame))) }  // a state from before the file: its start
        // A loss the server's clock showed only after reading had passed it: where it may have begun.
        func late(_ frame: Int64, _ foundLate: Int64) -> String {
            foundLate > 0 ? " (found late: it went missing between \(at(frame - foundLate)) and there)" : ""
        }
        func lateField(_ frame: Int64, _ foundLate: Int64) -> String {
            foundLate > 0 ? ", \"from_t\": \(format(max(0, time(frame - foundLate)), 3))" : ""
        }
        func line(_ kind: String, _ frame: Int64, _ fields: String = "") -> String {
            "{\"event\": \"\(kind)\", \"t\": \(format(max(0, time(frame)), 3))\(fields)}"
        }
        switch event {
        case .framesDropped(let count, let frame, let foundLate):
            message = "warning: \(seconds(count)) s (\(count) frames) lost at \(at(frame))\(late(frame, foundLate)): the system did not "
                + "keep up; silence of the same length stands in for them"
            json = line("dropped", frame, ", \"frames\": \(count), \"duration_s\": \(seconds(count))\(lateField(frame, foundLate))")
        case .sourceGap(let gap, let frame, let reason):
            let why = reason == .systemSleep ? "the machine slept" : "the source was suspended"
            message = "warning: \(why) for \(seconds(gap)) s at \(at(frame)); silence of the same length keeps the time"
            json = line("gap", frame, ", \"frames\": \(gap), \"duration_s\": \(seconds(gap)), \"reason\": \"\(reason.rawValue)\"")
        case .sourceLost(let source, let frames, let frame, let reason, let foundLate):
            let why = switch reason {
            case .dropped: "the system did not keep up, or its stream stalled"
            case .serverLost: "it was gone"
            case .suspended: "it was suspended"
            case .systemSleep: "the machine slept"
            }
            message = "warning: \(seconds(frames)) s of source '\(source)' lost at \(at(frame))\(late(frame, foundLate)) (\(why)); its channels hold "
                + "silence there, the other sources' are untouched"
            json = line("source-lost", frame, ", \"source\": \(jsonString(source)), \"frames\": \(frames), \"duration_s\": \(seconds(frames)), "
                        + "\"reason\": \"\(reason.rawValue)\"\(lateField(frame, foundLate))")
        case .sourceMoved(let source, let frame):
            message = "warning: at \(at(frame)) the stream was moved to source '\(source)'"
            json = line("moved", frame, ", \"source\": \(jsonString(source))")
        case .sourceSuspended(let frame):
            message = "warning: at \(at(frame)) the source was suspended: nothing is captured until it resumes"
            json = line("suspended", frame)
        case .sourceResumed(let frame):
            message = "warning: at \(at(frame)) the source resumed"
            json = line("resumed", frame)
        case .captureInterrupted(let error, let frame):
            message = "warning: at \(at(frame)) \(error.message)"
            json = line("interrupted", frame)
        case .captureResumed(let gap, let frame, let recordingFrame):
            // Where the gap stands in the file: paused time before it is not there.
            let position = clock(Double(recordingFrame ?? max(0, frame - start)) / Double(rate))
            if gap > 0 {
                message = "warning: capture resumed; the \(seconds(gap)) s gap at \(position) was written as silence"
                json = line("gap", frame, ", \"frames\": \(gap), \"duration_s\": \(seconds(gap)), \"reason\": \"server-lost\"")
            } else {
                // The time away fell in a pause: nothing of it is in the file.
                message = "warning: capture resumed at \(position); the time away fell in the pause, so nothing was written for it"
                json = nil
            }
        case .fileStarted(let path, let frame):
            message = "continuing in \(path) at \(at(frame))"
            json = line("file", frame, ", \"path\": \(jsonString(path))")
        case .fileFinished(let file):
            // For scripts (and --on-file): people see the next file begin.
            message = nil
            json = line("file-finished", file.endFrame, ", \"path\": \(jsonString(file.path)), \"index\": \(file.index), "
                        + "\"frames\": \(file.frameCount), \"duration_s\": \(seconds(file.frameCount))")
        case .recordingPaused(let frame, let position):
            message = "paused at \(clock(Double(position) / Double(rate)))"
            json = line("paused", frame, ", \"position_s\": \(seconds(position))")
        case .recordingResumed(let frame, let paused, let position):
            // The join: where the pause began, in the file.
            message = "resumed after \(seconds(paused)) s"
            json = line("unpaused", frame, ", \"position_s\": \(seconds(position)), \"paused_frames\": \(paused), "
                        + "\"paused_s\": \(seconds(paused))")
        case .markerAdded(let label, let frame, let position):
            message = "\(label) at \(clock(Double(position) / Double(rate)))"
            json = line("marker", frame, ", \"position_s\": \(seconds(position)), \"frame\": \(position), \"label\": \(jsonString(label))")
        case .takeStarted(let number, let path, let frame):
            message = "take \(number) began at \(at(frame)) in \(path)"
            json = line("take-start", frame, ", \"take\": \(number), \"path\": \(jsonString(path))")
        case .takeEnded(let take):
            message = "take \(take.number) ended: \(seconds(take.frameCount)) s in \(take.path)"
            json = line("take-end", take.startFrame + take.frameCount, ", \"take\": \(take.number), \"path\": \(jsonString(take.path)), "
                        + "\"file_frame\": \(take.fileFrame), \"frames\": \(take.frameCount), \"duration_s\": \(seconds(take.frameCount)), "
                        + "\"onset_t\": \(format(max(0, time(take.onsetFrame)), 3))")
        case .recordingFinished(let summary) where summary.sources.count > 1:
            // A take of several sources: where each stood at the end (start, drift, losses).
            message = nil
            json = line("sources", summary.startFrame + summary.frameCount, ", \"sources\": [" + summary.sources.enumerated().map { index, source in
                "{\"name\": \(jsonString(source.name)), \"first_channel\": \(source.firstChannel), \"channels\": \(source.channelCount), "
                    + "\"start_offset_ms\": \(format(source.startOffset * 1_000, 3)), "
                    + "\"drift_ppm\": \(index == 0 ? "0" : source.driftPPM.map { format($0, 2) } ?? "null"), "
                    + "\"corrected\": \(source.isCorrectingDrift), \"dropped_frames\": \(source.droppedFrames), "
                    + "\"gap_frames\": \(source.gapFrames), \"losses_placed_by_count\": \(source.lossesPlacedByCount)}"
            }.joined(separator: ", ") + "]")
        case .recordingFinished, .captureFailed:
            return nil
        @unknown default:
            return nil
        }
    }
}

/// `seconds` as [h:]mm:ss.mmm.
func clock(_ seconds: Double) -> String {
    let millis = Int64((max(0, seconds) * 1000).rounded())
    let hours = millis / 3_600_000, minutes = millis / 60_000 % 60, secs = millis / 1000 % 60, rest = millis % 1000
    func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return (hours > 0 ? "\(hours):" : "") + pad(minutes, 2) + ":" + pad(secs, 2) + "." + pad(rest, 3)
}

// What one run of a hook is for: a finished file (`--on-file`), an alarm that began or ended (`--on-alarm`), an event to post (`--webhook`).
import RecorderKit

/// One run of a hook program (see `HookRunner`): the arguments after the program, the figures it gets in
/// its environment, and how a report names it.
package struct HookJob: Sendable, Equatable {
    /// Arguments after the program.
    package let arguments: [String]
    /// `RECORDER_…=value` entries added to the environment (any inherited `RECORDER_…` left out).
    package let figures: [String]
    /// What a report says the run was for ("for /logs/a.wav", "for the alarm silence on").
    package let subject: String
    /// The recorder frame it concerns (a report's time).
    package let frame: Int64
    /// The file it was for, if any (a failure's event names it).
    package let path: String?
    /// Seconds into the take it concerns, when given in place of `frame` (an event to post: its line's time).
    package let seconds: Double?

    package init(arguments: [String], figures: [String], subject: String, frame: Int64, path: String? = nil, seconds: Double? = nil) {
        self.arguments = arguments
        self.figures = figures
        self.subject = subject
        self.frame = frame
        self.path = path
        self.seconds = seconds
    }

    /// One event to POST (`--webhook`): its `--levels-json` line (`{"event": NAME, "t": SECONDS, …}`, as
    /// EventReport writes them), the only argument; its name and time read back from it.
    package init(event json: String) {
        func field(_ key: String) -> Substring? {
            guard let range = json.firstRange(of: "\"\(key)\": ") else { return nil }
            return json[range.upperBound...].prefix { $0 != "," && $0 != "}" }
        }
        let name = field("event").map { $0.filter { $0 != "\"" } } ?? "event"
        self.init(arguments: [json], figures: [], subject: "for the event \(name)", frame: 0, seconds: field("t").flatMap { Double($0) } ?? 0)
    }

    /// `PROGRAM FILE` for a finished file, with `RECORDER_FILE`, `RECORDER_FILE_INDEX`, `RECORDER_FRAMES`,
    /// `RECORDER_SECONDS`, `RECORDER_SAMPLE_RATE`, `RECORDER_CHANNELS` and `RECORDER_START` (the first frame's
    /// time, ISO 8601 UTC, empty if unknown).
    package init(file: FinishedFile) {
        let iso = file.startTime.flatMap { SegmentNames(pattern: "%Y-%m-%dT%H:%M:%SZ", zone: .utc).name(at: $0) } ?? ""
        self.init(arguments: [file.path],
                  figures: ["RECORDER_FILE=\(file.path)", "RECORDER_FILE_INDEX=\(file.index)", "RECORDER_FRAMES=\(file.frameCount)",
                            "RECORDER_SECONDS=\(format(file.duration, 3))", "RECORDER_SAMPLE_RATE=\(file.sampleRate)",
                            "RECORDER_CHANNELS=\(file.channelCount)", "RECORDER_START=\(iso)"],
                  subject: "for \(file.path)", frame: file.endFrame, path: file.path)
    }

    /// `PROGRAM ALARM STATE` for an alarm that began (`on`) or ended (`off`): `silence`, `clipping`, `source`,
    /// `disk` or `file` (which has no `off`: the take ends with it), with `RECORDER_ALARM`, `RECORDER_ALARM_STATE`, `RECORDER_ALARM_MESSAGE` (what the line says),
    /// `RECORDER_T` (seconds into the take, as the events' `t`), `RECORDER_FILE` (the take's file) and
    /// `RECORDER_TIME` (when, ISO 8601 UTC, empty if unknown).
    package init(alarm change: Alarms.Change, seconds: Double, time: Double?, file: String) {
        let state = change.on ? "on" : "off"
        let iso = time.flatMap { SegmentNames(pattern: "%Y-%m-%dT%H:%M:%SZ", zone: .utc).name(at: $0) } ?? ""
        self.init(arguments: [change.kind, state],
                  figures: ["RECORDER_ALARM=\(change.kind)", "RECORDER_ALARM_STATE=\(state)", "RECORDER_ALARM_MESSAGE=\(change.message)",
                            "RECORDER_T=\(format(seconds, 3))", "RECORDER_FILE=\(file)", "RECORDER_TIME=\(iso)"],
                  subject: "for the alarm \(change.kind) \(state)", frame: change.frame)
    }
}

// `record`'s logger options read and checked: --segment, --keep, --keep-free, the --alarm-… options, and how a removal is said.
import ArgumentParser
import Glibc
import RecorderKit

extension Record {
    /// --segment and what it cannot go with.
    func validateSegments() throws {
        guard let segment else {
            for (given, name) in [(utc, "--utc"), (keep != nil, "--keep"), (keepFree != nil, "--keep-free")] where given {
                throw ValidationError("\(name) goes with --segment: give the files' period, e.g. --segment 1h \(name)")
            }
            return
        }
        if let keep, !(Self.period(keep).map { $0 > 0 && $0 <= 1e9 } ?? false) {
            throw ValidationError("invalid --keep '\(keep)': use an age, e.g. 42d, 12h, 90m or 30s")
        }
        if keepFree != nil, retention?.minimumFree == nil {
            throw ValidationError("invalid --keep-free '\(keepFree ?? "")': use a share of the disk below 100%, e.g. 10%, or bytes, e.g. 500M or 20G")
        }
        guard let seconds = Self.period(segment), SegmentClock(period: seconds, zone: .utc) != nil else {
            throw ValidationError("invalid --segment '\(segment)': use a period that divides a day, e.g. 10s, 15m, 30m, 1h, 6h or 24h")
        }
        let others: [(Bool, String)] = [(output == "-", "-"), (maxFileTime != nil, "--max-file-time"), (maxFileSize != nil, "--max-file-size"),
                                        (startAbove != nil, "--start-above"), (startAt != nil, "--start-at"), (preRoll != 0, "--pre-roll"),
                                        (splitSources, "--split-sources")]
        for (given, name) in others where given {
            throw ValidationError(name == "-" ? "--segment writes files: give a name pattern, e.g. '%Y/%m/%d/%H%M%S.flac', not -"
                                  : "--segment cannot be combined with \(name): its files start at once and end on the clock")
        }
    }

    /// A file the retention removed, as a line and an event.
    func removalReport(_ removal: SegmentRetention.Removal, t: Double) -> EventReport {
        let why = removal.reason == .expired ? "older than --keep \(keep ?? "")" : "the disk had less free than --keep-free \(keepFree ?? "")"
        return EventReport(message: "removed \(removal.path): \(why)",
                           json: "{\"event\": \"removed\", \"t\": \(format(t, 3)), \"path\": \(jsonString(removal.path)), "
                               + "\"reason\": \"\(removal.reason.rawValue)\"}")
    }

    /// CLOCK_REALTIME, in seconds.
    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// "30s@-50": seconds and dBFS; nil if malformed or out of range.
    static func silenceAlarm(_ text: String) -> (seconds: Double, threshold: Double)? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = period(String(parts[0])), seconds > 0, seconds <= 86_400,
              let threshold = Double(parts[1]), threshold.isFinite, (-160...0).contains(threshold) else { return nil }
        return (seconds, threshold)
    }

    /// "10%" or bytes ("500M"): room on a disk; nil if malformed.
    static func room(_ text: String) -> RetentionPolicy.FreeSpace? {
        if text.hasSuffix("%") {
            return Double(text.dropLast()).flatMap { $0 > 0 && $0 < 100 ? .fraction($0 / 100) : nil }
        }
        return bytes(text).map { .bytes($0) }
    }

    /// The alarms asked for (nil: none).
    func alarmSettings(folder: String) -> Alarms.Settings? {
        guard alarmSilence != nil || alarmClip || alarmDisk != nil else { return nil }
        var settings = Alarms.Settings()
        settings.silence = alarmSilence.flatMap(Self.silenceAlarm)
        settings.clipping = alarmClip
        settings.diskFree = alarmDisk.flatMap(Self.room)
        settings.folder = folder
        return settings
    }

    /// --keep and --keep-free as a policy (nil if neither is given, or one is malformed).
    var retention: RetentionPolicy? {
        guard keep != nil || keepFree != nil else { return nil }
        let age = keep.flatMap(Self.period)
        let room = keepFree.flatMap(Self.room)
        if (keep != nil && age == nil) || (keepFree != nil && room == nil) { return nil }
        return RetentionPolicy(maxAge: age, minimumFree: room)
    }

    /// "10", "0.5s", "15m", "15min", "1h", "42d": seconds; nil if malformed.
    static func period(_ text: String) -> Double? {
        let units: [(String, Double)] = [("min", 60), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
        let (digits, multiplier) = units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (Substring(text), 1)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(digits), value.isFinite else { return nil }
        return value * multiplier
    }

    /// The runner of `--on-file` or `--on-alarm` (`option`), if asked: each failure a line and a
    /// `hook-failed` event (`hook`: the option; `path`: the file, for --on-file), timed from `start`.
    func hookRunner(_ program: String?, option: String, live: LiveOutput, start: Int64, rate: Int) -> HookRunner? {
        program.map { program in
            HookRunner(program: program, timeout: hookTimeout, report: hookFailure(option, program, live: live, start: start, rate: rate))
        }
    }

    /// The runner of `--webhook`, if asked: every event `live` reports is posted (but a webhook's own failures,
    /// each a line and a `hook-failed` event).
    func webhookRunner(live: LiveOutput) -> HookRunner? {
        webhook.map { url in
            let timeout = hookTimeout
            let runner = HookRunner(timeout: timeout, perform: { Webhook.post($0.arguments[0], to: url, timeout: timeout) },
                                    report: hookFailure("webhook", url, live: live, start: 0, rate: 1))
            live.forwardEvents { runner.enqueue(HookJob(event: $0)) }
            return runner
        }
    }

    /// How a hook's failure is said: a line, and a `hook-failed` event (`hook`: the option; `path`: the file,
    /// for --on-file), timed from `start` (or by the job's own seconds). A webhook's own failures are not
    /// posted to it (they would feed each other); a program's are. A URL's user and password are not shown.
    private func hookFailure(_ option: String, _ target: String, live: LiveOutput, start: Int64, rate: Int) -> @Sendable (HookJob, String) -> Void {
        { job, what in
            let t = format(max(0, job.seconds ?? Double(job.frame - start) / Double(rate)), 3)
            live.report(EventReport(message: "warning: --\(option) '\(Webhook.shown(target))' \(job.subject) \(what)",
                                    json: "{\"event\": \"hook-failed\", \"t\": \(t), \"hook\": \"\(option)\""
                                        + (job.path.map { ", \"path\": \(jsonString($0))" } ?? "") + ", \"reason\": \(jsonString(what))}"),
                        forward: option != "webhook")
        }
    }

    /// The summary's line for a hook option: "on-file: 14 runs, 1 failed (1 at the time limit)"; a webhook's
    /// counts posts.
    static func hookSummary(_ option: String, _ done: HookRunner.Outcome) -> String {
        let noun = option == "webhook" ? "post" : "run"
        return "\(option): \(done.run) \(noun)\(done.run == 1 ? "" : "s"), \(done.failed) failed"
            + (done.timedOut > 0 ? " (\(done.timedOut) at the time limit)" : "")
            + (done.leftOut > 0 ? ", \(done.leftOut) left out" : "")
    }
}

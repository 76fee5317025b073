// `recorder record OUTPUT`: records until --duration frames or SIGINT/SIGTERM, then finalizes the file.
import ArgumentParser
import Dispatch
import Glibc
import RecorderKit
import Locking

extension FileType: ExpressibleByArgument {}

package struct Record: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        abstract: "Record into OUTPUT (.aiff, .wav, .caf, .flac, .au, .raw, .w64, .rf64, .ogg, .opus, .mp3; - for standard output) until --duration or Ctrl-C.",
        discussion: """
            In a terminal: space pauses and resumes (the paused time is left out of the file), m drops a \
            marker, q stops (as Ctrl-C). SIGUSR1 drops a marker too. Markers are stored in AIFF (MARK) \
            and WAV (cue) files, and listed in the summary and the --levels-json events. \
            With OUTPUT -, the audio goes to standard output (AU unless -t names another: a pipe takes \
            au, raw, flac, ogg, opus and mp3), and the readout, the summary and the --levels-json lines \
            to standard error. \
            Logging: --segment 1h cuts the take where the wall clock crosses each hour, each file named \
            by OUTPUT's strftime fields at its start, e.g. '%Y/%m/%d/%H%M%S.flac' (folders are made), with \
            every frame in exactly one file. --keep 42d and --keep-free 10% remove the logger's own oldest \
            files (listed in its index; never another's, never the one being written). --alarm-silence, \
            --alarm-clip and --alarm-disk raise alarms (so do a source lost and a file not written): each a \
            line, an alarm event, a marker, a state on the --serve page, a run of --on-alarm PROGRAM and a \
            post to --webhook URL. --on-file PROGRAM runs for each finished file. Hooks never hold up the \
            take: one at a time, 64 waiting at most, each stopped at --hook-timeout. As a service, the \
            Debian package's recorder-logger@NAME runs a logger per /etc/recorder/NAME.conf; \
            elsewhere, run one with nohup or in tmux, e.g. nohup recorder record \
            '%Y/%m/%d/%H%M%S.flac' --segment 1h --keep 42d --reconnect -q 2>> logger.log &
            """)

    @Argument(help: "The file to write; it must not exist unless --force is given. - is standard output.")
    package var output: String

    @Option(name: [.customLong("type"), .customShort("t")], help: ArgumentHelp(
        "The container, when OUTPUT's extension does not say it: aiff, wav, caf, flac, au, raw (s16le, no header), w64, rf64, ogg (Vorbis), opus, mp3.",
        valueName: "type"))
    var type: FileType?

    @Option(parsing: .unconditional, help: ArgumentHelp("For ogg, opus and mp3: the encoder's quality, from 0 (smallest file) to 1 (best); the default is libsndfile's.",
                               valueName: "0-1"))
    var quality: Double?

    @OptionGroup var options: CaptureOptions

    /// The capture options, with the rate the container needs when none was given: Opus holds 8, 12,
    /// 16, 24 and 48 kHz only, so its default is 48 kHz (as ffmpeg and pw-record record it); an explicit
    /// `-r` it cannot hold is refused.
    package var capture: CaptureOptions {
        var adjusted = options
        if adjusted.givenRate == nil && container == .opus { adjusted.givenRate = 48_000 }
        return adjusted
    }

    /// The container written: -t, else the name's extension, else AU (standard output).
    var container: FileType? { type ?? (output == "-" ? .au : FileType(path: output)) }

    @OptionGroup var display: DisplayOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(name: [.long, .customShort("q")], help: "No readout, no summary, no notes: errors and warnings only.")
    var quiet = false

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer on stdout: t, frames, average_db, peak_db (and the --meter's values); and one per event (\"event\": dropped, gap, moved, suspended, resumed, interrupted, file, file-finished, removed, hook-failed, alarm, paused, unpaused, marker).")
    var levelsJSON = false

    @Option(name: .customLong("max-file-time"), parsing: .unconditional, help: "Split the recording: go on in OUTPUT-002, -003… after this many seconds per file.")
    var maxFileTime: Double?

    @Option(name: .customLong("max-file-size"), parsing: .unconditional, help: "Split the recording: no file larger than this many bytes (suffix k, M or G: KiB, MiB, GiB). AIFF and AU files are split at 4 GiB anyway; WAV becomes RF64.")
    var maxFileSize: String?

    @Option(name: .customLong("segment"), parsing: .unconditional, help: ArgumentHelp(
        "A logger's files: cut the take where the wall clock crosses each multiple of this period since midnight (10s, 15m, 1h: a period that divides a day), each file named by OUTPUT's strftime fields read at its start, e.g. '%Y/%m/%d/%H%M%S.flac' (folders are made).",
        valueName: "period"))
    var segment: String?

    @Flag(name: .customLong("utc"), help: "With --segment: the boundaries and the names' fields in UTC, not the local time zone (TZ).")
    var utc = false

    @Option(name: .customLong("keep"), parsing: .unconditional, help: ArgumentHelp(
        "With --segment: remove this logger's files older than this (30s, 90m, 12h, 42d), oldest first; only files it wrote (its index beside them), never the one being written.",
        valueName: "age"))
    var keep: String?

    @Option(name: .customLong("keep-free"), parsing: .unconditional, help: ArgumentHelp(
        "With --segment: remove this logger's oldest files while its disk has less free than this (10%, or bytes: 500M, 20G).",
        valueName: "room"))
    var keepFree: String?

    @Option(name: .customLong("alarm-silence"), parsing: .unconditional, help: ArgumentHelp(
        "Alarm on dead air: every channel's peak below DBFS for SECONDS (30s@-50); and when sound comes back. A line, an alarm event and a marker each.",
        valueName: "seconds@dbfs"))
    var alarmSilence: String?

    @Flag(name: .customLong("alarm-clip"), help: "Alarm on clipping (a full-scale sample), and when none came for 2 s.")
    var alarmClip = false

    @Option(name: .customLong("alarm-disk"), parsing: .unconditional, help: ArgumentHelp(
        "Alarm when the output's disk has less free than this (10%, or bytes: 500M, 20G), and when it has room again.",
        valueName: "room"))
    var alarmDisk: String?

    @Option(name: .customLong("on-file"), help: ArgumentHelp(
        "Run PROGRAM FILE once for each file the take has finished (split, cut on the clock, or the last), executed directly, never through a shell, with RECORDER_FILE, RECORDER_FRAMES, RECORDER_SECONDS, RECORDER_START… in its environment; the take never waits for it.",
        valueName: "program"))
    var onFile: String?

    @Option(name: .customLong("on-alarm"), help: ArgumentHelp(
        "Run PROGRAM ALARM STATE (silence, clipping, source, disk or file; on or off) each time an --alarm-… begins or ends, executed directly, never through a shell, with RECORDER_ALARM, RECORDER_ALARM_STATE, RECORDER_ALARM_MESSAGE, RECORDER_T… in its environment; the take never waits for it.",
        valueName: "program"))
    var onAlarm: String?

    @Option(name: .customLong("webhook"), help: ArgumentHelp(
        "POST each event (alarm, file-finished, removed, dropped… as --levels-json prints it) to this http:// or https:// URL as application/json, through libcurl; the take never waits for it.",
        valueName: "url"))
    var webhook: String?

    @Option(name: .customLong("hook-timeout"), parsing: .unconditional, help: ArgumentHelp("Stop an --on-file or --on-alarm run, or give up a --webhook post, after this many seconds (default 600).", valueName: "seconds"))
    var hookTimeout: Double = 600

    @Option(name: .customLong("start-at"), parsing: .unconditional, help: ArgumentHelp(
        "Begin the take with the frame captured at this time: +SECONDS from now, or a clock time today, HH:MM or HH:MM:SS. Capture and the levels run meanwhile.",
        valueName: "time"))
    var startAt: String?

    @Option(name: .customLong("pre-roll"), parsing: .unconditional, help: ArgumentHelp("Begin the take this many seconds (0 to 60) before it starts: with --start-at, the seconds before that time; without, at most what was captured since the program started.", valueName: "seconds"))
    var preRoll: Double = 0

    @Option(name: .customLong("start-above"), parsing: .unconditional, help: ArgumentHelp(
        "Sound-activated: a take begins when the level (a buffer's peak, the loudest channel) rises above this (-159 to 0 dBFS), with --pre-roll before it; each take is a numbered file, OUTPUT-001, -002…",
        valueName: "dBFS"))
    var startAbove: Float?

    @Option(name: .customLong("stop-below"), parsing: .unconditional, help: ArgumentHelp("Sound-activated: a take ends once the level stayed below this for --hang (default: --start-above).", valueName: "dBFS"))
    var stopBelow: Float?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sound-activated: seconds of quiet that end a take (0 to 3600).", valueName: "seconds"))
    var hang: Double = 2

    @Flag(name: .customLong("one-file"), help: "Sound-activated: every take into OUTPUT itself, one after another.")
    var oneFile = false

    @Flag(name: .customLong("split-sources"), help: "Several sources: one file per source (OUTPUT_1.wav, OUTPUT_2.wav, …) instead of one, each with the take's first frame and length, written as a file set (one iXML FAMILY_UID, one bext TimeReference) when the take ends.")
    var splitSources = false

    @Flag(help: "Write waveform data beside each file as it records (OUTPUT.dat: audiowaveform's binary version 2, every channel, 16-bit, 256 frames a pair), valid at every moment, so a take still recording can be drawn.")
    var peaks = false

    @OptionGroup(title: "Take sheet (bext and iXML)") var sheet: TakeSheetOptions

    @Option(name: .customLong("serve"), help: ArgumentHelp(
        "Serve a page watching this take (meters, loudness, time, losses, the take list) at [ADDRESS:]PORT, loopback unless an address is given (then with a token, as `recorder serve`).",
        valueName: "address:port"))
    package var serve: String?

    @Flag(name: .customLong("serve-control"), help: "With --serve: the page may pause, resume, drop markers, circle, mark no good and stop the take.")
    package var serveControl = false

    @OptionGroup(title: "Serving") package var serveAccess: ServeAccessOptions

    package init() {}

    package func validate() throws {
        // The address is checked where the page is (recorder-serve, Companion.swift).
        if let serve, Companion.hasPage, !(try Companion.page().isAddress(serve)) {
            throw ValidationError("invalid --serve '\(serve)': use PORT, ADDRESS:PORT or [IPv6]:PORT with a numeric address, e.g. 8080 or 0.0.0.0:8080")
        }
        if serve == nil && (serveControl || serveAccess.tokenFile != nil || !serveAccess.allowedHosts.isEmpty) {
            throw ValidationError("--serve-control, --token-file and --allow-host go with --serve PORT: give the port to serve the page on")
        }
        if splitSources && capture.sources.count < 2 {
            throw ValidationError("--split-sources needs several sources: repeat -d, e.g. -d mic -d desktop.monitor")
        }
        if peaks && output == "-" {
            throw ValidationError("--peaks writes a file beside the take: give the take a file name, not -")
        }
        if splitSources && output == "-" {
            throw ValidationError("--split-sources writes one file per source: give a file name, not -")
        }
        try sheet.validate(container: container, channels: capture.channels)
        if startAbove == nil {
            for (given, name) in [(stopBelow != nil, "--stop-below"), (hang != 2, "--hang"), (oneFile, "--one-file")] where given {
                throw ValidationError("\(name) needs --start-above: give the level that starts a take, e.g. --start-above -40")
            }
        } else {
            for (given, name) in [(startAt != nil, "--start-at"), (maxFileTime != nil, "--max-file-time"),
                                  (maxFileSize != nil, "--max-file-size")] where given {
                throw ValidationError("--start-above cannot be combined with \(name): sound-activated takes are files of their own")
            }
        }
        let starts = SoundTrigger.startAboveRange, hangs = SoundTrigger.hangRange, preRolls = Recorder.preRollRange
        if let startAbove, !(startAbove.isFinite && starts.contains(startAbove)) {
            throw ValidationError("invalid --start-above \(startAbove): use \(Int(starts.lowerBound)) to \(Int(starts.upperBound)) dBFS, e.g. -40")
        }
        let stops = SoundTrigger.stopBelowRange(startAbove: startAbove ?? 0)
        if let stopBelow, !(stopBelow.isFinite && stops.contains(stopBelow)) {
            throw ValidationError("invalid --stop-below \(stopBelow): use \(Int(stops.lowerBound)) dBFS up to --start-above (\(startAbove ?? 0))")
        }
        if !(hang.isFinite && hangs.contains(hang)) {
            throw ValidationError("invalid --hang \(hang): use \(Int(hangs.lowerBound)) to \(Int(hangs.upperBound)) seconds")
        }
        try display.validate(with: capture)
        if let startAt, StartTime(startAt) == nil {
            throw ValidationError("invalid --start-at '\(startAt)': use +SECONDS (e.g. +10) or a clock time today, HH:MM or HH:MM:SS")
        }
        if !(preRoll.isFinite && preRolls.contains(preRoll)) {
            throw ValidationError("invalid --pre-roll \(preRoll): use \(Int(preRolls.lowerBound)) to \(Int(preRolls.upperBound)) seconds")
        }
        if output != "-" && type == nil && FileType(path: output) == nil {
            throw ValidationError("cannot tell the file type of '\(output)': end the name in \(FileType.extensionList), or give -t TYPE")
        }
        if let quality {
            guard quality.isFinite && (0...1).contains(quality) else {
                throw ValidationError("invalid --quality \(quality): use 0 (smallest file) to 1 (best)")
            }
            let container = type ?? FileType(path: output) ?? .au
            guard container.isLossy else {
                throw ValidationError("--quality applies to ogg, opus and mp3; \(container.rawValue) is lossless: leave --quality out")
            }
        }
        if output == "-" {
            if startAbove != nil {
                throw ValidationError("--start-above cannot write to standard output: each take is a file of its own; give a file name")
            }
            if maxFileTime != nil || maxFileSize != nil {
                throw ValidationError("--max-file-time and --max-file-size split into numbered files: give a file name, not -")
            }
        }
        if let maxFileTime, (frames(maxFileTime) ?? 0) < 1 {
            throw ValidationError("invalid --max-file-time \(maxFileTime): use a number of seconds from one frame "
                                  + "(1/\(capture.rate) s) up to \(StreamFormat.maxFrameCount / Int64(max(capture.rate, 1))) s")
        }
        try validateSegments()
        if let alarmSilence, Self.silenceAlarm(alarmSilence) == nil {
            throw ValidationError("invalid --alarm-silence '\(alarmSilence)': use SECONDS@DBFS, e.g. 30s@-50 (up to a day, -160 to 0 dBFS)")
        }
        if let alarmDisk, Self.room(alarmDisk) == nil {
            throw ValidationError("invalid --alarm-disk '\(alarmDisk)': use a share of the disk below 100%, e.g. 10%, or bytes, e.g. 500M or 20G")
        }
        if let onFile, let refusal = HookRunner.refusal(onFile) {
            throw ValidationError("invalid --on-file '\(onFile)': it \(refusal); give the path of a program to run for each file")
        }
        if let onAlarm, let refusal = HookRunner.refusal(onAlarm) {
            throw ValidationError("invalid --on-alarm '\(onAlarm)': it \(refusal); give the path of a program to run for each alarm")
        }
        if let webhook, let refusal = Webhook.refusal(webhook) {
            throw ValidationError("invalid --webhook '\(webhook)': it \(refusal); give the URL to post each event to, e.g. http://127.0.0.1:9000/recorder")
        }
        if onAlarm != nil, alarmSilence == nil, !alarmClip, alarmDisk == nil {
            throw ValidationError("--on-alarm needs an alarm to run for: add --alarm-silence, --alarm-clip or --alarm-disk")
        }
        if !(hookTimeout.isFinite && hookTimeout > 0 && hookTimeout <= 86_400) {
            throw ValidationError("invalid --hook-timeout \(hookTimeout): use more than 0 and at most 86400 seconds")
        }
        if let maxFileSize, Self.bytes(maxFileSize) == nil {
            throw ValidationError("invalid --max-file-size '\(maxFileSize)': use a number of bytes, e.g. 1000000, 640k, 100M or 2G")
        }
    }

    /// The keys line, with the take's marks when the files have a take sheet.
    private func keyHint(_ metadata: RecordingMetadata) -> String {
        let marks = metadata.ixml && [.wav, .rf64, .aiff, .caf].contains(container ?? .au)
        let keys = (startAbove == nil ? "keys: space pause/resume, m marker" : "keys: m marker")
            + (marks ? ", c circle, n no good" : "") + ", q stop"
        let state = [metadata.circled ? "circled" : nil, metadata.noGood ? "no good" : nil].compactMap { $0 }
        return keys + (marks && !state.isEmpty ? "  [take " + state.joined(separator: ", ") + "]" : "")
    }

    /// `seconds` in whole frames (rounded down) at the capture rate; nil unless finite, >= 0 and countable.
    private func frames(_ seconds: Double) -> Int64? {
        (try? StreamFormat(sampleRate: capture.rate, channelCount: 1))?.frames(seconds: seconds, rounding: .down)
    }

    /// "123", "640k", "100M", "2G" (binary multiples) in bytes; nil if malformed or not positive.
    static func bytes(_ text: String) -> Int64? {
        let multipliers: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if let last = text.last, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard let value = Int64(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    package func run() async throws {
        // Closed (`>&-`), it was pointed at /dev/null: the audio would be lost with a success.
        if output == "-" && standardOutput.wasClosedAtStart {
            throw fail(RecorderError(.writeFailed,
                "standard output is closed: the audio of 'record -' would be lost; redirect it "
                + "(recorder record - > take.au, or | another program), or give a file name"))
        }
        let recorder = try capture.startRecorder(maximumPreRoll: preRoll)
        recorder.encoderQuality = quality
        recorder.metadata = sheet.metadata(output: output)
        if peaks { recorder.peakData = PeakFormat(version: 2, mixed: false, bits: 16, samplesPerPixel: 256) }
        var startTime: Double?
        if let startAt, let start = StartTime(startAt) {
            guard let seconds = start.secondsFromNow() else {
                await recorder.stop()
                throw ValidationError("--start-at \(startAt) has passed today; give a time to come")
            }
            startTime = recorder.deviceCurrentTime + seconds
        }
        let channels = recorder.format.channelCount
        let toStandardOutput = output == "-"
        // With the audio on stdout, the JSON lines go to stderr, and then take the readout's place.
        let drawing = LiveOutput.stderrIsTerminal && !quiet && !(toStandardOutput && levelsJSON)
        let live = LiveOutput(channelCount: channels, display: drawing, json: levelsJSON, path: output,
                              meter: display.meter, target: display.target,
                              jsonTo: toStandardOutput ? standardError : standardOutput, sources: recorder.sources)
        let webhooks = webhookRunner(live: live)
        // Levels only when something shows them: each reading wakes a thread, which is most of the cost
        // of a quiet recording.
        // (The disk the take goes to: the output's first folder without strftime fields.)
        let alarms = alarmSettings(folder: SegmentRetention.root(of: output)).map { Alarms($0, sampleRate: recorder.format.sampleRate) }
        let readings: AsyncStream<MeterReading> = drawing || levelsJSON || alarms != nil ? try display.readings(from: recorder)
            : AsyncStream { $0.finish() }
        // Bound before the take starts, so a port in use fails before anything is recorded.
        let page = serve == nil ? nil : try await Companion.page().attach(self, to: recorder)
        let limit = capture.duration.flatMap { recorder.format.frames(seconds: $0) }
        let events = recorder.events()  // before record(to:), so nothing about the file is missed
        // A stop from here on closes the file; one that came before the file exists leaves none.
        let stops = StopRequests.shared
        stops.arm { _ in Task { _ = try? await recorder.stopRecording() } }
        // The logger's own files from earlier runs expire first (and its index must be writable).
        var kept: SegmentRetention?
        do throws(RecorderError) {
            if let retention { kept = try SegmentRetention(pattern: output, policy: retention) }
        } catch {
            await recorder.stop()
            throw fail(error)
        }
        if let kept { for removal in kept.expire(now: Self.wallClock()) { live.report(removalReport(removal, t: 0)) } }
        let retained = kept
        let fileStart: Int64
        let trigger = startAbove.map { SoundTrigger(startAbove: $0, stopBelow: stopBelow, hang: hang, oneFile: oneFile) }
        do {
            if let segment, let seconds = Self.period(segment), let clock = SegmentClock(period: seconds, zone: utc ? .utc : .local) {
                fileStart = try recorder.record(toSegments: output, every: clock, overwrite: force, frameLimit: limit, fileType: type)
            } else if let trigger {
                fileStart = try recorder.record(to: output, trigger: trigger, preRoll: preRoll, overwrite: force,
                                                frameLimit: limit)
            } else {
                fileStart = try recorder.record(to: output, overwrite: force, frameLimit: limit,
                                                preRoll: preRoll, startingAt: startTime,
                                                maxFramesPerFile: maxFileTime.flatMap { recorder.format.frames(seconds: $0, rounding: .down) },
                                                maxBytesPerFile: maxFileSize.flatMap(Self.bytes), fileType: type)
            }
        } catch {
            await recorder.stop()
            throw fail(error, hint: error.code == .fileExists ? "pass --force to replace it" : nil)
        }
        // A stop that arrived while the file was being created found nothing to stop: stop now.
        if stops.isStopping { _ = try? await recorder.stopRecording() }
        page?.watch(fileStart: fileStart)
        let rate = recorder.format.sampleRate
        // The levels are a side channel: if stdout fails (reader gone, device full, closed), the take
        // goes on; it is said at once, and the exit status reports it at the end.
        if !toStandardOutput { standardOutput.goLive { code in live.outputFailed(code) } }
        standardError.goLive()
        let quiet = self.quiet
        let hooks = hookRunner(onFile, option: "on-file", live: live, start: fileStart, rate: rate)
        let alarmHooks = hookRunner(onAlarm, option: "on-alarm", live: live, start: fileStart, rate: rate)
        // An alarm that starts or ends: a line, an event, and a marker in the file where it was seen.
        let raise: @Sendable (Alarms.Change) -> Void = { change in
            let seconds = max(0, Double(change.frame - fileStart) / Double(rate))
            let json = "{\"event\": \"alarm\", \"t\": \(format(seconds, 3)), \"alarm\": \"\(change.kind)\", "
                + "\"state\": \"\(change.on ? "on" : "off")\", \"message\": \(jsonString(change.message))}"
            live.report(EventReport(message: (change.on ? "alarm: " : "alarm over: ") + change.message + " at \(clock(seconds))", json: json))
            page?.alarm(change.kind, on: change.on, message: change.message, seconds: seconds, json: json)
            _ = try? recorder.addMarker((change.on ? "alarm: " : "alarm over: ") + change.message)
            alarmHooks?.enqueue(HookJob(alarm: change, seconds: seconds, time: Self.wallClock(), file: output))
        }
        let cutIntoFiles = segment != nil || maxFileTime != nil || maxFileSize != nil
        let reporter = Task {
            for await event in events {
                if case .fileFinished(let file) = event { hooks?.enqueue(HookJob(file: file)) }
                for change in alarms?.event(event) ?? [] { raise(change) }
                switch event {
                case .recordingPaused:
                    live.setStatus("paused")
                case .recordingResumed:
                    live.setStatus(nil)
                case .markerAdded:
                    live.addMarker()
                case .takeStarted(let number, _, _):
                    live.setStatus("take \(number)")
                case .takeEnded:
                    live.setStatus("waiting")
                default:
                    break
                }
                guard let report = EventReport(event, start: fileStart, rate: rate) else { continue }
                // --quiet keeps warnings (they concern the recording), not the notes. A file's end is an event
                // of a take cut into files (a single file's is the summary).
                // (An alarm's marker is said by the alarm's own line.)
                if case .fileFinished = event, !cutIntoFiles {} else if case .markerAdded(let label, _, _) = event, label.hasPrefix("alarm") {
                    live.report(EventReport(message: nil, json: report.json))
                } else {
                    live.report(report, showMessage: !quiet || (report.message?.hasPrefix("warning:") ?? false))
                }
                // Listed once finished, then what the policy says must go (said after the file's own event).
                if case .fileFinished(let file) = event, let kept = retained {
                    let t = max(0, Double(file.endFrame - fileStart) / Double(rate))
                    do throws(RecorderError) { try kept.add(file) } catch { live.report(EventReport(message: "warning: \(error.message)", json: nil)) }
                    for removal in kept.expire(now: Self.wallClock()) { live.report(removalReport(removal, t: t)) }
                }
            }
        }
        // SIGUSR1 and the keys: markers, pause and resume, and q as Ctrl-C.
        StopRequests.shared.onUserSignal { _ = try? recorder.addMarker() }
        let keys = drawing ? KeyReader.start { key in
            switch key {
            case .space: if recorder.isPaused { recorder.resume() } else { recorder.pause() }
            case .marker: _ = try? recorder.addMarker()
            case .quit: StopRequests.shared.requestStop()
            case .circle, .noGood:
                // Saved in the take's iXML when its file closes: the hint line says how it stands.
                var metadata = recorder.metadata
                if key == .circle { metadata.circled.toggle() } else { metadata.noGood.toggle() }
                recorder.metadata = metadata
                live.setHint(keyHint(metadata))
            case .left, .right: break
            }
        } : nil
        defer { keys?.restore() }
        if keys != nil { live.setHint(keyHint(recorder.metadata)) }
        if let trigger { live.setStatus("waiting for > \(format(Double(trigger.startAbove), 1)) dBFS") }
        live.start()
        let sampleRate = Double(recorder.format.sampleRate)
        let triggered = trigger != nil
        let consumer = Task {
            for await reading in readings {
                if let alarms {
                    let peak = reading.levels.map(\.peakPower).max() ?? LevelMeterState.silence
                    for change in alarms.reading(endFrame: reading.endFrame, frameCount: reading.frameCount, peak: peak) { raise(change) }
                }
                // Only readings of buffers in the file (its place is given while recording): the time
                // since its first frame, paused time included, and the readout's clock, the file's
                // length (while listening for takes, the time listened).
                guard reading.endFrame > fileStart, let position = reading.recordingPosition,
                      let paused = reading.pausedFrames else { continue }
                let frames = position + paused
                live.take(reading, frames: frames, time: Double(frames) / sampleRate,
                          clock: Double(triggered ? frames : position) / sampleRate)
            }
        }
        _ = try? await recorder.waitForRecording()
        await page?.close()
        StopRequests.shared.onUserSignal(nil)
        keys?.restore()
        let summary = recorder.lastRecording
        await recorder.stop()  // ends the level and event streams after their last elements
        await consumer.value
        await reporter.value
        // The last file's run too, each within its time limit.
        let hooksDone = await hooks?.finished()
        let alarmHooksDone = await alarmHooks?.finished()
        let webhookDone = await webhooks?.finished()
        await live.finish()
        guard let summary else { throw ExitCode(ExitStatus.other) }
        // One file per source, from each file the take wrote (the take's own file goes once split).
        var files = summary.files
        var splitFailure: RecorderError?
        if splitSources && summary.sources.count > 1 {
            var split: [String] = []
            for path in summary.files {
                do {
                    split += try SourceFiles.split(path, format: recorder.format, sources: summary.sources, overwrite: force)
                } catch {
                    splitFailure = error
                    split.append(path)
                }
            }
            files = split
        }
        // The level lines before the summary, as they happened, when both go to one place (`2>&1`): each
        // descriptor has a writer of its own. A reader that is not reading gets this patience only once.
        standardOutput.flush(seconds: 0.5)
        if !quiet {
            printSummary(summary, rate: recorder.format.sampleRate)
            printSources(summary.sources)
            if files != summary.files { writeLine("files by source: " + files.joined(separator: ", ")) }
            if !summary.peakFiles.isEmpty { writeLine("peaks: " + summary.peakFiles.joined(separator: ", ")) }
            for (option, done) in [("on-file", hooksDone), ("on-alarm", alarmHooksDone), ("webhook", webhookDone)] {
                if let done { writeLine(Self.hookSummary(option, done)) }
            }
            let channels = recorder.format.channelCount
            if recorder.metadata.broadcastExtension, summary.fileType == .wav || summary.fileType == .rf64,
               !MeterLimits.programmeChannelCounts.contains(channels) {
                writeLine("loudness: not in the bext chunk: \(channels) channels make a multitrack take, not a programme "
                          + "(up to \(MeterLimits.programmeChannelCounts.upperBound)); recorder analyze measures any file")
            }
            if options.givenRate == nil && capture.rate != options.rate {
                writeLine("rate: \(capture.rate) Hz, the rate \(container?.rawValue.capitalized ?? "") holds nearest to "
                          + "the default \(options.rate) Hz (-r chooses another it holds)")
            }
        }
        if let failure = summary.peakFailure { writeLine("recorder: warning: \(failure.message)") }
        // The takes' loudness into their files (a WAV's is in its bext chunk already).
        if sheet.tag, summary.fileType != .wav, summary.fileType != .rf64 {
            for path in files {
                do {
                    let tags = try LoudnessTags.write(try FileAnalysis.analyze(path: path), to: path)
                    if !quiet { writeLine("tagged \(path): " + tags.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")) }
                } catch {
                    writeLine("recorder: warning: \(error.message)")
                }
            }
        }
        if let error = summary.error ?? splitFailure {
            throw fail(error, hint: error.code == .fileExists ? "pass --force to replace it" : nil)
        }
    }
}

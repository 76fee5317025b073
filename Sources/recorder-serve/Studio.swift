// The take behind the page: `recorder serve`'s own capture and takes, or the take `record --serve` runs,
// driven through the library's public API; its levels, events and state published to the page's hub.
import Glibc
import Locking
import RecorderCommandLine
import RecorderKit
import RecorderServer

/// The page's take. In `serve` it owns the capture (started at once, so the meters move before a take)
/// and records takes into the folder; attached to `record`, it watches that command's recorder, and
/// controls it only with `--serve-control` (pause, marker, circle, no good, stop: the keys' actions).
///
/// Sendable: the mutable state is behind `take`'s lock; one action runs at a time (`busy`), so a
/// recorder is never swapped under another action. Levels and events reach the hub from tasks of their
/// own, which only read a recorder's streams: capture never waits for the page.
final class Studio: StudioControl, @unchecked Sendable {
    // @unchecked Sendable: `hub`, `options` and the closures are immutable after init; everything else
    // lives in `take` (a lock), and the tasks it holds are only started and cancelled under it.
    struct TakeState {
        var recorder: Recorder?
        var settings = TakeSettings()
        var file: String?
        /// The recorder frame the file began at, and when it began (monotonic seconds).
        var fileStart: Int64 = 0
        var takeCount = 0
        var lastError: String?
        var readings: Task<Void, Never>?
        var events: Task<Void, Never>?
        var ended: Task<Void, Never>?
        var captureError: String?
        /// The `record --alarm-…` alarms that are on, in the order they began: kind, message, seconds into the take.
        var alarms: [(kind: String, message: String, since: Double)] = []
    }

    let hub: LevelHub
    private let folder: TakeFolder?
    private let control: Bool
    /// Owns the capture (`serve`) or watches `record`'s.
    private let owned: Bool
    private let capture: CaptureOptions
    private let take = Locked(TakeState())
    private let busy = Locked(false)
    /// `record --serve`: what stop does (the command's own stop request).
    private let requestStop: (@Sendable () -> Void)?
    /// Said in the command's log (a line on stderr).
    private let log: @Sendable (String) -> Void
    private var ticker: Task<Void, Never>?

    /// `serve`: captures with `capture`'s source and format until `close()`.
    init(serving capture: CaptureOptions, folder: TakeFolder, control: Bool, hub: LevelHub, log: @escaping @Sendable (String) -> Void) {
        self.capture = capture
        self.folder = folder
        self.control = control
        self.hub = hub
        self.log = log
        owned = true
        requestStop = nil
    }

    /// `record --serve`: watches `recorder` (its file is named by `watch(fileStart:)` once it begins).
    init(watching recorder: Recorder, file: String, capture: CaptureOptions, folder: TakeFolder?,
         control: Bool, hub: LevelHub, requestStop: @escaping @Sendable () -> Void, log: @escaping @Sendable (String) -> Void) {
        self.capture = capture
        self.folder = folder
        self.control = control
        self.hub = hub
        self.log = log
        self.requestStop = requestStop
        owned = false
        take.withLock {
            $0.recorder = recorder
            $0.file = file
        }
    }

    /// `record --serve`: the watched take's file began at recorder frame `fileStart`.
    func watch(fileStart: Int64) {
        guard let (recorder, file) = take.withLock({ state -> (Recorder, String)? in
            state.fileStart = fileStart
            state.takeCount = 1
            return state.recorder.flatMap { recorder in state.file.map { (recorder, $0) } }
        }) else { return }
        watchEnd(of: recorder, file: file)
        hub.publish(state: state())
    }

    /// `record --serve`: an alarm began or ended; its event listed, and the state (with the alarms on) sent at once.
    func alarm(_ kind: String, on: Bool, message: String, seconds: Double, json: String) {
        take.withLock { state in
            state.alarms.removeAll { $0.kind == kind }
            if on { state.alarms.append((kind, message, seconds)) }
        }
        hub.publish(event: json)
        hub.publish(state: state())
    }

    /// Starts the capture (`serve`) and the feeds of levels, events and state.
    func start() throws(RecorderError) {
        if owned {
            let recorder = try Self.startRecorder(capture, source: nil, rate: nil, channels: nil)
            take.withLock { $0.recorder = recorder }
        }
        guard let recorder = take.withLock({ $0.recorder }) else { return }
        feed(recorder)
        let hub = self.hub
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                hub.publish(state: self.state())
                try? await Task.sleep(nanoseconds: 1_000_000_000)
            }
        }
    }

    /// Ends the feeds; in `serve`, stops any take (its file closed and valid) and the capture.
    func close() async {
        ticker?.cancel()
        let (recorder, tasks) = take.withLock { state in
            (state.recorder, [state.readings, state.events, state.ended].compactMap { $0 })
        }
        if owned, let recorder {
            _ = try? await recorder.stopRecording()
            await recorder.stop()
        }
        tasks.forEach { $0.cancel() }
    }

    // MARK: StudioControl

    func state() -> String {
        let snapshot = take.withLock { $0 }
        guard let recorder = snapshot.recorder else {
            return "{\"running\": false, \"recording\": false, \"paused\": false, \"control\": \(control), \"can_start\": \(owned && control), "
                + "\"can_pause\": false, \"error\": \(snapshot.captureError.map(jsonString) ?? "null"), \"take_count\": \(snapshot.takeCount), "
                + "\"dropped_frames\": 0, \"gap_frames\": 0, \"elapsed_s\": null, \"time_left_s\": null, \"disk_free_bytes\": 0}"
        }
        let format = recorder.format
        let open = recorder.isFileOpen
        let type = snapshot.file.flatMap { FileType(path: $0) } ?? FileType(path: "x." + (snapshot.settings.type ?? "wav")) ?? .wav
        let elapsed = open ? recorder.currentTime : nil
        let free = folder.map { Self.freeBytes($0.path) } ?? 0
        let rate = Self.bytesPerSecond(type: type, format: format, file: open ? snapshot.file.flatMap { folder?.file($0) } : nil,
                                       elapsed: elapsed)
        let left = rate.map { Double(free) / $0 }
        let metadata = recorder.metadata
        var warning: String? = nil
        if let left, left < 60 { warning = "less than a minute of disk left at this take's rate: stop, or free space" }
        if let error = snapshot.lastError { warning = error }
        return "{\"running\": true, \"recording\": \(open), \"paused\": \(recorder.isPaused), \"control\": \(control), "
            + "\"can_start\": \(owned && control), \"can_pause\": \(control), "
            + "\"file\": \(snapshot.file.map(jsonString) ?? "null"), \"take_count\": \(snapshot.takeCount), "
            + "\"elapsed_s\": \(elapsed.map { format3($0) } ?? "null"), "
            + "\"source\": \(jsonString(recorder.sourceName)), "
            + "\"format\": {\"type\": \"\(type.rawValue)\", \"rate\": \(format.sampleRate), \"channels\": \(format.channelCount), "
            + "\"sample_format\": \"\(format.sampleFormat)\"}, "
            + "\"disk_free_bytes\": \(free), \"bytes_per_second\": \(rate.map { format3($0) } ?? "null"), "
            + "\"time_left_s\": \(left.map { format3($0) } ?? "null"), \"warning\": \(warning.map(jsonString) ?? "null"), "
            + "\"dropped_frames\": \(recorder.droppedFrames), \"gap_frames\": \(recorder.gapFrames), "
            + "\"scene\": \(jsonString(metadata.scene)), \"take\": \(metadata.take.map(String.init) ?? "null"), "
            + "\"circled\": \(metadata.circled), \"no_good\": \(metadata.noGood), "
            + "\"loudness_note\": \(Self.loudnessNote(format).map(jsonString) ?? "null"), \"error\": \(snapshot.captureError.map(jsonString) ?? "null"), "
            + "\"alarms\": [" + snapshot.alarms.map { alarm in
                "{\"alarm\": \"\(alarm.kind)\", \"message\": \(jsonString(alarm.message)), \"since_t\": \(format3(alarm.since))}"
            }.joined(separator: ", ") + "]}"
    }

    func sources() -> String {
        let current = take.withLock { $0.recorder?.sourceName }
        guard let list = try? Recorder.sources(server: capture.connection.server) else { return "[]" }
        return "[" + list.map { source in
            "{\"name\": \(jsonString(source.name)), \"description\": \(jsonString(source.description)), "
                + "\"index\": \(source.index), \"current\": \(source.name == current)}"
        }.joined(separator: ", ") + "]"
    }

    func busyFiles() -> Set<String> {
        let (recorder, file) = take.withLock { ($0.recorder, $0.file) }
        guard let recorder, recorder.isFileOpen, let file else { return [] }
        // A split take's later files too: every file of the recording whose name starts as the take's.
        let stem = String(file.prefix { $0 != "." })
        return Set((folder?.list().map(\.name) ?? [file]).filter { $0 == file || $0.hasPrefix(stem + "-") })
    }

    func perform(_ action: StudioAction) async -> StudioReply {
        guard control else { return .refused(status: 403, reason: "the page is read-only (record with --serve-control to control it)") }
        guard busy.withLock({ busy in defer { busy = true }; return !busy }) else {
            return .refused(status: 409, reason: "another control is being carried out; try again")
        }
        defer { busy.withLock { $0 = false } }
        let reply = await carryOut(action)
        hub.publish(state: state())
        return reply
    }

    private func carryOut(_ action: StudioAction) async -> StudioReply {
        guard let recorder = take.withLock({ $0.recorder }) else {
            return .refused(status: 409, reason: take.withLock { $0.captureError } ?? "nothing is being captured")
        }
        switch action {
        case .record(let settings):
            guard owned else { return .refused(status: 409, reason: "this page watches a take started by 'recorder record': start takes with 'recorder serve'") }
            guard !recorder.isFileOpen else { return .refused(status: 409, reason: "a take is being recorded: stop it first, or use next take") }
            return await record(settings, on: recorder)
        case .stop:
            guard recorder.isFileOpen else { return .refused(status: 409, reason: "no take is being recorded") }
            if let requestStop { requestStop(); return .done("{\"stopping\": true}") }
            return await stop(recorder)
        case .pause:
            guard recorder.isFileOpen else { return .refused(status: 409, reason: "no take is being recorded") }
            let position = recorder.isPaused ? recorder.resume() : recorder.pause()
            return .done("{\"paused\": \(recorder.isPaused), \"position_frames\": \(position.map(String.init) ?? "null")}")
        case .marker(let name):
            do {
                let label = String(name.prefix(200))
                let frame = try recorder.addMarker(label)
                let shown = label.isEmpty ? "marker" : label
                return .done("{\"label\": \(jsonString(shown)), \"frame\": \(frame), "
                             + "\"position_s\": \(format3(Double(frame) / Double(recorder.format.sampleRate)))}")
            } catch {
                return .refused(status: 409, reason: error.message)
            }
        case .nextTake:
            guard owned else { return .refused(status: 409, reason: "next take needs 'recorder serve': this page watches one take of 'recorder record'") }
            guard recorder.isFileOpen else { return .refused(status: 409, reason: "no take is being recorded: press record") }
            let settings = take.withLock { $0.settings }
            if case .refused(let status, let reason) = await stop(recorder) { return .refused(status: status, reason: reason) }
            var next = settings
            next.name = nil
            next.take = recorder.metadata.take.map { $0 + 1 }
            return await record(next, on: recorder)
        case .circle, .noGood:
            var metadata = recorder.metadata
            if action == .circle { metadata.circled.toggle() } else { metadata.noGood.toggle() }
            recorder.metadata = metadata
            return .done("{\"circled\": \(metadata.circled), \"no_good\": \(metadata.noGood)}")
        }
    }

    /// Starts a take into the folder with `settings` (a new capture first when its source or format differ).
    private func record(_ settings: TakeSettings, on current: Recorder) async -> StudioReply {
        guard let folder else { return .refused(status: 409, reason: "no take folder") }
        let type: FileType
        if let name = settings.name {
            guard TakeFolder.isPlainName(name), let given = FileType(path: name) else {
                return .refused(status: 400, reason: "invalid take name '\(name)': one file name ending in \(FileType.extensionList), no '/'")
            }
            type = given
        } else {
            guard let given = FileType(path: "x." + (settings.type ?? "wav")) else {
                return .refused(status: 400, reason: "invalid format '\(settings.type ?? "")': use \(FileType.extensionList)")
            }
            type = given
        }
        if let rate = settings.rate, !(8_000...StreamFormat.maxSampleRate).contains(rate) {
            return .refused(status: 400, reason: "invalid rate \(rate): use 8000 to \(StreamFormat.maxSampleRate) Hz")
        }
        if let channels = settings.channels, !(1...StreamFormat.maxChannels).contains(channels) {
            return .refused(status: 400, reason: "invalid channel count \(channels): use 1 to \(StreamFormat.maxChannels)")
        }
        for (text, name) in [(settings.project, "project"), (settings.scene, "scene"), (settings.tape, "tape"), (settings.note, "note")] {
            if let text, RecordingMetadata.storedByteCount(of: text) > RecordingMetadata.maxFieldBytes {
                return .refused(status: 400, reason: "the \(name) is too long for the iXML chunk (\(RecordingMetadata.maxFieldBytes) bytes stored): shorten it")
            }
        }
        if let take = settings.take, take < 1 { return .refused(status: 400, reason: "invalid take \(take): takes count from 1") }
        // Another source or format: a new capture (the meters start again with it).
        var recorder = current
        let wantsSource = settings.source.map { $0 != current.sourceName } ?? false
        let wantsFormat = (settings.rate.map { $0 != current.format.sampleRate } ?? false)
            || (settings.channels.map { $0 != current.format.channelCount } ?? false)
        if wantsSource || wantsFormat {
            let replaced: Recorder
            do {
                replaced = try Self.startRecorder(capture, source: settings.source ?? current.sourceName,
                                                  rate: settings.rate ?? current.format.sampleRate,
                                                  channels: settings.channels ?? current.format.channelCount)
            } catch {
                return .refused(status: 409, reason: error.message)
            }
            let old = take.withLock { state -> [Task<Void, Never>] in
                state.recorder = replaced
                return [state.readings, state.events].compactMap { $0 }
            }
            old.forEach { $0.cancel() }
            await current.stop()
            recorder = replaced
            feed(recorder)
        }
        let name = settings.name ?? Self.freeName(in: folder, prefix: settings.scene.flatMap { Self.fileSafe($0) } ?? "take", type: type)
        var metadata = RecordingMetadata(ixml: [.wav, .rf64, .aiff, .caf].contains(type), project: settings.project ?? "",
                                         scene: settings.scene ?? "", tape: settings.tape ?? "", note: settings.note ?? "")
        metadata.take = settings.take ?? settings.scene.map { RecordingMetadata.nextTake(scene: $0, in: folder.path) }
        recorder.metadata = metadata
        let start: Int64
        do {
            start = try recorder.record(to: folder.file(name), fileType: type)
        } catch {
            return .refused(status: error.code == .fileExists ? 409 : 500,
                            reason: error.message + (error.code == .fileExists ? " (give another name)" : ""))
        }
        take.withLock { state in
            state.settings = settings
            state.file = name
            state.fileStart = start
            state.takeCount += 1
            state.lastError = nil
            state.ended?.cancel()
        }
        log("recording \(folder.file(name))")
        watchEnd(of: recorder, file: name)
        return .done("{\"file\": \(jsonString(name)), \"take\": \(metadata.take.map(String.init) ?? "null")}")
    }

    /// Stops the take; its summary's losses said in the reply.
    private func stop(_ recorder: Recorder) async -> StudioReply {
        do {
            guard let summary = try await recorder.stopRecording() else { return .refused(status: 409, reason: "no take is being recorded") }
            return .done(Self.summaryJSON(summary, rate: recorder.format.sampleRate))
        } catch {
            return .done("{\"error\": \(jsonString(error.message))}")
        }
    }

    /// When the take ends by itself (a full disk, a lost server, the duration), the page is told.
    private func watchEnd(of recorder: Recorder, file: String) {
        let hub = self.hub, log = self.log
        let task = Task { [weak self] in
            do throws(RecorderError) {
                _ = try await recorder.waitForRecording()
            } catch {
                self?.take.withLock { $0.lastError = "the take stopped: \(error.message); the file is valid up to there" }
                log("the take \(file) stopped: \(error.message)")
            }
            let summary = recorder.lastRecording
            let rate = recorder.format.sampleRate
            hub.publish(event: "{\"event\": \"finished\", \"path\": \(jsonString(file)), \"summary\": "
                        + (summary.map { Self.summaryJSON($0, rate: rate) } ?? "null") + "}")
            if let self { hub.publish(state: self.state()) }
        }
        take.withLock { $0.ended = task }
    }

    /// Levels (a loudness meter, or the peak meter where loudness is not measured: `loudnessNote`) and
    /// events to the hub.
    private func feed(_ recorder: Recorder) {
        let hub = self.hub
        let rate = recorder.format.sampleRate
        let meter: MeterKind = Self.loudnessNote(recorder.format) == nil ? .loudness : .peak
        let readings = (try? recorder.meterReadings(meter)) ?? AsyncStream { $0.finish() }
        let events = recorder.events()
        let levels = Task { [weak self] in
            for await reading in readings {
                let start = self?.take.withLock { $0.fileStart } ?? 0
                let inFile = reading.endFrame > start && reading.recordingPosition != nil
                let frames = inFile ? (reading.recordingPosition ?? 0) + (reading.pausedFrames ?? 0) : reading.endFrame
                let line = LiveOutput.jsonLine(reading, frames: frames, time: Double(frames) / Double(rate), meter: meter)
                hub.publish(levels: line, peaks: reading.levels.map(\.peakPower))
            }
        }
        let reporter = Task { [weak self] in
            for await event in events {
                let start = self?.take.withLock { $0.fileStart } ?? 0
                if let json = EventReport(event, start: start, rate: rate)?.json { hub.publish(event: json) }
                if case .captureFailed(let error) = event {
                    self?.take.withLock { $0.captureError = "capture failed: \(error.message)" }
                }
            }
        }
        take.withLock { state in
            state.readings = levels
            state.events = reporter
        }
    }

    /// Why the page shows no loudness for takes of `format`; nil when it measures it (a programme of up
    /// to 8 channels at a rate libebur128 takes: `MeterLimits`).
    static func loudnessNote(_ format: StreamFormat) -> String? {
        if !MeterLimits.programmeChannelCounts.contains(format.channelCount) {
            return "loudness not measured: \(format.channelCount) channels make a multitrack take, not a programme "
                + "(up to \(MeterLimits.programmeChannelCounts.upperBound)); recorder analyze measures any file"
        }
        if !MeterLimits.loudnessSampleRates.contains(format.sampleRate) {
            return "loudness not measured at \(format.sampleRate) Hz (from \(MeterLimits.loudnessSampleRates.lowerBound) Hz)"
        }
        return nil
    }

    private static func summaryJSON(_ summary: RecordingSummary, rate: Int) -> String {
        "{\"frames\": \(summary.frameCount), \"seconds\": \(format3(Double(summary.frameCount) / Double(rate))), "
            + "\"dropped_frames\": \(summary.droppedFrames), \"gaps\": \(summary.gaps.count), "
            + "\"markers\": \(summary.markers.count), \"files\": [" + summary.files.map(jsonString).joined(separator: ", ") + "], "
            + "\"error\": \(summary.error.map { jsonString($0.message) } ?? "null")}"
    }

    private static func startRecorder(_ capture: CaptureOptions, source: String?, rate: Int?, channels: Int?) throws(RecorderError) -> Recorder {
        let format = try StreamFormat(sampleRate: rate ?? capture.rate, channelCount: channels ?? capture.channels,
                                      sampleFormat: capture.sampleFormat)
        return try Recorder(format: format, source: source ?? capture.sources.first, server: capture.connection.server,
                            maxQueueDuration: capture.queueLimit,
                            reconnectTimeout: capture.reconnect ? capture.reconnectTimeout : nil)
    }

    /// `prefix-001.ext`, the first number free in the folder.
    private static func freeName(in folder: TakeFolder, prefix: String, type: FileType) -> String {
        let taken = Set(folder.list().map(\.name))
        var number = 1
        while true {
            let digits = String(number)
            let name = prefix + "-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "." + type.rawValue
            var status = stat()
            if !taken.contains(name) && lstat(folder.file(name), &status) != 0 { return name }
            number += 1
        }
    }

    /// `text` as a file name's part: letters, digits, '-' and '_' kept, the rest '_'; nil when empty.
    private static func fileSafe(_ text: String) -> String? {
        let safe = String(text.prefix(64).map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix(".") ? nil : safe
    }

    private static func freeBytes(_ path: String) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The take's bytes per second: PCM's from its format; an encoder's from the file's size so far
    /// (after 5 s), nil before.
    private static func bytesPerSecond(type: FileType, format: StreamFormat, file: String?, elapsed: Double?) -> Double? {
        if !type.isLossy && type != .flac { return Double(format.sampleRate * format.bytesPerFrame) }
        guard let file, let elapsed, elapsed >= 5 else { return nil }
        var status = stat()
        guard stat(file, &status) == 0, status.st_size > 0 else { return nil }
        return Double(status.st_size) / elapsed
    }
}

/// Three decimals.
private func format3(_ value: Double) -> String { format(value, 3) }

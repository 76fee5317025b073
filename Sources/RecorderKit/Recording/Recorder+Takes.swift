// Recording to files from a `Recorder`: plain, timed, fixed-length and sound-activated takes, pauses and markers.
import Glibc

extension Recorder {
    /// Starts writing captured packets to a new file at `path`; capture and metering go on as before.
    ///
    /// The container follows the extension: `.aiff`/`.aif` (classic AIFF, big-endian 16-bit), `.wav`,
    /// `.caf`, `.flac`, `.au`, `.raw`, `.w64`, `.rf64` (see `FileType`), or `fileType`. `path` "-" is
    /// standard output (AU unless `fileType` says otherwise; a pipe takes AU, raw, FLAC, Ogg Vorbis, Opus or MP3; no splitting).
    /// The file starts with the first frame captured after this call.
    /// - Parameters:
    ///   - path: the file to create (or "-", standard output).
    ///   - overwrite: replace an existing file (AudioFile's EraseFile flag); off by default, when an
    ///     existing file is an error and is left untouched.
    ///   - frameLimit: stop by itself after exactly this many frames (see `record(to:duration:)`).
    ///   - preRoll: begin this many seconds before now, from the audio the recorder keeps
    ///     (`maximumPreRoll`): at most that, and at most what was captured since the recorder started.
    ///   - time: begin with the frame captured at this time, in `deviceCurrentTime`'s seconds
    ///     (CLOCK_MONOTONIC), as AVAudioRecorder's `record(atTime:)`: a time to come is waited for (the
    ///     recording is on, `currentTime` stays 0 until then); a time past begins as far back as the kept
    ///     audio allows. The frame is reckoned from the arrival of the last data at the sample rate: it is
    ///     the one captured at `time` within a fragment (`bufferDuration`) and the source's latency.
    ///     `preRoll` counts back from it.
    ///   - fileType: the container, when the extension does not say it (or says another).
    ///   - maxFramesPerFile: split the recording: when a file reaches this many frames, or
    ///     `maxBytesPerFile`, or what its container can describe (4 GiB for AIFF and AU, always applied; WAV becomes RF64),
    ///     it is closed and the recording goes on, frame-exact, in `name-002.ext`, `name-003.ext`…
    ///     (`RecordingSummary.files`).
    ///   - maxBytesPerFile: split the recording when a file would grow past this many bytes, header included.
    /// - Returns: the recorder frame position of the file's first frame (compare with
    ///   `LevelReading.endFrame` and `CapturedBuffer.startFrame`).
    ///
    /// A file that begins now (no `startingAt`, no `preRoll`) begins a buffer: the one being filled when
    /// the call comes is handed on as it is (its reading, before the file, covers fewer frames), so the
    /// file's buffers and readings are whole from its first frame.
    ///
    /// Any thread, the input handler included (the file then starts after the handler's buffer).
    @discardableResult
    public func record(to path: String, overwrite: Bool = false, frameLimit: Int64? = nil,
                       preRoll: Double = 0, startingAt time: Double? = nil,
                       maxFramesPerFile: Int64? = nil, maxBytesPerFile: Int64? = nil,
                       fileType: FileType? = nil) throws(RecorderError) -> Int64 {
        try startRecording(to: path, overwrite: overwrite, frameLimit: frameLimit, preRoll: preRoll, startingAt: time,
                           maxFramesPerFile: maxFramesPerFile, maxBytesPerFile: maxBytesPerFile, trigger: nil,
                           fileType: fileType)
    }

    /// Records sound-activated takes, as a field recorder's auto-record or sox's `silence` effect, live:
    /// from now on a take begins when the level rises above `trigger.startAbove` (with `preRoll`
    /// seconds before that buffer, so the onset is not clipped) and ends after it stayed below
    /// `trigger.stopBelow` for `trigger.hang`. Each take goes into a numbered file, `name-001.ext`,
    /// `name-002.ext`… (the first is created now, so a bad path fails here), or with `oneFile` one after
    /// another into `path`. The recording lasts until `stopRecording()` (an open take ends there), or
    /// `frameLimit` frames of listening; `RecordingSummary.takes` lists the takes, and the events
    /// `takeStarted` / `takeEnded` report them as they happen. A recording that never took leaves no
    /// file. `pause()` does nothing to it; markers may be added (between takes, one goes to the next
    /// take's first frame).
    ///
    /// Threads: as `record(to:)`.
    /// - Parameters:
    ///   - path: the name the takes' files are numbered after (or the one file, with `oneFile`).
    ///   - trigger: the levels and hang time that start and end a take.
    ///   - overwrite: replace existing files.
    ///   - frameLimit: stop listening after this many frames.
    ///   - preRoll: seconds (0 … the recorder's `maximumPreRoll`) a take reaches back from the buffer that
    ///     started it; no further back than the end of the take before it, or this call.
    /// - Returns: the recorder frame from which the recording listens.
    @discardableResult
    public func record(to path: String, trigger: SoundTrigger, preRoll: Double = 0, overwrite: Bool = false,
                       frameLimit: Int64? = nil) throws(RecorderError) -> Int64 {
        let starts = SoundTrigger.startAboveRange, hangs = SoundTrigger.hangRange
        guard trigger.startAbove.isFinite, starts.contains(trigger.startAbove) else {
            throw RecorderError(.invalidFormat,
                "invalid start threshold \(trigger.startAbove) dBFS: use \(Int(starts.lowerBound)) to \(Int(starts.upperBound)) dBFS, e.g. -40")
        }
        let stops = SoundTrigger.stopBelowRange(startAbove: trigger.startAbove)
        guard trigger.stopBelow.isFinite, stops.contains(trigger.stopBelow) else {
            throw RecorderError(.invalidFormat,
                "invalid stop threshold \(trigger.stopBelow) dBFS: use \(Int(stops.lowerBound)) dBFS up to the start threshold (\(trigger.startAbove))")
        }
        guard trigger.hang.isFinite, hangs.contains(trigger.hang) else {
            throw RecorderError(.invalidFormat, "invalid hang time \(trigger.hang) s: use \(Int(hangs.lowerBound)) to \(Int(hangs.upperBound)) seconds")
        }
        guard path != "-" else {
            throw RecorderError(.invalidFormat,
                "cannot record sound-activated takes to standard output: each take is a file of its own; give a file name")
        }
        return try startRecording(to: path, overwrite: overwrite, frameLimit: frameLimit, preRoll: preRoll, startingAt: nil,
                                  maxFramesPerFile: nil, maxBytesPerFile: nil, trigger: trigger, fileType: nil)
    }

    /// Records into files cut on the wall clock, as a logger's: the first from now to the clock's next
    /// boundary, then one per period (`SegmentClock`), each named from `pattern` (strftime(3), read at
    /// its start in the clock's zone, e.g. `%Y/%m/%d/%H%M%S.flac`; folders are made as needed; see
    /// `SegmentNames` for a pattern without fields and for names already taken).
    ///
    /// Each file ends at the frame captured when the wall clock passed its boundary, reckoned from the
    /// capture timing (the last data's arrival, at the sample rate: within a fragment and the source's
    /// latency), and the next begins with the frame after it: every frame is in exactly one file. Each
    /// file is complete on its own: its bext TimeReference is its boundary's time of day, and its iXML
    /// has the take's FAMILY_UID, its place in the set (FILE_SET_INDEX, TOTAL_FILES as far as then
    /// known: closed files are not rewritten when later ones come), and the boundary it starts at with
    /// how late its cut came (`USER`: `SEGMENT_BOUNDARY`, `SEGMENT_LATE_SAMPLES`). The events report
    /// each file as it starts (`fileStarted`); `RecordingSummary.files` lists them.
    ///
    /// The clock is CLOCK_REALTIME as it reads: stepped forward past boundaries, the file ends at once
    /// and the next is named for the last boundary passed; stepped back, the file runs on until the
    /// clock reaches its boundary again.
    ///
    /// Threads: as `record(to:)`.
    /// - Parameters:
    ///   - pattern: the files' names (strftime(3) fields, read in `clock.zone`).
    ///   - clock: where the files are cut (`SegmentClock(period:zone:)`).
    ///   - overwrite: replace existing files not written by this take (without it, a name taken is numbered).
    ///   - frameLimit: stop by itself after this many frames, all files together.
    ///   - fileType: the container, when the extension does not say it.
    /// - Returns: the recorder frame position of the first file's first frame.
    @discardableResult
    public func record(toSegments pattern: String, every clock: SegmentClock, overwrite: Bool = false,
                       frameLimit: Int64? = nil, fileType: FileType? = nil) throws(RecorderError) -> Int64 {
        guard pattern != "-" else {
            throw RecorderError(.invalidFormat, "cannot cut a recording to standard output on the clock: each part is a file; give a name pattern")
        }
        let names = SegmentNames(pattern: pattern, zone: clock.zone)
        let now = realtimeSeconds()
        guard let first = names.isTimed ? names.name(at: now) : pattern, !first.isEmpty else {
            throw RecorderError(.invalidFormat,
                "the name pattern '\(pattern)' gives no file name: use strftime(3) fields in a path, e.g. %Y/%m/%d/%H%M%S.flac")
        }
        var path = first
        if !overwrite, access(path, F_OK) == 0 {
            path = (2...9_999).lazy.map { FileType.numberedPath(first, $0) }.first { access($0, F_OK) != 0 } ?? FileType.numberedPath(first, 10_000)
        }
        try SegmentNames.makeFolders(for: path)
        return try startRecording(to: path, overwrite: overwrite, frameLimit: frameLimit, preRoll: 0, startingAt: nil,
                                  maxFramesPerFile: nil, maxBytesPerFile: nil, trigger: nil, fileType: fileType,
                                  cuts: ClockCuts(clock: clock, names: names, start: now))
    }

    private func startRecording(to path: String, overwrite: Bool, frameLimit: Int64?, preRoll: Double,
                                startingAt time: Double?, maxFramesPerFile: Int64?, maxBytesPerFile: Int64?,
                                trigger: SoundTrigger?, fileType: FileType?, cuts: ClockCuts? = nil) throws(RecorderError) -> Int64 {
        if path == "-" && (maxFramesPerFile != nil || maxBytesPerFile != nil) {
            throw RecorderError(.invalidFormat,
                "cannot split a recording to standard output into numbered files; give a file name to split")
        }
        guard preRoll.isFinite, preRoll >= 0, let preRollFrames = format.frames(seconds: preRoll) else {
            throw RecorderError(.invalidFormat,
                "invalid pre-roll \(preRoll) s: use 0 to \(seconds(Double(delivery.maximumPreRollFrames) / Double(format.sampleRate))) seconds "
                + "(the recorder's maximumPreRoll)")
        }
        if let time, !(time.isFinite && time >= 0 && time < 1e9) {
            throw RecorderError(.invalidFormat,
                "invalid start time \(time) s: use a time in deviceCurrentTime's seconds (now: \(deviceCurrentTime))")
        }
        if let frameLimit, !(0...StreamFormat.maxFrameCount).contains(frameLimit) {
            throw RecorderError(.invalidFormat,
                "invalid frame limit \(frameLimit): use 0 to \(StreamFormat.maxFrameCount) frames")
        }
        if let maxFramesPerFile, !(1...StreamFormat.maxFrameCount).contains(maxFramesPerFile) {
            throw RecorderError(.invalidFormat,
                "invalid file length \(maxFramesPerFile) frames: use 1 to \(StreamFormat.maxFrameCount) frames")
        }
        if let maxBytesPerFile, maxBytesPerFile < 1 {
            throw RecorderError(.invalidFormat,
                "invalid file size limit \(maxBytesPerFile) bytes: use a positive number of bytes, more than the header")
        }
        let start = try lifecycle.withLock { lifecycle throws(RecorderError) -> Int64 in
            guard !lifecycle.stopped else {
                throw RecorderError(.invalidState, "cannot record to '\(path)': the recorder was stopped; create a new Recorder")
            }
            if let current = delivery.control.withLock({ $0.recording?.path }) {
                throw RecorderError(.invalidState,
                    "cannot record to '\(path)': already recording to '\(current)'; call stopRecording() first")
            }
            // Numbered takes: the first take's file, made ready now.
            let firstPath = trigger.map { $0.oneFile ? path : FileType.numberedPath(path, 1) } ?? path
            let metadata = Self.sourceMetadata(lifecycle.metadata, reports: capture.sourceReports(sampleRate: format.sampleRate))
            // The first frame's time as far as it is known before the start is placed (it is set again
            // at the first frame): now, less the pre-roll, or the time asked.
            let firstFrameTime = realtimeSeconds() + (time.map { $0 - deviceCurrentTime } ?? (trigger == nil ? -preRoll : 0))
            let firstFile = FileSession.firstFile(format: format, firstFrameTime: firstFrameTime,
                                                  preRollFrames: trigger == nil ? preRollFrames : 0)
            let writer = try SoundFileWriter(path: firstPath, format: format, overwrite: overwrite,
                                             maxFramesPerWrite: bufferFrameCapacity, fileType: fileType,
                                             quality: lifecycle.encoderQuality,
                                             broadcast: metadata.broadcastInfo(firstFrameTime: firstFrameTime, sampleRate: format.sampleRate),
                                             ixml: metadata.ixmlDocument(firstFile))
            if FileSession.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile,
                                 bytesPerFrame: format.bytesPerFrame) < 1 {
                writer.close()
                if !overwrite && !writer.isStandardOutput && !writer.isDevice { unlink(writer.path) }
                throw RecorderError(.invalidFormat,
                    "invalid file size limit \(maxBytesPerFile ?? 0) bytes: the \(writer.fileType.rawValue.uppercased()) "
                    + "header alone takes \(writer.headerBytes)"
                    + (writer.ixmlReserved > 0 ? " (\(writer.ixmlReserved + 8) of them the iXML take sheet)" : "") + "; allow more")
            }
            // A take that may go on in numbered files (a split at a limit, the container's own limit, the
            // takes of a trigger) must be able to name them: checked now, not when the second file is due.
            let splits = maxFramesPerFile != nil || maxBytesPerFile != nil || trigger.map { !$0.oneFile } == true || cuts != nil
                || writer.frameCapacity < StreamFormat.maxFrameCount
            if splits && !writer.isStandardOutput && !writer.isDevice, let refusal = Self.unnameable(FileType.numberedPath(path, 9_999)) {
                writer.close()
                if !overwrite { unlink(writer.path) }
                throw RecorderError(.cannotCreateFile,
                    "cannot record to '\(path)': this take may go on in numbered files, and "
                    + "'\(FileType.numberedPath(path, 9_999))' \(refusal); choose a shorter name")
            }
            return capture.withLock { lock in
                // The lock holds the read callback off: every frame after `start` reaches the new session.
                var start = capture.framePosition(lock)
                if let time { start = capture.frameCaptured(at: Int64((time * 1e9).rounded()), lock) }
                let asked = start  // (reckoned once: before any data has arrived, the reckoning reads the clock)
                // A sound-activated recording's pre-roll is its takes', not its own.
                if trigger == nil { start -= preRollFrames }
                // Frames before the capture position come from the kept audio, no further back than it
                // reaches (its spare buffers cover the one that may be delivered before the delivery
                // thread takes this recording); without kept audio, a take begins now at the earliest.
                let earliest = delivery.maximumPreRollFrames > 0
                    ? max(0, delivery.framePosition.load(ordering: .acquiring) - delivery.maximumPreRollFrames)
                    : capture.framePosition(lock)
                start = max(start, earliest)
                // A file that begins now begins a buffer: the one being filled is handed on as it is, so the
                // file's buffers (its readings, the command's --levels-json lines) are whole from its first
                // frame, whenever the call comes.
                if trigger == nil, start == capture.framePosition(lock) { capture.handOffPartial(lock) }
                let takes = trigger.map { trigger in
                    TakeTrigger(trigger: trigger, hangFrames: format.frames(seconds: trigger.hang) ?? 0,
                                preRollFrames: preRollFrames, start: start)
                }
                // The files' time stamps: the frame captured now (reckoned as `startingAt` reckons its
                // frame) at the wall-clock time now, the others at the sample rate from it.
                let clock = FrameClock(frame: capture.frameCaptured(at: monotonicNanoseconds(), lock), seconds: realtimeSeconds(),
                                       sampleRate: format.sampleRate)
                let settings = self.lifecycle
                let session = FileSession(writer: writer, firstFile: firstFile, format: format, overwrite: overwrite, startFrame: start,
                                          maxFramesPerFile: maxFramesPerFile, maxBytesPerFile: maxBytesPerFile,
                                          baseName: trigger.map { $0.oneFile ? nil : path } ?? nil,
                                          metadata: metadata, currentMetadata: { [capture, format] in
                                              Self.sourceMetadata(settings.withLock { $0.metadata },
                                                                  reports: capture.sourceReports(sampleRate: format.sampleRate), closing: true)
                                          },
                                          clock: clock, preRollFrames: trigger == nil ? max(0, asked - start) : 0,
                                          peakData: lifecycle.peakData, cuts: cuts)
                delivery.worker.submit(.record(session)) { control in
                    control.recordingNumber += 1
                    session.number = control.recordingNumber
                    // Sound-activated: paused (listening) until the first take.
                    control.recording = RecordingState(number: control.recordingNumber, path: path, start: start,
                                                       frameLimit: frameLimit, takes: takes)
                }
                return start
            }
        }
        return start
    }

    /// Records exactly `duration` seconds (rounded to whole frames) into `path`, then closes the file by
    /// itself (AVAudioRecorder's `record(forDuration:)`); `waitForRecording()` waits for it.
    @discardableResult
    public func record(to path: String, duration: Double, overwrite: Bool = false) throws(RecorderError) -> Int64 {
        guard let frames = format.frames(seconds: duration) else {
            throw RecorderError(.invalidFormat,
                "invalid duration \(duration) s: use 0 to \(Int64(format.maxSeconds)) seconds at \(format.sampleRate) Hz")
        }
        return try record(to: path, overwrite: overwrite, frameLimit: frames)
    }

    /// True while frames go into the file: from `record(to:)` until the file is closed, except while
    /// paused (AVAudioRecorder's `isRecording`; a sound-activated recording counts as recording while it
    /// listens between takes). Any thread.
    public var isRecording: Bool { delivery.control.withLock { $0.recording.map { !$0.isPaused } ?? false } }

    /// True from `record(to:)` until the file is closed, paused or not. Any thread.
    public var isFileOpen: Bool { delivery.control.withLock { $0.recording != nil } }

    // MARK: Pausing

    /// Pauses the recording, as AudioQueuePause and AVAudioRecorder's `pause()`: frames captured from
    /// now on are left out of the file until `resume()` (or `record()`); capture, the meters, the
    /// readings and the input handler go on. A duration (`record(to:duration:)`) counts recorded time
    /// only: the pause extends the take. Pausing a paused recording does nothing; with nothing being
    /// recorded, as AVAudioRecorder, nothing happens and nil is returned.
    ///
    /// Threads: any, the input handler and the stream consumers included; it never waits for the
    /// delivery thread.
    /// - Returns: the recorder frame where the pause begins (the first frame left out), or nil when
    ///   nothing is being recorded.
    @discardableResult
    public func pause() -> Int64? {
        capture.withLock { lock in
            delivery.control.withLock { control -> Int64? in
                // The lock holds the read callback off: the frame is exactly where capture stands (or
                // where a timed take is to begin, if that is still to come).
                guard let paused = control.recording?.pause(at: capture.positionNow(lock)) else { return nil }
                if paused.isNew {
                    delivery.events.yield(.recordingPaused(atFrame: paused.frame, recordingFrame: paused.position))
                }
                return paused.frame
            }
        }
    }

    /// Resumes a paused recording (AVAudioRecorder's `record()` after `pause()`): the file goes on with
    /// the next frame captured, joined to the audio before the pause without a frame lost or repeated.
    /// Does nothing when the recording is not paused (or there is none).
    ///
    /// Threads: any, as `pause()`.
    /// - Returns: the recorder frame where the recording resumed, or nil if it was not paused.
    @discardableResult
    public func resume() -> Int64? {
        capture.withLock { lock in
            let frame = capture.positionNow(lock)
            return delivery.control.withLock { control -> Int64? in
                guard let resumed = control.recording?.resume(at: frame) else { return nil }
                delivery.events.yield(.recordingResumed(atFrame: resumed.frame, pausedFrames: resumed.pausedFrames,
                                                        recordingFrame: resumed.position))
                return resumed.frame
            }
        }
    }

    /// True while the recording is paused.
    public var isPaused: Bool { delivery.control.withLock { $0.recording?.isPaused == true } }

    // MARK: Markers

    /// Marks the frame being captured now in the recording, as a field recorder's marker button: the
    /// file holds it when it is closed (AIFF `MARK`, WAV `cue ` with a `labl` label; CAF and FLAC
    /// cannot, see `RecordingMarker.isStoredInFile`), the summary lists it with its file and frame,
    /// and `.markerAdded` reports it at once. While paused, the marker is at the join; before a timed
    /// or pre-rolled take has reached its first frame, at the take's start; after the recording's end
    /// (a stop being carried out), at its end.
    ///
    /// Threads: any, the input handler and the stream consumers included; it never waits for the
    /// delivery thread.
    /// - Parameter label: the marker's name; empty: "marker N", numbered from 1 in each recording.
    ///   Control characters become spaces, and it is cut to 255 bytes of UTF-8 (AIFF's limit).
    /// - Returns: the marker's position in the recording, in frames from its first frame (across split
    ///   files, paused frames left out).
    /// - Throws: `.invalidState` when nothing is being recorded, or when the recording already has
    ///   32 767 markers (the most a file holds).
    @discardableResult
    public func addMarker(_ label: String = "") throws(RecorderError) -> Int64 {
        try capture.withLock { lock -> Result<Int64, RecorderError> in
            delivery.control.withLock { control -> Result<Int64, RecorderError> in
                guard control.recording != nil else {
                    return .failure(RecorderError(.invalidState,
                        "cannot add a marker: nothing is being recorded; call record(to:) first"))
                }
                // The lock holds the read callback off: the frame is exactly where capture stands.
                do throws(RecorderError) {
                    let marker = try control.recording!.mark(label, at: capture.framePosition(lock))
                    delivery.events.yield(.markerAdded(label: marker.label, atFrame: marker.frame, recordingFrame: marker.position))
                    return .success(marker.position)
                } catch {
                    return .failure(error)
                }
            }
        }.get()
    }

    /// Seconds recorded into the current recording so far, pauses left out (AVAudioRecorder's
    /// `currentTime`), as of the last buffer delivered; 0 when not recording.
    public var currentTime: Double {
        let position = delivery.framePosition.load(ordering: .acquiring)
        let frames = delivery.control.withLock { $0.recording?.recordedFrames(delivered: position) ?? 0 }
        return Double(frames) / Double(format.sampleRate)
    }
}

extension Recorder {
    /// Why the file system would refuse a file named `path` (its last part longer than the folder's
    /// NAME_MAX, or the whole longer than PATH_MAX), or nil. Numbered files are checked with 4 digits
    /// (up to 9 999 files in a take).
    static func unnameable(_ path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let nameMax = pathconf(folder, Int32(_PC_NAME_MAX))
        let limit = nameMax > 0 ? Int(nameMax) : 255
        if name.utf8.count > limit { return "is \(name.utf8.count) bytes long, more than the \(limit) a file name may have there" }
        if path.utf8.count >= Int(PATH_MAX) { return "is \(path.utf8.count) bytes long as a path, more than \(Int(PATH_MAX) - 1)" }
        return nil
    }
}


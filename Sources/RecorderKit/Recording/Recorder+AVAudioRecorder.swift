// AVAudioRecorder's names on `Recorder`: a recorder made for one path, Bool-returning calls with `lastError`.
import Glibc

extension Recorder {
    /// AVAudioRecorder's `init(url:settings:)`: a recorder that records to `path` when `record()` is
    /// called (the container follows the extension, as for `record(to:)`). Capture and metering start
    /// now, as for `init(format:source:server:…)`.
    public convenience init(path: String, settings: RecorderSettings = RecorderSettings()) throws(RecorderError) {
        let format = try StreamFormat(sampleRate: settings.sampleRate, channelCount: settings.numberOfChannels,
                                      sampleFormat: settings.sampleFormat)
        try self.init(format: format, source: settings.source, server: settings.server,
                      maximumPreRoll: settings.maximumPreRoll)
        avState.withLock { $0.path = path }
        encoderQuality = settings.encoderQuality
    }

    /// The file `record()` records to (AVAudioRecorder's `url`): the path given to `init(path:settings:)`,
    /// else that of the recording in progress or of the last one; nil before any.
    public var path: String? {
        if let path = avState.withLock({ $0.path }) { return path }
        return delivery.control.withLock { $0.recording?.path ?? $0.lastSummary?.path }
    }

    /// Why the last `prepareToRecord()`, `record()`, `record(forDuration:)`, `record(atTime:)` or
    /// `deleteRecording()` returned false (AVAudioRecorder's calls say only false; the one-line error
    /// is kept here); nil after one that succeeded.
    public var lastError: RecorderError? { avState.withLock { $0.lastError } }

    /// AVAudioRecorder's `prepareToRecord()`: capture already runs from creation, so this checks that
    /// `path` is set and that its directory exists and is writable. The file itself is created by
    /// `record()`.
    @discardableResult
    public func prepareToRecord() -> Bool {
        avCall { () throws(RecorderError) in
            let path = try avPath("prepare to record")
            let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            guard access(directory.isEmpty ? "/" : directory, W_OK | X_OK) == 0 else {
                throw RecorderError(.cannotCreateFile,
                    "cannot record to '\(path)': \(String(cString: strerror(errno))) (its directory '\(directory)'); "
                    + "choose a directory that exists and that you may write to")
            }
        }
    }

    /// AVAudioRecorder's `record()`: starts recording to `path`, replacing a file there (as
    /// AVAudioRecorder does), or resumes a paused recording. True if recording now.
    ///
    /// Threads: any, as `record(to:)`.
    @discardableResult
    public func record() -> Bool {
        avCall { () throws(RecorderError) in
            if isPaused { resume(); return }
            if isFileOpen { return }
            try record(to: try avPath("record"), overwrite: true)
        }
    }

    /// AVAudioRecorder's `record(forDuration:)`: records exactly `duration` seconds to `path`, then
    /// closes the file by itself.
    @discardableResult
    public func record(forDuration duration: Double) -> Bool {
        avCall { () throws(RecorderError) in
            try record(to: try avPath("record"), duration: duration, overwrite: true)
        }
    }

    /// AVAudioRecorder's `record(atTime:)`: records to `path` from the frame captured at `time`, in
    /// `deviceCurrentTime`'s seconds (see `record(to:startingAt:)` for its precision).
    @discardableResult
    public func record(atTime time: Double) -> Bool {
        avCall { () throws(RecorderError) in
            try record(to: try avPath("record"), overwrite: true, startingAt: time)
        }
    }

    /// AVAudioRecorder's `record(atTime:forDuration:)`: `duration` seconds from the frame captured at `time`.
    @discardableResult
    public func record(atTime time: Double, forDuration duration: Double) -> Bool {
        avCall { () throws(RecorderError) in
            guard let frames = format.frames(seconds: duration) else {
                throw RecorderError(.invalidFormat,
                    "invalid duration \(duration) s: use 0 to \(Int64(format.maxSeconds)) seconds at \(format.sampleRate) Hz")
            }
            try record(to: try avPath("record"), overwrite: true, frameLimit: frames, startingAt: time)
        }
    }

    /// AVAudioRecorder's `deleteRecording()`: removes the recorded file (and the numbered files a
    /// split recording went on in). False while recording (stop it first, as AVAudioRecorder asks) or
    /// if a file could not be removed.
    @discardableResult
    public func deleteRecording() -> Bool {
        avCall { () throws(RecorderError) in
            let path = try avPath("delete the recording")
            if path == "-" {
                throw RecorderError(.invalidState, "cannot delete a recording made to standard output; it is not a file")
            }
            if isFileOpen {
                throw RecorderError(.invalidState,
                    "cannot delete '\(path)' while it is being recorded; call stopRecording() first")
            }
            let last = delivery.control.withLock { $0.lastSummary }
            let files = last?.path == path ? last?.files ?? [path] : [path]
            for file in files where unlink(file) != 0 && errno != ENOENT {
                throw RecorderError(.cannotCreateFile,
                    "cannot delete '\(file)': \(String(cString: strerror(errno))); check the directory's permissions")
            }
        }
    }

    /// The current time of the clock `record(atTime:)` takes (CLOCK_MONOTONIC, seconds), as
    /// AVAudioRecorder's `deviceCurrentTime`; the same clock as `Player.deviceCurrentTime`.
    public var deviceCurrentTime: Double { Double(monotonicNanoseconds()) / 1e9 }

    func avPath(_ action: String) throws(RecorderError) -> String {
        guard let path = self.path else {
            throw RecorderError(.invalidState,
                "cannot \(action): no file was given; create the recorder with init(path:settings:) or call record(to:)")
        }
        return path
    }

    /// Runs an AVAudioRecorder-style call: true if it succeeded; else false, its error in `lastError`.
    func avCall(_ body: () throws(RecorderError) -> Void) -> Bool {
        do {
            try body()
            avState.withLock { $0.lastError = nil }
            return true
        } catch {
            avState.withLock { $0.lastError = error }
            return false
        }
    }
}

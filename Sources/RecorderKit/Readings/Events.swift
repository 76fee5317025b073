// What a recorder and a player tell their embedder as it happens.

/// Things an embedder may want to know as they happen.
public enum RecorderEvent: Sendable, Hashable {
    /// Frames were lost in capture (a hole from the server, the receive queue about to overflow while
    /// every buffer was busy, or the server's queue overflowing while this process could not read); in
    /// a file they are replaced by silence of the same length. Consecutive losses are one event, sent
    /// once the loss has ended (or the recording stops). `foundLate`: frames before `atFrame` where the loss
    /// may have begun (0: it is placed where it happened). The server's clock can show a loss only after
    /// reading has passed it (a shortfall with no cause seen, counted once it has not caught up for four
    /// seconds); its silence then stands at `atFrame`, and the audio lost is somewhere in the `foundLate`
    /// frames before.
    case framesDropped(count: Int64, atFrame: Int64, foundLate: Int64 = 0)
    /// The source delivered nothing for `gapFrames` frames from `atFrame` on (`reason` `.suspended` or
    /// `.systemSleep`): the server's clock ran on, so that much silence was written to keep time.
    case sourceGap(gapFrames: Int64, atFrame: Int64, reason: RecordingGap.Reason)
    /// In a take of several sources: `frames` frames of `source` are silence from `atFrame` on (lost in
    /// capture, its stream stalled or gone, its source suspended: `reason`), in its channels only; the
    /// other sources' channels are untouched and stay aligned. Consecutive losses are one event, sent once
    /// the loss has ended (or the recording stops). (One source reports `framesDropped` and `sourceGap`.)
    /// `foundLate`: as `framesDropped`'s.
    case sourceLost(source: String, frames: Int64, atFrame: Int64, reason: RecordingGap.Reason, foundLate: Int64 = 0)
    /// The stream was moved to another source (by the user or the server), from `atFrame` on.
    case sourceMoved(to: String, atFrame: Int64)
    /// The source was suspended (no audio flows until it resumes).
    case sourceSuspended(atFrame: Int64)
    /// The source resumed after a suspension.
    case sourceResumed(atFrame: Int64)
    /// The server or source went away; with the `reconnect` option the recorder is waiting for it.
    case captureInterrupted(RecorderError, atFrame: Int64)
    /// Capture resumed after an interruption; `gapFrames` of silence were written at `atFrame` for the
    /// time away: less what fell in a pause (paused before the outage, or while the server was away),
    /// which the file leaves out as any paused time; 0 when all of it did. `recordingFrame`: where the
    /// gap is in the recording (frames from its first, paused frames left out); nil when not recording.
    case captureResumed(gapFrames: Int64, atFrame: Int64, recordingFrame: Int64?)
    /// A split recording continues in a new file from `atFrame` (recorder frame position).
    case fileStarted(path: String, atFrame: Int64)
    /// A file of the recording is complete (closed and finalized): for each file of a split or clock-cut
    /// take as the next begins, and for the last before `recordingFinished`.
    case fileFinished(FinishedFile)
    /// `pause()`: captured frames from `atFrame` on are left out of the recording until it resumes;
    /// `recordingFrame` frames are in the recording before the pause (paused frames left out).
    case recordingPaused(atFrame: Int64, recordingFrame: Int64)
    /// The recording resumed at `atFrame` after leaving `pausedFrames` frames out; the join is
    /// `recordingFrame` frames into the recording.
    case recordingResumed(atFrame: Int64, pausedFrames: Int64, recordingFrame: Int64)
    /// A sound-activated take began at recorder frame `atFrame` (its pre-roll's first) in `path`.
    case takeStarted(number: Int, path: String, atFrame: Int64)
    /// A sound-activated take ended (quiet for the hang time, or the recording stopped).
    case takeEnded(RecordingTake)
    /// `addMarker(_:)` marked recorder frame `atFrame`, which is `recordingFrame` frames into the
    /// recording (across split files, paused frames left out).
    case markerAdded(label: String, atFrame: Int64, recordingFrame: Int64)
    /// A recording ended (stopRecording, its duration reached, or a failure: see `error`).
    case recordingFinished(RecordingSummary)
    /// Capture stopped because the stream failed (server gone, source removed).
    case captureFailed(RecorderError)
}

/// Things a player's embedder may want to know as they happen (AVAudioPlayerDelegate's role).
public enum PlayerEvent: Sendable, Hashable {
    /// The server ran out of audio while playing (the reader was late): a gap was heard near `atFrame`.
    case underrun(atFrame: Int64)
    /// The file could not be read on from `atFrame` (a damaged or cut compressed stream): what was read
    /// is played, then `finishedPlaying(successfully: false)`.
    case decodeError(RecorderError, atFrame: Int64)
    /// The stream failed (server gone, sink removed); `finishedPlaying(successfully: false)` follows.
    case playbackFailed(RecorderError)
    /// Playback came to its end and everything was heard (true), or ended by a failure (false).
    /// `stop()` sends nothing.
    case finishedPlaying(successfully: Bool)
}

// One recording's timeline as a value: its start and end, what pauses leave out, where markers and takes stand.

/// One recording between `record(to:)` and its end, as frames of the recorder's timeline: where it
/// starts and ends, the pauses that leave frames out, the markers, and a sound-activated recording's
/// takes. A value with no threads and no I/O: the recorder keeps it under its control lock, callers
/// change it with the capture position they read (`pause(at:)`, `resume(at:)`, `mark(_:at:)`), and the
/// delivery thread asks it what each buffer means for the file (`forEachRecordedPart`, `listen`).
///
/// Invariants: `pauses` are in order and do not overlap, only the last may be open, and none begins
/// before `start`; a marker's position is final when it is added (every pause before it is known);
/// `end`, once set by a stop, only moves earlier.
struct RecordingState: Sendable {
    /// Which recording of the recorder this is (1, 2, … per `record(to:)`).
    let number: Int
    /// The path asked for ("-": standard output; for numbered takes, the name they are numbered after).
    let path: String
    /// Recorder frame of the recording's first frame.
    let start: Int64
    /// Recorder frame where the recording ends: its duration, or where a stop cut it; nil while open.
    private(set) var end: Int64?
    /// The pauses, in order; the last one is open while paused (for a sound-activated recording, the
    /// time between takes).
    private(set) var pauses: [PauseSpan]
    /// The markers, in order.
    private(set) var markers: [PendingMarker] = []
    /// A stop was asked: the delivery thread drains, cuts and closes the file. A pause then no longer
    /// moves the end.
    private(set) var stopRequested = false
    /// A sound-activated recording's trigger; nil for others.
    private(set) var takes: TakeTrigger?
    /// While paused with a frame limit: the frames the recording still had to take when it paused.
    private var remainingAtPause: Int64?

    /// A recording of `number` that begins at recorder frame `start`; with `frameLimit`, it ends after
    /// that many recorded frames; with `takes`, it listens (paused) until the first take.
    init(number: Int, path: String, start: Int64, frameLimit: Int64? = nil, takes: TakeTrigger? = nil) {
        self.number = number
        self.path = path
        self.start = start
        end = frameLimit.map { start + $0 }
        self.takes = takes
        pauses = takes == nil ? [] : [PauseSpan(from: start, to: nil)]
    }

    /// Sound-activated: its pauses are the time between takes, which `pause()` leaves alone.
    var isTriggered: Bool { takes != nil }

    /// Paused by `pause()` (a sound-activated recording between takes is not).
    var isPaused: Bool { !isTriggered && pauses.last.map { $0.to == nil } == true }

    // MARK: Requests

    /// Pauses at recorder frame `now` (a timed take not yet begun: at its start). Returns where the pause
    /// begins, on the recorder's timeline and in the recording, and whether it is new (false: it was
    /// paused already, there); nil for a sound-activated recording. A take of fixed length keeps what it
    /// still has to record for after the pause, unless a stop is under way (its cut is the end).
    mutating func pause(at now: Int64) -> (frame: Int64, position: Int64, isNew: Bool)? {
        guard !isTriggered else { return nil }
        if let open = pauses.last, open.to == nil { return (open.from, position(of: open.from), false) }
        let frame = max(now, start)
        let position = self.position(of: frame)
        pauses.append(PauseSpan(from: frame, to: nil))
        if !stopRequested, let end, end > frame {
            remainingAtPause = end - frame
            self.end = nil
        }
        return (frame, position, true)
    }

    /// Resumes a paused recording at recorder frame `now` (no earlier than the pause began). Returns
    /// where, the frames the pause left out, and the join's place in the recording; nil when it was
    /// not paused.
    mutating func resume(at now: Int64) -> (frame: Int64, pausedFrames: Int64, position: Int64)? {
        guard isPaused, let from = pauses.last?.from else { return nil }
        let resumed = max(now, from)
        pauses[pauses.count - 1].to = resumed
        if let remaining = remainingAtPause, !stopRequested {
            end = resumed + remaining
            remainingAtPause = nil
        }
        return (resumed, resumed - from, position(of: from))
    }

    /// Marks recorder frame `now`: at the recording's start if it has not begun, at its end if that is
    /// past. The label is sanitized, or "marker N" when empty. Returns the label, the recorder frame
    /// and the position in the recording (frames from its first, paused frames left out).
    /// - Throws: `.invalidState` when the recording has as many markers as a file holds.
    mutating func mark(_ label: String, at now: Int64) throws(RecorderError)
        -> (label: String, frame: Int64, position: Int64) {
        guard markers.count < MarkerChunk.maxCount else {
            throw RecorderError(.invalidState,
                "cannot add a marker to '\(path)': it has \(MarkerChunk.maxCount) markers, the most a file holds")
        }
        var frame = max(now, start)
        if let end { frame = min(frame, max(end, start)) }
        let position = self.position(of: frame)
        let name = label.isEmpty ? "marker \(markers.count + 1)" : MarkerChunk.sanitized(label)
        markers.append(PendingMarker(position: position, label: name))
        return (name, frame, position)
    }

    /// A stop was asked (`stopRecording()` or `stop()`).
    mutating func requestStop() { stopRequested = true }

    /// Ends the recording at recorder frame `frame` at the latest (a stop's cut).
    mutating func cut(at frame: Int64) { end = min(end ?? frame, frame) }

    // MARK: What the delivered frames mean

    /// Whether every frame of the recording has been delivered once the recorder's timeline reached
    /// `delivered` (or it ends before it begins).
    func isComplete(delivered: Int64) -> Bool {
        guard let end else { return false }
        return end <= start || delivered >= end
    }

    /// Where recorder frame `frame` (at or after the start) stands in the recording: frames from its
    /// first, paused frames left out.
    func position(of frame: Int64) -> Int64 { frame - start - pauses.pausedFrames(before: frame) }

    /// Frames the pauses left out once the timeline reached `delivered` (up to the end): with the
    /// frames recorded, the time since the start.
    func pausedFrames(delivered: Int64) -> Int64 { pauses.pausedFrames(before: min(delivered, end ?? .max)) }

    /// Frames recorded once the timeline reached `delivered`: paused frames left out, up to the end
    /// (`currentTime`).
    func recordedFrames(delivered: Int64) -> Int64 {
        guard delivered > start else { return 0 }
        let upTo = end.map { min($0, delivered) } ?? delivered
        return pauses.recordedFrames(in: start..<max(start, upTo))
    }

    /// Calls `body` with each part of `range` (recorder frames) that belongs in the file: from the
    /// start to the end, paused frames left out, in order, while it returns true.
    func forEachRecordedPart(of range: Range<Int64>, _ body: (Range<Int64>) -> Bool) {
        let from = max(range.lowerBound, start)
        let to = min(range.upperBound, end ?? .max)
        guard from < to else { return }
        pauses.forEachRecordedPart(of: from..<to, body)
    }

    /// The part of a loss or gap at `frame`, `count` frames long, that the file holds: its frames there
    /// (paused ones are not), and where it begins in the recording (frames from its first, paused ones
    /// left out); also the recorder frame it is counted from. Frames 0 when the file holds none of it.
    func lossInFile(at frame: Int64, count: Int64) -> (frames: Int64, position: Int64, frame: Int64) {
        let from = max(frame, start)
        let to = min(frame + count, end ?? .max)
        guard from < to else { return (0, position(of: from), from) }
        return (pauses.recordedFrames(in: from..<to), position(of: from), from)
    }

    /// The joins in a file of `frameCount` frames: each pause that was resumed, where the audio after
    /// it begins in the file, and how long it was.
    func joins(frameCount: Int64, sampleRate: Int) -> [RecordingPause] {
        pauses.compactMap { span in
            guard let to = span.to else { return nil }
            let fileFrame = position(of: span.from)
            return fileFrame <= frameCount
                ? RecordingPause(startFrame: fileFrame, pausedFrames: to - span.from, sampleRate: sampleRate) : nil
        }
    }

    // MARK: Sound-activated takes

    /// What a delivered buffer means for a sound-activated recording.
    enum TakeStep: Equatable {
        /// Nothing changes.
        case none
        /// A take is to begin with this buffer (call `beginTake` once its file is ready).
        case begin
        /// The open take ends with this buffer: the quiet lasted the hang time (the pause that follows
        /// is open from the buffer's end).
        case endsWithThisBuffer
    }

    /// A sound-activated recording hears the buffer `range` whose loudest peak is `peak` (dBFS): a take
    /// begins when the peak rises above the start threshold (before the recording's end); an open take
    /// ends once the peak has stayed below the stop threshold for the hang time.
    mutating func listen(peak: Float, range: Range<Int64>) -> TakeStep {
        guard var takes else { return .none }
        defer { self.takes = takes }
        if takes.isOpen {
            takes.quietFrames = peak < takes.trigger.stopBelow ? takes.quietFrames + Int64(range.count) : 0
            guard takes.quietFrames >= takes.hangFrames else { return .none }
            pauses.append(PauseSpan(from: range.upperBound, to: nil))
            return .endsWithThisBuffer
        }
        guard peak > takes.trigger.startAbove, end.map({ range.lowerBound < $0 }) ?? true else { return .none }
        return .begin
    }

    /// Begins a take whose onset is the buffer at `onset`: its pre-roll reaches back no further than
    /// the kept audio (`keptFrom`, nil: none is kept contiguous up to the onset), the end of the take
    /// before it, or the recording's start. Closes the pause since the last take there. Returns the
    /// take's number and its first frame.
    mutating func beginTake(onset: Int64, keptFrom: Int64?) -> (number: Int, first: Int64) {
        guard var takes else { return (0, onset) }
        let first = max(onset - takes.preRollFrames, takes.lastEnd, keptFrom ?? onset)
        takes.count += 1
        takes.isOpen = true
        takes.quietFrames = 0
        self.takes = takes
        if let last = pauses.indices.last, pauses[last].to == nil { pauses[last].to = first }
        return (takes.count, first)
    }

    /// Ends the open take that began at `first`: the next take's pre-roll reaches back no further than
    /// where the pause after it opened.
    mutating func endTake(first: Int64) {
        guard var takes, takes.isOpen else { return }
        takes.isOpen = false
        takes.lastEnd = pauses.last?.from ?? first
        self.takes = takes
    }
}

/// A sound-activated recording's trigger and where it stands (see `SoundTrigger`).
struct TakeTrigger: Sendable {
    let trigger: SoundTrigger
    /// The hang time and the pre-roll, in frames.
    let hangFrames: Int64
    let preRollFrames: Int64
    /// Buffer frames below the stop threshold since the last one above it, in the open take.
    var quietFrames: Int64 = 0
    /// Where the last take ended (the recording's start before the first).
    var lastEnd: Int64
    /// Takes begun so far, and whether the last is still open.
    var count = 0
    var isOpen = false

    init(trigger: SoundTrigger, hangFrames: Int64, preRollFrames: Int64, start: Int64) {
        self.trigger = trigger
        self.hangFrames = hangFrames
        self.preRollFrames = preRollFrames
        lastEnd = start
    }
}

/// A marker asked for by `addMarker(_:)`: where in the recording (frames from its first frame, paused
/// frames left out: final when it is added, as every pause before it is).
struct PendingMarker: Sendable {
    var position: Int64
    var label: String
}

/// Captured frames left out of a recording by `pause()` … `resume()`, in recorder frames.
struct PauseSpan: Sendable, Hashable {
    var from: Int64
    /// Where the recording resumed; nil while it is paused.
    var to: Int64?
}

extension Array where Element == PauseSpan {
    /// Frames before `frame` that fall in a pause.
    func pausedFrames(before frame: Int64) -> Int64 {
        reduce(0) { total, span in total + Swift.max(0, Swift.min(span.to ?? .max, frame) - span.from) }
    }

    /// Frames of `range` that fall in no pause.
    func recordedFrames(in range: Range<Int64>) -> Int64 {
        reduce(range.upperBound - range.lowerBound) { total, span in
            total - Swift.max(0, Swift.min(span.to ?? .max, range.upperBound) - Swift.max(span.from, range.lowerBound))
        }
    }

    /// Calls `body` with each part of `range` that falls in no pause, in order, while it returns true.
    func forEachRecordedPart(of range: Range<Int64>, _ body: (Range<Int64>) -> Bool) {
        var next = range.lowerBound
        for span in self where span.from < range.upperBound && (span.to ?? .max) > next {
            if span.from > next, !body(next..<span.from) { return }
            next = Swift.max(next, span.to ?? .max)
            if next >= range.upperBound { return }
        }
        if next < range.upperBound { _ = body(next..<range.upperBound) }
    }
}

// Losses libpulse does not report: found by comparing the server's account of a record stream with
// what arrived here, and with the clock.

/// Watches one record stream for audio lost where nobody says so, and places the silence that keeps
/// the recording's time.
///
/// Two things can lose audio without a hole or an error reaching the client, and both happen when this
/// process does not read for longer than the server queues (stopped by SIGSTOP or a debugger, a VM
/// paused, a machine swapping):
/// - **Skipped data** (PipeWire): the server drops the oldest data it holds and moves its read index
///   past it. libpulse's read index for the stream (the server's, less what libpulse still holds)
///   then runs ahead of what was taken here by exactly the bytes skipped.
/// - **Refused data** (PulseAudio): the server's queue is full and the source's new data is refused.
///   No index moves, so the only trace is the clock: the server's write index (plus the source's own
///   latency) falls behind the time since the stream started, by the frames refused.
/// The same clock shows a source that stopped delivering while suspended. The clock is CLOCK_MONOTONIC,
/// the servers' own: while the machine (or a VM) is suspended their clocks stand still as well, so that
/// time is owed no silence; a shortfall seen across such a pause (CLOCK_BOOTTIME ran on) is labelled
/// `.slept`.
///
/// After this process stood still for longer than the queue holds, reading stops short of where the
/// server's queue must have filled until its answer places the loss (see `ticked`): several streams read
/// at once are empty by then, and what the server took since the wake must come after the silence.
///
/// A clock shortfall counts at once when it has a cause (the server's queue full, this process standing
/// still for longer than the queue holds, a suspension, or sleep). One without a cause seen is in doubt:
/// a source that delivers late in big blocks (a null sink idling) shows the same shortfall for a while
/// and then catches up. The watch follows it closely, and if it has not come back under the threshold
/// within `doubtNanoseconds` it is a loss all the same (the least it stood at): the audio never came, and
/// the cause was not seen (a server starved on a loaded machine for longer than its queue, then refusing
/// the backlog as it caught up, 14 s after a stall beside the test suite's load). Reading has passed it
/// by then: its silence goes where reading stands, and the loss says how far before that it may have
/// begun (`Loss.foundLateBy`: from where the server's data ended at the answer before it showed).
/// Shortfalls under `thresholdFrames` (0.25 s, or two fragments if longer) are not counted: that is the
/// jitter of the servers' block delivery (measured 40–90 ms).
///
/// Used under the mainloop lock only (by `CaptureStream`); allocates nothing after `init`.
struct ServerWatch {
    /// The timer's period normally, and while a loss is being followed (after a wake-up, with the
    /// server's queue full).
    static let intervalMicroseconds: UInt64 = 1_000_000
    static let closeIntervalMicroseconds: UInt64 = 20_000

    /// Silence owed at a stream position (stream bytes as counted by `CaptureStream`).
    struct Loss {
        var position: Int64
        var bytes: Int64
        var kind: CaptureNotice.Kind
        /// Found by the clock (refused data, a silent source), not by the indices (skipped data).
        var estimated = false
        /// Bytes before `position` where the loss may have begun: shown by the clock only after reading had
        /// passed it (see the type's comment). 0: placed where it happened.
        var foundLateBy: Int64 = 0
    }

    /// How long a shortfall without a cause seen may stand before it is counted as a loss: twice the longest
    /// block a source delivers late in (a null sink's two seconds), so a late block always comes first.
    static let doubtNanoseconds: Int64 = 4_000_000_000

    private static let windowSize = 8
    private static let maxPending = 8

    private let bytesPerFrame: Int64
    private let rate: Double
    private let fragmentBytes: Int64
    /// Clock shortfalls smaller than this are jitter.
    let thresholdFrames: Double

    private var maxQueueBytes = Int64.max
    /// Losses placed at or ahead of the reading position, in stream order.
    private var pending: [Loss]
    /// Bytes libpulse's read index ran ahead of ours (skipped data already placed).
    private var skipped: Int64 = 0
    /// Silence placed that the server's indices do not count (refused data, a silent source): added
    /// to the write index to place it on the timeline.
    private(set) var silenceOutsideIndices: Int64 = 0
    /// Where the data the server had sent ended at the previous answer (stream bytes).
    private var lastTail: Int64 = 0
    /// First answer with data: CLOCK_MONOTONIC then and the frames the source had captured.
    private var anchor: (monotonic: Int64, frames: Double)?
    /// Recent clock shortfalls (frames); their minimum is the baseline a jump is measured from.
    private var window: [Double]
    private var windowNext = 0
    private var askedAt: (monotonic: Int64, boot: Int64) = (0, 0)
    private var lastAnswerSleep: Int64?
    private var lastTick: Int64 = 0
    private var wokeUp = false
    /// How long (ns) the timer last fired late: the process did not run for about that long, and read
    /// nothing. Longer than the server's queue, that alone is a cause for a shortfall (see `answered`).
    private var lateBy: Int64 = 0
    /// When the timer fired after this process stood still for longer than the queue holds (CLOCK_MONOTONIC
    /// ns): the server took data again from about then, so what it wrote since is after the loss.
    private var wokeAt: Int64?
    /// At the last answer: where the server's data ended, and how much of it the server still held.
    private var lastAnswerEnd: Int64 = 0
    private var lastServerQueued: Int64 = 0
    private var suspendedSinceAnswer = false
    private var followClosely = false
    /// Reading stops here until the next answer: the server held more than its limit (it is about to
    /// skip), and data past what it had sent may come after the skip.
    private var holdAt: Int64?
    /// Where the data ended when the source resumed: the rest of a suspension's silence goes there.
    private var resumeTail: Int64?
    /// A shortfall without a cause seen, followed until it catches up or `doubtNanoseconds` pass: when it was
    /// first seen (CLOCK_MONOTONIC ns), the shortfall before it (frames), the least it has stood above that
    /// since, and where the server's data ended at the answer before it showed (stream bytes).
    private var doubt: (since: Int64, baseline: Double, least: Double, from: Int64)?

    /// True while a shortfall without a cause seen is followed: the server's count of what the source
    /// captured may be short by a loss not placed yet, and is no observation of its clock.
    var countInDoubt: Bool { doubt != nil }

    init(format: StreamFormat, fragmentBytes: Int) {
        bytesPerFrame = Int64(format.bytesPerFrame)
        rate = Double(format.sampleRate)
        self.fragmentBytes = Int64(fragmentBytes)
        thresholdFrames = max(0.25 * Double(format.sampleRate), Double(2 * fragmentBytes / format.bytesPerFrame))
        pending = []
        pending.reserveCapacity(Self.maxPending)
        window = []
        window.reserveCapacity(Self.windowSize)
    }

    /// A new stream (at the start, or after a reconnection): indices start again at 0.
    mutating func restart(maxQueueBytes: Int64) {
        self.maxQueueBytes = maxQueueBytes
        pending.removeAll(keepingCapacity: true)
        skipped = 0
        silenceOutsideIndices = 0
        lastTail = 0
        anchor = nil
        window.removeAll(keepingCapacity: true)
        windowNext = 0
        lastAnswerSleep = nil
        suspendedSinceAnswer = false
        followClosely = false
        holdAt = nil
        resumeTail = nil
        wokeAt = nil
        lastAnswerEnd = 0
        lastServerQueued = 0
        doubt = nil
    }

    /// How long the server's queue holds (ns).
    private var queueNanoseconds: Int64 {
        let bytesPerSecond: Double = rate * Double(bytesPerFrame)
        let seconds: Double = Double(maxQueueBytes) / bytesPerSecond
        return seconds >= 1e9 ? Int64.max : Int64(seconds * 1e9)
    }

    /// How long until the next tick.
    var nextTickMicroseconds: UInt64 {
        followClosely || wokeUp || doubt != nil ? Self.closeIntervalMicroseconds : Self.intervalMicroseconds
    }

    /// The timer fired at `now` (CLOCK_MONOTONIC ns), or the first data after this process stood still
    /// came (`stoodStill`): half a second late or more is a wake-up. `tail`: where the data received so
    /// far ends (taken, plus what libpulse holds), stream bytes.
    mutating func ticked(at now: Int64, tail: Int64) {
        let expected = Int64(nextTickMicroseconds) * 1000
        if lastTick > 0, now - lastTick > expected + 500_000_000 {
            wokeUp = true
            let late = now - lastTick - expected
            lateBy = max(lateBy, late)
            // This stop's own length, not the longest since the last answer: a busy machine's late tick
            // soon after the wake (0.9 s, beside the test suite's load) took the 7.7 s stall's for its own
            // and moved the wake on; the data the server had taken since the real one was then read before
            // the silence, and the loss went in 0.9 s late.
            if anchor != nil, late >= queueNanoseconds {
                // Stood still longer than the server holds: its queue filled and it refused data. This runs
                // before anything since the wake is read (the timer, or the data path if it comes first),
                // and what the server sends first is the head of its full queue, so `tail` is what came
                // before the stop (and a block of that queue at most); the
                // server had sent at least that (and at least its data at the last answer, less what it
                // held then), and held a whole queue more. Reading stops short of there until the answer
                // places the loss, so audio the server takes after the wake is never read before the silence.
                wokeAt = now
                let sent = max(tail, lastAnswerEnd - lastServerQueued)
                holdAt = max(0, sent + maxQueueBytes - 2 * fragmentBytes)
            }
        }
        lastTick = now
    }

    /// True when `now` is so long after the last tick that this process must have stood still (its timer
    /// did not run). The data path asks before it reads: if the mainloop was stopped in the middle of an
    /// iteration, it reads the socket again before its timers run, and the server takes data again from
    /// then; so the wake is marked (`ticked`) and the hold set before that first read, not when the
    /// timer fires after it (once 150 ms later, beside a loaded machine's tests: the silence then went
    /// after audio taken since the wake, and a click before the loss was missing).
    func stoodStill(at now: Int64) -> Bool {
        lastTick > 0 && now - lastTick > Int64(nextTickMicroseconds) * 1000 + 500_000_000
    }

    /// A timing request goes out now.
    mutating func asking(at monotonic: Int64, boot: Int64) {
        askedAt = (monotonic, boot)
    }

    /// The source was suspended (the loss it causes, if any, is a silent source, not dropped data).
    mutating func sawSuspension() {
        suspendedSinceAnswer = true
    }

    /// The stream began (at `monotonic`, CLOCK_MONOTONIC ns) on a source that is suspended: no data, so
    /// no answer would ever anchor the clock. It is anchored at the start instead, with nothing
    /// captured, and the time the source stays silent is owed as silence from the first frame on, as
    /// a suspension during a take is.
    mutating func startedSuspended(at monotonic: Int64) {
        suspendedSinceAnswer = true
        anchor = (monotonic, 0)
        remember(0)
    }

    /// True when a shortfall worth reporting may have built up since the last request (at `now`,
    /// CLOCK_MONOTONIC ns).
    func mayOweSilence(now: Int64) -> Bool {
        Double(now - askedAt.monotonic) / 1e9 * rate >= thresholdFrames
    }

    /// The source resumed with `tail` bytes of the stream sent: the rest of the suspension's silence
    /// goes there, so reading waits there for the next answer (ask at once).
    mutating func sawResume(tail: Int64) {
        resumeTail = tail
        holdAt = tail
        followClosely = true
    }

    /// The server's answer: `writeIndex` and `readIndex` as libpulse gives them for a record stream
    /// (the server's write index; the server's read index less what libpulse holds), `consumed` what was
    /// taken here, `queued` what libpulse holds, `reading` where reading stands. True when it placed a loss.
    /// `serverTime`: when the server took its account (CLOCK_MONOTONIC ns, from the answer's transport
    /// time), never before it was asked: after a stall the answer may come behind seconds of audio, and
    /// its write index is the one of that moment, not of the request's.
    mutating func answered(writeIndex: Int64, readIndex: Int64, sourceMicroseconds: Int64, consumed: Int64,
                           queued: Int64, reading: Int64, suspended: Bool, serverTime: Int64? = nil) -> Bool {
        // An answer to a request asked before this process stood still (the server answered at once, and
        // the answer waited in the socket through the stop) tells nothing of the stall, and taken as an
        // answer it ended the wake: the hold was lifted, reading ran on past where the queue had filled,
        // and the next answer, with no stall left to explain it, placed the loss where reading stood
        // (150 to 370 ms late, in one of six stalled takes beside a loaded machine's tests). It is passed
        // over; the watch asks again at its next tick.
        if let wokeAt, askedAt.monotonic < wokeAt { return false }
        var found = false
        defer {
            lastTail = consumed + queued
            if !suspended { suspendedSinceAnswer = false }
            wokeUp = false
            lateBy = 0
            wokeAt = nil
        }
        // Skipped: the data between the previous answer's tail and what came after was never sent.
        let skip = (readIndex - skipped - consumed) / bytesPerFrame * bytesPerFrame
        if skip > 0 {
            place(Loss(position: max(lastTail, reading), bytes: skip, kind: .dropped))
            skipped += skip
            found = true
        }
        let serverQueued = writeIndex - (readIndex + queued)
        defer {
            lastAnswerEnd = writeIndex - skipped
            lastServerQueued = max(0, serverQueued)
        }
        let queueFull = serverQueued >= maxQueueBytes - 2 * fragmentBytes
        followClosely = queueFull || found
        // More than the limit (PipeWire keeps writing and skips at its next send; PulseAudio never
        // holds more): what it sends next may follow a skip, so take nothing past what it has sent
        // until the next answer says where the skip is.
        let resumedAt = resumeTail
        resumeTail = nil
        holdAt = serverQueued > maxQueueBytes ? consumed + queued : nil
        // Before any data the clock means nothing, unless the source is suspended (then it is what is owed).
        guard writeIndex > 0 || (anchor != nil && (suspended || suspendedSinceAnswer)) else { return found }

        // The clock: frames the source has captured by now, against the time since the first answer.
        let captured = Double(writeIndex / bytesPerFrame) + Double(sourceMicroseconds) * rate / 1e6
        let sleep = askedAt.boot - askedAt.monotonic
        defer { lastAnswerSleep = sleep }
        let takenAt = max(askedAt.monotonic, serverTime ?? askedAt.monotonic)
        guard let anchor else {
            anchor = (takenAt, captured)
            remember(0)
            return found
        }
        // Against CLOCK_MONOTONIC, the servers' own clock: while the machine (or a VM) is suspended
        // their clocks stand still too, and no audio is owed for that time.
        let shortfall = Double(takenAt - anchor.monotonic) / 1e9 * rate - (captured - anchor.frames)
        // From the least of the recent ones, or from before a shortfall in doubt if lower: followed every 20 ms,
        // the doubt's own answers soon fill the window, and a loss with a cause counted meanwhile must take the
        // doubt's frames with it.
        let jump = shortfall - min(window.min() ?? shortfall, doubt?.baseline ?? shortfall)
        let slept = Double(sleep - (lastAnswerSleep ?? sleep)) / 1e9 * rate > jump / 2
        // The queue was full at the answer, or this process stood still for longer than the queue holds
        // (by the time the answer comes, the reading after the stall may have emptied it: a several-source
        // take reads every stream at once and seldom finds it full).
        let stoodStill = Double(lateBy) / 1e9 * rate * Double(bytesPerFrame) >= Double(maxQueueBytes - 2 * fragmentBytes)
        let cause: CaptureNotice.Kind? = suspended || suspendedSinceAnswer ? .sourceSilent
            : slept ? .slept : queueFull || stoodStill ? .dropped : nil
        guard let cause else {
            if let loss = followDoubt(shortfall: shortfall, jump: jump, at: takenAt, reading: reading) {
                place(loss)
                silenceOutsideIndices += loss.bytes
                window.removeAll(keepingCapacity: true)
                windowNext = 0
                followClosely = true
                found = true
            }
            remember(shortfall)
            return found
        }
        guard jump >= thresholdFrames else {
            remember(shortfall)
            return found
        }
        doubt = nil  // counted now, with what it was waiting for
        // Refused data is not in the write index: the silence goes where the server's data ends now.
        let bytes = Int64(jump.rounded()) * bytesPerFrame
        // A silent source's last stretch goes where its data stopped, not after what came since.
        var end = cause == .sourceSilent ? resumedAt ?? writeIndex - skipped : writeIndex - skipped
        if cause == .dropped, !queueFull, stoodStill, let wokeAt {
            // The queue read empty by the answer (several streams are read at once): the data the server
            // wrote since the wake came after the refused stretch.
            let since = Double(max(0, takenAt - wokeAt)) / 1e9 * rate
            end = max(lastTail, end - Int64(since.rounded()) * bytesPerFrame)
        }
        place(Loss(position: max(end, reading), bytes: bytes, kind: cause, estimated: true))
        silenceOutsideIndices += bytes
        window.removeAll(keepingCapacity: true)
        windowNext = 0
        remember(shortfall)
        followClosely = true
        return true
    }

    /// A shortfall without a cause seen (`jump` frames over the recent least, `shortfall` in all), at the
    /// server's moment `now`: starts following it, stops when it comes back under the threshold, and
    /// returns the loss once it has stood for `doubtNanoseconds` (the least it stood at, placed at `reading`).
    private mutating func followDoubt(shortfall: Double, jump: Double, at now: Int64, reading: Int64) -> Loss? {
        guard var doubt else {
            if jump >= thresholdFrames { doubt = (now, shortfall - jump, jump, lastAnswerEnd) }
            return nil
        }
        let rise = shortfall - doubt.baseline
        guard rise >= thresholdFrames else {
            self.doubt = nil  // it came back: late audio, not lost
            return nil
        }
        doubt.least = min(doubt.least, rise)
        guard now - doubt.since >= Self.doubtNanoseconds else {
            self.doubt = doubt
            return nil
        }
        self.doubt = nil
        return Loss(position: reading, bytes: Int64(doubt.least.rounded()) * bytesPerFrame, kind: .dropped, estimated: true,
                    foundLateBy: max(0, reading - doubt.from))
    }

    /// The server could not answer: nothing is placed, and reading does not wait for an answer.
    mutating func answerFailed() {
        holdAt = nil
        resumeTail = nil
    }

    /// The loss to insert now, if one is placed at or before `reading`.
    mutating func takeLoss(at reading: Int64) -> Loss? {
        guard let first = pending.first, first.position <= reading else { return nil }
        pending.removeFirst()
        return first
    }

    /// Bytes that may be taken from `reading` before the next placed loss (or the hold).
    func bytesUntilLoss(from reading: Int64) -> Int {
        let limit = min(pending.first?.position ?? Int64.max, holdAt ?? Int64.max)
        return limit == Int64.max ? Int.max : Int(clamping: max(0, limit - reading))
    }

    /// True while reading must wait at the hold for the next answer.
    func isHolding(at reading: Int64) -> Bool {
        holdAt.map { reading >= $0 } ?? false
    }

    private mutating func place(_ loss: Loss) {
        if let last = pending.last, last.position >= loss.position || pending.count == Self.maxPending {
            // At the same place (or no room): one loss.
            pending[pending.count - 1].bytes += loss.bytes
            pending[pending.count - 1].estimated = pending[pending.count - 1].estimated || loss.estimated
            return
        }
        pending.append(loss)
    }

    private mutating func remember(_ shortfall: Double) {
        if window.count < Self.windowSize {
            window.append(shortfall)
        } else {
            window[windowNext] = shortfall
        }
        windowNext = (windowNext + 1) % Self.windowSize
    }
}

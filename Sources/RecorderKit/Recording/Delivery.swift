// The delivery thread: takes filled buffers off the capture thread, meters them, hands them to the
// embedder and the file, and returns them to the free set.
import Glibc
import Synchronization

/// One recording between `record(to:)` and its end: the file being written, and the numbered files
/// that follow it when a file reaches its limit. Created by the caller, then used only by the
/// delivery thread.
final class FileSession: @unchecked Sendable {
    // @unchecked Sendable: created by the caller, then used only by the delivery thread (handed over
    // through the control lock).
    private(set) var writer: SoundFileWriter
    let format: StreamFormat
    let overwrite: Bool
    /// Recorder frame position of the recording's first frame.
    let startFrame: Int64
    /// Per-file limits asked for (nil: only the container's own).
    let maxFramesPerFile: Int64?
    let maxBytesPerFile: Int64?
    private(set) var files: [String]
    /// Frames in the files already closed.
    private var framesBefore: Int64 = 0
    var droppedFrames: Int64 = 0
    var gaps: [RecordingGap] = []
    /// Levels over exactly the frames written.
    var totals: LevelTotals
    /// Which recording of the recorder this is (1, 2, …), to match stops and waits with it.
    var number = 0
    /// The markers of the files closed so far, in order.
    private(set) var markers: [RecordingMarker] = []
    /// The path numbered files are named after: the first file, or for numbered takes the path asked for.
    let baseName: String
    /// A sound-activated recording's state; nil for others.
    var takes: TakeState?

    init(writer: SoundFileWriter, format: StreamFormat, overwrite: Bool, startFrame: Int64,
         maxFramesPerFile: Int64?, maxBytesPerFile: Int64?, baseName: String? = nil, takes: TakeState? = nil) {
        self.writer = writer
        self.baseName = baseName ?? writer.path
        self.takes = takes
        self.format = format
        self.overwrite = overwrite
        self.startFrame = startFrame
        self.maxFramesPerFile = maxFramesPerFile
        self.maxBytesPerFile = maxBytesPerFile
        files = [writer.path]
        totals = LevelTotals(channelCount: format.channelCount, sampleFormat: format.sampleFormat)
    }

    /// Frames written so far, all files together.
    var frameCount: Int64 { framesBefore + writer.framesWritten }

    /// The most frames the current file may hold: the container's capacity and the asked limits.
    static func limit(of writer: SoundFileWriter, maxFrames: Int64?, maxBytes: Int64?, bytesPerFrame: Int) -> Int64 {
        var limit = writer.frameCapacity
        if let maxFrames { limit = min(limit, maxFrames) }
        if let maxBytes { limit = min(limit, (maxBytes - Int64(writer.headerBytes)) / Int64(bytesPerFrame)) }
        return limit
    }

    /// Writes whole frames, moving on to the next numbered file at each file's limit (the closed file
    /// gets its `markers`). Calls `started` with each new file's path and the offset (in frames) of its
    /// first frame in `bytes`. `sums` (of all of `bytes`, when measured already) go to the totals if
    /// `bytes` is written in one piece; otherwise each piece is measured.
    func write(_ bytes: UnsafeRawBufferPointer, markers: [PendingMarker], sums: [ChannelSums]? = nil,
               started: (String, Int) -> Void) throws(RecorderError) {
        let bytesPerFrame = format.bytesPerFrame
        var offset = 0
        while bytes.count - offset >= bytesPerFrame {  // whole frames (a partial one cannot be written)
            // A size limit holds the marker chunks close will add for the markers this file has so far.
            let reserve = maxBytesPerFile == nil ? 0
                : MarkerChunk.maxByteCount(type: writer.fileType, markers: markers, from: framesBefore)
            let room = Self.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile.map { $0 - reserve },
                                  bytesPerFrame: bytesPerFrame) - writer.framesWritten
            if room <= 0 {
                try nextFile(markers: markers)
                started(writer.path, offset / bytesPerFrame)
                continue
            }
            let count = Int(min(room, Int64((bytes.count - offset) / bytesPerFrame))) * bytesPerFrame
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
            try writer.write(packets: slice)
            if let sums, count == bytes.count {
                sums.withUnsafeBufferPointer { totals.add($0, frames: count / bytesPerFrame) }
            } else {
                totals.add(slice)
            }
            offset += count
        }
    }

    func nextFile(markers: [PendingMarker]) throws(RecorderError) {
        let path = FileType.numberedPath(baseName, files.count + 1)
        guard !writer.isStandardOutput && !writer.isDevice else {
            throw RecorderError(.writeFailed,
                "\(writer.isDevice ? "'\(writer.path)'" : "standard output") is full at \(writer.framesWritten) frames: a \(writer.fileType.rawValue.uppercased()) "
                + "stream cannot describe more; use -t raw or FLAC, or record into a file")
        }
        let next = try SoundFileWriter(path: path, format: format, overwrite: overwrite,
                                       maxFramesPerWrite: writer.maxFramesPerWrite, fileType: writer.fileType,
                                       quality: writer.quality)
        closeFile(markers: markers, last: false)
        framesBefore += writer.framesWritten
        writer = next
        files.append(path)
    }

    /// Closes the current file with the markers that fall in it: from its first frame up to, not
    /// including, the next file's first frame; the last file also takes those at (or, clamped, past)
    /// its end. Markers are added in frame order, and all of a file's are known when it is closed: each
    /// was added before the frame after it was captured.
    func closeFile(markers: [PendingMarker], last: Bool) {
        let end = framesBefore + writer.framesWritten
        let mine = markers.filter { $0.position >= framesBefore && ($0.position < end || last) }
        let frames = mine.map { (frame: min($0.position, end) - framesBefore, label: $0.label) }
        let stored = writer.close(markers: frames, byteLimit: maxBytesPerFile) && (writer.fileType == .aiff || writer.fileType == .wav)
        for (marker, placed) in zip(mine, frames) {
            self.markers.append(RecordingMarker(label: marker.label, startFrame: framesBefore + placed.frame,
                                                path: writer.path, fileFrame: placed.frame,
                                                isStoredInFile: stored, sampleRate: format.sampleRate))
        }
    }
}

/// What controlling threads and the delivery thread share, under one lock. Controlling threads only
/// post requests here; the delivery thread carries them out between buffers and records the outcome,
/// which callers wait for by re-checking a condition under the lock.
struct ControlState {
    /// A session installed by `record(to:)` that the delivery thread has not taken yet.
    var pending: FileSession?
    /// Recorder frame of the current recording's first frame.
    var recordingStart: Int64 = 0
    /// The current recording's pauses, in order; the last one is open while paused.
    var pauses: [PauseSpan] = []
    /// The current recording's markers, in order.
    var markers: [PendingMarker] = []
    /// The current recording is sound-activated: its pauses are the time between takes, and `pause()`
    /// leaves them alone.
    var isTriggered = false
    /// While paused with a frame limit: the frames the recording still had to take when it paused.
    var remainingAtPause: Int64?
    /// Path of the recording in progress (pending or active), nil when not recording.
    var recordingPath: String?
    /// Number of the recording in progress, or of the last one (1, 2, … per `record(to:)`).
    var recordingNumber = 0
    /// Number of the last recording that has ended.
    var finishedNumber = 0
    /// Frame position where the current recording ends (its duration, or where a stop cut it).
    var endFrame: Int64?
    /// A stop of the current recording was asked: the delivery thread drains, cuts and closes the file.
    var stopRequested = false
    /// `stop()` was asked: end the recording as a stop does, close the stream, end the streams, exit.
    var shutdownRequested = false
    /// Set by the delivery thread as its last act.
    var exited = false
    /// The latest summaries with their recording numbers (a few: enough for any waiter to find its own).
    var summaries: [(number: Int, summary: RecordingSummary)] = []

    var lastSummary: RecordingSummary? { summaries.last?.summary }

    var isPaused: Bool { recordingPath != nil && !isTriggered && pauses.last.map { $0.to == nil } == true }
}

/// A sound-activated recording as the delivery thread runs it (see `SoundTrigger`).
struct TakeState {
    let trigger: SoundTrigger
    let hangFrames: Int64
    let preRollFrames: Int64
    /// Buffer frames below `stopBelow` since the last one above it, in the open take.
    var quietFrames: Int64 = 0
    /// Where the last take ended (recorder frame; the recording's start before the first): the next
    /// one's pre-roll reaches back no further.
    var lastEnd: Int64
    /// The takes that have ended.
    var done: [RecordingTake] = []
    /// The open take, and where it began in the recording (frames written before it).
    var open: (number: Int, position: Int64, path: String, fileFrame: Int64, startFrame: Int64, onset: Int64)?
    /// The open take ends with the buffer being delivered.
    var endsWithThisBuffer = false

    var all: Int { done.count + (open == nil ? 0 : 1) }
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

/// The last captured frames, kept for pre-roll (a take that begins before `record(to:)` was called):
/// one allocation at start, a copy of each delivered buffer, nothing else. Delivery thread only.
final class PreRollRing: @unchecked Sendable {
    // @unchecked Sendable: created before the delivery thread starts, then used by that thread alone.
    let capacityFrames: Int
    private let bytesPerFrame: Int
    private let storage: UnsafeMutableRawPointer
    /// The frame after the last one kept, and how many frames before it are kept.
    private(set) var endFrame: Int64 = 0
    private(set) var count = 0

    init(capacityFrames: Int, bytesPerFrame: Int) {
        self.capacityFrames = max(1, capacityFrames)
        self.bytesPerFrame = bytesPerFrame
        storage = .allocate(byteCount: self.capacityFrames * bytesPerFrame, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Keeps `bytes`, whose first frame is `startFrame` (a discontinuity starts the ring afresh).
    func append(_ bytes: UnsafeRawBufferPointer, startFrame: Int64) {
        if startFrame != endFrame { count = 0 }
        var frames = bytes.count / bytesPerFrame
        var source = bytes.baseAddress!
        var first = startFrame
        if frames > capacityFrames {
            source += (frames - capacityFrames) * bytesPerFrame
            first += Int64(frames - capacityFrames)
            frames = capacityFrames
        }
        var done = 0
        while done < frames {
            let slot = Int((first + Int64(done)) % Int64(capacityFrames))
            let run = min(frames - done, capacityFrames - slot)
            memcpy(storage + slot * bytesPerFrame, source + done * bytesPerFrame, run * bytesPerFrame)
            done += run
        }
        endFrame = first + Int64(frames)
        count = min(capacityFrames, count + frames)
    }

    /// The kept frames of `range` (clipped to what is kept), in at most two contiguous parts, in order.
    func forEachPart(of range: Range<Int64>, _ body: (UnsafeRawBufferPointer, Range<Int64>) -> Bool) {
        var from = max(range.lowerBound, endFrame - Int64(count))
        let to = min(range.upperBound, endFrame)
        while from < to {
            let slot = Int(from % Int64(capacityFrames))
            let run = min(Int(to - from), capacityFrames - slot)
            let part = UnsafeRawBufferPointer(start: storage + slot * bytesPerFrame, count: run * bytesPerFrame)
            if !body(part, from..<(from + Int64(run))) { return }
            from += Int64(run)
        }
    }
}

/// The delivery thread's own state. Only that thread touches it (the input handler, which runs on it,
/// included), so it needs no lock.
private final class DeliveryState: @unchecked Sendable {
    // @unchecked Sendable: created before the thread starts and from then on used by the delivery
    // thread alone (`Delivery` checks `isCurrentThread` before any inline use from a handler).
    var session: FileSession?
    /// Frames delivered so far: where the next buffer starts.
    var position: Int64 = 0
    var meterScratch: [LevelMeterState]
    /// The delivered buffer's sums per channel (one metering pass serves the level and the totals).
    var meterSums: [ChannelSums]
    var outage: Outage?
    var failureReported = false
    /// A loss (dropped frames, a silent source) not reported yet: the notices that continue it are
    /// merged into it, and it is reported once data after it is delivered (or the recording ends).
    var openLoss: CaptureNotice?
    /// While a stop drains: when to cut at the latest (CLOCK_MONOTONIC ns).
    var drainDeadline: Int64?
    /// The current recording has been cut: it ends once every buffer before `endFrame` is delivered.
    var cutDone = false
    /// `stop()` was called from the input handler: nothing more is delivered.
    var stopNow = false
    /// Leave the loop: the recorder is shutting down and its recording is closed.
    var exiting = false

    init(format: StreamFormat) {
        meterScratch = Readout.silentLevels(format)
        meterSums = [ChannelSums](repeating: ChannelSums(), count: format.channelCount)
    }
}

/// The embedder's input handler, boxed: a closure stored directly as a generic `Locked`'s value is
/// re-wrapped in two reabstraction thunks each time `withLock`'s `inout` hands it out and takes it
/// back, so a handler read once per buffer ran deeper and slower on every buffer (measured: 160
/// bytes of stack per buffer) until the thread's stack ran out. A class reference needs no thunk.
final class InputHandler: Sendable {
    let call: @Sendable (CapturedBuffer) -> Void
    init(_ call: @escaping @Sendable (CapturedBuffer) -> Void) { self.call = call }
}

/// The consumer side of the buffer pool, and the one place where control requests are carried out.
/// Runs on its own (detached) thread; holds no reference to `Recorder`, so a recorder that is no
/// longer referenced can deinit and stop it, even from its own input handler.
final class Delivery: Sendable {
    let format: StreamFormat
    let control = ControlChannel(ControlState())
    let readout: Readout
    let events = Broadcaster<RecorderEvent>()
    let inputHandler = Locked<InputHandler?>(nil)
    /// Frames delivered since the recorder started.
    let framePosition = Atomic<Int64>(0)
    /// How long to wait for a lost server or source to come back (nil: do not wait).
    let reconnectTimeout: Double?
    /// For tests: the timeline frame up to which the server had captured when the last stop asked.
    let lastDrain = Locked<Int64?>(nil)

    private let pool: BufferPool
    private let capture: CaptureStream
    private let dataReady: Semaphore
    private let state: DeliveryState
    private let thread = Locked<pthread_t?>(nil)
    /// The last frames delivered, for pre-roll; nil when the recorder keeps none.
    private let preRoll: PreRollRing?
    /// How far back (frames) a take may begin: the pre-roll the recorder was created with.
    let maximumPreRollFrames: Int64

    /// How long a stop waits for what the server had captured to arrive (AudioQueueFlush's drain).
    static let drainTimeout: Int64 = 500_000_000

    init(format: StreamFormat, pool: BufferPool, capture: CaptureStream, dataReady: Semaphore,
         reconnectTimeout: Double?, preRollFrames: Int = 0) {
        self.format = format
        maximumPreRollFrames = Int64(max(0, preRollFrames))
        // Two buffers more than asked: between `record(to:)` reading the delivered position and the
        // delivery thread taking the new recording, one more buffer may be delivered.
        let bufferFrames = pool.capacityBytes / format.bytesPerFrame
        preRoll = preRollFrames > 0
            ? PreRollRing(capacityFrames: preRollFrames + 2 * bufferFrames, bytesPerFrame: format.bytesPerFrame) : nil
        self.pool = pool
        self.capture = capture
        self.dataReady = dataReady
        self.reconnectTimeout = reconnectTimeout
        state = DeliveryState(format: format)
        readout = Readout(format: format)
    }

    /// Starts the delivery thread (detached: `stop()` waits for `exited`, never joins, so it can be
    /// called from the thread itself).
    /// If the system refuses a thread, capture is closed and the streams finished, as at the end of
    /// `run`, so the recorder's `stop()` returns at once.
    func start() throws(RecorderError) {
        switch startThread(named: "rk-delivery", { [self] in run() }) {
        case .success(let thread):
            pthread_detach(thread)
        case .failure(let failure):
            endCapture()
            throw failure.error(starting: "the delivery thread")
        }
    }

    /// True on the delivery thread (in the input handler, or in a deinit that runs there).
    var isCurrentThread: Bool {
        thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: Requests from any thread

    /// Asks for the current recording to be stopped; returns its number, or nil if none is in progress.
    func requestStop() -> Int? {
        let number = control.withLock { control -> Int? in
            guard control.recordingPath != nil else { return nil }
            control.stopRequested = true
            return control.recordingNumber
        }
        if number != nil { dataReady.post() }
        return number
    }

    /// Asks for the end: the recording is stopped as by `requestStop`, then capture ends.
    func requestShutdown() {
        control.withLock { control in
            control.shutdownRequested = true
            if control.recordingPath != nil { control.stopRequested = true }
        }
        dataReady.post()
    }

    /// Blocks until `isDone` holds for the control state (re-checked under the lock at each change).
    func wait(until isDone: (ControlState) -> Bool) {
        control.wait(until: isDone)
    }

    /// Suspends (no thread blocked) until `isDone` holds for the control state.
    func wait(until isDone: @escaping @Sendable (ControlState) -> Bool) async {
        await control.wait(until: isDone)
    }

    /// The summary of recording `number` (or the latest), throwing its error if it failed.
    func result(of number: Int?) throws(RecorderError) -> RecordingSummary? {
        let summary = control.withLock { control in
            number.flatMap { number in control.summaries.last { $0.number == number }?.summary } ?? control.lastSummary
        }
        if let error = summary?.error { throw error }
        return summary
    }

    /// Changes the control state, waking blocked waiters and resuming async waiters whose condition holds.
    private func changeControl(_ body: (inout ControlState) -> Void) {
        control.change(body)
    }

    // MARK: Requests made on the delivery thread itself (from the input handler)

    /// `stopRecording()` from the input handler: the buffer it was given is already in the file, so
    /// the recording ends with it, at once, and its summary is returned. nil when not recording.
    func stopRecordingInline() throws(RecorderError) -> RecordingSummary? {
        takePending()
        guard let session = state.session else { return nil }
        let end = max(state.position, session.startFrame)
        control.withLock { $0.endFrame = min($0.endFrame ?? end, end) }
        finish(error: nil)
        return try result(of: session.number)
    }

    /// `stop()` from the input handler: ends the recording as `stopRecordingInline`, delivers nothing
    /// more, and ends capture when the handler returns.
    func shutdownInline() {
        _ = try? stopRecordingInline()
        control.withLock { $0.shutdownRequested = true }
        state.stopNow = true
    }

    // MARK: The thread

    /// The thread body: carries out requests and delivers buffers until shut down.
    private func run() {
        thread.withLock { $0 = pthread_self() }
        while !state.exiting {
            if state.outage != nil {
                _ = dataReady.wait(milliseconds: 200)  // retry the connection at 5 Hz meanwhile
            } else if let deadline = state.drainDeadline {
                let remaining = max(0, deadline - monotonicNanoseconds())
                _ = dataReady.wait(milliseconds: Int(remaining / 1_000_000) + 1)
            } else {
                dataReady.wait()
            }
            step()
        }
        endCapture()
    }

    /// Closes capture, finishes the streams and tells `stop()` it is over: the end of `run`, or of a
    /// delivery thread that could not be started.
    private func endCapture() {
        capture.close()
        reportNotices(endFrame: nil)
        closeLoss(endFrame: nil)
        readout.finish()
        events.finish()
        changeControl { $0.exited = true }
    }

    /// One round: take requests, deliver what is there, advance a stop, handle a lost stream.
    private func step() {
        deliverAvailable()
        serviceStop()
        let shutdown = control.withLock { $0.shutdownRequested }
        if !shutdown && !state.stopNow {
            if capture.failed.load(ordering: .acquiring) && state.outage == nil && !state.failureReported {
                captureLost()
            }
            if let outage = state.outage {
                tryReconnect(outage)
            }
        }
        let idle = control.withLock { $0.pending == nil }
        if (shutdown || state.stopNow) && state.session == nil && idle {
            state.exiting = true
        }
    }

    /// Starts or advances a requested stop. Called between buffers, so a stop is carried out even
    /// while buffers keep coming (a handler slower than real time).
    private func serviceStop() {
        guard state.session != nil, !state.cutDone else { return }
        if state.drainDeadline == nil {
            let requested = control.withLock { $0.stopRequested || $0.shutdownRequested }
            if requested { startDrain() }
        } else {
            advanceDrain()
        }
    }

    /// A stop: ask the server how far it has captured and go on delivering until that has arrived
    /// (at most `drainTimeout`), then cut. Nothing blocks meanwhile.
    private func startDrain() {
        if capture.withLock({ capture.requestCapturedPosition() }) {
            state.drainDeadline = monotonicNanoseconds() + Self.drainTimeout
        } else {
            lastDrain.withLock { $0 = nil }
            cut(at: nil)
        }
    }

    private func advanceDrain() {
        guard let deadline = state.drainDeadline else { return }
        let status = capture.withLock { capture.drainStatus() }
        guard status != nil || monotonicNanoseconds() >= deadline else { return }
        lastDrain.withLock { $0 = status ?? nil }
        cut(at: status ?? nil)
    }

    /// Ends the recording at `frame` (what the server had captured when asked), or, when the server
    /// could not say, at what has arrived by now: takes it from libpulse, hands on the partial buffer.
    private func cut(at frame: Int64?) {
        state.drainDeadline = nil
        let end = flushAll(upTo: frame)
        if state.session != nil {
            control.withLock { $0.endFrame = min($0.endFrame ?? end, end) }
            state.cutDone = true
        }
        deliverAvailable()
    }

    /// Takes from libpulse every frame before `frame` (nil: what has arrived by now) and hands on the
    /// partial buffer, delivering buffers whenever none is free; returns where the recording may end.
    private func flushAll(upTo frame: Int64?) -> Int64 {
        // Everything that has arrived by now (at least the server's count when asked, which the
        // drain waited for): fixed here, so a consumer slower than real time cannot keep it moving.
        let target = max(frame ?? 0, capture.withLock { capture.arrivedFrames })
        while true {
            let end = capture.withLock { () -> Int64? in
                capture.endDrain()
                return capture.flush(upTo: target)
            }
            if let end { return end }
            guard let index = pool.filled.pop() else {
                return capture.withLock { capture.framePosition }  // cannot happen: every buffer is queued
            }
            deliver(index)
            release(index)
        }
    }

    /// Takes a session `record(to:)` installed. One that begins before the frames delivered so far (a
    /// pre-roll, or a timed start in the past) gets them from the pre-roll ring first.
    private func takePending() {
        guard let session = control.withLock({ control -> FileSession? in
            defer { control.pending = nil }
            return control.pending
        }) else { return }
        state.session = session
        // A write to a pipe whose reader stalled waits, but not past a stop (see `PipeOutput`).
        session.writer.isStopping = { [control] in control.withLock { $0.stopRequested || $0.shutdownRequested } }
        guard session.startFrame < state.position, let preRoll else { return }
        let (sessionEnd, pauses, markers) = control.withLock { ($0.endFrame, $0.pauses, $0.markers) }
        preRoll.forEachPart(of: session.startFrame..<state.position) { bytes, frames in
            write(bytes, startFrame: frames.lowerBound, to: session, end: sessionEnd, pauses: pauses, markers: markers)
        }
    }

    /// Delivers every filled buffer, reports notices, and closes the recording once it is complete.
    private func deliverAvailable() {
        while !state.stopNow {
            takePending()
            let (endFrame, shutdown) = control.withLock { ($0.endFrame, $0.shutdownRequested) }
            // Shutting down with no recording left: leave, even if buffers keep coming.
            if shutdown && state.session == nil { return }
            reportNotices(endFrame: endFrame)
            if let session = state.session, let endFrame,
               endFrame <= session.startFrame || state.position >= endFrame {
                finish(error: nil)
                continue
            }
            serviceStop()
            guard let index = pool.filled.pop() else {
                // Every frame before the cut was handed over, so the file is complete.
                if state.session != nil, state.cutDone { finish(error: nil) }
                return
            }
            deliver(index)
            release(index)
        }
    }

    /// Returns a delivered buffer to the free set, and resumes a capture that stalled for want of one.
    private func release(_ index: Int) {
        pool.free.push(index)
        // Pairs with the fence in CaptureStream.readAvailable: either it sees this buffer, or we see
        // `stalled` and resume it.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if capture.stalled.load(ordering: .sequentiallyConsistent) {
            capture.resume()
        }
    }

    /// Turns the capture side's notices into events, and drops and gaps into the recording's gaps.
    /// Losses are merged while they continue (one loss, one event) and reported by `closeLoss`.
    private func reportNotices(endFrame: Int64?) {
        while let notice = capture.notices.pop() {
            switch notice.kind {
            case .dropped, .sourceSilent, .slept:
                if let open = state.openLoss, open.kind == notice.kind, open.frame + open.count == notice.frame {
                    state.openLoss?.count += notice.count
                } else {
                    closeLoss(endFrame: endFrame)
                    state.openLoss = notice
                }
            case .gap:
                closeLoss(endFrame: endFrame)
                // The gap as the file holds it, from the same pauses as the summary's gap: the part of the
                // time away that fell in a pause is not there (a pause before the outage and still on, or
                // asked while the server was away).
                let inFile = record(notice, reason: .serverLost, endFrame: endFrame)
                events.yield(.captureResumed(gapFrames: inFile?.0 ?? notice.count, atFrame: notice.frame))
            case .moved:
                let name = capture.withLock { capture.currentSourceName }
                events.yield(.sourceMoved(to: name, atFrame: notice.frame))
            case .suspended:
                if notice.count == 0 { closeLoss(endFrame: endFrame) }  // the silence ends where it resumed
                // A suspension stands until the resume: `events()` made meanwhile begins with it.
                let event: RecorderEvent = notice.count != 0 ? .sourceSuspended(atFrame: notice.frame)
                                                             : .sourceResumed(atFrame: notice.frame)
                events.yield(event, standing: notice.count != 0 ? event : nil)
            }
        }
    }

    /// Reports the open loss (one event, one gap in the recording), if any. While recording, the
    /// event counts what the file holds of it (a loss that runs past the take's end, or into a pause,
    /// is silence in the file only where the file is); while only metering, all of it.
    private func closeLoss(endFrame: Int64?) {
        guard let loss = state.openLoss else { return }
        state.openLoss = nil
        let reason: RecordingGap.Reason = loss.kind == .slept ? .systemSleep : loss.kind == .sourceSilent ? .suspended : .dropped
        let inFile = record(loss, reason: reason, endFrame: endFrame)
        let (count, frame) = inFile ?? (loss.count, loss.frame)
        guard count > 0 else { return }
        events.yield(reason == .dropped ? .framesDropped(count: count, atFrame: frame)
                                        : .sourceGap(gapFrames: count, atFrame: frame, reason: reason))
    }

    /// Adds the part of `notice` the file holds to the recording's gaps; returns its length and recorder
    /// frame (nil when nothing is being recorded).
    @discardableResult
    private func record(_ notice: CaptureNotice, reason: RecordingGap.Reason, endFrame: Int64?) -> (Int64, Int64)? {
        guard let session = state.session else { return nil }
        let start = max(notice.frame, session.startFrame)
        let end = min(notice.frame + notice.count, endFrame ?? Int64.max)
        guard start < end else { return (0, start) }
        // In the file: paused frames are not there, so neither is their part of a gap.
        let pauses = control.withLock { $0.pauses }
        let frames = pauses.recordedFrames(in: start..<end)
        guard frames > 0 else { return (0, start) }
        session.gaps.append(RecordingGap(startFrame: start - session.startFrame - pauses.pausedFrames(before: start),
                                         frameCount: frames, reason: reason, sampleRate: format.sampleRate))
        if reason == .dropped { session.droppedFrames += frames }
        return (frames, start)
    }

    /// The stream failed. With a reconnect timeout, start waiting for the server or source; without,
    /// write out what was captured, close the file with the error and report it.
    private func captureLost() {
        if let reconnectTimeout {
            let lostAt = capture.detachFailed()
            let frame = capture.withLock { capture.framePosition }
            state.outage = Outage(lostAt: lostAt, deadline: lostAt + Int64(min(reconnectTimeout, 1e9) * 1e9))
            events.yield(.captureInterrupted(RecorderError(.streamFailed,
                "capture from '\(capture.sourceName)' was interrupted: the server closed the stream "
                + "(server gone or source removed); waiting up to \(seconds(reconnectTimeout)) s for it to come back"),
                atFrame: frame))
            return
        }
        fail(RecorderError(.streamFailed,
            "capture from '\(capture.sourceName)' stopped: the server closed the stream "
            + "(server gone or source removed); check that the server is running"))
    }

    private func tryReconnect(_ outage: Outage) {
        do {
            _ = try capture.reconnect(lostAt: outage.lostAt)
            state.outage = nil
            deliverAvailable()
        } catch {
            guard monotonicNanoseconds() >= outage.deadline else { return }
            state.outage = nil
            fail(RecorderError(.streamFailed,
                "capture from '\(capture.sourceName)' stopped: the server or source did not come back within "
                + "\(seconds(reconnectTimeout ?? 0)) s (last attempt: \(error.message)); check that the server is running",
                underlying: error.underlyingError))
        }
    }

    /// Writes what was captured before the failure, closes the file with `error`, reports it once.
    private func fail(_ error: RecorderError) {
        state.failureReported = true
        _ = flushAll(upTo: nil)
        deliverAvailable()
        if state.session != nil { finish(error: error) }
        events.yield(.captureFailed(error))
    }

    private func deliver(_ index: Int) {
        guard !state.stopNow else { return }
        let startFrame = pool.startFrame(of: index)
        let byteCount = pool.byteCount(of: index)
        let frameCount = byteCount / format.bytesPerFrame
        let bytes = UnsafeRawBufferPointer(start: pool.bytes(of: index), count: byteCount)
        let endFrame = startFrame + Int64(frameCount)
        let (sessionEnd, pauses, markers) = control.withLock { ($0.endFrame, $0.pauses, $0.markers) }
        // Every notice about this buffer's frames was queued before the buffer: a loss that ends inside
        // it is over.
        reportNotices(endFrame: sessionEnd)
        if let loss = state.openLoss, loss.frame + loss.count < endFrame { closeLoss(endFrame: sessionEnd) }

        readout.measure(bytes, into: &state.meterScratch, sums: &state.meterSums)
        // The file before the readings and the handler: a handler that stops the recording has its buffer
        // in the file, and a reader that sees a failed write's buffer already sees the recording ended.
        if let session = state.session {
            var pauses = pauses
            if session.takes != nil {
                pauses = trigger(session, startFrame: startFrame, endFrame: endFrame, end: sessionEnd, markers: markers)
            }
            // (A take whose file could not be created has finished the recording.)
            if state.session === session,
               write(bytes, startFrame: startFrame, to: session, end: sessionEnd, pauses: pauses, markers: markers,
                     sums: state.meterSums),
               session.takes?.endsWithThisBuffer == true {
                endTake(session)
            }
        }
        preRoll?.append(bytes, startFrame: startFrame)
        state.position = endFrame
        framePosition.store(endFrame, ordering: .releasing)
        readout.publish(bytes, endFrame: endFrame, frameCount: frameCount, measured: state.meterScratch,
                        recordingPosition: state.session?.frameCount)

        if let handler = inputHandler.withLock({ $0 }) {
            handler.call(CapturedBuffer(startFrame: startFrame, frameCount: frameCount, format: format, bytes: bytes))
        }
    }

    /// A sound-activated recording, before the buffer `startFrame..<endFrame` is written: begins a take
    /// (in the next numbered file unless `oneFile`; the pre-roll from the kept audio; the pause since the
    /// last take closed) when its peak rises above the threshold, or marks the take to end with it once
    /// the quiet has lasted the hang time (the pause that follows opened). Returns the pauses to write with.
    private func trigger(_ session: FileSession, startFrame: Int64, endFrame: Int64, end: Int64?,
                         markers: [PendingMarker]) -> [PauseSpan] {
        guard var takes = session.takes else { return control.withLock { $0.pauses } }
        defer { session.takes = takes }
        let peak = state.meterScratch.map(\.peakPower).max() ?? LevelMeterState.silence
        if takes.open != nil {
            takes.quietFrames = peak < takes.trigger.stopBelow ? takes.quietFrames + (endFrame - startFrame) : 0
            if takes.quietFrames >= takes.hangFrames {
                takes.endsWithThisBuffer = true
                control.withLock { $0.pauses.append(PauseSpan(from: endFrame, to: nil)) }
            }
            return control.withLock { $0.pauses }
        }
        guard peak > takes.trigger.startAbove, end.map({ startFrame < $0 }) ?? true else {
            return control.withLock { $0.pauses }
        }
        // The pre-roll: no further back than the kept audio (contiguous up to this buffer), the last
        // take's end, or the recording's start.
        var first = max(startFrame - takes.preRollFrames, takes.lastEnd)
        if let preRoll, preRoll.endFrame == startFrame {
            first = max(first, preRoll.endFrame - Int64(preRoll.count))
        } else {
            first = max(first, startFrame)
        }
        if takes.all > 0 && !takes.trigger.oneFile {
            do throws(RecorderError) {
                try session.nextFile(markers: markers)
            } catch {
                session.takes = takes
                finish(error: error)
                return control.withLock { $0.pauses }
            }
        }
        let number = takes.all + 1
        takes.open = (number, session.frameCount, session.writer.path, session.writer.framesWritten, first, startFrame)
        takes.quietFrames = 0
        let pauses = control.withLock { control -> [PauseSpan] in
            if let last = control.pauses.indices.last, control.pauses[last].to == nil {
                control.pauses[last].to = first
            }
            return control.pauses
        }
        events.yield(.takeStarted(number: number, path: session.writer.path, atFrame: first))
        preRoll?.forEachPart(of: first..<startFrame) { bytes, frames in
            write(bytes, startFrame: frames.lowerBound, to: session, end: end, pauses: pauses, markers: markers)
        }
        return pauses
    }

    /// Closes the open take of a sound-activated recording: its length is what was written since it began.
    private func endTake(_ session: FileSession) {
        guard var takes = session.takes, let open = takes.open else { return }
        let take = RecordingTake(number: open.number, path: open.path, fileFrame: open.fileFrame,
                                 frameCount: session.frameCount - open.position, startFrame: open.startFrame,
                                 onsetFrame: open.onset, sampleRate: format.sampleRate)
        takes.done.append(take)
        takes.open = nil
        takes.endsWithThisBuffer = false
        takes.lastEnd = control.withLock { $0.pauses.last?.from } ?? open.startFrame
        session.takes = takes
        events.yield(.takeEnded(take))
    }

    /// Writes the part of `bytes` (frames from `startFrame`) that belongs to `session`: from its start to
    /// `end`, paused frames left out, so the parts around a pause join without a frame lost or
    /// repeated. `sums`, the measured sums of all of `bytes`, are added to the totals when all of it is
    /// written (else the written part is measured again). Returns false if the write failed (the
    /// recording is then finished with the error).
    private func write(_ bytes: UnsafeRawBufferPointer, startFrame: Int64, to session: FileSession,
                       end: Int64?, pauses: [PauseSpan], markers: [PendingMarker], sums: [ChannelSums]? = nil) -> Bool {
        let bytesPerFrame = format.bytesPerFrame
        let from = max(startFrame, session.startFrame)
        let to = min(startFrame + Int64(bytes.count / bytesPerFrame), end ?? Int64.max)
        guard from < to else { return true }
        var written = true
        pauses.forEachRecordedPart(of: from..<to) { part in
            let slice = UnsafeRawBufferPointer(rebasing: bytes[
                Int(part.lowerBound - startFrame) * bytesPerFrame ..< Int(part.upperBound - startFrame) * bytesPerFrame])
            do throws(RecorderError) {
                try session.write(slice, markers: markers, sums: slice.count == bytes.count ? sums : nil) { path, offset in
                    events.yield(.fileStarted(path: path, atFrame: part.lowerBound + Int64(offset)))
                }
                return true
            } catch {
                finish(error: error)
                written = false
                return false
            }
        }
        return written
    }

    /// Closes the current file (valid header) and tells whoever waits.
    private func finish(error: RecorderError?) {
        guard let session = state.session else { return }
        reportNotices(endFrame: control.withLock { $0.endFrame })
        closeLoss(endFrame: control.withLock { $0.endFrame })
        state.session = nil
        state.cutDone = false
        if state.drainDeadline != nil {
            state.drainDeadline = nil
            capture.withLock { capture.endDrain() }
        }
        let (pauses, markers) = control.withLock { ($0.pauses, $0.markers) }
        endTake(session)
        session.closeFile(markers: markers, last: true)
        // A sound-activated recording that never took leaves no file (it created the one it had ready).
        let untaken = session.takes.map { $0.done.isEmpty } ?? false
        if untaken { unlink(session.files[0]) }
        // The joins in the file: pauses that were resumed, up to the file's end.
        let joins = pauses.compactMap { span -> RecordingPause? in
            guard let to = span.to else { return nil }
            let fileFrame = span.from - session.startFrame - pauses.pausedFrames(before: span.from)
            return fileFrame <= session.frameCount
                ? RecordingPause(startFrame: fileFrame, pausedFrames: to - span.from, sampleRate: format.sampleRate) : nil
        }
        let summary = RecordingSummary(path: session.files[0], files: untaken ? [] : session.files,
                                       fileType: session.writer.fileType, startFrame: session.startFrame,
                                       frameCount: session.frameCount, droppedFrames: session.droppedFrames,
                                       gaps: session.gaps, pauses: session.takes == nil ? joins : [],
                                       markers: session.markers, takes: session.takes?.done ?? [],
                                       levels: session.totals.levels,
                                       clippedSamples: session.totals.clippedSamples, error: error)
        changeControl { control in
            control.recordingPath = nil
            control.pauses = []
            control.markers = []
            control.isTriggered = false
            control.remainingAtPause = nil
            control.endFrame = nil
            control.stopRequested = false
            control.finishedNumber = session.number
            control.summaries.append((session.number, summary))
            if control.summaries.count > 8 { control.summaries.removeFirst() }
        }
        events.yield(.recordingFinished(summary))
    }
}

/// Seconds for a message: whole numbers without a fraction.
func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

/// A lost server or source being waited for (CLOCK_MONOTONIC nanoseconds).
private struct Outage {
    let lostAt: Int64
    let deadline: Int64
}

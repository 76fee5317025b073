// The record stream: libpulse's read callback copies into the rotating buffers and hands full ones on.
import CPulse
import Glibc
import Synchronization

/// A PulseAudio record stream feeding a `BufferPool`, over one connection (one mainloop thread) for
/// its whole life. When the server or the source goes away and comes back, `reconnect` replaces the
/// context (if it died) and the stream, never the mainloop.
///
/// The read callback runs on the mainloop thread with the lock held. It only copies bytes into the
/// buffer being filled, takes the next free buffer when one is full, and posts `dataReady`:
/// no allocation, no disk, no user code. With no free buffer it stops where it is and leaves the rest
/// in libpulse's receive queue (`pa_stream_peek` returns the same fragment until it is dropped);
/// once the consumer has freed a buffer, `resume()` has the mainloop thread carry on (`wake`). Only if that queue comes within two
/// fragments of its limit (where libpulse would silently discard what arrives) does it drop the
/// oldest fragment itself: counted, placed, and replaced by silence of the same length.
///
/// Data moves only on the mainloop thread: the delivery thread asks for reads (`resume`, a stop's
/// `beginFlush`) and never reads libpulse's queue itself. Locking: other threads use `withLock` (the
/// mainloop lock). Callbacks already hold it and never block. Apart from `record(to:)`'s position
/// read, only the delivery thread calls in, and no call waits on the mainloop while holding anything else.
/// Told by a record stream, on the mainloop thread with the lock held, that it has read.
protocol CaptureListener: AnyObject {
    func captureDidRead(_ capture: CaptureStream)
}

final class CaptureStream: CallbackTarget, @unchecked Sendable {
    // @unchecked Sendable: `link`, `filler`, `fragmentOffset`, `dropThreshold`, `dropLowWater` and the drain fields are
    // touched only under the mainloop lock (callbacks, or `withLock`); the rest are atomics or immutable.
    struct Link {
        let stream: OpaquePointer
        /// Timeline bytes before this stream's first byte (the server's indices start at 0 per stream).
        let baseBytes: Int64
    }

    let format: StreamFormat
    let fragmentBytes: Int
    let requestedQueueBytes: Int?
    let dataReady: Semaphore
    let connection: PulseConnection
    /// False for a source of a `SourceGroup`: the group closes the connection its streams share.
    let ownsConnection: Bool
    /// A `SourceGroup` told after every read (on the mainloop thread, lock held); nil for one source.
    weak var listener: (any CaptureListener)?
    var link: Link?

    var filler: BufferFiller
    /// Bytes of the current fragment already taken (the fragment stays peeked until all are taken).
    var fragmentOffset = 0
    /// libpulse's receive queue at or above this many bytes: drop rather than let libpulse discard.
    var dropThreshold = Int.max
    /// Where a drop at `dropThreshold` stops: a quarter of the queue's limit (or a fragment) below it.
    var dropLowWater = Int.max
    /// The mainloop's defer event that reads on when the delivery thread asks (`readRequested`).
    var wake = MainloopWake.none
    /// A stop's flush asked of the mainloop (`beginFlush`), and its answer once given.
    var flush: Flush?
    /// Set while a stop waits for what the server had captured: the read callback then wakes the
    /// delivery thread at every read, not only when a buffer is full.
    var drainWaiting = false
    /// The timing request of the drain in progress (cancelled when the drain ends or at close, so its
    /// callback never outlives this object).
    var timingOperation: OpaquePointer?
    /// The server's answer: its write index for this stream in timeline bytes, or nil if it could not
    /// say. Unset while awaited.
    var capturedAnswer: Int64??
    /// Stream bytes of the current link taken or dropped by us (the sum of `pa_stream_drop`s): our
    /// count of libpulse's read index, which runs ahead of it when data was skipped unseen.
    var consumedBytes: Int64 = 0
    /// Watching the server's clock and indices for losses libpulse does not report.
    var watch: ServerWatch
    /// The mainloop timer that asks the server for its timing (once a second, more often after a
    /// wake-up or while the server's queue is full).
    var watchTimer: OpaquePointer?
    /// The watch's timing request in flight.
    var watchOperation: OpaquePointer?
    /// The source resumed; reported after the next answer has placed the suspension's silence.
    var resumeToReport = false
    /// At each read callback, the timeline frame up to which data had arrived and when: the frame
    /// captured at a given time is reckoned from the most prompt of the last seconds' arrivals.
    var arrivals: ArrivalLine

    /// Frames lost in capture since the start (written as silence).
    let droppedFrames: FrameCounter
    /// Frames of silence written for reconnection gaps since the start.
    let gapFrames: FrameCounter
    /// Notices for the delivery thread (drops, gaps, moves, suspends).
    let notices: NoticeRing
    /// Set when reading stopped for want of a free buffer; the consumer then calls `resume()`.
    let stalled = Atomic<Bool>(false)
    /// The source's latency (µs) at the server's last timing answer; −1 before one.
    let sourceLatency = Atomic<Int64>(-1)
    /// Set when the stream fails or is terminated by the server (server gone, source removed).
    let failed = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds when `failed` was set.
    let failedAt = Atomic<Int64>(0)
    /// CLOCK_MONOTONIC nanoseconds when data last arrived: the capture timeline ends there if the
    /// server goes away, so a reconnection gap is measured from it.
    let lastDataAt = Atomic<Int64>(0)
    /// Set by `close`; read by callbacks, which then do nothing.
    let closed = Atomic<Bool>(false)
    let pool: BufferPool
    /// The source recorded from (the server's default resolved to its name when connecting).
    let sourceName: String
    /// The server connected to first, as libpulse names it.
    let serverName: String

    /// Opens the stream on a new connection, or on `shared` (one of a `SourceGroup`'s, which closes it).
    init(format: StreamFormat, source: String?, server: String?, clientName: String, fragmentBytes: Int,
         maxQueueBytes: Int?, pool: BufferPool, dataReady: Semaphore, shared: PulseConnection? = nil) throws(RecorderError) {
        let connection: PulseConnection
        if let shared {
            connection = shared
        } else {
            connection = try PulseConnection(server: server, clientName: clientName)
        }
        let opened: (OpaquePointer, String)
        do {
            opened = try Self.openStream(on: connection, format: format, source: source,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: maxQueueBytes, pinned: shared != nil)
        } catch {
            if shared == nil { connection.close() }
            throw error
        }
        self.connection = connection
        ownsConnection = shared == nil
        self.format = format
        self.fragmentBytes = fragmentBytes
        requestedQueueBytes = maxQueueBytes
        self.dataReady = dataReady
        self.pool = pool
        // A several-source take's stream: the group takes its buffers after every read, on this thread,
        // so a full buffer wakes no one.
        filler = BufferFiller(pool: pool, bytesPerFrame: format.bytesPerFrame, dataReady: shared == nil ? dataReady : nil)
        droppedFrames = filler.droppedFrames
        gapFrames = filler.gapFrames
        notices = filler.notices
        serverName = connection.serverName
        sourceName = opened.1
        watch = ServerWatch(format: format, fragmentBytes: fragmentBytes)
        arrivals = ArrivalLine(sampleRate: format.sampleRate)
        connection.withLock { lock in
            wake = MainloopWake(on: connection, userdata: userdata, lock) { api, event, userdata in
                MainloopWake.settle(api, event)
                CaptureStream.from(userdata)?.readRequested()
            }
            install(Link(stream: opened.0, baseBytes: 0), lock)
            startWatchTimer(lock)
        }
    }

    deinit {
        assert(closed.load(ordering: .acquiring), "CaptureStream from '\(sourceName)' deinitialized without close()")
        close()
    }

    /// Creates a corked record stream and waits until it is ready. No callback touches `self` yet.
    private static func openStream(on connection: PulseConnection, format: StreamFormat, source: String?,
                                   fragmentBytes: Int, maxQueueBytes: Int?, pinned: Bool) throws(RecorderError) -> (OpaquePointer, String) {
        if let source, !connection.sources().contains(where: { $0.name == source }) {
            throw missingSource(source, on: connection)
        }
        // ~one buffer per fragment, so buffers fill at the designed rate and meters move smoothly.
        var attributes = pa_buffer_attr(maxlength: maxQueueBytes.map { UInt32($0) } ?? UInt32.max,
                                        tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragmentBytes))
        // Corked: no data flows until `install` has set the read callback and uncorks.
        // A source of a several-source take is pinned to its source: if the source goes away, the stream
        // fails (its channels go silent, counted) rather than being moved onto another source, which would
        // put another source's sound in its channels.
        let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_START_CORKED.rawValue
                                      | (pinned ? PA_STREAM_DONT_MOVE.rawValue : 0))
        let opened = try connection.withLock { lock throws(RecorderError) -> Result<(OpaquePointer, String), PulseFailure> in
            let stream = try connection.newStream(format, lock)  // until `install`, its state callback only wakes the wait
            if let failure = connection.connect(stream, lock, with: { pa_stream_connect_record($0, source, &attributes, flags) }) {
                return .failure(failure)
            }
            return .success((stream, pa_stream_get_device_name(stream).map { String(cString: $0) } ?? source ?? ""))
        }
        switch opened {
        case .success(let opened):
            return opened
        case .failure(let failure):
            // No such source, or a name the server rejects as malformed (which names no source either).
            if let source, failure.code == Int32(PA_ERR_NOENTITY.rawValue) || failure.code == Int32(PA_ERR_INVALID.rawValue) {
                throw missingSource(source, on: connection)
            }
            throw RecorderError(failure.code == Int32(PA_ERR_NOENTITY.rawValue) ? .sourceNotFound : .streamFailed,
                "cannot record from \(source.map { "source '\($0)'" } ?? "the default source") on "
                + "\(connection.serverName): \(failure.message); check the source with `pactl list short sources`",
                underlying: failure.cause)
        }
    }

    /// `.sourceNotFound` for `source`, listing the sources the server has.
    private static func missingSource(_ source: String, on connection: PulseConnection) -> RecorderError {
        let available = connection.sources().map(\.name).joined(separator: ", ")
        return RecorderError(.sourceNotFound,
            "no capture source named '\(source)' on \(connection.serverName); available sources: "
            + "\(available.isEmpty ? "none" : available) (list them with `pactl list short sources`)")
    }

    /// Makes `new` current: sets the callbacks and uncorks.
    func install(_ new: Link, _ lock: MainloopLock) {
        let stream = new.stream
        pa_stream_set_state_callback(stream, { stream, userdata in
            CaptureStream.from(userdata)?.stateChanged(stream)
        }, userdata)
        pa_stream_set_read_callback(stream, { stream, _, userdata in
            CaptureStream.from(userdata)?.dataArrived(stream)
        }, userdata)
        pa_stream_set_moved_callback(stream, { _, userdata in
            guard let capture = CaptureStream.from(userdata) else { return }
            capture.notices.push(CaptureNotice(kind: .moved, frame: capture.filler.timelineFrames, count: 0))
            capture.dataReady.post()
        }, userdata)
        pa_stream_set_suspended_callback(stream, { stream, userdata in
            CaptureStream.from(userdata)?.suspendedChanged(stream)
        }, userdata)
        if let attributes = pa_stream_get_buffer_attr(stream)?.pointee {
            let limit = Int(attributes.maxlength)
            dropThreshold = limit > 4 * fragmentBytes ? limit - 2 * fragmentBytes : max(fragmentBytes, limit / 2)
            dropLowWater = max(0, dropThreshold - max(fragmentBytes, limit / 4))
        }
        link = new
        consumedBytes = 0
        fragmentOffset = 0
        watch.restart(maxQueueBytes: Int64(pa_stream_get_buffer_attr(stream)?.pointee.maxlength ?? UInt32.max))
        if let operation = pa_stream_cork(stream, 0, nil, nil) { pa_operation_unref(operation) }
        // A source suspended already (`pactl suspend-source`) sends no data and no suspended callback:
        // say so at once, and keep the time from here (see `ServerWatch.startedSuspended`).
        if pa_stream_is_suspended(stream) > 0 {
            watch.startedSuspended(at: monotonicNanoseconds())
            notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: 1))
            dataReady.post()
        }
    }

    // MARK: Callbacks (the mainloop thread, lock held)

    func stateChanged(_ stream: OpaquePointer?) {
        let state = pa_stream_get_state(stream)
        guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
        failedAt.store(monotonicNanoseconds(), ordering: .relaxed)
        failed.store(true, ordering: .releasing)
        releaseFailedLink(stream, .inCallback)
        dataReady.post()
    }

    func dataArrived(_ stream: OpaquePointer?) {
        guard let stream else { return }
        let now = monotonicNanoseconds()
        if watch.stoodStill(at: now) {
            // The first data after this process stood still: the wake, before any of it is read.
            watch.ticked(at: now, tail: consumedBytes + max(0, Int64(pa_stream_readable_size(stream))))
        }
        lastDataAt.store(now, ordering: .relaxed)
        arrivals.arrived(frame: arrivedFrames(.inCallback), at: now)
        readAvailable(stream)
        if drainWaiting { dataReady.post() }
        listener?.captureDidRead(self)
    }

    func suspendedChanged(_ stream: OpaquePointer?) {
        let suspended = pa_stream_is_suspended(stream) > 0
        if suspended {
            watch.sawSuspension()
        } else if let timer = watchTimer, watch.mayOweSilence(now: monotonicNanoseconds()) {
            // The resume is reported once the silence of the suspension is in place (next answer).
            watch.sawResume(tail: consumedBytes + Int64(pa_stream_readable_size(stream)))
            resumeToReport = true
            pa_context_rttime_restart(connection.context, timer, pa_rtclock_now())
            return
        }
        notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: suspended ? 1 : 0))
        dataReady.post()
    }

    /// The installed stream failed: forget it and drop our reference at once, inside libpulse's own
    /// teardown. When a connection dies, libpulse fails its streams and then frees its shared memory,
    /// and that waits (on the mainloop thread, holding the lock) until every block read with
    /// `pa_stream_peek` is released, which happens when the stream is dropped or freed. A stream
    /// still held with a fragment peeked (capture stalled for want of a buffer) deadlocked the
    /// recorder: the mainloop thread waited for the block, the delivery thread for the lock. What
    /// was left of that fragment is lost with the rest of libpulse's queue for the dead stream.
    /// Mainloop thread, lock held (the state callback).
    func releaseFailedLink(_ stream: OpaquePointer?, _ lock: MainloopLock) {
        guard let current = link, current.stream == stream else { return }
        link = nil
        fragmentOffset = 0
        PulseConnection.release(current.stream, lock)
    }

    /// Runs `body` with the mainloop lock held. Never from a libpulse callback.
    func withLock<T>(_ body: (MainloopLock) -> T) -> T { connection.withLock(body) }

    /// Frames received since the stream started, dropped ones included.
    func framePosition(_ lock: MainloopLock) -> Int64 { filler.framePosition }

    /// CLOCK_MONOTONIC ns at which the current outage's gap begins (the last data before the stream
    /// failed), from `detachFailed` until `reconnect` writes the gap; nil otherwise. Under the lock.
    var outageSince: Int64?

    /// Where this moment stands on the recording's timeline: the frame the next data will have (silence
    /// still owed for time already past, a reconnection's gap or a loss, comes before it), or during an
    /// outage the frame this moment will have once the reconnection writes the gap (the gap runs from
    /// the last data to the reconnection, at the stream's rate). A pause asked while the server is away
    /// is so placed in the gap, and a resume just after the reconnection after it, so the time away
    /// is left out of the file where it was paused, as any paused time is.
    func positionNow(_ lock: MainloopLock) -> Int64 {
        guard let outageSince else { return filler.timelineFrames }
        let elapsed = Double(max(0, monotonicNanoseconds() - outageSince)) / 1e9
        return filler.timelineFrames + Int64((elapsed * Double(format.sampleRate)).rounded(.down))
    }

    /// True when libpulse holds as much as this stream keeps after a drop (`dropLowWater`): a reader
    /// that waits should wait no longer. Lock held.
    func isFillingUp(_ lock: MainloopLock) -> Bool {
        guard let stream = link?.stream, dropLowWater != Int.max else { return false }
        return pa_stream_readable_size(stream) >= dropLowWater
    }

    /// The source the stream records from now (it may have been moved).
    func currentSourceName(_ lock: MainloopLock) -> String {
        guard let stream = link?.stream else { return sourceName }
        return pa_stream_get_device_name(stream).map { String(cString: $0) } ?? sourceName
    }

    /// The timeline frame captured at `time` (CLOCK_MONOTONIC ns): reckoned at the sample rate from
    /// the arrivals of data (`ArrivalLine`: the most prompt of the last seconds'), whose last frame was
    /// captured just before it was sent (a fragment arrives when it is full), so within the source's
    /// latency plus a fragment's scheduling. Before any data has arrived, from the capture position now.
    func frameCaptured(at time: Int64, _ lock: MainloopLock) -> Int64 {
        if let frame = arrivals.frame(at: time) { return frame }
        let seconds = Double(time - monotonicNanoseconds()) / 1e9
        return filler.framePosition + Int64((min(max(seconds, -1e9), 1e9) * Double(format.sampleRate)).rounded())
    }

    // MARK: Loss and reconnection

    /// Releases the failed stream; the timeline keeps its position, the connection stays.
    /// Returns the CLOCK_MONOTONIC nanoseconds at which capture stopped: when the last data arrived
    /// (or, if none ever did, when the failure was seen).
    func detachFailed() -> Int64 {
        withLock { lock in
            endDrain(lock)
            cancelWatchRequest(lock)
            if let old = link {
                link = nil
                PulseConnection.release(old.stream, lock)
            }
            let last = lastDataAt.load(ordering: .relaxed)
            outageSince = last > 0 ? last : failedAt.load(ordering: .relaxed)
            return outageSince ?? 0
        }
    }

    /// One attempt to capture again from the same server and source, on the same mainloop: a new
    /// context if the old one died, then a new stream. On success, owes silence for the time since
    /// `lostAt` (the gap) and resumes capture; returns the gap in frames. Throws the reason the
    /// attempt failed.
    func reconnect(lostAt: Int64) throws(RecorderError) -> Int64 {
        try connection.withLock { lock throws(RecorderError) in
            guard !closed.load(ordering: .acquiring) else {
                throw RecorderError(.invalidState, "the recorder was stopped while reconnecting")
            }
            if !connection.isReady(lock) { try connection.reconnect(lock) }
        }
        let stream = try Self.openStream(on: connection, format: format, source: sourceName,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: requestedQueueBytes, pinned: !ownsConnection).0
        return try connection.withLock { lock throws(RecorderError) -> Int64 in
            guard !closed.load(ordering: .acquiring) else {
                PulseConnection.release(stream, lock)
                throw RecorderError(.invalidState, "the recorder was stopped while reconnecting")
            }
            let elapsed = Double(monotonicNanoseconds() - lostAt) / 1e9
            let gap = Int64((elapsed * Double(format.sampleRate)).rounded())
            filler.insertGap(frames: gap)
            outageSince = nil
            fragmentOffset = 0
            let base = Int64(filler.timelineFrames) * Int64(format.bytesPerFrame)
            failed.store(false, ordering: .releasing)
            cancelWatchRequest(lock)
            install(Link(stream: stream, baseBytes: base), lock)
            return gap
        }
    }

    /// Clears the callbacks, cancels a pending request, disconnects and closes the connection;
    /// afterwards nothing more is delivered and no callback runs. Idempotent.
    func close() {
        let first = withLock { lock -> Bool in
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
            endDrain(lock)
            wake.free(lock)
            cancelWatchRequest(lock)
            if let timer = watchTimer, let api = pa_threaded_mainloop_get_api(connection.mainloop) {
                api.pointee.time_free(timer)
                watchTimer = nil
            }
            if let old = link {
                link = nil
                PulseConnection.release(old.stream, lock)
            }
            return true
        }
        if first && ownsConnection { connection.close() }
    }
}

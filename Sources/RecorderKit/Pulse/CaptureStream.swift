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
/// `resume()` carries on once the consumer has freed a buffer. Only if that queue comes within two
/// fragments of its limit (where libpulse would silently discard what arrives) does it drop the
/// oldest fragment itself: counted, placed, and replaced by silence of the same length.
///
/// Locking: other threads use `withLock` (the mainloop lock). Callbacks already hold it and never
/// block. Apart from `record(to:)`'s position read, only the delivery thread calls in, and no call
/// waits on the mainloop while holding anything else.
final class CaptureStream: @unchecked Sendable {
    // @unchecked Sendable: `link`, `filler`, `fragmentOffset`, `dropThreshold` and the drain fields are
    // touched only under the mainloop lock (callbacks, or `withLock`); the rest are atomics or immutable.
    private struct Link {
        let stream: OpaquePointer
        /// Timeline bytes before this stream's first byte (the server's indices start at 0 per stream).
        let baseBytes: Int64
    }

    private let format: StreamFormat
    private let fragmentBytes: Int
    private let requestedQueueBytes: Int?
    private let dataReady: Semaphore
    private let connection: PulseConnection
    private var link: Link?

    private var filler: BufferFiller
    /// Bytes of the current fragment already taken (the fragment stays peeked until all are taken).
    private var fragmentOffset = 0
    /// libpulse's receive queue at or above this many bytes: drop rather than let libpulse discard.
    private var dropThreshold = Int.max
    /// Set while a stop waits for what the server had captured: the read callback then wakes the
    /// delivery thread at every read, not only when a buffer is full.
    private var drainWaiting = false
    /// The timing request of the drain in progress (cancelled when the drain ends or at close, so its
    /// callback never outlives this object).
    private var timingOperation: OpaquePointer?
    /// The server's answer: its write index for this stream in timeline bytes, or nil if it could not
    /// say. Unset while awaited.
    private var capturedAnswer: Int64??
    /// Stream bytes of the current link taken or dropped by us (the sum of `pa_stream_drop`s): our
    /// count of libpulse's read index, which runs ahead of it when data was skipped unseen.
    private var consumedBytes: Int64 = 0
    /// Watching the server's clock and indices for losses libpulse does not report.
    private var watch: ServerWatch
    /// The mainloop timer that asks the server for its timing (once a second, more often after a
    /// wake-up or while the server's queue is full).
    private var watchTimer: OpaquePointer?
    /// The watch's timing request in flight.
    private var watchOperation: OpaquePointer?
    /// The source resumed; reported after the next answer has placed the suspension's silence.
    private var resumeToReport = false
    /// At the last read callback: the timeline frame up to which data had arrived, and when
    /// (CLOCK_MONOTONIC ns). The frame captured at a given time is reckoned from it.
    private var arrivalFrame: Int64 = 0
    private var arrivalTime: Int64 = 0

    /// Frames lost in capture since the start (written as silence).
    let droppedFrames: FrameCounter
    /// Frames of silence written for reconnection gaps since the start.
    let gapFrames: FrameCounter
    /// Notices for the delivery thread (drops, gaps, moves, suspends).
    let notices: NoticeRing
    /// Set when reading stopped for want of a free buffer; the consumer then calls `resume()`.
    let stalled = Atomic<Bool>(false)
    /// Set when the stream fails or is terminated by the server (server gone, source removed).
    let failed = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds when `failed` was set.
    private let failedAt = Atomic<Int64>(0)
    /// CLOCK_MONOTONIC nanoseconds when data last arrived: the capture timeline ends there if the
    /// server goes away, so a reconnection gap is measured from it.
    private let lastDataAt = Atomic<Int64>(0)
    /// Set by `close`; read by callbacks, which then do nothing.
    private let closed = Atomic<Bool>(false)
    private let pool: BufferPool
    /// The source recorded from (the server's default resolved to its name when connecting).
    let sourceName: String
    /// The server connected to first, as libpulse names it.
    let serverName: String

    init(format: StreamFormat, source: String?, server: String?, clientName: String, fragmentBytes: Int,
         maxQueueBytes: Int?, pool: BufferPool, dataReady: Semaphore) throws(RecorderError) {
        let connection = try PulseConnection(server: server, clientName: clientName)
        let opened: (OpaquePointer, String)
        do {
            opened = try Self.openStream(on: connection, format: format, source: source,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: maxQueueBytes)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
        self.format = format
        self.fragmentBytes = fragmentBytes
        requestedQueueBytes = maxQueueBytes
        self.dataReady = dataReady
        self.pool = pool
        filler = BufferFiller(pool: pool, bytesPerFrame: format.bytesPerFrame, dataReady: dataReady)
        droppedFrames = filler.droppedFrames
        gapFrames = filler.gapFrames
        notices = filler.notices
        serverName = connection.serverName
        sourceName = opened.1
        watch = ServerWatch(format: format, fragmentBytes: fragmentBytes)
        connection.withLock {
            install(Link(stream: opened.0, baseBytes: 0))
            startWatchTimer()
        }
    }

    deinit {
        assert(closed.load(ordering: .acquiring), "CaptureStream from '\(sourceName)' deinitialized without close()")
        close()
    }

    /// Creates a corked record stream and waits until it is ready. No callback touches `self` yet.
    private static func openStream(on connection: PulseConnection, format: StreamFormat, source: String?,
                                   fragmentBytes: Int, maxQueueBytes: Int?) throws(RecorderError) -> (OpaquePointer, String) {
        if let source, !connection.hasSource(named: source) {
            throw missingSource(source, on: connection)
        }
        connection.lock()
        let stream: OpaquePointer
        do throws(RecorderError) {
            stream = try connection.newStream(format)  // until `install`, its state callback only wakes the wait below
        } catch {
            connection.unlock()
            throw error
        }

        // ~one buffer per fragment, so buffers fill at the designed rate and meters move smoothly.
        var attributes = pa_buffer_attr(maxlength: maxQueueBytes.map { UInt32($0) } ?? UInt32.max,
                                        tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragmentBytes))
        var failure: String?
        var failureCause = connection.lastErrorCode
        var failureCode = RecorderError.Code.streamFailed
        // No such source, or a name the server rejects as malformed (which names no source either).
        func sourceIsMissing() -> Bool {
            let code = pa_context_errno(connection.context)
            return code == Int32(PA_ERR_NOENTITY.rawValue) || (source != nil && code == Int32(PA_ERR_INVALID.rawValue))
        }
        // Corked: no data flows until `install` has set the read callback and uncorks.
        let flags = PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_START_CORKED.rawValue
        if pa_stream_connect_record(stream, source, &attributes, pa_stream_flags_t(flags)) < 0 {
            if sourceIsMissing() { failureCode = .sourceNotFound }
            failure = connection.lastError
            failureCause = connection.lastErrorCode
        } else {
            while true {
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_READY { break }
                if PA_STREAM_IS_GOOD(state) == 0 {
                    if sourceIsMissing() { failureCode = .sourceNotFound }
                    failure = connection.lastError
                    failureCause = connection.lastErrorCode
                    break
                }
                pa_threaded_mainloop_wait(connection.mainloop)
            }
        }
        let name = failure == nil ? pa_stream_get_device_name(stream).map { String(cString: $0) } ?? source ?? "" : ""
        if failure != nil {
            pa_stream_set_state_callback(stream, nil, nil)
            if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
            pa_stream_unref(stream)
        }
        connection.unlock()
        if let failure {
            if failureCode == .sourceNotFound, let source {
                throw missingSource(source, on: connection)
            }
            throw RecorderError(failureCode,
                "cannot record from \(source.map { "source '\($0)'" } ?? "the default source") on "
                + "\(connection.serverName): \(failure); check the source with `pactl list short sources`",
                underlying: failureCause)
        }
        return (stream, name)
    }

    /// `.sourceNotFound` for `source`, listing the sources the server has.
    private static func missingSource(_ source: String, on connection: PulseConnection) -> RecorderError {
        let available = connection.sources().map(\.name).joined(separator: ", ")
        return RecorderError(.sourceNotFound,
            "no capture source named '\(source)' on \(connection.serverName); available sources: "
            + "\(available.isEmpty ? "none" : available) (list them with `pactl list short sources`)")
    }

    /// Makes `new` current: sets the callbacks and uncorks. Call with the lock held.
    private func install(_ new: Link) {
        let stream = new.stream
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { stream, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                capture.failedAt.store(monotonicNanoseconds(), ordering: .relaxed)
                capture.failed.store(true, ordering: .releasing)
                capture.releaseFailedLink(stream)
                capture.dataReady.post()
            }
        }, me)
        pa_stream_set_read_callback(stream, { stream, _, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            let now = monotonicNanoseconds()
            capture.lastDataAt.store(now, ordering: .relaxed)
            capture.arrivalFrame = capture.arrivedFrames
            capture.arrivalTime = now
            capture.readAvailable(stream!)
            if capture.drainWaiting { capture.dataReady.post() }
        }, me)
        pa_stream_set_moved_callback(stream, { _, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            capture.notices.push(CaptureNotice(kind: .moved, frame: capture.filler.timelineFrames, count: 0))
            capture.dataReady.post()
        }, me)
        pa_stream_set_suspended_callback(stream, { stream, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            let suspended = pa_stream_is_suspended(stream) > 0
            if suspended {
                capture.watch.sawSuspension()
            } else if let timer = capture.watchTimer, capture.watch.mayOweSilence(now: monotonicNanoseconds()) {
                // The resume is reported once the silence of the suspension is in place (next answer).
                let consumed = capture.consumedBytes + Int64(pa_stream_readable_size(stream))
                capture.watch.sawResume(tail: consumed)
                capture.resumeToReport = true
                pa_context_rttime_restart(capture.connection.context, timer, pa_rtclock_now())
                return
            }
            capture.notices.push(CaptureNotice(kind: .suspended, frame: capture.filler.timelineFrames,
                                               count: suspended ? 1 : 0))
            capture.dataReady.post()
        }, me)
        if let attributes = pa_stream_get_buffer_attr(stream)?.pointee {
            let limit = Int(attributes.maxlength)
            dropThreshold = limit > 4 * fragmentBytes ? limit - 2 * fragmentBytes : max(fragmentBytes, limit / 2)
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

    /// Clears a stream's callbacks, disconnects and releases it. Call with the lock held.
    private static func release(_ stream: OpaquePointer) {
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_moved_callback(stream, nil, nil)
        pa_stream_set_suspended_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
        pa_stream_unref(stream)
    }

    /// The installed stream failed: forget it and drop our reference at once, inside libpulse's own
    /// teardown. When a connection dies, libpulse fails its streams and then frees its shared memory,
    /// and that waits (on the mainloop thread, holding the lock) until every block read with
    /// `pa_stream_peek` is released, which happens when the stream is dropped or freed. A stream
    /// still held with a fragment peeked (capture stalled for want of a buffer) deadlocked the
    /// recorder: the mainloop thread waited for the block, the delivery thread for the lock. What
    /// was left of that fragment is lost with the rest of libpulse's queue for the dead stream.
    /// Mainloop thread, lock held (the state callback).
    private func releaseFailedLink(_ stream: OpaquePointer?) {
        guard let current = link, current.stream == stream else { return }
        link = nil
        fragmentOffset = 0
        Self.release(current.stream)
    }

    /// Runs `body` with the mainloop lock held. Never call it from a libpulse callback.
    func withLock<T>(_ body: () -> T) -> T { connection.withLock(body) }

    /// True while a stream is installed (false during an outage, or after `close`).
    var isConnected: Bool { withLock { link != nil } }

    /// Frames received since the stream started, dropped ones included. Call within `withLock`.
    var framePosition: Int64 { filler.framePosition }

    /// CLOCK_MONOTONIC ns at which the current outage's gap begins (the last data before the stream
    /// failed), from `detachFailed` until `reconnect` writes the gap; nil otherwise. Under the lock.
    private var outageSince: Int64?

    /// Where this moment stands on the recording's timeline: the frame the next data will have (silence
    /// still owed for time already past, a reconnection's gap or a loss, comes before it), or during an
    /// outage the frame this moment will have once the reconnection writes the gap (the gap runs from
    /// the last data to the reconnection, at the stream's rate). A pause asked while the server is away
    /// is so placed in the gap, and a resume just after the reconnection after it, so the time away
    /// is left out of the file where it was paused, as any paused time is. Call within `withLock`.
    var positionNow: Int64 {
        guard let outageSince else { return filler.timelineFrames }
        let elapsed = Double(max(0, monotonicNanoseconds() - outageSince)) / 1e9
        return filler.timelineFrames + Int64((elapsed * Double(format.sampleRate)).rounded(.down))
    }

    /// The source the stream records from now (it may have been moved). Call within `withLock`.
    var currentSourceName: String {
        guard let stream = link?.stream else { return sourceName }
        return pa_stream_get_device_name(stream).map { String(cString: $0) } ?? sourceName
    }

    /// Reads what libpulse holds for us until the buffers hold every frame before `frame` (or
    /// libpulse has nothing more), then hands on the partly filled buffer and returns where the
    /// recording ends: at the last frame taken, so at or past `frame` (less only if the data stops
    /// short of it), and where the next recording starts, so none falls between. Returns nil when it stopped
    /// for want of a free buffer (deliver one, then call again): a consumer slower than real time
    /// never empties libpulse's queue, so the cut is at a fixed frame, not at "queue empty". Call
    /// within `withLock`, from a thread that is not the mainloop's.
    func flush(upTo frame: Int64) -> Int64? {
        let complete = link.map { readAvailable($0.stream) } ?? filler.writeOwedSilence()
        guard complete || filler.framePosition >= frame else { return nil }
        filler.handOff()
        return filler.framePosition
    }

    /// The timeline frame up to which data has arrived here: taken into buffers or waiting in
    /// libpulse's queue. Call within `withLock`.
    var arrivedFrames: Int64 {
        let queued = link.map { Int64(pa_stream_readable_size($0.stream)) - Int64(fragmentOffset) } ?? 0
        return (Int64(filler.timelineFrames) * Int64(format.bytesPerFrame) + queued) / Int64(format.bytesPerFrame)
    }

    /// The timeline frame captured at `time` (CLOCK_MONOTONIC ns): reckoned at the sample rate from
    /// the last arrival of data, whose last frame was captured just before it was sent (a fragment
    /// arrives when it is full), so within the source's latency plus a fragment's scheduling. Before
    /// any data has arrived, from the capture position now. Call within `withLock`.
    func frameCaptured(at time: Int64) -> Int64 {
        let (frame, when) = arrivalTime > 0 ? (arrivalFrame, arrivalTime) : (filler.framePosition, monotonicNanoseconds())
        return frame + Int64((Double(time - when) * Double(format.sampleRate) / 1e9).rounded())
    }

    // MARK: Draining at a stop (AudioQueueFlush)

    /// Asks the server how much it has captured for this stream; the answer comes back on the
    /// mainloop thread, which posts `dataReady`, and `drainStatus()` tells when it has all arrived.
    /// Nothing waits here. Returns false when there is no stream to ask. Call within `withLock`.
    func requestCapturedPosition() -> Bool {
        endDrain()
        guard let link, PA_STREAM_IS_GOOD(pa_stream_get_state(link.stream)) != 0 else { return false }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let operation = pa_stream_update_timing_info(link.stream, { stream, success, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            capture.timingAnswered(stream!, success: success != 0)
        }, me) else { return false }
        timingOperation = operation
        capturedAnswer = .none
        drainWaiting = true
        return true
    }

    /// On the mainloop thread, lock held: keeps the server's write index for this stream.
    private func timingAnswered(_ stream: OpaquePointer, success: Bool) {
        guard drainWaiting, let link, link.stream == stream else { return }
        if success, let info = pa_stream_get_timing_info(stream)?.pointee, info.write_index_corrupt == 0 {
            capturedAnswer = .some(link.baseBytes + info.write_index + watch.silenceOutsideIndices)
        } else {
            capturedAnswer = .some(nil)
        }
        dataReady.post()
    }

    /// Where the drain stands: nil while the server's answer or its data is still on the way; else
    /// the timeline frame up to which the server had captured when asked (`.some(nil)`: it could not
    /// say, or the stream is gone). Call within `withLock`.
    func drainStatus() -> Int64?? {
        guard link != nil, !failed.load(ordering: .acquiring) else { return .some(nil) }
        guard case .some(let answer) = capturedAnswer else { return nil }
        guard let target = answer else { return .some(nil) }
        let frame = target / Int64(format.bytesPerFrame)
        return arrivedFrames >= frame ? .some(frame) : nil
    }

    /// Ends a drain: the read callback stops waking the delivery thread at every read, and the timing
    /// request is cancelled if still out. Call within `withLock`.
    func endDrain() {
        drainWaiting = false
        capturedAnswer = nil
        if let operation = timingOperation {
            if pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_operation_cancel(operation) }
            pa_operation_unref(operation)
            timingOperation = nil
        }
    }

    /// Called by the consumer after it freed a buffer, if `stalled` was set: reads on, under the lock.
    func resume() {
        withLock {
            if let link { readAvailable(link.stream) } else { _ = filler.writeOwedSilence() }
        }
    }

    /// Takes fragments until libpulse has nothing readable or no buffer is free (returns false then).
    /// A hole (nil data) becomes silence of its length and is counted as dropped. When stalled with
    /// libpulse's queue near its limit, drops the oldest fragment (counted, silence owed).
    @discardableResult
    private func readAvailable(_ stream: OpaquePointer) -> Bool {
        guard !closed.load(ordering: .acquiring) else { return true }
        while true {
            if readWhileBuffersAreFree(stream) {
                stalled.store(false, ordering: .releasing)
                return true
            }
            // No free buffer. Announce the stall, then look again: the consumer frees a buffer and then
            // looks at `stalled` (with the same fences), so one of the two sides sees the other and a
            // freed buffer is never missed (the consumer resumes us, or we read on here).
            stalled.store(true, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if pool.free.isEmptyForConsumer { return stall(stream) }
        }
    }

    /// Takes fragments while buffers are free; false when it stopped for want of one.
    private func readWhileBuffersAreFree(_ stream: OpaquePointer) -> Bool {
        insertDueLoss()
        guard filler.writeOwedSilence() else { return false }
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0 else {
                failed.store(true, ordering: .releasing)
                dataReady.post()
                return true
            }
            if length == 0 { break }
            insertDueLoss()
            if watch.isHolding(at: consumedBytes + Int64(fragmentOffset)) { return true }
            // Up to a loss found inside this fragment, if any: the loop inserts it and goes on.
            let wanted = min(length - fragmentOffset, watch.bytesUntilLoss(from: consumedBytes + Int64(fragmentOffset)))
            let start = data.map { $0 + fragmentOffset }
            let taken = filler.append(start, wanted)
            fragmentOffset += taken
            guard taken == wanted else { return false }
            if fragmentOffset < length { continue }
            fragmentOffset = 0
            consumedBytes += Int64(length)
            pa_stream_drop(stream)
        }
        return true
    }

    /// Inserts the silence of a loss the watch placed at or before where reading stands.
    private func insertDueLoss() {
        while let loss = watch.takeLoss(at: consumedBytes + Int64(fragmentOffset)) {
            let frames = loss.bytes / Int64(format.bytesPerFrame)
            switch loss.kind {
            case .dropped: filler.drop(Int(loss.bytes))
            default: filler.insertGap(frames: frames, kind: loss.kind)
            }
            dataReady.post()
        }
    }

    /// No free buffer: leave data queued, unless the queue is about to overflow; then drop from its head.
    private func stall(_ stream: OpaquePointer) -> Bool {
        while pa_stream_readable_size(stream) >= dropThreshold {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0, length > 0 else { break }
            filler.drop(length - fragmentOffset)
            fragmentOffset = 0
            consumedBytes += Int64(length)
            pa_stream_drop(stream)
            insertDueLoss()
        }
        return false
    }

    // MARK: Watching the server's clock

    /// Starts the watch timer on the mainloop. Call with the lock held, once.
    private func startWatchTimer() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        watchTimer = pa_context_rttime_new(connection.context, pa_rtclock_now() + ServerWatch.intervalMicroseconds,
                                           { _, event, _, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            capture.watchTick(event!)
        }, me)
    }

    /// On the mainloop thread: asks the server for its timing (unless a request is out) and sets the
    /// next tick.
    private func watchTick(_ event: OpaquePointer) {
        guard !closed.load(ordering: .acquiring) else { return }
        let now = monotonicNanoseconds()
        watch.ticked(at: now)
        if let operation = watchOperation, pa_operation_get_state(operation) != PA_OPERATION_RUNNING {
            pa_operation_unref(operation)
            watchOperation = nil
        }
        if watchOperation == nil, let link, pa_stream_get_state(link.stream) == PA_STREAM_READY {
            let me = Unmanaged.passUnretained(self).toOpaque()
            watch.asking(at: now, boot: bootNanoseconds())
            watchOperation = pa_stream_update_timing_info(link.stream, { stream, success, userdata in
                let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
                capture.watchAnswered(stream!, success: success != 0)
            }, me)
        }
        pa_context_rttime_restart(connection.context, event, pa_rtclock_now() + watch.nextTickMicroseconds)
    }

    /// Cancels the watch's timing request, if one is out. Call with the lock held.
    private func cancelWatchRequest() {
        if resumeToReport {  // its answer will not come: report the resume now
            resumeToReport = false
            notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: 0))
            dataReady.post()
        }
        guard let operation = watchOperation else { return }
        if pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_operation_cancel(operation) }
        pa_operation_unref(operation)
        watchOperation = nil
    }

    /// On the mainloop thread, lock held: compares the server's account with what arrived, and places
    /// any loss it shows.
    private func watchAnswered(_ stream: OpaquePointer, success: Bool) {
        guard !closed.load(ordering: .acquiring), let link, link.stream == stream else { return }
        var found = false
        if success, let info = pa_stream_get_timing_info(stream)?.pointee,
           info.write_index_corrupt == 0, info.read_index_corrupt == 0 {
            found = watch.answered(writeIndex: info.write_index, readIndex: info.read_index,
                                   sourceMicroseconds: Int64(clamping: info.source_usec),
                                   consumed: consumedBytes, queued: Int64(pa_stream_readable_size(stream)),
                                   reading: consumedBytes + Int64(fragmentOffset), suspended: pa_stream_is_suspended(stream) > 0)
        } else {
            watch.answerFailed()  // nothing to place: reading must not wait for it
        }
        // Reading may have waited at the watch's hold, or a loss is due now.
        readAvailable(stream)
        // Reported whatever the answer: a `resumed` that never comes would leave a waiter waiting.
        if resumeToReport {
            resumeToReport = false
            notices.push(CaptureNotice(kind: .suspended, frame: filler.timelineFrames, count: 0))
            found = true
        }
        if found { dataReady.post() }
    }

    // MARK: Loss and reconnection

    /// Releases the failed stream; the timeline keeps its position, the connection stays.
    /// Returns the CLOCK_MONOTONIC nanoseconds at which capture stopped: when the last data arrived
    /// (or, if none ever did, when the failure was seen).
    func detachFailed() -> Int64 {
        withLock {
            endDrain()
            cancelWatchRequest()
            if let old = link {
                link = nil
                Self.release(old.stream)
            }
        }
        let last = lastDataAt.load(ordering: .relaxed)
        let since = last > 0 ? last : failedAt.load(ordering: .relaxed)
        withLock { outageSince = since }
        return since
    }

    /// One attempt to capture again from the same server and source, on the same mainloop: a new
    /// context if the old one died, then a new stream. On success, owes silence for the time since
    /// `lostAt` (the gap) and resumes capture; returns the gap in frames. Throws the reason the
    /// attempt failed.
    func reconnect(lostAt: Int64) throws(RecorderError) -> Int64 {
        try withLockThrowing { () throws(RecorderError) in
            guard !closed.load(ordering: .acquiring) else {
                throw RecorderError(.invalidState, "the recorder was stopped while reconnecting")
            }
            if !connection.isReady { try connection.reconnect() }
        }
        let stream = try Self.openStream(on: connection, format: format, source: sourceName,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: requestedQueueBytes).0
        return try withLockThrowing { () throws(RecorderError) -> Int64 in
            guard !closed.load(ordering: .acquiring) else {
                Self.release(stream)
                throw RecorderError(.invalidState, "the recorder was stopped while reconnecting")
            }
            let elapsed = Double(monotonicNanoseconds() - lostAt) / 1e9
            let gap = Int64((elapsed * Double(format.sampleRate)).rounded())
            filler.insertGap(frames: gap)
            outageSince = nil
            fragmentOffset = 0
            let base = Int64(filler.timelineFrames) * Int64(format.bytesPerFrame)
            failed.store(false, ordering: .releasing)
            cancelWatchRequest()
            install(Link(stream: stream, baseBytes: base))
            return gap
        }
    }

    private func withLockThrowing<T>(_ body: () throws(RecorderError) -> T) throws(RecorderError) -> T {
        try connection.withLock(body)
    }

    /// Clears the callbacks, cancels a pending request, disconnects and closes the connection;
    /// afterwards nothing more is delivered and no callback runs. Idempotent.
    func close() {
        let first = withLock { () -> Bool in
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
            endDrain()
            cancelWatchRequest()
            if let timer = watchTimer, let api = pa_threaded_mainloop_get_api(connection.mainloop) {
                api.pointee.time_free(timer)
                watchTimer = nil
            }
            if let old = link {
                link = nil
                Self.release(old.stream)
            }
            return true
        }
        if first { connection.close() }
    }
}

/// CLOCK_BOOTTIME in nanoseconds (runs on while the machine sleeps).
func bootNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_BOOTTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

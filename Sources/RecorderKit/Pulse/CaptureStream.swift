// The record stream: libpulse's read callback copies into the rotating buffers and hands full ones on.
import CPulse
import Glibc
import Synchronization

/// A PulseAudio record stream feeding a `BufferPool`, with its own connection, which it can replace
/// when the server or the source comes back after a loss (`reconnect`).
///
/// The read callback runs on the mainloop thread with the lock held. It only copies bytes into the
/// buffer being filled, takes the next free buffer when one is full, and posts `dataReady`:
/// no allocation, no disk, no user code. With no free buffer it stops where it is and leaves the rest
/// in libpulse's receive queue (`pa_stream_peek` returns the same fragment until it is dropped);
/// `resume()` carries on once the consumer has freed a buffer. Only if that queue comes within two
/// fragments of its limit (where libpulse would silently discard what arrives) does it drop the
/// oldest fragment itself: counted, placed, and replaced by silence of the same length.
///
/// Locking: other threads use `withLock`, which takes `linkLock` and then the current connection's
/// mainloop lock. Callbacks already hold the mainloop lock and never take `linkLock`.
final class CaptureStream: @unchecked Sendable {
    // @unchecked Sendable: `link` changes only under `linkLock`; `filler` and `fragmentOffset` are
    // touched only under the current link's mainloop lock (callbacks, or `withLock`), or under
    // `linkLock` while there is no link and so no mainloop thread; the rest are atomics or immutable.
    private struct Link {
        let connection: PulseConnection
        let stream: OpaquePointer
        /// Timeline bytes before this stream's first byte (the server's indices start at 0 per stream).
        let baseBytes: Int64
    }

    private let format: StreamFormat
    private let server: String?
    private let clientName: String
    private let fragmentBytes: Int
    private let requestedQueueBytes: Int?
    private let dataReady: Semaphore
    private let linkLock = PosixMutex()
    private var link: Link?

    private var filler: BufferFiller
    /// Bytes of the current fragment already taken (the fragment stays peeked until all are taken).
    private var fragmentOffset = 0
    /// libpulse's receive queue at or above this many bytes: drop rather than let libpulse discard.
    private var dropThreshold = Int.max
    /// Set while a stopping thread waits for the data the server has sent: the read callback wakes it.
    private var drainWaiting = false

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
    /// The source recorded from (the server's default resolved to its name when connecting).
    let sourceName: String
    /// The server connected to first, as libpulse names it.
    let serverName: String

    init(format: StreamFormat, source: String?, server: String?, clientName: String, fragmentBytes: Int,
         maxQueueBytes: Int?, pool: BufferPool, dataReady: Semaphore) throws(RecorderError) {
        self.format = format
        self.server = server
        self.clientName = clientName
        self.fragmentBytes = fragmentBytes
        requestedQueueBytes = maxQueueBytes
        self.dataReady = dataReady
        filler = BufferFiller(pool: pool, bytesPerFrame: format.bytesPerFrame, dataReady: dataReady)
        droppedFrames = filler.droppedFrames
        gapFrames = filler.gapFrames
        notices = filler.notices
        let connection = try PulseConnection(server: server, clientName: clientName)
        serverName = connection.serverName
        let opened: (OpaquePointer, String)
        do {
            opened = try Self.openStream(on: connection, format: format, source: source,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: maxQueueBytes)
        } catch {
            connection.close()
            throw error
        }
        sourceName = opened.1
        install(Link(connection: connection, stream: opened.0, baseBytes: 0))
    }

    /// Creates a corked record stream and waits until it is ready. No callback touches `self` yet.
    private static func openStream(on connection: PulseConnection, format: StreamFormat, source: String?,
                                   fragmentBytes: Int, maxQueueBytes: Int?) throws(RecorderError) -> (OpaquePointer, String) {
        if let source, !connection.hasSource(named: source) {
            throw missingSource(source, on: connection)
        }
        var spec = pa_sample_spec(format: PA_SAMPLE_S16BE, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channelCount))
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(format.channelCount), PA_CHANNEL_MAP_DEFAULT)
        connection.lock()
        guard pa_sample_spec_valid(&spec) != 0,
              let stream = pa_stream_new(connection.context, "recorder", &spec, &map) else {
            let reason = connection.lastError
            connection.unlock()
            throw RecorderError(.invalidFormat,
                "the server refused the format s16be \(format.channelCount) ch \(format.sampleRate) Hz: \(reason); "
                + "choose another rate or channel count")
        }
        // Until `install`, the state callback only wakes the thread waiting below.
        pa_stream_set_state_callback(stream, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(connection.mainloop))

        // ~one buffer per fragment, so buffers fill at the designed rate and meters move smoothly.
        var attributes = pa_buffer_attr(maxlength: maxQueueBytes.map { UInt32($0) } ?? UInt32.max,
                                        tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragmentBytes))
        var failure: String?
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
        } else {
            while true {
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_READY { break }
                if PA_STREAM_IS_GOOD(state) == 0 {
                    if sourceIsMissing() { failureCode = .sourceNotFound }
                    failure = connection.lastError
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
                + "\(connection.serverName): \(failure); check the source with `pactl list short sources`")
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

    /// Makes `link` current: sets the callbacks and uncorks. Call with `linkLock` held (or from init).
    private func install(_ new: Link) {
        new.connection.withLock {
            let stream = new.stream
            let me = Unmanaged.passUnretained(self).toOpaque()
            pa_stream_set_state_callback(stream, { stream, userdata in
                let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                    capture.failedAt.store(monotonicNanoseconds(), ordering: .relaxed)
                    capture.failed.store(true, ordering: .releasing)
                    capture.dataReady.post()
                }
                pa_threaded_mainloop_signal(capture.mainloopForCallbacks, 0)
            }, me)
            pa_stream_set_read_callback(stream, { stream, _, userdata in
                let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
                capture.lastDataAt.store(monotonicNanoseconds(), ordering: .relaxed)
                capture.readAvailable(stream!)
                if capture.drainWaiting { pa_threaded_mainloop_signal(capture.mainloopForCallbacks, 0) }
            }, me)
            pa_stream_set_moved_callback(stream, { _, userdata in
                let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
                capture.notices.push(CaptureNotice(kind: .moved, frame: capture.filler.timelineFrames, count: 0))
                capture.dataReady.post()
            }, me)
            pa_stream_set_suspended_callback(stream, { stream, userdata in
                let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
                capture.notices.push(CaptureNotice(kind: .suspended, frame: capture.filler.timelineFrames,
                                                   count: pa_stream_is_suspended(stream) > 0 ? 1 : 0))
                capture.dataReady.post()
            }, me)
            if let attributes = pa_stream_get_buffer_attr(stream)?.pointee {
                let limit = Int(attributes.maxlength)
                dropThreshold = limit > 4 * fragmentBytes ? limit - 2 * fragmentBytes : max(fragmentBytes, limit / 2)
            }
            link = new
            mainloopForCallbacks = new.connection.mainloop
            if let operation = pa_stream_cork(stream, 0, nil, nil) { pa_operation_unref(operation) }
        }
    }

    /// The mainloop of the installed link, for callbacks to signal: set under that mainloop's lock,
    /// read by callbacks (which run holding it).
    private var mainloopForCallbacks: OpaquePointer?

    /// Runs `body` with the stream's locks held (`linkLock`, then the mainloop lock if connected).
    func withLock<T>(_ body: () -> T) -> T {
        linkLock.lock()
        defer { linkLock.unlock() }
        guard let connection = link?.connection else { return body() }
        return connection.withLock(body)
    }

    /// True while a stream is installed (false during an outage, or after `close`).
    var isConnected: Bool { withLock { link != nil } }

    /// Frames received since the stream started, dropped ones included. Call within `withLock`.
    var framePosition: Int64 { filler.framePosition }

    /// The source the stream records from now (it may have been moved). Call within `withLock`.
    var currentSourceName: String {
        guard let stream = link?.stream else { return sourceName }
        return pa_stream_get_device_name(stream).map { String(cString: $0) } ?? sourceName
    }

    /// Reads what libpulse holds for us, then hands on the partly filled buffer. Call within
    /// `withLock`, from a thread that is not the mainloop's. Returns false when it stopped for want of
    /// a free buffer (call again once one is freed); `framePosition` is then where the taken data ends.
    func drainAndFlush() -> Bool {
        let complete = link.map { readAvailable($0.stream) } ?? filler.writeOwedSilence()
        filler.handOff()
        return complete
    }

    /// Asks the server how much it has captured for this stream, then waits (up to `timeout` seconds)
    /// until all of it has arrived here, as the read callback takes it. Returns the timeline frame up
    /// to which the server had captured when asked, or nil if it could not say. Call within
    /// `withLock`, from a thread that is not the mainloop's.
    func awaitServerCapturedFrames(timeout: Double) -> Int64? {
        guard let link, PA_STREAM_IS_GOOD(pa_stream_get_state(link.stream)) != 0 else { return nil }
        let connection = link.connection
        let mainloop = connection.mainloop
        connection.wait(for: pa_stream_update_timing_info(link.stream, { _, _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop)))
        guard let info = pa_stream_get_timing_info(link.stream)?.pointee, info.write_index_corrupt == 0 else {
            return nil
        }
        let target = link.baseBytes + info.write_index
        // A one-shot timer on the mainloop bounds the wait; both it and the read callback wake us.
        final class Deadline {
            let mainloop: OpaquePointer
            var expired = false
            init(mainloop: OpaquePointer) { self.mainloop = mainloop }
        }
        let deadline = Deadline(mainloop: mainloop)
        let timer = pa_context_rttime_new(connection.context, pa_rtclock_now() + pa_usec_t(timeout * 1_000_000),
                                          { _, _, _, userdata in
            let deadline = Unmanaged<Deadline>.fromOpaque(userdata!).takeUnretainedValue()
            deadline.expired = true
            pa_threaded_mainloop_signal(deadline.mainloop, 0)
        }, Unmanaged.passUnretained(deadline).toOpaque())
        drainWaiting = true
        func received() -> Int64 {
            Int64(filler.timelineFrames) * Int64(format.bytesPerFrame)
                + Int64(pa_stream_readable_size(link.stream)) - Int64(fragmentOffset)
        }
        withExtendedLifetime(deadline) {
            while received() < target && !deadline.expired
                    && PA_STREAM_IS_GOOD(pa_stream_get_state(link.stream)) != 0 {
                pa_threaded_mainloop_wait(mainloop)
            }
            if let timer { pa_threaded_mainloop_get_api(mainloop).pointee.time_free(timer) }
        }
        drainWaiting = false
        return target / Int64(format.bytesPerFrame)
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
        guard filler.writeOwedSilence() else { return stall(stream) }
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0 else {
                failed.store(true, ordering: .releasing)
                dataReady.post()
                return true
            }
            if length == 0 { break }
            let start = data.map { $0 + fragmentOffset }
            fragmentOffset += filler.append(start, length - fragmentOffset)
            guard fragmentOffset == length else { return stall(stream) }
            fragmentOffset = 0
            pa_stream_drop(stream)
        }
        stalled.store(false, ordering: .releasing)
        return true
    }

    /// No free buffer: leave data queued, unless the queue is about to overflow; then drop from its head.
    private func stall(_ stream: OpaquePointer) -> Bool {
        stalled.store(true, ordering: .releasing)
        while pa_stream_readable_size(stream) >= dropThreshold {
            var data: UnsafeRawPointer?
            var length = 0
            guard pa_stream_peek(stream, &data, &length) == 0, length > 0 else { break }
            filler.drop(length - fragmentOffset)
            fragmentOffset = 0
            pa_stream_drop(stream)
        }
        return false
    }

    // MARK: Loss and reconnection

    /// Disconnects the failed stream and its connection; the timeline keeps its position.
    /// Returns the CLOCK_MONOTONIC nanoseconds at which capture stopped: when the last data arrived
    /// (or, if none ever did, when the failure was seen).
    func detachFailed() -> Int64 {
        linkLock.lock()
        defer { linkLock.unlock() }
        if let old = link {
            link = nil
            Self.closeLink(old)
        }
        let last = lastDataAt.load(ordering: .relaxed)
        return last > 0 ? last : failedAt.load(ordering: .relaxed)
    }

    /// One attempt to connect again to the same server and source. On success, owes silence for the
    /// time since `lostAt` (the gap) and resumes capture; returns the gap in frames. Throws the reason
    /// the attempt failed.
    func reconnect(lostAt: Int64) throws(RecorderError) -> Int64 {
        let connection = try PulseConnection(server: server, clientName: clientName)
        let stream: OpaquePointer
        do {
            stream = try Self.openStream(on: connection, format: format, source: sourceName,
                                         fragmentBytes: fragmentBytes, maxQueueBytes: requestedQueueBytes).0
        } catch {
            connection.close()
            throw error
        }
        linkLock.lock()
        defer { linkLock.unlock() }
        guard !closed.load(ordering: .acquiring) else {
            Self.closeLink(Link(connection: connection, stream: stream, baseBytes: 0))
            throw RecorderError(.invalidState, "the recorder was stopped while reconnecting")
        }
        let elapsed = Double(monotonicNanoseconds() - lostAt) / 1e9
        let gap = Int64((elapsed * Double(format.sampleRate)).rounded())
        filler.insertGap(frames: gap)
        fragmentOffset = 0
        let base = Int64(filler.timelineFrames) * Int64(format.bytesPerFrame)
        failed.store(false, ordering: .releasing)
        install(Link(connection: connection, stream: stream, baseBytes: base))
        return gap
    }

    private static func closeLink(_ link: Link) {
        link.connection.withLock {
            pa_stream_set_read_callback(link.stream, nil, nil)
            pa_stream_set_moved_callback(link.stream, nil, nil)
            pa_stream_set_suspended_callback(link.stream, nil, nil)
            pa_stream_set_state_callback(link.stream, nil, nil)
            if PA_STREAM_IS_GOOD(pa_stream_get_state(link.stream)) != 0 { pa_stream_disconnect(link.stream) }
            pa_stream_unref(link.stream)
        }
        link.connection.close()
    }

    /// Clears the callbacks, disconnects and closes the connection; afterwards nothing more is
    /// delivered. Idempotent.
    func close() {
        linkLock.lock()
        defer { linkLock.unlock() }
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let old = link {
            link = nil
            Self.closeLink(old)
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// A plain pthread mutex, for locks taken and released in different scopes.
final class PosixMutex: @unchecked Sendable {
    // @unchecked Sendable: pthread mutexes are made to be shared between threads; the pointer is fixed.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// A value behind a pthread mutex. Synchronization's Mutex would do the same, but ThreadSanitizer cannot
/// see its futex-based locking (the standard library is not instrumented) and reports false races, which
/// would hide real ones in the test command's TSan pass.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, while `mutex` is held.
    private let mutex = PosixMutex()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}

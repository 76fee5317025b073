// The record stream: libpulse's read callback copies into the rotating buffers and hands full ones on.
import CPulse
import Glibc
import Synchronization

/// A connected PulseAudio record stream feeding a `BufferPool`.
///
/// The read callback runs on the mainloop thread with the lock held. It only copies bytes into the
/// buffer being filled, takes the next free buffer when one is full, and posts `dataReady`:
/// no allocation, no disk, no user code. With no free buffer it stops where it is and leaves the rest
/// in libpulse's receive queue (`pa_stream_peek` returns the same fragment until it is dropped);
/// `resume()` carries on once the consumer has freed a buffer. Nothing is thrown away here.
final class CaptureStream: @unchecked Sendable {
    // @unchecked Sendable: `stream` and `filler` are only touched on the mainloop thread or under the
    // mainloop lock; the counters are atomics.
    private let connection: PulseConnection
    private let stream: OpaquePointer
    private let dataReady: Semaphore

    private var filler: BufferFiller

    /// Frames the server reported lost (holes in the record stream), since the start.
    let droppedFrames: FrameCounter
    /// Bytes of the current fragment already taken (the fragment stays peeked until all are taken).
    private var fragmentOffset = 0
    /// Set when reading stopped for want of a free buffer; the consumer then calls `resume()`.
    let stalled = Atomic<Bool>(false)
    private var closed = false
    /// Set when the stream fails or is terminated by the server (server gone, source removed).
    let failed = Atomic<Bool>(false)
    /// Server-side overruns reported by PulseAudio's overflow callback.
    let overflows = Atomic<Int>(0)
    /// The source actually recorded from (the server's default resolved to its name).
    private(set) var sourceName = ""

    init(connection: PulseConnection, format: StreamFormat, source: String?, fragmentBytes: Int,
         pool: BufferPool, dataReady: Semaphore) throws(RecorderError) {
        self.connection = connection
        self.dataReady = dataReady
        filler = BufferFiller(pool: pool, bytesPerFrame: format.bytesPerFrame, dataReady: dataReady)
        droppedFrames = filler.droppedFrames

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
        self.stream = stream
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { stream, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                capture.failed.store(true, ordering: .releasing)
                capture.dataReady.post()
            }
            pa_threaded_mainloop_signal(capture.connection.mainloop, 0)
        }, me)
        pa_stream_set_read_callback(stream, { _, _, userdata in
            Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue().readAvailable()
        }, me)
        pa_stream_set_overflow_callback(stream, { _, userdata in
            let capture = Unmanaged<CaptureStream>.fromOpaque(userdata!).takeUnretainedValue()
            capture.overflows.add(1, ordering: .relaxed)
        }, me)

        // ~one buffer per fragment, so buffers fill at the designed rate and meters move smoothly.
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragmentBytes))
        var failure: String?
        var failureCode = RecorderError.Code.streamFailed
        // No such source, or a name the server rejects as malformed (which names no source either).
        func sourceIsMissing() -> Bool {
            let code = pa_context_errno(connection.context)
            return code == Int32(PA_ERR_NOENTITY.rawValue) || (source != nil && code == Int32(PA_ERR_INVALID.rawValue))
        }
        if pa_stream_connect_record(stream, source, &attributes,
                                    pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue)) < 0 {
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
        if failure == nil {
            sourceName = pa_stream_get_device_name(stream).map { String(cString: $0) } ?? source ?? ""
        }
        connection.unlock()
        if let failure {
            close()
            if failureCode == .sourceNotFound, let source {
                let available = connection.sources().map(\.name).joined(separator: ", ")
                throw RecorderError(.sourceNotFound,
                    "no capture source named '\(source)' on \(connection.serverName); available sources: "
                    + "\(available.isEmpty ? "none" : available) (list them with `pactl list short sources`)")
            }
            throw RecorderError(failureCode,
                "cannot record from \(source.map { "source '\($0)'" } ?? "the default source") on "
                + "\(connection.serverName): \(failure); check the source with `pactl list short sources`")
        }
    }

    /// Frames received since the stream started, dropped ones included. Call with the lock held.
    var framePosition: Int64 { filler.framePosition }

    /// Reads what libpulse holds for us, then hands on the partly filled buffer. Call with the lock
    /// held, from a thread that is not the mainloop's. Returns false when it stopped for want of a free
    /// buffer (call again once one is freed); `framePosition` is then where the taken data ends.
    func drainAndFlush() -> Bool {
        let complete = readAvailable()
        filler.handOff()
        return complete
    }

    /// Called by the consumer after it freed a buffer, if `stalled` was set: reads on, under the lock.
    func resume() {
        connection.withLock { _ = readAvailable() }
    }

    /// Takes fragments until libpulse has nothing readable or no buffer is free (returns false then).
    /// A hole (nil data) becomes silence of its length and is counted as dropped.
    @discardableResult
    private func readAvailable() -> Bool {
        guard !closed else { return true }
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
            guard fragmentOffset == length else {
                stalled.store(true, ordering: .releasing)
                return false
            }
            fragmentOffset = 0
            pa_stream_drop(stream)
        }
        stalled.store(false, ordering: .releasing)
        return true
    }

    /// Clears the callbacks and disconnects, under the lock; afterwards nothing more is delivered.
    func close() {
        connection.withLock {
            guard !closed else { return }
            closed = true
            pa_stream_set_read_callback(stream, nil, nil)
            pa_stream_set_overflow_callback(stream, nil, nil)
            pa_stream_set_state_callback(stream, nil, nil)
            if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
            pa_stream_unref(stream)
        }
    }
}

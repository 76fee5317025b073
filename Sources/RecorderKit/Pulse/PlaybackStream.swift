// The playback stream: libpulse's write callback copies filled buffers into the stream and frees them.
import CPulse
import Glibc
import Synchronization

/// PulseAudio playback streams fed from a `BufferPool`, over one connection (one mainloop thread) for
/// the player's whole life. A stream lasts from a start (or a seek, or a stop) to the next: each has its
/// own indices from 0, so a seek never has to reason about data the server still holds.
///
/// The write callback runs on the mainloop thread with the lock held. It only copies filled buffers
/// into the stream (libpulse's `pa_stream_write` copies into its shared-memory pool), returns each
/// written buffer to the free set and posts `dataReady`: no allocation of ours, no disk, no user code.
/// With nothing filled it sets `starving` and returns; as soon as the reader thread has filled a
/// buffer it has the mainloop write on (`wake`), so a buffer is never left waiting for the next
/// request. Data moves only on the mainloop thread.
///
/// A mono source played to a sink of two or more channels goes out as two identical channels (copied
/// into `upmixed`, made once), so that a pan places it as AVAudioPlayer's does; the pool's buffers,
/// the meters and the frame counts stay mono.
///
/// Locking: other threads use `withLock` (the mainloop lock); callbacks already hold it and never
/// block. Only the player's reader thread calls the stream-changing methods.
final class PlaybackStream: CallbackTarget, @unchecked Sendable {
    // @unchecked Sendable: `stream`, `writing`, `writingOffset`, `writtenFrames`, `ranOutAtEnd`, the
    // operations and the timing answer are touched only under the mainloop lock (callbacks, or `withLock`); the rest are
    // atomics or immutable.
    let connection: PulseConnection
    /// The sink played to (the server's default resolved to its name).
    let sinkName: String
    private let format: StreamFormat
    /// What the server is sent: `format`, or two channels of it for a mono source on a wider sink.
    let streamFormat: StreamFormat
    /// Room for one buffer as two channels, when the mono source is sent so (else nil).
    private let upmixed: UnsafeMutableRawPointer?
    private let fragmentBytes: Int
    private let pool: BufferPool
    private let dataReady: Semaphore

    private var stream: OpaquePointer?
    /// The mainloop's defer event that writes on when the reader thread asks.
    private var wake = MainloopWake.none
    /// The buffer being written and how much of it is already in the stream.
    private var writing: Int?
    private var writingOffset = 0
    /// Frames written into the current stream (its write index).
    private(set) var writtenFrames: Int64 = 0
    private var drainOperation: OpaquePointer?
    private var timingOperation: OpaquePointer?
    /// The server's latency answer for the current stream (sink + transport, µs), once asked and answered.
    private var latencyAnswer: Int64??

    /// Set by the write callback when it found nothing to write: the reader thread then has the
    /// mainloop write on (`resume`).
    let starving = Atomic<Bool>(false)
    /// Set when the current stream failed (server gone, sink removed).
    let failed = Atomic<Bool>(false)
    /// Underruns of the current stream reported by the server: it ran out of audio while playing, and
    /// audio came after the place it ran out (the server's underflow index), so a silence was heard in
    /// the middle of it. Running out of everything written is the end, unless more is written later.
    let underflows = Atomic<Int>(0)
    /// The server ran out at the end of all that had been written: an underrun if anything follows.
    private var ranOutAtEnd = false
    /// Set when a requested drain has completed: everything written has been played.
    let drained = Atomic<Bool>(false)

    /// Connects to `server` and checks `sink` (nil: the one PULSE_SINK names, else the server's default).
    /// No stream yet.
    init(format: StreamFormat, sink: String?, server: String?, clientName: String, fragmentBytes: Int,
         pool: BufferPool, dataReady: Semaphore) throws(RecorderError) {
        let connection = try PulseConnection(server: server, clientName: clientName)
        let sinks = connection.sinks()
        // No sink named: PULSE_SINK's, as libpulse gives every program that names none, else the default.
        let sink = sink ?? getenv("PULSE_SINK").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        if let sink, !sinks.contains(where: { $0.name == sink }) {
            let available = sinks.map(\.name).joined(separator: ", ")
            let error = RecorderError(.sinkNotFound,
                "no playback sink named '\(sink)' on \(connection.serverName); available sinks: "
                + "\(available.isEmpty ? "none" : available) (list them with `recorder sinks`)")
            connection.close()
            throw error
        }
        let name = sink ?? sinks.first(where: \.isDefault)?.name
        guard let name else {
            connection.close()
            throw RecorderError(.sinkNotFound,
                "the server \(connection.serverName) has no playback sink; load one (e.g. `pactl load-module module-null-sink`) or name a server that has")
        }
        self.connection = connection
        sinkName = name
        self.format = format
        let sinkChannels = sinks.first(where: { $0.name == name })?.channelCount ?? 1
        if format.channelCount == 1, sinkChannels >= 2,
           let stereo = try? StreamFormat(sampleRate: format.sampleRate, channelCount: 2, sampleFormat: format.sampleFormat) {
            streamFormat = stereo
            upmixed = .allocate(byteCount: 2 * pool.capacityBytes, alignment: 16)
        } else {
            streamFormat = format
            upmixed = nil
        }
        self.fragmentBytes = fragmentBytes
        self.pool = pool
        self.dataReady = dataReady
        connection.withLock { lock in
            wake = MainloopWake(on: connection, userdata: userdata, lock) { api, event, userdata in
                MainloopWake.settle(api, event)
                PlaybackStream.from(userdata)?.writeRequested()
            }
        }
    }

    deinit {
        assert(stream == nil, "PlaybackStream to '\(sinkName)' deinitialized with a stream open")
        upmixed?.deallocate()
    }

    /// Runs `body` with the mainloop lock held. Never from a libpulse callback.
    func withLock<T>(_ body: (MainloopLock) -> T) -> T { connection.withLock(body) }

    /// True while a stream is open.
    func isOpen(_ lock: MainloopLock) -> Bool { stream != nil }

    // MARK: Opening and closing streams (the reader thread)

    /// Opens a corked stream to the sink at `volume` and waits until it is ready. From the reader
    /// thread, without the lock.
    func open(volume: PlaybackVolume) throws(RecorderError) {
        // Two buffers in the server (sink included), a request per buffer; the pool holds the rest.
        // (Quarter-buffer requests were measured: no better on PipeWire, 49 ms later on PulseAudio.)
        let widening = streamFormat.channelCount / format.channelCount
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(2 * fragmentBytes * widening),
                                        prebuf: UInt32.max, minreq: UInt32(fragmentBytes * widening), fragsize: UInt32.max)
        let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_START_CORKED.rawValue
            | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue)
        var perChannel = volume.perChannel
        let failure = try connection.withLock { lock throws(RecorderError) -> (PulseFailure, gone: Bool)? in
            let stream = try connection.newStream(streamFormat, lock)
            if let failure = connection.connect(stream, lock, with: {
                pa_stream_connect_playback($0, sinkName, &attributes, flags, &perChannel, nil)
            }) {
                return (failure, !connection.isReady(lock))
            }
            install(stream, lock)
            // Again now that it exists: pipewire-pulse takes the volume of the connect request only for the
            // stream's start, and its session manager may then restore a remembered one.
            setVolume(volume, lock)
            return nil
        }
        if let (failure, gone) = failure {
            throw RecorderError(gone ? .serverUnreachable : .streamFailed,
                "cannot play to sink '\(sinkName)' on \(connection.serverName): \(failure.message); "
                + (gone ? "check that the server is running" : "check the sink with `recorder sinks`"),
                underlying: failure.cause)
        }
    }

    /// Makes `new` the current stream: sets its callbacks.
    private func install(_ new: OpaquePointer, _ lock: MainloopLock) {
        failed.store(false, ordering: .releasing)
        drained.store(false, ordering: .releasing)
        underflows.store(0, ordering: .relaxed)
        ranOutAtEnd = false
        // The server's first request may have come before the write callback was set: the reader writes
        // the first buffers itself.
        starving.store(true, ordering: .relaxed)
        writtenFrames = 0
        stream = new
        pa_stream_set_state_callback(new, { stream, userdata in
            guard let playback = PlaybackStream.from(userdata) else { return }
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                playback.failed.store(true, ordering: .releasing)
                playback.dataReady.post()
            }
        }, userdata)
        pa_stream_set_write_callback(new, { stream, _, userdata in
            if let stream { PlaybackStream.from(userdata)?.writeAvailable(stream) }
        }, userdata)
        pa_stream_set_underflow_callback(new, { stream, userdata in
            guard let stream, let playback = PlaybackStream.from(userdata) else { return }
            playback.ranOut(atByte: pa_stream_get_underflow_index(stream))
        }, userdata)
    }

    /// Closes the current stream, if any: what the server still holds is dropped, and the buffer being
    /// written goes back to the free set (the caller empties the filled ring).
    func closeStream(_ lock: MainloopLock) {
        PulseConnection.cancel(&drainOperation, lock)
        PulseConnection.cancel(&timingOperation, lock)
        latencyAnswer = nil
        if let writing {
            pool.free.push(writing)
            self.writing = nil
        }
        writingOffset = 0
        guard let stream else { return }
        self.stream = nil
        PulseConnection.release(stream, lock)
    }

    /// Closes the stream and the connection; afterwards no callback runs. Idempotent.
    func close() {
        withLock { lock in
            closeStream(lock)
            wake.free(lock)
        }
        connection.close()
    }

    // MARK: Control (the reader thread, within `withLock`)

    /// Corks (pauses where it is) or uncorks the stream. No wait: the server carries it out in order.
    func cork(_ corked: Bool, _ lock: MainloopLock) {
        guard let stream else { return }
        if let operation = pa_stream_cork(stream, corked ? 1 : 0, nil, nil) { pa_operation_unref(operation) }
    }

    /// Sets the stream's volume (per channel). No wait.
    func setVolume(_ volume: PlaybackVolume, _ lock: MainloopLock) {
        guard let stream else { return }
        var volume = volume.perChannel
        let index = pa_stream_get_index(stream)
        guard index != UInt32.max,
              let operation = pa_context_set_sink_input_volume(connection.context, index, &volume, nil, nil) else { return }
        pa_operation_unref(operation)
    }

    /// Asks the server to play out what it holds; `drained` is set (and `dataReady` posted) when it has.
    func requestDrain(_ lock: MainloopLock) {
        guard let stream, drainOperation == nil else { return }
        drainOperation = pa_stream_drain(stream, { _, success, userdata in
            guard let playback = PlaybackStream.from(userdata) else { return }
            playback.drained.store(true, ordering: .releasing)
            playback.dataReady.post()
        }, userdata)
    }

    /// True when every filled buffer has been written into the stream.
    func allWritten(_ lock: MainloopLock) -> Bool { writing == nil && pool.filled.isEmptyForConsumer }

    /// The frame of the current stream being heard now (the server's read index, less the sink's
    /// latency, interpolated since the last timing update); nil before the server has said.
    func playedFrames(_ lock: MainloopLock) -> Int64? {
        guard let stream else { return nil }
        var microseconds: pa_usec_t = 0
        guard pa_stream_get_time(stream, &microseconds) == 0 else { return nil }
        return Int64(clamping: microseconds) * Int64(format.sampleRate) / 1_000_000
    }

    /// Asks the server for the stream's timing; `latency` answers once it has (posting `dataReady`).
    func requestLatency(_ lock: MainloopLock) {
        guard let stream else { return }
        PulseConnection.cancel(&timingOperation, lock)
        latencyAnswer = .none
        timingOperation = pa_stream_update_timing_info(stream, { stream, success, userdata in
            guard let playback = PlaybackStream.from(userdata) else { return }
            if success != 0, let info = pa_stream_get_timing_info(stream)?.pointee {
                playback.latencyAnswer = .some(Int64(clamping: info.sink_usec) + Int64(clamping: info.transport_usec))
            } else {
                playback.latencyAnswer = .some(nil)
            }
            playback.dataReady.post()
        }, userdata)
        if timingOperation == nil { latencyAnswer = .some(nil) }
    }

    /// The answer to `requestLatency`: nil while awaited, `.some(nil)` if the server could not say, else
    /// the microseconds from a frame's write to its being heard on a started stream (sink + transport).
    func latency(_ lock: MainloopLock) -> Int64?? { latencyAnswer }

    // MARK: Writing

    /// Called by the reader thread after it filled a buffer, if `starving` was set: has the mainloop
    /// write on.
    func resume() {
        withLock { wake.request($0) }
    }

    /// The mainloop thread, lock held (`wake`'s callback): writes on, if a stream is open.
    private func writeRequested() {
        if let stream { writeAvailable(stream) }
    }

    /// The mainloop thread (the underflow callback): the server ran out at byte `index` of the stream
    /// (-1: it did not say). Before what was already written there is a gap in the middle; at the end
    /// of it, the gap is one only if more is written (`writeAvailable`).
    private func ranOut(atByte index: Int64) {
        if index >= 0, index < writtenFrames * Int64(streamFormat.bytesPerFrame) {
            underflows.add(1, ordering: .relaxed)
            dataReady.post()
        } else {
            ranOutAtEnd = true
        }
    }

    /// Writes filled buffers while the server takes more. On the mainloop thread (the write callback,
    /// or `wake`'s).
    private func writeAvailable(_ stream: OpaquePointer) {
        starving.store(false, ordering: .relaxed)
        // Bytes sent per byte of the pool's buffers: 2 when a mono source goes out as two channels.
        let widening = streamFormat.channelCount / format.channelCount
        while true {
            var writable = pa_stream_writable_size(stream)
            guard writable != Int(bitPattern: UInt(UInt32.max)), writable > 0 else { return }
            while writable > 0 {
                if writing == nil {
                    guard let next = pool.filled.pop() else { break }
                    writing = next
                    writingOffset = 0
                }
                let index = writing!
                let count = min(pool.byteCount(of: index) - writingOffset, writable / widening)
                if count > 0 {
                    guard send(pool.bytes(of: index) + writingOffset, count, to: stream) else {
                        failed.store(true, ordering: .releasing)
                        dataReady.post()
                        return
                    }
                    writingOffset += count
                    writable -= count * widening
                    writtenFrames += Int64(count / format.bytesPerFrame)
                    if ranOutAtEnd {  // audio after the place the server ran out: it was an underrun
                        ranOutAtEnd = false
                        underflows.add(1, ordering: .relaxed)
                        dataReady.post()
                    }
                }
                if writingOffset >= pool.byteCount(of: index) {
                    writing = nil
                    pool.free.push(index)
                    dataReady.post()
                } else if count == 0 {
                    break  // less room than one frame
                }
            }
            guard writable >= streamFormat.bytesPerFrame else { return }
            // Nothing filled: announce it, then look again. The reader pushes a buffer and then looks at
            // `starving` (with the same fences), so one side sees the other and no buffer waits.
            starving.store(true, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if pool.filled.isEmptyForConsumer { return }
            starving.store(false, ordering: .relaxed)
        }
    }

    /// Writes `count` bytes of a pool buffer into the stream (libpulse copies them), as two identical
    /// channels when the mono source is sent so. False if libpulse refused.
    private func send(_ bytes: UnsafeMutableRawPointer, _ count: Int, to stream: OpaquePointer) -> Bool {
        guard let upmixed else { return pa_stream_write(stream, bytes, count, nil, 0, PA_SEEK_RELATIVE) == 0 }
        let width = format.sampleFormat.bytesPerSample
        let frames = count / width
        switch width {
        case 2:
            let from = bytes.assumingMemoryBound(to: UInt16.self), to = upmixed.assumingMemoryBound(to: UInt16.self)
            for frame in 0..<frames { to[2 * frame] = from[frame]; to[2 * frame + 1] = from[frame] }
        case 4:
            let from = bytes.assumingMemoryBound(to: UInt32.self), to = upmixed.assumingMemoryBound(to: UInt32.self)
            for frame in 0..<frames { to[2 * frame] = from[frame]; to[2 * frame + 1] = from[frame] }
        default:
            for frame in 0..<frames {
                memcpy(upmixed + 2 * frame * width, bytes + frame * width, width)
                memcpy(upmixed + (2 * frame + 1) * width, bytes + frame * width, width)
            }
        }
        return pa_stream_write(stream, upmixed, 2 * frames * width, nil, 0, PA_SEEK_RELATIVE) == 0
    }
}

/// A player's volume (linear gain 0…1) and pan (−1 left … +1 right) as the server's per-channel volume.
///
/// Pan is a balance: a left channel keeps the gain while the pan is at or left of centre and falls
/// linearly to silence at +1; a right channel the other way; other channels (mono, centre, LFE) keep
/// the gain. A mono stream (a mono source on a mono sink) is not panned. The law is the one
/// `Player.pan` documents; Apple documents none for AVAudioPlayer.
struct PlaybackVolume {
    let volume: Float
    let pan: Float
    let channels: Int

    private static let left = [PA_CHANNEL_POSITION_FRONT_LEFT, PA_CHANNEL_POSITION_REAR_LEFT,
                               PA_CHANNEL_POSITION_FRONT_LEFT_OF_CENTER, PA_CHANNEL_POSITION_SIDE_LEFT,
                               PA_CHANNEL_POSITION_TOP_FRONT_LEFT, PA_CHANNEL_POSITION_TOP_REAR_LEFT]
    private static let right = [PA_CHANNEL_POSITION_FRONT_RIGHT, PA_CHANNEL_POSITION_REAR_RIGHT,
                                PA_CHANNEL_POSITION_FRONT_RIGHT_OF_CENTER, PA_CHANNEL_POSITION_SIDE_RIGHT,
                                PA_CHANNEL_POSITION_TOP_FRONT_RIGHT, PA_CHANNEL_POSITION_TOP_REAR_RIGHT]

    var perChannel: pa_cvolume {
        var result = pa_cvolume()
        result.channels = UInt8(channels)
        let map = PulseConnection.channelMap(channels)
        withUnsafeMutableBytes(of: &result.values) { raw in
            let values = raw.bindMemory(to: pa_volume_t.self)
            withUnsafeBytes(of: map.map) { positions in
                let positions = positions.bindMemory(to: pa_channel_position_t.self)
                for channel in 0..<min(channels, values.count) {
                    var gain = Double(volume)
                    if Self.left.contains(positions[channel]) { gain *= Double(min(1, 1 - pan)) }
                    if Self.right.contains(positions[channel]) { gain *= Double(min(1, 1 + pan)) }
                    values[channel] = pa_sw_volume_from_linear(max(0, gain))
                }
            }
        }
        return result
    }
}

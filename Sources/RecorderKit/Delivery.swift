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

    init(writer: SoundFileWriter, format: StreamFormat, overwrite: Bool, startFrame: Int64,
         maxFramesPerFile: Int64?, maxBytesPerFile: Int64?) {
        self.writer = writer
        self.format = format
        self.overwrite = overwrite
        self.startFrame = startFrame
        self.maxFramesPerFile = maxFramesPerFile
        self.maxBytesPerFile = maxBytesPerFile
        files = [writer.path]
        totals = LevelTotals(channelCount: format.channelCount)
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

    /// Writes whole frames, moving on to the next numbered file at each file's limit. Calls
    /// `started` with each new file's path and the offset (in frames) of its first frame in `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer, started: (String, Int) -> Void) throws(RecorderError) {
        let bytesPerFrame = format.bytesPerFrame
        var offset = 0
        while offset < bytes.count {
            let room = Self.limit(of: writer, maxFrames: maxFramesPerFile, maxBytes: maxBytesPerFile,
                                  bytesPerFrame: bytesPerFrame) - writer.framesWritten
            if room <= 0 {
                try nextFile()
                started(writer.path, offset / bytesPerFrame)
                continue
            }
            let count = min(Int(min(room, Int64(Int.max / 2))) * bytesPerFrame, bytes.count - offset)
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
            try writer.write(bigEndianS16: slice)
            totals.add(bigEndianS16: slice)
            offset += count
        }
    }

    private func nextFile() throws(RecorderError) {
        let path = FileType.numberedPath(files[0], files.count + 1)
        let next = try SoundFileWriter(path: path, format: format, overwrite: overwrite,
                                       maxFramesPerWrite: writer.maxFramesPerWrite)
        writer.close()
        framesBefore += writer.framesWritten
        writer = next
        files.append(path)
    }
}

/// What controlling threads and the delivery thread share, under one lock.
struct ControlState: Sendable {
    /// A session installed by `record(to:)` that the delivery thread has not taken yet.
    var pending: FileSession?
    /// Path of the recording in progress (pending or active), nil when not recording.
    var recordingPath: String?
    /// Frame position where the current recording ends (its duration, or where stopRecording cut it).
    var endFrame: Int64?
    /// True once every frame before `endFrame` has been handed to the delivery thread.
    var flushed = false
    /// Threads waiting for the current recording to end.
    var waiters: [Semaphore] = []
    var lastSummary: RecordingSummary?
    var shuttingDown = false
}

/// The consumer side of the buffer pool. Runs on its own thread; holds no reference to `Recorder`,
/// so a recorder that is no longer referenced can deinit and stop it.
final class Delivery: Sendable {
    let format: StreamFormat
    let control = Locked(ControlState())
    let levels = Broadcaster<LevelReading>()
    let events = Broadcaster<RecorderEvent>()
    let meters = MeterFeeds()
    let inputHandler = Locked<(@Sendable (CapturedBuffer) -> Void)?>(nil)
    /// The latest buffer's meter state per channel.
    let currentLevels: Locked<[LevelMeterState]>
    /// Posted after a buffer was freed while capture was stalled for want of one.
    let resumed = Semaphore()
    /// Frames delivered since the recorder started.
    let framePosition = Atomic<Int64>(0)
    /// How long to wait for a lost server or source to come back (nil: do not wait).
    let reconnectTimeout: Double?

    private let pool: BufferPool
    private let capture: CaptureStream
    private let dataReady: Semaphore

    init(format: StreamFormat, pool: BufferPool, capture: CaptureStream, dataReady: Semaphore,
         reconnectTimeout: Double?) {
        self.format = format
        self.pool = pool
        self.capture = capture
        self.dataReady = dataReady
        self.reconnectTimeout = reconnectTimeout
        currentLevels = Locked([LevelMeterState](
            repeating: LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence),
            count: format.channelCount))
    }

    /// The thread body: returns after shutdown, once every filled buffer is delivered.
    func run() {
        var state = DeliveryState(format: format)
        while true {
            if state.outage != nil {
                _ = dataReady.wait(milliseconds: 200)  // retry the connection at 5 Hz meanwhile
            } else {
                dataReady.wait()
            }
            deliverAvailable(&state)
            let shuttingDown = control.withLock { $0.shuttingDown }
            if capture.failed.load(ordering: .acquiring) && state.outage == nil && !state.failureReported
                && !shuttingDown {
                captureLost(&state)
            }
            if let outage = state.outage, !shuttingDown {
                tryReconnect(outage, &state)
            }
            if shuttingDown && pool.filled.isEmptyForConsumer {
                return
            }
        }
    }

    /// Delivers every filled buffer, reports notices, and closes the recording once it is complete.
    private func deliverAvailable(_ state: inout DeliveryState) {
        while true {
            let snapshot = control.withLock { control -> (FileSession?, Int64?, Bool, Bool) in
                let session = control.pending
                control.pending = nil
                return (session, control.endFrame, control.flushed, control.shuttingDown)
            }
            let (newSession, endFrame, flushed, shuttingDown) = snapshot
            if let newSession { state.session = newSession }
            reportNotices(&state, endFrame: endFrame)
            if let session = state.session, let endFrame,
               endFrame <= session.startFrame || state.position >= endFrame {
                finish(&state, error: nil)
                continue
            }
            guard let index = pool.filled.pop() else {
                // Every frame before endFrame was handed over (flushed), so the file is complete.
                if state.session != nil, flushed || shuttingDown {
                    finish(&state, error: nil)
                }
                return
            }
            deliver(index, &state)
            pool.free.push(index)
            if capture.stalled.load(ordering: .acquiring) {
                capture.resume()
                resumed.post()
            }
        }
    }

    /// Turns the capture side's notices into events, and drops and gaps into the recording's gaps.
    private func reportNotices(_ state: inout DeliveryState, endFrame: Int64?) {
        while let notice = capture.notices.pop() {
            switch notice.kind {
            case .dropped:
                events.yield(.framesDropped(count: notice.count, atFrame: notice.frame))
                record(notice, reason: .dropped, in: state.session, endFrame: endFrame)
            case .gap:
                events.yield(.captureResumed(gapFrames: notice.count, atFrame: notice.frame))
                record(notice, reason: .serverLost, in: state.session, endFrame: endFrame)
            case .moved:
                let name = capture.withLock { capture.currentSourceName }
                events.yield(.sourceMoved(to: name, atFrame: notice.frame))
            case .suspended:
                events.yield(notice.count != 0 ? .sourceSuspended(atFrame: notice.frame)
                                               : .sourceResumed(atFrame: notice.frame))
            }
        }
    }

    private func record(_ notice: CaptureNotice, reason: RecordingGap.Reason, in session: FileSession?,
                        endFrame: Int64?) {
        guard let session else { return }
        let start = max(notice.frame, session.startFrame)
        let end = min(notice.frame + notice.count, endFrame ?? Int64.max)
        guard start < end else { return }
        session.gaps.append(RecordingGap(startFrame: start - session.startFrame, frameCount: end - start,
                                         reason: reason, sampleRate: format.sampleRate))
        if reason == .dropped { session.droppedFrames += end - start }
    }

    /// The stream failed. With a reconnect timeout, start waiting for the server or source; without,
    /// write out what was captured, close the file with the error and report it.
    private func captureLost(_ state: inout DeliveryState) {
        if let reconnectTimeout {
            let lostAt = capture.detachFailed()
            let frame = capture.withLock { capture.framePosition }
            state.outage = Outage(lostAt: lostAt, deadline: lostAt + Int64(reconnectTimeout * 1e9))
            events.yield(.captureInterrupted(RecorderError(.streamFailed,
                "capture from '\(capture.sourceName)' was interrupted: the server closed the stream "
                + "(server gone or source removed); waiting up to \(seconds(reconnectTimeout)) s for it to come back"),
                atFrame: frame))
            return
        }
        fail(&state, RecorderError(.streamFailed,
            "capture from '\(capture.sourceName)' stopped: the server closed the stream "
            + "(server gone or source removed); check that the server is running"))
    }

    private func tryReconnect(_ outage: Outage, _ state: inout DeliveryState) {
        do {
            _ = try capture.reconnect(lostAt: outage.lostAt)
            state.outage = nil
            deliverAvailable(&state)
        } catch {
            guard monotonicNanoseconds() >= outage.deadline else { return }
            state.outage = nil
            fail(&state, RecorderError(.streamFailed,
                "capture from '\(capture.sourceName)' stopped: the server or source did not come back within "
                + "\(seconds(reconnectTimeout ?? 0)) s (last attempt: \(error.message)); check that the server is running"))
        }
    }

    /// Writes what was captured before the failure, closes the file with `error`, reports it once.
    private func fail(_ state: inout DeliveryState, _ error: RecorderError) {
        state.failureReported = true
        while !capture.withLock({ capture.drainAndFlush() }) {
            deliverAvailable(&state)
        }
        deliverAvailable(&state)
        if state.session != nil { finish(&state, error: error) }
        events.yield(.captureFailed(error))
    }

    private func deliver(_ index: Int, _ state: inout DeliveryState) {
        let startFrame = pool.startFrame(of: index)
        let byteCount = pool.byteCount(of: index)
        let frameCount = byteCount / format.bytesPerFrame
        let bytes = UnsafeRawBufferPointer(start: pool.bytes(of: index), count: byteCount)
        let endFrame = startFrame + Int64(frameCount)

        state.meterScratch.withUnsafeMutableBufferPointer { LevelMeter.measure(bigEndianS16: bytes, into: $0) }
        currentLevels.withLock { levels in
            for channel in levels.indices { levels[channel] = state.meterScratch[channel] }
        }
        let time = Double(endFrame) / Double(format.sampleRate)
        levels.yield(LevelReading(endFrame: endFrame, frameCount: frameCount, time: time, channels: state.meterScratch))
        meters.deliver(bytes, endFrame: endFrame, frameCount: frameCount, time: time, levels: state.meterScratch)

        if let handler = inputHandler.withLock({ $0 }) {
            handler(CapturedBuffer(startFrame: startFrame, frameCount: frameCount, format: format, bytes: bytes))
        }

        if let session = state.session {
            let sessionEnd = control.withLock { $0.endFrame } ?? Int64.max
            let from = max(startFrame, session.startFrame)
            let to = min(endFrame, sessionEnd)
            if from < to {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[
                    Int(from - startFrame) * format.bytesPerFrame ..< Int(to - startFrame) * format.bytesPerFrame])
                do {
                    try session.write(slice) { path, offset in
                        events.yield(.fileStarted(path: path, atFrame: from + Int64(offset)))
                    }
                } catch {
                    finish(&state, error: error)
                }
            }
        }
        state.position = endFrame
        framePosition.store(endFrame, ordering: .releasing)
    }

    /// Closes the current file (valid header) and tells whoever waits.
    private func finish(_ state: inout DeliveryState, error: RecorderError?) {
        guard let session = state.session else { return }
        state.session = nil
        session.writer.close()
        let summary = RecordingSummary(path: session.files[0], files: session.files,
                                       fileType: session.writer.fileType, startFrame: session.startFrame,
                                       frameCount: session.frameCount, droppedFrames: session.droppedFrames,
                                       gaps: session.gaps, levels: session.totals.levels,
                                       clippedSamples: session.totals.clippedSamples, error: error)
        let waiters = control.withLock { control -> [Semaphore] in
            control.recordingPath = nil
            control.endFrame = nil
            control.flushed = false
            control.lastSummary = summary
            defer { control.waiters.removeAll() }
            return control.waiters
        }
        for waiter in waiters { waiter.post() }
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

/// The delivery thread's own state: never shared.
private struct DeliveryState {
    var session: FileSession?
    /// Frames delivered so far: where the next buffer starts.
    var position: Int64 = 0
    var meterScratch: [LevelMeterState]
    var outage: Outage?
    var failureReported = false

    init(format: StreamFormat) {
        meterScratch = [LevelMeterState](
            repeating: LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence),
            count: format.channelCount)
    }
}

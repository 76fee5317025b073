// The delivery thread: takes filled buffers off the capture thread, meters them, hands them to the
// embedder and the file, and returns them to the free set.
import Glibc
import Synchronization

/// One output file between `record(to:)` and its end. Fields other than `writer` are set at creation.
final class FileSession: @unchecked Sendable {
    // @unchecked Sendable: created by the caller, then used only by the delivery thread (handed over
    // through the control Mutex).
    let writer: SoundFileWriter
    /// Recorder frame position of the file's first frame.
    let startFrame: Int64
    var droppedFrames: Int64 = 0
    /// Levels over exactly the frames written.
    var totals: LevelTotals

    init(writer: SoundFileWriter, startFrame: Int64, channelCount: Int) {
        self.writer = writer
        self.startFrame = startFrame
        totals = LevelTotals(channelCount: channelCount)
    }
}

/// What controlling threads and the delivery thread share, under one Mutex.
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
    let control = Mutex(ControlState())
    let levels = Broadcaster<LevelReading>()
    let events = Broadcaster<RecorderEvent>()
    let inputHandler = Mutex<(@Sendable (CapturedBuffer) -> Void)?>(nil)
    /// The latest buffer's meter state per channel.
    let currentLevels: Mutex<[LevelMeterState]>
    /// Posted after a buffer was freed while capture was stalled for want of one.
    let resumed = Semaphore()
    /// Frames delivered since the recorder started.
    let framePosition = Atomic<Int64>(0)

    private let pool: BufferPool
    private let capture: CaptureStream
    private let dataReady: Semaphore

    init(format: StreamFormat, pool: BufferPool, capture: CaptureStream, dataReady: Semaphore) {
        self.format = format
        self.pool = pool
        self.capture = capture
        self.dataReady = dataReady
        currentLevels = Mutex([LevelMeterState](
            repeating: LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence),
            count: format.channelCount))
    }

    /// The thread body: returns after shutdown, once every filled buffer is delivered.
    func run() {
        var state = DeliveryState(format: format)
        var reportedFailure = false
        while true {
            dataReady.wait()
            while true {
                let snapshot = control.withLock { control -> (FileSession?, Int64?, Bool, Bool) in
                    let session = control.pending
                    control.pending = nil
                    return (session, control.endFrame, control.flushed, control.shuttingDown)
                }
                let (newSession, endFrame, flushed, shuttingDown) = snapshot
                if let newSession { state.session = newSession }
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
                    break
                }
                deliver(index, &state)
                pool.free.push(index)
                if capture.stalled.load(ordering: .acquiring) {
                    capture.resume()
                    resumed.post()
                }
            }
            if capture.failed.load(ordering: .acquiring) && !reportedFailure {
                reportedFailure = true
                let error = RecorderError(.streamFailed,
                    "capture from '\(capture.sourceName)' stopped: the server closed the stream "
                    + "(server gone or source removed); check that the server is running")
                if state.session != nil { finish(&state, error: error) }
                events.yield(.captureFailed(error))
            }
            if control.withLock({ $0.shuttingDown }) && pool.filled.isEmptyForConsumer {
                return
            }
        }
    }

    private func deliver(_ index: Int, _ state: inout DeliveryState) {
        let startFrame = pool.startFrame(of: index)
        let byteCount = pool.byteCount(of: index)
        let frameCount = byteCount / format.bytesPerFrame
        let bytes = UnsafeRawBufferPointer(start: pool.bytes(of: index), count: byteCount)
        let dropped = capture.droppedFrames.frames
        if dropped > state.droppedReported {
            // Holes the server reported: already silence in this buffer, so the file keeps time.
            events.yield(.framesDropped(count: dropped - state.droppedReported, atFrame: startFrame))
            state.session?.droppedFrames += dropped - state.droppedReported
            state.droppedReported = dropped
        }
        let endFrame = startFrame + Int64(frameCount)

        state.meterScratch.withUnsafeMutableBufferPointer { LevelMeter.measure(bigEndianS16: bytes, into: $0) }
        currentLevels.withLock { levels in
            for channel in levels.indices { levels[channel] = state.meterScratch[channel] }
        }
        levels.yield(LevelReading(endFrame: endFrame, frameCount: frameCount,
                                  time: Double(endFrame) / Double(format.sampleRate),
                                  channels: state.meterScratch))

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
                    try session.writer.write(bigEndianS16: slice)
                    session.totals.add(bigEndianS16: slice)
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
        let summary = RecordingSummary(path: session.writer.path, fileType: session.writer.fileType,
                                       startFrame: session.startFrame, frameCount: session.writer.framesWritten,
                                       droppedFrames: session.droppedFrames, levels: session.totals.levels,
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

/// The delivery thread's own state: never shared.
private struct DeliveryState {
    var session: FileSession?
    /// Frames delivered so far: where the next buffer starts.
    var position: Int64 = 0
    var meterScratch: [LevelMeterState]
    /// Dropped frames already reported as events.
    var droppedReported: Int64 = 0

    init(format: StreamFormat) {
        meterScratch = [LevelMeterState](
            repeating: LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence),
            count: format.channelCount)
    }
}

// What the recorder's worker and face ask of the capture side: one record stream, or several sources joined into one take.
import Synchronization

/// The producer side of the recorder's buffers as the delivery thread and `Recorder` see it. One
/// source: `CaptureStream`. Several: `SourceGroup`, which joins its sources' streams into the same
/// buffers. Every call that takes a `MainloopLock` runs under the mainloop lock (`withLock`), which
/// holds the producer off; the rest may be called from any thread.
protocol CaptureSide: AnyObject, Sendable {
    var sourceName: String { get }
    /// Each source's name, in take order (one for one source).
    var sourceNames: [String] { get }
    var serverName: String { get }
    /// What capture noticed, in take frames, for the delivery thread.
    var notices: NoticeRing { get }
    /// Set when a stream failed (server gone, source removed).
    var isFailed: Bool { get }
    /// The source whose stream failed, for the one line that says so.
    var failedSourceName: String { get }
    var isClosed: Bool { get }
    /// Set when the producer stopped for want of a free buffer: `resume()` after freeing one.
    var isStalled: Bool { get }
    func resume()
    /// Frames lost in capture (every source's, counted in its own frames) and written as silence.
    var droppedFrameCount: Int64 { get }
    var gapFrameCount: Int64 { get }
    /// The (first) source's latency at the server's last timing answer, µs; −1 before one.
    var latencyMicroseconds: Int64 { get }

    func withLock<T>(_ body: (MainloopLock) -> T) -> T
    func framePosition(_ lock: MainloopLock) -> Int64
    func positionNow(_ lock: MainloopLock) -> Int64
    func frameCaptured(at time: Int64, _ lock: MainloopLock) -> Int64
    func currentSourceName(_ lock: MainloopLock) -> String
    /// Hands on the buffer being filled, however full.
    func handOffPartial(_ lock: MainloopLock)

    // A stop's drain and flush (see `CaptureStream+Drain`).
    func requestCapturedPosition(_ lock: MainloopLock) -> Bool
    func drainStatus(_ lock: MainloopLock) -> Int64??
    func endDrain(_ lock: MainloopLock)
    func beginFlush(upTo frame: Int64?, _ lock: MainloopLock)
    func flushAnswer(_ lock: MainloopLock) -> CaptureStream.FlushAnswer?
    func continueFlush(_ lock: MainloopLock)
    func cancelFlush(_ lock: MainloopLock)

    // A lost stream (see `CaptureStream.detachFailed` and `reconnect`).
    func detachFailed() -> Int64
    func reconnect(lostAt: Int64) throws(RecorderError) -> Int64
    func close()
    /// Where each source stands (`Recorder.sources`). Any thread.
    func sourceReports(sampleRate: Int) -> [SourceReport]
}

extension CaptureStream: CaptureSide {
    var sourceNames: [String] { [sourceName] }
    var isFailed: Bool { failed.load(ordering: .acquiring) }
    var failedSourceName: String { sourceName }
    var isClosed: Bool { closed.load(ordering: .acquiring) }
    var isStalled: Bool { stalled.load(ordering: .sequentiallyConsistent) }
    var droppedFrameCount: Int64 { droppedFrames.frames }
    var gapFrameCount: Int64 { gapFrames.frames }
    var latencyMicroseconds: Int64 { sourceLatency.load(ordering: .relaxed) }
    func handOffPartial(_ lock: MainloopLock) { filler.handOff() }

    func sourceReports(sampleRate: Int) -> [SourceReport] {
        [SourceReport(name: sourceName, firstChannel: 0, channelCount: format.channelCount, sampleRate: sampleRate,
                      startOffsetFrames: 0, driftPPM: nil, isCorrectingDrift: false,
                      droppedFrames: droppedFrames.frames, gapFrames: gapFrames.frames)]
    }
}

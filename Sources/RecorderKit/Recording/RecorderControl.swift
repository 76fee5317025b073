// What a recorder's callers and its worker exchange: the requests, the shared state, the input handler.

/// A control request to the recorder's worker. The state change that goes with each (the recording
/// begun, a stop asked) is made in `RecorderControl` when it is submitted; the worker acts on it
/// between buffers.
enum RecorderRequest: Sendable {
    /// Take this session: the recording `record(to:)` began (its pre-roll first).
    case record(FileSession)
    /// Stop the recording: drain what the server captured, cut, close the file.
    case stop
    /// Stop the recording as `stop` does, then end capture.
    case shutdown
}

/// What callers and the recorder's worker share besides the requests, under the worker's lock: the
/// recording in progress (a value that callers change with the capture position they read), and the
/// outcomes callers wait for.
struct RecorderControl: Sendable {
    /// The recording in progress (its session queued or taken); nil when not recording.
    var recording: RecordingState?
    /// Number of the last recording begun (1, 2, … per `record(to:)`).
    var recordingNumber = 0
    /// Number of the last recording that has ended.
    var finishedNumber = 0
    /// `stop()` was asked: end the recording as a stop does, close the stream, end the streams, exit.
    var shutdownRequested = false
    /// The latest summaries with their recording numbers (a few: enough for any waiter to find its own).
    var summaries: [(number: Int, summary: RecordingSummary)] = []

    var lastSummary: RecordingSummary? { summaries.last?.summary }

    /// A stop of the recording, or of the recorder, is under way.
    var isStopping: Bool { shutdownRequested || recording?.stopRequested == true }
}

/// The embedder's input handler, boxed: a closure stored directly as a generic `Locked`'s value is
/// re-wrapped in two reabstraction thunks each time `withLock`'s `inout` hands it out and takes it
/// back, so a handler read once per buffer ran deeper and slower on every buffer (measured: 160
/// bytes of stack per buffer) until the thread's stack ran out. A class reference needs no thunk.
final class InputHandler: Sendable {
    let call: @Sendable (CapturedBuffer) -> Void
    init(_ call: @escaping @Sendable (CapturedBuffer) -> Void) { self.call = call }
}

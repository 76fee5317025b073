// The live queues by handle, so that a call with a disposed or foreign AudioQueueRef is refused with a
// status instead of touching freed memory; and how RecorderKit's errors become Apple's statuses.
import Foundation
import Locking
import RecorderKit

enum QueueRegistry {
    private static let queues = Locked<[UInt: QueueObject]>([:])
    private static let lastFailure = Locked<String?>(nil)

    /// The name the server shows for a queue's stream: the program's.
    static var clientName: String { ProcessInfo.processInfo.processName }

    static func add(_ queue: QueueObject) -> AudioQueueRef {
        let handle = queue.handle
        queues.withLock { $0[UInt(bitPattern: handle)] = queue }
        return handle
    }

    static func find(_ handle: AudioQueueRef) -> QueueObject? {
        queues.withLock { $0[UInt(bitPattern: handle)] }
    }

    static func remove(_ handle: AudioQueueRef) -> QueueObject? {
        queues.withLock { $0.removeValue(forKey: UInt(bitPattern: handle)) }
    }

    static func noteFailure(_ error: RecorderError) { noteFailure(error.message) }
    static func noteFailure(_ message: String) { lastFailure.withLock { $0 = message } }
    static var failure: String? { lastFailure.withLock { $0 } }
}

extension QueueObject {
    /// The status Apple's queues return for what failed underneath.
    static func status(for error: RecorderError) -> OSStatus {
        switch error.code {
        case .invalidFormat: kAudioFormatUnsupportedDataFormatError
        case .serverUnreachable, .sourceNotFound, .sinkNotFound: kAudioQueueErr_InvalidDevice
        default: kAudioQueueErr_CannotStart
        }
    }
}

/// The one-line message (what failed, the server or device involved, what to do) of the last failure
/// behind a queue's or an audio file's status, in this process; nil before any. Linux only: Apple's API
/// reports only the status.
public func OpenAudioToolboxLastErrorMessage() -> String? { QueueRegistry.failure }

// The CoreFoundation names Audio Queue and Audio File code passes (a run loop and its modes for
// callbacks, a file URL, a string), which Foundation on Linux does not export: thin types over Foundation's.
import Foundation
import Locking

public typealias CFIndex = Int
public typealias CFTimeInterval = Double
/// A string: Swift's own (`"…" as CFString` and `CFRunLoopMode.rawValue` are plain strings here).
public typealias CFString = String
/// A file URL: Foundation's `URL` (`url as CFURL` is the URL itself here).
public typealias CFURL = URL

/// An allocator argument, accepted and ignored: Swift manages the memory.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator: nil, as every allocator argument is ignored.
public let kCFAllocatorDefault: CFAllocator? = nil

/// A run loop mode, by name.
public struct CFRunLoopMode: RawRepresentable, Hashable, Sendable {
    public var rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public init(_ rawValue: CFString) { self.rawValue = rawValue }

    /// The modes every common-mode source runs in (the usual choice for a queue's callbacks).
    public static let commonModes: CFRunLoopMode! = CFRunLoopMode(RunLoop.Mode.common.rawValue)
    /// The default mode.
    public static let defaultMode: CFRunLoopMode! = CFRunLoopMode(RunLoop.Mode.default.rawValue)

    var foundationMode: RunLoop.Mode { RunLoop.Mode(rawValue) }
}

public let kCFRunLoopCommonModes: CFRunLoopMode! = .commonModes
public let kCFRunLoopDefaultMode: CFRunLoopMode! = .defaultMode

/// How `CFRunLoopRunInMode` returned.
public enum CFRunLoopRunResult: Int32, Sendable {
    case finished = 1
    case stopped = 2
    case timedOut = 3
    case handledSource = 4
}

/// A thread's run loop: Foundation's `RunLoop` of that thread. A queue given one calls its callbacks on
/// that thread, from the loop (`RunLoop.run(until:)`, `CFRunLoopRunInMode`), as Apple's queues do.
public final class CFRunLoop: Hashable, @unchecked Sendable {
    // @unchecked Sendable: the one field is fixed, and the only call made on it from other threads,
    // RunLoop.add(_:forMode:), is CoreFoundation's thread-safe CFRunLoopAddTimer (it wakes the loop).
    let runLoop: RunLoop

    init(_ runLoop: RunLoop) { self.runLoop = runLoop }

    /// Runs `block` on the loop's thread, in `mode`, as soon as the loop runs in it. Any thread.
    func perform(in mode: RunLoop.Mode, _ block: @escaping @Sendable () -> Void) {
        let timer = Timer(fire: Date(), interval: 0, repeats: false) { _ in block() }
        runLoop.add(timer, forMode: mode)
    }

    /// Adds a timer that never fires, so that `run(until:)` waits on the loop while a queue lives there
    /// (on Apple's systems the queue is a source of the loop); invalidated on the loop's thread by `release`.
    func retainLoop(in mode: RunLoop.Mode) -> KeepAlive {
        let keepAlive = KeepAlive()
        let timer = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
        keepAlive.timer = timer
        runLoop.add(timer, forMode: mode)
        return keepAlive
    }

    final class KeepAlive: @unchecked Sendable {
        // @unchecked Sendable: `timer` is set once before the value is shared, then only read on the loop.
        var timer: Timer?
    }

    func release(_ keepAlive: KeepAlive, in mode: RunLoop.Mode) {
        perform(in: mode) { keepAlive.timer?.invalidate() }
    }

    public static func == (lhs: CFRunLoop, rhs: CFRunLoop) -> Bool { lhs.runLoop === rhs.runLoop }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(runLoop)) }
}

/// The calling thread's run loop.
public func CFRunLoopGetCurrent() -> CFRunLoop! { CFRunLoop(RunLoop.current) }

/// The main thread's run loop.
public func CFRunLoopGetMain() -> CFRunLoop! { CFRunLoop(RunLoop.main) }

/// Runs the calling thread's loop in `mode` for up to `seconds` (or until one source was handled, if
/// `returnAfterSourceHandled`, or until `CFRunLoopStop`).
@discardableResult
public func CFRunLoopRunInMode(_ mode: CFRunLoopMode!, _ seconds: CFTimeInterval,
                               _ returnAfterSourceHandled: Bool) -> CFRunLoopRunResult {
    let wait = seconds.isFinite ? max(0, seconds) : (seconds > 0 ? Date.distantFuture.timeIntervalSinceNow : 0)
    let limit = Date(timeIntervalSinceNow: wait)
    let loopMode = (mode ?? .defaultMode).foundationMode
    let loop = RunLoop.current
    repeat {
        if StopRequests.take(loop) { return .stopped }
        guard loop.run(mode: loopMode, before: limit) else { return .finished }
        if StopRequests.take(loop) { return .stopped }
        if returnAfterSourceHandled { return .handledSource }
    } while limit.timeIntervalSinceNow > 0
    return .timedOut
}

/// Runs the calling thread's loop in the default mode until `CFRunLoopStop` stops it or nothing is left for
/// it to wait on (no queue, timer or source in that mode), as Apple's does.
public func CFRunLoopRun() {
    let loop = RunLoop.current
    while !StopRequests.take(loop) {
        guard loop.run(mode: .default, before: .distantFuture) else { return }
    }
}

/// Stops `rl`'s current (or, if it is not running, its next) `CFRunLoopRun` or `CFRunLoopRunInMode`. Any thread.
public func CFRunLoopStop(_ rl: CFRunLoop!) {
    guard let rl else { return }
    StopRequests.request(rl.runLoop)
    // Foundation's public (underscored) wrapper of CoreFoundation's CFRunLoopStop: wakes the loop and makes
    // the run in progress return.
    rl.runLoop._stop()
}

/// The loops asked to stop and not yet stopped: a stop asked for before the loop runs makes its next run
/// return at once, as CoreFoundation's stopped flag does. (A loop's identity is its RunLoop object, which
/// lives as long as its thread.)
private enum StopRequests {
    private static let loops = Locked(Set<ObjectIdentifier>())

    static func request(_ loop: RunLoop) { _ = loops.withLock { $0.insert(ObjectIdentifier(loop)) } }
    static func take(_ loop: RunLoop) -> Bool { loops.withLock { $0.remove(ObjectIdentifier(loop)) != nil } }
}

// Byte order: Core Foundation's swaps, for code that writes big-endian headers (AIFF, CAF) or reads
// four-character codes.
public func CFSwapInt16(_ arg: UInt16) -> UInt16 { arg.byteSwapped }
public func CFSwapInt32(_ arg: UInt32) -> UInt32 { arg.byteSwapped }
public func CFSwapInt64(_ arg: UInt64) -> UInt64 { arg.byteSwapped }
public func CFSwapInt16BigToHost(_ arg: UInt16) -> UInt16 { UInt16(bigEndian: arg) }
public func CFSwapInt32BigToHost(_ arg: UInt32) -> UInt32 { UInt32(bigEndian: arg) }
public func CFSwapInt64BigToHost(_ arg: UInt64) -> UInt64 { UInt64(bigEndian: arg) }
public func CFSwapInt16HostToBig(_ arg: UInt16) -> UInt16 { arg.bigEndian }
public func CFSwapInt32HostToBig(_ arg: UInt32) -> UInt32 { arg.bigEndian }
public func CFSwapInt64HostToBig(_ arg: UInt64) -> UInt64 { arg.bigEndian }
public func CFSwapInt16LittleToHost(_ arg: UInt16) -> UInt16 { UInt16(littleEndian: arg) }
public func CFSwapInt32LittleToHost(_ arg: UInt32) -> UInt32 { UInt32(littleEndian: arg) }
public func CFSwapInt64LittleToHost(_ arg: UInt64) -> UInt64 { UInt64(littleEndian: arg) }
public func CFSwapInt16HostToLittle(_ arg: UInt16) -> UInt16 { arg.littleEndian }
public func CFSwapInt32HostToLittle(_ arg: UInt32) -> UInt32 { arg.littleEndian }
public func CFSwapInt64HostToLittle(_ arg: UInt64) -> UInt64 { arg.littleEndian }

/// A URL of a path given as bytes; nil for a nil buffer or a negative length.
public func CFURLCreateFromFileSystemRepresentation(_ allocator: CFAllocator!, _ buffer: UnsafePointer<UInt8>!,
                                                    _ bufLen: CFIndex, _ isDirectory: Bool) -> CFURL! {
    guard let buffer, bufLen >= 0 else { return nil }
    let path = String(decoding: UnsafeBufferPointer(start: buffer, count: bufLen), as: UTF8.self)
    return URL(fileURLWithPath: path, isDirectory: isDirectory)
}

/// How `CFURLCreateWithFileSystemPath` reads a path.
public enum CFURLPathStyle: Int, Sendable {
    case cfurlposixPathStyle = 0
    case cfurlWindowsPathStyle = 2
}

public let kCFURLPOSIXPathStyle = CFURLPathStyle.cfurlposixPathStyle

/// A URL of a path string; nil for a nil path (a Windows-style path is taken as it is).
public func CFURLCreateWithFileSystemPath(_ allocator: CFAllocator!, _ filePath: CFString!,
                                          _ pathStyle: CFURLPathStyle, _ isDirectory: Bool) -> CFURL! {
    guard let filePath else { return nil }
    return URL(fileURLWithPath: filePath, isDirectory: isDirectory)
}

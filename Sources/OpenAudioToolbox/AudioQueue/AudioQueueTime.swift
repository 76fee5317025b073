// Audio queue time: the queue's timeline (frames it has played or recorded), the device's (host time as
// samples), the translation between them, and timelines that report discontinuities (underruns).
import Foundation
import RecorderKit

/// Apple's `Boolean` as Swift sees it (Darwin's `DarwinBoolean`): the out-parameter type of
/// `AudioQueueGetCurrentTime`'s discontinuity flag.
public struct DarwinBoolean: ExpressibleByBooleanLiteral, Equatable, Sendable, CustomStringConvertible {
    public var boolValue: Bool
    public init(_ value: Bool) { boolValue = value }
    public init(booleanLiteral value: Bool) { boolValue = value }
    public var description: String { boolValue.description }
}

/// The device's timeline: host time (CLOCK_MONOTONIC nanoseconds, AVAudioTime's and `mHostTime`'s clock)
/// counted in frames of the queue's rate. Its sample time is that clock's seconds × the rate.
enum DeviceTimeline {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The host time (ns) `stamp` stands for: its host time if valid, else its sample time on this
    /// timeline; nil if neither is valid and finite.
    static func hostNanoseconds(of stamp: AudioTimeStamp, sampleRate: Int) -> Int64? {
        if stamp.mFlags.contains(.hostTimeValid) { return Int64(clamping: stamp.mHostTime) }
        guard stamp.mFlags.contains(.sampleTimeValid), stamp.mSampleTime.isFinite, stamp.mSampleTime >= 0,
              stamp.mSampleTime / Double(sampleRate) < 1e9 else { return nil }
        return Int64(stamp.mSampleTime / Double(sampleRate) * 1e9)
    }

    /// A stamp of `hostTime` with both times valid.
    static func stamp(hostTime: UInt64, sampleRate: Int) -> AudioTimeStamp {
        var stamp = AudioTimeStamp()
        stamp.mHostTime = hostTime
        stamp.mSampleTime = Double(hostTime) / 1e9 * Double(sampleRate)
        stamp.mRateScalar = 1
        stamp.mFlags = [.sampleTimeValid, .hostTimeValid]
        return stamp
    }
}

/// The queue's time now: its sample time (frames heard since the queue was made, pauses and stops not
/// counted; for recording, frames delivered into its buffers since it was made: the `inStartTime` its
/// next buffer will carry) and the host time now. With `inTimeline` (from `AudioQueueCreateTimeline`),
/// `outTimelineDiscontinuity` says whether playback ran dry (an underrun) since the last call with it.
/// Any thread.
@discardableResult
public func AudioQueueGetCurrentTime(_ inAQ: AudioQueueRef, _ inTimeline: AudioQueueTimelineRef?,
                                     _ outTimeStamp: UnsafeMutablePointer<AudioTimeStamp>?,
                                     _ outTimelineDiscontinuity: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let (player, recorded, heardBefore, timeline) = queue.state.withLock { ($0.player, $0.sampleTime, $0.heardBefore, $0.timeline) }
    if let inTimeline, timeline.map({ OpaquePointer($0.token) }) != inTimeline { return kAudio_ParamError }
    var stamp = AudioTimeStamp()
    stamp.mSampleTime = Double(queue.isInput ? recorded : heardBefore + (player?.heardFrameCount ?? 0))
    stamp.mHostTime = DeviceTimeline.now()
    stamp.mRateScalar = 1
    stamp.mFlags = [.sampleTimeValid, .hostTimeValid]
    outTimeStamp?.pointee = stamp
    if inTimeline != nil {
        let underruns = player?.underrunCount ?? 0
        let jumped = queue.state.withLock { state -> Bool in
            defer { state.timeline?.underruns = underruns }
            return underruns > (state.timeline?.underruns ?? underruns)
        }
        outTimelineDiscontinuity?.pointee = DarwinBoolean(jumped)
    } else {
        outTimelineDiscontinuity?.pointee = false
    }
    return noErr
}

/// The device's time now: the host time, and as sample time that clock's seconds × the queue's rate.
/// Any thread.
@discardableResult
public func AudioQueueDeviceGetCurrentTime(_ inAQ: AudioQueueRef, _ outTimeStamp: UnsafeMutablePointer<AudioTimeStamp>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    outTimeStamp.pointee = DeviceTimeline.stamp(hostTime: DeviceTimeline.now(), sampleRate: queue.layout.sampleRate)
    return noErr
}

/// The device time `inTime` (a host time or a device sample time) with both times filled in.
@discardableResult
public func AudioQueueDeviceTranslateTime(_ inAQ: AudioQueueRef, _ inTime: UnsafePointer<AudioTimeStamp>,
                                          _ outTime: UnsafeMutablePointer<AudioTimeStamp>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    guard let nanoseconds = DeviceTimeline.hostNanoseconds(of: inTime.pointee, sampleRate: queue.layout.sampleRate), nanoseconds >= 0 else {
        return kAudioQueueErr_InvalidParameter
    }
    outTime.pointee = DeviceTimeline.stamp(hostTime: UInt64(nanoseconds), sampleRate: queue.layout.sampleRate)
    return noErr
}

/// Makes the queue's timeline (one per queue: a second call returns the same), for
/// `AudioQueueGetCurrentTime`'s discontinuity flag.
@discardableResult
public func AudioQueueCreateTimeline(_ inAQ: AudioQueueRef, _ outTimeline: UnsafeMutablePointer<AudioQueueTimelineRef?>) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let token = queue.state.withLock { state -> UnsafeMutableRawPointer in
        if let timeline = state.timeline { return timeline.token }
        let timeline = QueueObject.Timeline(token: .allocate(byteCount: 1, alignment: 1),
                                            underruns: state.player?.underrunCount ?? 0)
        state.timeline = timeline
        return timeline.token
    }
    outTimeline.pointee = OpaquePointer(token)
    return noErr
}

/// Disposes of the queue's timeline.
@discardableResult
public func AudioQueueDisposeTimeline(_ inAQ: AudioQueueRef, _ inTimeline: AudioQueueTimelineRef) -> OSStatus {
    guard let queue = QueueRegistry.find(inAQ) else { return kAudio_ParamError }
    let token = queue.state.withLock { state -> UnsafeMutableRawPointer? in
        guard let timeline = state.timeline, OpaquePointer(timeline.token) == inTimeline else { return nil }
        state.timeline = nil
        return timeline.token
    }
    guard let token else { return kAudio_ParamError }
    token.deallocate()
    return noErr
}

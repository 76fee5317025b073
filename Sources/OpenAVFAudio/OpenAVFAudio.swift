// The module's face: AVFAudio's players, recorder, formats, buffers, files, times and session with Apple's
// signatures over RecorderKit, and AudioToolbox's C types and functions re-exported, as AVFoundation does.
@_exported import OpenAudioToolbox
import Foundation
import RecorderKit

public typealias AVAudioFramePosition = Int64
public typealias AVAudioFrameCount = UInt32
public typealias AVAudioPacketCount = UInt32
public typealias AVAudioChannelCount = UInt32
public typealias AVAudioNodeBus = Int

/// An error as AVFAudio throws one: `NSOSStatusErrorDomain`, the status as its code, and the one-line
/// message (what failed, the file or device, what to do) as its localized description.
/// A caller's number as an Int64 sample count or time: rounded, clamped to Int64's range (so a value
/// of 1e300 or ±infinity never traps), 0 for NaN.
func clampedInt64(_ value: Double) -> Int64 {
    guard !value.isNaN else { return 0 }
    if value >= 9.223_372_036_854_775e18 { return .max }
    if value <= -9.223_372_036_854_775e18 { return .min }
    return Int64(value.rounded())
}

/// A rate the graph and the server can run at: a whole number of Hz from 1 to `StreamFormat.maxSampleRate`
/// (nil for anything else: 0, negative, NaN, 1e300).
func playableRate(_ rate: Double) -> Int? {
    guard rate.isFinite, rate >= 1, rate <= Double(StreamFormat.maxSampleRate) else { return nil }
    return Int(rate.rounded())
}

func statusError(_ status: OSStatus, _ message: String) -> NSError {
    NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: message])
}

/// A weak reference carried to the main queue or an event task: for AVAudioPlayer and AVAudioRecorder,
/// which are not Sendable (as Apple's are not) but keep their state behind locks, so the members called
/// through this (`delegate`, the delegate's calls on the main queue) are safe from any thread.
struct WeakCarrier<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: only players and recorders are carried, whose every member is lock-guarded.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

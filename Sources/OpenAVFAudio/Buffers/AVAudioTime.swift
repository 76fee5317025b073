// AVAudioTime: a moment as a host time (CLOCK_MONOTONIC nanoseconds here, mach ticks on Apple's
// systems) and/or a sample time at a rate; immutable.
import Foundation

open class AVAudioTime: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    /// The host time, if valid: CLOCK_MONOTONIC nanoseconds (the clock `deviceCurrentTime` reads in seconds).
    public let hostTime: UInt64
    public let isHostTimeValid: Bool
    /// Frames at `sampleRate`, if valid.
    public let sampleTime: AVAudioFramePosition
    public let isSampleTimeValid: Bool
    public let sampleRate: Double

    public init(hostTime: UInt64) {
        self.hostTime = hostTime
        isHostTimeValid = true
        sampleTime = 0
        isSampleTimeValid = false
        sampleRate = 0
        super.init()
    }

    public init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        hostTime = 0
        isHostTimeValid = false
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
        super.init()
    }

    public init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        self.hostTime = hostTime
        isHostTimeValid = true
        self.sampleTime = sampleTime
        isSampleTimeValid = true
        self.sampleRate = sampleRate
        super.init()
    }

    public init(audioTimeStamp timestamp: UnsafePointer<AudioTimeStamp>, sampleRate: Double) {
        let stamp = timestamp.pointee
        isHostTimeValid = stamp.mFlags.contains(.hostTimeValid)
        hostTime = isHostTimeValid ? stamp.mHostTime : 0
        isSampleTimeValid = stamp.mFlags.contains(.sampleTimeValid) && stamp.mSampleTime.isFinite
            && abs(stamp.mSampleTime) < 9.2e18
        sampleTime = isSampleTimeValid ? AVAudioFramePosition(stamp.mSampleTime) : 0
        self.sampleRate = sampleRate
        super.init()
    }

    /// The time as an AudioTimeStamp (the valid parts flagged).
    public var audioTimeStamp: AudioTimeStamp {
        var stamp = AudioTimeStamp()
        if isSampleTimeValid {
            stamp.mSampleTime = Double(sampleTime)
            stamp.mFlags.insert(.sampleTimeValid)
        }
        if isHostTimeValid {
            stamp.mHostTime = hostTime
            stamp.mFlags.insert(.hostTimeValid)
        }
        return stamp
    }

    /// Host time of `seconds` (nanoseconds; 0 for a negative or non-finite value, saturated above).
    public class func hostTime(forSeconds seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return seconds * 1e9 >= 1.8e19 ? UInt64.max : UInt64(seconds * 1e9)
    }

    /// Seconds of a host time.
    public class func seconds(forHostTime hostTime: UInt64) -> TimeInterval { Double(hostTime) / 1e9 }

    /// This time with the parts `anchor` has and this lacks filled in from it (a sample time from a host
    /// time, or the reverse), at the anchor's rate; nil if the anchor lacks either.
    public func extrapolateTime(fromAnchor anchor: AVAudioTime) -> AVAudioTime? {
        guard anchor.isHostTimeValid, anchor.isSampleTimeValid, anchor.sampleRate > 0 else { return nil }
        if isHostTimeValid && isSampleTimeValid { return self }
        if isHostTimeValid {
            // In doubles, clamped: no anchor (Int64.min, a rate of 1e300) traps.
            let seconds = (Double(hostTime) - Double(anchor.hostTime)) / 1e9
            return AVAudioTime(hostTime: hostTime, sampleTime: clampedInt64(Double(anchor.sampleTime) + seconds * anchor.sampleRate),
                               atRate: anchor.sampleRate)
        }
        guard isSampleTimeValid else { return nil }
        let seconds = (Double(sampleTime) - Double(anchor.sampleTime)) / (sampleRate > 0 ? sampleRate : anchor.sampleRate)
        let host = Double(anchor.hostTime) + seconds * 1e9
        return AVAudioTime(hostTime: host.isNaN || host <= 0 ? 0 : UInt64(min(host, 1.8e19)), sampleTime: sampleTime, atRate: sampleRate)
    }
}

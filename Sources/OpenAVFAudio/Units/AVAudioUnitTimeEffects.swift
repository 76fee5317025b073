// The time effects over RecorderKit's graph: AVAudioUnitTimePitch (speed and pitch apart, SoundTouch's
// WSOLA) and AVAudioUnitVarispeed (speed with pitch, its resampler).
import Foundation
import Locking
import RecorderKit

/// A node that processes audio (Apple's base of the effects).
open class AVAudioUnit: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
}

/// An effect whose output's length differs from its input's.
open class AVAudioUnitTimeEffect: AVAudioUnit, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    var effect: GraphTimeEffect { graphNode as! GraphTimeEffect }

    /// Whether the effect is bypassed (its input passes unchanged).
    open var bypass: Bool {
        get { effect.bypass }
        set { effect.bypass = newValue }
    }
}

/// Speed and pitch apart (SoundTouch's WSOLA): `rate` 1/32…32 keeps the pitch, `pitch` −2400…2400 cents
/// keeps the speed.
open class AVAudioUnitTimePitch: AVAudioUnitTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `overlapValue` is behind its own lock.
    private var timePitch: GraphTimePitch { graphNode as! GraphTimePitch }
    private let overlapValue = Locked<Float>(8)

    public init() { super.init(graphNode: GraphTimePitch()) }

    /// The speed, 1/32…32 (clamped; NaN ignored); the pitch stays.
    public var rate: Float {
        get { Float(timePitch.rate) }
        set { timePitch.rate = Double(newValue) }
    }

    /// The pitch shift in cents, −2400…2400 (clamped; NaN ignored); the speed stays.
    public var pitch: Float {
        get { Float(timePitch.pitch) }
        set { timePitch.pitch = Double(newValue) }
    }

    /// Kept (3…32) but not used: SoundTouch chooses its own overlap.
    public var overlap: Float {
        get { overlapValue.withLock { $0 } }
        set { if !newValue.isNaN { overlapValue.withLock { $0 = min(32, max(3, newValue)) } } }
    }
}

/// Speed with pitch, as a tape or turntable: `rate` 0.25…4 (an octave up at 2).
open class AVAudioUnitVarispeed: AVAudioUnitTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var varispeed: GraphVarispeed { graphNode as! GraphVarispeed }

    public init() { super.init(graphNode: GraphVarispeed()) }

    /// The speed, 0.25…4 (clamped; NaN ignored); the pitch follows.
    public var rate: Float {
        get { Float(varispeed.rate) }
        set { varispeed.rate = Double(newValue) }
    }
}

// AVAudioUnitEffect and the effects with few parameters over RecorderKit's graph effects: the delay
// (AVAudioUnitDelay), the reverb (AVAudioUnitReverb) and the distortion (AVAudioUnitDistortion).
import Foundation
import RecorderKit

/// An effect that puts out as many frames as it takes in. Made by its subclass, or from Apple's
/// component description for the units this package has (`kAudioUnitSubType_Delay`, `_Distortion`,
/// `_Reverb2`, `_NBandEQ`): any other description makes an effect that passes its input unchanged, and
/// `OpenAVFAudioLastErrorMessage()` says it has no Linux implementation.
open class AVAudioUnitEffect: AVAudioUnit, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    var effect: GraphEffect { graphNode as! GraphEffect }

    init(effect: GraphEffect) { super.init(graphNode: effect) }

    /// The unit Apple's `description` names, where this package has one.
    public init(audioComponentDescription description: AudioComponentDescription) {
        let effect: GraphEffect
        switch (description.componentType, description.componentSubType) {
        case (kAudioUnitType_Effect, kAudioUnitSubType_Delay): effect = GraphDelay()
        case (kAudioUnitType_Effect, kAudioUnitSubType_Distortion): effect = GraphDistortion()
        case (kAudioUnitType_Effect, kAudioUnitSubType_Reverb2): effect = GraphReverb()
        case (kAudioUnitType_Effect, kAudioUnitSubType_NBandEQ): effect = GraphEQ(bandCount: 16)
        default:
            AVAudioEngine.noteRefusal("AVAudioUnitEffect: no Linux implementation of the audio unit \(fourCharacters(description.componentType))/"
                + "\(fourCharacters(description.componentSubType)); this one passes its input unchanged (the delay, distortion, "
                + "reverb and N-band EQ are here)")
            effect = GraphEQ(bandCount: 0)
        }
        super.init(graphNode: effect)
    }

    /// Whether the effect is bypassed (its input passes unchanged).
    open var bypass: Bool {
        get { effect.bypass }
        set { effect.bypass = newValue }
    }
}

/// A code's four characters ('dely'), for messages.
func fourCharacters(_ code: UInt32) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8((code >> UInt32($0)) & 0xFF) }
    return bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) ? "'" + String(decoding: bytes, as: UTF8.self) + "'" : String(code)
}

/// A delay: the input comes back `delayTime` later, again and again at `feedback`, its highs rolled off
/// above `lowPassCutoff` (a tape echo), blended at `wetDryMix` (`GraphDelay`).
open class AVAudioUnitDelay: AVAudioUnitEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var delay: GraphDelay { graphNode as! GraphDelay }

    /// A delay of 1 s, feedback 50 %, low-pass at 15 kHz, 100 % wet (Apple's defaults).
    public init() { super.init(effect: GraphDelay()) }

    /// Seconds, 0…2 (clamped; NaN ignored). Default 1.
    open var delayTime: TimeInterval {
        get { delay.delayTime }
        set { delay.delayTime = newValue }
    }

    /// Percent of the output fed back, −100…100 (clamped; NaN ignored). Default 50.
    open var feedback: Float {
        get { delay.feedback }
        set { delay.feedback = newValue }
    }

    /// Hertz, 10 … half the rate (clamped below, NaN ignored; read back as set; from 0.499 × the rate up,
    /// no filter). Default 15 000.
    open var lowPassCutoff: Float {
        get { delay.lowPassCutoff }
        set { delay.lowPassCutoff = newValue }
    }

    /// Percent wet, 0…100 (clamped; NaN ignored). Default 100.
    open var wetDryMix: Float {
        get { delay.wetDryMix }
        set { delay.wetDryMix = newValue }
    }
}

/// Apple's reverb presets (`ReverbPreset`: the same cases and raw values).
public typealias AVAudioUnitReverbPreset = ReverbPreset

/// A reverb: a Schroeder–Moorer network (Freeverb's layout) tuned to each preset's RT60
/// (`GraphReverb`; the decay times are in the porting guide).
open class AVAudioUnitReverb: AVAudioUnitEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var reverb: GraphReverb { graphNode as! GraphReverb }

    /// A medium hall, 100 % wet.
    public init() { super.init(effect: GraphReverb()) }

    /// Loads one of the presets (its tail starts afresh at the next render pass).
    open func loadFactoryPreset(_ preset: AVAudioUnitReverbPreset) { reverb.preset = preset }

    /// Percent wet, 0…100 (clamped; NaN ignored; at 0 the input passes sample for sample).
    open var wetDryMix: Float {
        get { reverb.wetDryMix }
        set { reverb.wetDryMix = newValue }
    }
}

/// Apple's distortion presets (`DistortionPreset`: the same cases and raw values).
public typealias AVAudioUnitDistortionPreset = DistortionPreset

/// A distortion: each preset a recipe of band limit, ring modulation, decimation, bit reduction,
/// waveshaping and echo (`GraphDistortion`; what each does is in the porting guide).
open class AVAudioUnitDistortion: AVAudioUnitEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var distortion: GraphDistortion { graphNode as! GraphDistortion }

    /// The first preset, pre-gain −6 dB, 50 % wet (Apple's defaults).
    public init() { super.init(effect: GraphDistortion()) }

    /// Loads one of the presets.
    open func loadFactoryPreset(_ preset: AVAudioUnitDistortionPreset) { distortion.preset = preset }

    /// Gain before the distortion, −80…20 dB (clamped; NaN ignored). Default −6.
    open var preGain: Float {
        get { distortion.preGain }
        set { distortion.preGain = newValue }
    }

    /// Percent wet, 0…100 (clamped; NaN ignored). Default 50.
    open var wetDryMix: Float {
        get { distortion.wetDryMix }
        set { distortion.wetDryMix = newValue }
    }
}

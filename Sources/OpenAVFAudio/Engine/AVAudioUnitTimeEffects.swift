// The time effects: AVAudioUnitTimePitch (speed and pitch apart) and AVAudioUnitVarispeed (speed with pitch),
// through RecorderKit's SoundTouch stretcher, pulling as much of their input as their output needs.
import Foundation
import RecorderKit

/// A node that processes audio (Apple's base of the effects).
open class AVAudioUnit: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    override var outputChannelCount: Int { core?.inputConnections(of: self).first?.source.outputChannelCount ?? 2 }
}

/// An effect whose output's length differs from its input's.
open class AVAudioUnitTimeEffect: AVAudioUnit, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; the stretcher is used on the render thread under the engine's lock.
    private var stretcher: TimeStretcher?
    private var interleaved: [Float] = []
    private var stretched: [Float] = []
    /// Whether the effect is bypassed (its input passes unchanged).
    public var bypass: Bool {
        get { withCoreLock { bypassed } }
        set { withCoreLock { bypassed = newValue } }
    }
    private var bypassed = false

    /// The speed (source frames per frame out) and pitch (cents) the effect applies now.
    var settings: (rate: Double, pitch: Double) { (1, 0) }

    open override func reset() {
        withCoreLock { stretcher = nil }
    }

    override func render(_ frames: Int, into output: inout [[Float]], context: RenderContext) {
        guard let core, let upstream = core.inputConnections(of: self).first?.source else {
            return super.render(frames, into: &output, context: context)
        }
        let (rate, pitch) = settings
        let channels = output.count
        if bypassed || (rate == 1 && pitch == 0 && stretcher == nil) {
            output = core.pullInput(of: self, bus: 0, frames: frames, channels: channels, context: context)
            return
        }
        let sampleRate = Int(core.inputFormat(of: self, bus: 0).sampleRate)
        if stretcher == nil || stretcher?.channelCount != channels {
            stretcher = TimeStretcher(channelCount: channels, sampleRate: sampleRate)
        }
        guard let stretcher else { return super.render(frames, into: &output, context: context) }
        if stretcher.rate != rate || stretcher.pitch != pitch { stretcher.set(rate: rate, pitch: pitch) }
        if stretched.count < frames * channels { stretched = [Float](repeating: 0, count: frames * channels) }
        var got = 0
        var pulls = 0
        while got < frames {
            let received = stretched.withUnsafeMutableBufferPointer {
                stretcher.receive(into: $0.baseAddress! + got * channels, maxFrames: frames - got)
            }
            got += received
            guard got < frames else { break }
            pulls += 1
            guard pulls <= 256 else { break }  // a source that gives nothing: silence for the rest
            let chunk = max(256, frames)
            let input = core.pull(upstream, frames: chunk, context: context, again: true)
            if interleaved.count < chunk * channels { interleaved = [Float](repeating: 0, count: chunk * channels) }
            for frame in 0..<chunk {
                for channel in 0..<channels { interleaved[frame * channels + channel] = input[min(channel, input.count - 1)][frame] }
            }
            interleaved.withUnsafeBufferPointer { stretcher.put($0.baseAddress!, frames: chunk) }
        }
        for channel in 0..<channels {
            for frame in 0..<frames { output[channel][frame] = frame < got ? stretched[frame * channels + channel] : 0 }
        }
    }
}

/// Speed and pitch apart (SoundTouch's WSOLA): `rate` 1/32…32 keeps the pitch, `pitch` −2400…2400 cents
/// keeps the speed.
open class AVAudioUnitTimePitch: AVAudioUnitTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var rateValue: Float = 1
    private var pitchValue: Float = 0
    private var overlapValue: Float = 8

    public override init() { super.init() }

    /// The speed, 1/32…32 (clamped; NaN ignored); the pitch stays.
    public var rate: Float {
        get { withCoreLock { rateValue } }
        set { if !newValue.isNaN { withCoreLock { rateValue = min(32, max(1.0 / 32, newValue)) } } }
    }

    /// The pitch shift in cents, −2400…2400 (clamped; NaN ignored); the speed stays.
    public var pitch: Float {
        get { withCoreLock { pitchValue } }
        set { if !newValue.isNaN { withCoreLock { pitchValue = min(2_400, max(-2_400, newValue)) } } }
    }

    /// Kept (3…32) but not used: SoundTouch chooses its own overlap.
    public var overlap: Float {
        get { withCoreLock { overlapValue } }
        set { if !newValue.isNaN { withCoreLock { overlapValue = min(32, max(3, newValue)) } } }
    }

    override var settings: (rate: Double, pitch: Double) { (Double(rateValue), Double(pitchValue)) }
}

/// Speed with pitch, as a tape or turntable: `rate` 0.25…4 (an octave up at 2).
open class AVAudioUnitVarispeed: AVAudioUnitTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var rateValue: Float = 1

    public override init() { super.init() }

    /// The speed, 0.25…4 (clamped; NaN ignored); the pitch follows.
    public var rate: Float {
        get { withCoreLock { rateValue } }
        set { if !newValue.isNaN { withCoreLock { rateValue = min(4, max(0.25, newValue)) } } }
    }

    override var settings: (rate: Double, pitch: Double) {
        (Double(rateValue), 1_200 * log2(Double(rateValue)))
    }
}

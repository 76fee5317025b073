// The engine's ends and middle over RecorderKit's graph: the output node (what it is given is played), the
// input node (a capture source: taps, and live monitoring when connected), and the mixer.
import Foundation
import RecorderKit

/// What the engine plays: its input is the main mixer.
open class AVAudioOutputNode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    init(_ output: GraphOutput) { super.init(graphNode: output) }
    open override var numberOfOutputs: Int { 0 }

    /// The engine's format (its rate, two channels).
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }
}

/// The default source (or the one PULSE_SOURCE names), at its own rate and channels: a tap on bus 0
/// receives what it captures while the engine runs; connected into the graph (to the main mixer, live
/// monitoring) it is heard, resampled to the engine's rate if need be, about 0.1 s late.
open class AVAudioInputNode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `captureFormat` is fixed when made.
    /// The source's rate and channels (44.1 kHz mono when the server cannot be asked), standard format.
    let captureFormat: AVAudioFormat

    init(_ input: GraphInput) {
        captureFormat = AVAudioFormat(standardFormatWithSampleRate: Double(input.sampleRate),
                                      channels: AVAudioChannelCount(input.channelCount))!
        super.init(graphNode: input)
    }

    open override var numberOfInputs: Int { 0 }

    /// The source's format, whatever it is connected to.
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { captureFormat }
}

/// Sums its inputs into the engine's two channels: each at its node's `volume`, a mono input placed by its
/// `pan` (full level in both channels at 0, the far side fading linearly to silence at ±1), a stereo
/// input's `pan` a balance (the other side fading linearly); then times `outputVolume`. Inputs at another
/// rate than the engine's are resampled (a player's files and buffers, the input node).
open class AVAudioMixerNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    var mixer: GraphMixer { graphNode as! GraphMixer }

    public init() { super.init(graphNode: GraphMixer()) }
    init(_ mixer: GraphMixer) { super.init(graphNode: mixer) }

    /// The gain of the mix, 0…1 (clamped; NaN ignored).
    public var outputVolume: Float {
        get { mixer.outputVolume }
        set { mixer.outputVolume = newValue }
    }

    /// The lowest input bus nothing is connected to.
    public var nextAvailableInputBus: AVAudioNodeBus {
        engine?.graph.nextAvailableInputBus(of: mixer) ?? 0
    }

    /// The engine's format (its rate, two channels), whatever feeds it.
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }
}

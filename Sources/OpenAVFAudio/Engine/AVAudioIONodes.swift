// The engine's ends and middle over RecorderKit's graph: the I/O nodes' base (latency, voice processing),
// the output node (what it is given is played), the input node (a capture source: taps, and live
// monitoring when connected), and the mixer.
import Foundation
import Locking
import RecorderKit

/// The engine's ends, the input and output nodes: their latency and voice processing (the server's echo
/// canceller).
open class AVAudioIONode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.

    /// The latency measured at this end (seconds): 0 here; the input and output nodes say theirs.
    open var presentationLatency: TimeInterval { 0 }

    /// The node's Audio Unit: none (the engine's graph is RecorderKit's, not Audio Units).
    public var audioUnit: AudioUnit? { nil }

    /// Whether voice processing is on (both ends at once, as on Apple's systems).
    public var isVoiceProcessingEnabled: Bool { engine?.voiceProcessing != nil }

    /// Turns voice processing on or off, for both ends: the input node records the server's
    /// echo-cancelling source and the engine plays to its echo-cancelling sink (so what it plays is taken
    /// out of what the microphone hears). The engine must be stopped.
    /// - Throws: an NSError: `kAudioUnitErr_Initialized` while the engine runs; `kAudioUnitErr_FailedInitialization`
    ///   when the server has no echo canceller (the line says to load `module-echo-cancel`).
    public func setVoiceProcessingEnabled(_ enabled: Bool) throws {
        guard let engine else {
            throw statusError(kAudioUnitErr_Uninitialized, "cannot set voice processing on a node no engine holds: attach it first")
        }
        try engine.setVoiceProcessing(enabled)
    }
}

/// What the engine plays: its input is the main mixer.
open class AVAudioOutputNode: AVAudioIONode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    init(_ output: GraphOutput) { super.init(graphNode: output) }
    open override var numberOfOutputs: Int { 0 }

    /// How far the engine renders ahead of what is heard (its stream's buffers and the sink's latency),
    /// measured while it plays; 0 when it does not.
    open override var presentationLatency: TimeInterval { engine?.graph.outputLatency ?? 0 }

    /// The engine's format (its rate, two channels).
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }
}

/// The default source (or the one PULSE_SOURCE names), at its own rate and channels: a tap on bus 0
/// receives what it captures while the engine runs; connected into the graph (to the main mixer, live
/// monitoring) it is heard, resampled to the engine's rate if need be, about 0.1 s late.
open class AVAudioInputNode: AVAudioIONode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `captureFormat` is fixed when made; the voice processing
    // switches are behind their lock.
    /// The source's rate and channels (44.1 kHz mono when the server cannot be asked), standard format.
    let captureFormat: AVAudioFormat
    private let switches = Locked((bypassed: false, agc: true))
    var input: GraphInput { graphNode as! GraphInput }

    /// How long a frame takes from capture to the engine (the source's latency and one 50 ms buffer),
    /// measured while it captures; 0 when it does not.
    open override var presentationLatency: TimeInterval { input.captureLatency ?? 0 }

    /// With voice processing on: true records the source itself, not its echo-cancelled version (from the
    /// next start).
    public var isVoiceProcessingBypassed: Bool {
        get { switches.withLock { $0.bypassed } }
        set {
            switches.withLock { $0.bypassed = newValue }
            if let processing = engine?.voiceProcessing { input.source = newValue ? nil : processing.source }
        }
    }

    /// Kept: the gain control is the echo canceller's own (module-echo-cancel's `aec_args`).
    public var isVoiceProcessingAGCEnabled: Bool {
        get { switches.withLock { $0.agc } }
        set { switches.withLock { $0.agc = newValue } }
    }

    /// True: the node captures silence (taps, connections and sink nodes get zeros).
    public var isVoiceProcessingInputMuted: Bool {
        get { input.isMuted }
        set { input.isMuted = newValue }
    }

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

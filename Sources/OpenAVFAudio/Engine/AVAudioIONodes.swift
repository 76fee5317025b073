// The engine's ends and middle: the output node (what it is given is played), the input node (the default
// source, for taps), and the mixer (its inputs summed at their volume and pan, times its output volume).
import Foundation
import RecorderKit

/// What the engine plays: its input is the main mixer.
open class AVAudioOutputNode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    open override var numberOfOutputs: Int { 0 }

    override func render(_ frames: Int, into output: inout [[Float]], context: RenderContext) {
        guard let core else { return super.render(frames, into: &output, context: context) }
        output = core.pullInput(of: self, bus: 0, frames: frames, channels: 2, context: context)
    }
}

/// The default source (or the one PULSE_SOURCE names), at its own rate and channels: a tap on bus 0
/// receives what it captures while the engine runs. Connecting it into the graph (live monitoring) is not
/// built: it renders silence there.
open class AVAudioInputNode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `captureFormat` is fixed when made.
    /// The source's rate and channels (44.1 kHz mono when the server cannot be asked), standard format.
    let captureFormat: AVAudioFormat

    public override init() {
        let sources = (try? Recorder.sources()) ?? []
        let source = ProcessInfo.processInfo.environment["PULSE_SOURCE"].flatMap { name in sources.first { $0.name == name } }
            ?? sources.first(where: \.isDefault)
        captureFormat = AVAudioFormat(standardFormatWithSampleRate: Double(source?.sampleRate ?? 44_100),
                                      channels: AVAudioChannelCount(min(2, max(1, source?.channelCount ?? 1))))!
        super.init()
    }

    open override var numberOfInputs: Int { 0 }
    override var outputChannelCount: Int { Int(captureFormat.channelCount) }
}

/// Sums its inputs into the engine's two channels: each at its node's `volume`, a mono input placed by its
/// `pan` (full level in both channels at 0, the far side fading linearly to silence at ±1), a stereo
/// input's `pan` a balance (the other side fading linearly); then times `outputVolume`.
open class AVAudioMixerNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private var master: Float = 1

    /// The gain of the mix, 0…1 (clamped; NaN ignored).
    public var outputVolume: Float {
        get { withCoreLock { master } }
        set { if !newValue.isNaN { withCoreLock { master = min(1, max(0, newValue)) } } }
    }

    /// The lowest input bus nothing is connected to.
    public var nextAvailableInputBus: AVAudioNodeBus {
        guard let core else { return 0 }
        return core.lock.withLock {
            let used = Set(core.connections.filter { $0.destination === self }.map(\.destinationBus))
            return (0...).first { !used.contains($0) }!
        }
    }

    open override var numberOfInputs: Int { 4_096 }

    override func render(_ frames: Int, into output: inout [[Float]], context: RenderContext) {
        super.render(frames, into: &output, context: context)
        guard let core else { return }
        for connection in core.inputConnections(of: self) {
            let node = connection.source
            let audio = core.pull(node, frames: frames, context: context)
            let volume = node.mixVolume, pan = node.mixPan
            let left = volume * (pan > 0 ? 1 - pan : 1), right = volume * (pan < 0 ? 1 + pan : 1)
            let second = audio.count > 1 ? 1 : 0
            for frame in 0..<frames {
                output[0][frame] += audio[0][frame] * left
                output[1][frame] += audio[second][frame] * right
            }
        }
        let gain = master
        if gain != 1 {
            for channel in 0..<2 { for frame in 0..<frames { output[channel][frame] *= gain } }
        }
    }
}

extension AVAudioNode {
    /// Runs `body` under the engine's lock when attached (else as is: a node not attached is its maker's).
    func withCoreLock<R>(_ body: () -> R) -> R {
        if let core { return core.lock.withLock(body) }
        return body()
    }
}

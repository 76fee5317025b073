// AVAudioNode: Apple's node over a RecorderKit graph node — its engine, its connections' formats, its tap,
// the last time it rendered; AVAudioMixing's volume and pan on the nodes that enter a mixer.
import Foundation
import Locking
import RecorderKit

public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void
public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void

/// A node's balance where it enters a mixer.
public protocol AVAudioStereoMixing: AnyObject {
    /// −1 (left) … 1 (right): a mono node's place between the mixer's two channels, a stereo node's balance.
    var pan: Float { get set }
}

/// A node's volume where it enters a mixer, its pan there, and its place where it enters an
/// environment (AVAudio3DMixing): AVAudioPlayerNode, effects, the mixers.
public protocol AVAudioMixing: AVAudioStereoMixing, AVAudio3DMixing {
    /// Gain into the mixer, 0…1.
    var volume: Float { get set }
}

extension AVAudioStereoMixing where Self: AVAudioNode {
    /// The node's place (mono) or balance (stereo) in a mixer, −1…1 (clamped; NaN ignored): full level on
    /// both sides at 0, the far side falling linearly to silence at ±1 (`GraphNode.pan`).
    public var pan: Float {
        get { graphNode.pan }
        set { graphNode.pan = newValue }
    }
}

extension AVAudioMixing where Self: AVAudioNode {
    /// The node's gain into a mixer, 0…1 (clamped; NaN ignored).
    public var volume: Float {
        get { graphNode.volume }
        set { graphNode.volume = newValue }
    }
}

/// A node: the RecorderKit `GraphNode` that renders it, attached to at most one engine.
open class AVAudioNode: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the graph node is Sendable; `links` (engine and formats) is behind its lock.
    let graphNode: GraphNode
    struct Links {
        weak var engine: AVAudioEngine?
        /// The formats of the connections into the node's buses, and of the one out of it.
        var inputFormats: [AVAudioNodeBus: AVAudioFormat] = [:]
        var outputFormat: AVAudioFormat?
    }
    let links = Locked(Links())
    /// The AVAudio3DMixing choices kept here (the rest are the graph node's placement).
    let mixing3D = Locked(Mixing3D())

    init(graphNode: GraphNode) {
        self.graphNode = graphNode
        super.init()
    }

    /// The engine the node is attached to.
    public var engine: AVAudioEngine? { links.withLock { $0.engine } }

    /// Input buses (0 for a source).
    open var numberOfInputs: Int { graphNode.inputBusCount }
    /// Output buses (0 for the output node).
    open var numberOfOutputs: Int { 1 }

    /// The format of the connection into `bus`, or the engine's if not connected.
    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        let (engine, format) = links.withLock { ($0.engine, $0.inputFormats[bus]) }
        return format ?? engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }

    /// The format of what the node puts out on `bus`: the connection's out of it, else into it, else the engine's.
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        let (engine, out, into) = links.withLock { ($0.engine, $0.outputFormat, $0.inputFormats.sorted { $0.key < $1.key }.first?.value) }
        return out ?? into ?? engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }

    /// When the engine last rendered: its output's sample time and the host time then; nil before it has.
    public var lastRenderTime: AVAudioTime? {
        guard let engine, let time = engine.graph.lastRenderTime else { return nil }
        return AVAudioTime(hostTime: time.hostTime, sampleTime: time.sampleTime, atRate: Double(engine.graph.sampleRate))
    }

    /// Calls `block` with each buffer of what the node puts out on `bus` 0 (standard format, a render pass
    /// or a capture buffer long, whatever `bufferSize` asks; `format` must be nil or the node's output
    /// format), as it begins to be heard (its time's host time is that moment), on the engine's render
    /// thread (the input node's: as captured, on its capture thread). What Apple's engine stops the program for — a second tap, a bus other than 0 — is refused:
    /// the first tap stays, and `OpenAVFAudioLastErrorMessage()` says why.
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                         block tapBlock: @escaping AVAudioNodeTapBlock) {
        guard bus == 0 else {
            AVAudioEngine.noteRefusal("installTap: \(type(of: self)) has one output bus, 0; bus \(bus) does not exist")
            return
        }
        let block = UncheckedTapBlock(block: tapBlock)
        do {
            try graphNode.installTap(bufferFrames: Int(min(bufferSize, 1 << 20))) { tapped in block.deliver(tapped) }
        } catch {
            // (The one refusal: a tap is there already.)
            AVAudioEngine.noteRefusal("a tap is already installed on bus \(bus) of \(type(of: self)); remove it first")
        }
    }

    /// Removes the tap on `bus`, if any.
    open func removeTap(onBus bus: AVAudioNodeBus) {
        if bus == 0 { graphNode.removeTap() }
    }

    /// Clears what the node holds (a player's schedule, an effect's tail).
    open func reset() { graphNode.reset() }
}

/// A tap's block, called only on the thread that renders the node (as Apple calls it), so never at once
/// from two threads.
private struct UncheckedTapBlock: @unchecked Sendable {
    // @unchecked Sendable: the block is Apple's non-Sendable type; the graph calls one tap's handler from
    // one thread at a time (its render pass, or the input's capture thread).
    let block: AVAudioNodeTapBlock

    func deliver(_ tapped: GraphTapBuffer) {
        let channels = tapped.channels.count
        guard let first = tapped.channels.first, !first.isEmpty,
              let format = AVAudioFormat(standardFormatWithSampleRate: Double(tapped.sampleRate), channels: AVAudioChannelCount(channels)),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(first.count)) else { return }
        for (channel, samples) in tapped.channels.enumerated() {
            samples.withUnsafeBufferPointer { buffer.floatChannelData![channel].update(from: $0.baseAddress!, count: samples.count) }
        }
        buffer.frameLength = AVAudioFrameCount(first.count)
        block(buffer, AVAudioTime(hostTime: tapped.hostTime, sampleTime: tapped.sampleTime, atRate: Double(tapped.sampleRate)))
    }
}

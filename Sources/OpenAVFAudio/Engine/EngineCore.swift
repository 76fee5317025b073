// The engine's graph and its render pass: connections between nodes, the one lock every node's state is
// under, and the pull from the output node back to the sources, run on the playback stream's thread.
import Foundation
import Locking
import RecorderKit

final class EngineCore: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is under `lock`.
    struct Connection {
        var source: AVAudioNode
        var sourceBus: AVAudioNodeBus
        var destination: AVAudioNode
        var destinationBus: AVAudioNodeBus
        var format: AVAudioFormat
    }

    let lock = PosixMutex()
    weak var engine: AVAudioEngine?
    var attached: [ObjectIdentifier: AVAudioNode] = [:]
    /// The engine's own nodes, made on first use.
    var mixer: AVAudioMixerNode?
    var output: AVAudioOutputNode?
    var input: AVAudioInputNode?
    var connections: [Connection] = []
    /// The output's format: the main mixer's rate (the first format connected into it, else 44.1 kHz), two channels.
    var format = EngineCore.defaultFormat
    var renderedFrames: Int64 = 0
    var lastRenderHostTime: UInt64 = 0
    /// Per node: its output of the current render pass (so a node feeding two others renders once).
    private var rendered: [ObjectIdentifier: [[Float]]] = [:]
    private var renderPass = 0
    private var renderedIn: [ObjectIdentifier: Int] = [:]

    static let defaultFormat = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!

    init() {}

    // MARK: Graph (under the lock)

    func inputConnections(of node: AVAudioNode) -> [Connection] {
        connections.filter { $0.destination === node }.sorted { $0.destinationBus < $1.destinationBus }
    }

    func inputFormat(of node: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioFormat {
        connections.first { $0.destination === node && $0.destinationBus == bus }?.format ?? format
    }

    func outputFormat(of node: AVAudioNode) -> AVAudioFormat {
        if node is AVAudioMixerNode || node is AVAudioOutputNode { return format }
        if let input = node as? AVAudioInputNode { return input.captureFormat }
        return connections.first { $0.source === node }?.format ?? connections.first { $0.destination === node }?.format ?? format
    }

    /// The output's format follows the first format connected into the main mixer.
    func settleFormat() {
        guard let mixer, let first = inputConnections(of: mixer).first?.format else { return }
        format = AVAudioFormat(standardFormatWithSampleRate: first.sampleRate, channels: 2) ?? format
    }

    // MARK: Rendering (the stream's thread)

    /// Renders `frames` frames of the output node's input, two channels.
    func renderOutput(_ frames: Int, context: RenderContext) -> [[Float]] {
        renderPass &+= 1
        guard let output else { return [[Float]](repeating: [Float](repeating: 0, count: frames), count: 2) }
        let mix = pullInput(of: output, bus: 0, frames: frames, channels: 2, context: context)
        renderedFrames += Int64(frames)
        lastRenderHostTime = context.hostTime
        return mix
    }

    /// What flows into `node`'s `bus` for this pass, as `channels` channels (mono spread, extra dropped);
    /// silence if nothing is connected there.
    func pullInput(of node: AVAudioNode, bus: AVAudioNodeBus, frames: Int, channels: Int, context: RenderContext) -> [[Float]] {
        guard let connection = connections.first(where: { $0.destination === node && $0.destinationBus == bus }) else {
            return [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
        }
        let audio = pull(connection.source, frames: frames, context: context)
        guard audio.count != channels else { return audio }
        return (0..<channels).map { audio[min($0, audio.count - 1)] }
    }

    /// `node`'s output for `frames` frames, rendered once per pass (a node two others read renders once)
    /// unless `again` (a time effect takes more of its input than it puts out); its taps get a copy.
    func pull(_ node: AVAudioNode, frames: Int, context: RenderContext, again: Bool = false) -> [[Float]] {
        let id = ObjectIdentifier(node)
        if !again, renderedIn[id] == renderPass, let audio = rendered[id], audio.first?.count == frames { return audio }
        var audio = [[Float]](repeating: [Float](repeating: 0, count: frames), count: max(1, node.outputChannelCount))
        node.render(frames, into: &audio, context: context)
        node.renderedFrames += Int64(frames)
        node.lastRenderHostTime = context.hostTime
        rendered[id] = audio
        renderedIn[id] = renderPass
        deliverTaps(of: node, audio, context: context)
        return audio
    }

    /// Copies `audio` for each tap of `node` and calls the taps once the lock is released.
    func deliverTaps(of node: AVAudioNode, _ audio: [[Float]], context: RenderContext) {
        guard let tap = node.taps[0], let first = audio.first, !first.isEmpty,
              let format = AVAudioFormat(standardFormatWithSampleRate: (node as? AVAudioInputNode)?.captureFormat.sampleRate ?? format.sampleRate,
                                         channels: AVAudioChannelCount(audio.count)),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(first.count)) else { return }
        for (channel, samples) in audio.enumerated() {
            samples.withUnsafeBufferPointer { buffer.floatChannelData![channel].update(from: $0.baseAddress!, count: samples.count) }
        }
        buffer.frameLength = AVAudioFrameCount(first.count)
        let time = AVAudioTime(hostTime: context.hostTime, sampleTime: node.renderedFrames - Int64(first.count), atRate: format.sampleRate)
        let block = tap.block
        context.deferred.append { block(buffer, time) }
    }

    func tapsChanged() { engine?.tapsChanged() }

    // MARK: Refusals

    private static let refusal = Locked<String?>(nil)
    static func noteRefusal(_ message: String) { refusal.withLock { $0 = message } }
    static var lastRefusal: String? { refusal.withLock { $0 } }
}

/// The one line behind the engine's last refusal that Apple's engine makes with an exception (a second tap
/// on a bus, a node connected twice, playing a node whose engine is not running); nil before any.
/// Linux only: Apple's engine stops the program there.
public func OpenAVFAudioLastErrorMessage() -> String? { EngineCore.lastRefusal }

// AVAudioEngine over RecorderKit's PlaybackGraph: attaches and connects nodes (keeping Apple's connection
// formats), and runs the graph: its output through a playback stream, its input node through a capture.
import Foundation
import Locking
import RecorderKit

open class AVAudioEngine: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the graph is Sendable; the engine's own nodes are behind `made`'s lock.
    let graph = PlaybackGraph()
    private let made = Locked(Made())
    /// The manual rendering mode, format and largest render, while enabled (AVAudioEngine+ManualRendering).
    let manual = Locked<ManualRendering?>(nil)
    /// The server's echo-cancelling source and sink, while voice processing is on.
    private let processing = Locked<(source: String, sink: String)?>(nil)
    var voiceProcessing: (source: String, sink: String)? { processing.withLock { $0 } }

    /// Voice processing on: the input node records the echo-cancelling source, the engine plays to the
    /// echo-cancelling sink; off: the defaults again. The engine must be stopped.
    func setVoiceProcessing(_ enabled: Bool) throws {
        guard !isRunning else {
            throw statusError(kAudioUnitErr_Initialized, "cannot change voice processing while the engine runs: stop() it first")
        }
        guard enabled else {
            processing.withLock { $0 = nil }
            inputNodeIfMade?.input.source = nil
            return
        }
        let sources = (try? Recorder.sources()) ?? [], sinks = (try? Player.sinks()) ?? []
        let cancelling = { (name: String) in name.contains("echo-cancel") || name.contains("echo_cancel") }
        guard let source = sources.first(where: { cancelling($0.name) && !$0.isMonitor })?.name,
              let sink = sinks.first(where: { cancelling($0.name) })?.name else {
            throw statusError(kAudioUnitErr_FailedInitialization,
                "cannot turn voice processing on: the server has no echo canceller; load one with "
                + "`pactl load-module module-echo-cancel` (PulseAudio or pipewire-pulse) and try again")
        }
        processing.withLock { $0 = (source, sink) }
        inputNode.input.source = inputNode.isVoiceProcessingBypassed ? nil : source
    }

    private struct Made {
        var mixer: AVAudioMixerNode?
        var output: AVAudioOutputNode?
        var input: AVAudioInputNode?
        /// The nodes attached, by identity (the graph knows their RecorderKit nodes).
        var attached: [ObjectIdentifier: AVAudioNode] = [:]
    }

    static let defaultFormat = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!

    public override init() { super.init() }

    deinit { graph.stop() }

    /// The engine's format: its rate (the first format connected into the main mixer's; else 44.1 kHz), two channels.
    var outputFormat: AVAudioFormat {
        if let format = manual.withLock({ $0?.format }) { return format }
        return AVAudioFormat(standardFormatWithSampleRate: Double(graph.sampleRate), channels: 2) ?? Self.defaultFormat
    }

    // MARK: Nodes

    /// The output node (made on first use).
    public var outputNode: AVAudioOutputNode {
        made.withLock { made in
            if let output = made.output { return output }
            let output = AVAudioOutputNode(graph.output)
            made.output = output
            adopt(output, &made)
            return output
        }
    }

    /// The main mixer (made on first use, connected to the output node).
    public var mainMixerNode: AVAudioMixerNode {
        _ = outputNode
        return made.withLock { made in
            if let mixer = made.mixer { return mixer }
            let mixer = AVAudioMixerNode(graph.mainMixer)
            made.mixer = mixer
            adopt(mixer, &made)
            return mixer
        }
    }

    /// The input node (made on first use): the default source (or the one PULSE_SOURCE names).
    public var inputNode: AVAudioInputNode {
        if let input = made.withLock({ $0.input }) { return input }
        let node = AVAudioInputNode(GraphInput())  // asks the server for the source's format: not under the lock
        let input = made.withLock { made -> AVAudioInputNode in
            if let input = made.input { return input }
            made.input = node
            return node
        }
        if input === node { attach(node) }
        return input
    }

    /// The input node if it was asked for (asking makes it, which asks the server).
    var inputNodeIfMade: AVAudioInputNode? { made.withLock { $0.input } }

    /// An engine's own node: in the graph already (mixer, output) or attached by the caller.
    private func adopt(_ node: AVAudioNode, _ made: inout Made) {
        made.attached[ObjectIdentifier(node)] = node
        node.links.withLock { $0.engine = self }
    }

    /// The nodes attached.
    public var attachedNodes: Set<AVAudioNode> { made.withLock { Set($0.attached.values) } }

    /// Attaches `node` (a node attached to another engine is refused, as Apple refuses it).
    public func attach(_ node: AVAudioNode) {
        do {
            try graph.attach(node.graphNode)
        } catch {
            Self.noteRefusal("attach: \(type(of: node)) is attached to another engine; detach it there first")
            return
        }
        made.withLock { adopt(node, &$0) }
    }

    /// Detaches `node` and its connections. The engine's own main mixer, output and input nodes stay:
    /// refused with a line (Apple's engine stops the program; detached, they were left half attached).
    public func detach(_ node: AVAudioNode) {
        let own = made.withLock { made in [made.mixer, made.output, made.input].contains { $0 === node } }
        guard !own else {
            Self.noteRefusal("detach: the engine's \(type(of: node)) is its own and stays attached; disconnect it instead")
            return
        }
        graph.detach(node.graphNode)
        made.withLock { $0.attached[ObjectIdentifier(node)] = nil }
        node.links.withLock { $0 = AVAudioNode.Links() }
        settleFormat()
    }

    /// Connects `node1`'s output bus 0 to `node2`'s next free input (a mixer or an environment) or input 0, in `format` (nil:
    /// `node1`'s output format).
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        let mixes = node2 is AVAudioMixerNode || node2 is AVAudioEnvironmentNode
        let bus = mixes ? graph.nextAvailableInputBus(of: node2.graphNode) : 0
        connect(node1, to: node2, fromBus: 0, toBus: bus, format: format)
    }

    /// Connects `node1`'s `bus1` to `node2`'s `bus2` in `format` (nil: `node1`'s output format), replacing
    /// what was connected there. Both must be attached here; a node's output feeds one input (a second
    /// connection from it replaces the first, as on Apple's engine). What Apple's engine stops the program
    /// for is refused with a line in `OpenAVFAudioLastErrorMessage()`.
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus,
                        format: AVAudioFormat?) {
        guard bus1 == 0, bus2 >= 0 else {
            Self.noteRefusal("connect: buses count from 0, and a node has one output bus, 0")
            return
        }
        guard !(node1 is AVAudioOutputNode) else {
            Self.noteRefusal("connect: the output node plays what comes into it and puts nothing out; connect into it")
            return
        }
        let chosen = format ?? node1.outputFormat(forBus: 0)
        guard playableRate(chosen.sampleRate) != nil else {
            Self.noteRefusal("connect: a format of \(chosen.sampleRate) Hz cannot be played; use 1 to \(StreamFormat.maxSampleRate) Hz")
            return
        }
        let replaced = graph.destination(of: node1.graphNode)
        do {
            try graph.connect(node1.graphNode, to: node2.graphNode, bus: bus2)
        } catch {
            Self.noteRefusal(error.message)
            return
        }
        if let (node, bus) = replaced, let old = wrapper(of: node) { old.links.withLock { _ = $0.inputFormats.removeValue(forKey: bus) } }
        node1.links.withLock { $0.outputFormat = chosen }
        node2.links.withLock { $0.inputFormats[bus2] = chosen }
        settleFormat()
    }

    /// Removes the connection into `node`'s `bus`.
    public func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        let source = graph.source(into: node.graphNode, bus: bus)
        graph.disconnectInput(of: node.graphNode, bus: bus)
        node.links.withLock { _ = $0.inputFormats.removeValue(forKey: bus) }
        if let source, let wrapper = wrapper(of: source) { wrapper.links.withLock { $0.outputFormat = nil } }
        settleFormat()
    }

    /// Removes every connection into `node`.
    public func disconnectNodeInput(_ node: AVAudioNode) {
        let buses = node.links.withLock { Array($0.inputFormats.keys) }
        for bus in buses { disconnectNodeInput(node, bus: bus) }
    }

    /// Removes every connection out of `node`.
    public func disconnectNodeOutput(_ node: AVAudioNode) {
        if let (destination, bus) = graph.destination(of: node.graphNode), let wrapper = wrapper(of: destination) {
            disconnectNodeInput(wrapper, bus: bus)
        }
    }

    /// The AVAudioNode of a graph node attached here.
    func wrapper(of node: GraphNode) -> AVAudioNode? {
        made.withLock { made in made.attached.values.first { $0.graphNode === node } }
    }

    /// The engine's rate follows the first format connected into the main mixer (until it runs).
    private func settleFormat() {
        guard !isRunning, manual.withLock({ $0 == nil }), let mixer = made.withLock({ $0.mixer }) else { return }
        let first = mixer.links.withLock { $0.inputFormats.sorted { $0.key < $1.key }.first?.value }
        graph.sampleRate = first.flatMap { playableRate($0.sampleRate) } ?? 44_100
    }

    // MARK: Running

    /// Nothing to allocate ahead here: `start()` connects.
    public func prepare() {}

    /// Whether the engine runs.
    public var isRunning: Bool { graph.isRunning }

    /// Starts: plays the graph to the default sink (or PULSE_SINK's) and starts the input node's capture if
    /// it has a tap or is connected; throws an NSError whose description says what failed (no server, no
    /// device, a rate no stream carries).
    public func start() throws {
        do {
            if manual.withLock({ $0 != nil }) {
                try graph.startManualRendering()
                return
            }
            try graph.start(device: voiceProcessing?.sink, clientName: ProcessInfo.processInfo.processName)
        } catch {
            throw statusError(error.code == .invalidFormat ? kAudioFormatUnsupportedDataFormatError : kAudioQueueErr_InvalidDevice,
                              error.message)
        }
    }

    /// Pauses the output and the input; `start()` resumes.
    public func pause() { graph.pause() }

    /// Stops the output and the input; the graph stays.
    public func stop() { graph.stop() }

    /// Resets every node (player nodes' schedules, effects' tails).
    public func reset() {
        made.withLock { Array($0.attached.values) }.forEach { $0.reset() }
    }

    // MARK: Refusals

    private static let refusal = Locked<String?>(nil)
    static func noteRefusal(_ message: String) { refusal.withLock { $0 = message } }
    static var lastRefusal: String? { refusal.withLock { $0 } }
}

/// The one line behind the engine's last refusal that Apple's engine makes with an exception (a second tap
/// on a bus, a node connected twice, playing a node whose engine is not running); nil before any.
/// Linux only: Apple's engine stops the program there.
public func OpenAVFAudioLastErrorMessage() -> String? { AVAudioEngine.lastRefusal }

// AVAudioEngine: attaches and connects nodes, and runs them: the output node through a RecorderKit Player
// whose output callback renders the graph, the input node through a Recorder whose buffers go to its tap.
import Foundation
import Locking
import RecorderKit

open class AVAudioEngine: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the graph is under `core.lock`; `running` and the streams under `streams`.
    let core: EngineCore
    private let streams = Locked(Streams())

    private struct Streams {
        var player: Player?
        var recorder: Recorder?
        var running = false
    }

    public override init() {
        core = EngineCore()
        super.init()
        core.engine = self
    }

    deinit { stop() }

    // MARK: Nodes

    /// The output node (made on first use).
    public var outputNode: AVAudioOutputNode {
        core.lock.withLock {
            if let output = core.output { return output }
            let output = AVAudioOutputNode()
            core.output = output
            attachLocked(output)
            return output
        }
    }

    /// The main mixer (made on first use, connected to the output node).
    public var mainMixerNode: AVAudioMixerNode {
        let output = outputNode
        return core.lock.withLock {
            if let mixer = core.mixer { return mixer }
            let mixer = AVAudioMixerNode()
            core.mixer = mixer
            attachLocked(mixer)
            core.connections.append(.init(source: mixer, sourceBus: 0, destination: output, destinationBus: 0, format: core.format))
            return mixer
        }
    }

    /// The input node (made on first use): the default source (or the one PULSE_SOURCE names).
    public var inputNode: AVAudioInputNode {
        if let input = core.lock.withLock({ core.input }) { return input }
        let made = AVAudioInputNode()  // asks the server for the source's format: not under the lock
        return core.lock.withLock {
            if let input = core.input { return input }
            core.input = made
            attachLocked(made)
            return made
        }
    }

    /// The nodes attached.
    public var attachedNodes: Set<AVAudioNode> { core.lock.withLock { Set(core.attached.values) } }

    /// Attaches `node` (a node attached to another engine is refused, as Apple refuses it).
    public func attach(_ node: AVAudioNode) {
        if let other = node.core, other !== core {
            EngineCore.noteRefusal("\(type(of: node)) is attached to another engine; detach it there first")
            return
        }
        core.lock.withLock { attachLocked(node) }
    }

    private func attachLocked(_ node: AVAudioNode) {
        core.attached[ObjectIdentifier(node)] = node
        node.core = core
    }

    /// Detaches `node` and its connections.
    public func detach(_ node: AVAudioNode) {
        core.lock.withLock {
            core.connections.removeAll { $0.source === node || $0.destination === node }
            core.attached[ObjectIdentifier(node)] = nil
            node.core = nil
            core.settleFormat()
        }
    }

    /// Connects `node1`'s output bus 0 to `node2`'s next free input (a mixer) or input 0, in `format` (nil:
    /// `node1`'s output format).
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        let bus = (node2 as? AVAudioMixerNode)?.nextAvailableInputBus ?? 0
        connect(node1, to: node2, fromBus: 0, toBus: bus, format: format)
    }

    /// Connects `node1`'s `bus1` to `node2`'s `bus2` in `format` (nil: `node1`'s output format), replacing
    /// what was connected there. Both must be attached here; a node's output feeds one input (a second
    /// connection from it replaces the first, as on Apple's engine).
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus,
                        format: AVAudioFormat?) {
        core.lock.withLock {
            guard node1.core === core, node2.core === core else {
                EngineCore.noteRefusal("connect: both nodes must be attached to this engine first (attach(_:))")
                return
            }
            guard node1 !== node2, bus1 >= 0, bus2 >= 0, bus2 < 4_096 else {
                EngineCore.noteRefusal("connect: a node cannot feed itself, and buses count from 0")
                return
            }
            let chosen = format ?? core.outputFormat(of: node1)
            core.connections.removeAll { ($0.source === node1 && $0.sourceBus == bus1) || ($0.destination === node2 && $0.destinationBus == bus2) }
            core.connections.append(.init(source: node1, sourceBus: bus1, destination: node2, destinationBus: bus2, format: chosen))
            core.settleFormat()
        }
    }

    /// Removes the connection into `node`'s `bus`.
    public func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        core.lock.withLock { core.connections.removeAll { $0.destination === node && $0.destinationBus == bus } }
    }

    /// Removes every connection into `node`.
    public func disconnectNodeInput(_ node: AVAudioNode) {
        core.lock.withLock { core.connections.removeAll { $0.destination === node } }
    }

    /// Removes every connection out of `node`.
    public func disconnectNodeOutput(_ node: AVAudioNode) {
        core.lock.withLock { core.connections.removeAll { $0.source === node } }
    }

    // MARK: Running

    /// Nothing to allocate ahead here: `start()` connects.
    public func prepare() {}

    /// Whether the engine runs.
    public var isRunning: Bool { streams.withLock { $0.running } }

    /// Starts: connects the output (if the main mixer or the output node is in use) to the default sink
    /// (or PULSE_SINK's) and the input (if it has a tap) to the default source; throws an NSError whose
    /// description says what failed (no server, no device).
    public func start() throws {
        guard !isRunning else { return }
        let usesOutput = core.lock.withLock { core.mixer != nil || (core.output != nil && !core.connections.isEmpty) }
        var player: Player?
        if usesOutput {
            let format = core.lock.withLock { core.format }
            do {
                guard let stream = try? StreamFormat(sampleRate: Int(format.sampleRate), channelCount: 2) else {
                    throw statusError(kAudioFormatUnsupportedDataFormatError,
                        "cannot start the engine at \(format.sampleRate) Hz: use a whole rate of 1 to \(StreamFormat.maxSampleRate) Hz")
                }
                player = try Player(format: stream, bufferCount: 3, bufferDuration: 0.05,
                                    clientName: ProcessInfo.processInfo.processName) { [weak self] output in
                    guard let self else {
                        output.frameCount = 0
                        return
                    }
                    self.render(&output)
                }
                try player?.play()
            } catch let error as RecorderError {
                player?.close()
                throw statusError(kAudioQueueErr_InvalidDevice, error.message)
            }
        }
        streams.withLock {
            $0.player = player
            $0.running = true
        }
        tapsChanged()
    }

    /// Pauses the output and the input; `start()` resumes.
    public func pause() {
        let (player, recorder) = streams.withLock { streams -> (Player?, Recorder?) in
            streams.running = false
            defer { streams.recorder = nil }
            return (streams.player, streams.recorder)
        }
        player?.pause()
        recorder?.stop()
    }

    /// Stops the output and the input; the graph stays.
    public func stop() {
        let (player, recorder) = streams.withLock { streams -> (Player?, Recorder?) in
            streams.running = false
            defer {
                streams.player = nil
                streams.recorder = nil
            }
            return (streams.player, streams.recorder)
        }
        player?.close()
        recorder?.stop()
    }

    /// Resets every node (player nodes' schedules, effects' tails).
    public func reset() {
        let nodes = core.lock.withLock { Array(core.attached.values) }
        nodes.forEach { $0.reset() }
    }

    // MARK: Render and capture

    /// The output callback: renders the graph into `output`, then runs what the pass deferred.
    private func render(_ output: inout OutputBuffer) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let context = RenderContext(hostTime: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))
        let frames = output.frameCapacity
        let mix = core.lock.withLock { core.renderOutput(frames, context: context) }
        for frame in 0..<frames {
            output.setSample(mix[0][frame], frame: frame, channel: 0)
            output.setSample(mix[1][frame], frame: frame, channel: 1)
        }
        context.deferred.forEach { $0() }
    }

    /// Starts or ends the input's capture as its tap comes and goes while running.
    func tapsChanged() {
        guard let input = core.lock.withLock({ core.input }) else { return }
        let wanted = core.lock.withLock { input.taps[0] != nil } && isRunning
        let current = streams.withLock { $0.recorder }
        if wanted, current == nil {
            let format = input.captureFormat
            guard let stream = try? StreamFormat(sampleRate: Int(format.sampleRate), channelCount: Int(format.channelCount), sampleFormat: .float32),
                  let recorder = try? Recorder(format: stream, bufferCount: 3, bufferDuration: 0.1,
                                               clientName: ProcessInfo.processInfo.processName) else {
                EngineCore.noteRefusal("the input node could not start capturing from the default source")
                return
            }
            recorder.setInputHandler { [weak self, weak input] captured in
                guard let self, let input else { return }
                self.capture(captured, for: input)
            }
            streams.withLock { $0.recorder = recorder }
        } else if !wanted, let current {
            streams.withLock { $0.recorder = nil }
            current.stop()
        }
    }

    /// On the recorder's delivery thread: the captured buffer, as float channels, to the input's tap.
    private func capture(_ captured: CapturedBuffer, for input: AVAudioInputNode) {
        let channels = captured.format.channelCount
        var audio = [[Float]](repeating: [Float](repeating: 0, count: captured.frameCount), count: channels)
        for channel in 0..<channels {
            _ = audio[channel].withUnsafeMutableBufferPointer { captured.copyFloatSamples(channel: channel, into: $0) }
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let context = RenderContext(hostTime: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))
        core.lock.withLock {
            input.renderedFrames += Int64(captured.frameCount)
            input.lastRenderHostTime = context.hostTime
            core.deliverTaps(of: input, audio, context: context)
        }
        context.deferred.forEach { $0() }
    }
}

// One AUGraph over a RecorderKit playback graph: its nodes (each an Audio Unit once the graph is open),
// the connections and render callbacks between them, and its life (open, initialized, running) as
// Apple's AUGraph goes through it. The output node is the playback graph's output: an I/O unit plays it
// to the server's sink, the generic output renders it for AudioUnitRender.
import Foundation
import Locking
import RecorderKit

final class AUGraphObject: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is under `lock`, the playback graph's own recursive lock
    // (a render pass holds it while it calls a render callback, which may call back here). The graph is
    // started and stopped without it: a starting stream renders its first buffers on its own thread.
    let graph = PlaybackGraph()
    var lock: PosixMutex { graph.lock }

    struct Node {
        let id: AUNode
        let description: AudioComponentDescription
        let kind: GraphUnit.Kind
        var unit: GraphUnit?
    }
    private(set) var nodes: [Node] = []
    private var nextID: AUNode = 1
    private(set) var connections: [AUNodeConnection] = []
    private var callbacks: [CallbackKey: RenderCallbackSource] = [:]
    private struct CallbackKey: Hashable {
        let node: AUNode
        let bus: Int
    }
    private(set) var isOpen = false
    /// The generic output's own buffers, lent to an AudioUnitRender given none (under `lock`).
    private var ownBuffers: [UnsafeMutableRawPointer] = []
    private var ownBytes = 0
    private(set) var isInitialized = false
    private(set) var isRunning = false

    deinit { ownBuffers.forEach { $0.deallocate() } }

    var outputNode: Node? { lock.withLock { nodes.first { $0.kind == .hardwareOutput || $0.kind == .genericOutput } } }

    func node(_ id: AUNode) -> Node? { lock.withLock { nodes.first { $0.id == id } } }

    // MARK: Nodes

    /// Adds a node of `description`: an output (one per graph), the file player or the multichannel mixer.
    func addNode(_ description: AudioComponentDescription) -> (OSStatus, AUNode) {
        guard let kind = GraphUnit.kind(of: description) else {
            QueueRegistry.noteFailure("an AUGraph here holds an output unit, the file player (kAudioUnitSubType_AudioFilePlayer), the "
                + "multichannel mixer (kAudioUnitSubType_MultiChannelMixer) and the time units (NewTimePitch, TimePitch, AUiPodTimeOther, "
                + "Varispeed); for other effects and instruments use AVAudioEngine")
            return (kAUGraphErr_InvalidAudioUnit, 0)
        }
        return lock.withLock {
            if kind == .hardwareOutput || kind == .genericOutput, outputNode != nil {
                QueueRegistry.noteFailure("an AUGraph has one output node; remove the other first")
                return (kAUGraphErr_OutputNodeErr, 0)
            }
            let id = nextID
            nextID += 1
            nodes.append(Node(id: id, description: description, kind: kind, unit: nil))
            if isOpen { open(nodeAt: nodes.count - 1) }
            return (noErr, id)
        }
    }

    /// Makes the unit of the node at `index` and its node in the playback graph (under `lock`).
    private func open(nodeAt index: Int) {
        let kind = nodes[index].kind
        let graphNode: GraphNode = switch kind {
        case .hardwareOutput, .genericOutput: graph.output
        case .filePlayer: GraphPlayer()
        case .mixer: GraphMixer()
        case .timePitch, .timeStretch: GraphTimePitch()
        case .varispeed: GraphVarispeed()
        }
        if graphNode !== graph.output { try? graph.attach(graphNode) }  // made here, so attached nowhere else
        let unit = GraphUnit(description: nodes[index].description, kind: kind, node: graphNode, lock: lock)
        unit.owner = self
        unit.handle = UnitRegistry.addGraphUnit(unit)
        nodes[index].unit = unit
    }

    /// Removes a node, its connections and callbacks, and its unit.
    func removeNode(_ id: AUNode) -> OSStatus {
        let removed = lock.withLock { () -> GraphUnit?? in
            guard let index = nodes.firstIndex(where: { $0.id == id }) else { return nil }
            for connection in connections where connection.sourceNode == id || connection.destNode == id {
                _ = disconnect(connection.destNode, bus: Int(connection.destInputNumber))
            }
            for key in callbacks.keys where key.node == id { _ = disconnect(id, bus: key.bus) }
            if let handle = nodes[index].unit?.handle { _ = UnitRegistry.removeGraphUnit(handle) }
            return nodes.remove(at: index).unit
        }
        guard let removed else { return kAUGraphErr_NodeNotFound }
        if let removed { release(removed) }
        return noErr
    }

    /// Stops a unit taken out of the graph and detaches its node: without the graph's lock, as a file
    /// player's stop runs the program's completions (which may stop or start the graph).
    private func release(_ unit: GraphUnit) {
        unit.reset()
        if unit.node !== graph.output { graph.detach(unit.node) }
    }

    // MARK: Connections

    /// Connects `source`'s output 0 to `destination`'s input `bus` (made in the playback graph at once
    /// once the graph is open). An input takes one connection or callback; an output feeds one input.
    func connect(_ source: AUNode, _ sourceBus: UInt32, to destination: AUNode, bus: UInt32) -> OSStatus {
        lock.withLock {
            guard let from = node(source), let to = node(destination) else { return kAUGraphErr_NodeNotFound }
            guard sourceBus == 0, from.kind != .hardwareOutput, from.kind != .genericOutput else {
                QueueRegistry.noteFailure(from.kind == .hardwareOutput
                    ? "an I/O unit's input (bus 1, the microphone) cannot feed a graph here; record with Audio Queue Services or AVAudioEngine's input node"
                    : "only output 0 of a file player, mixer or time unit can be connected")
                return kAUGraphErr_InvalidConnection
            }
            guard to.kind != .filePlayer, Int(bus) < busCount(of: to) else {
                QueueRegistry.noteFailure("the destination node has no input \(bus) (a file player has none, an output and a time unit "
                    + "one, a mixer its kAudioUnitProperty_ElementCount)")
                return kAUGraphErr_InvalidConnection
            }
            let key = CallbackKey(node: destination, bus: Int(bus))
            guard callbacks[key] == nil, !connections.contains(where: { $0.destNode == destination && $0.destInputNumber == bus }) else {
                QueueRegistry.noteFailure("input \(bus) of that node is already connected; disconnect it first (AUGraphDisconnectNodeInput)")
                return kAUGraphErr_InvalidConnection
            }
            guard !feeds(destination, source) else {
                QueueRegistry.noteFailure("connecting those nodes would make a loop (a node cannot feed itself, even through others)")
                return kAUGraphErr_InvalidConnection
            }
            connections.removeAll { $0.sourceNode == source }  // an output feeds one input
            connections.append(AUNodeConnection(sourceNode: source, sourceOutputNumber: 0, destNode: destination, destInputNumber: bus))
            if isOpen { makeConnection(from: from, to: to, bus: Int(bus)) }
            return noErr
        }
    }

    /// True if audio flows from node `from` to node `to` (or they are one) through the connections.
    private func feeds(_ from: AUNode, _ to: AUNode) -> Bool {
        var frontier = [from], seen: Set<AUNode> = []
        while let node = frontier.popLast() {
            if node == to { return true }
            guard seen.insert(node).inserted else { continue }
            frontier += connections.filter { $0.sourceNode == node }.map(\.destNode)
        }
        return false
    }

    private func busCount(of node: Node) -> Int {
        if let unit = node.unit { return unit.busCount }
        return node.kind == .mixer ? 8 : node.kind == .filePlayer ? 0 : 1
    }

    private func makeConnection(from: Node, to: Node, bus: Int) {
        guard let source = from.unit, let destination = to.unit else { return }
        do throws(RecorderError) {
            try graph.connect(source.node, to: destination.node, bus: bus)
        } catch {
            QueueRegistry.noteFailure(error)
        }
        destination.applyBus(bus)
    }

    /// Calls `callback` for what `destination`'s input `bus` takes (its format: that input's stream
    /// format), replacing a connection there.
    func setCallback(_ callback: AURenderCallbackStruct, into destination: GraphUnit, bus: Int) -> OSStatus {
        lock.withLock {
            guard let node = nodes.first(where: { $0.unit === destination }) else { return kAUGraphErr_NodeNotFound }
            return setCallback(callback, node: node.id, bus: bus)
        }
    }

    func setCallback(_ callback: AURenderCallbackStruct, node id: AUNode, bus: Int) -> OSStatus {
        lock.withLock {
            guard let to = node(id) else { return kAUGraphErr_NodeNotFound }
            guard to.kind != .filePlayer, bus >= 0, bus < busCount(of: to) else { return kAUGraphErr_InvalidConnection }
            _ = disconnect(id, bus: bus)
            guard callback.inputProc != nil else { return noErr }
            callbacks[CallbackKey(node: id, bus: bus)] = RenderCallbackSource(callback: callback, bus: bus, owner: self, node: id)
            if isOpen { makeCallback(node: id, bus: bus) }
            return noErr
        }
    }

    private func makeCallback(node id: AUNode, bus: Int) {
        guard let source = callbacks[CallbackKey(node: id, bus: bus)], let destination = node(id)?.unit else { return }
        do throws(RecorderError) {
            try graph.attach(source.node)
            try graph.connect(source.node, to: destination.node, bus: bus)
        } catch {
            QueueRegistry.noteFailure(error)
        }
        destination.applyBus(bus)
    }

    func callback(into unit: GraphUnit, bus: Int) -> AURenderCallbackStruct? {
        lock.withLock { () -> AURenderCallbackStruct? in
            guard let node = nodes.first(where: { $0.unit === unit }) else { return nil }
            return callbacks[CallbackKey(node: node.id, bus: bus)]?.callback
        }
    }

    /// The format a callback into `node`'s input `bus` renders: that input's stream format.
    func callbackFormat(node id: AUNode, bus: Int) -> AudioStreamBasicDescription {
        lock.withLock {
            node(id)?.unit?.format(kAudioUnitScope_Input, AudioUnitElement(bus), defaultRate: Double(graph.sampleRate))
                ?? GraphUnit.canonical(rate: Double(graph.sampleRate))
        }
    }

    /// Removes the connection or callback into `destination`'s input `bus`.
    func disconnect(_ destination: AUNode, bus: Int) -> OSStatus {
        lock.withLock {
            guard let to = node(destination) else { return kAUGraphErr_NodeNotFound }
            connections.removeAll { $0.destNode == destination && Int($0.destInputNumber) == bus }
            if let source = callbacks.removeValue(forKey: CallbackKey(node: destination, bus: bus)) { graph.detach(source.node) }
            if let unit = to.unit { graph.disconnectInput(of: unit.node, bus: bus) }
            return noErr
        }
    }

    func clearConnections() {
        lock.withLock {
            for connection in connections { _ = disconnect(connection.destNode, bus: Int(connection.destInputNumber)) }
            for key in callbacks.keys { _ = disconnect(key.node, bus: key.bus) }
        }
    }

    /// The connections and callbacks, as AUNodeInteractions (of `node` only, if given).
    func interactions(of id: AUNode? = nil) -> [AUNodeInteraction] {
        lock.withLock {
            var made: [AUNodeInteraction] = []
            for connection in connections where id == nil || connection.sourceNode == id || connection.destNode == id {
                var interaction = AUNodeInteraction()
                interaction.nodeInteractionType = kAUNodeInteraction_Connection
                interaction.nodeInteraction.connection = connection
                made.append(interaction)
            }
            for (key, source) in callbacks.sorted(by: { ($0.key.node, $0.key.bus) < ($1.key.node, $1.key.bus) }) where id == nil || key.node == id {
                var interaction = AUNodeInteraction()
                interaction.nodeInteractionType = kAUNodeInteraction_InputCallback
                interaction.nodeInteraction.inputCallback = AUNodeRenderCallback(destNode: key.node, destInputNumber: AudioUnitElement(key.bus),
                                                                                  cback: source.callback)
                made.append(interaction)
            }
            return made
        }
    }

    // MARK: Life

    /// Makes every node's unit and the recorded connections.
    func open() {
        lock.withLock {
            guard !isOpen else { return }
            isOpen = true
            for index in nodes.indices where nodes[index].unit == nil { open(nodeAt: index) }
            for connection in connections {
                if let from = node(connection.sourceNode), let to = node(connection.destNode) {
                    makeConnection(from: from, to: to, bus: Int(connection.destInputNumber))
                }
            }
            for key in callbacks.keys { makeCallback(node: key.node, bus: key.bus) }
        }
    }

    /// Disposes of the units (their handles turn invalid) after uninitializing.
    func close() {
        uninitialize()
        let units = lock.withLock { () -> [GraphUnit] in
            guard isOpen else { return [] }
            isOpen = false
            for source in callbacks.values { graph.detach(source.node) }
            let units = nodes.compactMap(\.unit)
            for unit in units { if let handle = unit.handle { _ = UnitRegistry.removeGraphUnit(handle) } }
            for index in nodes.indices { nodes[index].unit = nil }
            return units
        }
        units.forEach(release)
    }

    /// Opens if needed, then fixes the graph's rate and checks every format against it: the rate the
    /// program set on the output unit's client side or on a unit's output, else the sink's (an I/O unit)
    /// or 44 100 Hz (the generic output). A generic output then renders when pulled.
    func initialize() -> OSStatus {
        open()
        let generic = lock.withLock { () -> Bool? in
            guard !isInitialized else { return nil }
            return outputNode?.kind == .genericOutput
        }
        guard let generic else { return noErr }
        // The sink's rate, asked of the server before the lock is taken (the render thread needs it).
        let sinkRate = generic ? 44_100 : Double((try? Player.sinks())?.first(where: \.isDefault)?.sampleRate ?? 44_100)
        let status = lock.withLock { () -> OSStatus in
            guard let output = outputNode?.unit else {
                QueueRegistry.noteFailure("the AUGraph has no output node: add one (kAudioUnitType_Output) before initializing it")
                return kAUGraphErr_OutputNodeErr
            }
            let clientScope = generic ? kAudioUnitScope_Output : kAudioUnitScope_Input
            let chosen = output.setFormat(clientScope, 0)?.mSampleRate
                ?? nodes.lazy.compactMap { $0.unit?.setFormat(kAudioUnitScope_Output, 0)?.mSampleRate }.first
                ?? sinkRate
            let rate = Int(chosen.rounded())
            graph.sampleRate = rate
            var checked = callbacks.keys.map { callbackFormat(node: $0.node, bus: $0.bus) }
            if generic { checked.append(output.format(kAudioUnitScope_Output, 0, defaultRate: chosen)) }
            if let wrong = checked.first(where: { Int($0.mSampleRate.rounded()) != rate }) {
                QueueRegistry.noteFailure("a render callback's or the output's stream format is at \(wrong.mSampleRate) Hz and the graph at "
                    + "\(rate) Hz: the graph does not convert rates here; give every unit the graph's rate")
                return kAudioUnitErr_FormatNotSupported
            }
            for node in nodes { node.unit?.isInitialized = true }
            isInitialized = true
            return noErr
        }
        guard status == noErr, generic else { return status }
        do throws(RecorderError) {
            try graph.startManualRendering()
        } catch {
            QueueRegistry.noteFailure(error)
            lock.withLock {
                isInitialized = false
                for node in nodes { node.unit?.isInitialized = false }
            }
            return kAUGraphErr_CannotDoInCurrentContext
        }
        return noErr
    }

    func uninitialize() {
        stop()
        let was = lock.withLock { () -> Bool in
            defer {
                isInitialized = false
                for node in nodes { node.unit?.isInitialized = false }
            }
            return isInitialized
        }
        if was { graph.stop() }
    }

    /// Plays the graph to the server (an I/O output); a generic output's graph renders when pulled.
    func start() -> OSStatus {
        let generic = lock.withLock { () -> Bool? in
            guard isInitialized else { return nil }
            return outputNode?.kind == .genericOutput
        }
        guard let generic else {
            QueueRegistry.noteFailure("the AUGraph is not initialized: call AUGraphInitialize before AUGraphStart")
            return kAUGraphErr_CannotDoInCurrentContext
        }
        // Running from now: a stop asked while the stream starts sees it, and is carried out after.
        lock.withLock { isRunning = true }
        guard !generic else { return noErr }
        do throws(RecorderError) {
            try graph.start(clientName: ProcessInfo.processInfo.processName)
        } catch {
            lock.withLock { isRunning = false }
            QueueRegistry.noteFailure(error)
            return error.code == .invalidFormat ? kAudioUnitErr_FormatNotSupported : kAudioUnitErr_NoConnection
        }
        if !lock.withLock({ isRunning }) { graph.stop() }
        return noErr
    }

    func stop() {
        let stream = lock.withLock { () -> Bool in
            defer { isRunning = false }
            return isRunning && outputNode?.kind == .hardwareOutput
        }
        if stream { graph.stop() }
    }

    /// AudioUnitRender on the generic output: the next `frames` frames of the graph in its output format.
    func render(frames: Int, into list: UnsafeMutablePointer<AudioBufferList>, time: inout AudioTimeStamp) -> OSStatus {
        let format = lock.withLock { outputNode?.unit?.format(kAudioUnitScope_Output, 0, defaultRate: Double(graph.sampleRate)) }
        guard let format, let codec = SampleCodec(format) else { return kAudioUnitErr_FormatNotSupported }
        let buffers = UnsafeMutableAudioBufferListPointer(list)
        if buffers.count >= codec.bufferCount, (0..<codec.bufferCount).allSatisfy({ buffers[$0].mData == nil }) {
            // No buffers given: the unit's own, as Apple's gives (valid until the next render).
            lock.withLock {
                let bytes = frames * codec.bufferStride
                if ownBuffers.count < codec.bufferCount || ownBytes < bytes {
                    ownBuffers.forEach { $0.deallocate() }
                    ownBytes = max(ownBytes, bytes)
                    ownBuffers = (0..<codec.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: ownBytes, alignment: 16) }
                }
                for index in 0..<codec.bufferCount {
                    buffers[index] = AudioBuffer(mNumberChannels: UInt32(codec.interleaved ? codec.channels : 1), mDataByteSize: UInt32(bytes),
                                                 mData: ownBuffers[index])
                }
            }
        }
        guard codec.fits(buffers, frames: frames) else { return kAudio_ParamError }
        time.mSampleTime = Double(graph.renderedFrameCount)
        do throws(RecorderError) {
            try graph.renderManually(frames: frames) { mix in
                let left = mix.channel(0), right = mix.channel(1)
                for frame in 0..<frames {
                    for channel in 0..<codec.channels {
                        let value = codec.channels == 1 ? (left[frame] + right[frame]) / 2 : channel == 0 ? left[frame] : channel == 1 ? right[frame] : 0
                        codec.write(value, buffers, frame: frame, channel: channel)
                    }
                }
            }
        } catch {
            QueueRegistry.noteFailure(error)
            return error.code == .invalidFormat ? kAudioUnitErr_TooManyFramesToProcess : kAudioUnitErr_Uninitialized
        }
        for index in buffers.indices { buffers[index].mDataByteSize = UInt32(frames * codec.bufferStride) }
        return noErr
    }
}

// AUGraph's calls with Apple's signatures, over AUGraphObject: making and disposing of a graph, its nodes,
// connections and render callbacks, opening, initializing, starting and stopping it. Any thread, a render
// callback's included (a graph's calls take its lock, which the render pass holds recursively).
import Locking

/// The live graphs by handle, so that a call with a disposed or foreign handle is refused with a status.
enum GraphRegistry {
    private static let graphs = HandleRegistry<AUGraphObject>()

    static func add(_ graph: AUGraphObject) -> AUGraph { graphs.add(graph) }
    static func remove(_ handle: AUGraph) -> AUGraphObject? { graphs.remove(handle) }

    /// Runs `body` with the graph of `handle`; kAudio_ParamError for a handle that is none.
    static func with(_ handle: AUGraph, _ body: (AUGraphObject) -> OSStatus) -> OSStatus { graphs.with(handle, body) }
}

/// A new, empty graph.
@discardableResult
public func NewAUGraph(_ outGraph: UnsafeMutablePointer<AUGraph?>) -> OSStatus {
    outGraph.pointee = GraphRegistry.add(AUGraphObject())
    return noErr
}

/// Stops, closes and disposes of the graph; its handle and its units' are invalid after.
@discardableResult
public func DisposeAUGraph(_ inGraph: AUGraph) -> OSStatus {
    guard let graph = GraphRegistry.remove(inGraph) else { return kAudio_ParamError }
    graph.close()
    return noErr
}

/// Adds a node: an output unit (one per graph; the generic output renders through AudioUnitRender), the
/// file player or the multichannel mixer. Any other unit is `kAUGraphErr_InvalidAudioUnit`, with a line
/// in `OpenAudioToolboxLastErrorMessage()`.
@discardableResult
public func AUGraphAddNode(_ inGraph: AUGraph, _ inDescription: UnsafePointer<AudioComponentDescription>,
                           _ outNode: UnsafeMutablePointer<AUNode>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        let (status, node) = graph.addNode(inDescription.pointee)
        if status == noErr { outNode.pointee = node }
        return status
    }
}

/// Removes a node with its connections and callbacks; its unit's handle is invalid after.
@discardableResult
public func AUGraphRemoveNode(_ inGraph: AUGraph, _ inNode: AUNode) -> OSStatus {
    GraphRegistry.with(inGraph) { $0.removeNode(inNode) }
}

/// How many nodes the graph has.
@discardableResult
public func AUGraphGetNodeCount(_ inGraph: AUGraph, _ outNumberOfNodes: UnsafeMutablePointer<UInt32>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        outNumberOfNodes.pointee = UInt32(graph.lock.withLock { graph.nodes.count })
        return noErr
    }
}

/// The node at `inIndex`, in the order they were added.
@discardableResult
public func AUGraphGetIndNode(_ inGraph: AUGraph, _ inIndex: UInt32, _ outNode: UnsafeMutablePointer<AUNode>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.lock.withLock {
            guard Int(inIndex) < graph.nodes.count else { return kAudio_ParamError }
            outNode.pointee = graph.nodes[Int(inIndex)].id
            return noErr
        }
    }
}

/// A node's description and, once the graph is open, its Audio Unit (nil before).
@discardableResult
public func AUGraphNodeInfo(_ inGraph: AUGraph, _ inNode: AUNode, _ outDescription: UnsafeMutablePointer<AudioComponentDescription>?,
                            _ outAudioUnit: UnsafeMutablePointer<AudioUnit?>?) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        guard let node = graph.node(inNode) else { return kAUGraphErr_NodeNotFound }
        outDescription?.pointee = node.description
        outAudioUnit?.pointee = node.unit?.handle
        return noErr
    }
}

/// Connects a node's output to another's input (`kAUGraphErr_InvalidConnection` for an input already
/// taken, one that does not exist, or an I/O unit's microphone bus).
@discardableResult
public func AUGraphConnectNodeInput(_ inGraph: AUGraph, _ inSourceNode: AUNode, _ inSourceOutputNumber: UInt32, _ inDestNode: AUNode,
                                    _ inDestInputNumber: UInt32) -> OSStatus {
    GraphRegistry.with(inGraph) { $0.connect(inSourceNode, inSourceOutputNumber, to: inDestNode, bus: inDestInputNumber) }
}

/// Calls a render callback for what a node's input takes, in that input's stream format, on the render
/// thread; a status other than noErr is silence for that slice.
@discardableResult
public func AUGraphSetNodeInputCallback(_ inGraph: AUGraph, _ inDestNode: AUNode, _ inDestInputNumber: UInt32,
                                        _ inInputCallback: UnsafePointer<AURenderCallbackStruct>) -> OSStatus {
    GraphRegistry.with(inGraph) { $0.setCallback(inInputCallback.pointee, node: inDestNode, bus: Int(inDestInputNumber)) }
}

/// Removes the connection or callback into a node's input.
@discardableResult
public func AUGraphDisconnectNodeInput(_ inGraph: AUGraph, _ inDestNode: AUNode, _ inDestInputNumber: UInt32) -> OSStatus {
    GraphRegistry.with(inGraph) { $0.disconnect(inDestNode, bus: Int(inDestInputNumber)) }
}

/// Removes every connection and callback.
@discardableResult
public func AUGraphClearConnections(_ inGraph: AUGraph) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.clearConnections()
        return noErr
    }
}

/// How many connections and callbacks the graph has.
@discardableResult
public func AUGraphGetNumberOfInteractions(_ inGraph: AUGraph, _ outNumInteractions: UnsafeMutablePointer<UInt32>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        outNumInteractions.pointee = UInt32(graph.interactions().count)
        return noErr
    }
}

/// The connection or callback at `inInteractionIndex` (connections first, in the order made).
@discardableResult
public func AUGraphGetInteractionInfo(_ inGraph: AUGraph, _ inInteractionIndex: UInt32,
                                      _ outInteraction: UnsafeMutablePointer<AUNodeInteraction>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        let all = graph.interactions()
        guard Int(inInteractionIndex) < all.count else { return kAudio_ParamError }
        outInteraction.pointee = all[Int(inInteractionIndex)]
        return noErr
    }
}

/// How many connections and callbacks involve `inNode`.
@discardableResult
public func AUGraphCountNodeInteractions(_ inGraph: AUGraph, _ inNode: AUNode, _ outNumInteractions: UnsafeMutablePointer<UInt32>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        guard graph.node(inNode) != nil else { return kAUGraphErr_NodeNotFound }
        outNumInteractions.pointee = UInt32(graph.interactions(of: inNode).count)
        return noErr
    }
}

/// The connections and callbacks involving `inNode`, as many as `ioNumInteractions` says there is room
/// for; it is set to the number given.
@discardableResult
public func AUGraphGetNodeInteractions(_ inGraph: AUGraph, _ inNode: AUNode, _ ioNumInteractions: UnsafeMutablePointer<UInt32>,
                                       _ outInteractions: UnsafeMutablePointer<AUNodeInteraction>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        guard graph.node(inNode) != nil else { return kAUGraphErr_NodeNotFound }
        let given = graph.interactions(of: inNode).prefix(Int(ioNumInteractions.pointee))
        for (index, interaction) in given.enumerated() { outInteractions[index] = interaction }
        ioNumInteractions.pointee = UInt32(given.count)
        return noErr
    }
}

/// Changes are made as they are asked for here: nothing waits for an update (`outIsUpdated`: true).
@discardableResult
public func AUGraphUpdate(_ inGraph: AUGraph, _ outIsUpdated: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    GraphRegistry.with(inGraph) { _ in
        outIsUpdated?.pointee = true
        return noErr
    }
}

/// Makes the nodes' units (AUGraphNodeInfo gives them from now on) and the connections.
@discardableResult
public func AUGraphOpen(_ inGraph: AUGraph) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.open()
        return noErr
    }
}

/// Uninitializes and disposes of the units.
@discardableResult
public func AUGraphClose(_ inGraph: AUGraph) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.close()
        return noErr
    }
}

/// Opens if needed and fixes the graph's rate: the one set on the output unit's client side or a unit's
/// output, else the sink's (I/O unit) or 44 100 Hz (generic output). A render callback or generic output
/// format at another rate is `kAudioUnitErr_FormatNotSupported` (the graph does not convert rates here).
@discardableResult
public func AUGraphInitialize(_ inGraph: AUGraph) -> OSStatus { GraphRegistry.with(inGraph) { $0.initialize() } }

/// Stops the graph and lets its formats be set again.
@discardableResult
public func AUGraphUninitialize(_ inGraph: AUGraph) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.uninitialize()
        return noErr
    }
}

/// Plays the graph to the server's default sink (PULSE_SINK's if set); waits until the stream plays. A
/// generic output's graph renders only when pulled. `kAUGraphErr_CannotDoInCurrentContext` before
/// AUGraphInitialize; a stream the server refuses is `kAudioUnitErr_NoConnection` with a line in
/// `OpenAudioToolboxLastErrorMessage()`.
@discardableResult
public func AUGraphStart(_ inGraph: AUGraph) -> OSStatus { GraphRegistry.with(inGraph) { $0.start() } }

/// Stops playing (the schedules stay; AUGraphStart plays on).
@discardableResult
public func AUGraphStop(_ inGraph: AUGraph) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        graph.stop()
        return noErr
    }
}

/// Whether the graph is open.
@discardableResult
public func AUGraphIsOpen(_ inGraph: AUGraph, _ outIsOpen: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        outIsOpen.pointee = DarwinBoolean(graph.lock.withLock { graph.isOpen })
        return noErr
    }
}

/// Whether the graph is initialized.
@discardableResult
public func AUGraphIsInitialized(_ inGraph: AUGraph, _ outIsInitialized: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        outIsInitialized.pointee = DarwinBoolean(graph.lock.withLock { graph.isInitialized })
        return noErr
    }
}

/// Whether the graph runs (between AUGraphStart and AUGraphStop).
@discardableResult
public func AUGraphIsRunning(_ inGraph: AUGraph, _ outIsRunning: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    GraphRegistry.with(inGraph) { graph in
        outIsRunning.pointee = DarwinBoolean(graph.lock.withLock { graph.isRunning })
        return noErr
    }
}

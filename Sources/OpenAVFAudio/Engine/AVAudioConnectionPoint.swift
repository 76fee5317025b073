// AVAudioConnectionPoint, and the engine's answers to "what feeds this input" and "where does this
// output go", read from the graph's connections.
import Foundation

/// One end of a connection: a node and one of its buses. Immutable.
open class AVAudioConnectionPoint: NSObject, @unchecked Sendable {
    // @unchecked Sendable: both fields are set in init and never changed; the node is weak, as Apple's.
    public private(set) weak var node: AVAudioNode?
    public let bus: AVAudioNodeBus

    public init(node: AVAudioNode, bus: AVAudioNodeBus) {
        self.node = node
        self.bus = bus
        super.init()
    }
}

extension AVAudioEngine {
    /// The output that feeds `node`'s input `bus`, or nil when nothing is connected there (or `node` is
    /// not attached here). Any thread.
    public func inputConnectionPoint(for node: AVAudioNode, inputBus bus: AVAudioNodeBus) -> AVAudioConnectionPoint? {
        guard bus >= 0, let source = graph.source(into: node.graphNode, bus: bus), let wrapper = wrapper(of: source) else { return nil }
        return AVAudioConnectionPoint(node: wrapper, bus: 0)
    }

    /// The inputs `node`'s output `bus` feeds: none or one here (a node's output feeds one input; Apple's
    /// may fan out to several). Any thread.
    public func outputConnectionPoints(for node: AVAudioNode, outputBus bus: AVAudioNodeBus) -> [AVAudioConnectionPoint] {
        guard bus == 0, let (destination, input) = graph.destination(of: node.graphNode), let wrapper = wrapper(of: destination) else { return [] }
        return [AVAudioConnectionPoint(node: wrapper, bus: input)]
    }
}

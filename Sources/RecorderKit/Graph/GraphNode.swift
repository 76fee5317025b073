// A node of a playback graph: how it enters a mixer (volume, pan), its tap, and the render contract the
// graph drives (one render pass at a time, under the graph's lock).
import Locking

/// A node of a `PlaybackGraph`: a source (`GraphPlayer`, `GraphInput`), an effect (`GraphTimePitch`), the
/// mixer (`GraphMixer`) or the output (`GraphOutput`). Made alone, then attached to one graph and
/// connected there.
///
/// ## Threads
/// Every member may be called from any thread, a tap's handler or a completion handler included.
public class GraphNode: @unchecked Sendable {
    // @unchecked Sendable: the settings (`mixVolume`, `mixPan`, `tap`, `installations`, `graph`, and each subclass's) are
    // read and written under `lock`; the render state (`buffer`, `renderedPass`, `renderedFrameCount`, `isRendering`,
    // `sampleTime`, `lastHostTime`) only by the graph's render pass, which holds the graph's lock, and by
    // callers holding that lock. Lock order: the graph's, then a node's.
    let lock = PosixMutex()
    private var mixVolume: Float = 1
    private var mixPan: Float = 0
    private var spatial = SpatialPlacement()
    var tap: Tap?
    /// The graph attached to (under `lock`).
    weak var graph: PlaybackGraph?

    /// What the node put out in the current pass.
    let buffer = GraphBuffer(channelCount: 2, frameCapacity: 1)
    var renderedPass = -1
    var renderedFrameCount = 0
    /// True while the node renders (a pull of it from under itself, through a loop, reads its buffer).
    var isRendering = false
    /// Frames the node has put out since the graph started (its output's sample time).
    var sampleTime: Int64 = 0
    var lastHostTime: UInt64 = 0

    struct Tap {
        var frames: Int
        var handler: @Sendable (GraphTapBuffer) -> Void
        /// Which installation this is: a copy made for one is not delivered once it was removed.
        var installation: Int
    }
    /// Taps installed on this node so far (under `lock`).
    private var installations = 0

    init() {}

    /// The node's gain where it enters a mixer, 0…1: clamped; a NaN is ignored.
    public var volume: Float {
        get { lock.withLock { mixVolume } }
        set { if !newValue.isNaN { lock.withLock { mixVolume = min(1, max(0, newValue)) } } }
    }

    /// The node's place between a mixer's two channels, −1 (left) … +1 (right): a mono node is at full
    /// level in both at 0 and the far side falls linearly to silence at ±1; for a stereo node it is a
    /// balance, the same law. Clamped; a NaN is ignored.
    public var pan: Float {
        get { lock.withLock { mixPan } }
        set { if !newValue.isNaN { lock.withLock { mixPan = min(1, max(-1, newValue)) } } }
    }

    /// Where the node sits when it enters a `GraphEnvironment` (other mixers ignore it): its position,
    /// how it is rendered, its reverb send and its obstruction and occlusion. Values outside their ranges
    /// are clamped and NaNs ignored, field by field (see `SpatialPlacement`).
    public var placement: SpatialPlacement {
        get { lock.withLock { spatial } }
        set { lock.withLock { spatial = spatial.merged(newValue) } }
    }

    /// Changes some of the placement's fields at once, under the node's lock (so two threads changing two
    /// fields do not undo each other), with the clamping `placement`'s setter applies.
    public func updatePlacement(_ change: (inout SpatialPlacement) -> Void) {
        lock.withLock {
            var changed = spatial
            change(&changed)
            spatial = spatial.merged(changed)
        }
    }

    /// Volume and pan together, under one lock.
    var mixSettings: (volume: Float, pan: Float) { lock.withLock { (mixVolume, mixPan) } }

    /// The graph the node is attached to, if any.
    public var attachedGraph: PlaybackGraph? { lock.withLock { graph } }

    /// Input buses (0 for a source).
    public var inputBusCount: Int { 1 }

    /// Calls `handler` with a copy of every block of audio the node puts out, when it begins to be heard
    /// (the stream's clock reaching the render pass that made it: within one pass, 50 ms, after; the
    /// buffer's `hostTime` is that moment), off the graph's lock, on its render thread; for a `GraphInput`,
    /// on the capture thread as each buffer arrives. `bufferFrames` (1…1 048 576) is the size asked; blocks are a pass long
    /// (50 ms of the graph's rate) or a capture buffer long. One tap per node: a second is refused.
    /// - Throws: `.invalidState` when a tap is already installed.
    public func installTap(bufferFrames: Int = 4_096, _ handler: @escaping @Sendable (GraphTapBuffer) -> Void) throws(RecorderError) {
        let installed = lock.withLock { () -> Bool in
            guard tap == nil else { return false }
            installations += 1
            tap = Tap(frames: min(max(1, bufferFrames), 1 << 20), handler: handler, installation: installations)
            return true
        }
        guard installed else {
            throw RecorderError(.invalidState, "a tap is already installed on this \(kind); remove it first")
        }
        tapsChanged()
    }

    /// Removes the tap, if any. A handler under way finishes; copies made for it and not yet delivered
    /// are dropped.
    public func removeTap() {
        lock.withLock { tap = nil }
        tapsChanged()
    }

    /// Clears what the node holds (a player's schedule, an effect's tail). Any thread.
    public func reset() {}

    /// The node's name in messages.
    var kind: String { "node" }

    /// A tap or a connection came or went (a graph input starts or ends its capture).
    func tapsChanged() {}

    /// The graph it is attached to started (or it was attached to a running graph).
    func graphStarted(_ graph: PlaybackGraph) {}

    /// The graph paused or stopped, or the node was detached.
    func graphStopped() {}

    // MARK: Rendering (the graph's render pass, under its lock)

    /// Renders `frames` frames into `buffer`, which is already silent and has `outputChannels` channels.
    func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {}

    /// Channels the node puts out in `pass`.
    func outputChannels(_ pass: RenderPass) -> Int { 2 }

    /// True for a node that calls its tap itself (a graph input, as it captures), not after each pass.
    var tapsItsOwn: Bool { false }
}

/// Work waiting for the graph's output frame `outputFrame` to be heard: a tap's copy (the first frame of
/// the pass that made it), or a completion handler asked for when an item has been heard (its last
/// frame). `run` is given the moment that frame was heard; `runsOnStop` work runs when the graph stops
/// before it was heard (a completion handler), the rest is dropped then (a tap of what was never heard).
struct WhenHeard {
    let outputFrame: Int64
    let runsOnStop: Bool
    let run: (UInt64) -> Void

    /// A tap's copy: the handler gets it stamped with the moment its first frame was heard, if the tap
    /// is still installed on `node` then.
    static func tap(_ tap: GraphNode.Tap, of node: GraphNode, channels: [[Float]], sampleRate: Int,
                    sampleTime: Int64, outputFrame: Int64) -> WhenHeard {
        WhenHeard(outputFrame: outputFrame, runsOnStop: false) { [weak node] hostTime in
            guard let node, node.lock.withLock({ node.tap?.installation }) == tap.installation else { return }
            tap.handler(GraphTapBuffer(channels: channels, sampleRate: sampleRate, sampleTime: sampleTime, hostTime: hostTime))
        }
    }
}

/// One render pass: its number and time, the pulls it makes of nodes (each rendered once per pass), and
/// what it defers until the graph's lock is released (taps, completion handlers).
final class RenderPass {
    let number: Int
    /// When the pass began (CLOCK_MONOTONIC nanoseconds).
    let hostTime: UInt64
    let sampleRate: Int
    /// The graph's output sample time at the start of the pass.
    let graphSampleTime: Int64
    var deferred: [() -> Void] = []
    /// Work for when this pass's frames are heard: the taps' copies, completion handlers.
    var whenHeard: [WhenHeard] = []
    private let connections: [PlaybackGraph.Connection]

    init(number: Int, hostTime: UInt64, sampleRate: Int, graphSampleTime: Int64, connections: [PlaybackGraph.Connection]) {
        self.number = number
        self.hostTime = hostTime
        self.sampleRate = sampleRate
        self.graphSampleTime = graphSampleTime
        self.connections = connections
    }

    /// The node connected into `node`'s `bus`.
    func source(into node: GraphNode, bus: Int) -> GraphNode? {
        connections.first { $0.destination === node && $0.bus == bus }?.source
    }

    /// The nodes connected into `node`, by bus.
    func sources(into node: GraphNode) -> [GraphNode] {
        connections.filter { $0.destination === node }.sorted { $0.bus < $1.bus }.map(\.source)
    }

    /// Depth of pulls made `again`: while one is under way, every node under it renders anew as well.
    private var freshPulls = 0

    /// `node`'s output for `frames` frames: rendered once per pass (a second pull in the pass reads the
    /// same), or again when `again` (an effect that takes more input than it puts out): then every node
    /// it pulls in turn renders again too, so a time effect behind a mixer, another effect or a bypassed
    /// one gets new audio from the source each time, not the pass's first frames repeated. A node that
    /// is its own source through a loop reads what it has so far (silence).
    func pull(_ node: GraphNode, frames: Int, again: Bool = false) -> GraphBuffer {
        if node.isRendering { return node.buffer }
        if !again, freshPulls == 0, node.renderedPass == number, node.renderedFrameCount == frames { return node.buffer }
        if again { freshPulls += 1 }
        node.isRendering = true
        defer {
            node.isRendering = false
            if again { freshPulls -= 1 }
        }
        node.renderedPass = number
        node.renderedFrameCount = frames
        node.buffer.prepare(channels: node.outputChannels(self), frames: frames)
        node.render(frames, into: node.buffer, pass: self)
        let start = node.sampleTime
        node.sampleTime += Int64(frames)
        node.lastHostTime = hostTime
        if !node.tapsItsOwn, let tap = node.lock.withLock({ node.tap }) {
            whenHeard.append(.tap(tap, of: node, channels: node.buffer.copy(frames: frames), sampleRate: sampleRate,
                                  sampleTime: start, outputFrame: graphSampleTime))
        }
        return node.buffer
    }

    /// What flows into `node`'s `bus` for `frames` frames; nil if nothing is connected there.
    func pullInput(of node: GraphNode, bus: Int = 0, frames: Int) -> GraphBuffer? {
        source(into: node, bus: bus).map { pull($0, frames: frames) }
    }

    /// Channels `node`'s `bus` receives (2 when nothing is connected).
    func inputChannels(of node: GraphNode, bus: Int = 0) -> Int {
        source(into: node, bus: bus).map { $0.outputChannels(self) } ?? 2
    }
}

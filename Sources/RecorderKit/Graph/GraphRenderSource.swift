// A graph source whose audio the program renders on demand (AVAudioSourceNode's), and a graph input's
// receiver, which takes its capture whole (AVAudioSinkNode's).

/// A source the program renders: each render pass asks `render` for the frames it needs, at the graph's
/// rate, into a buffer of `channels()` silent channels (1…16), on the render thread under the graph's
/// lock (the graph's calls are safe from there: its lock is recursive). A render that fails (returns
/// false) is heard as silence for that pass.
public final class GraphRenderSource: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the closures are the program's, called by one render pass at a time.

    /// One render pass's request.
    public struct Request {
        /// Frames to render.
        public let frames: Int
        /// The node's sample time of the first frame (frames it rendered before, since the graph started).
        public let sampleTime: Int64
        /// When the pass began (CLOCK_MONOTONIC nanoseconds).
        public let hostTime: UInt64
        /// The graph's rate.
        public let sampleRate: Int
        /// Where to render: `channelCount` silent channels of at least `frames` frames.
        public let buffer: GraphBuffer
    }

    private let channels: @Sendable () -> Int
    private let renderer: @Sendable (Request) -> Bool

    /// A source of `channels()` channels (asked each pass, clamped to 1…16) rendered by `render`.
    public init(channels: @escaping @Sendable () -> Int, render: @escaping @Sendable (Request) -> Bool) {
        self.channels = channels
        renderer = render
        super.init()
    }

    /// None: a source.
    public override var inputBusCount: Int { 0 }
    override var kind: String { "source node" }

    override func outputChannels(_ pass: RenderPass) -> Int { min(16, max(1, channels())) }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        let request = Request(frames: frames, sampleTime: sampleTime, hostTime: pass.hostTime, sampleRate: pass.sampleRate, buffer: buffer)
        if !renderer(request) { buffer.prepare(channels: buffer.channelCount, frames: frames) }
    }
}

/// Where a `GraphInput` connected to it sends its capture, whole: each buffer as captured, on the
/// capture's delivery thread (the graph hears none of it). It puts nothing out. Connected from anything
/// else, it receives nothing.
public final class GraphReceiver: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the closure is the program's, called from one capture thread.
    private let receiver: @Sendable (GraphTapBuffer) -> Void

    /// A receiver calling `receive` with each captured buffer.
    public init(receive: @escaping @Sendable (GraphTapBuffer) -> Void) {
        receiver = receive
        super.init()
    }

    override var kind: String { "sink node" }

    func receive(_ buffer: GraphTapBuffer) { receiver(buffer) }
}

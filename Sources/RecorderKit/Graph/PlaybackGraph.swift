// A playback graph: sources → effects → a mixer → one playback stream, rendered on a Player's output
// callback; the topology (nodes attached, connections) and every render pass under one lock.
import Glibc
import Locking

/// Plays what its nodes render: `GraphPlayer`s (files, sounds in memory, scheduled segments and buffers
/// with completion handlers) and `GraphInput`s (a capture source, live), through effects
/// (`GraphTimePitch`: time-stretch, pitch, varispeed), into `mainMixer` (volume and pan per input, an
/// output volume), which feeds `output`, one two-channel stream to a sink at `sampleRate`. A tap on any
/// node receives what passes there.
///
/// The stream is a `Player` with an output callback: each 50 ms buffer of it is one render pass, on the
/// player's reader thread (never libpulse's), pulling from `output` back to the sources under the
/// graph's lock; completion handlers run after the pass, with the lock released, and taps once what they
/// hold begins to be heard. Sources at
/// another rate than the graph's (a 48 kHz file in a 44.1 kHz graph, a capture source) are resampled.
///
/// ## Threads
/// Every member may be called from any thread, a tap's or a completion handler included (they run off
/// the lock). `start`, `pause` and `stop` wait for the stream; from a handler they do not deadlock (the
/// player carries out requests made on its own thread after the pass).
public final class PlaybackGraph: @unchecked Sendable {
    // @unchecked Sendable: `nodes`, `connections`, `rate`, `renderedFrames`, `lastHostTime` and `passes`
    // are read and written under `lock`; the stream and the running state under `running`'s lock.
    struct Connection {
        let source: GraphNode
        let destination: GraphNode
        let bus: Int
    }

    private struct Running {
        var player: Player?
        var isRunning = false
        /// Started with `startManualRendering()`: passes are rendered when the program asks, no stream.
        var isManual = false
        var clientName = "recorder"
    }

    /// Recursive: a render pass holds it while it calls a program's render block (a source node), which
    /// may call back into the graph (connect, a node's schedule); a plain mutex would deadlock there.
    package let lock = PosixMutex(recursive: true)
    private var nodes: [ObjectIdentifier: GraphNode] = [:]
    private(set) var connections: [Connection] = []
    private var rate: Int
    private var renderedFrames: Int64 = 0
    private var lastHostTime: UInt64 = 0
    private var passes = 0
    /// Work waiting for its frame to be heard, oldest first (under `lock`).
    private var pending: [WhenHeard] = []
    private let running = Locked(Running())

    /// The mixer every source is usually connected to; it feeds `output`.
    public let mainMixer = GraphMixer()
    /// What is played: its input is the main mixer (or whatever is connected to it instead).
    public let output = GraphOutput()

    /// A graph to play at `sampleRate` (checked at `start`), with `mainMixer` connected to `output`.
    public init(sampleRate: Int = 44_100) {
        rate = sampleRate
        for node in [mainMixer, output] as [GraphNode] {
            nodes[ObjectIdentifier(node)] = node
            node.lock.withLock { node.graph = self }
        }
        connections.append(Connection(source: mainMixer, destination: output, bus: 0))
    }

    deinit { stop() }

    /// The rate everything is rendered and played at. Setting it while running takes effect at the
    /// next `start`.
    public var sampleRate: Int {
        get { lock.withLock { rate } }
        set { lock.withLock { rate = newValue } }
    }

    // MARK: Topology

    /// The nodes attached (the main mixer and the output included).
    public var attachedNodes: [GraphNode] { lock.withLock { Array(nodes.values) } }

    /// Attaches `node` (again: nothing changes).
    /// - Throws: `.invalidState` when it is attached to another graph.
    public func attach(_ node: GraphNode) throws(RecorderError) {
        let attached = lock.withLock { () -> Bool in
            let taken = node.lock.withLock { () -> Bool in
                if let other = node.graph, other !== self { return false }
                node.graph = self
                return true
            }
            if taken { nodes[ObjectIdentifier(node)] = node }
            return taken
        }
        guard attached else {
            throw RecorderError(.invalidState, "this \(node.kind) is attached to another graph; detach it there first")
        }
        if isRunning { node.graphStarted(self) }
    }

    /// Detaches `node` and its connections (the main mixer and the output stay).
    public func detach(_ node: GraphNode) {
        guard node !== mainMixer, node !== output else { return }
        let removed = lock.withLock { () -> Bool in
            guard nodes.removeValue(forKey: ObjectIdentifier(node)) != nil else { return false }
            connections.removeAll { $0.source === node || $0.destination === node }
            node.lock.withLock { node.graph = nil }
            return true
        }
        if removed { node.graphStopped() }
    }

    /// Connects `source`'s output to `destination`'s input `bus` (nil: the mixer's lowest free bus, else
    /// 0), replacing what was connected there; a node's output feeds one input, so a connection already
    /// made from `source` is replaced too.
    /// - Throws: `.invalidState` when either node is not attached here, the bus does not exist, or the
    ///   connection would make a loop.
    public func connect(_ source: GraphNode, to destination: GraphNode, bus: Int? = nil) throws(RecorderError) {
        let refusal = lock.withLock { () -> String? in
            guard nodes[ObjectIdentifier(source)] != nil, nodes[ObjectIdentifier(destination)] != nil else {
                return "both nodes must be attached to this graph first (attach(_:))"
            }
            guard source !== destination else { return "a \(source.kind) cannot feed itself" }
            let bus = bus ?? freeBus(of: destination)
            guard (0..<destination.inputBusCount).contains(bus) else {
                return "the \(destination.kind) has no input bus \(bus) (it has \(destination.inputBusCount))"
            }
            guard !feeds(destination, source) else {
                return "connecting the \(source.kind) to the \(destination.kind) would make a loop"
            }
            connections.removeAll { $0.source === source || ($0.destination === destination && $0.bus == bus) }
            connections.append(Connection(source: source, destination: destination, bus: bus))
            return nil
        }
        if let refusal { throw RecorderError(.invalidState, "cannot connect: \(refusal)") }
        source.tapsChanged()
    }

    /// The lowest input bus of `node` nothing is connected to.
    public func nextAvailableInputBus(of node: GraphNode) -> Int { lock.withLock { freeBus(of: node) } }

    private func freeBus(of node: GraphNode) -> Int {
        let used = Set(connections.filter { $0.destination === node }.map(\.bus))
        return (0...).first { !used.contains($0) }!
    }

    /// True if audio flows from `from` to `to` through the connections.
    private func feeds(_ from: GraphNode, _ to: GraphNode) -> Bool {
        var frontier = [from]
        var seen: Set<ObjectIdentifier> = []
        while let node = frontier.popLast() {
            if node === to { return true }
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            frontier += connections.filter { $0.source === node }.map(\.destination)
        }
        return false
    }

    /// Removes the connection into `node`'s `bus` (nil: every connection into it).
    public func disconnectInput(of node: GraphNode, bus: Int? = nil) {
        let sources = lock.withLock { () -> [GraphNode] in
            let gone = connections.filter { $0.destination === node && (bus == nil || $0.bus == bus) }.map(\.source)
            connections.removeAll { $0.destination === node && (bus == nil || $0.bus == bus) }
            return gone
        }
        sources.forEach { $0.tapsChanged() }
    }

    /// Removes the connection out of `node`.
    public func disconnectOutput(of node: GraphNode) {
        lock.withLock { connections.removeAll { $0.source === node } }
        node.tapsChanged()
    }

    /// The node connected into `node`'s `bus`, if any.
    public func source(into node: GraphNode, bus: Int = 0) -> GraphNode? {
        lock.withLock { connections.first { $0.destination === node && $0.bus == bus }?.source }
    }

    /// The node and bus `node`'s output is connected to, if any.
    public func destination(of node: GraphNode) -> (node: GraphNode, bus: Int)? {
        lock.withLock { connections.first { $0.source === node }.map { ($0.destination, $0.bus) } }
    }

    /// True when `node`'s output is connected (a graph input then captures for the graph).
    func isConnected(_ node: GraphNode) -> Bool { lock.withLock { connections.contains { $0.source === node } } }

    // MARK: Running

    /// The client name the last `start` gave the server (a graph input's capture uses it too).
    var clientName: String { running.withLock { $0.clientName } }

    /// True between `start()` (or `startManualRendering()`) and `pause()` or `stop()`.
    public var isRunning: Bool { running.withLock { $0.isRunning } }

    /// True while started with `startManualRendering()`.
    public var isRenderingManually: Bool { running.withLock { $0.isRunning && $0.isManual } }

    /// Starts the graph with no stream: nothing plays, and each `renderManually` renders the next frames
    /// as fast as the machine goes (offline rendering: a file, a test). Graph inputs do not capture then.
    /// Resumes after `pause()`; refused while a stream plays.
    /// - Throws: `.invalidState` while started with `start()`.
    public func startManualRendering() throws(RecorderError) {
        enum Start { case fresh, resumed, already, refused }
        let start = running.withLock { running -> Start in
            if running.isRunning { return running.isManual ? .already : .refused }
            if running.player != nil { return .refused }
            defer {
                running.isRunning = true
                running.isManual = true
            }
            return running.isManual ? .resumed : .fresh
        }
        switch start {
        case .refused:
            throw RecorderError(.invalidState, "the graph plays to a stream; stop it before rendering it manually")
        case .fresh, .resumed:
            if start == .fresh {
                lock.withLock {
                    renderedFrames = 0
                    lastHostTime = 0
                    pending.removeAll()
                }
            }
            attachedNodes.forEach { $0.graphStarted(self) }
        case .already:
            return
        }
    }

    /// Renders the next `frames` frames (1…1 048 576; others are refused) on the caller's thread; `take`
    /// reads the output's two channels, then taps and completion handlers run (heard: rendered) before it
    /// returns. Any thread but a render block's.
    /// - Throws: `.invalidState` unless started with `startManualRendering()`; `.invalidFormat` for a
    ///   frame count out of range.
    public func renderManually(frames: Int, _ take: (GraphBuffer) -> Void) throws(RecorderError) {
        guard isRenderingManually else {
            throw RecorderError(.invalidState, "the graph is not rendering manually; call startManualRendering() first")
        }
        guard (1...(1 << 20)).contains(frames) else {
            throw RecorderError(.invalidFormat, "cannot render \(frames) frames at once: ask for 1 to 1048576")
        }
        let pass = renderPass(frames, take: take)
        pass.deferred.forEach { $0() }
        pass.whenHeard.forEach { $0.run(pass.hostTime) }
    }

    /// Frames rendered since the graph last started from a stop (the output's sample time).
    public var renderedFrameCount: Int64 { lock.withLock { renderedFrames } }

    /// The output sample time heard at `hostTime` (CLOCK_MONOTONIC nanoseconds), from the stream's clock
    /// now: what `GraphPlayer.play(at:)` takes to start a player at a moment. Nil when not running.
    public func sampleTime(forHostTime hostTime: UInt64) -> Int64? {
        guard let player = running.withLock({ $0.isRunning ? $0.player : nil }) else { return nil }
        let heard = player.currentFrame
        // In doubles, so no host time overflows: one far ahead is a sample time as far ahead (capped at
        // 2^61 frames, some 1.6 million years at 44.1 kHz: never reached, never played now).
        let ahead = (Double(hostTime) - Double(monotonicNanoseconds())) / 1e9 * Double(sampleRate)
        let limit = Double(StreamFormat.maxFrameCount)
        return heard + Int64(max(-limit, min(limit, ahead.rounded())))
    }

    /// How far rendering runs ahead of what is heard (seconds): the frames rendered and not yet heard,
    /// the stream's buffers and the sink's latency; nil when no stream plays.
    public var outputLatency: Double? {
        guard let player = running.withLock({ $0.isRunning ? $0.player : nil }) else { return nil }
        let heard = player.currentFrame
        let rendered = lock.withLock { renderedFrames }
        return Double(max(0, rendered - heard)) / Double(max(1, sampleRate))
    }

    /// Times the stream ran dry while playing since the last `start` after a stop (a gap was heard: a
    /// render pass came late).
    public var underrunCount: Int { running.withLock { $0.player }?.underrunCount ?? 0 }

    /// The output's sample time and the host time (CLOCK_MONOTONIC ns) of the last render pass; nil
    /// before the first.
    public var lastRenderTime: (sampleTime: Int64, hostTime: UInt64)? {
        lock.withLock { renderedFrames > 0 ? (renderedFrames, lastHostTime) : nil }
    }

    /// Starts playing to `device` (nil: PULSE_SINK's, else the server's default sink) on `server`, or
    /// resumes after `pause()`; graph inputs with a tap or a connection start capturing. Waits until the
    /// stream plays.
    /// - Throws: `.invalidFormat` (a rate no stream carries), `.serverUnreachable`, `.sinkNotFound`,
    ///   `.streamFailed`.
    public func start(device: String? = nil, server: String? = nil, clientName: String = "recorder") throws(RecorderError) {
        if running.withLock({ $0.isManual }) {
            throw RecorderError(.invalidState, "the graph renders manually; stop it before playing it to a stream")
        }
        if let player = running.withLock({ $0.isRunning ? nil : $0.player }) {
            try player.play()
            running.withLock { $0.isRunning = true }
            attachedNodes.forEach { $0.graphStarted(self) }
            return
        }
        guard !isRunning else { return }
        let rate = sampleRate
        let format: StreamFormat
        do {
            format = try StreamFormat(sampleRate: rate, channelCount: 2)
        } catch {
            throw RecorderError(.invalidFormat,
                "cannot start the graph at \(rate) Hz: use a whole rate of 1 to \(StreamFormat.maxSampleRate) Hz")
        }
        let player = try Player(format: format, device: device, server: server, bufferCount: 3, bufferDuration: 0.05,
                                clientName: clientName) { [weak self] output in
            guard let self else {
                output.frameCount = 0
                return
            }
            self.render(&output)
        }
        lock.withLock {
            renderedFrames = 0
            lastHostTime = 0
            pending.removeAll()
        }
        do {
            try player.play()
        } catch {
            player.close()
            throw error
        }
        let kept = running.withLock { running -> Bool in
            guard running.player == nil else { return false }
            running.player = player
            running.isRunning = true
            running.clientName = clientName
            return true
        }
        guard kept else {
            player.close()
            return
        }
        attachedNodes.forEach { $0.graphStarted(self) }
    }

    /// Pauses the stream where it is and ends captures; `start()` resumes.
    public func pause() {
        let player = running.withLock { running -> Player? in
            running.isRunning = false
            return running.player
        }
        player?.pause()
        attachedNodes.forEach { $0.graphStopped() }
    }

    /// Stops the stream (what it holds is dropped) and ends captures; the graph and the schedules stay.
    public func stop() {
        let player = running.withLock { running -> Player? in
            running.isRunning = false
            running.isManual = false
            defer { running.player = nil }
            return running.player
        }
        player?.close()
        // Completion handlers of what was never heard run now, as a stopped player's do; taps are dropped.
        let unheard = lock.withLock { () -> [WhenHeard] in
            defer { pending.removeAll() }
            return pending.filter(\.runsOnStop)
        }
        unheard.forEach { $0.run(UInt64(monotonicNanoseconds())) }
        lock.withLock { Array(nodes.values) }.forEach { $0.graphStopped() }
    }

    // MARK: Rendering (the player's reader thread)

    /// The output callback: one render pass into `output`, then what it deferred, then the work (taps,
    /// completions) whose frame has begun to be heard.
    private func render(_ output: inout OutputBuffer) {
        let frames = output.frameCapacity
        let pass = renderPass(frames) { mix in
            let left = mix.channel(0), right = mix.channel(1)
            for frame in 0..<frames {
                output.setSample(left[frame], frame: frame, channel: 0)
                output.setSample(right[frame], frame: frame, channel: 1)
            }
        }
        pass.deferred.forEach { $0() }
        // The output frame being heard now (the stream's interpolated clock; none while `start` has not yet
        // kept the player: nothing is heard before it plays).
        let heard = running.withLock { $0.player }?.currentFrame ?? -1
        let now = monotonicNanoseconds()
        let rate = Int64(max(1, pass.sampleRate))
        let due = lock.withLock { () -> [WhenHeard] in
            pending += pass.whenHeard
            pending.sort { $0.outputFrame < $1.outputFrame }
            // Heard (its frame being played), or too many waiting (a stalled stream): the oldest go now.
            let count = max(pending.prefix { $0.outputFrame <= heard }.count, pending.count - Self.pendingLimit)
            defer { pending.removeFirst(count) }
            return Array(pending.prefix(count))
        }
        for work in due {
            let ago = max(0, heard - work.outputFrame) * 1_000_000_000 / rate
            work.run(UInt64(max(0, now - ago)))
        }
    }

    /// Work held at most (taps of 3.2 s of passes of 50 ms, and completions): past that a stalled
    /// stream's oldest goes unheard.
    private static let pendingLimit = 256

    /// One render pass of `frames` frames under the lock; `take` reads the output's two channels before
    /// the lock is released. The caller runs the pass's deferred work.
    func renderPass(_ frames: Int, take: (GraphBuffer) -> Void) -> RenderPass {
        lock.withLock {
            passes &+= 1
            let pass = RenderPass(number: passes, hostTime: UInt64(monotonicNanoseconds()), sampleRate: rate,
                                  graphSampleTime: renderedFrames, connections: connections)
            take(pass.pull(self.output, frames: frames))
            renderedFrames += Int64(frames)
            lastHostTime = pass.hostTime
            return pass
        }
    }

    /// Renders `frames` frames without a stream, started or not (the graph's tests): the output's two
    /// channels. Taps and completion handlers run before it returns.
    func renderOffline(_ frames: Int) -> [[Float]] {
        var mix: [[Float]] = []
        let pass = renderPass(frames) { mix = $0.copy(frames: frames) }
        pass.deferred.forEach { $0() }
        pass.whenHeard.forEach { $0.run(pass.hostTime) }
        return mix
    }
}

// A graph's player: plays what is scheduled on it — sources (files, the embedder's), segments of them,
// samples in memory (once or looped) — in order, each at an optional time; each item's completion
// handler runs when it has been rendered, or when the player is stopped.

/// How a buffer of samples is scheduled (AVAudioPlayerNodeBufferOptions').
public struct GraphBufferOptions: OptionSet, Sendable {
    /// The options' bits (AVAudioPlayerNodeBufferOptions' values).
    public let rawValue: UInt
    /// Options from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// It plays again and again, until another interrupts it or the player stops.
    public static let loops = GraphBufferOptions(rawValue: 1)
    /// It replaces what is scheduled and playing (their handlers run).
    public static let interrupts = GraphBufferOptions(rawValue: 2)
    /// It replaces a looping buffer at the end of its loop.
    public static let interruptsAtLoop = GraphBufferOptions(rawValue: 4)
}

/// When a scheduled item begins: a player time (frames the player has put out since `play()`), or a
/// graph time (the output's sample time, `PlaybackGraph.lastRenderTime`'s clock; a host time through
/// `PlaybackGraph.sampleTime(forHostTime:)`). Silence is played until then. An integer literal is a
/// player time.
public enum GraphScheduleTime: Sendable, Equatable, ExpressibleByIntegerLiteral {
    /// Frames the player has put out since `play()` (after its last stop).
    case player(Int64)
    /// The graph output's sample time.
    case graph(Int64)

    /// A player time.
    public init(integerLiteral value: Int64) { self = .player(value) }

    /// The same time, negative ones at 0 (a time past: at once).
    var clamped: GraphScheduleTime {
        switch self {
        case .player(let time): .player(max(0, time))
        case .graph(let time): .graph(max(0, time))
        }
    }
}

/// When a scheduled item's completion handler runs.
public enum GraphCompletion: Sendable {
    /// Once its last frame has been rendered (on the render thread, after the pass).
    case rendered
    /// Once its last frame has been heard (the stream's clock past it: within a pass, 50 ms, after), or
    /// when the graph stops before that.
    case heard
}

/// Plays its schedule into the graph, at the graph's rate (a source at another rate is resampled) and in
/// the most channels of what it has scheduled. The player's time counts the frames it has put out since
/// `play` (after a stop, from 0); items may be scheduled at a player time (silence until then), and the
/// player may start at a graph sample time.
public final class GraphPlayer: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the schedule and the play state under `lock` (the render pass
    // holds it while it reads the items).
    private struct Item {
        var source: GraphFrameSource
        var next: Int64
        var end: Int64
        var loops: Bool
        var handler: (@Sendable () -> Void)?
        var completeWhen: GraphCompletion
        /// When the item is to begin; nil: after what comes before.
        var startAt: GraphScheduleTime?
        /// Set once the item was put at the graph's rate (when first rendered).
        var atGraphRate: Bool
    }

    private var items: [Item] = []
    private var playing = false
    /// The graph sample time `play(at:)` asked to start at (nil: at once).
    private var startAt: Int64?
    /// Frames put out since `play()` after a stop (the player's time).
    private var playerFrames: Int64 = 0
    private var channels = 2

    /// A player with nothing scheduled, not playing.
    public override init() { super.init() }

    /// None: a source.
    public override var inputBusCount: Int { 0 }
    override var kind: String { "player" }

    // MARK: Scheduling

    /// Schedules `frames` frames of `source` from `start` (both clamped to the source; nil: to its end),
    /// at `time` (nil: after what is scheduled before; a time past: at once). `completion` runs once it has all
    /// been rendered (or heard: `completeWhen`), or when the player stops or is interrupted.
    public func schedule(_ source: GraphFrameSource, from start: Int64 = 0, frames: Int64? = nil, at time: GraphScheduleTime? = nil,
                         completeWhen: GraphCompletion = .rendered, completion: (@Sendable () -> Void)? = nil) {
        let first = min(max(0, start), source.frameCount)
        let end = min(source.frameCount, first + max(0, min(frames ?? Int64.max, Int64.max - first)))
        lock.withLock {
            channels = max(1, min(16, source.channelCount))
            items.append(Item(source: source, next: first, end: end, loops: false, handler: completion, completeWhen: completeWhen,
                              startAt: time?.clamped, atGraphRate: false))
        }
    }

    /// Schedules the file at `path` whole, as `schedule(_:from:frames:at:completion:)`.
    /// - Throws: as `GraphFile(path:)`.
    public func schedule(file path: String, at time: GraphScheduleTime? = nil, completeWhen: GraphCompletion = .rendered,
                         completion: (@Sendable () -> Void)? = nil) throws(RecorderError) {
        schedule(try GraphFile(path: path), at: time, completeWhen: completeWhen, completion: completion)
    }

    /// Schedules samples (one array per channel, 1…16 channels, at `sampleRate`) with `options`, at
    /// `time` as `schedule(_:from:frames:at:completion:)`.
    public func schedule(samples: [[Float]], sampleRate: Int, at time: GraphScheduleTime? = nil, options: GraphBufferOptions = [],
                         completeWhen: GraphCompletion = .rendered, completion: (@Sendable () -> Void)? = nil) {
        let source = SampleSource(channels: Array(samples.prefix(16)), sampleRate: max(1, sampleRate))
        var interrupted: [@Sendable () -> Void] = []
        lock.withLock {
            channels = source.channelCount
            if options.contains(.interrupts) {
                interrupted = items.compactMap(\.handler)
                items.removeAll()
            } else if options.contains(.interruptsAtLoop), let last = items.indices.last, items[last].loops {
                items[last].loops = false
            }
            items.append(Item(source: source, next: 0, end: source.frameCount, loops: options.contains(.loops), handler: completion,
                              completeWhen: completeWhen, startAt: time?.clamped, atGraphRate: false))
        }
        interrupted.forEach { $0() }
    }

    // MARK: Playing

    /// Plays what is scheduled (and what will be), from the next pass, or from graph sample time `time`
    /// (the graph's `lastRenderTime` clock: two players given one time start together, to the frame).
    public func play(at time: Int64? = nil) {
        lock.withLock {
            playing = true
            startAt = time.map { max(0, $0) }
        }
    }

    /// Pauses where it is; `play()` goes on.
    public func pause() { lock.withLock { playing = false } }

    /// Stops: everything scheduled is dropped (each item's completion handler runs, on this thread) and
    /// the player's time goes back to 0.
    public func stop() {
        let handlers = lock.withLock { () -> [@Sendable () -> Void] in
            playing = false
            playerFrames = 0
            startAt = nil
            anchor = nil
            defer { items.removeAll() }
            return items.compactMap(\.handler)
        }
        handlers.forEach { $0() }
    }

    /// `stop()`.
    public override func reset() { stop() }

    /// Whether it plays.
    public var isPlaying: Bool { lock.withLock { playing } }

    /// The player's time: frames put out since `play()` (after its last stop); nil when it neither
    /// plays nor has played since.
    public var playerTime: Int64? { lock.withLock { playing || playerFrames > 0 ? playerFrames : nil } }

    /// Channels it puts out: the most of any item scheduled (each item plays in its own channels, one of
    /// fewer going to the rest as a mono source goes to both sides); with nothing scheduled, those of
    /// what it last had (2 before anything).
    public var channelCount: Int {
        lock.withLock { items.lazy.map { max(1, min(16, $0.source.channelCount)) }.max() ?? channels }
    }

    // MARK: Rendering

    override func outputChannels(_ pass: RenderPass) -> Int { channelCount }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        lock.withLock {
            guard playing else { return }
            var written = 0
            if let startAt {
                guard startAt < pass.graphSampleTime + Int64(frames) else { return }  // not yet
                written = Int(max(0, startAt - pass.graphSampleTime))
                self.startAt = nil
            }
            let silentLead = written
            while written < frames, !items.isEmpty {
                if let startAt = items[0].startAt {
                    // Silence until the item's time, in the player's timeline or the graph's.
                    let ahead = switch startAt {
                    case .player(let time): time - (playerFrames + Int64(written - silentLead))
                    case .graph(let time): time - (pass.graphSampleTime + Int64(written))
                    }
                    if ahead > 0 {
                        written += Int(min(Int64(frames - written), ahead))
                        continue
                    }
                    items[0].startAt = nil
                }
                if !items[0].atGraphRate { atGraphRate(&items[0], rate: pass.sampleRate) }
                let item = items[0]
                let wanted = Int(min(Int64(frames - written), item.end - item.next))
                let got = wanted > 0 ? item.source.read(from: item.next, count: wanted, into: buffer, at: written) : 0
                // An item of fewer channels than the player puts out (a mono file after a stereo buffer): its
                // last channel goes to the rest, as a mono source goes to both sides.
                let last = item.source.channelCount - 1
                if got > 0, last >= 0, last + 1 < buffer.channelCount {
                    let from = buffer.channel(last)
                    for channel in (last + 1)..<buffer.channelCount {
                        let to = buffer.channel(channel)
                        for frame in written..<(written + got) { to[frame] = from[frame] }
                    }
                }
                written += got
                if got == 0 || item.next + Int64(got) >= item.end {
                    // A loop goes back to its start (a source that gives nothing there ends it).
                    if item.loops && item.end > 0 && (got > 0 || item.next > 0) {
                        items[0].next = 0
                    } else {
                        let finished = items.removeFirst()
                        if let handler = finished.handler {
                            if finished.completeWhen == .heard {
                                // Heard once the frame after its last is being played.
                                pass.whenHeard.append(WhenHeard(outputFrame: pass.graphSampleTime + Int64(written), runsOnStop: true) { _ in
                                    handler()
                                })
                            } else {
                                pass.deferred.append(handler)
                            }
                        }
                    }
                } else {
                    items[0].next += Int64(got)
                }
            }
            // Player time 0 is this graph time (constant while it plays; a pause moves it).
            anchor = pass.graphSampleTime + Int64(silentLead) - playerFrames
            playerFrames += Int64(frames - silentLead)
        }
    }

    /// The graph sample time of player time 0 since it last played (nil before it has rendered).
    private var anchor: Int64?

    /// The player time at graph sample time `graphTime` (the graph's `lastRenderTime` clock): nil unless
    /// it plays and has rendered since `play()`.
    public func playerTime(forGraphTime graphTime: Int64) -> Int64? {
        lock.withLock { playing ? anchor.map { graphTime &- $0 } : nil }
    }

    /// The graph sample time of player time `playerTime`: nil unless it plays and has rendered since `play()`.
    public func graphTime(forPlayerTime playerTime: Int64) -> Int64? {
        lock.withLock { playing ? anchor.map { playerTime &+ $0 } : nil }
    }

    /// Puts `item` at the graph's rate: a source at another rate is read through a resampler (its frame
    /// numbers scaled with it); one the resampler cannot take plays at the graph's rate as it is.
    private func atGraphRate(_ item: inout Item, rate: Int) {
        item.atGraphRate = true
        guard item.source.sampleRate != rate, let resampled = ResampledSource(item.source, rate: rate) else { return }
        item.next = Int64((Double(item.next) / resampled.ratio).rounded())
        item.end = min(resampled.frameCount, Int64((Double(item.end) / resampled.ratio).rounded()))
        item.source = resampled
    }
}

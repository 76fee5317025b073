// The fan-out from one take to every page watching it: each client's levels merged since its last message
// (no peak lost between updates), its events queued, its state replaced; capture never waits on a client.
import Glibc
import Locking

/// Levels, events and state for every client of `/api/events`.
///
/// Publishing takes one lock for a few microseconds per client and never waits for a socket: each client
/// keeps only an accumulator (the highest peak and any full-scale sample per channel since its last
/// message, the newest levels line, the newest state, its pending events, at most `maxEvents`). A client's
/// writer pulls a message when its socket has room (`next(_:)`), at most `maxRate` levels messages a
/// second; a client whose writer has not pulled for `stallLimit` seconds while data waits is dropped
/// (`onStall` shuts its socket), so a stalled browser costs one accumulator, and only until then.
///
/// Threads: `publish…` from any thread (the command's reading and event tasks); `next` from the writer's
/// task. Sendable: all state is behind `clients`' lock; the constants are immutable.
public final class LevelHub: Sendable {
    /// The most levels messages a client gets a second.
    public static let maxRate = 10.0
    /// Events kept for a client that has not pulled; past this they are counted and said once.
    public static let maxEvents = 1_000
    /// Seconds a client's writer may be stuck (its socket full) before it is dropped.
    public let stallLimit: Double
    /// Called once for a client dropped as stalled, with its connection's peer (from the watchdog task).
    let onStall: @Sendable (ClientPeer) -> Void

    struct Client {
        let peer: ClientPeer
        /// Per channel: the highest peak (dBFS) and whether any sample was at full scale since the last message.
        var peaks: [Float] = []
        var clipped: [Bool] = []
        /// The newest `--levels-json` line not yet sent (the peaks above cover every reading since).
        var levels: String?
        var state: String?
        var events: [String] = []
        var eventsLeftOut = 0
        var lastLevelsSent: UInt64 = 0
        /// When the writer last asked for a message, and whether it waits now.
        var lastPull: UInt64
        var waiter: CheckedContinuation<Void, Never>?
        var waitingSince: UInt64 = 0
        var keepAlive = false
        var gone = false
        var hasData: Bool { levels != nil || state != nil || !events.isEmpty || eventsLeftOut > 0 || keepAlive }
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var latestState: String?
        var finished = false
        /// Every client ever dropped as stalled (for the log and the tests).
        var stalledCount = 0
    }

    private let state = Locked(State())

    init(stallLimit: Double, onStall: @escaping @Sendable (ClientPeer) -> Void) {
        self.stallLimit = stallLimit.isFinite ? min(max(stallLimit, 0.5), 3_600) : 3
        self.onStall = onStall
    }

    /// The clients watching now.
    public var clientCount: Int { state.withLock { $0.clients.count } }
    /// Clients dropped because they stopped reading.
    public var stalledCount: Int { state.withLock { $0.stalledCount } }

    /// One buffer's levels: `line` the `--levels-json` object, `peaks` its per-channel sample peaks (dBFS).
    public func publish(levels line: String, peaks: [Float]) {
        let fullScale = Float(20 * log10(32_767.0 / 32_768.0))
        wake { client in
            if client.peaks.count != peaks.count {
                client.peaks = [Float](repeating: -.infinity, count: peaks.count)
                client.clipped = [Bool](repeating: false, count: peaks.count)
            }
            for index in peaks.indices where !peaks[index].isNaN {
                client.peaks[index] = max(client.peaks[index], peaks[index])
                if peaks[index] >= fullScale { client.clipped[index] = true }
            }
            client.levels = line
        }
    }

    /// An event (a JSON object), delivered to every client in order.
    public func publish(event json: String) {
        wake { client in
            if client.events.count < Self.maxEvents { client.events.append(json) } else { client.eventsLeftOut += 1 }
        }
    }

    /// The take's state (a JSON object): each client gets the newest.
    public func publish(state json: String) {
        state.withLock { $0.latestState = json }
        wake { $0.state = json }
    }

    /// Ends every client's stream (the server is stopping).
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            return state.clients.keys.compactMap { state.clients[$0]?.waiter.take() }
        }
        waiters.forEach { $0.resume() }
    }

    private func wake(_ change: (inout Client) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            var woken: [CheckedContinuation<Void, Never>] = []
            for id in state.clients.keys {
                change(&state.clients[id]!)
                if let waiter = state.clients[id]!.waiter.take() { woken.append(waiter) }
            }
            return woken
        }
        waiters.forEach { $0.resume() }
    }

    /// A new client, given the newest state at once.
    func register(peer: ClientPeer) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            var client = Client(peer: peer, lastPull: monotonicNanoseconds())
            client.state = state.latestState
            state.clients[id] = client
            return id
        }
    }

    /// True while client `id`'s writer waits in `next` for something to send.
    func isWaiting(_ id: Int) -> Bool { state.withLock { $0.clients[id]?.waiter != nil } }

    /// Forgets a client (its stream ended or its connection closed).
    func unregister(_ id: Int) {
        let waiter = state.withLock { $0.clients.removeValue(forKey: id)?.waiter }
        waiter?.resume()
    }

    /// The next message for client `id`, when there is one and its rate allows; nil when the client is
    /// dropped or the server stops.
    func next(_ id: Int) async -> [UInt8]? {
        while true {
            enum Step { case send([UInt8]), sleep(UInt64), wait, end }
            let now = monotonicNanoseconds()
            let step = state.withLock { state -> Step in
                guard !state.finished, var client = state.clients[id], !client.gone else { return .end }
                client.lastPull = now
                defer { state.clients[id] = client }
                guard client.hasData else { return .wait }
                let interval = UInt64(1e9 / Self.maxRate)
                // Levels alone wait for their turn; events and state go at once, with levels if due.
                let levelsDue = client.levels != nil && now >= client.lastLevelsSent + interval
                if client.levels != nil && !levelsDue && client.events.isEmpty && client.state == nil
                    && client.eventsLeftOut == 0 && !client.keepAlive {
                    return .sleep(client.lastLevelsSent + interval - now)
                }
                return .send(Self.message(&client, levels: levelsDue, now: now))
            }
            switch step {
            case .send(let bytes): return bytes
            case .end: return nil
            case .sleep(let nanoseconds): try? await Task.sleep(nanoseconds: nanoseconds)
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state -> Bool in
                            guard !state.finished, var client = state.clients[id], !client.gone, !client.hasData else { return true }
                            client.waiter = continuation
                            client.waitingSince = monotonicNanoseconds()
                            state.clients[id] = client
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = state.withLock { $0.clients[id]?.waiter.take() }
                    waiter?.resume()
                }
                if Task.isCancelled { return nil }
            }
        }
    }

    /// Everything pending for `client` as Server-Sent Events, its accumulators emptied.
    private static func message(_ client: inout Client, levels: Bool, now: UInt64) -> [UInt8] {
        var text = ""
        for event in client.events { text += "event: recorder\ndata: \(event)\n\n" }
        client.events.removeAll(keepingCapacity: true)
        if client.eventsLeftOut > 0 {
            text += "event: recorder\ndata: {\"event\": \"left-out\", \"count\": \(client.eventsLeftOut)}\n\n"
            client.eventsLeftOut = 0
        }
        if let state = client.state { text += "event: state\ndata: \(state)\n\n" }
        client.state = nil
        if levels, let line = client.levels, line.hasSuffix("}") {
            func number(_ value: Float) -> String {
                value.isFinite && value > -160 ? String(Double((value * 100).rounded()) / 100) : "null"
            }
            text += "event: levels\ndata: " + line.dropLast()
                + ", \"peak_since_last_db\": [" + client.peaks.map(number).joined(separator: ", ") + "]"
                + ", \"clipped_since_last\": [" + client.clipped.map { $0 ? "true" : "false" }.joined(separator: ", ") + "]}\n\n"
            client.levels = nil
            client.peaks = client.peaks.map { _ in -.infinity }
            client.clipped = client.clipped.map { _ in false }
            client.lastLevelsSent = now
        }
        if client.keepAlive {
            text += ": keep-alive\n\n"
            client.keepAlive = false
        }
        return Array(text.utf8)
    }

    /// Runs until the server stops: every quarter second, drops clients whose writer is stuck and wakes
    /// the idle ones every 15 s with a comment (so a vanished peer's connection is found and closed).
    func watch() async {
        let stall = UInt64(stallLimit * 1e9), idle: UInt64 = 15_000_000_000
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 250_000_000)
            let now = monotonicNanoseconds()
            let (stalled, woken) = state.withLock { state -> ([ClientPeer], [CheckedContinuation<Void, Never>]) in
                if state.finished { return ([], []) }
                var stalled: [ClientPeer] = [], woken: [CheckedContinuation<Void, Never>] = []
                for id in state.clients.keys {
                    var client = state.clients[id]!
                    if client.waiter == nil && !client.gone && now > client.lastPull + stall {
                        client.gone = true
                        stalled.append(client.peer)
                        state.stalledCount += 1
                    } else if client.waiter != nil && now > client.waitingSince + idle {
                        client.keepAlive = true
                        if let waiter = client.waiter.take() { woken.append(waiter) }
                    }
                    state.clients[id] = client
                }
                return (stalled, woken)
            }
            woken.forEach { $0.resume() }
            stalled.forEach(onStall)
            if state.withLock({ $0.finished }) { return }
        }
    }
}

/// The peer of a connection (address and port as the socket names them), to find its socket by.
public struct ClientPeer: Sendable, Hashable {
    /// The peer's numeric address, as the socket names it.
    public let address: String
    /// The peer's port.
    public let port: UInt16
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

extension Optional {
    /// The value, leaving nil behind.
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

// Fanning values out to any number of AsyncStreams: the readings and events of both directions.
import Locking

/// The entries behind a set of AsyncStreams (a continuation, or a continuation and its own state): each
/// added until its stream terminates, all handed back once by `finish`, none added after it.
final class StreamRegistry<Entry: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var entries: [Int: Entry] = [:]
        var finished = false
    }
    private let state = Locked(State())

    /// Adds `entry`, removed when `continuation`'s stream terminates. Once finished, adds nothing and
    /// finishes `continuation` at once.
    func add<Element>(_ entry: Entry, for continuation: AsyncStream<Element>.Continuation) {
        let registered = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = entry
            return id
        }
        guard let id = registered else {
            continuation.finish()
            return
        }
        // A strong capture, not weak: the registry lives as long as its streams are registered
        // anyway, and `finish()` (or the consumer leaving) terminates each stream, which releases this
        // closure. A weak reference would allocate a side table that the delivery thread may still hold
        // when the command exits, which LeakSanitizer reports as a leak.
        let state = self.state
        continuation.onTermination = { _ in
            _ = state.withLock { $0.entries.removeValue(forKey: id) }
        }
    }

    /// The current entries (a copy: use them outside the lock).
    var entries: [Entry] { state.withLock { Array($0.entries.values) } }

    /// Marks the registry finished and returns the entries it held, for their streams to be finished.
    func finish() -> [Entry] {
        state.withLock { state in
            state.finished = true
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
    }
}

/// Fans values out to any number of AsyncStreams. Yields happen outside the lock.
///
/// A value may stand (a state that holds until another value ends it: "the source is suspended"): a
/// stream made while it stands begins with it, so a subscriber that came late still learns the state.
/// The standing value changes and the subscribers to tell are read under one lock, which a new stream
/// takes to begin with the standing value and join: every subscriber sees the changes in order.
final class Broadcaster<Value: Sendable>: Sendable {
    private let streams = StreamRegistry<AsyncStream<Value>.Continuation>()
    private let standing = Locked<Value?>(nil)

    func makeStream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .unbounded)
        standing.withLock { value in
            if let value { continuation.yield(value) }
            streams.add(continuation, for: continuation)
        }
        return stream
    }

    func yield(_ value: Value) {
        for continuation in streams.entries { continuation.yield(value) }
    }

    /// Yields `value` and makes `standing` the value later streams begin with (nil: none).
    func yield(_ value: Value, standing new: Value?) {
        let targets = standing.withLock { value -> [AsyncStream<Value>.Continuation] in
            value = new
            return streams.entries
        }
        for continuation in targets { continuation.yield(value) }
    }

    func finish() {
        for continuation in streams.finish() { continuation.finish() }
    }
}

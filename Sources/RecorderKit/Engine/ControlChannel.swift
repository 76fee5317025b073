// A state under one lock with waits that re-check their condition at every change, blocking a thread or
// suspending a task: what a `Worker` shares with the threads that control it.
import Locking

/// A state shared by controlling threads and the one thread that acts on it, with waits that re-check
/// their condition under the lock at every change: blocking (a thread) or suspending (Swift
/// concurrency, no thread blocked).
final class ControlChannel<State> {
    private struct Box {
        var state: State
        var waiters: [(isDone: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let box: Locked<Box>

    init(_ state: State) { box = Locked(Box(state: state)) }

    /// Reads or posts under the lock, waking nobody (a request is followed by the acting thread's wake-up).
    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try box.withLock { (box: inout Box) throws(E) -> R in try body(&box.state) }
    }

    /// Changes the state and wakes every waiter whose condition now holds (async ones are resumed
    /// outside the lock).
    @discardableResult
    func change<R>(_ body: (inout State) -> R) -> R {
        let (result, ready) = box.withLockBroadcasting { box -> (R, [CheckedContinuation<Void, Never>]) in
            let result = body(&box.state)
            let snapshot = box.state
            var ready: [CheckedContinuation<Void, Never>] = []
            box.waiters.removeAll { waiter in
                guard waiter.isDone(snapshot) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Blocks until `isDone` holds (re-checked under the lock at every change).
    func wait(until isDone: (State) -> Bool) {
        box.wait { isDone($0.state) }
    }

    /// Suspends, blocking no thread, until `isDone` holds.
    func wait(until isDone: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = box.withLock { box -> Bool in
                if isDone(box.state) { return true }
                box.waiters.append((isDone, continuation))
                return false
            }
            if already { continuation.resume() }
        }
    }
}

// @unchecked Sendable: `state` and `waiters` are only touched while `box`'s mutex is held, the state is
// itself Sendable, and the conditions handed in are @Sendable.
extension ControlChannel: @unchecked Sendable where State: Sendable {}

// The one worker of both directions: a named thread that owns a stream's buffers and carries out numbered
// requests between them, and the control protocol of the threads that ask it.
import Glibc
import Locking

/// What a worker shares with the threads that control it, under one lock: the requests queued and how
/// far they are carried out, and the engine's own part, `Shared` (its members read through this value).
@dynamicMemberLookup
struct WorkerState<Request: Sendable, Shared: Sendable>: Sendable {
    var shared: Shared
    fileprivate var queue: [(number: Int, request: Request)] = []
    fileprivate var nextNumber = 1
    fileprivate var failures: [Int: RecorderError] = [:]
    /// Requests up to this number have been carried out (in order).
    fileprivate(set) var handled = 0
    /// Set by the worker as its last act: nothing is carried out after it.
    fileprivate(set) var exited = false

    /// Requests wait to be carried out.
    var hasQueued: Bool { !queue.isEmpty }

    subscript<T>(dynamicMember member: WritableKeyPath<Shared, T>) -> T {
        get { shared[keyPath: member] }
        set { shared[keyPath: member] = newValue }
    }

    subscript<T>(dynamicMember member: KeyPath<Shared, T>) -> T { shared[keyPath: member] }
}

/// What runs on a worker: the recorder's delivery, the player's feeder.
protocol WorkerBody: AnyObject, Sendable {
    associatedtype Request: Sendable
    associatedtype Shared: Sendable
    var worker: Worker<Request, Shared> { get }
    /// Carries out `request` between buffers, on the worker.
    func carryOut(_ request: Request) throws(RecorderError)
    /// Carries out `request` at once, made on the worker itself (by a handler or callback running
    /// there); false: it is queued and carried out after the buffer at hand.
    func carryOutInline(_ request: Request) throws(RecorderError) -> Bool
    /// When to wake for the next round at the latest (CLOCK_MONOTONIC ns; nil: only when posted).
    func nextDeadline() -> Int64?
    /// One round after a wake-up: requests, buffers, what is under way. False once the worker is done.
    func round() -> Bool
    /// The worker's last act before `exited` (also when its thread could not start): close the stream,
    /// finish the streams.
    func end()
}

/// A worker thread and the protocol of the threads that control it, for both directions:
/// - a request is submitted from any thread, numbered, and carried out by the worker between buffers,
///   in order; a change to the shared state may go with it, under the same lock;
/// - a caller waits until its request is carried out (blocking a thread, or suspending one task) and
///   gets its failure, or waits for any condition of the shared state, re-checked at each change;
/// - a request made on the worker itself is carried out at once, or queued, as the body says: never
///   waited for there, since the worker would wait for itself;
/// - the worker sleeps on one semaphore, posted by each request and by the stream's callbacks.
final class Worker<Request: Sendable, Shared: Sendable>: Sendable {
    let control: ControlChannel<WorkerState<Request, Shared>>
    /// Posted by each request and by the stream's callbacks (data, room, a state change).
    let wake: Semaphore
    private let name: String
    private let thread = Locked<pthread_t?>(nil)

    /// A worker named `name` (what `top -H` shows; at most 15 bytes) that wakes on `wake`.
    init(named name: String, shared: Shared, wake: Semaphore) {
        self.name = name
        self.wake = wake
        control = ControlChannel(WorkerState(shared: shared))
    }

    /// Starts the thread for `body` (detached: waits are for `exited`, never a join, so it may end from
    /// the thread itself). If the system refuses a thread, `body.end()` runs here, as at the worker's
    /// end, and the error names `what`.
    func start<Body: WorkerBody>(_ body: Body, what: String) throws(RecorderError)
        where Body.Request == Request, Body.Shared == Shared {
        switch startThread(named: name, { [self] in run(body) }) {
        case .success(let thread):
            pthread_detach(thread)
        case .failure(let failure):
            body.end()
            control.change { $0.exited = true }
            throw failure.error(starting: what)
        }
    }

    /// True on the worker thread (in a handler or callback that runs there).
    var isCurrentThread: Bool {
        thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    // MARK: Any thread

    /// Queues `request`, with `change` made to the shared state under the same lock, and wakes the
    /// worker; returns the request's number.
    @discardableResult
    func submit(_ request: Request, _ change: (inout Shared) -> Void = { _ in }) -> Int {
        let number = control.withLock { state -> Int in
            change(&state.shared)
            defer { state.nextNumber += 1 }
            state.queue.append((state.nextNumber, request))
            return state.nextNumber
        }
        wake.post()
        return number
    }

    /// Submits `request` and blocks until it is carried out (or the worker has ended); throws its
    /// failure. On the worker itself it is carried out at once or queued, as the body says.
    func perform<Body: WorkerBody>(_ request: Request, on body: Body) throws(RecorderError)
        where Body.Request == Request, Body.Shared == Shared {
        if isCurrentThread {
            if try body.carryOutInline(request) { return }
            submit(request)
            return
        }
        let number = submit(request)
        control.wait { $0.handled >= number || $0.exited }
        if let failure = control.withLock({ $0.failures.removeValue(forKey: number) }) { throw failure }
    }

    /// `perform` for Swift concurrency: suspends, blocking no thread.
    func perform(_ request: Request) async throws(RecorderError) {
        let number = submit(request)
        await control.wait { $0.handled >= number || $0.exited }
        if let failure = control.withLock({ $0.failures.removeValue(forKey: number) }) { throw failure }
    }

    /// Blocks until `isDone` holds (re-checked under the lock at every change).
    func wait(until isDone: (WorkerState<Request, Shared>) -> Bool) { control.wait(until: isDone) }

    /// Suspends, blocking no thread, until `isDone` holds.
    func wait(until isDone: @escaping @Sendable (WorkerState<Request, Shared>) -> Bool) async {
        await control.wait(until: isDone)
    }

    // MARK: The worker

    /// Carries out every queued request, in order, recording each outcome; `after` updates the shared
    /// state with each outcome, under the same lock (waiters see both at once). Stops early when
    /// `stop` says so (the worker is leaving).
    func carryOutRequests<Body: WorkerBody>(_ body: Body, after: (inout Shared) -> Void = { _ in },
                                            stop: () -> Bool = { false })
        where Body.Request == Request, Body.Shared == Shared {
        while !stop(), let (number, request) = control.withLock({ state -> (Int, Request)? in
            state.queue.isEmpty ? nil : state.queue.removeFirst()
        }) {
            var failure: RecorderError?
            do {
                try body.carryOut(request)
            } catch {
                failure = error
            }
            control.change { state in
                state.handled = number
                if let failure { state.failures[number] = failure }
                after(&state.shared)
            }
        }
    }

    /// The thread: sleeps until posted (or the body's deadline), runs a round, until the body is done;
    /// then its end, and `exited`.
    private func run<Body: WorkerBody>(_ body: Body) where Body.Request == Request, Body.Shared == Shared {
        thread.withLock { $0 = pthread_self() }
        repeat {
            wake.wait(until: body.nextDeadline())
        } while body.round()
        body.end()
        control.change { $0.exited = true }
    }
}

// The locks every thread of the package takes: a pthread mutex with a condition variable, and a value behind
// one. A module of its own, so the library and the command share one lock that ThreadSanitizer sees.
import Glibc

/// A plain pthread mutex with a condition variable, for locks taken and released in different scopes
/// and for waits that re-check their condition under the lock.
public final class PosixMutex: @unchecked Sendable {
    // @unchecked Sendable: pthread mutexes and condition variables are made to be shared between
    // threads; the pointers are fixed.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// A mutex; `recursive`, one its holder may take again (each lock matched by an unlock), for a lock
    /// whose holder runs code that may call back into what takes it (a graph's render pass calling a
    /// program's render block). A recursive mutex is never waited on with `wait`.
    public init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var mutexAttributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&mutexAttributes)
        if recursive { pthread_mutexattr_settype(&mutexAttributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &mutexAttributes)
        pthread_mutexattr_destroy(&mutexAttributes)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }
    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// With the mutex held: sleeps until `broadcast` (or a spurious wake-up; callers loop).
    public func wait() { pthread_cond_wait(condition, mutex) }
    /// With the mutex held: as `wait`, but returns by CLOCK_MONOTONIC nanoseconds `deadline` at the latest.
    public func wait(deadline: Int64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &time)
    }
    public func broadcast() { pthread_cond_broadcast(condition) }
    /// Runs `body` with the mutex held: a lock that guards no value (not `Locked<Void>`, whose zero-size
    /// value ThreadSanitizer's access checks take for the mutex field beside it: a false race).
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value behind a pthread mutex. Synchronization's Mutex would do the same, but ThreadSanitizer cannot
/// see its futex-based locking (the standard library is not instrumented) and reports false races, which
/// would hide real ones in the test command's TSan pass.
public final class Locked<Value> {
    private let mutex = PosixMutex()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }

    /// Changes the value and wakes every thread in `wait`.
    public func withLockBroadcasting<R>(_ body: (inout Value) -> R) -> R {
        mutex.lock()
        defer {
            mutex.broadcast()
            mutex.unlock()
        }
        return body(&value)
    }

    /// Blocks until `done` holds (checked under the lock at every wake-up) or, with a deadline
    /// (CLOCK_MONOTONIC nanoseconds), until then; returns `done`'s last answer.
    @discardableResult
    public func wait(deadline: Int64? = nil, until done: (Value) -> Bool) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        while !done(value) {
            if let deadline {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                guard Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) < deadline else { return false }
                mutex.wait(deadline: deadline)
            } else {
                mutex.wait()
            }
        }
        return true
    }
}

// @unchecked Sendable: `value` is only touched inside `withLock` or `wait`, while `mutex` is held, and it
// is itself Sendable, so what `withLock` hands out may cross threads.
extension Locked: @unchecked Sendable where Value: Sendable {}

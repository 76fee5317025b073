// The wake-up of a worker thread: a POSIX semaphore, which a libpulse callback may post without blocking.
import CSemaphore
import Glibc

/// A counting semaphore (POSIX): posting never blocks, so a libpulse callback may post. Timed waits run
/// on CLOCK_MONOTONIC, as every clock of the package.
final class Semaphore: @unchecked Sendable {
    // @unchecked Sendable: sem_t is made for use from many threads; the pointer never changes.
    private let sem: UnsafeMutablePointer<sem_t>

    init(value: UInt32 = 0) {
        sem = .allocate(capacity: 1)
        sem_init(sem, 0, value)
    }

    deinit {
        sem_destroy(sem)
        sem.deallocate()
    }

    func post() { sem_post(sem) }

    /// Waits until posted, or until CLOCK_MONOTONIC nanoseconds `deadline` (nil: no limit); true if it
    /// was posted.
    @discardableResult
    func wait(until deadline: Int64? = nil) -> Bool {
        guard let deadline else {
            while sem_wait(sem) != 0 {
                if errno != EINTR { return false }
            }
            return true
        }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while sem_clockwait(sem, CLOCK_MONOTONIC, &time) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}

// The package's clocks: CLOCK_MONOTONIC for every wait, deadline and device time; CLOCK_BOOTTIME to see a
// sleep; CLOCK_REALTIME only to stamp a file with the wall-clock time of its first frame.
import Glibc

/// CLOCK_BOOTTIME in nanoseconds (runs on while the machine sleeps).
func bootNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_BOOTTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// CLOCK_REALTIME in seconds since 1970 (wall-clock time: it may jump; never used to measure).
func realtimeSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

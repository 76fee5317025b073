// Where a logger cuts its files: the instants at which the wall clock (local time or UTC) reads a whole multiple of a period since midnight.
import Glibc

/// The boundaries of a logger's files on the wall clock (issue 52): every `period` seconds of the local
/// (or UTC) time of day, counted from midnight, as a logging box's hourly files start on the hour.
///
/// A boundary is an instant at which the time of day, read with the zone's offset in force at that
/// instant, is a whole multiple of the period. So across a change of offset the boundaries stay on the
/// clock's marks: in spring, with hourly files, 01:00 then 03:00 (the skipped hour has no mark, and the
/// file between is an hour long); in autumn 01:00, then 01:00 again when the clock goes back (each file an
/// hour long: names must tell the two apart, as `%z` does). A period divides a day (1 s to 24 h), so every
/// day starts a file at midnight. Leap days and leap seconds change nothing here: the time of day is the
/// Unix time's (UTC seconds, which have none) plus the offset.
///
/// Values, usable from any thread. The local zone is the process's (`TZ`), read through `localtime_r`.
public struct SegmentClock: Sendable, Hashable {
    /// Where the time of day is read.
    public enum Zone: Sendable, Hashable {
        /// The process's time zone, with its daylight-saving changes.
        case local
        /// UTC: no offset, no changes.
        case utc
    }

    /// Seconds between boundaries; divides 86 400.
    public let period: Int
    /// Where the time of day is read: the process's zone or UTC.
    public let zone: Zone

    /// Nil unless `seconds` is a whole number of seconds that divides a day (1, 2, … 30 s, 1, 2, … 30 min,
    /// 1, 2, 3, 4, 6, 8, 12 or 24 h).
    public init?(period seconds: Double, zone: Zone) {
        guard seconds.isFinite, seconds >= 1, seconds <= 86_400, seconds == seconds.rounded(),
              86_400 % Int(seconds) == 0 else { return nil }
        period = Int(seconds)
        self.zone = zone
    }

    /// The first boundary after `time` (Unix seconds, CLOCK_REALTIME), or nil for a time no calendar
    /// holds (not finite, or beyond ±10^15 s).
    public func nextBoundary(after time: Double) -> Double? {
        nextBoundary(after: time) { instant in zone == .utc ? 0 : Self.localOffset(at: instant) }
    }

    /// As `nextBoundary(after:)`, with the zone's offset east of UTC (seconds) at a Unix second given by
    /// `offset` (the tests' zones). Offsets change at most a few times a year: between two changes the
    /// next mark is found with one offset; a change before it is found by halving and the search goes
    /// on from there with the new one.
    func nextBoundary(after time: Double, offset: (Int64) -> Int64) -> Double? {
        guard time.isFinite, abs(time) < 1e15 else { return nil }
        let period = Int64(self.period)
        // The smallest whole second after `time` that reads a mark: searched from the first whole second
        // after it, one stretch of constant offset at a time.
        var from = Int64(time.rounded(.down)) + 1
        // A day holds at most a few changes of offset: this bound is reached only by a broken zone.
        for _ in 0..<8 {
            let current = offset(from)
            let mark = Self.floorDivide(from + current + period - 1, period) * period - current
            guard offset(mark) != current else { return Double(mark) }
            // The offset changes before that mark: the search goes on from the first second of the new one.
            var low = from, high = mark
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if offset(middle) == current { low = middle } else { high = middle }
            }
            from = high
        }
        return nil
    }

    /// ⌊a / b⌋ for b > 0.
    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The process's zone's offset east of UTC at Unix second `instant`.
    private static func localOffset(at instant: Int64) -> Int64 {
        var seconds = time_t(instant)
        var broken = tm()
        guard localtime_r(&seconds, &broken) != nil else { return 0 }
        return Int64(broken.tm_gmtoff)
    }
}

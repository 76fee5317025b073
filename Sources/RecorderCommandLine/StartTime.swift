// `--start-at`'s times: a delay from now, or a clock time today.
import Glibc

/// `--start-at`: "+SECONDS" from now, or a clock time today ("HH:MM", "HH:MM:SS", local time).
struct StartTime {
    private enum Kind { case delay(Double), clock(Int) }
    private let kind: Kind

    init?(_ text: String) {
        if text.hasPrefix("+") {
            guard let seconds = Double(text.dropFirst()), seconds.isFinite, (0...86_400).contains(seconds) else { return nil }
            kind = .delay(seconds)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let (hour, minute, second) = (parts[0]!, parts[1]!, parts.count == 3 ? parts[2]! : 0)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        kind = .clock(hour * 3600 + minute * 60 + second)
    }

    /// Seconds from now until the time (nil if a clock time today has passed).
    func secondsFromNow() -> Double? {
        switch kind {
        case .delay(let seconds):
            return seconds
        case .clock(let secondOfDay):
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var seconds = now.tv_sec
            var local = tm()
            localtime_r(&seconds, &local)
            let today = Double(Int(local.tm_hour) * 3600 + Int(local.tm_min) * 60 + Int(local.tm_sec)) + Double(now.tv_nsec) / 1e9
            let ahead = Double(secondOfDay) - today
            return ahead >= 0 ? ahead : nil
        }
    }
}


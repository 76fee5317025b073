// A logger's file boundaries on the wall clock (SegmentClock): UTC, zones with daylight-saving changes
// (given as offset functions, so no test touches the process's TZ), half-hour zones, days and leap days.
import Glibc
@testable import RecorderKit
import Testing

struct SegmentClockTests {
    /// 2026-03-29 01:00 UTC and 2026-10-25 01:00 UTC: the United Kingdom's changes (GMT ↔ BST).
    static let spring: Int64 = 1_774_746_000
    static let autumn: Int64 = 1_792_890_000
    static func london(_ instant: Int64) -> Int64 { instant >= spring && instant < autumn ? 3_600 : 0 }

    /// `count` boundaries one after the other from `start`.
    func walk(_ clock: SegmentClock, from start: Double, count: Int, offset: (Int64) -> Int64) -> [Int64] {
        var marks: [Int64] = []
        var time = start
        for _ in 0..<count {
            guard let next = clock.nextBoundary(after: time, offset: offset) else { break }
            marks.append(Int64(next))
            time = next
        }
        return marks
    }

    @Test func utcMarksAreWholeMultiplesStrictlyAfter() throws {
        let hourly = try #require(SegmentClock(period: 3_600, zone: .utc))
        #expect(hourly.nextBoundary(after: 1_700_000_000.5) == 1_700_002_800)
        #expect(hourly.nextBoundary(after: 1_700_002_800) == 1_700_006_400, "a boundary is never the time itself")
        #expect(hourly.nextBoundary(after: 1_700_002_799.999) == 1_700_002_800)
        let minutes = try #require(SegmentClock(period: 60, zone: .utc))
        #expect(walk(minutes, from: 59.5, count: 3) { _ in 0 } == [60, 120, 180])
        // Before 1970 as well.
        #expect(minutes.nextBoundary(after: -61) == -60)
    }

    /// Spring: the hour from 01:00 to 02:00 GMT is skipped; the files start at 00:00 GMT, 02:00 BST and
    /// 03:00 BST, each an hour long. Autumn: the clock reads 01:00 twice; both are boundaries.
    @Test func daylightSavingKeepsTheMarksOfTheClock() throws {
        let hourly = try #require(SegmentClock(period: 3_600, zone: .local))
        let springDay = Double(Self.spring - 3_600 - 1)  // 23:59:59 GMT on the 28th
        #expect(walk(hourly, from: springDay, count: 3, offset: Self.london)
                == [Self.spring - 3_600, Self.spring, Self.spring + 3_600])
        let autumnDay = Double(Self.autumn - 2 * 3_600 - 1)  // 23:59:59 BST on the 24th
        let autumnMarks = walk(hourly, from: autumnDay, count: 4, offset: Self.london)
        #expect(autumnMarks == [Self.autumn - 2 * 3_600, Self.autumn - 3_600, Self.autumn, Self.autumn + 3_600])
        // Each reads a whole hour on the clock of its own moment.
        for mark in autumnMarks + walk(hourly, from: springDay, count: 3, offset: Self.london) {
            #expect((mark + Self.london(mark)) % 3_600 == 0)
        }
        // Half hours: the jump lands on a mark as well.
        let halves = try #require(SegmentClock(period: 1_800, zone: .local))
        #expect(walk(halves, from: Double(Self.spring - 1_800 - 1), count: 3, offset: Self.london)
                == [Self.spring - 1_800, Self.spring, Self.spring + 1_800])
    }

    /// A daily file starts at each local midnight: the spring day is 23 hours long, the autumn day 25.
    @Test func daysAreFromMidnightToMidnight() throws {
        let daily = try #require(SegmentClock(period: 86_400, zone: .local))
        let springMidnight = Self.spring - 3_600  // 00:00 GMT
        let afterSpring = walk(daily, from: Double(springMidnight), count: 1, offset: Self.london)
        #expect(afterSpring == [springMidnight + 23 * 3_600])
        let autumnMidnight = Self.autumn - 2 * 3_600  // 00:00 BST
        #expect(walk(daily, from: Double(autumnMidnight), count: 1, offset: Self.london) == [autumnMidnight + 25 * 3_600])
        // 2028-02-28 12:00 UTC: the 29th, then March.
        let utcDaily = try #require(SegmentClock(period: 86_400, zone: .utc))
        #expect(walk(utcDaily, from: 1_835_352_000, count: 2) { _ in 0 } == [1_835_395_200, 1_835_481_600])
    }

    /// India (+05:30) and Nepal (+05:45): an hour's files start at xx:00 on their clocks.
    @Test func zonesOffTheHourKeepTheirOwnMarks() throws {
        let hourly = try #require(SegmentClock(period: 3_600, zone: .local))
        #expect(hourly.nextBoundary(after: 1_700_000_000, offset: { _ in 19_800 }) == 1_700_001_000)
        #expect(hourly.nextBoundary(after: 1_700_000_000, offset: { _ in 20_700 }) == 1_700_000_100)
    }

    /// The process's own zone, whatever it is: the mark reads a whole hour through localtime_r.
    @Test func theLocalZoneIsReadThroughTheCLibrary() throws {
        let hourly = try #require(SegmentClock(period: 3_600, zone: .local))
        let mark = try #require(hourly.nextBoundary(after: 1_700_000_000.25))
        #expect(mark > 1_700_000_000.25 && mark <= 1_700_000_000.25 + 3_600)
        var seconds = time_t(mark)
        var broken = tm()
        _ = localtime_r(&seconds, &broken)
        #expect(broken.tm_min == 0 && broken.tm_sec == 0, "\(broken)")
    }

    @Test func periodsThatDoNotDivideADayAndTimesNoCalendarHoldsAreRefused() {
        for period in [0, -60, 0.5, 1.5, 7 * 60, 25 * 3_600, .nan, .infinity] as [Double] {
            #expect(SegmentClock(period: period, zone: .utc) == nil, "\(period)")
        }
        for period in [1, 60, 90 * 60, 3_600, 8 * 3_600, 86_400] as [Double] {
            #expect(SegmentClock(period: period, zone: .local)?.period == Int(period))
        }
        let clock = SegmentClock(period: 60, zone: .utc)
        for time in [Double.nan, .infinity, -.infinity, 1e16] { #expect(clock?.nextBoundary(after: time) == nil) }
    }
}

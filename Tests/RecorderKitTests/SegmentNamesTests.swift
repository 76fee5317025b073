// A logger's file names (SegmentNames: strftime fields, folders, names taken) and where its cuts fall
// when the wall clock runs, jumps forward or steps back (ClockCuts).
import Glibc
@testable import RecorderKit
import Testing
import TestSupport
import Foundation

struct SegmentNamesTests {
    /// 2026-11-29 22:00:00 UTC.
    static let evening: Double = 1_795_989_600

    @Test func fieldsAreReadAtTheFilesStartInUTC() throws {
        let names = SegmentNames(pattern: "%Y/%m/%d/%H%M%S.flac", zone: .utc)
        #expect(names.isTimed)
        #expect(names.name(at: Self.evening + 59.75) == "2026/11/29/220059.flac")
        // Leap day, and the first second of a year.
        #expect(names.name(at: 1_835_395_200) == "2028/02/29/000000.flac")
        #expect(names.name(at: 1_830_297_600) == "2028/01/01/000000.flac")
        #expect(SegmentNames(pattern: "log-%z.wav", zone: .utc).name(at: Self.evening) == "log-+0000.wav")
    }

    @Test func aPatternWithoutFieldsIsOneNameAndPercentSignsAreKept() {
        #expect(!SegmentNames(pattern: "log.flac", zone: .utc).isTimed)
        #expect(!SegmentNames(pattern: "100%%.wav", zone: .utc).isTimed)
        #expect(SegmentNames(pattern: "100%%.wav", zone: .utc).name(at: Self.evening) == "100%.wav")
        #expect(SegmentNames(pattern: "a%%%H.wav", zone: .utc).isTimed)
    }

    @Test func timesNoCalendarHoldsAndOverlongNamesGiveNoName() {
        let names = SegmentNames(pattern: "%Y.wav", zone: .local)
        for time in [Double.nan, .infinity, -.infinity, 1e16] { #expect(names.name(at: time) == nil, "\(time)") }
        // Each %Y is four bytes: 2 000 of them pass a path's limit.
        let long = SegmentNames(pattern: String(repeating: "%Y", count: 2_000) + ".wav", zone: .utc)
        #expect(long.name(at: Self.evening) == nil)
        #expect(SegmentNames(pattern: "", zone: .utc).name(at: Self.evening) == "")
    }

    @Test func foldersAreMadeAndAFileInTheWayIsTheError() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try SegmentNames.makeFolders(for: base + "/2026/11/29/220000.flac")
        var status = stat()
        #expect(stat(base + "/2026/11/29", &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        try SegmentNames.makeFolders(for: base + "/2026/11/29/230000.flac")  // there already: fine
        let blocker = base + "/file"
        close(open(blocker, O_CREAT | O_WRONLY, 0o644))
        #expect {
            try SegmentNames.makeFolders(for: blocker + "/x/220000.flac")
        } throws: { error in
            "\(error)".contains("'\(blocker)' is not a folder")
        }
    }

    /// Cuts by the minute: due only once the clock passed the boundary, then the next one waits.
    @Test func aCutIsDueOnceTheClockPassedItsBoundary() throws {
        let clock = try #require(SegmentClock(period: 60, zone: .utc))
        var cuts = ClockCuts(clock: clock, names: SegmentNames(pattern: "%H%M.wav", zone: .utc), start: Self.evening + 10)
        #expect(cuts.boundary == Self.evening + 60)
        #expect(cuts.passed(now: Self.evening + 59.999) == nil)
        #expect(cuts.passed(now: Self.evening + 60.05).map { [$0.first, $0.last] } == [Self.evening + 60, Self.evening + 60])
        cuts.place(frame: 48_000, boundary: Self.evening + 60)
        #expect(cuts.passed(now: Self.evening + 60.2) == nil, "one cut at a time")
        #expect(cuts.cut?.frame == 48_000 && cuts.boundary == Self.evening + 120)
        cuts.made()
        #expect(cuts.passed(now: Self.evening + 119) == nil)
        #expect(cuts.passed(now: Self.evening + 120)?.first == Self.evening + 120)
    }

    /// The clock stepped forward three hours (NTP after a long time off the network): the first and the
    /// last boundary passed are offered (the delivery cuts at the first whose frame is not written, here
    /// the last); the next waits for the clock. Stepped back an hour: the file runs on until the clock
    /// reaches its boundary again.
    @Test func aClockSteppedForwardCutsOnceAndSteppedBackWaits() throws {
        let clock = try #require(SegmentClock(period: 60, zone: .utc))
        var cuts = ClockCuts(clock: clock, names: SegmentNames(pattern: "%H%M.wav", zone: .utc), start: Self.evening + 10)
        let stepped = Self.evening + 3 * 3_600 + 30
        #expect(cuts.passed(now: stepped).map { [$0.first, $0.last] } == [Self.evening + 60, Self.evening + 3 * 3_600])
        cuts.place(frame: 1_000, boundary: Self.evening + 3 * 3_600)
        cuts.made()
        #expect(cuts.boundary == Self.evening + 3 * 3_600 + 60)
        #expect(cuts.passed(now: stepped - 3_600) == nil)
        #expect(cuts.passed(now: Self.evening + 3 * 3_600 + 60)?.first == Self.evening + 3 * 3_600 + 60)
        // With one-second files, a step of a day finds the last second before it too.
        let seconds = try #require(SegmentClock(period: 1, zone: .utc))
        let quick = ClockCuts(clock: seconds, names: SegmentNames(pattern: "%H%M%S.wav", zone: .utc), start: Self.evening)
        #expect(quick.passed(now: Self.evening + 86_400.5)?.last == Self.evening + 86_400)
    }
}

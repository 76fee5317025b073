// Where a logger's current file ends: the next boundary on the wall clock, and once the clock has passed it, the frame captured then.
import Glibc

/// The cuts of a take split on the clock (`Recorder.record(toSegments:every:)`), kept by the delivery
/// thread alone.
///
/// Invariants: `boundary` is the next boundary the wall clock has not reached; `cut`, once placed, is the
/// recorder frame captured at the boundary it was placed for (reckoned by the capture timing, from the
/// last data's arrival at the sample rate) and the file goes on to it, not past it. The cut is placed
/// only once the wall clock has passed its boundary: every buffer that holds a frame captured after the
/// boundary arrives after it, so the cut is placed before that frame is written (within the reckoning's
/// tolerance; a cut found behind what was written is made at once, and the file's sheet says by how
/// much).
///
/// Boundaries passed while no audio came (a source that delivers in bursts) are cut one after the other,
/// each at its own frame. A wall clock stepped forward past several boundaries makes one cut, named for
/// the first of them whose frame is not written yet, or the last (no empty files); stepped back, the
/// current file runs on until the clock reaches its boundary again.
struct ClockCuts: Sendable {
    let clock: SegmentClock
    let names: SegmentNames
    /// The next boundary (Unix seconds), nil when no calendar holds it (the take then goes on in one file).
    private(set) var boundary: Double?
    /// The cut placed: the recorder frame and the boundary (Unix seconds) it is for.
    private(set) var cut: (frame: Int64, boundary: Double)?

    /// The cuts of a take whose first file starts at `start` (Unix seconds).
    init(clock: SegmentClock, names: SegmentNames, start: Double) {
        self.clock = clock
        self.names = names
        boundary = clock.nextBoundary(after: start)
    }

    /// At `now` (Unix seconds), if the clock has passed the next boundary and no cut waits: that boundary
    /// and the last one passed (the same, unless the clock stepped forward or the audio came late, in a
    /// burst: the caller chooses by where their frames stand).
    func passed(now: Double) -> (first: Double, last: Double)? {
        guard cut == nil, let boundary, now >= boundary else { return nil }
        // The last mark at or before now: marks are a period apart, or a period and an offset change (two
        // hours at most, daylight saving's largest) around one; so the search starts no further back.
        var last = boundary
        var from = max(boundary, now - Double(clock.period) - 7_200)
        for _ in 0..<(7_200 / clock.period + 4) {
            guard let next = clock.nextBoundary(after: from), next <= now else { break }
            last = next
            from = next
        }
        return (boundary, last)
    }

    /// The cut for `boundary` goes at recorder frame `frame`.
    mutating func place(frame: Int64, boundary: Double) {
        cut = (frame, boundary)
        self.boundary = clock.nextBoundary(after: boundary)
    }

    /// The cut was made: the next one waits for the clock.
    mutating func made() {
        cut = nil
    }
}

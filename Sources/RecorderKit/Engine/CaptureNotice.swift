// What the capture side noticed (losses, gaps, moves, suspensions), queued for the delivery thread.

/// Something the capture side noticed, for the delivery thread to report: a fixed-size record.
struct CaptureNotice: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `count` frames lost at `frame` (a hole from the server, or dropped before libpulse's queue
        /// overflowed); silence of that length stands in their place.
        case dropped
        /// The server or source went away and came back: `count` frames of silence at `frame`.
        case gap
        /// The stream was moved to another source at `frame`.
        case moved
        /// The source was suspended (`count` 1) or resumed (`count` 0) at `frame`.
        case suspended
        /// The source delivered nothing while the server's clock ran on (suspended): `count` frames of
        /// silence at `frame`.
        case sourceSilent
        /// As `sourceSilent`, while the machine slept.
        case slept
    }
    var kind: Kind
    var frame: Int64
    var count: Int64
    /// The source it concerns, by its place among a take's sources (0 for a one-source recorder).
    var source = 0
    /// The length is the server's clock against the stream's index (refused data, a silent source), not
    /// counted from the indices themselves: right to the scatter of the server's timing answers.
    var estimated = false
    /// Frames before `frame` where the loss may have begun: the server's clock showed it only after reading
    /// had passed it (a shortfall with no cause seen, counted once it had not caught up for
    /// `ServerWatch.doubtNanoseconds`), so its silence stands at `frame` and the audio lost is somewhere in
    /// the `foundLate` frames before. 0: placed where it happened.
    var foundLate: Int64 = 0

    /// Adds `next`, which continues this loss (it begins where this one ends), to it.
    mutating func absorb(_ next: CaptureNotice) {
        foundLate = max(foundLate, next.foundLate - count)
        count += next.count
        estimated = estimated || next.estimated
    }
}

/// Notices between the threads, preallocated: none is lost. The producer is whoever holds the mainloop
/// lock (the mainloop thread in a callback, or a thread that took the lock), so producers never overlap.
/// When the ring is full (the delivery thread held up while losses go on), notices wait in a second,
/// producer-side store, where a loss that continues the last one of its kind is merged into it, and move
/// on to the ring at the next `push` or `release()` (the watch timer's tick, a stop's flush).
final class NoticeRing: @unchecked Sendable {
    // @unchecked Sendable: `ring` is safe for one producer and one consumer; `held` is touched only by
    // the producer (under the mainloop lock).
    private let ring: SPSCRing<CaptureNotice>
    /// Room for `heldCapacity` notices, reserved once: appending within it never allocates.
    private var held: [CaptureNotice] = []
    private let heldCapacity: Int

    init(capacity: Int = 256, heldCapacity: Int = 4_096) {
        ring = SPSCRing(capacity: capacity, filler: CaptureNotice(kind: .dropped, frame: 0, count: 0))
        self.heldCapacity = heldCapacity
        held.reserveCapacity(heldCapacity)
    }

    /// Producer side: queues `notice` after every notice before it.
    func push(_ notice: CaptureNotice) {
        release()
        if held.isEmpty, ring.push(notice) { return }
        hold(notice)
    }

    /// Producer side: moves held notices on to the ring, oldest first, as far as it has room.
    func release() {
        var moved = 0
        while moved < held.count, ring.push(held[moved]) { moved += 1 }
        held.removeFirst(moved)
    }

    /// Consumer side.
    func pop() -> CaptureNotice? { ring.pop() }

    /// Keeps `notice` for later: merged into the last held one when it continues the same loss (a
    /// stalled reader's drops, one fragment after another, are one), else after it. The store holds
    /// 4 096 separate events on top of the ring's 256 while the delivery thread is held up; a notice
    /// past that would be left out (its frames stay counted in the `FrameCounter`s).
    private func hold(_ notice: CaptureNotice) {
        let isLoss = notice.kind != .moved && notice.kind != .suspended
        if isLoss, let last = held.last, last.kind == notice.kind, last.frame + last.count == notice.frame {
            held[held.count - 1].absorb(notice)
        } else if held.count < heldCapacity {
            held.append(notice)
        }
    }
}

// The capture side's notices reach the delivery thread, all of them and in order, even when it is held up
// past the ring's capacity: held back, contiguous losses merged, released at the next push or tick.
import Testing
@testable import RecorderKit

@Suite struct NoticeRingTests {
    private func drain(_ ring: NoticeRing) -> [CaptureNotice] {
        var notices: [CaptureNotice] = []
        while let notice = ring.pop() { notices.append(notice) }
        return notices
    }

    /// A stalled reader drops fragment after fragment while nobody pops: 1 000 drops of 100 frames fill
    /// the ring of 8, and the rest come out as one loss that continues the last queued one.
    @Test func dropsPastTheRingAreHeldAndMergedNotLost() {
        let ring = NoticeRing(capacity: 8, heldCapacity: 4)
        for index in 0..<1_000 { ring.push(CaptureNotice(kind: .dropped, frame: Int64(index) * 100, count: 100)) }
        var notices = drain(ring)
        #expect(notices.count == 8)
        ring.release()
        notices += drain(ring)
        #expect(notices.count == 9)
        #expect(notices.reduce(0) { $0 + $1.count } == 100_000)
        #expect(zip(notices, notices.dropFirst()).allSatisfy { $0.frame + $0.count == $1.frame })
        #expect(drain(ring).isEmpty)
    }

    /// Separate events past the ring keep their order, and a push after room was made releases the held
    /// ones first.
    @Test func heldNoticesComeOutInOrderBeforeLaterOnes() {
        let ring = NoticeRing(capacity: 4, heldCapacity: 16)
        let kinds: [CaptureNotice.Kind] = [.dropped, .moved, .suspended, .sourceSilent, .gap, .slept]
        let pushed = (0..<12).map { CaptureNotice(kind: kinds[$0 % kinds.count], frame: Int64($0) * 1_000, count: 7) }
        for notice in pushed.prefix(10) { ring.push(notice) }
        var notices = drain(ring)
        for notice in pushed.suffix(2) { ring.push(notice) }
        notices += drain(ring)
        ring.release()
        notices += drain(ring)
        ring.release()
        notices += drain(ring)
        #expect(notices == pushed)
    }
}

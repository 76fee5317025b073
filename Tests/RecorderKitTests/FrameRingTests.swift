// The ring a source's frames wait in (FrameRing): first in, first out across the wrap, read in place by
// the runs `firstRun` gives, as a source's set-aside frames are read after a hold.
@testable import RecorderKit
import Testing

struct FrameRingTests {
    /// Frames numbered 0, 1, 2, … (two bytes each) through a ring of eight that wraps: read back by
    /// `firstRun` and `discard`, they come out in order, each once, never more at a time than lie together.
    @Test func runsReadEveryFrameOnceInOrderAcrossTheWrap() {
        let ring = FrameRing(capacityFrames: 8, bytesPerFrame: 2)
        var next: UInt16 = 0
        var read: [UInt16] = []
        func push(_ frames: Int) -> Int {
            let values = (0..<UInt16(frames)).map { next + $0 }
            let taken = values.withUnsafeBytes { ring.push($0.baseAddress, frames: frames) }
            next += UInt16(taken)
            return taken
        }
        func take(_ frames: Int) {
            var left = frames
            while left > 0, let (start, count) = ring.firstRun() {
                let now = min(left, count)
                for frame in 0..<now { read.append(start.loadUnaligned(fromByteOffset: frame * 2, as: UInt16.self)) }
                ring.discard(now)
                left -= now
            }
        }
        #expect(ring.firstRun() == nil)
        #expect(push(6) == 6)
        take(4)
        // Six more: two fit before the end of the storage, four after the wrap; one is refused (no room).
        #expect(push(7) == 6)
        let first = ring.firstRun()
        #expect(first?.1 == 4, "the run up to the end of the storage: frames 4 to 7")
        take(3)
        take(100)
        #expect(read == (0..<12).map { UInt16($0) })
        #expect(ring.count == 0 && ring.firstRun() == nil)
    }
}

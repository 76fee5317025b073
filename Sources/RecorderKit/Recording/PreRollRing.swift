// The last captured frames, kept so that a take may begin before it was asked for (pre-roll).
import Glibc

/// The last captured frames, kept for pre-roll (a take that begins before `record(to:)` was called):
/// one allocation at start, a copy of each delivered buffer, nothing else. Delivery thread only.
final class PreRollRing: @unchecked Sendable {
    // @unchecked Sendable: created before the delivery thread starts, then used by that thread alone.
    let capacityFrames: Int
    private let bytesPerFrame: Int
    private let storage: UnsafeMutableRawPointer
    /// The frame after the last one kept, and how many frames before it are kept.
    private(set) var endFrame: Int64 = 0
    private(set) var count = 0

    init(capacityFrames: Int, bytesPerFrame: Int) {
        self.capacityFrames = max(1, capacityFrames)
        self.bytesPerFrame = bytesPerFrame
        storage = .allocate(byteCount: self.capacityFrames * bytesPerFrame, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Keeps `bytes`, whose first frame is `startFrame` (a discontinuity starts the ring afresh).
    func append(_ bytes: UnsafeRawBufferPointer, startFrame: Int64) {
        if startFrame != endFrame { count = 0 }
        var frames = bytes.count / bytesPerFrame
        var source = bytes.baseAddress!
        var first = startFrame
        if frames > capacityFrames {
            source += (frames - capacityFrames) * bytesPerFrame
            first += Int64(frames - capacityFrames)
            frames = capacityFrames
        }
        var done = 0
        while done < frames {
            let slot = Int((first + Int64(done)) % Int64(capacityFrames))
            let run = min(frames - done, capacityFrames - slot)
            memcpy(storage + slot * bytesPerFrame, source + done * bytesPerFrame, run * bytesPerFrame)
            done += run
        }
        endFrame = first + Int64(frames)
        count = min(capacityFrames, count + frames)
    }

    /// The kept frames of `range` (clipped to what is kept), in at most two contiguous parts, in order.
    func forEachPart(of range: Range<Int64>, _ body: (UnsafeRawBufferPointer, Range<Int64>) -> Bool) {
        var from = max(range.lowerBound, endFrame - Int64(count))
        let to = min(range.upperBound, endFrame)
        while from < to {
            let slot = Int(from % Int64(capacityFrames))
            let run = min(Int(to - from), capacityFrames - slot)
            let part = UnsafeRawBufferPointer(start: storage + slot * bytesPerFrame, count: run * bytesPerFrame)
            if !body(part, from..<(from + Int64(run))) { return }
            from += Int64(run)
        }
    }
}

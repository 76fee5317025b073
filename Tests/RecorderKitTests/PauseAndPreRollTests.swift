// The recording's arithmetic without a server: which frames a pause leaves out, and what the pre-roll ring
// keeps, each checked against a frame-by-frame count over thousands of generated cases.
import Foundation
import Testing
@testable import RecorderKit

/// A small deterministic generator (xorshift64*), so a failure names a case that can be run again.
private struct Generator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Int((state &* 0x2545_F491_4F6C_DD1D) >> 33) % max(bound, 1)
    }
}

@Suite struct PauseArithmeticTests {
    /// Random pause spans (the last one possibly still open) over 200 frames, and random ranges: the paused
    /// frames before each frame, the recorded frames of each range and its recorded parts agree with a
    /// count of the frames one by one.
    @Test func pausedAndRecordedFramesAgreeWithAFrameByFrameCount() {
        var generator = Generator(state: 0x5EED)
        for _ in 0..<2_000 {
            var spans: [PauseSpan] = []
            var at: Int64 = Int64(generator.next(20))
            while at < 200, spans.count < 5 {
                let from = at + Int64(generator.next(30))
                let open = generator.next(6) == 0
                let to: Int64? = open ? nil : from + Int64(generator.next(40))
                spans.append(PauseSpan(from: from, to: to))
                guard let to else { break }
                at = to + Int64(generator.next(20))
            }
            let paused: (Int64) -> Bool = { frame in spans.contains { frame >= $0.from && frame < ($0.to ?? .max) } }
            let frame = Int64(generator.next(260))
            #expect(spans.pausedFrames(before: frame) == Int64((0..<frame).filter(paused).count), "\(spans) before \(frame)")
            let lower = Int64(generator.next(240)), upper = lower + Int64(generator.next(60))
            let range = lower..<upper
            let recorded = range.filter { !paused($0) }
            #expect(spans.recordedFrames(in: range) == Int64(recorded.count), "\(spans) in \(range)")
            var parts: [Range<Int64>] = []
            spans.forEachRecordedPart(of: range) { parts.append($0); return true }
            #expect(parts.flatMap { Array($0) } == recorded, "\(spans) parts of \(range): \(parts)")
            #expect(parts.allSatisfy { !$0.isEmpty }, "no empty part: \(parts)")
            // Stopped after the first part: exactly one part is given.
            var first: [Range<Int64>] = []
            spans.forEachRecordedPart(of: range) { first.append($0); return false }
            #expect(first == Array(parts.prefix(1)))
        }
    }
}

@Suite struct PreRollRingTests {
    /// Buffers of random lengths (each frame's two bytes are its frame number), with an occasional
    /// discontinuity: the ring gives back exactly the frames of a range that it keeps (the last
    /// `capacity` frames since the last discontinuity), in order, in at most two parts.
    @Test func theRingGivesBackTheLastFramesKeptInOrder() {
        var generator = Generator(state: 0xF00D)
        for capacity in [1, 7, 100, 441] {
            let ring = PreRollRing(capacityFrames: capacity, bytesPerFrame: 2)
            var frame: Int64 = 0
            var contiguousFrom: Int64 = 0
            for _ in 0..<500 {
                if generator.next(20) == 0 {  // a jump ahead: what was kept is no longer continuous
                    frame += Int64(1 + generator.next(300))
                    contiguousFrom = frame
                }
                let count = 1 + generator.next(capacity * 2)
                let bytes = (0..<count).flatMap { index -> [UInt8] in
                    let value = UInt16(truncatingIfNeeded: frame + Int64(index))
                    return [UInt8(value & 0xFF), UInt8(value >> 8)]
                }
                bytes.withUnsafeBytes { ring.append($0, startFrame: frame) }
                frame += Int64(count)
                let kept = max(contiguousFrom, frame - Int64(capacity))..<frame
                #expect(ring.endFrame == frame && ring.count == kept.count, "capacity \(capacity)")
                let lower = frame - Int64(generator.next(capacity * 2 + 2)), upper = lower + Int64(generator.next(capacity * 2 + 2))
                let asked = lower..<upper
                var frames: [Int64] = [], parts = 0, ranges: [Range<Int64>] = []
                ring.forEachPart(of: asked) { part, range in
                    parts += 1
                    ranges.append(range)
                    for index in 0..<(part.count / 2) {
                        let value = UInt16(part[index * 2]) | UInt16(part[index * 2 + 1]) << 8
                        frames.append(range.lowerBound + Int64(index))
                        #expect(value == UInt16(truncatingIfNeeded: range.lowerBound + Int64(index)))
                    }
                    return true
                }
                let expected = Array(max(asked.lowerBound, kept.lowerBound)..<max(max(asked.lowerBound, kept.lowerBound), min(asked.upperBound, kept.upperBound)))
                #expect(frames == expected, "capacity \(capacity): asked \(asked), kept \(kept), given \(ranges)")
                #expect(parts <= 2)
            }
        }
    }
}

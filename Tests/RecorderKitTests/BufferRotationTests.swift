// The rotating buffers: fill, hand-off, back-pressure when none is free, holes, and the index rings.
import Testing
@testable import RecorderKit

@Suite struct BufferRotationTests {
    /// 3 buffers of 20 mono frames (40 bytes); bytes are a ramp so positions can be checked.
    private let framesPerBuffer = 20
    private func ramp(_ frames: Int, from start: Int) -> [UInt8] {
        (start..<(start + frames)).flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    private func contents(_ pool: BufferPool, _ index: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: pool.bytes(of: index), count: pool.byteCount(of: index)))
    }

    @Test func buffersFillInOrderAndRotateThroughTheFreeSet() {
        let pool = BufferPool(count: 3, capacityBytes: framesPerBuffer * 2)
        var filler = BufferFiller(pool: pool, bytesPerFrame: 2, dataReady: Semaphore())
        let first = ramp(50, from: 0)
        #expect(first.withUnsafeBytes { filler.append($0.baseAddress, $0.count) } == 100)
        #expect(filler.framePosition == 50)

        let a = pool.filled.pop(), b = pool.filled.pop()
        #expect(a == 0 && b == 1)
        #expect(pool.filled.pop() == nil)  // the third is still filling (10 of 20 frames)
        #expect(pool.startFrame(of: 0) == 0 && pool.startFrame(of: 1) == 20)
        #expect(contents(pool, 0) == ramp(20, from: 0))
        #expect(contents(pool, 1) == ramp(20, from: 20))

        // Back to the free set, in the order the consumer returns them.
        pool.free.push(1)
        pool.free.push(0)
        let second = ramp(40, from: 50)
        #expect(second.withUnsafeBytes { filler.append($0.baseAddress, $0.count) } == 80)
        #expect(pool.filled.pop() == 2)
        #expect(pool.startFrame(of: 2) == 40)
        #expect(contents(pool, 2) == ramp(20, from: 40))
        #expect(pool.filled.pop() == 1)
        #expect(pool.startFrame(of: 1) == 60)
        #expect(contents(pool, 1) == ramp(20, from: 60))
        #expect(filler.droppedFrames.frames == 0)
    }

    @Test func withNoFreeBufferTheFillerTakesNothingMoreAndResumesWhereItStopped() {
        let pool = BufferPool(count: 3, capacityBytes: framesPerBuffer * 2)
        var filler = BufferFiller(pool: pool, bytesPerFrame: 2, dataReady: Semaphore())
        let burst = ramp(100, from: 0)
        let taken = burst.withUnsafeBytes { filler.append($0.baseAddress, $0.count) }
        #expect(taken == 120)  // three buffers' worth; the rest stays with the caller
        #expect(filler.framePosition == 60)
        #expect(filler.droppedFrames.frames == 0)

        let freed = pool.filled.pop()!
        #expect(freed == 0)
        pool.free.push(freed)
        let rest = burst.withUnsafeBytes { raw in filler.append(raw.baseAddress! + taken, raw.count - taken) }
        #expect(rest == 40)
        #expect(pool.filled.pop() == 1)
        #expect(pool.filled.pop() == 2)
        #expect(pool.filled.pop() == 0)
        #expect(pool.startFrame(of: 0) == 60)
        #expect(contents(pool, 0) == ramp(20, from: 60))
    }

    @Test func handOffFlushesAPartBufferAndAHoleBecomesCountedSilence() {
        let pool = BufferPool(count: 3, capacityBytes: framesPerBuffer * 2)
        var filler = BufferFiller(pool: pool, bytesPerFrame: 2, dataReady: Semaphore())
        let some = ramp(7, from: 0)
        _ = some.withUnsafeBytes { filler.append($0.baseAddress, $0.count) }
        #expect(filler.append(nil, 6) == 6)  // a 3-frame hole
        filler.handOff()
        let index = pool.filled.pop()!
        #expect(pool.byteCount(of: index) == 20)
        #expect(contents(pool, index) == ramp(7, from: 0) + [0, 0, 0, 0, 0, 0])
        #expect(filler.droppedFrames.frames == 3)
        filler.handOff()  // nothing being filled: nothing handed on
        #expect(pool.filled.pop() == nil)
    }

    @Test func indexRingKeepsOrderAndRefusesOverfill() {
        let ring = IndexRing(capacity: 3)
        #expect(ring.isEmptyForConsumer)
        for value in [7, 8, 9] { #expect(ring.push(value)) }
        #expect(!ring.push(10))
        #expect(ring.pop() == 7)
        #expect(ring.push(10))
        #expect([ring.pop(), ring.pop(), ring.pop(), ring.pop()] == [8, 9, 10, nil])
    }
}

@Suite struct FormatTests {
    @Test func defaultIsTheDesignFormat() {
        #expect(StreamFormat.default.sampleRate == 44_100)
        #expect(StreamFormat.default.channelCount == 1)
        #expect(StreamFormat.default.bytesPerFrame == 2)
        #expect(StreamFormat.default.frames(milliseconds: 100) == 4_410)
    }

    @Test(arguments: [(0, 1, "invalid sample rate 0 Hz"), (384_001, 1, "invalid sample rate 384001 Hz"),
                      (1_000_000_000, 1, "invalid sample rate 1000000000 Hz"),
                      (44_100, 0, "invalid channel count 0"), (44_100, 33, "invalid channel count 33")])
    func invalidFormatsThrowBeforeConnecting(rate: Int, channels: Int, message: String) {
        #expect {
            _ = try StreamFormat(sampleRate: rate, channelCount: channels)
        } throws: { error in
            let error = error as! RecorderError
            return error.code == .invalidFormat && error.message.hasPrefix(message)
        }
    }

    @Test func fileTypeFollowsTheExtension() {
        #expect(FileType(path: "take.aiff") == .aiff)
        #expect(FileType(path: "/a.b/TAKE.AIF") == .aiff)
        #expect(FileType(path: "x.wav") == .wav)
        #expect(FileType(path: "x.caf") == .caf)
        #expect(FileType(path: "x.flac") == .flac)
        #expect(FileType(path: "x.mp3") == .mp3 && FileType(path: "x.OGA") == .ogg && FileType(path: "x.opus") == .opus)
        #expect(FileType(path: "x.m4a") == nil)
        #expect(FileType(path: "dir.aiff/take") == nil)
        #expect(FileType(path: "noextension") == nil)
    }
}

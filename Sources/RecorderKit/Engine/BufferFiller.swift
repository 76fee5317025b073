// The producer side of the buffer pool: what libpulse's read callback copies incoming bytes through.
import Glibc
import Synchronization

/// A frame count written by one thread and read by any.
final class FrameCounter: Sendable {
    private let value = Atomic<Int64>(0)
    func add(_ frames: Int64) { value.add(frames, ordering: .relaxed) }
    var frames: Int64 { value.load(ordering: .relaxed) }
}

/// The producer side of the pool: copies incoming bytes into the buffer being filled and hands it on.
///
/// Used by one thread at a time (libpulse's mainloop thread, or another thread holding the mainloop
/// lock). Allocates nothing and never blocks: when no buffer is free it takes no more bytes, and the
/// caller leaves the rest with libpulse until the consumer frees a buffer.
///
/// Silence owed to the timeline (frames dropped, a reconnection gap) is kept as a byte count and
/// written into the next buffers before any later data, so positions stay exact.
struct BufferFiller: ~Copyable {
    private let pool: BufferPool
    private let bytesPerFrame: Int
    /// Posted at every buffer handed on; nil: nobody waits on the buffers (a several-source take's
    /// sources, whose buffers the group takes on the mainloop thread itself).
    private let dataReady: Semaphore?
    private var filling: Int?
    private var filledBytes = 0
    private var bytePosition: Int64 = 0
    /// Silence owed before the next data.
    private var pendingSilence: Int64 = 0

    /// Frames lost in capture (holes, or dropped to keep libpulse's queue from overflowing), written
    /// as silence. Read from any thread.
    let droppedFrames = FrameCounter()
    /// Frames of silence written for reconnection gaps. Read from any thread.
    let gapFrames = FrameCounter()
    /// What happened where, for the delivery thread.
    let notices = NoticeRing()

    init(pool: BufferPool, bytesPerFrame: Int, dataReady: Semaphore?) {
        self.pool = pool
        self.bytesPerFrame = bytesPerFrame
        self.dataReady = dataReady
    }

    /// Frames taken into buffers so far: the position of the next frame written.
    var framePosition: Int64 { bytePosition / Int64(bytesPerFrame) }

    /// Frames of the timeline so far, owed silence included: where the next incoming byte belongs.
    var timelineFrames: Int64 { (bytePosition + pendingSilence) / Int64(bytesPerFrame) }

    /// True when no owed silence waits for a free buffer.
    var isCaughtUp: Bool { pendingSilence == 0 }

    /// Bytes `append` can surely take now, owed silence not counted: what is left of the buffer being
    /// filled, or a whole buffer if one is free (0: none is). Lets a caller copy only what will be taken.
    var roomBytes: Int {
        if filling != nil { return pool.capacityBytes - filledBytes }
        return pool.free.isEmptyForConsumer ? 0 : pool.capacityBytes
    }

    /// Takes up to `length` bytes (`data == nil`: a hole, taken as silence and counted as dropped).
    /// Owed silence goes first. Returns how many bytes of `data` it took: fewer than `length` only
    /// when no buffer is free.
    mutating func append(_ data: UnsafeRawPointer?, _ length: Int) -> Int {
        if data == nil {
            // A hole from the server: owed silence like any other drop, placed where it belongs.
            drop(length)
            _ = writeOwedSilence()
            return length
        }
        guard writeOwedSilence() else { return 0 }
        return copy(data, length)
    }

    /// Counts `length` bytes as lost at the current end of the timeline and owes silence for them
    /// (`foundLate`: see `CaptureNotice.foundLate`).
    mutating func drop(_ length: Int, estimated: Bool = false, foundLate: Int64 = 0) {
        let frames = Int64(length / bytesPerFrame)
        guard frames > 0 else { return }
        notices.push(CaptureNotice(kind: .dropped, frame: timelineFrames, count: frames, estimated: estimated,
                                   foundLate: foundLate))
        droppedFrames.add(frames)
        pendingSilence += frames * Int64(bytesPerFrame)
    }

    /// Owes `frames` of silence for time when nothing could be captured (`kind`: `.gap` for a server or
    /// source gone, `.sourceSilent` or `.slept` for a source that delivered nothing).
    mutating func insertGap(frames: Int64, kind: CaptureNotice.Kind = .gap, estimated: Bool = false) {
        guard frames > 0 else { return }
        notices.push(CaptureNotice(kind: kind, frame: timelineFrames, count: frames, estimated: estimated))
        gapFrames.add(frames)
        pendingSilence += frames * Int64(bytesPerFrame)
    }

    /// Writes owed silence into free buffers; true when none is left owing.
    mutating func writeOwedSilence() -> Bool {
        while pendingSilence > 0 {
            let chunk = Int(min(pendingSilence, Int64(pool.capacityBytes)))
            let taken = copy(nil, chunk)
            pendingSilence -= Int64(taken)
            if taken < chunk { return false }
        }
        return true
    }

    /// Copies (or zero-fills, for nil) into buffers until done or none is free.
    private mutating func copy(_ data: UnsafeRawPointer?, _ length: Int) -> Int {
        var offset = 0
        while offset < length {
            if filling == nil {
                guard let next = pool.free.pop() else { break }
                filling = next
                filledBytes = 0
                pool.setStartFrame(framePosition, of: next)
            }
            let index = filling!
            let count = min(pool.capacityBytes - filledBytes, length - offset)
            let destination = pool.bytes(of: index) + filledBytes
            if let data {
                destination.copyMemory(from: data + offset, byteCount: count)
            } else {
                memset(destination, 0, count)
            }
            filledBytes += count
            offset += count
            bytePosition += Int64(count)
            if filledBytes == pool.capacityBytes { handOff() }
        }
        return offset
    }

    /// Hands on the buffer being filled, however full, and wakes the consumer.
    mutating func handOff() {
        guard let index = filling else { return }
        pool.setByteCount(filledBytes, of: index)
        pool.filled.push(index)
        filling = nil
        filledBytes = 0
        dataReady?.post()
    }
}

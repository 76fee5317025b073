// The rotating capture buffers: preallocated storage and the free/filled index rings between threads.
import Glibc
import Synchronization

/// A single-producer single-consumer queue of fixed capacity, preallocated: pushing and popping never
/// allocate or block.
final class SPSCRing<Element>: @unchecked Sendable {
    // @unchecked Sendable: `slots` is touched only by the one producer (before its release store of
    // `tail`) and the one consumer (after its acquire load of `tail`); `head`/`tail` are atomics.
    private let slots: UnsafeMutablePointer<Element>
    private let capacity: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    init(capacity: Int, filler: Element) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: filler, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Producer side. Returns false if the ring is full.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else { return false }
        slots[t % capacity] = element
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer side: true when nothing is queued.
    var isEmptyForConsumer: Bool {
        head.load(ordering: .relaxed) == tail.load(ordering: .acquiring)
    }

    /// Consumer side.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let element = slots[h % capacity]
        head.store(h + 1, ordering: .releasing)
        return element
    }
}

/// Buffer indices between the threads. Each buffer index is in at most one place at a time (free ring,
/// filled ring, the buffer being filled, the buffer being delivered), so pushes never find it full.
final class IndexRing: @unchecked Sendable {
    // @unchecked Sendable: only holds the ring, which is safe for one producer and one consumer.
    private let ring: SPSCRing<Int>
    init(capacity: Int) { ring = SPSCRing(capacity: capacity, filler: -1) }
    @discardableResult
    func push(_ index: Int) -> Bool { ring.push(index) }
    var isEmptyForConsumer: Bool { ring.isEmptyForConsumer }
    func pop() -> Int? { ring.pop() }
}

/// A counting semaphore (POSIX): posting never blocks, so the capture thread may post.
final class Semaphore: @unchecked Sendable {
    // @unchecked Sendable: sem_t is made for use from many threads; the pointer never changes.
    private let sem: UnsafeMutablePointer<sem_t>

    init(value: UInt32 = 0) {
        sem = .allocate(capacity: 1)
        sem_init(sem, 0, value)
    }

    deinit {
        sem_destroy(sem)
        sem.deallocate()
    }

    func post() { sem_post(sem) }

    func wait() {
        while sem_wait(sem) != 0 && errno == EINTR {}
    }

    /// Waits at most `milliseconds`; true if it was posted.
    func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + milliseconds * 1_000_000
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while true {
            if sem_timedwait(sem, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}

/// `count` buffers of `capacityBytes` each, allocated once, with per-buffer frame position and length.
///
/// A buffer moves free → filling (capture thread) → filled → delivered (delivery thread) → free.
/// The metadata of a buffer is written by whoever owns it at that step; the ring operations order it.
final class BufferPool: @unchecked Sendable {
    // @unchecked Sendable: each buffer's bytes and metadata are only touched by the thread that owns the
    // buffer at that step of the cycle; ownership changes hands only through the rings' release/acquire.
    let count: Int
    let capacityBytes: Int
    private let storage: UnsafeMutableRawPointer
    private let startFrames: UnsafeMutablePointer<Int64>
    private let byteCounts: UnsafeMutablePointer<Int>

    /// Buffers ready to fill: pushed by the delivery thread, popped by the capture thread.
    let free: IndexRing
    /// Buffers filled (or flushed partly full): pushed by the capture thread, popped by the delivery thread.
    let filled: IndexRing

    init(count: Int, capacityBytes: Int) {
        self.count = count
        self.capacityBytes = capacityBytes
        storage = .allocate(byteCount: count * capacityBytes, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: count * capacityBytes)
        startFrames = .allocate(capacity: count)
        startFrames.initialize(repeating: 0, count: count)
        byteCounts = .allocate(capacity: count)
        byteCounts.initialize(repeating: 0, count: count)
        free = IndexRing(capacity: count)
        filled = IndexRing(capacity: count)
        for index in 0..<count { free.push(index) }
    }

    deinit {
        storage.deallocate()
        startFrames.deallocate()
        byteCounts.deallocate()
    }

    func bytes(of index: Int) -> UnsafeMutableRawPointer { storage + index * capacityBytes }

    func startFrame(of index: Int) -> Int64 { startFrames[index] }
    func setStartFrame(_ frame: Int64, of index: Int) { startFrames[index] = frame }

    func byteCount(of index: Int) -> Int { byteCounts[index] }
    func setByteCount(_ count: Int, of index: Int) { byteCounts[index] = count }
}

/// A frame count written by one thread and read by any.
final class FrameCounter: Sendable {
    private let value = Atomic<Int64>(0)
    func add(_ frames: Int64) { value.add(frames, ordering: .relaxed) }
    var frames: Int64 { value.load(ordering: .relaxed) }
}

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
}

/// Notices between the threads, preallocated. The producer is whoever holds the mainloop lock (the
/// mainloop thread in a callback, or a thread that took the lock), so producers never overlap. When
/// full, a notice is not queued and `overflowed` is counted (the frame totals stay exact in
/// `FrameCounter`s).
final class NoticeRing: @unchecked Sendable {
    // @unchecked Sendable: only holds the ring (one producer at a time, one consumer) and an atomic.
    private let ring: SPSCRing<CaptureNotice>
    let overflowed = Atomic<Int>(0)

    init(capacity: Int = 256) {
        ring = SPSCRing(capacity: capacity, filler: CaptureNotice(kind: .dropped, frame: 0, count: 0))
    }

    func push(_ notice: CaptureNotice) {
        if !ring.push(notice) { overflowed.add(1, ordering: .relaxed) }
    }

    func pop() -> CaptureNotice? { ring.pop() }
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
    private let dataReady: Semaphore
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

    init(pool: BufferPool, bytesPerFrame: Int, dataReady: Semaphore) {
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

    /// Counts `length` bytes as lost at the current end of the timeline and owes silence for them.
    mutating func drop(_ length: Int) {
        let frames = Int64(length / bytesPerFrame)
        guard frames > 0 else { return }
        notices.push(CaptureNotice(kind: .dropped, frame: timelineFrames, count: frames))
        droppedFrames.add(frames)
        pendingSilence += frames * Int64(bytesPerFrame)
    }

    /// Owes `frames` of silence for time when nothing could be captured (`kind`: `.gap` for a server or
    /// source gone, `.sourceSilent` or `.slept` for a source that delivered nothing).
    mutating func insertGap(frames: Int64, kind: CaptureNotice.Kind = .gap) {
        guard frames > 0 else { return }
        notices.push(CaptureNotice(kind: kind, frame: timelineFrames, count: frames))
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
        dataReady.post()
    }
}

/// Runs `body` on a new POSIX thread (no Foundation) named `name` (what `top -H` and /proc show; at
/// most 15 bytes), returning the handle to join or detach; the errno if the system refused a thread.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, ThreadStartFailure> {
    final class Box: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(name, body)).toOpaque()
    let result = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        // pthread_setname_np is not in Swift's Glibc module; this is what it does for the calling thread.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            let name = Array(box.name.utf8.prefix(15))
            _ = name.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
            close(comm)
        }
        box.body()
        return nil
    }, context)
    guard result == 0 else {
        Unmanaged<AnyObject>.fromOpaque(context).release()
        return .failure(ThreadStartFailure(code: result))
    }
    return .success(thread)
}

/// pthread_create's error (EAGAIN: the system's or the user's thread limit).
struct ThreadStartFailure: Error {
    let code: Int32

    /// The one-line error for `what` ("the delivery thread") not starting.
    func error(starting what: String) -> RecorderError {
        RecorderError(.streamFailed,
            "cannot start \(what): \(String(cString: strerror(code))); the system's thread limit is reached: "
            + "end other programs or raise the limit (ulimit -u), then try again",
            underlying: .init(.posix, code))
    }
}

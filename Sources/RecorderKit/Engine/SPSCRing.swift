// Lock-free single-producer single-consumer rings: buffer indices and notices between two threads.
import Synchronization

/// A single-producer single-consumer queue of fixed capacity, preallocated: pushing and popping never
/// allocate or block.
final class SPSCRing<Element> {
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

// @unchecked Sendable: `slots` is touched only by the one producer (before its release store of `tail`)
// and the one consumer (after its acquire load of `tail`); `head`/`tail` are atomics; and the elements
// that cross between them are Sendable.
extension SPSCRing: @unchecked Sendable where Element: Sendable {}

/// Buffer indices between the threads. Each buffer index is in at most one place at a time (free ring,
/// filled ring, the buffer being filled, the buffer being delivered), so pushes never find it full.
final class IndexRing: Sendable {
    private let ring: SPSCRing<Int>
    init(capacity: Int) { ring = SPSCRing(capacity: capacity, filler: -1) }
    @discardableResult
    func push(_ index: Int) -> Bool { ring.push(index) }
    var isEmptyForConsumer: Bool { ring.isEmptyForConsumer }
    func pop() -> Int? { ring.pop() }
}

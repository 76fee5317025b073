// The rotating buffers of either direction: preallocated storage and the free/filled index rings between threads.
import Glibc

/// `count` buffers of `capacityBytes` each, allocated once, with per-buffer frame position and length.
///
/// Capturing, a buffer moves free → filling (the mainloop thread) → filled → delivered (the delivery
/// thread) → free; playing, free → filled (the player's worker) → written (the mainloop thread) → free.
/// The metadata of a buffer is written by whoever owns it at that step; the ring operations order it.
final class BufferPool: @unchecked Sendable {
    // @unchecked Sendable: each buffer's bytes and metadata are only touched by the thread that owns the
    // buffer at that step of the cycle; ownership changes hands only through the rings' release/acquire.
    let count: Int
    let capacityBytes: Int
    private let storage: UnsafeMutableRawPointer
    private let startFrames: UnsafeMutablePointer<Int64>
    private let byteCounts: UnsafeMutablePointer<Int>

    /// Buffers ready to fill: pushed by their consumer, popped by their producer.
    let free: IndexRing
    /// Buffers filled (or flushed partly full): pushed by their producer, popped by their consumer.
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

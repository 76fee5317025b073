// A preallocated ring of whole frames of bytes, used by one thread: a source's audio waiting to join the take.
import Glibc

/// Frames of `bytesPerFrame` bytes, first in first out, in storage allocated once. Pushing never
/// allocates: it takes what fits. One thread at a time (the mainloop thread, or one holding its lock).
final class FrameRing {
    let bytesPerFrame: Int
    let capacity: Int
    private let storage: UnsafeMutableRawPointer
    private var head = 0
    private(set) var count = 0

    init(capacityFrames: Int, bytesPerFrame: Int) {
        self.bytesPerFrame = bytesPerFrame
        capacity = max(1, capacityFrames)
        storage = .allocate(byteCount: capacity * bytesPerFrame, alignment: 16)
    }

    deinit { storage.deallocate() }

    var room: Int { capacity - count }

    /// Appends up to `frames` frames from `bytes` (nil: silence); returns how many it took.
    @discardableResult
    func push(_ bytes: UnsafeRawPointer?, frames: Int) -> Int {
        let taken = min(max(0, frames), room)
        var done = 0
        while done < taken {
            let tail = (head + count) % capacity
            let run = min(taken - done, capacity - tail)
            let destination = storage + tail * bytesPerFrame
            if let bytes {
                destination.copyMemory(from: bytes + done * bytesPerFrame, byteCount: run * bytesPerFrame)
            } else {
                memset(destination, 0, run * bytesPerFrame)
            }
            done += run
            count += run
        }
        return taken
    }

    /// Copies the first `frames` frames (at most `count`) to `destination`, leaving them in the ring;
    /// each frame goes `stride` bytes after the one before (the take's interleaved layout).
    func peek(_ frames: Int, into destination: UnsafeMutableRawPointer, stride: Int) {
        var done = 0
        let wanted = min(frames, count)
        while done < wanted {  // in at most two runs (the ring wraps once)
            let start = (head + done) % capacity
            let run = min(wanted - done, capacity - start)
            Self.spread(from: storage + start * bytesPerFrame, to: destination + done * stride, frames: run,
                        width: bytesPerFrame, stride: stride)
            done += run
        }
    }

    /// Copies `frames` frames of `width` bytes, packed at `source`, to every `stride` bytes from
    /// `destination`: one load and store a frame for the common widths (a call per frame cost most of
    /// the joining's time).
    private static func spread(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, frames: Int,
                               width: Int, stride: Int) {
        switch width {
        case 2:
            for frame in 0..<frames {
                (destination + frame * stride).storeBytes(of: source.loadUnaligned(fromByteOffset: frame * 2, as: UInt16.self), as: UInt16.self)
            }
        case 4:
            for frame in 0..<frames {
                (destination + frame * stride).storeBytes(of: source.loadUnaligned(fromByteOffset: frame * 4, as: UInt32.self), as: UInt32.self)
            }
        case 8:
            for frame in 0..<frames {
                (destination + frame * stride).storeBytes(of: source.loadUnaligned(fromByteOffset: frame * 8, as: UInt64.self), as: UInt64.self)
            }
        default:
            for frame in 0..<frames {
                (destination + frame * stride).copyMemory(from: source + frame * width, byteCount: width)
            }
        }
    }

    /// The first frames, as far as they lie together (up to the end of the storage): where they are and
    /// how many; nil when the ring is empty.
    func firstRun() -> (UnsafeRawPointer, Int)? {
        guard count > 0 else { return nil }
        return (UnsafeRawPointer(storage + head * bytesPerFrame), min(count, capacity - head))
    }

    /// Forgets the first `frames` frames.
    func discard(_ frames: Int) {
        let gone = min(max(0, frames), count)
        head = (head + gone) % capacity
        count -= gone
    }

    /// Copies the last `frames` frames (at most `count`) to `destination`, contiguous, oldest first.
    func copyLast(_ frames: Int, into destination: UnsafeMutableRawPointer) -> Int {
        let wanted = min(frames, count)
        for frame in 0..<wanted {
            let source = storage + ((head + count - wanted + frame) % capacity) * bytesPerFrame
            (destination + frame * bytesPerFrame).copyMemory(from: source, byteCount: bytesPerFrame)
        }
        return wanted
    }
}

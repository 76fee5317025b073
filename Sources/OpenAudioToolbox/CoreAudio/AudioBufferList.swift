// Core Audio's Swift overlay for buffer lists, as Apple's CoreAudio module has it: a variable-length
// `AudioBufferList` allocated with room for N buffers, a collection view of its buffers, and typed and raw
// buffer pointers over one `AudioBuffer`'s bytes.
import Foundation

extension AudioBufferList {
    /// The bytes an `AudioBufferList` with room for `maximumBuffers` buffers takes (at least one buffer's
    /// worth, as the C struct declares one; a negative count is taken as 1; a count whose size would
    /// overflow is taken as the largest that does not).
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        let header = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)!
        let each = MemoryLayout<AudioBuffer>.stride
        let count = min(max(1, maximumBuffers), (Int.max - header) / each)
        return max(MemoryLayout<AudioBufferList>.size, header + count * each)
    }

    /// A list with room for `maximumBuffers` buffers (at least 1), `mNumberBuffers` set to that count and every
    /// buffer zeroed. Free it with `free(list.unsafeMutablePointer)` (or `deallocate()`), as on Apple's systems.
    /// Where Apple's would trap, for want of memory (a count in the billions), this returns an empty list
    /// (`count` 0) in memory of the one-buffer size, so the caller sees no room rather than a crash.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let count = min(max(1, maximumBuffers), Int(UInt32.max))
        if let memory = calloc(1, sizeInBytes(maximumBuffers: count)) {
            let list = memory.bindMemory(to: AudioBufferList.self, capacity: 1)
            list.pointee.mNumberBuffers = UInt32(count)
            return UnsafeMutableAudioBufferListPointer(list)
        }
        // No room for `count` buffers; the zeroed one-buffer list says so with mNumberBuffers 0. (A machine
        // without 24 bytes to spare cannot go on either way.)
        guard let memory = calloc(1, MemoryLayout<AudioBufferList>.size) else {
            fatalError("AudioBufferList.allocate: the process is out of memory")
        }
        return UnsafeMutableAudioBufferListPointer(memory.bindMemory(to: AudioBufferList.self, capacity: 1))
    }
}

/// A variable-length `AudioBufferList` seen as a mutable, random-access collection of its `AudioBuffer`s
/// (`count` is the list's `mNumberBuffers`). It does not own the memory.
public struct UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
    public typealias Index = Int
    public typealias Element = AudioBuffer

    /// The list itself.
    public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>
    /// The list, read-only.
    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    public init(_ p: UnsafeMutablePointer<AudioBufferList>) { unsafeMutablePointer = p }

    public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
        guard let p else { return nil }
        self.init(p)
    }

    /// The number of buffers (the list's `mNumberBuffers`); setting it changes only that field, so the
    /// list must have room for the new count.
    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(clamping: newValue) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Where the buffers begin: the address of `mBuffers`.
    private var buffers: UnsafeMutablePointer<AudioBuffer> {
        let offset = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)!
        return (UnsafeMutableRawPointer(unsafeMutablePointer) + offset).assumingMemoryBound(to: AudioBuffer.self)
    }

    /// The buffer at `index`. Where Apple's traps on an index outside 0..<count, this reads an empty buffer
    /// (no data, 0 bytes) and ignores a write, so a wrong index from a port never crashes a recording.
    public subscript(index: Int) -> AudioBuffer {
        get { indices.contains(index) ? buffers[index] : AudioBuffer(mNumberChannels: 0, mDataByteSize: 0, mData: nil) }
        nonmutating set {
            if indices.contains(index) { buffers[index] = newValue }
        }
    }
}

extension AudioBuffer {
    /// A buffer over `typedBuffer`'s memory holding `numberOfChannels` interleaved channels.
    public init<Element>(_ typedBuffer: UnsafeMutableBufferPointer<Element>, numberOfChannels: Int) {
        let bytes = typedBuffer.count.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        self.init(mNumberChannels: UInt32(clamping: numberOfChannels),
                  mDataByteSize: bytes.overflow ? .max : UInt32(clamping: bytes.partialValue),
                  mData: UnsafeMutableRawPointer(typedBuffer.baseAddress))
    }
}

extension UnsafeBufferPointer {
    /// The buffer's bytes as `mDataByteSize / MemoryLayout<Element>.stride` elements (empty when `mData` is nil).
    public init(_ audioBuffer: AudioBuffer) {
        let count = Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride
        self.init(start: audioBuffer.mData.map { UnsafePointer($0.assumingMemoryBound(to: Element.self)) },
                  count: audioBuffer.mData == nil ? 0 : count)
    }
}

extension UnsafeMutableBufferPointer {
    /// The buffer's bytes as `mDataByteSize / MemoryLayout<Element>.stride` elements (empty when `mData` is nil).
    public init(_ audioBuffer: AudioBuffer) {
        let count = Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self),
                  count: audioBuffer.mData == nil ? 0 : count)
    }
}

extension UnsafeRawBufferPointer {
    /// The buffer's `mDataByteSize` bytes (none when `mData` is nil).
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData, count: audioBuffer.mData == nil ? 0 : Int(audioBuffer.mDataByteSize))
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The buffer's `mDataByteSize` bytes (none when `mData` is nil).
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData, count: audioBuffer.mData == nil ? 0 : Int(audioBuffer.mDataByteSize))
    }
}

// A download's body: the bytes of a take file, read from the descriptor opened (and checked) once.
import FlyingSocks
import Glibc

/// A download's body, read from a descriptor opened once (so the file checked is the file sent).
struct FileBody: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let handle: Handle

    /// The descriptor, closed when the response is done with it. Sendable: the descriptor is a constant.
    final class Handle: Sendable {
        let descriptor: Int32
        let bytes: Int64
        init(descriptor: Int32, bytes: Int64) {
            self.descriptor = descriptor
            self.bytes = bytes
        }
        deinit { close(descriptor) }
    }

    func makeAsyncIterator() -> Iterator { Iterator(handle: handle) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let handle: Handle
        var offset: Int64 = 0

        mutating func next() async throws -> UInt8? { try await nextBuffer(suggested: 1)?.first }

        /// The file's next bytes, up to its size at the open (a file still growing is sent as it was).
        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            let wanted = Int(Swift.min(Int64(Swift.max(count, 65_536)), handle.bytes - offset))
            guard wanted > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: wanted)
            let read = buffer.withUnsafeMutableBytes { pread(handle.descriptor, $0.baseAddress, wanted, off_t(offset)) }
            guard read > 0 else { throw ServeError("the file ended or failed while it was being sent") }
            offset += Int64(read)
            return Array(buffer.prefix(read))
        }
    }
}

// A FLAC stream into a pipe whose reader has stopped reading: the encoder's last block, written only when
// the file is closed, does not fit; the close says so instead of ending as if everything had been written.
import Foundation
import Glibc
import Testing
@testable import RecorderKit
import TestSupport

@Suite struct PipeCloseTests {
    @Test func aLastBlockTheReaderDoesNotTakeIsAnErrorAtTheClose() throws {
        let fifo = try temporaryDirectory() + "/stream.flac"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)  // a reader that never reads
        #expect(reader >= 0)
        defer { close(reader) }
        let writer = try SoundFileWriter(path: fifo, format: .default, fileType: .flac)
        // Less than one FLAC block: it stays in the encoder until the close.
        let noise = noiseSamples(count: 3_000)
        let bytes = noise.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        try bytes.withUnsafeBytes { try writer.write(packets: $0) }
        // Someone else fills the pipe.
        let other = open(fifo, O_WRONLY | O_NONBLOCK)
        #expect(other >= 0)
        let chunk = [UInt8](repeating: 0, count: 4_096)
        while chunk.withUnsafeBytes({ Glibc.write(other, $0.baseAddress, $0.count) }) > 0 {}
        close(other)
        writer.isStopping = { true }
        writer.close()
        let error = try #require(writer.closeError, "the close said nothing of the block it could not write")
        #expect(error.code == .writeFailed)
        #expect(error.message.hasPrefix("standard output took nothing for 1 s after the stop (its reader stalled): the recording ended after 3000 frames"),
                "\(error.message)")
    }
}

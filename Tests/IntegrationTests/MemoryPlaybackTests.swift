// A player of a sound held in memory (AVAudioPlayer's init(data:)): heard as the same file played from
// disk, and bytes that are no sound file are one line.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct MemoryPlaybackTests {
    /// The bytes of a FLAC of 2 s of noise are heard bit for bit, contiguously, as the noise; it seeks,
    /// and reports the file's length.
    @Test func aFLACInMemoryIsHeardBitExactly() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 31)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let converted = try runProcess("sox", [directory + "/noise.wav", directory + "/noise.flac"])
            #expect(converted.status == 0, "\(converted.stderr)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/noise.flac")))
            let player = try Player(bytes: bytes, device: PrivateServer.monoSink, server: server.address)
            defer { player.close() }
            #expect(player.path == nil && player.duration == 2 && player.isSeekable && player.numberOfChannels == 1)
            var finished = false
            let heard = try await monitoring(server) { _, _ in finished = try await playToEnd(player) }
            #expect(finished)
            let departure = departure(ofHeard: heard, from: noise, underruns: player.underrunCount)
            #expect(departure == nil, "not bit-exact or not contiguous: \(departure ?? "")")
            try player.seek(to: 1.5)
            #expect(player.currentTime == 1.5)
        }
    }

    @Test func bytesThatAreNoSoundFileAreOneLine() async throws {
        try await withPrivateServer { server in
            for bytes in [[], [UInt8](repeating: 7, count: 1_000), Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)] {
                #expect {
                    _ = try Player(bytes: bytes, device: PrivateServer.monoSink, server: server.address)
                } throws: { error in
                    guard let error = error as? RecorderError else { return false }
                    return error.code == .cannotReadFile && error.message.hasPrefix("cannot read the sound in memory (\(bytes.count) bytes): ")
                        && !error.message.contains("\n")
                }
            }
        }
    }
}

// What a lossy take decodes to: the level of what was recorded, in every channel.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct LossyLevelTests {
    /// A stereo MP3 of the sine source (half scale: −9.03 dBFS RMS) decodes, in each channel, to that level
    /// within 0.2 dB, nothing near full scale. (libsndfile's MP3 encoder distorted 16-bit samples of two
    /// channels: such a take read −11.1 dBFS with a peak of +1.0 dBFS and 126 clipped samples.)
    @Test func aStereoMP3DecodesToTheLevelRecorded() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.mp3"
            let result = try await recorder(["record", "-t", "mp3", "-c", "2", "--duration", "1", "--quiet", path], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            let file = try readSoundFile(path)
            #expect(file.channels == 2 && file.frames > 40_000, "\(file.frames) frames")
            let sound = file.samples.indices.filter { file.samples[$0] != 0 }
            let first = (sound.first ?? 0) / 2, last = (sound.last ?? 0) / 2
            let margin = (last - first) / 10
            for channel in 0..<2 {
                let samples = file.channel(channel)[(first + margin)..<(last - margin)]
                let level = levels(of: samples)
                #expect(abs(level.average + 9.03) <= 0.2 && level.peak < -3, "channel \(channel): \(level)")
            }
        }
    }
}

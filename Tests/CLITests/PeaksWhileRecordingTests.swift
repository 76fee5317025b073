// `record --peaks`: the peak file beside the take, read while the take records (valid whenever it is
// read, never rewritten, growing), and at the end equal to the min/max of the take's own samples.
import Foundation
import Testing
import TestSupport

/// A binary peak file as audiowaveform's description lays it out: header fields, then 16-bit pairs.
private struct GrowingPeaks {
    let version: Int32, flags: UInt32, rate: Int32, perPixel: Int32, length: UInt32, channels: Int32
    /// Pairs the file holds (whole ones), as [min, max] per channel per index, flattened.
    let values: [Int16]

    init?(_ path: String) {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 24 else { return nil }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32 { UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24 }
        version = Int32(bitPattern: u32(0))
        flags = u32(4)
        rate = Int32(bitPattern: u32(8))
        perPixel = Int32(bitPattern: u32(12))
        length = u32(16)
        channels = Int32(bitPattern: u32(20))
        let body = bytes[24...]
        values = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }
}

@Suite(.timeLimit(.minutes(3))) struct PeaksWhileRecordingTests {
    /// The pairs of `samples` (interleaved 16-bit, `channels`) in runs of `perPixel` frames, the last partial.
    func pairs(_ samples: [Int16], channels: Int, perPixel: Int) -> [Int16] {
        let frames = samples.count / channels
        var result: [Int16] = []
        for start in stride(from: 0, to: frames, by: perPixel) {
            for channel in 0..<channels {
                let run = (start..<min(frames, start + perPixel)).map { samples[$0 * channels + channel] }
                result += [run.min()!, run.max()!]
            }
        }
        return result
    }

    @Test func thePeakFileIsValidWhileItGrowsAndEqualsTheTakeAtTheEnd() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let take = folder + "/take.wav"
            let process = try RunningProcess(try builtProduct("recorder"),
                                         ["record", take, "--peaks", "--channels", "2", "--levels-json",
                                          "--source", PrivateServer.stereoSink + ".monitor"],
                                         environment: server.clientEnvironment)
            // Something to record: noise played into the sink whose monitor is recorded.
            let player = try RunningProcess("/usr/bin/paplay", ["--device", PrivateServer.stereoSink, "--raw", "--rate", "44100",
                                                            "--channels", "2", "--format", "s16le", "/dev/urandom"],
                                        environment: server.clientEnvironment)
            defer { player.send(SIGTERM) }
            // At each buffer's level line, the file as a reader finds it; once it has been seen at five
            // lengths the take is stopped (Ctrl-C), so however late this reader runs it sees the file grow
            // (the suite's time limit is the ceiling, which only a hang reaches).
            var observed: [GrowingPeaks] = []
            var stopped = false
            for await _ in process.lines {
                if let peaks = GrowingPeaks(folder + "/take.dat") { observed.append(peaks) }
                if !stopped, Set(observed.map(\.length)).count >= 5 {
                    process.send(SIGINT)
                    stopped = true
                }
            }
            let result = await process.wait()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("peaks: \(folder)/take.dat"))
            let final = try #require(GrowingPeaks(folder + "/take.dat"))
            let file = try readSoundFile(take)
            let expected = pairs(file.samples, channels: 2, perPixel: 256)
            #expect(final.version == 2 && final.flags == 0 && final.rate == 44_100 && final.perPixel == 256 && final.channels == 2)
            #expect(Int(final.length) == expected.count / 4)
            #expect(final.values == expected)
            // While it grew: every header counted only pairs already there, and they were the final ones.
            let lengths = observed.map(\.length)
            #expect(Set(lengths).count >= 5, "lengths seen: \(lengths)")
            #expect(lengths == lengths.sorted())
            for peaks in observed {
                let counted = Int(peaks.length) * 4
                #expect(peaks.values.count >= counted)
                #expect(Array(peaks.values.prefix(counted)) == Array(expected.prefix(counted)))
            }
        }
    }

    @Test func eachFileOfASplitTakeHasItsOwnPeakFile() async throws {
        try await withPrivateServer { server in
            let folder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let result = try await recorder(["record", folder + "/take.wav", "--peaks", "--duration", "2.5", "--max-file-time", "1",
                                             "--source", PrivateServer.sineSource, "--quiet"], server: server)
            #expect(result.status == 0, "\(result.stderr)")
            for name in ["take", "take-002", "take-003"] {
                let file = try readSoundFile(folder + "/\(name).wav")
                let peaks = try #require(GrowingPeaks(folder + "/\(name).dat"), "\(name).dat")
                #expect(peaks.channels == 1)
                #expect(peaks.values == pairs(file.samples, channels: 1, perPixel: 256), "\(name)")
            }
            let refused = try await recorder(["record", "-", "--peaks", "--duration", "0.1"], server: server)
            #expect(refused.status == 64 && refused.stderr.contains("--peaks"))
        }
    }
}

// The seeds' own code (../shared/seeds), translated to Swift and compiled against the Open modules with
// only the import changed, run against a private server with what they wrote and printed checked.
import CSndFile
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SeedTests {
    /// Seed 003, the AudioQueue AudioRecorder class, records its two seconds from a monitor while a noise
    /// plays: a classic AIFF of 44.1 kHz mono 16-bit holding exactly the packets it counted, whole
    /// buffers of 4 410, equal sample for sample to a reference capture of the monitor; every level line
    /// it printed is the peak and average of one 4 410-frame buffer the server delivered.
    @Test func theAudioQueueRecorderClassWritesWhatTheServerDelivered() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (reference, player) = try await noiseOnTheMonoMonitor(server, directory: directory, seed: 1_729)
            defer {
                player.cancel()
                reference.stop()
            }
            let monitor = PrivateServer.monoSink + ".monitor"

            let seed = try builtProduct("seed-audioqueue-recorder")
            let path = directory + "/seed003.aif"
            let environment = server.environment(source: monitor)
            let result = try await offThread { try runProcess(seed, [path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "record(\(path)) -> true", "\(result.stdout)")
            let packets = lines.last.flatMap { line -> Int? in
                guard line.hasPrefix("isRecording: false  wrote "), line.hasSuffix(" packets to \(path)") else { return nil }
                return Int(line.dropFirst("isRecording: false  wrote ".count).prefix { $0 != " " })
            }
            #expect(packets != nil, "\(result.stdout)")

            let header = try fileHeader(path)
            #expect(header.prefix(4).elementsEqual("FORM".utf8) && header.suffix(4).elementsEqual("AIFF".utf8), "\(header)")
            let file = try readSoundFile(path)
            #expect(file.container == Int32(SF_FORMAT_AIFF) && file.subtype == Int32(SF_FORMAT_PCM_16))
            #expect(file.sampleRate == 44_100 && file.channels == 1)
            #expect(file.frames == packets && file.frames > 0 && file.frames % 4_410 == 0, "\(file.frames) frames, \(packets ?? -1) packets")
            let comparison = try await reference.compare(file.samples)
            #expect(comparison.offset != nil && comparison.covered && comparison.differing == 0, "\(comparison)")

            // Each level line: a buffer the recorder's queue metered, before, in or after the file (or
            // silence, before the first); the buffers lie on the file's grid of 4 410 frames in the reference.
            guard let offset = comparison.offset else { return }
            let blocks = try bufferLevels(reference, gridAt: offset)
            let meterLines = lines.dropFirst().dropLast()
            #expect(!meterLines.isEmpty)
            for line in meterLines {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count == 10, fields[0] == "peak", let peak = Double(fields[1]), let average = Double(fields[4]),
                      let level = Double(fields[7]), let printedPackets = Int(fields[9]) else {
                    Issue.record("not a level line: \(line)")
                    continue
                }
                #expect(printedPackets <= packets ?? 0)
                #expect(abs(level - average / -80) <= 0.006, "\(line)")
                if peak == -160, average == -160, printedPackets == 0 { continue }  // before the first buffer
                #expect(blocks.contains { abs($0.peak - peak) <= 0.006 && abs($0.average - average) <= 0.006 },
                        "no buffer of the reference reads \(line)")
            }
        }
    }
}

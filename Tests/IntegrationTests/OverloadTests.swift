// Issue 4.8: a recording while every core is kept busy by other processes loses no frame.
// The test command runs this suite on its own (it saturates the machine for 30 s, which would
// distort the timing of the other suites).
import Foundation
import Glibc
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct OverloadTests {
    @Test func thirtySecondsWithEveryCoreSaturatedAreBitExact() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 30, seed: 30)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            // Busy loops at normal priority, one per core (plus one), running until killed, or until this
            // process is gone (a test run killed from outside leaves none behind).
            let hogs = try (0...cores).map { _ in
                try RunningProcess("/bin/sh", ["-c", "while kill -0 \(getpid()) 2>/dev/null; do :; done"], environment: [:])
            }
            defer { for hog in hogs { hog.send(SIGKILL); _ = hog.waitBlocking() } }
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            let recorder = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            let path = directory + "/loaded.aiff"
            try recorder.record(to: path)
            try await server.play(directory + "/noise.wav")
            try await signalThenSilence(readings)
            let summary = try #require(try await recorder.stopRecording())
            print("overload: \(cores + 1) busy loops on \(cores) cores; \(summary.frameCount) frames recorded, "
                  + "\(summary.droppedFrames) dropped, \(recorder.droppedFrames) dropped in capture overall")
            #expect(summary.droppedFrames == 0 && summary.gaps.isEmpty)
            let file = try readSoundFile(path)
            let offset = try #require(firstIndex(of: Array(noise[0..<64]), in: file.samples))
            #expect(file.samples.count >= offset + noise.count, "the file ends before the noise")
            // Every sample as the server delivered it: a player starved by the load may have left the sink
            // silent for a moment, which is then in the reference capture too.
            let comparison = try await reference.compare(file.samples, played: noise)
            #expect(comparison.offset != nil && comparison.differing == 0,
                    "\(comparison.differing) samples differ from the reference capture, the first at \(comparison.firstDifference ?? -1)")
        }
    }
}

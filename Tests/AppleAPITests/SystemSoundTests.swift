// System Sound Services against a private server: the example (Examples/SystemSounds, built in Swift 5
// and Swift 6 modes) makes a sound of a file, plays it with a completion block and a completion routine
// on the main run loop, and disposes of it; the sound is heard on the default sink's monitor sample for
// sample, and the statuses for a file too long and one missing are Apple's.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SystemSoundTests {
    /// Half a second of 16-bit noise at 44.1 kHz mono: what the null sink plays is this, exactly.
    static func noise() -> [Int16] {
        var seed: UInt32 = 42
        return (0..<22_050).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int16(truncatingIfNeeded: Int32(seed >> 16) - 32_768) / 2
        }
    }

    @Test(arguments: ["system-sounds-swift5", "system-sounds-swift6"])
    func aSystemSoundIsHeardAndItsCompletionsCalled(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sound = directory + "/click.wav", long = directory + "/long.wav"
            let played = Self.noise()
            try writeWAV(sound, samples: played, channels: 1)
            try writeWAV(long, samples: [Int16](repeating: 0, count: 31 * 44_100), channels: 1)
            let monitor = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { monitor.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [sound, long, directory + "/missing.wav"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            // Over 30 s: kAudioServicesSystemSoundExceededMaximumDurationError; no file: the unspecified error.
            #expect(lines.prefix(2) == ["create long.wav: -1502", "create missing.wav: -1500"], "\(result.stdout)")
            #expect(lines.dropFirst(2).prefix(3) == ["created", "is UI sound: 0 0", "routine added: 0"], "\(result.stdout)")
            // The block (on a queue of the library's) and the routine (on the main run loop) once the sound has
            // played; the sound then disposed; an ID with no sound completes at once.
            #expect(Set(lines.dropFirst(5).prefix(2)) == ["block called", "routine called on the main thread: true"], "\(result.stdout)")
            #expect(lines.dropFirst(7) == ["disposed: 0", "no such sound: completed at once"], "\(result.stdout)")
            let heard = try await monitor.compare(played)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")
        }
    }

    /// A FIFO where the sound file should be: refused at once with the unspecified error (opening it would
    /// wait for a writer that never comes), and the program goes on.
    @Test func aFIFOIsNoSoundFile() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let sound = directory + "/click.wav", long = directory + "/long.wav", fifo = directory + "/fifo.wav"
            try writeWAV(sound, samples: Self.noise(), channels: 1)
            try writeWAV(long, samples: [Int16](repeating: 0, count: 31 * 44_100), channels: 1)
            #expect(mkfifo(fifo, 0o600) == 0)
            let program = try builtProduct("system-sounds-swift6")
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [sound, long, fifo], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").map(String.init).prefix(3) == ["create long.wav: -1502", "create fifo.wav: -1500", "created"],
                    "\(result.stdout)")
        }
    }
}

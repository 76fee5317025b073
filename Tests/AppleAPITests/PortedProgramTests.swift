// Shapes of real Apple audio programs (Examples/PortedPrograms), built in Swift 5 and Swift 6 language
// modes and run against a private server: what they print is checked against numbers computed here.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct PortedProgramTests {
    /// A 1 kHz sine of amplitude 0.5 read through `mutableAudioBufferList` has RMS 0.5/√2 in each of its
    /// two deinterleaved buffers of 4 800 floats; a list of its own of two 480-float buffers holds a 100 Hz
    /// sine whose sample 120 (a quarter period at 48 kHz) is 1; the player subclass made with Apple's
    /// designated initializer opens a 1.5 s file and loops; the byte-order helpers write 'lpcm' and 44 100
    /// big-endian; CFRunLoopRun returns when the main queue's third block stops it; the session has no
    /// data sources and refuses an orientation; the RemoteIO description holds Apple's codes; the 1.5 s clip
    /// converted by Extended Audio File Services to 48 kHz stereo is 72 000 frames of the same constant; a
    /// tenth of a second at 44.1 kHz is 4 800 frames at 48 kHz through AVAudioConverter and through Audio
    /// Converter Services; a second of a 0.5 sine rendered offline from a source node has RMS 0.5/√2; voice
    /// processing is refused on a server without an echo canceller, saying what to load; a sink node has no
    /// outputs; an AUAudioUnit keeps the formats its busses were given; a player started at node time 1 000
    /// of a realtime manual render has player time 100 at node time 1 100; 16-bit samples convert to
    /// n / 32 768; a wrapped file seeks and tells frame 1 000.
    @Test(arguments: ["ported-programs-swift5", "ported-programs-swift6"])
    func realProgramShapesRunAsOnApple(_ product: String) async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/clip.wav"
            try writeWAV(path, samples: [Int16](repeating: 1_000, count: 66_150), channels: 1)
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let rms = 0.5 / 2.0.squareRoot()
            let fourCC = Array("lpcm".utf8) + withUnsafeBytes(of: UInt32(44_100).bigEndian, Array.init)
            let codes = ["auou", "rioc", "appl"].map { Array($0.utf8).map { String(format: "%02x", $0) }.joined() }
            #expect(result.stdout == """
                buffer list: 2 buffers of 1 channel, \(4_800 * 4) bytes each
                rms: \(String(format: "%.4f %.4f", rms, rms))
                own list: 2 buffers, \(480 * 4) bytes, sample 120 = 1.0
                subclass: 1.50 s, loops -1
                header: \(fourCC.map { String(format: "%02x", $0) }.joined()) code true
                run loop stopped after 3 ticks
                data sources: 0, preferred input none
                orientation: refused
                component: \(codes.joined(separator: " "))
                converted: \(72_000) frames read at 48 kHz, \(72_000) in the file
                AVAudioConverter: 4410 frames at 44.1 kHz became \(4_410 * 48_000 / 44_100) at 48 kHz
                AudioConverterFillComplexBuffer: \(4_410 * 48_000 / 44_100) frames at 48 kHz
                offline synthesizer: 44100 frames, rms \(String(format: "%.4f", rms))
                voice processing: refused (load module-echo-cancel)
                sink node: 0 outputs, latency before start 0.0
                AUAudioUnit: 48000.0 Hz 2 ch out, 1 ch in, allocated true
                sequencer: true at \(4 * 512), player time 100 is node time \(1_000 + 100)
                ConvertBuffer: 16 bytes, \([16_384, -16_384, 8_192, -8_192].map { Float($0) / 32_768 })
                wrapped file: told 1000 after seeking to 1000

                """)
            let converted = try readSoundFile(path + ".48k.wav")
            #expect(converted.sampleRate == 48_000 && converted.channels == 2 && converted.frames == 72_000)
            #expect(converted.samples[10_000..<62_000].allSatisfy { $0 == 1_000 }, "the constant 1 000 of the clip, resampled, is 1 000")
        }
    }
}

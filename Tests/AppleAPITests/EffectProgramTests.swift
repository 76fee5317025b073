// The effect programs (Examples/EffectPrograms), real programs' shapes built in Swift 5 and Swift 6
// language modes, run against a private server: what they print and write checked here.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct EffectProgramTests {
    /// Two seconds of a 1 kHz sine (44.1 kHz mono): Apple's offline reverb sample writes all 88 200 frames
    /// (a file libsndfile reads, not silent); the graphic equaliser's 1 kHz band at +12 dB raises the tone
    /// by 12 dB (within 0.05); the voice changer writes 88 200 frames; the piano app's engine runs and
    /// renders for over a second on the server.
    @Test(arguments: ["effect-programs-swift5", "effect-programs-swift6"])
    func effectProgramsRunAsOnApple(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let clip = directory + "/tone.wav"
            try writeWAV(clip, samples: sineSamples(frames: 88_200, frequency: 1_000, amplitudes: [0.25]), channels: 1)
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread {
                try runProcess(program, [clip, generalMIDISoundFont.path, directory], environment: environment)
            }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(result.stdout)")
            #expect(lines.first == "offline reverb: 88200 frames" && lines.dropFirst(2).first == "voice changer: 88200 frames",
                    "\(result.stdout)")
            let gain = lines.dropFirst().first.flatMap { Double($0.split(separator: " ").dropLast().last ?? "") }
            #expect(gain.map { abs($0 - 12) <= 0.05 } == true, "\(result.stdout)")
            #expect(lines.last == "piano: running true, rendered over 1 s", "\(result.stdout)")
            let reverb = try decodeToEnd(directory + "/reverb.wav")
            #expect(reverb.samples.count == 88_200 && reverb.statedFrames == 88_200 && reverb.samples.contains { $0 != 0 })
        }
    }
}

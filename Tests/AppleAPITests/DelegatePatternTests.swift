// The plain AVAudioRecorder/AVAudioPlayer delegate patterns (Examples/DelegatePatterns), built in Swift 5
// and Swift 6 language modes, run against a private server: each delegate is told on the main thread.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct DelegatePatternTests {
    /// Each build records half a second of the server's sine (exactly 22 050 frames), is told on the main
    /// thread that the recorder finished, plays the take and is told the player finished.
    @Test(arguments: ["delegate-patterns-swift5", "delegate-patterns-swift6"])
    func aPlainDelegateClassRecordsAndPlays(_ product: String) async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/take.wav"
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [path], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                recorder finished (successfully: true, on the main thread: true)
                playing 0.50 s
                player finished (successfully: true, on the main thread: true)

                """)
            let take = try readSoundFile(path)
            #expect(take.frames == 22_050 && take.channels == 1 && take.sampleRate == 44_100)
            #expect(take.samples.contains { $0 != 0 }, "the take holds the sine")
        }
    }
}

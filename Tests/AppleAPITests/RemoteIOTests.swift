// The RemoteIO recorder and player (Examples/RemoteIO, Audio Unit Services' C calls, built in Swift 5 and
// Swift 6 language modes; and the probe's AUAudioUnit versions) run against a private server: the recorder's input callback gets every numbered frame the source delivered,
// none missing; the player's render callback is heard on the monitor sample for sample.
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct RemoteIOTests {
    /// Two seconds pulled with AudioUnitRender from the input callback (the unit's own buffers): consecutive
    /// numbered frames, none lost; the unit reports it stopped.
    @Test(arguments: ["remoteio-swift5", "remoteio-swift6", "avfaudio-probe"])
    func aRemoteIOUnitRecordsEveryFrame(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let source = try await NumberedSource(server: server, directory: directory)
            defer { source.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment.merging(["PULSE_SOURCE": NumberedSource.name]) { $1 }
            let out = directory + "/recorded.raw"
            let command = product == "avfaudio-probe" ? "au-record" : "record"
            let result = try await offThread { try runProcess(program, [command, "88200", out], environment: environment) }
            let running = product == "avfaudio-probe" ? "false" : "0"
            #expect(result.status == 0 && result.stdout == "recorded 88200 frames, running \(running)\n", "\(result.stdout)\(result.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
            let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
            let check = try await source.check(samples)
            #expect(samples.count == 88_200 && check.unexplained.isEmpty && check.numbered >= 88_200 - 4_410, "\(check)")
        }
    }

    /// Two seconds of noise rendered by the render callback are heard on the mono sink's monitor, sample
    /// for sample.
    @Test(arguments: ["remoteio-swift5", "remoteio-swift6", "avfaudio-probe"])
    func aRemoteIOUnitPlaysWhatItRenders(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 88_200, seed: 53).map { $0 / 4 }
            let input = directory + "/noise.raw"
            try noise.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: input)) }
            let reference = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { reference.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let command = product == "avfaudio-probe" ? "au-play" : "play"
            let result = try await offThread { try runProcess(program, [command, input], environment: environment) }
            let running = product == "avfaudio-probe" ? "false" : "0"
            #expect(result.status == 0 && result.stdout == "played 88200 frames, running \(running)\n", "\(result.stdout)\(result.stderr)")
            let heard = try await reference.compare(noise)
            #expect(heard.offset != nil && heard.covered && heard.differing == 0, "\(heard)")
        }
    }
}

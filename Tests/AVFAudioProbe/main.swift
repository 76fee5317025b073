// A client of OpenAVFAudio for the tests: records with AVAudioRecorder from the default source (PULSE_SERVER
// and PULSE_SOURCE choose, as for any libpulse program), through Apple's API alone, printing what it saw.
//
//   avfaudio-probe record PATH SECONDS     record(forDuration:), meters every 0.1 s, the delegate's answer
//   avfaudio-probe pause PATH              record, pause, resume, stop: isRecording at each step
//   avfaudio-probe engine-mix A B TAP [N]  two player nodes into the main mixer, started at one sample time
//                                          (B scheduled at player time N, 0 by default); the mixer's tap
//                                          written to TAP (float, interleaved stereo)
//   avfaudio-probe route -                  the session's route, inputs, and its refusals of route choices
//   avfaudio-probe source-node FILE         a source node's block plays the mono file's samples
//   avfaudio-probe sink-node FRAMES OUT     the input node into a sink node; what it gets written to OUT (s16)
//   avfaudio-probe graph-play A B RATE      A and B (through a time-pitch unit at RATE) played to the sink
//   avfaudio-probe voice -                  voice processing on the input node, its input tapped; the latencies
//   avfaudio-probe au-record FRAMES OUT     an AUAudioUnit (RemoteIO) records FRAMES (s16le mono) into OUT
//   avfaudio-probe au-play IN               an AUAudioUnit (RemoteIO) plays IN (s16le mono, raw)
//   avfaudio-probe piano-chain SF2          sampler → delay → reverb → mixer, a chord, 3 s to the sink
//   avfaudio-probe player-numbers FILE      every numeric setting of an AVAudioPlayer of FILE given 0, −1,
//                                          ±infinity, NaN, 1e300 (1e30), .min, .max; prints what it holds after
import Foundation
import OpenAVFAudio

@MainActor
final class Watcher: NSObject, AVAudioRecorderDelegate {
    var finished: Bool?

    nonisolated func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {
        MainActor.assumeIsolated { finished = flag }
    }
}

func spin(_ seconds: TimeInterval) { RunLoop.main.run(until: Date(timeIntervalSinceNow: seconds)) }

@MainActor
func main() throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3 else {
        FileHandle.standardError.write(Data("usage: avfaudio-probe record PATH SECONDS | pause PATH\n".utf8))
        exit(2)
    }
    if arguments[1] == "engine-mix" { return try engineMix(Array(arguments.dropFirst(2))) }
    if arguments[1] == "route" { return route() }
    if arguments[1] == "source-node" { return try sourceNode(arguments[2]) }
    if arguments[1] == "voice" { return try voiceProcessing() }
    if arguments[1] == "au-record" || arguments[1] == "au-play" { return try audioUnitIO(Array(arguments.dropFirst())) }
    if arguments[1] == "sink-node", arguments.count > 3 { return try sinkNode(Int(arguments[2]) ?? 0, arguments[3]) }
    if arguments[1] == "graph-play", arguments.count > 4 { return try graphPlay(arguments[2], arguments[3], rate: Float(arguments[4]) ?? 1) }
    if arguments[1] == "piano-chain" { return try pianoChain(arguments[2]) }
    if arguments[1] == "player-numbers" { return try playerNumbers(URL(fileURLWithPath: arguments[2])) }
    let url = URL(fileURLWithPath: arguments[2])
    let settings: [String: Any] = [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: 44_100.0,
                                   AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16]
    let recorder = try AVAudioRecorder(url: url, settings: settings)
    let watcher = Watcher()
    recorder.delegate = watcher
    recorder.isMeteringEnabled = true
    print("prepareToRecord \(recorder.prepareToRecord())")
    switch arguments[1] {
    case "record":
        let seconds = Double(arguments.count > 3 ? arguments[3] : "1") ?? 1
        print("record(forDuration:) \(recorder.record(forDuration: seconds)) isRecording \(recorder.isRecording)")
        let deadline = Date(timeIntervalSinceNow: 60)
        while watcher.finished == nil && Date() < deadline {
            spin(0.1)
            recorder.updateMeters()
            print(String(format: "meter avg %.2f peak %.2f", recorder.averagePower(forChannel: 0), recorder.peakPower(forChannel: 0)))
        }
        print("finished \(watcher.finished.map(String.init) ?? "never") isRecording \(recorder.isRecording)")
    case "pause":
        print("record \(recorder.record()) isRecording \(recorder.isRecording)")
        spin(0.3)
        recorder.pause()
        print("paused isRecording \(recorder.isRecording)")
        spin(0.3)
        print("record \(recorder.record()) isRecording \(recorder.isRecording)")
        spin(0.3)
        recorder.stop()
        let deadline = Date(timeIntervalSinceNow: 60)
        while watcher.finished == nil && Date() < deadline { spin(0.05) }
        print("stopped isRecording \(recorder.isRecording) finished \(watcher.finished.map(String.init) ?? "never")")
    default:
        exit(2)
    }
}

/// Two files played by two player nodes into the main mixer from one sample time; the mixer's tap
/// written to a file as it renders.
@MainActor
func engineMix(_ paths: [String]) throws {
    guard paths.count >= 3 else { exit(2) }
    let offset = paths.count > 3 ? AVAudioFramePosition(paths[3]) ?? 0 : 0
    let engine = AVAudioEngine()
    let files = try paths.prefix(2).map { try AVAudioFile(forReading: URL(fileURLWithPath: $0)) }
    let players = files.map { _ in AVAudioPlayerNode() }
    let completed = Completions()
    for (index, (player, file)) in zip(players, files).enumerated() {
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
        let when = index == 1 && offset > 0 ? AVAudioTime(sampleTime: offset, atRate: file.processingFormat.sampleRate) : nil
        player.scheduleFile(file, at: when) { completed.add() }
    }
    guard let tap = fopen(paths[2], "wb") else { exit(2) }
    nonisolated(unsafe) let tapFile = tap
    let mixer = engine.mainMixerNode
    mixer.installTap(onBus: 0, bufferSize: 4_096, format: nil) { buffer, _ in
        let channels = Int(buffer.format.channelCount)
        var interleaved = [Float](repeating: 0, count: Int(buffer.frameLength) * channels)
        for frame in 0..<Int(buffer.frameLength) {
            for channel in 0..<channels { interleaved[frame * channels + channel] = buffer.floatChannelData![channel][frame] }
        }
        fwrite(interleaved, 4, interleaved.count, tapFile)
    }
    mixer.installTap(onBus: 0, bufferSize: 1, format: nil) { _, _ in }
    print("second tap: \(OpenAVFAudioLastErrorMessage() ?? "accepted")")
    try engine.start()
    let deadline = Date(timeIntervalSinceNow: 60)
    while engine.mainMixerNode.lastRenderTime == nil && Date() < deadline { spin(0.01) }
    let now = engine.mainMixerNode.lastRenderTime?.sampleTime ?? 0
    let start = AVAudioTime(sampleTime: now + 4_410, atRate: engine.mainMixerNode.outputFormat(forBus: 0).sampleRate)
    players.forEach { $0.play(at: start) }
    while completed.count < 2 && Date() < deadline { spin(0.05) }
    spin(0.5)  // the last frames reach the sink
    mixer.removeTap(onBus: 0)
    engine.stop()
    fclose(tap)
    print("completed \(completed.count) at \(engine.mainMixerNode.outputFormat(forBus: 0).sampleRate) Hz")
}

final class Completions: @unchecked Sendable {
    // @unchecked Sendable: `value` only under `lock`.
    private let lock = NSLock()
    private var value = 0
    func add(_ count: Int = 1) { lock.withLock { value += count } }
    var count: Int { lock.withLock { value } }
}

do {
    try MainActor.assumeIsolated { try main() }
} catch {
    print("error: \(error.localizedDescription)")
    exit(1)
}

/// The session's route as porters' code reads it, and what it says to a chosen input or output.
@MainActor
func route() {
    let session = AVAudioSession.sharedInstance()
    let route = session.currentRoute
    print("inputs: " + route.inputs.map { "\($0.uid) (\($0.portType.rawValue))" }.joined(separator: ", "))
    print("outputs: " + route.outputs.map { "\($0.uid) (\($0.portType.rawValue))" }.joined(separator: ", "))
    print("available inputs: " + (session.availableInputs ?? []).map(\.uid).sorted().joined(separator: ", "))
    do {
        try session.setPreferredInput(session.availableInputs?.first)
        print("setPreferredInput accepted")
    } catch {
        print("setPreferredInput: \(error.localizedDescription)")
    }
    do {
        try session.overrideOutputAudioPort(.speaker)
        print("overrideOutputAudioPort accepted")
    } catch {
        print("overrideOutputAudioPort: \(error.localizedDescription)")
    }
}

/// AVAudioPlayer's numeric settings given hostile values: nothing may trap; what the player then holds is
/// printed (finite, in range).
@MainActor
func playerNumbers(_ url: URL) throws {
    let player = try AVAudioPlayer(contentsOf: url)
    player.enableRate = true
    let floats: [Float] = [0, -1, .infinity, -.infinity, .nan, 1e30, -1e30, .greatestFiniteMagnitude, 0.5]
    let doubles: [Double] = [0, -1, .infinity, -.infinity, .nan, 1e300, -1e300, 1e17, 0.25]
    for value in floats {
        player.volume = value
        player.pan = value
        player.rate = value
        player.setVolume(value, fadeDuration: 1e17)
        player.setVolume(value, fadeDuration: Double(value))
    }
    for seconds in doubles {
        player.currentTime = seconds
        player.setVolume(0.5, fadeDuration: seconds)
        _ = player.play(atTime: seconds)
        player.stop()
    }
    for loops in [Int.min, -1, 0, .max] { player.numberOfLoops = loops }
    for channel in [Int.min, -1, 0, .max] {
        _ = player.peakPower(forChannel: channel)
        _ = player.averagePower(forChannel: channel)
    }
    print("volume \(player.volume) pan \(player.pan) rate \(player.rate) currentTime \(player.currentTime) loops \(player.numberOfLoops)")
}


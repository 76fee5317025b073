// A game's 3D sound as Apple code sets it up (import AVFAudio changed): a mono sound through an
// AVAudioEnvironmentNode, placed around the listener, rendered offline into a stereo file per scene.
//
//   spatial-audio SOUND.wav OUTDIR   writes OUTDIR/left.wav, front-right.wav, turned.wav, obstructed.wav
//                                    and prints what the node reports
import Foundation
import OpenAVFAudio

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: spatial-audio SOUND.wav OUTDIR\n".data(using: .utf8)!)
    exit(2)
}
let sound = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[1]))
let outputDirectory = URL(fileURLWithPath: arguments[2])

/// Renders `sound` from `position` with the listener and environment as `configure` sets them.
func render(_ name: String, position: AVAudio3DPoint, configure: (AVAudioEnvironmentNode, AVAudioPlayerNode) -> Void) throws {
    let engine = AVAudioEngine()
    let environment = AVAudioEnvironmentNode()
    let player = AVAudioPlayerNode()
    engine.attach(environment)
    engine.attach(player)
    let mono = AVAudioFormat(standardFormatWithSampleRate: sound.processingFormat.sampleRate, channels: 1)
    engine.connect(player, to: environment, format: mono)
    engine.connect(environment, to: engine.mainMixerNode, format: nil)
    player.position = position
    configure(environment, player)
    let stereo = AVAudioFormat(standardFormatWithSampleRate: sound.processingFormat.sampleRate, channels: 2)!
    try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 4_096)
    sound.framePosition = 0
    player.scheduleFile(sound, at: nil)
    try engine.start()
    player.play()
    let output = try AVAudioFile(forWriting: outputDirectory.appendingPathComponent(name + ".wav"),
                                 settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: stereo.sampleRate,
                                            AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    while engine.manualRenderingSampleTime < sound.length {
        let frames = min(AVAudioFrameCount(sound.length - engine.manualRenderingSampleTime), buffer.frameCapacity)
        guard try engine.renderOffline(frames, to: buffer) == .success else { break }
        try output.write(from: buffer)
    }
    engine.stop()
    print("\(name): rendered \(engine.manualRenderingSampleTime) frames")
}

// Two metres to the left, the inverse model's default reference and rolloff.
try render("left", position: AVAudio3DPoint(x: -2, y: 0, z: 0)) { _, _ in }
// Ahead and to the right, the exponential model rolling off twice as fast.
try render("front-right", position: AVAudio3DPoint(x: 1, y: 0, z: -1)) { environment, _ in
    environment.distanceAttenuationParameters.distanceAttenuationModel = .exponential
    environment.distanceAttenuationParameters.rolloffFactor = 2
}
// The listener turned a quarter to the left: the sound on the left is now ahead.
try render("turned", position: AVAudio3DPoint(x: -2, y: 0, z: 0)) { environment, _ in
    environment.listenerAngularOrientation = AVAudio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
}
// Behind a wall: six decibels of obstruction.
try render("obstructed", position: AVAudio3DPoint(x: -2, y: 0, z: 0)) { _, player in
    player.obstruction = -6
}

let environment = AVAudioEnvironmentNode()
let player = AVAudioPlayerNode()
print("algorithms: \(environment.applicableRenderingAlgorithms.map { $0.intValue })")
player.renderingAlgorithm = .HRTFHQ
print("HRTFHQ taken: \(player.renderingAlgorithm == .HRTFHQ)")
#if os(Linux)
print("said: \(OpenAVFAudioLastErrorMessage() ?? "nothing")")
#endif
player.renderingAlgorithm = .auto
print("auto taken: \(player.renderingAlgorithm == .auto)")
print("reverb on by default: \(environment.reverbParameters.enable), model \(environment.distanceAttenuationParameters.distanceAttenuationModel.rawValue)")

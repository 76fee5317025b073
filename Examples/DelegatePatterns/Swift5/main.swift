// The two commonest AVAudioRecorder/AVAudioPlayer programs as people write them: a plain delegate class
// (not an actor, not @MainActor) made and used from top-level code and from a non-isolated method,
// calls arriving on the main queue while the main run loop runs. The same file is compiled in Swift 5
// (this folder) and Swift 6 (../Swift6, a link to it) language modes; it differs from the code that
// builds against Apple's AVFoundation only in its import line.
//
// Run: delegate-patterns-swift5 FILE   (records 0.5 s of the default source into FILE, then plays it)

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

final class Take: NSObject, AVAudioRecorderDelegate {
    var recorder: AVAudioRecorder?
    var finished: Bool?

    func record(to url: URL, seconds: TimeInterval) throws {
        let settings: [String: Any] = [
            AVFormatIDKey: Int(kAudioFormatLinearPCM),
            AVSampleRateKey: 44_100.0,
            AVNumberOfChannelsKey: 1,
            AVLinearPCMBitDepthKey: 16,
        ]
        let recorder = try AVAudioRecorder(url: url, settings: settings)
        recorder.delegate = self
        guard recorder.record(forDuration: seconds) else { throw CocoaError(.fileWriteUnknown) }
        self.recorder = recorder
    }

    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {
        print("recorder finished (successfully: \(flag), on the main thread: \(Thread.isMainThread))")
        finished = flag
    }
}

final class Playback: NSObject, AVAudioPlayerDelegate {
    var player: AVAudioPlayer?
    var finished: Bool?

    func play(_ url: URL) throws {
        let player = try AVAudioPlayer(contentsOf: url)
        player.delegate = self
        print(String(format: "playing %.2f s", player.duration))
        player.play()
        self.player = player
    }

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        print("player finished (successfully: \(flag), on the main thread: \(Thread.isMainThread))")
        finished = flag
    }
}

/// Runs the main run loop until `done` holds (the delegates are called from it).
func runMainLoop(until done: () -> Bool) {
    while !done() { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05)) }
}

/// An ordinary, non-isolated method that makes and uses a delegate class.
struct Session {
    let url: URL

    func playBack() throws -> Bool {
        let playback = Playback()
        try playback.play(url)
        runMainLoop { playback.finished != nil }
        return playback.finished ?? false
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write("usage: delegate-patterns FILE\n".data(using: .utf8)!)
    exit(64)
}
let url = URL(fileURLWithPath: CommandLine.arguments[1])
do {
    let take = Take()  // top-level code
    try take.record(to: url, seconds: 0.5)
    runMainLoop { take.finished != nil }
    exit(try Session(url: url).playBack() && take.finished == true ? 0 : 1)
} catch {
    FileHandle.standardError.write("delegate-patterns: \(error.localizedDescription)\n".data(using: .utf8)!)
    exit(1)
}

// Seed 004 (the AVAudioPlayer class reference, course slides): every member it lists exercised on a real
// file, compiled against OpenAVFAudio. It differs from the Swift that builds against Apple's AVFoundation
// only in its import line: a test runs it against a private server and checks what it prints and plays.
//
// Its walk-through: init(contentsOf:), init(data:) (and with bytes that are no sound, which throws);
// delegate, enableRate, metering, prepareToPlay, volume, pan, loops, rate; the sound's channels, duration,
// settings, format and times; play(atTime: deviceCurrentTime + 0.5) with meters read before the start and
// while playing; pause, resume at 2x, stop (currentTime kept), a seek near the end that plays to it (the
// delegate is told), and the bytes' player looped, panned left at half volume.
//
// Run: seed-avaudioplayer-reference FILE

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

@MainActor
final class AudioPlayerReference: NSObject, AVAudioPlayerDelegate {
    private(set) var player: AVAudioPlayer?
    private(set) var dataPlayer: AVAudioPlayer?
    private(set) var finishedSuccessfully: Bool?
    private(set) var decodeErrorDescription: String?

    // MARK: Initializing an AVAudioPlayer object

    func initializePlayers(url: URL) {
        do {
            let player = try AVAudioPlayer(contentsOf: url)           // initWithContentsOfURL:error:
            self.player = player
            print("init(contentsOf:)  url=\(player.url?.lastPathComponent ?? "nil")  data=\(player.data == nil ? "nil" : "non-nil")")
        } catch {
            print("init(contentsOf:) failed: \(error)")
        }

        do {
            let bytes = try Data(contentsOf: url)
            let dataPlayer = try AVAudioPlayer(data: bytes)           // initWithData:error:
            self.dataPlayer = dataPlayer
            print("init(data:)        url=\(dataPlayer.url?.lastPathComponent ?? "nil")  data=\(dataPlayer.data?.count ?? 0) bytes")
        } catch {
            print("init(data:) failed: \(error)")
        }

        do {
            _ = try AVAudioPlayer(data: Data("not audio".utf8))
            print("init(data:) with non-audio data unexpectedly succeeded")
        } catch {
            print("init(data:) with non-audio data throws, as documented: \(error.localizedDescription)")
        }
    }

    // MARK: Configuring and controlling playback

    func configure(_ player: AVAudioPlayer) {
        player.delegate = self
        player.enableRate = true                 // must precede prepareToPlay
        player.isMeteringEnabled = true          // default is false
        let prepared = player.prepareToPlay()
        player.volume = 0.8                      // 0.0 … 1.0
        player.pan = 0.0                         // -1.0 left … 1.0 right
        player.numberOfLoops = 0                 // play once
        player.rate = 1.0                        // 0.5 … 2.0
        print("prepareToPlay -> \(prepared)  volume=\(player.volume)  pan=\(player.pan)  numberOfLoops=\(player.numberOfLoops)  enableRate=\(player.enableRate)  rate=\(player.rate)")
    }

    // MARK: Managing information about a sound

    func describe(_ player: AVAudioPlayer) {
        print("numberOfChannels=\(player.numberOfChannels)  duration=\(String(format: "%.2f", player.duration))s")
        print("settings: format=\(player.settings[AVFormatIDKey] ?? "nil")  sampleRate=\(player.settings[AVSampleRateKey] ?? "nil")  channels=\(player.settings[AVNumberOfChannelsKey] ?? "nil")")
        print("format: \(player.format.sampleRate) Hz")
        print("currentTime=\(player.currentTime)  deviceCurrentTime=\(player.deviceCurrentTime)  isPlaying=\(player.isPlaying)")
    }

    // MARK: Using audio level metering

    func readMeters(_ player: AVAudioPlayer, label: String) {
        player.updateMeters()                    // required before reading
        var line = "\(label)  t=\(String(format: "%.2f", player.currentTime))"
        for channel in 0..<player.numberOfChannels {
            let average = player.averagePower(forChannel: channel)
            let peak = player.peakPower(forChannel: channel)
            line += String(format: "  ch%ld avg %.1f dB peak %.1f dB", channel, average, peak)
        }
        print(line)
    }

    // MARK: AVAudioPlayerDelegate

    nonisolated func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        Task { @MainActor in
            self.finishedSuccessfully = flag
            print("audioPlayerDidFinishPlaying(successfully: \(flag))")
        }
    }

    nonisolated func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {
        let description = error.map { String(describing: $0) } ?? "unknown error"
        Task { @MainActor in
            self.decodeErrorDescription = description
            print("audioPlayerDecodeErrorDidOccur: \(description)")
        }
    }

    // MARK: Walk-through

    func run(url: URL) {
        initializePlayers(url: url)
        guard let player else { return }

        configure(player)
        describe(player)

        // playAtTime: — start 0.5 s after "now" on the output device's clock.
        let started = player.play(atTime: player.deviceCurrentTime + 0.5)
        print("play(atTime: deviceCurrentTime + 0.5) -> \(started)")
        spin(0.4); readMeters(player, label: "before start")
        spin(1.0); readMeters(player, label: "playing")
        print("isPlaying=\(player.isPlaying)  deviceCurrentTime=\(player.deviceCurrentTime)")

        player.pause()                           // stays prepared, keeps currentTime
        let pausedAt = player.currentTime
        print("pause(): isPlaying=\(player.isPlaying)  currentTime=\(pausedAt)")
        spin(0.3)

        _ = player.play()                        // resume
        player.rate = 2.0                        // effective because enableRate = true
        spin(1.0); readMeters(player, label: "2x")

        player.stop()                            // does not reset currentTime
        print("stop(): isPlaying=\(player.isPlaying)  currentTime=\(player.currentTime) (not reset to 0)")

        // Seek near the end and let it finish to trigger the delegate.
        player.rate = 1.0
        player.currentTime = max(0, player.duration - 0.5)
        _ = player.play()
        spin(1.2)
        print("finishedSuccessfully=\(finishedSuccessfully.map { "\($0)" } ?? "nil")")

        if let dataPlayer {
            dataPlayer.numberOfLoops = 1         // two plays in total
            dataPlayer.pan = -1.0                // full left
            dataPlayer.volume = 0.5
            _ = dataPlayer.play()
            spin(0.5)
            print("dataPlayer isPlaying=\(dataPlayer.isPlaying)  currentTime=\(dataPlayer.currentTime)")
            dataPlayer.stop()
        }
    }

    private func spin(_ seconds: TimeInterval) {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: seconds))
    }
}

@main
struct AVAudioPlayerReferenceMain {
    @MainActor
    static func main() {
        let url: URL? = CommandLine.arguments.count > 1
            ? URL(fileURLWithPath: CommandLine.arguments[1])
            : Bundle.main.url(forResource: "sample", withExtension: "mp3")
        guard let url else {
            print("usage: seed004 <audio file>")
            return
        }
        let reference = AudioPlayerReference()
        reference.run(url: url)
    }
}

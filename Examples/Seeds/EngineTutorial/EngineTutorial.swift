// Seed 001 (the AVAudioEngine tutorial: a player node through a time-pitch effect into the main mixer,
// seeking with scheduleSegment, speed and pitch, a level tap on the mixer), compiled against OpenAVFAudio.
// Beside the import line it differs from the Swift that builds against Apple's AVFoundation only in the UI
// it draws: the SwiftUI view prints its status, and the display link is a block timer (Timer's selector
// form needs the Objective-C runtime; the block form is on both).
//
// What it does: plays the file, skips 10 s ahead, goes to 2x and half an octave up, skips 10 s back and
// pauses, printing after each step the position, progress and the mixer tap's level.
//
// Run: seed-engine-tutorial FILE

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

struct PlaybackValue: Identifiable, Sendable {
    let value: Double
    let label: String
    var id: String { label }
}

struct PlayerTime: Sendable {
    let elapsedTime: Double
    let remainingTime: Double
    static let zero = PlayerTime(elapsedTime: 0, remainingTime: 0)
}

@MainActor
final class PlayerViewModel: NSObject {
    // MARK: Public properties

    private(set) var isPlaying = false
    private(set) var isPlayerReady = false
    var playbackRateIndex: Int = 1 {
        didSet { updateForRateSelection() }
    }
    var playbackPitchIndex: Int = 1 {
        didSet { updateForPitchSelection() }
    }
    private(set) var playerProgress: Double = 0
    private(set) var playerTime: PlayerTime = .zero
    private(set) var meterLevel: Float = 0

    let allPlaybackRates: [PlaybackValue] = [
        .init(value: 0.5, label: "0.5x"),
        .init(value: 1, label: "1x"),
        .init(value: 1.25, label: "1.25x"),
        .init(value: 2, label: "2x")
    ]

    let allPlaybackPitches: [PlaybackValue] = [
        .init(value: -0.5, label: "-½"),
        .init(value: 0, label: "0"),
        .init(value: 0.5, label: "+½")
    ]

    // MARK: Private properties

    private let engine = AVAudioEngine()
    private let player = AVAudioPlayerNode()
    private let timeEffect = AVAudioUnitTimePitch()

    private var displayLink: Timer?          // CADisplayLink stand-in
    private var displayLinkIsPaused = true

    private var needsFileScheduled = true

    private var audioFile: AVAudioFile?
    private var audioSampleRate: Double = 0
    private var audioLengthSeconds: Double = 0

    private var seekFrame: AVAudioFramePosition = 0
    private var currentPosition: AVAudioFramePosition = 0
    private var audioLengthSamples: AVAudioFramePosition = 0

    private var currentFrame: AVAudioFramePosition {
        guard
            let lastRenderTime = player.lastRenderTime,
            let playerTime = player.playerTime(forNodeTime: lastRenderTime)
        else {
            return 0
        }
        return playerTime.sampleTime
    }

    // MARK: - Public

    init(fileURL: URL?) {
        super.init()
        setupAudio(fileURL: fileURL)
        setupDisplayLink()
    }

    func playOrPause() {
        isPlaying.toggle()

        if player.isPlaying {
            displayLinkIsPaused = true
            disconnectVolumeTap()

            player.pause()
        } else {
            displayLinkIsPaused = false
            connectVolumeTap()

            if needsFileScheduled {
                scheduleAudioFile()
            }
            player.play()
        }
    }

    func skip(forwards: Bool) {
        let timeToSeek: Double

        if forwards {
            timeToSeek = 10
        } else {
            timeToSeek = -10
        }

        seek(to: timeToSeek)
    }

    // MARK: - Private

    private func setupAudio(fileURL: URL?) {
        guard let fileURL else {
            print("No audio file")
            return
        }

        do {
            let file = try AVAudioFile(forReading: fileURL)
            let format = file.processingFormat

            audioLengthSamples = file.length
            audioSampleRate = format.sampleRate
            audioLengthSeconds = Double(audioLengthSamples) / audioSampleRate

            audioFile = file

            configureEngine(with: format)
        } catch {
            print("Error reading the audio file: \(error.localizedDescription)")
        }
    }

    private func configureEngine(with format: AVAudioFormat) {
        engine.attach(player)
        engine.attach(timeEffect)

        engine.connect(player, to: timeEffect, format: format)
        engine.connect(timeEffect, to: engine.mainMixerNode, format: format)

        engine.prepare()

        do {
            try engine.start()

            scheduleAudioFile()
            isPlayerReady = true
        } catch {
            print("Error starting the player: \(error.localizedDescription)")
        }
    }

    private func scheduleAudioFile() {
        guard
            let file = audioFile,
            needsFileScheduled
        else {
            return
        }

        needsFileScheduled = false
        seekFrame = 0

        player.scheduleFile(file, at: nil) { @Sendable in
            // Called on an AVAudioEngine thread.
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.needsFileScheduled = true
                }
            }
        }
    }

    // MARK: Audio adjustments

    private func seek(to time: Double) {
        guard let audioFile = audioFile else {
            return
        }

        // 1
        let offset = AVAudioFramePosition(time * audioSampleRate)
        seekFrame = currentPosition + offset
        seekFrame = max(seekFrame, 0)
        seekFrame = min(seekFrame, audioLengthSamples)
        currentPosition = seekFrame

        // 2
        let wasPlaying = player.isPlaying
        player.stop()

        if currentPosition < audioLengthSamples {
            updateDisplay()
            needsFileScheduled = false

            let frameCount = AVAudioFrameCount(audioLengthSamples - seekFrame)
            // 3
            player.scheduleSegment(
                audioFile,
                startingFrame: seekFrame,
                frameCount: frameCount,
                at: nil
            ) { @Sendable in
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        self.needsFileScheduled = true
                    }
                }
            }

            // 4
            if wasPlaying {
                player.play()
            }
        }
    }

    private func updateForRateSelection() {
        let selectedRate = allPlaybackRates[playbackRateIndex]
        timeEffect.rate = Float(selectedRate.value)
    }

    private func updateForPitchSelection() {
        let selectedPitch = allPlaybackPitches[playbackPitchIndex]
        // 1 octave = 1200 cents
        timeEffect.pitch = 1200 * Float(selectedPitch.value)
    }

    // MARK: Audio metering

    /// Converts a dB value (-160…0) to a 0…1 meter level over an 80 dB range.
    nonisolated func scaledPower(power: Float) -> Float {
        // 1
        guard power.isFinite else {
            return 0.0
        }

        let minDb: Float = -80

        // 2
        if power < minDb {
            return 0.0
        } else if power >= 1.0 {
            return 1.0
        } else {
            // 3
            return (abs(minDb) - abs(power)) / abs(minDb)
        }
    }

    private func connectVolumeTap() {
        // 1
        let format = engine.mainMixerNode.outputFormat(forBus: 0)
        // 2
        engine.mainMixerNode.installTap(
            onBus: 0,
            bufferSize: 1024,
            format: format
        ) { @Sendable buffer, _ in
            // Runs on the engine's tap thread, not the main thread.
            // 3
            guard let channelData = buffer.floatChannelData else {
                return
            }

            let channelDataValue = channelData.pointee
            // 4
            let channelDataValueArray = stride(
                from: 0,
                to: Int(buffer.frameLength),
                by: buffer.stride)
                .map { channelDataValue[$0] }

            // 5
            let rms = sqrt(channelDataValueArray.map {
                return $0 * $0
            }
            .reduce(0, +) / Float(buffer.frameLength))

            // 6
            let avgPower = 20 * log10(rms)
            // 7
            let meterLevel = self.scaledPower(power: avgPower)

            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.meterLevel = self.isPlaying ? meterLevel : 0
                }
            }
        }
    }

    private func disconnectVolumeTap() {
        engine.mainMixerNode.removeTap(onBus: 0)
        meterLevel = 0
    }

    // MARK: Display updates

    private func setupDisplayLink() {
        displayLink = Timer.scheduledTimer(withTimeInterval: 1.0 / 60.0, repeats: true) { [weak self] _ in
            MainActor.assumeIsolated { self?.displayLinkFired() }
        }
        displayLinkIsPaused = true
    }

    private func displayLinkFired() {
        guard !displayLinkIsPaused else { return }
        updateDisplay()
    }

    private func updateDisplay() {
        // 1
        currentPosition = currentFrame + seekFrame
        currentPosition = max(currentPosition, 0)
        currentPosition = min(currentPosition, audioLengthSamples)

        // 2
        if currentPosition >= audioLengthSamples {
            player.stop()

            seekFrame = 0
            currentPosition = 0

            isPlaying = false
            displayLinkIsPaused = true

            disconnectVolumeTap()
        }

        // 3
        playerProgress = audioLengthSamples > 0
            ? Double(currentPosition) / Double(audioLengthSamples) : 0

        let time = audioSampleRate > 0 ? Double(currentPosition) / audioSampleRate : 0
        playerTime = PlayerTime(
            elapsedTime: time,
            remainingTime: audioLengthSeconds - time
        )
    }

    /// Console stand-in for the SwiftUI view.
    func printStatus(_ label: String) {
        print(String(format: "%@  t=%.1fs / %.1fs  progress=%.2f  meter=%.2f  rate=%@  pitch=%@",
                     label, playerTime.elapsedTime, audioLengthSeconds, playerProgress, meterLevel,
                     allPlaybackRates[playbackRateIndex].label,
                     allPlaybackPitches[playbackPitchIndex].label))
    }
}

@main
struct AVAudioEngineTutorialMain {
    @MainActor
    static func main() {
        let url: URL? = CommandLine.arguments.count > 1
            ? URL(fileURLWithPath: CommandLine.arguments[1])
            : Bundle.main.url(forResource: "Intro", withExtension: "mp3")
        let model = PlayerViewModel(fileURL: url)

        func run(_ seconds: TimeInterval, _ label: String) {
            RunLoop.main.run(until: Date(timeIntervalSinceNow: seconds))
            model.printStatus(label)
        }

        model.playOrPause()                       // play
        run(2, "playing")
        model.skip(forwards: true)                // +10 s via scheduleSegment
        run(1, "after skip +10")
        model.playbackRateIndex = 3               // 2x  (timeEffect.rate = 2)
        model.playbackPitchIndex = 2              // +½ octave (timeEffect.pitch = 600)
        run(2, "2x, +600 cents")
        model.skip(forwards: false)               // -10 s
        run(1, "after skip -10")
        model.playOrPause()                       // pause, tap removed
        run(0.2, "paused")
    }
}

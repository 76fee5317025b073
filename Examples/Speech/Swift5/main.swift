// A reading app's speech as Apple code writes it (import AVFoundation changed): a voice for the user's
// language, an utterance written into buffers and saved, then spoken aloud with the delegate following
// each word.
//
//   speech TEXT OUT.wav   writes the spoken TEXT to OUT.wav (16-bit), speaks it, prints the delegate's calls
import Foundation
import OpenAVFAudio

final class Reader: NSObject, AVSpeechSynthesizerDelegate {
    let synthesizer = AVSpeechSynthesizer()
    var finished = false
    var cancelled = false
    var wordsTold = 0

    override init() {
        super.init()
        synthesizer.delegate = self
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance) {
        print("didStart")
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                           utterance: AVSpeechUtterance) {
        let word = (utterance.speechString as NSString).substring(with: characterRange)
        print("willSpeak \(characterRange.location) \(characterRange.length) \(word)")
        wordsTold += 1
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance) { print("didPause") }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance) { print("didContinue") }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance) {
        print("didCancel")
        cancelled = true
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance) {
        print("didFinish")
        finished = true
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: speech TEXT OUT.wav\n".data(using: .utf8)!)
    exit(2)
}
guard let voice = AVSpeechSynthesisVoice(language: "en-US") else {
    FileHandle.standardError.write("no voice for en-US\n".data(using: .utf8)!)
    exit(1)
}
print("voice: \(voice.language) \(voice.name)")

let utterance = AVSpeechUtterance(string: arguments[1])
utterance.voice = voice
utterance.rate = AVSpeechUtteranceDefaultSpeechRate

// Into buffers, saved as a file.
let reader = Reader()
let done = DispatchSemaphore(value: 0)
var output: AVAudioFile?
var frames: AVAudioFramePosition = 0
reader.synthesizer.write(utterance) { buffer in
    guard let pcm = buffer as? AVAudioPCMBuffer else { return }
    if pcm.frameLength == 0 {
        done.signal()
        return
    }
    do {
        if output == nil {
            output = try AVAudioFile(forWriting: URL(fileURLWithPath: arguments[2]),
                                     settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: pcm.format.sampleRate,
                                                AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16])
        }
        try output?.write(from: pcm)
        frames += AVAudioFramePosition(pcm.frameLength)
    } catch {
        print("write failed: \(error)")
    }
}
done.wait()
output = nil
print("written: \(frames) frames")

// Aloud, the delegate told of each word.
reader.synthesizer.speak(utterance)
let deadline = Date(timeIntervalSinceNow: 30)
while !reader.finished && Date() < deadline {
    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.05))
}
print("speaking after finish: \(reader.synthesizer.isSpeaking)")

/// Runs the main run loop until `condition` holds (30 s at most).
func wait(until condition: () -> Bool) {
    let deadline = Date(timeIntervalSinceNow: 30)
    while !condition() && Date() < deadline { RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01)) }
}

// A second's quiet, then a long text: paused after two words, continued, stopped after one more; the one queued behind it dropped.
RunLoop.main.run(until: Date(timeIntervalSinceNow: 1))
reader.wordsTold = 0
reader.synthesizer.speak(AVSpeechUtterance(string: "One two three four five six seven eight nine ten eleven twelve."))
reader.synthesizer.speak(AVSpeechUtterance(string: "Never spoken."))
wait { reader.wordsTold >= 2 }
print("pause: \(reader.synthesizer.pauseSpeaking(at: .immediate))")
RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
print("paused: \(reader.synthesizer.isPaused)")
let toldWhilePaused = reader.wordsTold
RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
print("words while paused: \(reader.wordsTold - toldWhilePaused)")
print("continue: \(reader.synthesizer.continueSpeaking())")
let toldBefore = reader.wordsTold
wait { reader.wordsTold > toldBefore }
print("stop: \(reader.synthesizer.stopSpeaking(at: .immediate))")
wait { reader.cancelled }
RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
print("speaking after cancel: \(reader.synthesizer.isSpeaking)")

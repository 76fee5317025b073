// Speech: the example (Examples/Speech, Swift 5 and 6) writes an utterance into buffers, sample for sample
// what espeak-ng's own command makes of the text with the same voice, rate and pitch; then speaks it on a
// private server, its delegate told of each word in order (the words' places in the text) and of its end,
// the speech heard on the sink's monitor as long as it was written.
import Foundation
import Locking
import OpenAVFAudio
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct SpeechTests {
    static let text = "Hello world, from Linux at last."

    @Test(arguments: ["speech-swift5", "speech-swift6"])
    func anUtteranceIsWrittenAsEspeakSpeaksItAndHeardWordByWord(_ product: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            // espeak-ng's own rendering: the oracle (voice en-us, 175 words a minute, pitch 50: the defaults
            // AVSpeechUtterance's 0.5 rate and 1.0 pitch multiplier stand for; -z: no pause after the last
            // sentence, as the library's espeak_Synth adds none).
            let reference = try await offThread { try runProcess("espeak-ng", ["-z", "-v", "en-us", "-s", "175", "-p", "50", "-w", directory + "/reference.wav", Self.text]) }
            #expect(reference.status == 0, "\(reference.stderr)")
            let monitor = try await ReferenceCapture(server: server, source: PrivateServer.monoSink + ".monitor", directory: directory)
            defer { monitor.stop() }
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [Self.text, directory + "/written.wav"], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let expected = try readSoundFile(directory + "/reference.wav"), written = try readSoundFile(directory + "/written.wav")
            #expect(written.sampleRate == expected.sampleRate && written.samples == expected.samples,
                    "written \(written.frames) frames at \(written.sampleRate) Hz, espeak-ng's \(expected.frames) at \(expected.sampleRate)")
            // The words, at their places in the text, in order; then the end.
            let words = ["Hello", "world", "from", "Linux", "at", "last"]
            let text = Self.text as NSString
            let told = words.map { word in "willSpeak \(text.range(of: word).location) \(word.utf16.count) \(word)" }
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let first = Array(lines.prefix(told.count + 5))
            #expect(first == ["voice: en-US English (America)", "written: \(expected.frames) frames", "didStart"] + told
                    + ["didFinish", "speaking after finish: false"], "\(result.stdout)")
            // Paused, nothing told while paused, continued, stopped: cancelled, the next never started.
            let rest = lines.dropFirst(told.count + 5).filter { !$0.hasPrefix("willSpeak") }
            #expect(rest == ["didStart", "pause: true", "didPause", "paused: true", "words while paused: 0", "continue: true", "didContinue",
                             "stop: true", "didCancel", "speaking after cancel: false"], "\(result.stdout)")
            // Heard: the monitor holds a stretch of sound about as long as the speech (the server resamples
            // 22 050 Hz to the sink's 44 100, so it is compared by length, not sample for sample; an underrun
            // of a busy machine's would only lengthen it, so only its least is held).
            // (The first utterance: up to the program's second of quiet before its next.)
            let heard = try monitor.samples()
            var loud: [Int] = []
            for index in heard.indices where abs(Int(heard[index])) > 300 {
                if let last = loud.last, index - last > 26_460 { break }  // 0.6 s of quiet: the first has ended
                loud.append(index)
            }
            let span = Double((loud.last ?? 0) - (loud.first ?? 0)) / 44_100
            let spoken = Double(expected.frames) / Double(expected.sampleRate)
            #expect(!loud.isEmpty && span > spoken * 0.6, "heard \(span) s of \(spoken) s")
        }
    }

    @Test func voicesAreEspeaksUnderApplesNames() throws {
        let voices = AVSpeechSynthesisVoice.speechVoices()
        let listed = try runProcess("espeak-ng", ["--voices"]).stdout.split(separator: "\n").dropFirst().count
        #expect(voices.count > 50 && abs(voices.count - listed) <= listed / 10, "\(voices.count) voices, espeak-ng lists \(listed)")
        let german = try #require(AVSpeechSynthesisVoice(language: "de_DE"))
        #expect(german.language == "de" && AVSpeechSynthesisVoice(identifier: german.identifier)?.name == german.name)
        #expect(AVSpeechSynthesisVoice(language: "xx-YY") == nil && AVSpeechSynthesisVoice(identifier: AVSpeechSynthesisVoiceIdentifierAlex) == nil)
        #expect(AVSpeechSynthesisVoice(language: "en-GB")?.language == "en-GB")
    }

    @Test func ratesPitchesAndVolumesReachEspeakAndNonsenseIsClamped() throws {
        let synthesizer = AVSpeechSynthesizer()
        func written(_ configure: (AVSpeechUtterance) -> Void) throws -> [Float] {
            let utterance = AVSpeechUtterance(string: "Testing one two three")
            configure(utterance)
            let collected = Locked<[Float]>([])
            let done = DispatchSemaphore(value: 0)
            synthesizer.write(utterance) { buffer in
                let pcm = buffer as! AVAudioPCMBuffer
                if pcm.frameLength == 0 {
                    done.signal()
                    return
                }
                let samples = Array(UnsafeBufferPointer(start: pcm.floatChannelData![0], count: Int(pcm.frameLength)))
                collected.withLock { $0 += samples }
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            return collected.withLock { $0 }
        }
        let normal = try written { _ in }
        let fast = try written { $0.rate = AVSpeechUtteranceMaximumSpeechRate }
        let slow = try written { $0.rate = AVSpeechUtteranceMinimumSpeechRate }
        // 450 and 80 words a minute against 175.
        #expect(Double(fast.count) < Double(normal.count) * 0.6 && Double(slow.count) > Double(normal.count) * 1.5,
                "\(slow.count) \(normal.count) \(fast.count)")
        let quiet = try written { $0.volume = 0.5 }
        let peak = { (samples: [Float]) in samples.map(abs).max() ?? 0 }
        #expect(abs(peak(quiet) / peak(normal) - 0.5) < 0.05, "\(peak(quiet)) against \(peak(normal))")
        // NaN and out-of-range values are the defaults or the ends, never a crash.
        let odd = try written {
            $0.rate = .nan
            $0.pitchMultiplier = .infinity
            $0.volume = -3
            $0.preUtteranceDelay = .nan
        }
        #expect(odd.count > 1_000 && peak(odd) == 0)
        let clamped = try written { $0.rate = 1e30 }
        // (espeak-ng carries a little state from one text to the next: a sample or so either way.)
        #expect(abs(clamped.count - fast.count) <= fast.count / 100, "\(clamped.count) against \(fast.count)")
    }
}

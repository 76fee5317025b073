// AVSpeechSynthesizer: utterances spoken in turn by espeak-ng through an engine of its own (to the
// default sink), the delegate told as each starts, reaches a word, pauses, continues, finishes or is
// cancelled; or written into buffers.
import Foundation
import Locking
import RecorderKit

public enum AVSpeechBoundary: Int, Sendable {
    case immediate = 0
    case word = 1
}

/// What a synthesizer tells its delegate, on the main queue (the program's main run loop must run).
/// Every method has an empty default.
public protocol AVSpeechSynthesizerDelegate: NSObjectProtocol {
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance)
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance)
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance)
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance)
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance)
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                           utterance: AVSpeechUtterance)
}

extension AVSpeechSynthesizerDelegate {
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance) {}
    public func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                                  utterance: AVSpeechUtterance) {}
}

/// Speaks utterances one after another with espeak-ng (RecorderKit's `Speech`), to the default sink (or
/// PULSE_SINK's) through an AVAudioEngine of its own. Every member may be used from any thread; the
/// delegate is called on the main queue, `write`'s callback on a queue of the synthesizer's.
open class AVSpeechSynthesizer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `state` and `watcher` are behind locks; the engine and player are made in init
    // and used through their own thread-safe calls; synthesis runs on `work` (speaking, in turn) and
    // `writing` (write).
    public typealias BufferCallback = (AVAudioBuffer) -> Void

    private struct State {
        var waiting: [AVSpeechUtterance] = []
        var current: AVSpeechUtterance?
        /// Bumped whenever the utterance under way is dropped: its player callbacks then do nothing.
        var generation = 0
        var paused = false
        var pauseAtWord = false
        var stopAtWord = false
    }

    private final class Watcher {
        weak var delegate: AVSpeechSynthesizerDelegate?
    }

    private let state = Locked(State())
    private let watcher = Locked(Watcher())
    private let work = DispatchQueue(label: "AVSpeechSynthesizer.speak")
    private let writing = DispatchQueue(label: "AVSpeechSynthesizer.write")
    private let engine = AVAudioEngine()
    private let player = AVAudioPlayerNode()

    public override init() {
        super.init()
        engine.attach(player)
    }

    deinit { engine.stop() }

    /// Told of each utterance's progress (held weakly), on the main queue.
    public weak var delegate: AVSpeechSynthesizerDelegate? {
        get { watcher.withLock { $0.delegate } }
        set { watcher.withLock { $0.delegate = newValue } }
    }

    /// Kept: there is no application audio session to use or not here.
    public var usesApplicationAudioSession = true
    /// Kept: there is no telephone uplink here.
    public var mixToTelephonyUplink = false

    /// Whether an utterance is being spoken (or is paused) or waits.
    public var isSpeaking: Bool { state.withLock { $0.current != nil || !$0.waiting.isEmpty } }
    /// Whether speech is paused.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Adds `utterance` to those to speak; it is spoken when those before it are done.
    open func speak(_ utterance: AVSpeechUtterance) {
        let start = state.withLock { state -> Bool in
            state.waiting.append(utterance)
            return state.current == nil && state.waiting.count == 1
        }
        if start { work.async { self.speakNext() } }
    }

    /// Stops at once (`.immediate`) or after the word under way (`.word`), and drops those waiting; the
    /// delegate is told the one under way was cancelled. False when nothing was being spoken.
    @discardableResult
    open func stopSpeaking(at boundary: AVSpeechBoundary) -> Bool {
        let (wasSpeaking, cancelled) = state.withLock { state -> (Bool, AVSpeechUtterance?) in
            let speaking = state.current != nil || !state.waiting.isEmpty
            state.waiting.removeAll()
            guard boundary == .immediate || state.paused else {
                state.stopAtWord = state.current != nil
                return (speaking, nil)
            }
            return (speaking, dropCurrent(&state))
        }
        if let cancelled { cancel(cancelled) }
        return wasSpeaking
    }

    /// Pauses at once (`.immediate`) or after the word under way (`.word`). False when nothing is being
    /// spoken or it is paused already.
    @discardableResult
    open func pauseSpeaking(at boundary: AVSpeechBoundary) -> Bool {
        let paused = state.withLock { state -> AVSpeechUtterance? in
            guard let current = state.current, !state.paused else { return nil }
            if boundary == .word {
                state.pauseAtWord = true
                return nil
            }
            state.paused = true
            return current
        }
        if let paused {
            player.pause()
            tell { $0.speechSynthesizer(self, didPause: paused) }
        }
        return paused != nil || state.withLock { $0.pauseAtWord }
    }

    /// Goes on where it paused. False when it was not paused.
    @discardableResult
    open func continueSpeaking() -> Bool {
        let resumed = state.withLock { state -> AVSpeechUtterance? in
            state.pauseAtWord = false
            guard state.paused, let current = state.current else { return nil }
            state.paused = false
            return current
        }
        guard let resumed else { return false }
        player.play()
        tell { $0.speechSynthesizer(self, didContinue: resumed) }
        return true
    }

    /// Speaks `utterance` into buffers instead of the sink: `bufferCallback` gets mono 32-bit float
    /// buffers at espeak-ng's rate (`AVSpeechSynthesisVoice.audioFileSettings`), 4 096 frames at most,
    /// in order, then one of 0 frames (the end, as Apple's last buffer says), on a queue of the
    /// synthesizer's. The delays around it are not written. Without espeak-ng, only the empty buffer
    /// comes (and `OpenAVFAudioLastErrorMessage()` says what to install).
    open func write(_ utterance: AVSpeechUtterance, toBufferCallback bufferCallback: @escaping BufferCallback) {
        let callback = UncheckedBufferCallback(call: bufferCallback)
        writing.async {
            let format = AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 1)!
            if let spoken = self.synthesize(utterance) {
                let rated = AVAudioFormat(standardFormatWithSampleRate: Double(spoken.sampleRate), channels: 1)!
                var start = 0
                while start < spoken.samples.count {
                    let count = min(4_096, spoken.samples.count - start)
                    callback.call(Self.buffer(spoken.samples[start..<(start + count)], format: rated))
                    start += count
                }
            }
            callback.call(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1)!)
        }
    }

    // MARK: Speaking

    /// espeak-ng's audio of `utterance`, or nil (with the line said) when it cannot speak.
    private func synthesize(_ utterance: AVSpeechUtterance) -> SpokenAudio? {
        let voice = utterance.voice ?? AVSpeechSynthesisVoice(language: nil)
        do {
            return try Speech.synthesize(utterance.speechString, voice: voice?.espeakIdentifier, wordsPerMinute: utterance.wordsPerMinute,
                                         pitch: utterance.espeakPitch, volume: utterance.espeakVolume)
        } catch {
            AVAudioEngine.noteRefusal("AVSpeechSynthesizer: \(error.message)")
            return nil
        }
    }

    private static func buffer(_ samples: ArraySlice<Int16>, format: AVAudioFormat) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(max(1, samples.count)))!
        buffer.frameLength = AVAudioFrameCount(samples.count)
        for (index, sample) in samples.enumerated() { buffer.floatChannelData![0][index] = Float(sample) / 32_768 }
        return buffer
    }

    /// Takes the next waiting utterance and speaks it (on `work`).
    private func speakNext() {
        guard let (utterance, generation) = state.withLock({ state -> (AVSpeechUtterance, Int)? in
            guard state.current == nil, !state.waiting.isEmpty else { return nil }
            state.current = state.waiting.removeFirst()
            state.generation += 1
            state.pauseAtWord = false
            state.stopAtWord = false
            return (state.current!, state.generation)
        }) else { return }
        guard let spoken = synthesize(utterance), startEngine(rate: spoken.sampleRate) else {
            if let dropped = state.withLock({ $0.generation == generation ? dropCurrent(&$0) : nil }) { cancel(dropped) }
            work.async { self.speakNext() }
            return
        }
        tell { $0.speechSynthesizer(self, didStart: utterance) }
        let format = AVAudioFormat(standardFormatWithSampleRate: Double(spoken.sampleRate), channels: 1)!
        let pre = AVAudioFrameCount(AVSpeechUtterance.delay(utterance.preUtteranceDelay) * Double(spoken.sampleRate))
        if pre > 0 {
            let silence = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: pre)!
            silence.frameLength = pre
            player.scheduleBuffer(silence, completionHandler: nil)
        }
        // Pieces between word starts: when the piece before a word has been heard, the word is next.
        let ranges = Self.utf16Ranges(utterance.speechString, spoken.words)
        let starts = spoken.words.map { min($0.frame, spoken.samples.count) }
        let bounds = [0] + starts + [spoken.samples.count]
        for piece in 0..<(bounds.count - 1) {
            let (from, to) = (bounds[piece], bounds[piece + 1])
            let last = piece == bounds.count - 2
            guard to > from || last else {
                if piece < ranges.count { tell { $0.speechSynthesizer(self, willSpeakRangeOfSpeechString: ranges[piece], utterance: utterance) } }
                continue
            }
            player.scheduleBuffer(Self.buffer(spoken.samples[from..<to], format: format), completionCallbackType: .dataPlayedBack) { _ in
                self.piecePlayed(generation, utterance, word: last ? nil : ranges[piece], last: last)
            }
        }
        let post = AVAudioFrameCount(AVSpeechUtterance.delay(utterance.postUtteranceDelay) * Double(spoken.sampleRate))
        if post > 0 {
            let silence = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: post)!
            silence.frameLength = post
            player.scheduleBuffer(silence, completionCallbackType: .dataPlayedBack) { _ in self.finished(generation) }
        }
        if !state.withLock({ $0.paused }) { player.play() }
    }

    /// A piece has been heard: the next word is about to be, or the utterance has ended.
    private func piecePlayed(_ generation: Int, _ utterance: AVSpeechUtterance, word: NSRange?, last: Bool) {
        let (current, stop, pause) = state.withLock { state -> (Bool, Bool, Bool) in
            guard state.generation == generation else { return (false, false, false) }
            let pause = state.pauseAtWord && !last
            if pause {
                state.pauseAtWord = false
                state.paused = true
            }
            return (true, state.stopAtWord && !last, pause)
        }
        guard current else { return }
        if stop {
            if let dropped = state.withLock({ dropCurrent(&$0) }) { cancel(dropped) }
            return
        }
        if pause {
            player.pause()
            tell { $0.speechSynthesizer(self, didPause: utterance) }
        }
        if let word { tell { $0.speechSynthesizer(self, willSpeakRangeOfSpeechString: word, utterance: utterance) } }
        if last {
            tell { $0.speechSynthesizer(self, didFinish: utterance) }
            if utterance.postUtteranceDelay <= 0 || utterance.postUtteranceDelay.isNaN { finished(generation) }
        }
    }

    /// The utterance and its pause after are done: the next one begins.
    private func finished(_ generation: Int) {
        let next = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.current = nil
            return true
        }
        if next { work.async { self.speakNext() } }
    }

    /// Drops the utterance under way (under the lock): its callbacks then do nothing, the player stops.
    private func dropCurrent(_ state: inout State) -> AVSpeechUtterance? {
        let current = state.current
        state.current = nil
        state.generation += 1
        state.paused = false
        state.pauseAtWord = false
        state.stopAtWord = false
        return current
    }

    private func cancel(_ utterance: AVSpeechUtterance) {
        player.stop()
        tell { $0.speechSynthesizer(self, didCancel: utterance) }
        work.async { self.speakNext() }
    }

    /// Starts the engine (once) with the player at `rate` into its mixer; false (with the line said) when it cannot.
    private func startEngine(rate: Int) -> Bool {
        guard !engine.isRunning else { return true }
        engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: Double(rate), channels: 1))
        do {
            try engine.start()
            return true
        } catch {
            AVAudioEngine.noteRefusal("AVSpeechSynthesizer: \((error as NSError).localizedDescription)")
            return false
        }
    }

    /// Each word's place in `text` in UTF-16 units (NSRange's), from espeak-ng's Unicode scalar counts.
    static func utf16Ranges(_ text: String, _ words: [SpokenWord]) -> [NSRange] {
        var offsets = [0]
        for scalar in text.unicodeScalars { offsets.append(offsets.last! + (scalar.value > 0xFFFF ? 2 : 1)) }
        return words.map { word in
            let start = offsets[min(word.scalarOffset, offsets.count - 1)]
            let end = offsets[min(word.scalarOffset + word.scalarCount, offsets.count - 1)]
            return NSRange(location: start, length: end - start)
        }
    }

    /// Calls the delegate on the main queue.
    private func tell(_ message: @escaping @Sendable (AVSpeechSynthesizerDelegate) -> Void) {
        DispatchQueue.main.async { if let delegate = self.delegate { message(delegate) } }
    }
}

/// A write callback: Apple's type is not Sendable; it is called on one serial queue only.
private struct UncheckedBufferCallback: @unchecked Sendable {
    // @unchecked Sendable: called from the synthesizer's `writing` queue alone, one call at a time.
    let call: AVSpeechSynthesizer.BufferCallback
}

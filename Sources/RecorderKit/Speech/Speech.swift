// Text to speech with espeak-ng: its voices, and a text spoken into 16-bit samples with where each word
// begins, made whole before it is returned (espeak-ng synthesizes far faster than real time).
import Dispatch
import Locking

/// One of espeak-ng's voices.
public struct SpeechVoice: Sendable, Hashable {
    /// espeak-ng's identifier, its voice file ("gmw/en-US"): what `Speech.synthesize` takes.
    public let identifier: String
    /// Its name ("English (America)").
    public let name: String
    /// Its first language as a BCP 47 tag ("en-US", from espeak-ng's "en-us").
    public let language: String
    /// 1 male, 2 female, 0 not said.
    public let gender: Int
}

/// Where a word begins in spoken audio.
public struct SpokenWord: Sendable, Equatable {
    /// Its first character, counted in Unicode scalars from 0.
    public let scalarOffset: Int
    /// Its length in Unicode scalars.
    public let scalarCount: Int
    /// The frame of the audio where it begins.
    public let frame: Int
}

/// A text spoken: mono 16-bit samples at the voice's rate, and its words.
public struct SpokenAudio: Sendable {
    /// The speech, mono, 16-bit.
    public let samples: [Int16]
    /// Its rate: espeak-ng's (22 050 Hz).
    public let sampleRate: Int
    /// Its words, in order.
    public let words: [SpokenWord]
}

/// espeak-ng, loaded the first time it is used (`libespeak-ng.so.1`). espeak-ng keeps one synthesizer per
/// process: calls from several threads take turns (each waits for the one before).
public enum Speech {
    /// The synthesizer's rate once initialized, or why it could not be.
    private static let state = Locked<Result<Int, RecorderError>?>(nil)

    /// Loads and initializes espeak-ng (once), then runs `body` with it, under the lock.
    private static func withEspeak<T>(_ body: (EspeakLibrary, Int) throws(RecorderError) -> T) throws(RecorderError) -> T {
        let result = state.withLock { state -> Result<T, RecorderError> in
            if state == nil {
                state = Result { () throws(RecorderError) -> Int in
                    let espeak = try EspeakLibrary.loaded()
                    let rate = espeak.initialize(EspeakLibrary.synchronousOutput, 0, nil, EspeakLibrary.dontExit)
                    guard rate > 0 else {
                        throw RecorderError(.invalidState, "espeak-ng could not start (its voice data missing?): apt-get install espeak-ng-data")
                    }
                    espeak.setSynthCallback(collect)
                    return Int(rate)
                }
            }
            return Result { () throws(RecorderError) -> T in
                let rate = try state!.get()
                return try body(try EspeakLibrary.loaded(), rate)
            }
        }
        return try result.get()
    }

    /// espeak-ng's voices, in its order.
    /// - Throws: `.invalidState` when espeak-ng is not installed (saying what to install).
    public static func voices() throws(RecorderError) -> [SpeechVoice] {
        try withEspeak { espeak, _ in
            guard let list = espeak.listVoices(nil) else { return [] }
            var voices: [SpeechVoice] = []
            var index = 0
            while let voice = list[index] {
                index += 1
                func string(_ offset: Int) -> String {
                    voice.load(fromByteOffset: offset, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
                }
                // languages: a priority byte, then the name; the first is the voice's own.
                let languages = voice.load(fromByteOffset: EspeakLibrary.Voice.languages, as: UnsafePointer<CChar>?.self)
                let language = languages.map { String(cString: $0 + 1) } ?? ""
                voices.append(SpeechVoice(identifier: string(EspeakLibrary.Voice.identifier), name: string(EspeakLibrary.Voice.name),
                                          language: bcp47(language), gender: Int(voice.load(fromByteOffset: EspeakLibrary.Voice.gender, as: UInt8.self))))
            }
            return voices
        }
    }

    /// espeak-ng's "en-us" (or "en-gb-x-rp") as BCP 47's "en-US" ("en-GB-x-rp"): a two-letter region upper case.
    static func bcp47(_ language: String) -> String {
        var parts = language.split(separator: "-").map(String.init)
        if parts.count > 1, parts[1].count == 2 { parts[1] = parts[1].uppercased() }
        return parts.joined(separator: "-")
    }

    /// What the synthesis callback collects into (the user data of each call: the one under way).
    private final class Collector: @unchecked Sendable {
        // @unchecked Sendable: filled only by espeak-ng's callback, on the thread synthesizing (under
        // `state`'s lock), and read by that thread after espeak_Synth returns.
        let sampleRate: Int
        var samples: [Int16] = []
        var words: [SpokenWord] = []
        init(sampleRate: Int) { self.sampleRate = sampleRate }
    }

    /// The collector of the synthesis under way (set and cleared around espeak_Synth, under `state`'s lock).
    private static let underWay = Locked<Collector?>(nil)

    /// espeak-ng's callback: appends the samples, and a word for each word event (at its audio position,
    /// milliseconds from the start, as frames). Called on the thread that called espeak_Synth, under
    /// `state`'s lock.
    private static let collect: EspeakLibrary.SynthCallback = { wav, count, events in
        guard let collector = underWay.withLock({ $0 }) else { return 0 }
        if var at = events {
            while at.load(as: Int32.self) != EspeakLibrary.listEnd {
                if at.load(as: Int32.self) == EspeakLibrary.wordEvent {
                    let position = Int(at.load(fromByteOffset: EspeakLibrary.Event.textPosition, as: Int32.self))
                    let length = Int(at.load(fromByteOffset: EspeakLibrary.Event.length, as: Int32.self))
                    let milliseconds = Int(at.load(fromByteOffset: EspeakLibrary.Event.audioPosition, as: Int32.self))
                    collector.words.append(SpokenWord(scalarOffset: max(0, position - 1), scalarCount: max(0, length),
                                                      frame: max(0, milliseconds) * collector.sampleRate / 1_000))
                }
                at += EspeakLibrary.Event.size
            }
        }
        if let wav, count > 0 { collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
        return 0
    }

    /// `text` spoken by `voice` (an identifier from `voices()`, or a language espeak-ng knows: "en-us",
    /// "de"; nil: its default, English), at `wordsPerMinute` (80…450; 175 normal), `pitch` (0…100; 50
    /// normal) and `volume` (0…200; 100 normal), each clamped. Any thread; waits for others speaking.
    /// - Throws: `.invalidState` when espeak-ng is not installed; `.invalidState` also for a voice it does
    ///   not have (saying how to list them).
    public static func synthesize(_ text: String, voice: String? = nil, wordsPerMinute: Int = 175, pitch: Int = 50,
                                  volume: Int = 100) throws(RecorderError) -> SpokenAudio {
        try withEspeak { espeak, rate throws(RecorderError) in
            let chosen = voice ?? "en"
            guard espeak.setVoiceByName(chosen) == 0 else {
                throw RecorderError(.invalidState, "espeak-ng has no voice \(chosen): `espeak-ng --voices` lists them")
            }
            _ = espeak.setParameter(EspeakLibrary.rate, Int32(min(450, max(80, wordsPerMinute))), 0)
            _ = espeak.setParameter(EspeakLibrary.pitch, Int32(min(100, max(0, pitch))), 0)
            _ = espeak.setParameter(EspeakLibrary.volume, Int32(min(200, max(0, volume))), 0)
            let collector = Collector(sampleRate: rate)
            let bytes = Array(text.utf8) + [0]
            underWay.withLock { $0 = collector }
            let status = bytes.withUnsafeBytes {
                espeak.synth($0.baseAddress!, $0.count, 0, EspeakLibrary.byCharacter, 0, EspeakLibrary.charactersUTF8, nil, nil)
            }
            underWay.withLock { $0 = nil }
            guard status == 0 else { throw RecorderError(.invalidState, "espeak-ng could not speak the text (its error \(status))") }
            return SpokenAudio(samples: collector.samples, sampleRate: rate, words: collector.words)
        }
    }
}

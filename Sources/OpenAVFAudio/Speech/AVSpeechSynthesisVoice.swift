// AVSpeechSynthesisVoice: espeak-ng's voices under Apple's names (language, name, identifier).
import Foundation
import RecorderKit

public enum AVSpeechSynthesisVoiceQuality: Int, Sendable {
    case `default` = 1
    case enhanced = 2
    case premium = 3
}

public enum AVSpeechSynthesisVoiceGender: Int, Sendable {
    case unspecified = 0
    case male = 1
    case female = 2
}

/// Apple's Alex voice's identifier: no voice has it here (`init(identifier:)` gives nil, as on a system
/// without the voice).
public let AVSpeechSynthesisVoiceIdentifierAlex = "com.apple.speech.synthesis.voice.Alex"

/// A voice: one of espeak-ng's (RecorderKit's `Speech.voices()`). Immutable.
open class AVSpeechSynthesisVoice: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every field is set in init and never changed.
    /// Its language as a BCP 47 tag ("en-US").
    public let language: String
    /// espeak-ng's name for it ("English (America)").
    public let name: String
    /// "espeak-ng." and espeak-ng's voice file ("espeak-ng.gmw/en-US").
    public let identifier: String
    /// `.default`: espeak-ng's voices come in one quality.
    public let quality = AVSpeechSynthesisVoiceQuality.default
    public let gender: AVSpeechSynthesisVoiceGender
    /// espeak-ng's own identifier, which `Speech.synthesize` takes.
    let espeakIdentifier: String

    private init(_ voice: SpeechVoice) {
        language = voice.language
        name = voice.name
        identifier = "espeak-ng." + voice.identifier
        gender = AVSpeechSynthesisVoiceGender(rawValue: voice.gender) ?? .unspecified
        espeakIdentifier = voice.identifier
        super.init()
    }

    /// Every voice (none when espeak-ng is not installed).
    open class func speechVoices() -> [AVSpeechSynthesisVoice] { ((try? Speech.voices()) ?? []).map(AVSpeechSynthesisVoice.init) }

    /// The user's language, from LANG (LC_ALL, LC_MESSAGES first) as BCP 47 ("en_GB.UTF-8": "en-GB");
    /// "en-US" when none is set or it is C/POSIX.
    open class func currentLanguageCode() -> String {
        let environment = ProcessInfo.processInfo.environment
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let code = locale.split(separator: ".").first.map(String.init) ?? ""
        guard !code.isEmpty, code != "C", code != "POSIX" else { return "en-US" }
        return code.replacingOccurrences(of: "_", with: "-")
    }

    /// A voice for `languageCode` ("en-US"; nil: the user's): one of exactly that language (letter case
    /// and "_" aside), else one of its first part ("en"); nil when there is none.
    public convenience init?(language languageCode: String?) {
        let wanted = (languageCode ?? Self.currentLanguageCode()).replacingOccurrences(of: "_", with: "-").lowercased()
        let voices = (try? Speech.voices()) ?? []
        let primary = wanted.split(separator: "-").first.map(String.init) ?? wanted
        guard let voice = voices.first(where: { $0.language.lowercased() == wanted })
                ?? voices.first(where: { $0.language.lowercased() == primary })
                ?? voices.first(where: { $0.language.lowercased().hasPrefix(primary + "-") }) else { return nil }
        self.init(voice)
    }

    /// The voice with `identifier` (`identifier`'s form, or espeak-ng's own "gmw/en-US"); nil if none.
    public convenience init?(identifier: String) {
        let voices = (try? Speech.voices()) ?? []
        guard let voice = voices.first(where: { "espeak-ng." + $0.identifier == identifier || $0.identifier == identifier }) else { return nil }
        self.init(voice)
    }

    /// What `AVSpeechSynthesizer.write` gives: mono 32-bit float at espeak-ng's rate (22 050 Hz).
    open var audioFileSettings: [String: Any] {
        [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 22_050.0, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 32,
         AVLinearPCMIsFloatKey: true, AVLinearPCMIsNonInterleaved: true]
    }
}

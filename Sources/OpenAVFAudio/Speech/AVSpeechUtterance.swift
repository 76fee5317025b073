// AVSpeechUtterance: a text and how to speak it (voice, rate, pitch, volume, the pauses around it).
import Foundation

public let AVSpeechUtteranceMinimumSpeechRate: Float = 0
public let AVSpeechUtteranceMaximumSpeechRate: Float = 1
public let AVSpeechUtteranceDefaultSpeechRate: Float = 0.5

/// A text to speak and how. Its settings are read when it starts to be spoken; set them before `speak`.
open class AVSpeechUtterance: NSObject, @unchecked Sendable {
    // @unchecked Sendable: as Apple's, it is handed to the synthesizer and not changed after; each field
    // is a value read once when speaking starts.
    public let speechString: String
    public let attributedSpeechString: NSAttributedString
    /// The voice (nil: the one for the user's language, `AVSpeechSynthesisVoice(language: nil)`).
    public var voice: AVSpeechSynthesisVoice?
    /// 0…1 (0.5 normal): 0 is espeak-ng's slowest (80 words a minute), 0.5 its normal 175, 1 its fastest
    /// 450, straight lines between (clamped; NaN: 0.5).
    public var rate: Float = AVSpeechUtteranceDefaultSpeechRate
    /// 0.5…2 (1 normal): espeak-ng's pitch 50 times it, 0…100 (clamped; NaN: 1).
    public var pitchMultiplier: Float = 1
    /// 0…1 (1 normal): espeak-ng's volume, 0…100 (clamped; NaN: 1).
    public var volume: Float = 1
    /// Seconds of silence before the speech (`speak` only; clamped to 0…60).
    public var preUtteranceDelay: TimeInterval = 0
    /// Seconds of silence after it, before the next utterance (`speak` only; clamped to 0…60).
    public var postUtteranceDelay: TimeInterval = 0
    /// Kept: there are no assistive-technology settings to prefer here.
    public var prefersAssistiveTechnologySettings = false

    public init(string: String) {
        speechString = string
        attributedSpeechString = NSAttributedString(string: string)
        super.init()
    }

    public init(attributedString string: NSAttributedString) {
        speechString = string.string
        attributedSpeechString = string
        super.init()
    }

    /// espeak-ng's words a minute for `rate`.
    var wordsPerMinute: Int {
        let rate = rate.isNaN ? 0.5 : Double(min(1, max(0, rate)))
        return Int((rate <= 0.5 ? 80 + rate / 0.5 * 95 : 175 + (rate - 0.5) / 0.5 * 275).rounded())
    }
    var espeakPitch: Int { Int((50 * Double(pitchMultiplier.isNaN ? 1 : min(2, max(0.5, pitchMultiplier)))).rounded()) }
    var espeakVolume: Int { Int((100 * Double(volume.isNaN ? 1 : min(1, max(0, volume)))).rounded()) }
    static func delay(_ seconds: TimeInterval) -> TimeInterval { seconds.isNaN ? 0 : min(60, max(0, seconds)) }
}

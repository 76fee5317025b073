// The settings dictionary's keys (AVFormatIDKey, AVSampleRateKey, …), AVAudioQuality, and how a
// dictionary's values are read whatever numeric type the caller wrote them in.
import Foundation

public let AVFormatIDKey = "AVFormatIDKey"
public let AVSampleRateKey = "AVSampleRateKey"
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"
public let AVEncoderAudioQualityKey = "AVEncoderAudioQualityKey"
public let AVEncoderBitRateKey = "AVEncoderBitRateKey"
public let AVEncoderBitDepthHintKey = "AVEncoderBitDepthHintKey"
/// How an encoder spends its bits (one of the four strategies below): AVAudioFile gives it to libsndfile's
/// MP3 and Opus encoders (constant, average; variable for both variable ones); linear PCM and FLAC ignore it.
public let AVEncoderBitRateStrategyKey = "AVEncoderBitRateStrategyKey"
public let AVEncoderBitRatePerChannelKey = "AVEncoderBitRatePerChannelKey"
public let AVAudioBitRateStrategy_Constant = "AVAudioBitRateStrategy_Constant"
public let AVAudioBitRateStrategy_LongTermAverage = "AVAudioBitRateStrategy_LongTermAverage"
public let AVAudioBitRateStrategy_VariableConstrained = "AVAudioBitRateStrategy_VariableConstrained"
public let AVAudioBitRateStrategy_Variable = "AVAudioBitRateStrategy_Variable"
public let AVSampleRateConverterAudioQualityKey = "AVSampleRateConverterAudioQualityKey"
public let AVChannelLayoutKey = "AVChannelLayoutKey"

/// An encoder's quality, as AVEncoderAudioQualityKey takes it.
public enum AVAudioQuality: Int, Sendable {
    case min = 0
    case low = 0x20
    case medium = 0x40
    case high = 0x60
    case max = 0x7F
}

/// Reads a settings dictionary: a number given as any integer or floating type, an NSNumber, a Bool or an
/// AVAudioQuality.
struct SettingsReader {
    let settings: [String: Any]

    func number(_ key: String) -> Double? {
        switch settings[key] {
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as Int: Double(value)
        case let value as UInt32: Double(value)
        case let value as Int32: Double(value)
        case let value as UInt: Double(value)
        case let value as Int64: Double(value)
        case let value as UInt64: Double(value)
        case let value as Bool: value ? 1 : 0
        case let value as AVAudioQuality: Double(value.rawValue)
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }

    func flag(_ key: String) -> Bool? { number(key).map { $0 != 0 } }

    /// The format ID (kAudioFormatLinearPCM when not given).
    var formatID: AudioFormatID {
        guard let value = number(AVFormatIDKey), value >= 0, value <= Double(UInt32.max) else { return kAudioFormatLinearPCM }
        return AudioFormatID(value)
    }
}

// AVAudioConverter: linear PCM from one format to another — sample type, interleaving, channel count
// (Apple's channel map and downmix) and sample rate (libsoxr) — pulling its input from a block as Apple's
// does, or buffer to buffer at one rate.
import Foundation
import OpenAudioToolbox

/// What an input block says of the buffer it returns.
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The buffer holds input.
    case haveData = 0
    /// No input now; more may come later (the converter returns `.inputRanDry`).
    case noDataNow = 1
    /// No more input will come: the converter gives out its tail.
    case endOfStream = 2
}

/// What a conversion produced.
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer holds converted frames (it was filled, or the stream ended after some).
    case haveData = 0
    /// The block had no data now; the output holds what could be converted.
    case inputRanDry = 1
    /// The stream had ended: no frames.
    case endOfStream = 2
    /// The conversion failed; the error says why.
    case error = 3
}

/// How the rate converter is primed with frames before and after the stream.
public enum AVAudioConverterPrimeMethod: Int, Sendable {
    /// The first `primeInfo.leadingFrames` input frames are priming: their output is dropped.
    case pre = 0
    /// Leading frames are taken as silence and the output starts with the first input frame (no latency).
    case normal = 1
    /// Leading and trailing frames are taken as silence: the output is delayed by `primeInfo.leadingFrames`.
    case none = 2
}

/// The priming frames of a rate conversion.
public struct AVAudioConverterPrimeInfo: Sendable, Equatable {
    public var leadingFrames: AVAudioFrameCount
    public var trailingFrames: AVAudioFrameCount
    public init() { leadingFrames = 0; trailingFrames = 0 }
    public init(leadingFrames: AVAudioFrameCount, trailingFrames: AVAudioFrameCount) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
}

/// Where Foundation on Apple's systems declares an `NSError` out-parameter; `&error` passes one here too.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// Gives the converter up to `inNumberOfPackets` frames of input (it may give fewer, or more), and says in
/// `outStatus` whether it did.
public typealias AVAudioConverterInputBlock =
    (_ inNumberOfPackets: AVAudioPacketCount, _ outStatus: UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

public let AVSampleRateConverterAlgorithm_Normal = "normal"
public let AVSampleRateConverterAlgorithm_Mastering = "mastering"
public let AVSampleRateConverterAlgorithm_MinimumPhase = "minimumPhase"

/// Converts linear PCM between formats: float32, float64, int16 and int32, interleaved or not, 1–32
/// channels, any two rates (OpenAudioToolbox's PCMConverter, the one Audio Converter Services use).
/// Compressed formats are refused (`init` returns nil, and `OpenAVFAudioLastErrorMessage()` says why).
/// Use from one thread at a time, as Apple's.
open class AVAudioConverter: NSObject {
    public let inputFormat: AVAudioFormat
    public let outputFormat: AVAudioFormat
    private let converter: PCMConverter

    /// For each output channel, the input channel it takes (−1: silence). By default input channel n goes
    /// to output channel n; a mono input goes to every output channel; extra output channels are silent.
    public var channelMap: [NSNumber] {
        get { converter.channelMap.map { NSNumber(value: $0) } }
        set { converter.channelMap = newValue.map(\.intValue) }
    }

    /// When there are fewer output channels than input ones: mix every input channel into the outputs
    /// (each output the mean of the inputs it stands for) instead of dropping the extra ones.
    public var downmix: Bool {
        get { converter.downmix }
        set { converter.downmix = newValue }
    }

    /// Kept; integer output is rounded to the nearest value without dither.
    public var dither = false

    /// Apple's quality values (`AVAudioQuality`'s raw values, 0…127): below 0x20 soxr's quick interpolation,
    /// below 0x40 its low, below 0x60 its medium, below 0x7F its high (20-bit) and 0x7F its very high (28-bit,
    /// as `sox rate -v`). Default `high`. Takes effect at the next `reset()` or the first conversion.
    public var sampleRateConverterQuality: Int {
        get { converter.quality }
        set { converter.quality = max(0, min(0x7F, newValue)) }
    }

    /// `AVSampleRateConverterAlgorithm_Normal` (default), `_Mastering` (a steeper linear-phase filter) or
    /// `_MinimumPhase`; nil is normal.
    public var sampleRateConverterAlgorithm: String? {
        didSet {
            converter.phase = switch sampleRateConverterAlgorithm {
            case AVSampleRateConverterAlgorithm_Mastering: .steep
            case AVSampleRateConverterAlgorithm_MinimumPhase: .minimum
            default: .linear
            }
        }
    }

    /// How a rate conversion is primed. Default `.normal`: output aligned with input, no latency.
    public var primeMethod: AVAudioConverterPrimeMethod {
        get { AVAudioConverterPrimeMethod(rawValue: Int(converter.primeMethod)) ?? .normal }
        set { converter.primeMethod = UInt32(newValue.rawValue) }
    }

    /// The priming frames, at the input rate. 0 and 0 by default: libsoxr needs none (it aligns its output
    /// with its input and gives out its tail at the end of the stream). Set, they are honoured: `.pre` drops
    /// the output of the first `leadingFrames`, `.none` delays the output by as many.
    public var primeInfo: AVAudioConverterPrimeInfo {
        get { AVAudioConverterPrimeInfo(leadingFrames: converter.primeLeadingFrames, trailingFrames: converter.primeTrailingFrames) }
        set {
            converter.primeLeadingFrames = newValue.leadingFrames
            converter.primeTrailingFrames = newValue.trailingFrames
        }
    }

    /// Nil: linear PCM has no magic cookie.
    public var magicCookie: Data?

    /// A converter between two linear PCM formats; nil for any other (the reason in
    /// `OpenAVFAudioLastErrorMessage()`).
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard let converter = PCMConverter(from: fromFormat.streamDescription.pointee, to: toFormat.streamDescription.pointee) else {
            let side = fromFormat.commonFormat == .otherFormat ? fromFormat : toFormat
            AVAudioEngine.noteRefusal("cannot convert \(side === fromFormat ? "from" : "to") \(side): AVAudioConverter on Linux "
                + "converts linear PCM only (float32, float64, int16, int32); decode or encode with AVAudioFile or RecorderKit")
            return nil
        }
        inputFormat = fromFormat
        outputFormat = toFormat
        self.converter = converter
        super.init()
    }

    /// Forgets the stream: the next input starts afresh (priming again).
    public func reset() { converter.reset() }

    // MARK: Converting

    /// Converts `inputBuffer` into `outputBuffer` at one rate (sample type, interleaving, channels):
    /// `min(input frameLength, output frameCapacity)` frames. Throws when the rates differ (use
    /// `convert(to:error:withInputFrom:)`) or the buffers are not of the converter's formats.
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard !converter.rateChanges else {
            throw statusError(kAudioConverterErr_OperationNotSupported,
                "cannot convert \(inputFormat.sampleRate) Hz to \(outputFormat.sampleRate) Hz buffer to buffer: the rates differ; "
                + "use convert(to:error:withInputFrom:), which pulls input as the rate conversion needs it")
        }
        guard inputBuffer.format == inputFormat, outputBuffer.format == outputFormat else {
            throw statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert a buffer of \(inputBuffer.format) into one of \(outputBuffer.format): the converter takes "
                + "\(inputFormat) to \(outputFormat); make a converter for these formats")
        }
        let frames = Int(min(inputBuffer.frameLength, outputBuffer.frameCapacity))
        var given = false
        converter.reset()
        let (written, _) = converter.fill(outputBuffer.mutableAudioBufferList, capacity: frames) { _ in
            defer { given = true }
            return given ? .noDataNow : .data(UnsafeMutablePointer(mutating: inputBuffer.audioBufferList), frames: frames)
        }
        converter.reset()
        outputBuffer.frameLength = AVAudioFrameCount(written)
    }

    /// Fills `outputBuffer` (up to its capacity) with converted frames, asking `inputBlock` for input as
    /// needed: `.haveData` when it was filled or the stream ended after some frames, `.inputRanDry` when
    /// the block had nothing now, `.endOfStream` when the stream had ended, `.error` (with `outError`) for
    /// a buffer of the wrong kind or format.
    @discardableResult
    public func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                        withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        guard let output = outputBuffer as? AVAudioPCMBuffer, output.format == outputFormat else {
            outError?.pointee = statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert into \((outputBuffer as? AVAudioPCMBuffer).map { "a buffer of \($0.format)" } ?? "a buffer that holds no PCM"): "
                + "give an AVAudioPCMBuffer of the output format, \(outputFormat)")
            return .error
        }
        var refusal: String?
        let (written, ending) = converter.fill(output.mutableAudioBufferList, capacity: Int(output.frameCapacity)) { wanted in
            if pendingEnd {
                pendingEnd = false
                return .endOfStream
            }
            var status = AVAudioConverterInputStatus.haveData
            let given = inputBlock(AVAudioPacketCount(clamping: wanted), &status)
            // The converter reads the buffer's list after this returns: it must outlive the pull.
            heldInput = given
            switch status {
            case .noDataNow: return .noDataNow
            case .endOfStream:
                // A buffer given with the end is taken first, then the end.
                if let buffer = given as? AVAudioPCMBuffer, buffer.format == inputFormat, buffer.frameLength > 0 {
                    pendingEnd = true
                    return .data(UnsafeMutablePointer(mutating: buffer.audioBufferList), frames: Int(buffer.frameLength))
                }
                return .endOfStream
            case .haveData:
                guard let buffer = given as? AVAudioPCMBuffer, buffer.format == inputFormat else {
                    refusal = given == nil ? "the input block said it had data and gave no buffer: give a buffer, or say .noDataNow or .endOfStream"
                                           : "the input block gave a buffer of \(given!.format): the converter's input format is \(inputFormat)"
                    return .failed(kAudioConverterErr_FormatNotSupported)
                }
                return .data(UnsafeMutablePointer(mutating: buffer.audioBufferList), frames: Int(buffer.frameLength))
            }
        }
        output.frameLength = AVAudioFrameCount(written)
        heldInput = nil
        switch ending {
        case .filled: return .haveData
        case .ranDry: return .inputRanDry
        case .ended: return written > 0 ? .haveData : .endOfStream
        case .failed(let status):
            outError?.pointee = statusError(status, refusal ?? "the conversion failed with status \(status)")
            return .error
        }
    }

    /// A buffer came with `.endOfStream`: the next pull is the end.
    private var pendingEnd = false
    /// The last buffer the input block gave, kept until the next pull (its memory is being read).
    private var heldInput: AVAudioBuffer?
}

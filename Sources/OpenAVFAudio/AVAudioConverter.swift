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
/// channels, any two rates. Compressed formats are refused (`init` returns nil, and
/// `OpenAVFAudioLastErrorMessage()` says why). Use from one thread at a time, as Apple's.
open class AVAudioConverter: NSObject {
    public let inputFormat: AVAudioFormat
    public let outputFormat: AVAudioFormat

    /// For each output channel, the input channel it takes (−1: silence). By default input channel n goes
    /// to output channel n; a mono input goes to every output channel; extra output channels are silent.
    public var channelMap: [NSNumber] {
        didSet { pipelineChanged() }
    }

    /// When there are fewer output channels than input ones: mix every input channel into the outputs
    /// (each output the mean of the inputs it stands for) instead of dropping the extra ones.
    public var downmix = false {
        didSet { pipelineChanged() }
    }

    /// Kept; integer output is rounded to the nearest value without dither.
    public var dither = false

    /// Apple's quality values (`AVAudioQuality`'s raw values, 0…127): below 0x20 soxr's quick interpolation,
    /// below 0x40 its low, below 0x60 its medium, below 0x7F its high (20-bit) and 0x7F its very high (28-bit,
    /// as `sox rate -v`). Default `high`. Takes effect at the next `reset()` or the first conversion.
    public var sampleRateConverterQuality: Int = AVAudioQuality.high.rawValue {
        didSet { pipelineChanged() }
    }

    /// `AVSampleRateConverterAlgorithm_Normal` (default), `_Mastering` (a steeper linear-phase filter) or
    /// `_MinimumPhase`; nil is normal.
    public var sampleRateConverterAlgorithm: String? {
        didSet { pipelineChanged() }
    }

    /// How a rate conversion is primed. Default `.normal`: output aligned with input, no latency.
    public var primeMethod: AVAudioConverterPrimeMethod = .normal {
        didSet { pipelineChanged() }
    }

    /// The priming frames, at the input rate. 0 and 0 by default: libsoxr needs none (it aligns its output
    /// with its input and gives out its tail at the end of the stream). Set, they are honoured: `.pre` drops
    /// the output of the first `leadingFrames`, `.none` delays the output by as many.
    public var primeInfo = AVAudioConverterPrimeInfo() {
        didSet { pipelineChanged() }
    }

    /// Nil: linear PCM has no magic cookie.
    public var magicCookie: Data?

    private var resampler: Resampler?
    private var resamplerReady = false
    /// Converted frames (interleaved floats at the output's channel count and rate) not yet given out.
    private var pending: [Float] = []
    private var pendingStart = 0
    /// Output frames still to drop (`.pre`) or silent frames still to give (`.none`).
    private var toDrop = 0
    private var ended = false

    /// A converter between two linear PCM formats; nil for any other (the reason in
    /// `OpenAVFAudioLastErrorMessage()`).
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        for (format, side) in [(fromFormat, "input"), (toFormat, "output")] where format.commonFormat == .otherFormat {
            AVAudioEngine.noteRefusal("cannot convert \(side == "input" ? "from" : "to") \(format): AVAudioConverter on Linux "
                + "converts linear PCM only (float32, float64, int16, int32); decode or encode with AVAudioFile or RecorderKit")
            return nil
        }
        inputFormat = fromFormat
        outputFormat = toFormat
        let inputs = Int(fromFormat.channelCount)
        channelMap = (0..<Int(toFormat.channelCount)).map { NSNumber(value: inputs == 1 ? 0 : ($0 < inputs ? $0 : -1)) }
        super.init()
        pipelineChanged()
    }

    /// Forgets the stream: the next input starts afresh (priming again).
    public func reset() {
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        ended = false
        resamplerReady = false
        toDrop = 0
    }

    private func pipelineChanged() { reset() }

    private var rateChanges: Bool { inputFormat.sampleRate != outputFormat.sampleRate }

    /// Makes the resampler for the current quality and algorithm, and the priming drop or delay.
    private func prepare() -> Bool {
        guard !resamplerReady else { return true }
        resamplerReady = true
        guard rateChanges else { resampler = nil; return true }
        let quality: Resampler.Quality = switch sampleRateConverterQuality {
        case ..<AVAudioQuality.low.rawValue: .min
        case ..<AVAudioQuality.medium.rawValue: .low
        case ..<AVAudioQuality.high.rawValue: .medium
        case ..<AVAudioQuality.max.rawValue: .high
        default: .max
        }
        let phase: Resampler.Phase = switch sampleRateConverterAlgorithm {
        case AVSampleRateConverterAlgorithm_Mastering: .steep
        case AVSampleRateConverterAlgorithm_MinimumPhase: .minimum
        default: .linear
        }
        resampler = Resampler(from: inputFormat.sampleRate, to: outputFormat.sampleRate, channels: Int(outputFormat.channelCount),
                              quality: quality, phase: phase)
        let leading = Double(primeInfo.leadingFrames) * outputFormat.sampleRate / inputFormat.sampleRate
        switch primeMethod {
        case .pre: toDrop = Int(leading.rounded())
        case .none:
            pending.append(contentsOf: repeatElement(0, count: Int(leading.rounded()) * Int(outputFormat.channelCount)))
        case .normal: break
        }
        return resampler != nil
    }

    // MARK: Converting

    /// Converts `inputBuffer` into `outputBuffer` at one rate (sample type, interleaving, channels):
    /// `min(input frameLength, output frameCapacity)` frames. Throws when the rates differ (use
    /// `convert(to:error:withInputFrom:)`) or the buffers are not of the converter's formats.
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard !rateChanges else {
            throw statusError(kAudioConverterErr_OperationNotSupported,
                "cannot convert \(inputFormat.sampleRate) Hz to \(outputFormat.sampleRate) Hz buffer to buffer: the rates differ; "
                + "use convert(to:error:withInputFrom:), which pulls input as the rate conversion needs it")
        }
        try checkFormats(output: outputBuffer, input: inputBuffer)
        let frames = Int(min(inputBuffer.frameLength, outputBuffer.frameCapacity))
        var mapped = [Float]()
        map(inputBuffer, frames: frames, into: &mapped)
        write(mapped, from: 0, frames: frames, into: outputBuffer, at: 0)
        outputBuffer.frameLength = AVAudioFrameCount(frames)
    }

    /// Fills `outputBuffer` (up to its capacity) with converted frames, asking `inputBlock` for input as
    /// needed: `.haveData` when it was filled or the stream ended after some frames, `.inputRanDry` when
    /// the block had nothing now, `.endOfStream` when the stream had ended, `.error` (with `outError`) for
    /// a buffer of the wrong kind or format.
    public func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                        withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        guard let output = outputBuffer as? AVAudioPCMBuffer else {
            outError?.pointee = statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert into a buffer that holds no PCM: give an AVAudioPCMBuffer of the output format")
            return .error
        }
        guard output.format == outputFormat else {
            outError?.pointee = statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert into a buffer of \(output.format): the converter's output format is \(outputFormat)")
            return .error
        }
        guard prepare() else {
            outError?.pointee = statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert \(inputFormat.sampleRate) Hz to \(outputFormat.sampleRate) Hz: the resampler refused the rates")
            return .error
        }
        let capacity = Int(output.frameCapacity)
        let channels = Int(outputFormat.channelCount)
        var produced = 0
        var mapped = [Float]()
        while true {
            produced += takePending(into: output, at: produced, room: capacity - produced, channels: channels)
            if produced == capacity { break }
            if ended {
                output.frameLength = AVAudioFrameCount(produced)
                return produced > 0 ? .haveData : .endOfStream
            }
            let wanted = rateChanges ? Double(capacity - produced) / (outputFormat.sampleRate / inputFormat.sampleRate)
                                     : Double(capacity - produced)
            var status = AVAudioConverterInputStatus.haveData
            let given = inputBlock(AVAudioPacketCount(clamping: Int(min(wanted.rounded(.up) + 1, 1e9))), &status)
            switch status {
            case .noDataNow:
                output.frameLength = AVAudioFrameCount(produced)
                return .inputRanDry
            case .endOfStream:
                ended = true
                if let given = given as? AVAudioPCMBuffer, given.format == inputFormat, given.frameLength > 0 {
                    add(given, mapped: &mapped)
                }
                resampler?.flush(into: &pending)
            case .haveData:
                guard let given = given as? AVAudioPCMBuffer, given.format == inputFormat else {
                    outError?.pointee = statusError(kAudioConverterErr_FormatNotSupported,
                        given == nil ? "the input block said it had data and gave no buffer: give a buffer, or say .noDataNow or .endOfStream"
                                     : "the input block gave a buffer of \(given!.format): the converter's input format is \(inputFormat)")
                    output.frameLength = AVAudioFrameCount(produced)
                    return .error
                }
                add(given, mapped: &mapped)
            }
        }
        output.frameLength = AVAudioFrameCount(produced)
        return .haveData
    }

    /// Maps `buffer`'s channels and resamples them onto the pending frames.
    private func add(_ buffer: AVAudioPCMBuffer, mapped: inout [Float]) {
        let frames = Int(buffer.frameLength)
        mapped.removeAll(keepingCapacity: true)
        map(buffer, frames: frames, into: &mapped)
        if let resampler {
            mapped.withUnsafeBufferPointer { resampler.process($0, into: &pending) }
        } else {
            pending.append(contentsOf: mapped)
        }
    }

    /// Gives out up to `room` pending frames into `output` from frame `at`, after dropping priming frames.
    private func takePending(into output: AVAudioPCMBuffer, at start: Int, room: Int, channels: Int) -> Int {
        var available = (pending.count - pendingStart) / channels
        if toDrop > 0 {
            let dropped = min(toDrop, available)
            pendingStart += dropped * channels
            toDrop -= dropped
            available -= dropped
        }
        let frames = min(room, available)
        if frames > 0 {
            write(pending, from: pendingStart, frames: frames, into: output, at: start)
            pendingStart += frames * channels
        }
        if pendingStart > 0 && pendingStart * 2 >= pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return frames
    }

    /// Appends `frames` frames of `buffer` as interleaved floats at the output's channel count, through the
    /// channel map (or the downmix).
    private func map(_ buffer: AVAudioPCMBuffer, frames: Int, into mapped: inout [Float]) {
        let outputs = Int(outputFormat.channelCount)
        let inputs = Int(inputFormat.channelCount)
        let sources = channelMap.map(\.intValue)
        let start = mapped.count
        mapped.append(contentsOf: repeatElement(0, count: frames * outputs))
        if downmix && outputs < inputs {
            // Output channel o is the mean of input channels o, o + outputs, o + 2·outputs, …
            for output in 0..<outputs {
                let group = Swift.stride(from: output, to: inputs, by: outputs).map { $0 }
                let scale = 1 / Float(group.count)
                for frame in 0..<frames {
                    var sum: Float = 0
                    for input in group { sum += buffer.sample(channel: input, frame: frame) }
                    mapped[start + frame * outputs + output] = sum * scale
                }
            }
            return
        }
        for output in 0..<outputs {
            let input = output < sources.count ? sources[output] : -1
            guard input >= 0, input < inputs else { continue }
            for frame in 0..<frames {
                mapped[start + frame * outputs + output] = buffer.sample(channel: input, frame: frame)
            }
        }
    }

    /// Writes `frames` interleaved frames of `samples` from index `from` into `buffer` from frame `at`.
    private func write(_ samples: [Float], from: Int, frames: Int, into buffer: AVAudioPCMBuffer, at start: Int) {
        let channels = Int(outputFormat.channelCount)
        for frame in 0..<frames {
            for channel in 0..<channels {
                buffer.setSample(samples[from + frame * channels + channel], channel: channel, frame: start + frame)
            }
        }
    }

    private func checkFormats(output: AVAudioPCMBuffer, input: AVAudioPCMBuffer) throws {
        guard input.format == inputFormat, output.format == outputFormat else {
            throw statusError(kAudioConverterErr_FormatNotSupported,
                "cannot convert a buffer of \(input.format) into one of \(output.format): the converter takes "
                + "\(inputFormat) to \(outputFormat); make a converter for these formats")
        }
    }
}

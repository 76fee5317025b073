// The converter behind AVAudioConverter, Audio Converter Services and Extended Audio File Services: linear
// PCM of one format to another — sample type and byte order, interleaving, channels (a channel map or a
// downmix) and rate (libsoxr) — pulling its input as the output needs it.
import Foundation
import Locking

/// Converts a stream of one linear PCM format into another. Its state is not locked here: Audio Converter
/// Services take `lock` around every call (recursive: an input procedure may call back, to reset it), and
/// AVAudioConverter keeps its own converter to itself (used from one thread at a time, as Apple's).
package final class PCMConverter: @unchecked Sendable {
    // @unchecked Sendable: shared only through Audio Converter Services' registry, whose calls all hold `lock`.
    package let lock = PosixMutex(recursive: true)
    /// What a pull for input returned.
    package enum Pull {
        /// `frames` frames in `list` (valid until the next pull).
        case data(UnsafeMutablePointer<AudioBufferList>, frames: Int)
        /// No input now; more may come.
        case noDataNow
        /// No more input: the converter gives out its tail.
        case endOfStream
        /// The input failed with this status: the fill stops and returns it.
        case failed(OSStatus)
    }

    /// How a fill ended.
    package enum Ending: Equatable {
        /// The output is full.
        case filled
        /// The input had nothing now.
        case ranDry
        /// The stream has ended and everything was given out.
        case ended
        /// The input failed (its status), or gave a list that does not fit its format.
        case failed(OSStatus)
    }

    package let inputFormat: AudioStreamBasicDescription
    package let outputFormat: AudioStreamBasicDescription
    private let input: SampleCodec
    private let output: SampleCodec

    /// For each output channel, the input channel it takes (−1: silence). Default: channel n to n; a mono
    /// input to every output channel.
    package var channelMap: [Int] { didSet { reset() } }
    /// With fewer output than input channels: output channel o is the mean of inputs o, o + outputs, …
    package var downmix = false { didSet { reset() } }
    /// Apple's quality value (0…127) and algorithm, read when the rate conversion is made.
    package var quality = 0x60 { didSet { reset() } }
    package var phase = Resampler.Phase.linear { didSet { reset() } }
    /// Apple's prime method (0 pre, 1 normal, 2 none) and the leading frames it drops or delays by.
    package var primeMethod: UInt32 = 1 { didSet { reset() } }
    package var primeLeadingFrames: UInt32 = 0 { didSet { reset() } }
    package var primeTrailingFrames: UInt32 = 0

    private var resampler: Resampler?
    private var ready = false
    /// Converted frames (interleaved floats at the output's channels and rate) not yet given out.
    private var pending: [Float] = []
    private var pendingStart = 0
    private var toDrop = 0
    private var ended = false
    private var mapped: [Float] = []

    /// A converter between two linear PCM formats (see `SampleCodec`); nil for any other.
    package init?(from inputFormat: AudioStreamBasicDescription, to outputFormat: AudioStreamBasicDescription) {
        guard let input = SampleCodec(inputFormat), let output = SampleCodec(outputFormat) else { return nil }
        self.inputFormat = inputFormat
        self.outputFormat = outputFormat
        self.input = input
        self.output = output
        channelMap = (0..<output.channels).map { input.channels == 1 ? 0 : ($0 < input.channels ? $0 : -1) }
    }

    package var rateChanges: Bool { inputFormat.mSampleRate != outputFormat.mSampleRate }
    package var inputChannels: Int { input.channels }
    package var outputChannels: Int { output.channels }
    package var inputBytesPerFrame: Int { Int(inputFormat.mBytesPerFrame) }
    package var outputBytesPerFrame: Int { Int(outputFormat.mBytesPerFrame) }

    /// True when `list` holds `frames` frames of the input (or, `forOutput`, has room for them in the output).
    package func fits(_ list: UnsafeMutablePointer<AudioBufferList>, frames: Int, forOutput: Bool) -> Bool {
        (forOutput ? output : input).fits(UnsafeMutableAudioBufferListPointer(list), frames: frames)
    }

    /// Forgets the stream: the next input starts afresh (primed again).
    package func reset() {
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        ended = false
        ready = false
        toDrop = 0
        resampler?.reset()
    }

    /// Makes the rate conversion for the current quality and phase, and the priming drop or delay.
    private func prepare() -> Bool {
        guard !ready else { return true }
        ready = true
        guard rateChanges else {
            resampler = nil
            return true
        }
        let recipe: Resampler.Quality = switch quality {
        case ..<0x20: .min
        case ..<0x40: .low
        case ..<0x60: .medium
        case ..<0x7F: .high
        default: .max
        }
        resampler = Resampler(from: inputFormat.mSampleRate, to: outputFormat.mSampleRate, channels: output.channels,
                              quality: recipe, phase: phase)
        let leading = Int((Double(primeLeadingFrames) * outputFormat.mSampleRate / inputFormat.mSampleRate).rounded())
        switch primeMethod {
        case 0: toDrop = leading
        case 2: pending.append(contentsOf: repeatElement(0, count: leading * output.channels))
        default: break
        }
        return resampler != nil
    }

    /// Converts into `list` (which must have room for `capacity` frames of the output format) as much as
    /// there is, up to `capacity`, pulling input (`pull` is given the input frames that would fill the rest);
    /// returns the frames written and why it stopped. The list's byte sizes are set to the frames written.
    package func fill(_ list: UnsafeMutablePointer<AudioBufferList>, capacity: Int, pull: (Int) -> Pull) -> (frames: Int, ending: Ending) {
        let buffers = UnsafeMutableAudioBufferListPointer(list)
        guard capacity >= 0, output.fits(buffers, frames: capacity) else { return (0, .failed(kAudio_ParamError)) }
        guard prepare() else { return (0, .failed(kAudioConverterErr_InputSampleRateOutOfRange)) }
        var produced = 0
        var ending = Ending.filled
        while true {
            produced += takePending(into: buffers, at: produced, room: capacity - produced)
            if produced == capacity { break }
            if ended {
                ending = .ended
                break
            }
            let ratio = outputFormat.mSampleRate / inputFormat.mSampleRate
            let wanted = Double(capacity - produced) / ratio
            switch pull(Int(min(1e9, wanted.rounded(.up))) + (rateChanges ? 1 : 0)) {
            case .noDataNow:
                ending = .ranDry
            case .failed(let status):
                ending = .failed(status)
            case .endOfStream:
                ended = true
                resampler?.flush(into: &pending)
                continue
            case .data(let given, let frames):
                let inputBuffers = UnsafeMutableAudioBufferListPointer(given)
                guard frames >= 0, input.fits(inputBuffers, frames: frames) else {
                    ending = .failed(kAudioConverterErr_InvalidInputSize)
                    break
                }
                add(inputBuffers, frames: frames)
                continue
            }
            break
        }
        for index in 0..<output.bufferCount { buffers[index].mDataByteSize = UInt32(produced * output.bufferStride) }
        return (produced, ending)
    }

    /// Maps `frames` input frames' channels (or downmixes them) and resamples them onto the pending frames.
    private func add(_ buffers: UnsafeMutableAudioBufferListPointer, frames: Int) {
        let outputs = output.channels, inputs = input.channels
        mapped.removeAll(keepingCapacity: true)
        mapped.append(contentsOf: repeatElement(0, count: frames * outputs))
        if downmix && outputs < inputs {
            for channel in 0..<outputs {
                let group = Array(Swift.stride(from: channel, to: inputs, by: outputs))
                let scale = 1 / Float(group.count)
                for frame in 0..<frames {
                    var sum: Float = 0
                    for source in group { sum += input.read(buffers, frame: frame, channel: source) }
                    mapped[frame * outputs + channel] = sum * scale
                }
            }
        } else {
            for channel in 0..<outputs {
                let source = channel < channelMap.count ? channelMap[channel] : -1
                guard source >= 0, source < inputs else { continue }
                for frame in 0..<frames { mapped[frame * outputs + channel] = input.read(buffers, frame: frame, channel: source) }
            }
        }
        if let resampler {
            mapped.withUnsafeBufferPointer { resampler.process($0, into: &pending) }
        } else {
            pending.append(contentsOf: mapped)
        }
    }

    /// Gives out up to `room` pending frames into `buffers` from frame `start`, after dropping priming frames.
    private func takePending(into buffers: UnsafeMutableAudioBufferListPointer, at start: Int, room: Int) -> Int {
        let channels = output.channels
        var available = (pending.count - pendingStart) / channels
        if toDrop > 0 {
            let dropped = min(toDrop, available)
            pendingStart += dropped * channels
            toDrop -= dropped
            available -= dropped
        }
        let frames = min(room, available)
        for frame in 0..<frames {
            for channel in 0..<channels {
                output.write(pending[pendingStart + frame * channels + channel], buffers, frame: start + frame, channel: channel)
            }
        }
        pendingStart += frames * channels
        if pendingStart > 0 && pendingStart * 2 >= pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return frames
    }
}

// Offline analysis of a whole file: levels per channel and the programme's loudness.
import CSndFile
import Glibc

/// What `recorder analyze` reports for one file. Per-channel arrays have one value per channel; a value
/// that is undefined (the level of digital silence, the loudness of a silent programme) is nil.
public struct FileAnalysis: Sendable, Hashable {
    public let path: String
    public let frames: Int64
    public let sampleRate: Int
    public let channelCount: Int
    public var duration: Double { Double(frames) / Double(sampleRate) }
    /// 20·log10(max |sample|), full scale = 1.0 (32 768 for 16-bit), as the core meters and sox.
    public let samplePeak: [Double?]
    /// libebur128's true peak (4× oversampled), dBTP.
    public let truePeak: [Double?]
    /// 20·log10(RMS), plain convention: a full-scale sine reads −3.01 dBFS (as sox's "RMS lev dB").
    public let rms: [Double?]
    /// Samples at full scale: |s| ≥ 32 767/32 768.
    public let clippedSamples: [Int64]
    /// Mean sample value, full scale = 1.0.
    public let dcOffset: [Double]
    /// Programme loudness (EBU R128, libebur128), LUFS / LU.
    public let integrated: Double?
    public let loudnessRange: Double?
    public let maxMomentary: Double?
    public let maxShortTerm: Double?

    /// Reads `path` (any format libsndfile opens) in blocks of one second and measures it.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    public static func analyze(path: String) throws(RecorderError) -> FileAnalysis {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw RecorderError(.cannotReadFile,
                "cannot read '\(path)': \(String(cString: sf_strerror(nil))); give a sound file libsndfile opens (WAV, AIFF, CAF, FLAC, …)")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate)
        let blockFrames = max(rate, 1)
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var peaks = [Float](repeating: 0, count: channels)
        var squares = [Double](repeating: 0, count: channels)
        var sums = [Double](repeating: 0, count: channels)
        var clipped = [Int64](repeating: 0, count: channels)
        var frames: Int64 = 0
        let fullScale: Float = 32_767 / 32_768
        while true {
            let read = block.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames)) }
            guard read > 0 else { break }
            let count = Int(read)
            block.withUnsafeBufferPointer { samples in
                meter.add(interleaved: UnsafeBufferPointer(rebasing: samples[0..<(count * channels)]))
                for channel in 0..<channels {
                    var peak = peaks[channel], square = 0.0, sum = 0.0, clips: Int64 = 0
                    var index = channel
                    for _ in 0..<count {
                        let value = samples[index]
                        let magnitude = abs(value)
                        if magnitude > peak { peak = magnitude }
                        if magnitude >= fullScale { clips += 1 }
                        square += Double(value) * Double(value)
                        sum += Double(value)
                        index += channels
                    }
                    peaks[channel] = peak
                    squares[channel] += square
                    sums[channel] += sum
                    clipped[channel] += clips
                }
            }
            frames += Int64(count)
        }
        func decibels(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
        let total = Double(max(frames, 1))
        return FileAnalysis(
            path: path, frames: frames, sampleRate: rate, channelCount: channels,
            samplePeak: peaks.map { decibels(Double($0)) },
            truePeak: (0..<channels).map { meter.truePeak(channel: $0) },
            rms: squares.map { decibels(($0 / total).squareRoot()) },
            clippedSamples: clipped,
            dcOffset: sums.map { $0 / total },
            // libebur128 gives 0 LU for a programme with nothing above the gates: undefined, as silence is.
            integrated: meter.integrated, loudnessRange: meter.integrated == nil ? nil : meter.loudnessRange,
            maxMomentary: meter.maxMomentary, maxShortTerm: meter.maxShortTerm)
    }
}

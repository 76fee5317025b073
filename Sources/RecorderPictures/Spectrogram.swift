// A spectrogram's data from an analysis pass: the channels mixed to their mean, Hann-windowed FFTs
// (KissFFT's real transform) centred through each pixel column, their power averaged per column.
import CKissFFT
import Glibc
import RecorderKit

/// Collects a file's spectrum column by column as `FileAnalysis.analyze` decodes it (an `AnalysisTap`):
/// `columns` columns over the file, each the mean power of up to 32 windows of `fftSize` frames centred
/// evenly through it (consecutive windows half a window apart when the column is shorter than that).
/// Memory: `columns` × (`fftSize`/2 + 1) floats, whatever the file's length. Feed from one thread.
public final class SpectrogramTap: AnalysisTap {
    /// Frames per FFT (a power of two, 256…16 384): 2 048 at 48 kHz is 23 Hz per bin, 43 ms per window.
    public let fftSize: Int
    /// Pixel columns.
    public let columns: Int
    /// Set by `begin`.
    public private(set) var sampleRate = 0
    public private(set) var frames: Int64 = 0
    /// Frames fed so far (`frames` once a file announced its length truly).
    public private(set) var framesFed: Int64 = 0
    /// Per column, `fftSize / 2 + 1` powers, 1.0 for a full-scale sine's bin (nil until `end`).
    public private(set) var power: [Float] = []
    private var channels = 1
    private let config: kiss_fftr_cfg?
    /// KissFFT, or why it could not be loaded (`SpectrogramPicture.draw` says so).
    let fft: Result<KissFFT, RecorderError>
    private var window: [Float]
    private var ring: [Float]
    private var written: Int64 = 0
    private var input: [Float]
    private var output: [kiss_fft_cpx]
    private var counts: [Int32]
    /// The next window's centre frame and column; nil when every window is done.
    private var next: (centre: Int64, column: Int, index: Int, of: Int)?

    /// - Parameters:
    ///   - columns: the picture's width in columns (at least 1).
    ///   - fftSize: rounded to a power of two in 256…16 384.
    public init(columns: Int, fftSize: Int = 2_048) {
        var size = 256
        while size < min(max(fftSize, 256), 16_384) { size *= 2 }
        self.fftSize = size
        self.columns = max(1, min(columns, 100_000))
        fft = KissFFT.loaded
        config = (try? fft.get())?.alloc(Int32(size), 0, nil, nil)
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        ring = [Float](repeating: 0, count: size)
        input = [Float](repeating: 0, count: size)
        output = [kiss_fft_cpx](repeating: kiss_fft_cpx(), count: size / 2 + 1)
        counts = []
    }

    deinit { if let config { free(UnsafeMutableRawPointer(config)) } }

    /// Bins per column.
    public var bins: Int { fftSize / 2 + 1 }

    public func begin(sampleRate: Int, channelCount: Int, frames: Int64) {
        self.sampleRate = sampleRate
        self.frames = max(0, frames)
        channels = max(1, channelCount)
        power = [Float](repeating: 0, count: columns * bins)
        counts = [Int32](repeating: 0, count: columns)
        next = frames > 0 ? plan(column: 0, index: 0) : nil
    }

    /// The frames a column covers.
    public func span(ofColumn column: Int) -> Range<Int64> {
        let lower = frames.multipliedFullWidth(by: Int64(column))
        let upper = frames.multipliedFullWidth(by: Int64(column + 1))
        return Int64(columns).dividingFullWidth(lower).quotient..<Int64(columns).dividingFullWidth(upper).quotient
    }

    /// The `index`th window of `column` (and how many it has), skipping columns that hold no frame.
    private func plan(column: Int, index: Int) -> (centre: Int64, column: Int, index: Int, of: Int)? {
        var column = column, index = index
        while column < columns {
            let span = span(ofColumn: column)
            let length = span.upperBound - span.lowerBound
            let count = Int(min(32, max(1, length / Int64(fftSize / 2))))
            if length > 0, index < count {
                let centre = span.lowerBound + (length * Int64(2 * index + 1)) / Int64(2 * count)
                return (centre, column, index, count)
            }
            column += 1
            index = 0
        }
        return nil
    }

    public func add(interleaved samples: UnsafeBufferPointer<Float>) {
        let count = samples.count / channels
        framesFed += Int64(count)
        let scale = 1 / Float(channels)
        for frame in 0..<count {
            var sum: Float = 0
            for channel in 0..<channels { sum += samples[frame * channels + channel] }
            push(sum * scale)
        }
    }

    public func end() {
        // The last windows reach past the file: zeros after it.
        var padding = 0
        while next != nil, padding <= fftSize {
            push(0)
            padding += 1
        }
        for column in 0..<columns where counts[column] > 1 {
            let divisor = Float(counts[column])
            for bin in 0..<bins { power[column * bins + bin] /= divisor }
        }
    }

    private func push(_ sample: Float) {
        ring[Int(written % Int64(fftSize))] = sample
        written += 1
        while let window = next, window.centre + Int64(fftSize / 2) <= written {
            transform(column: window.column)
            next = window.index + 1 < window.of ? plan(column: window.column, index: window.index + 1)
                                                 : plan(column: window.column + 1, index: 0)
        }
    }

    /// The last `fftSize` frames (zeros before the file), windowed, into the column's power.
    private func transform(column: Int) {
        guard let config, let fft = try? fft.get() else { return }
        let start = written - Int64(fftSize)
        for index in 0..<fftSize {
            let frame = start + Int64(index)
            input[index] = frame < 0 ? 0 : ring[Int(frame % Int64(fftSize))] * window[index]
        }
        fft.transform(config, input, &output)
        // A full-scale sine's bin: |X| = N/4 under a Hann window.
        let normal = 16 / (Float(fftSize) * Float(fftSize))
        let base = column * bins
        for bin in 0..<bins {
            let value = output[bin]
            let magnitude = value.r * value.r + value.i * value.i
            power[base + bin] += magnitude.isFinite ? magnitude * normal : 0
        }
        counts[column] += 1
    }
}

/// KissFFT's real transform (libkissfft-float.so.131, Debian's libkissfft-float131), looked up when the first
/// spectrogram is made: nothing else maps it.
struct KissFFT: @unchecked Sendable {
    // @unchecked Sendable: C function pointers, set once and never changed.
    let alloc: @convention(c) (Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?) -> kiss_fftr_cfg?
    let transform: @convention(c) (kiss_fftr_cfg?, UnsafePointer<Float>?, UnsafeMutablePointer<kiss_fft_cpx>?) -> Void

    /// The functions, or why the library could not be loaded (loaded once, on first use).
    static let loaded = Result { () throws(RecorderError) in
        let library = LazyLibrary(["libkissfft-float.so.131", "libkissfft-float.so"], what: "KissFFT (libkissfft-float.so.131)", debian: "libkissfft-float131")
        return KissFFT(alloc: try library.function("kiss_fftr_alloc", as: (@convention(c) (Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?) -> kiss_fftr_cfg?).self),
                       transform: try library.function("kiss_fftr", as: (@convention(c) (kiss_fftr_cfg?, UnsafePointer<Float>?, UnsafeMutablePointer<kiss_fft_cpx>?) -> Void).self))
    }
}

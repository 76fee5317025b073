// A spectrogram's picture: time across, frequency up (linear or logarithmic), power as colour on a
// labelled dBFS scale — drawn with cairo from a `SpectrogramTap`'s columns.
import Glibc
import RecorderKit

/// What a spectrogram is drawn with.
public struct SpectrogramOptions: Sendable, Hashable {
    /// Pixels, 320…20 000.
    public var width: Int
    /// Pixels, 200…20 000.
    public var height: Int
    /// Frequency on a logarithmic scale from 20 Hz (else linear from 0).
    public var logarithmic: Bool
    /// The colour scale's bottom, dBFS (its top is 0 dBFS: a full-scale sine).
    public var floor: Double
    /// Frames per FFT.
    public var fftSize: Int

    /// Options; sizes clamped, a floor that is not a number or not below −10 dBFS is −120.
    public init(width: Int = 1_600, height: Int = 600, logarithmic: Bool = false, floor: Double = -120, fftSize: Int = 2_048) {
        self.width = min(max(width, 320), 20_000)
        self.height = min(max(height, 200), 20_000)
        self.logarithmic = logarithmic
        self.floor = floor.isFinite && floor <= -10 ? max(floor, -300) : -120
        self.fftSize = fftSize
    }

    /// The tap to give `FileAnalysis.analyze` for a picture with these options.
    public func tap() -> SpectrogramTap { SpectrogramTap(columns: layout(duration: 1, sampleRate: 48_000).columns, fftSize: fftSize) }

    /// The picture's geometry for a file of `duration` seconds at `sampleRate`.
    public func layout(duration: Double, sampleRate: Int) -> SpectrogramLayout {
        SpectrogramLayout(width: width, height: height, duration: duration, sampleRate: sampleRate, logarithmic: logarithmic)
    }
}

/// Where a spectrogram's parts are, and its scales.
public struct SpectrogramLayout: Sendable {
    public let width: Int
    public let height: Int
    public let duration: Double
    public let nyquist: Double
    public let logarithmic: Bool
    /// The lowest frequency drawn: 0 Hz (linear) or 20 Hz (logarithmic, or a tenth of Nyquist when that is lower).
    public let lowest: Double
    public let left = 64.0
    public let top = 34.0
    public var right: Double { Double(width) - 96 }
    public var bottom: Double { Double(height) - 40 }
    /// The colour scale's bar.
    public var scaleLeft: Double { Double(width) - 80 }
    /// Pixel columns of the image.
    public var columns: Int { Int(right - left) }
    /// Pixel rows of the image.
    public var rows: Int { Int(bottom - top) }

    init(width: Int, height: Int, duration: Double, sampleRate: Int, logarithmic: Bool) {
        self.width = width
        self.height = height
        self.duration = duration.isFinite && duration > 0 ? duration : 1
        nyquist = Double(max(sampleRate, 2)) / 2
        self.logarithmic = logarithmic
        lowest = logarithmic ? min(20, nyquist / 10) : 0
    }

    /// The x of a moment, seconds from the start.
    public func x(seconds: Double) -> Double { left + min(max(seconds / duration, 0), 1) * (right - left) }

    /// The frequency at the centre of image row `row` (0 at the top).
    public func frequency(row: Int) -> Double {
        let fraction = 1 - (Double(row) + 0.5) / Double(max(rows, 1))
        return logarithmic ? lowest * pow(nyquist / lowest, fraction) : fraction * nyquist
    }

    /// The y of `frequency` (Hz), clamped to the image.
    public func y(frequency: Double) -> Double {
        let clamped = min(max(frequency.isFinite ? frequency : 0, lowest), nyquist)
        let fraction = logarithmic ? log(clamped / lowest) / log(nyquist / lowest) : clamped / nyquist
        return bottom - fraction * (bottom - top)
    }

    /// The frequency axis's ticks (Hz): round values at least 28 pixels apart.
    public var frequencyTicks: [PlotLayout.Tick] {
        let candidates: [Double]
        if logarithmic {
            candidates = [20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000].filter { $0 >= lowest && $0 <= nyquist }
        } else {
            let perHertz = (bottom - top) / nyquist
            let step = [100.0, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000].first { $0 * perHertz >= 28 } ?? 50_000
            candidates = stride(from: 0, through: nyquist, by: step).map { $0 }
        }
        return candidates.map { PlotLayout.Tick(value: $0, label: $0 >= 1_000 ? fixed($0 / 1_000, $0.truncatingRemainder(dividingBy: 1_000) == 0 ? 0 : 1) + "k" : fixed($0, 0)) }
    }
}

/// Draws spectrograms.
public enum SpectrogramPicture {
    /// The colour of a level 0…1 of the scale: black, violet, red, orange, yellow, white.
    public static func colour(level: Double) -> (red: Int, green: Int, blue: Int) {
        let anchors: [(Double, Double, Double, Double)] = [
            (0, 0, 0, 0), (0.2, 40, 0, 90), (0.45, 150, 0, 110), (0.65, 230, 60, 30), (0.85, 255, 190, 0), (1, 255, 255, 255),
        ]
        let value = min(max(level.isFinite ? level : 0, 0), 1)
        let upper = anchors.firstIndex { $0.0 >= value } ?? anchors.count - 1
        let lower = max(0, upper - 1)
        let (a, b) = (anchors[lower], anchors[upper])
        let t = b.0 > a.0 ? (value - a.0) / (b.0 - a.0) : 0
        func mix(_ x: Double, _ y: Double) -> Int { Int((x + (y - x) * t).rounded()) }
        return (mix(a.1, b.1), mix(a.2, b.2), mix(a.3, b.3))
    }

    /// Draws `tap`'s columns (after the analysis that fed it) into `path` (.png or .svg) and returns its layout.
    /// - Throws: `.unsupportedFileType`, `.cannotCreateFile` or `.writeFailed`, naming the path.
    @discardableResult
    public static func draw(_ tap: SpectrogramTap, title: String, to path: String, options: SpectrogramOptions) throws(RecorderError) -> SpectrogramLayout {
        guard let kind = PictureKind(path: path) else {
            throw RecorderError(.unsupportedFileType, "cannot draw '\(path)': a spectrogram is written as .png or .svg; name the file so")
        }
        _ = try tap.fft.get()  // KissFFT could not be loaded: say what to install
        guard tap.framesFed <= tap.frames else {
            throw RecorderError(.invalidFormat, "cannot draw the spectrogram of '\(title)': its length was not known before it was "
                + "read (a pipe); write it to a file first")
        }
        let duration = Double(tap.frames) / Double(max(tap.sampleRate, 1))
        let layout = options.layout(duration: duration, sampleRate: tap.sampleRate)
        let canvas = try Canvas(path: path, kind: kind, width: options.width, height: options.height)
        let text = Colour(40, 44, 52)
        canvas.fillRectangle(x: 0, y: 0, width: Double(layout.width), height: Double(layout.height), Colour(255, 255, 255))
        canvas.image(pixels(tap, layout: layout, floor: options.floor), width: layout.columns, height: layout.rows, x: layout.left, y: layout.top)
        // The colour scale, top (0 dBFS) to bottom (the floor), labelled every 20 dB.
        let scaleRows = layout.rows
        var bar = [UInt32](repeating: 0, count: 16 * scaleRows)
        for row in 0..<scaleRows {
            let level = 1 - (Double(row) + 0.5) / Double(scaleRows)
            let (r, g, b) = colour(level: level)
            for column in 0..<16 { bar[row * 16 + column] = 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }
        }
        canvas.image(bar, width: 16, height: scaleRows, x: layout.scaleLeft, y: layout.top)
        canvas.text("dBFS", x: layout.scaleLeft, y: layout.top - 8, size: 11, text)
        for decibels in stride(from: 0.0, through: options.floor, by: -20) {
            let y = layout.top + (-decibels / -options.floor) * Double(scaleRows)
            canvas.text(fixed(decibels, 0), x: layout.scaleLeft + 20, y: y + 4, size: 11, text)
        }
        canvas.text("Hz", x: 8, y: layout.top + 10, size: 11, text)
        for tick in layout.frequencyTicks {
            let y = layout.y(frequency: tick.value)
            canvas.line(layout.left - 4, y, layout.left, y, text)
            canvas.text(tick.label, x: layout.left - 6, y: y + 4, size: 11, text, anchor: .right)
        }
        let plot = PlotLayout(width: options.width - 80, height: options.height, duration: duration, channels: 1, target: -23)
        for tick in plot.timeTicks {
            let x = layout.x(seconds: tick.value)
            canvas.line(x, layout.bottom, x, layout.bottom + 4, text)
            canvas.text(tick.label, x: x, y: layout.bottom + 18, size: 11, text, anchor: .centre)
        }
        canvas.text(title + " — spectrogram, \(tap.fftSize)-point FFT, channels mixed, "
                    + (options.logarithmic ? "logarithmic" : "linear") + " frequency",
                    x: layout.left, y: 20, size: 14, text, bold: true)
        try canvas.finish()
        return layout
    }

    /// The image: each row takes the highest power of the bins its frequencies span (the nearest bin
    /// when it spans none), in dBFS from `floor` to 0 as colour.
    static func pixels(_ tap: SpectrogramTap, layout: SpectrogramLayout, floor: Double) -> [UInt32] {
        let rows = layout.rows, columns = layout.columns, bins = tap.bins
        let hertzPerBin = layout.nyquist / Double(bins - 1)
        // The bins of each row: from the frequency at its lower edge to its upper edge.
        let ranges: [Range<Int>] = (0..<rows).map { row in
            func edge(_ offset: Double) -> Double {
                let fraction = 1 - (Double(row) + offset) / Double(max(rows, 1))
                return layout.logarithmic ? layout.lowest * pow(layout.nyquist / layout.lowest, fraction) : fraction * layout.nyquist
            }
            let low = Int((edge(1) / hertzPerBin).rounded(.up)), high = Int((edge(0) / hertzPerBin).rounded(.down))
            let nearest = min(bins - 1, max(0, Int((layout.frequency(row: row) / hertzPerBin).rounded())))
            return low <= high ? max(0, low)..<min(bins, high + 1) : nearest..<(nearest + 1)
        }
        var pixels = [UInt32](repeating: 0xFF00_0000, count: rows * columns)
        let palette: [UInt32] = (0..<256).map { index in
            let (r, g, b) = colour(level: Double(index) / 255)
            return 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        }
        let tapColumns = tap.columns
        guard !tap.power.isEmpty else { return pixels }
        for column in 0..<columns {
            let source = min(tapColumns - 1, column * tapColumns / max(columns, 1))
            let base = source * bins
            for row in 0..<rows {
                var highest: Float = 0
                for bin in ranges[row] { highest = max(highest, tap.power[base + bin]) }
                let decibels = highest > 0 ? 10 * log10(Double(highest)) : -Double.infinity
                let level = decibels.isFinite ? (decibels - floor) / -floor : 0
                pixels[row * columns + column] = palette[Int(min(max(level, 0), 1) * 255)]
            }
        }
        return pixels
    }
}

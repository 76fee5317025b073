// A file's picture: each channel's waveform (lowest, highest and RMS per pixel column), the momentary and
// short-term loudness with the integrated line and the target band, the true-peak ceiling, every over and
// clipped run where it is, the file's markers and gaps, labelled axes and a caption — drawn with cairo.
import Glibc
import RecorderKit

/// What a plot is drawn with.
public struct PlotOptions: Sendable, Hashable {
    /// Pixels, 320…20 000.
    public var width: Int
    /// Pixels, 240…20 000.
    public var height: Int
    /// The loudness the programme aims at, LUFS (EBU R128: −23; podcasts −16, ATSC A/85 −24).
    public var target: Double
    /// The band around the target, LU (R128: ±1).
    public var tolerance: Double

    /// Options; sizes clamped to what a picture can be, a target that is not a number is R128's.
    public init(width: Int = 1_600, height: Int = 900, target: Double = -23, tolerance: Double = 1) {
        self.width = min(max(width, 320), 20_000)
        self.height = min(max(height, 240), 20_000)
        self.target = target.isFinite ? min(max(target, -70), 0) : -23
        self.tolerance = tolerance.isFinite ? min(max(tolerance, 0), 20) : 1
    }

    /// The waveform columns a plot of this size needs from the analysis (one per pixel of the plotting area).
    public var columns: Int { Int(PlotLayout(width: width, height: height, duration: 1, channels: 1, target: target).plotWidth) }
}

/// Draws plots. Each call is independent; call from any thread.
public enum Plot {
    /// The colours, by what they draw (a reader of the SVG finds each element by its colour).
    public enum Palette {
        public static let background = Colour(255, 255, 255)
        public static let panel = Colour(246, 247, 249)
        public static let grid = Colour(218, 222, 228)
        public static let text = Colour(40, 44, 52)
        public static let waveform = Colour(70, 110, 170)
        public static let rms = Colour(25, 55, 110)
        public static let momentary = Colour(150, 190, 235)
        public static let shortTerm = Colour(20, 80, 160)
        public static let integrated = Colour(0, 130, 60)
        public static let targetBand = Colour(120, 200, 120, alpha: 0.25)
        public static let ceiling = Colour(200, 60, 60)
        public static let truePeakOver = Colour(230, 20, 40)
        public static let clipped = Colour(190, 0, 190)
        public static let marker = Colour(90, 90, 90)
        public static let gap = Colour(245, 150, 30, alpha: 0.35)
    }

    /// What to ask `FileAnalysis.analyze` for to draw a plot with `options`.
    public static func request(_ options: PlotOptions, ceiling: Double = -1, threads: Int = 0) -> AnalysisRequest {
        AnalysisRequest(waveformColumns: options.columns, loudnessSeries: true, overs: true, ceiling: ceiling, threads: threads)
    }

    /// Draws `analysis` (made with `request(options)`) into `path` (.svg or .png) and returns its layout.
    /// - Throws: `.unsupportedFileType` for another extension; `.cannotCreateFile` or `.writeFailed`
    ///   naming the path. On failure nothing is left at `path` but what was there.
    @discardableResult
    public static func draw(_ analysis: FileAnalysis, to path: String, options: PlotOptions = PlotOptions()) throws(RecorderError) -> PlotLayout {
        guard let kind = PictureKind(path: path) else {
            throw RecorderError(.unsupportedFileType, "cannot draw '\(path)': a plot is written as .svg or .png; name the file so")
        }
        // The columns span the length the file announced: a file that ends early is drawn over that
        // length, its missing end empty (the caption says so). One whose length was not known before it
        // was read (a pipe) has no columns to draw.
        let announced = analysis.waveform?.frames ?? analysis.frames
        if analysis.waveform != nil && announced < analysis.frames {
            throw RecorderError(.invalidFormat, "cannot draw '\(analysis.path)': its length was not known before it was read "
                + "(a pipe); write it to a file first")
        }
        let duration = Double(max(announced, analysis.frames)) / Double(max(analysis.sampleRate, 1))
        let layout = PlotLayout(width: options.width, height: options.height, duration: duration,
                                channels: analysis.channelCount, target: options.target)
        let canvas = try Canvas(path: path, kind: kind, width: options.width, height: options.height)
        PlotDrawing(canvas: canvas, layout: layout, analysis: analysis, options: options).draw()
        try canvas.finish()
        return layout
    }
}

// What one analysis pass over a file is asked to keep beyond the numbers (waveform columns, the loudness
// series, the overs), and the taps that see every block it decodes (a spectrogram, a peak file).

/// What `FileAnalysis.analyze(path:request:taps:)` keeps besides the levels and loudness, all from the
/// one pass that decodes the file.
public struct AnalysisRequest: Sendable, Hashable {
    /// Waveform columns over the whole file (a picture's width); 0 for none. At most 100 000.
    public var waveformColumns: Int
    /// The momentary and short-term loudness every 100 ms.
    public var loudnessSeries: Bool
    /// The true-peak overs above `ceiling` and the clipped runs.
    public var overs: Bool
    /// dBTP above which a true-peak value is an over (EBU R128's maximum: −1).
    public var ceiling: Double
    /// Threads the analysis works on (true peak, loudness, taps), this one included, at most 16; 0: one
    /// per core (at most 8).
    public var threads: Int

    /// A request; each part off unless asked for.
    public init(waveformColumns: Int = 0, loudnessSeries: Bool = false, overs: Bool = false, ceiling: Double = -1,
                threads: Int = 0) {
        self.waveformColumns = min(max(0, waveformColumns), 100_000)
        self.loudnessSeries = loudnessSeries
        self.overs = overs
        // A ceiling that is not a number is R128's; one above +24 dBTP is a place no float file reaches anyway.
        self.ceiling = ceiling.isFinite ? min(max(ceiling, -200), 24) : -1
        self.threads = min(max(0, threads), 16)
    }
}

/// Sees every block an analysis decodes, in order, one block at a time, on whichever of the analysis's
/// threads is free (so a tap need not be thread-safe, but must not expect one thread): a spectrogram, a
/// peak file. `begin` and `end` are called on the thread that called `analyze`.
/// The samples are interleaved, full scale ±1, with NaN and ±infinity already replaced by the channel's
/// sample before them (as the loudness meter reads them).
public protocol AnalysisTap: AnyObject {
    /// Before the first block: the file's rate, channels and frames (0 when the file does not say).
    func begin(sampleRate: Int, channelCount: Int, frames: Int64)
    /// `samples.count / channelCount` frames.
    func add(interleaved samples: UnsafeBufferPointer<Float>)
    /// After the last block.
    func end()
}

/// The momentary (400 ms) and short-term (3 s) loudness at the end of every 100 ms of a file, LUFS;
/// nil where the window is silent. Value `k` is of the window ending at (k + 1) × 100 ms.
public struct LoudnessSeries: Sendable, Hashable {
    /// Frames between two values (a tenth of the rate).
    public let stepFrames: Int
    /// One per step.
    public let momentary: [Float?]
    /// One per step.
    public let shortTerm: [Float?]
}

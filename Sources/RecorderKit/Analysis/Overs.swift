// Where a file goes over: runs of true-peak values above a ceiling and runs of clipped samples, per channel.
import Glibc

/// One run of a channel going over: true-peak values above the ceiling (`kind` `.truePeak`) or samples
/// at full scale (`.clipped`), no more than `Over.joiningGap` frames apart.
public struct Over: Sendable, Hashable {
    /// What went over.
    public enum Kind: String, Sendable, Hashable {
        /// The signal oversampled (BS.1770 true peak) above the ceiling asked for.
        case truePeak = "true-peak"
        /// Samples at full scale: |s| ≥ 32 767/32 768.
        case clipped
    }

    /// True peak or clipped samples.
    public let kind: Kind
    /// The channel, from 0.
    public let channel: Int
    /// The run's first frame (from the file's first).
    public let startFrame: Int64
    /// From its first frame to its last, inclusive (at least 1).
    public let frames: Int64
    /// Its highest value: dBTP for a true-peak over, dBFS for clipped samples.
    public let level: Double
    /// Clipped samples in the run (for `.truePeak`: 0, not counted).
    public let clippedSamples: Int64

    /// Two overs closer than this many seconds are one run: a distorted passage is one entry, not one
    /// per waveform crest (10 ms: less than one period of anything below 100 Hz).
    public static let joiningGap = 0.010

    /// A run.
    public init(kind: Kind, channel: Int, startFrame: Int64, frames: Int64, level: Double, clippedSamples: Int64 = 0) {
        self.kind = kind
        self.channel = channel
        self.startFrame = startFrame
        self.frames = frames
        self.level = level
        self.clippedSamples = clippedSamples
    }
}

/// Collects one channel's overs of one kind as frames are noted, joining those within `gap` frames.
/// Keeps at most `limit` runs and counts the rest, so memory stays bounded on a file that is over
/// everywhere. Frames may arrive up to `gap` out of order (the interpolator's delay).
struct OverRuns {
    let kind: Over.Kind
    let channel: Int
    let gap: Int64
    let limit: Int
    private(set) var runs: [Over] = []
    /// Runs past `limit`, counted only.
    private(set) var leftOut = 0
    private var current: (start: Int64, end: Int64, peak: Float, count: Int64)?

    init(kind: Over.Kind, channel: Int, gap: Int64, limit: Int) {
        self.kind = kind
        self.channel = channel
        self.gap = max(0, gap)
        self.limit = max(0, limit)
    }

    /// `frame` is over, at linear magnitude `level`.
    mutating func note(frame: Int64, level: Float) {
        if var run = current, frame <= run.end + gap {
            run.start = min(run.start, frame)
            run.end = max(run.end, frame)
            run.peak = max(run.peak, level)
            run.count += 1
            current = run
            return
        }
        close()
        current = (frame, frame, level, 1)
    }

    /// Ends the run in progress.
    mutating func close() {
        guard let run = current else { return }
        current = nil
        guard runs.count < limit else {
            leftOut += 1
            return
        }
        runs.append(Over(kind: kind, channel: channel, startFrame: run.start, frames: run.end - run.start + 1,
                         level: 20 * log10(Double(max(run.peak, .leastNonzeroMagnitude))),
                         clippedSamples: kind == .clipped ? run.count : 0))
    }

    /// Runs found by separate scans of consecutive parts of one channel, as one list: sorted, and those
    /// within `gap` frames joined (a run that crosses a part's border was found in pieces).
    static func joined(_ pieces: [Over], gap: Int64) -> [Over] {
        var result: [Over] = []
        for over in pieces.sorted(by: { $0.startFrame < $1.startFrame }) {
            if let last = result.last, over.startFrame <= last.startFrame + last.frames - 1 + gap {
                let end = max(last.startFrame + last.frames, over.startFrame + over.frames)
                result[result.count - 1] = Over(kind: last.kind, channel: last.channel, startFrame: last.startFrame,
                                                frames: end - last.startFrame, level: max(last.level, over.level),
                                                clippedSamples: last.clippedSamples + over.clippedSamples)
            } else {
                result.append(over)
            }
        }
        return result
    }
}

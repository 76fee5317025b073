// Where everything goes in a plot: the loudness panel, the waveform lanes, the time axis and the
// caption, and the scales that turn seconds, LUFS and amplitudes into pixels.

/// A plot's geometry, computed from its size, the file's length and channels and the target: what the
/// drawing uses and what a reader of the picture (a test) can check it against.
public struct PlotLayout: Sendable {
    /// One waveform lane: the channels it shows (one, or a group when there are more than eight).
    public struct Lane: Sendable, Hashable {
        public let channels: Range<Int>
        public let top: Double
        public let bottom: Double
        /// The zero line.
        public var middle: Double { (top + bottom) / 2 }
        /// "ch 1" or "ch 1–8".
        public var title: String {
            channels.count == 1 ? "ch \(channels.lowerBound + 1)" : "ch \(channels.lowerBound + 1)–\(channels.upperBound)"
        }
    }

    /// A labelled tick: its value and its text.
    public struct Tick: Sendable, Hashable {
        public let value: Double
        public let label: String
    }

    /// Lanes drawn at most; past that, each lane shows a group of channels (their lowest and highest
    /// samples and loudest RMS).
    public static let maxLanes = 8
    /// The loudness scale, LUFS (the target band is kept inside it).
    public let loudnessRange: ClosedRange<Double>

    public let width: Int
    public let height: Int
    /// Seconds the plot spans (the file's duration; at least one frame's worth).
    public let duration: Double
    /// The plotting area's left and right edges (the time axis).
    public let left: Double
    public let right: Double
    public let loudnessTop: Double
    public let loudnessBottom: Double
    public let lanes: [Lane]
    /// The time axis's labels' baseline.
    public let timeLabelY: Double
    /// The caption's two baselines.
    public let captionY: [Double]

    /// The layout of a `width` × `height` picture of `duration` seconds in `channels` channels, its
    /// loudness scale reaching down to at least 30 LU under `target`.
    public init(width: Int, height: Int, duration: Double, channels: Int, target: Double) {
        self.width = width
        self.height = height
        self.duration = duration.isFinite && duration > 0 ? duration : 1
        left = 64
        right = Double(width) - 16
        let top = 34.0
        captionY = [Double(height) - 26, Double(height) - 8]
        timeLabelY = Double(height) - 48
        let bottom = Double(height) - 64
        let available = max(40, bottom - top)
        loudnessTop = top
        loudnessBottom = top + (available * 0.32).rounded()
        let low = min(-60, ((target - 30) / 10).rounded(.down) * 10)
        loudnessRange = low...0
        let count = max(1, channels)
        let perLane = (count + Self.maxLanes - 1) / Self.maxLanes
        let laneCount = (count + perLane - 1) / perLane
        let lanesTop = loudnessBottom + 10
        let gap = 4.0
        let laneHeight = max(4, (bottom - lanesTop - gap * Double(laneCount - 1)) / Double(laneCount))
        lanes = (0..<laneCount).map { index in
            let first = index * perLane
            let laneTop = (lanesTop + Double(index) * (laneHeight + gap)).rounded()
            return Lane(channels: first..<min(count, first + perLane), top: laneTop, bottom: laneTop + laneHeight.rounded(.down))
        }
    }

    /// The plotting area's width in pixels.
    public var plotWidth: Double { right - left }

    /// The x of a moment (seconds from the file's start), clamped to the plot.
    public func x(seconds: Double) -> Double {
        guard seconds.isFinite else { return left }
        return left + min(max(seconds / duration, 0), 1) * plotWidth
    }

    /// The y of a loudness in the loudness panel, clamped to it.
    public func y(lufs: Double) -> Double {
        let clamped = min(max(lufs.isFinite ? lufs : loudnessRange.lowerBound, loudnessRange.lowerBound), loudnessRange.upperBound)
        let fraction = (clamped - loudnessRange.lowerBound) / (loudnessRange.upperBound - loudnessRange.lowerBound)
        return loudnessBottom - fraction * (loudnessBottom - loudnessTop)
    }

    /// The y of a sample value (full scale ±1, linear) in `lane`, clamped to it.
    public func y(amplitude: Double, lane: Lane) -> Double {
        let clamped = min(max(amplitude.isFinite ? amplitude : 0, -1), 1)
        return lane.middle - clamped * (lane.bottom - lane.top) / 2
    }

    /// The lane showing `channel`.
    public func lane(ofChannel channel: Int) -> Lane? { lanes.first { $0.channels.contains(channel) } }

    /// The time axis's ticks: a round step (from a millisecond to six hours) at least 90 pixels apart,
    /// labelled mm:ss, or h:mm:ss from an hour on, with the fraction a sub-second step needs.
    public var timeTicks: [Tick] {
        let steps: [Double] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300,
                               600, 900, 1_800, 3_600, 7_200, 10_800, 21_600]
        let perSecond = plotWidth / duration
        let step = steps.first { $0 * perSecond >= 90 } ?? steps[steps.count - 1]
        let decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3
        let count = Int((duration / step + 1e-9).rounded(.down))
        return (0...min(count, 10_000)).map { index in
            let seconds = Double(index) * step
            return Tick(value: seconds, label: Self.clock(seconds, hours: duration >= 3_600, decimals: decimals))
        }
    }

    /// The loudness panel's ticks, every 10 LU.
    public var loudnessTicks: [Tick] {
        stride(from: loudnessRange.upperBound, through: loudnessRange.lowerBound, by: -10).map {
            Tick(value: $0, label: $0 == 0 ? "0" : "−\(Int(-$0))")
        }
    }

    /// A lane's amplitude ticks, in dBFS at their linear place: 0, −6 and −20.
    public static let amplitudeTicks: [Tick] = [
        Tick(value: 1, label: "0"), Tick(value: 0.501_187_233_627_272_3, label: "−6"), Tick(value: 0.1, label: "−20"),
    ]

    /// `seconds` as mm:ss (or h:mm:ss) with `decimals` digits of the second.
    public static func clock(_ seconds: Double, hours: Bool, decimals: Int) -> String {
        let scale = [1.0, 10, 100, 1_000][min(max(decimals, 0), 3)]
        let units = Int64((max(0, seconds) * scale).rounded())
        let whole = units / Int64(scale)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = hours ? "\(whole / 3_600):" + pad(whole / 60 % 60, 2) : pad(whole / 60, 2)
        text += ":" + pad(whole % 60, 2)
        if decimals > 0 { text += "." + pad(units % Int64(scale), decimals) }
        return text
    }
}

// The live level readout: peak-hold ballistics and the drawing of one line per channel.
import RecorderKit

/// Peak hold as broadcast meters do it: a new peak is held for `hold` seconds, then falls at `decay` dB/s,
/// never below the current peak.
struct PeakHold {
    var hold = 1.5
    var decay: Float = 20
    private(set) var level: Float = LevelMeterState.silence
    private var heldAt = 0.0
    private var lastTime = 0.0

    mutating func update(peak: Float, at time: Double) {
        defer { lastTime = time }
        if peak >= level {
            level = peak
            heldAt = time
            return
        }
        let decayStart = heldAt + hold
        guard time > decayStart else { return }
        let falling = time - max(decayStart, lastTime)
        level = max(peak, level - decay * Float(falling))
    }
}

/// What one redraw shows.
struct DisplayState {
    var elapsed = 0.0
    var averages: [Float]
    var peaks: [Float]
    var holds: [PeakHold]
    /// Latched once any sample reached full scale.
    var clipped = false
    var bytesWritten: Int64?

    init(channelCount: Int) {
        averages = [Float](repeating: LevelMeterState.silence, count: channelCount)
        peaks = averages
        holds = [PeakHold](repeating: PeakHold(), count: channelCount)
    }

    /// Takes one buffer's reading at `time` seconds.
    mutating func take(_ channels: [LevelMeterState], at time: Double) {
        elapsed = time
        for (index, state) in channels.enumerated() where index < averages.count {
            averages[index] = state.averagePower
            peaks[index] = state.peakPower
            holds[index].update(peak: state.peakPower, at: time)
            if state.peakPower >= LevelDisplay.clipThreshold { clipped = true }
        }
    }
}

enum LevelDisplay {
    /// The bar's scale: −60 … 0 dBFS.
    static let floor: Float = -60
    /// A buffer peak at or above this (a sample of ±32 767 or more) is a clip.
    static let clipThreshold: Float = -0.001
    /// Colour zones of the average level, as the seed gauge: green below −15, yellow below −2, red above.
    static let yellowFrom: Float = -15
    static let redFrom: Float = -2

    private static let reset = "\u{1B}[0m"
    private static func colour(_ level: Float) -> String {
        level >= redFrom ? "\u{1B}[31m" : level >= yellowFrom ? "\u{1B}[33m" : "\u{1B}[32m"
    }

    /// One line per channel, each at most `width - 1` visible characters so the terminal never wraps.
    static func render(_ state: DisplayState, width: Int, colour useColour: Bool) -> [String] {
        let channels = state.averages.count
        return (0..<channels).map { channel in
            let time = channel == 0 ? clock(state.elapsed) : String(repeating: " ", count: 7)
            let label = channels > 1 ? " ch\(channel + 1)" + (channel + 1 < 10 ? " " : "") : ""
            let numbers = " avg \(decibels(state.averages[channel])) pk \(decibels(state.peaks[channel])) dBFS"
            let clip = state.clipped ? " CLIP" : "     "
            let size = channel == 0 ? state.bytesWritten.map { " " + bytes($0) } ?? "" : ""
            var fixed = time + label + " []" + numbers + clip
            var tail = size
            if width - 1 - (fixed.count + tail.count) < 10 { tail = "" }
            var barWidth = width - 1 - (fixed.count + tail.count)
            if barWidth < 10 {
                fixed = time + label + numbers + clip
                barWidth = 0
            }
            let line: String
            if barWidth > 0 {
                let bar = drawBar(average: state.averages[channel], hold: state.holds[channel].level,
                                  width: barWidth, colour: useColour)
                line = time + label + " [" + bar + "]" + numbers
            } else {
                line = time + label + numbers
            }
            let clipText = state.clipped && useColour ? " \u{1B}[1;31mCLIP" + reset : clip
            return line + clipText + tail
        }
    }

    static func drawBar(average: Float, hold: Float, width: Int, colour useColour: Bool) -> String {
        func cells(_ level: Float) -> Int {
            Int(((max(floor, min(0, level)) - floor) / -floor * Float(width)).rounded(.down))
        }
        let filled = average > floor ? max(1, cells(average)) : 0
        let marker = hold > floor ? min(width - 1, cells(hold)) : -1
        var plain = ""
        for index in 0..<width {
            plain.append(index == marker && index >= filled ? "|" : index < filled ? "#" : ".")
        }
        guard useColour, filled > 0 else { return plain }
        let split = plain.index(plain.startIndex, offsetBy: filled)
        return colour(average) + plain[..<split] + reset + plain[split...]
    }

    /// −9.03 → " -9.0"; silence → " -inf".
    static func decibels(_ value: Float) -> String {
        if value <= LevelMeterState.silence { return " -inf" }
        let tenths = Int((value * 10).rounded())
        let text = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
    }

    /// 63.4 → "01:03.4".
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded(.down))
        let minutes = tenths / 600
        let rest = tenths % 600
        return (minutes < 10 ? "0" : "") + "\(minutes):" + (rest < 100 ? "0" : "") + "\(rest / 10).\(rest % 10)"
    }

    static func bytes(_ count: Int64) -> String {
        if count < 1_024 { return "\(count) B" }
        if count < 1_048_576 { return "\(count / 1_024) KiB" }
        let tenths = count * 10 / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}

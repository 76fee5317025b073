// The live level readout: one line per channel, drawn for the default view or for a standard meter.
import RecorderKit

/// What one redraw shows.
struct DisplayState {
    var elapsed = 0.0
    var averages: [Float]
    var peaks: [Float]
    /// The selected meter's values (the held sample peak, dBFS, in the default view), per channel.
    var values: [Double]
    var clipEvents: [Int64]
    var loudness: LoudnessReading?
    /// Latched once any sample reached full scale.
    var clipped = false
    var bytesWritten: Int64?
    /// The programme's length (play): the clock reads "elapsed / total".
    var total: Double?
    /// A word after the first line's numbers and the size written ("paused").
    var status: String?
    /// Markers dropped so far (record), shown after the status when there are any.
    var markers = 0
    /// A take of several sources: each source's name and its channels' range, for a titled group of bars
    /// per source; empty for one source.
    var groups: [(name: String, channels: Range<Int>)] = []

    init(channelCount: Int) {
        averages = [Float](repeating: LevelMeterState.silence, count: channelCount)
        peaks = averages
        values = [Double](repeating: -.infinity, count: channelCount)
        clipEvents = [Int64](repeating: 0, count: channelCount)
    }

    /// Takes one buffer's reading at `time` seconds.
    mutating func take(_ reading: MeterReading, at time: Double) {
        elapsed = time
        for (index, state) in reading.levels.enumerated() where index < averages.count {
            averages[index] = state.averagePower
            peaks[index] = state.peakPower
            if state.peakPower >= LevelDisplay.clipThreshold { clipped = true }
        }
        values = reading.values
        clipEvents = reading.clipEvents
        loudness = reading.loudness
    }
}

/// How a meter is drawn: the bar's range, a mark on the scale (reference, permitted maximum or target),
/// and how a value reads.
struct MeterScale {
    var low: Double
    var high: Double
    /// Drawn as ':' on the bar where the bar does not reach; above it the bar is red, within 6 dB of it
    /// yellow.
    var mark: Double?
    /// The value as the scale reads it, e.g. "-3.2 VU".
    var text: (Double) -> String

    /// Where `value` falls, in cells of a `width`-cell bar (0 ... width).
    func cells(_ value: Double, width: Int) -> Int {
        guard !value.isNaN, value > -.infinity else { return 0 }
        let clamped = max(low, min(high, value))
        return Int(((clamped - low) / (high - low) * Double(width)).rounded(.down))
    }

    /// The scale of each `--meter`; `target` is the loudness target (LUFS).
    static func of(_ kind: MeterKind, target: Double) -> MeterScale {
        switch kind {
        case .peak:
            MeterScale(low: -60, high: 0, mark: nil) { "hold " + LevelDisplay.decibels($0) + " dBFS" }
        case .vu:
            // The VU scale: −20 … +3 VU, 0 VU at the reference.
            MeterScale(low: -20, high: 3, mark: 0) { LevelDisplay.decibels($0) + " VU" }
        case .ppm1:
            // DIN scale: 0 dB is the permitted maximum level, 9 dB over the −18 dBFS alignment (EBU R68).
            MeterScale(low: -50, high: 5, mark: 0) { LevelDisplay.decibels($0) + " dB DIN" }
        case .ppm2:
            // BBC marks 1 … 7, 4 dB apart; mark 4 is the −18 dBFS alignment, mark 6 the permitted maximum.
            MeterScale(low: 0, high: 8, mark: 6) { "PPM " + ($0.isFinite ? LevelDisplay.decimal($0, width: 4) : "   -") }
        case .loudness:
            // The EBU +9 scale: 18 LU under the target to 9 LU over it.
            MeterScale(low: target - 18, high: target + 9, mark: target) { "M " + LevelDisplay.decibels($0) }
        }
    }

    /// `kind`'s raw value (`MeterReading.values`) on its scale: DIN dB for type I, BBC marks for type II.
    static func scaled(_ value: Double, kind: MeterKind) -> Double {
        // Silence (RecorderKit's −160) has no place on a scale.
        guard value > Double(LevelMeterState.silence) else { return -.infinity }
        return switch kind {
        case .ppm1: value + 9
        case .ppm2: value.isFinite ? 4 + (value + 18) / 4 : value
        default: value
        }
    }
}

enum LevelDisplay {
    /// The default bar's scale: −60 … 0 dBFS.
    static let floor: Float = -60
    /// A buffer peak at or above this (a sample of ±32 767 or more) is a clip.
    static let clipThreshold: Float = -0.001
    /// Colour zones of the average level, as the seed gauge: green below −15, yellow below −2, red above.
    static let yellowFrom: Float = -15
    static let redFrom: Float = -2

    private static let reset = "\u{1B}[0m"
    private static let red = "\u{1B}[31m", yellow = "\u{1B}[33m", green = "\u{1B}[32m"

    /// One line per channel (for loudness, two lines for the programme), each at most `width - 1`
    /// visible characters so the terminal never wraps. `meter` nil is the default view: average bar,
    /// held-peak marker, average and peak numbers.
    static func render(_ state: DisplayState, width: Int, colour useColour: Bool,
                       meter: MeterKind? = nil, target: Double = -23) -> [String] {
        let lines = renderChannels(state, width: width, colour: useColour, meter: meter, target: target)
        guard !state.groups.isEmpty, meter != .loudness, lines.count == state.values.count else { return lines }
        // A title before each source's bars: "── mic ──" (the channel numbers stay the take's).
        var titled: [String] = []
        for group in state.groups {
            titled.append(String(("── " + group.name + " ──").prefix(max(0, width - 1))))
            titled += group.channels.filter { $0 < lines.count }.map { lines[$0] }
        }
        return titled
    }

    private static func renderChannels(_ state: DisplayState, width: Int, colour useColour: Bool,
                                       meter: MeterKind?, target: Double) -> [String] {
        guard let meter else { return renderDefault(state, width: width, colour: useColour) }
        let scale = MeterScale.of(meter, target: target)
        if meter == .loudness {
            let loudness = state.loudness
            let momentary = loudness?.momentary ?? -.infinity
            let peaks = state.values.filter(\.isFinite)
            let details = " S " + decibels(loudness?.shortTerm ?? -.infinity) + " I "
                + decibels(loudness?.integrated ?? -.infinity) + " LUFS (target " + decimal(target, width: 0) + ")"
            let second = String(repeating: " ", count: 8) + "LRA " + decibels(loudness?.loudnessRange ?? -.infinity)
                + " LU  TP " + decibels(peaks.max() ?? -.infinity) + " dBTP"
            let first = lines([Line(prefix: timeText(state, first: true), value: momentary, scale: scale,
                                    numbers: " " + scale.text(momentary) + details, suffix: clipText(state, useColour),
                                    tail: tail(state))], width: width, colour: useColour)
            return first + [String(second.prefix(max(0, width - 1)))]
        }
        let channels = state.values.count
        return lines((0..<channels).map { channel in
            let value = MeterScale.scaled(state.values[channel], kind: meter)
            var numbers = " " + scale.text(value)
            var barValue = value
            if meter == .peak {
                barValue = Double(state.peaks[channel])
                numbers = " pk " + decibels(state.peaks[channel]) + numbers + " clips \(state.clipEvents[channel])"
            }
            return Line(prefix: timeText(state, first: channel == 0) + label(channel, of: channels),
                        value: barValue, hold: meter == .peak ? value : nil, scale: scale, numbers: numbers,
                        suffix: clipText(state, useColour), tail: channel == 0 ? tail(state) : "")
        }, width: width, colour: useColour)
    }

    private static func renderDefault(_ state: DisplayState, width: Int, colour useColour: Bool) -> [String] {
        let channels = state.averages.count
        let scale = MeterScale(low: Double(floor), high: 0, mark: nil) { _ in "" }
        return lines((0..<channels).map { channel in
            let average = state.averages[channel]
            let numbers = " avg \(decibels(average)) pk \(decibels(state.peaks[channel])) dBFS"
            return Line(prefix: timeText(state, first: channel == 0) + label(channel, of: channels),
                        value: Double(average), hold: state.values[channel], scale: scale, numbers: numbers,
                        suffix: clipText(state, useColour), tail: channel == 0 ? tail(state) : "",
                        zone: colour(average))
        }, width: width, colour: useColour)
    }

    /// One line of the readout: prefix [bar] numbers suffix tail.
    private struct Line {
        var prefix: String
        var value: Double
        var hold: Double? = nil
        var scale: MeterScale
        var numbers: String
        var suffix: (plain: String, shown: String)
        var tail: String
        var zone: String? = nil

        /// Everything but the bar, as it counts on screen.
        var fixedCount: Int { prefix.count + 3 + numbers.count + suffix.plain.count }
    }

    /// Draws `lines` with one bar width for all, so the channels' bars share one scale: the widest
    /// line's text decides it. The tail (on the first line) goes first, then the bars, when the width is short.
    private static func lines(_ lines: [Line], width: Int, colour useColour: Bool) -> [String] {
        var lines = lines
        func widest() -> Int { lines.map { $0.fixedCount + $0.tail.count }.max() ?? 0 }
        if width - 1 - widest() < 10 {
            for index in lines.indices { lines[index].tail = "" }
        }
        let barWidth = width - 1 - widest()
        return lines.map { line in
            guard barWidth >= 10 else {
                return String((line.prefix + line.numbers).prefix(max(0, width - 1 - line.suffix.plain.count))) + line.suffix.shown
            }
            let bar = drawBar(value: line.value, hold: line.hold, scale: line.scale, width: barWidth,
                              colour: useColour ? line.zone ?? colour(line.value, scale: line.scale) : nil)
            return line.prefix + " [" + bar + "]" + line.numbers + line.suffix.shown + line.tail
        }
    }

    private static func clipText(_ state: DisplayState, _ useColour: Bool) -> (plain: String, shown: String) {
        guard state.clipped else { return ("     ", "     ") }
        return (" CLIP", useColour ? " \u{1B}[1;31mCLIP" + reset : " CLIP")
    }

    private static func tail(_ state: DisplayState) -> String {
        var tail = state.bytesWritten.map { " " + bytes($0) } ?? ""
        if let status = state.status { tail += " " + status }
        if state.markers > 0 { tail += " \(state.markers) marker" + (state.markers == 1 ? "" : "s") }
        return tail
    }

    /// "01:03.4", or "01:03.4 / 03:20.0" with a total; blanks of the same width on the other lines.
    private static func timeText(_ state: DisplayState, first: Bool) -> String {
        let text = clock(state.elapsed) + (state.total.map { " / " + clock($0) } ?? "")
        return first ? text : String(repeating: " ", count: text.count)
    }

    private static func clock(_ seconds: Double?) -> String {
        seconds.map(clock) ?? String(repeating: " ", count: 7)
    }

    private static func label(_ channel: Int, of channels: Int) -> String {
        channels > 1 ? " ch\(channel + 1)" + (channel + 1 < 10 ? " " : "") : ""
    }

    private static func colour(_ level: Float) -> String {
        level >= redFrom ? red : level >= yellowFrom ? yellow : green
    }

    private static func colour(_ value: Double, scale: MeterScale) -> String {
        guard let mark = scale.mark else { return value >= Double(redFrom) ? red : value >= Double(yellowFrom) ? yellow : green }
        // Yellow within 6 dB under the mark (1.5 marks on the BBC scale, whose marks are 4 dB apart).
        let yellowZone = scale.high - scale.low <= 10 ? 1.5 : 6
        return value > mark ? red : value > mark - yellowZone ? yellow : green
    }

    /// `#` up to the value, `|` at the held peak, `:` at the scale's mark, `.` elsewhere.
    static func drawBar(value: Double, hold: Double?, scale: MeterScale, width: Int, colour: String?) -> String {
        let filled = value > scale.low ? max(1, scale.cells(value, width: width)) : 0
        let marker = hold.flatMap { $0 > scale.low ? min(width - 1, scale.cells($0, width: width)) : nil }
        let markAt = scale.mark.map { min(width - 1, scale.cells($0, width: width)) }
        var plain = ""
        for index in 0..<width {
            plain.append(index < filled ? "#" : index == marker ? "|" : index == markAt ? ":" : ".")
        }
        guard let colour, filled > 0 else { return plain }
        let split = plain.index(plain.startIndex, offsetBy: filled)
        return colour + plain[..<split] + reset + plain[split...]
    }

    /// −9.03 → " -9.0"; silence → " -inf".
    static func decibels(_ value: Float) -> String { decibels(Double(value)) }

    static func decibels(_ value: Double) -> String {
        if !value.isFinite || value <= Double(LevelMeterState.silence) { return " -inf" }
        return decimal(value, width: 5)
    }

    /// One decimal, right-aligned in `width` characters (a finite value: callers show −∞ their own way).
    static func decimal(_ value: Double, width: Int) -> String {
        guard value.isFinite else { return String(repeating: " ", count: max(0, width - 1)) + "-" }
        let tenths = Int((value * 10).rounded())
        let text = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
        return String(repeating: " ", count: max(0, width - text.count)) + text
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

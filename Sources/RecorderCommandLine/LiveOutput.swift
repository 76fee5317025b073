// What `record` and `meter` show while they run: the redrawn terminal readout and the JSON level lines.
import Glibc
import RecorderKit
import Locking

/// Draws the readout on stderr (only when it is a terminal) and writes `--levels-json` lines.
///
/// The readout is redrawn as readings arrive (10 Hz with 100 ms buffers), at most every 50 ms: no timer,
/// so no wake-ups beyond the readings themselves (a 12.5 Hz timer doubled the readout's CPU cost).
package final class LiveOutput: Sendable {
    private let state: Locked<DisplayState>
    private let drawing: Bool
    private let json: Bool
    private let jsonChannel: OutputChannel
    private let path: String?
    private let colour: Bool
    private let meter: MeterKind?
    private let target: Double
    private let linesDrawn = Locked(0)
    /// Seconds into the file of the latest reading, for the time of an output failure.
    private let lastTime = Locked(0.0)
    private let lastDraw = Locked<ContinuousClock.Instant?>(nil)
    /// Held while writing to the terminal, so a drawing and an event line never interleave.
    private let terminal = PosixMutex()
    /// Where each event's JSON line is also sent (`--webhook`).
    private let forward = Locked<(@Sendable (String) -> Void)?>(nil)
    /// A line under the readout naming the keys (when they are read).
    private let hint = Locked<String?>(nil)

    /// Writes a plain line a second on stdout (`meter` without a terminal or JSON).
    private let plain: Bool
    /// The sources' part of every JSON line (empty for one source).
    private let sourcesJSON: String
    /// The time (seconds) at which the next plain line is due.
    private let nextPlain = Locked(1.0)

    /// `meter` nil is the default view (average and peak); `target` is the loudness scale's mark.
    /// `jsonTo`: where the `--levels-json` lines go (standard error when the audio itself is on standard output).
    /// `sources`: a take of several sources, whose bars are grouped and titled, and whose JSON lines say
    /// which channels are whose.
    init(channelCount: Int, display: Bool, json: Bool, path: String?, meter: MeterKind? = nil, target: Double = -23,
         plain: Bool = false, jsonTo: OutputChannel = standardOutput, sources: [SourceReport] = []) {
        self.plain = plain
        jsonChannel = jsonTo
        var initial = DisplayState(channelCount: channelCount)
        if sources.count > 1 {
            initial.groups = sources.map { ($0.name, $0.firstChannel..<($0.firstChannel + $0.channelCount)) }
            sourcesJSON = ", \"sources\": [" + sources.map { source in
                "{\"name\": \(jsonString(source.name)), \"first_channel\": \(source.firstChannel), \"channels\": \(source.channelCount)}"
            }.joined(separator: ", ") + "]"
        } else {
            sourcesJSON = ""
        }
        state = Locked(initial)
        self.meter = meter
        self.target = target
        drawing = display
        self.json = json
        self.path = path
        let noColour = environment("NO_COLOR").map { !$0.isEmpty } ?? false
        colour = !noColour
    }

    /// True when stderr is a terminal: the only case with a live readout.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Takes one reading: `frames` frames so far, `time` seconds so far (the JSON's), `clock` the time
    /// the readout shows (default `time`; record: the file's length, pauses left out).
    func take(_ reading: MeterReading, frames: Int64, time: Double, clock: Double? = nil) {
        state.withLock { $0.take(reading, at: clock ?? time) }
        lastTime.withLock { $0 = time }
        if drawing {
            let now = ContinuousClock.now
            let due = lastDraw.withLock { last in
                guard last.map({ now - $0 >= .milliseconds(50) }) ?? true else { return false }
                last = now
                return true
            }
            if due { draw() }
        }
        if json {
            let line = Self.jsonLine(reading, frames: frames, time: time, meter: meter)
            jsonChannel.write(String(line.dropLast()) + sourcesJSON + "}\n")
        }
        if plain {
            let due = nextPlain.withLock { next in
                guard time >= next else { return false }
                next = time.rounded(.down) + 1
                return true
            }
            if due { writeOutput(Self.plainLine(reading, time: time, meter: meter) + "\n") }
        }
    }

    /// The plain line of one reading: "00:01.0 avg -9.03 pk -6.02 dBFS", lists for several channels,
    /// and the meter's values; silence "-inf".
    static func plainLine(_ reading: MeterReading, time: Double, meter: MeterKind?) -> String {
        func number(_ value: Double) -> String {
            value.isFinite && value > Double(LevelMeterState.silence) ? format(value, 2) : "-inf"
        }
        func list(_ values: [Double]) -> String {
            values.count == 1 ? number(values[0]) : "[" + values.map(number).joined(separator: ", ") + "]"
        }
        var line = LevelDisplay.clock(time) + " avg " + list(reading.levels.map { Double($0.averagePower) })
            + " pk " + list(reading.levels.map { Double($0.peakPower) }) + " dBFS"
        switch meter {
        case nil: break
        case .peak?: line += ", hold " + list(reading.values) + " dBFS"
        case .vu?: line += ", " + list(reading.values) + " VU"
        case .ppm1?: line += ", " + list(reading.values.map { MeterScale.scaled($0, kind: .ppm1) }) + " dB DIN"
        case .ppm2?: line += ", PPM " + list(reading.values.map { MeterScale.scaled($0, kind: .ppm2) })
        case .loudness?:
            line += ", M " + number(reading.loudness?.momentary ?? -.infinity) + " S "
                + number(reading.loudness?.shortTerm ?? -.infinity) + " I " + number(reading.loudness?.integrated ?? -.infinity) + " LUFS"
        }
        return line
    }

    /// `--levels-json`'s line for one buffer: t, frames, average_db, peak_db, and with `meter` its values.
    package static func jsonLine(_ reading: MeterReading, frames: Int64, time: Double, meter: MeterKind?) -> String {
        // JSON's one spelling of silence and of what is undefined: null (the API's −160 included).
        func number(_ value: Double?) -> String {
            guard let value, value.isFinite, value > Double(LevelMeterState.silence) else { return "null" }
            return format(value, 2)
        }
        func list(_ values: [Double]) -> String { "[" + values.map(number).joined(separator: ", ") + "]" }
        var line = "{\"t\": \(format(time, 3)), \"frames\": \(frames), "
            + "\"average_db\": \(list(reading.levels.map { Double($0.averagePower) })), "
            + "\"peak_db\": \(list(reading.levels.map { Double($0.peakPower) }))"
        switch meter {
        case nil: break
        case .peak?:
            line += ", \"meter\": \"peak\", \"peak_hold_dbfs\": \(list(reading.values)), "
                + "\"clipped_samples\": [\(reading.clippedSamples.map(String.init).joined(separator: ", "))], "
                + "\"clip_events\": [\(reading.clipEvents.map(String.init).joined(separator: ", "))]"
        case .vu?:
            line += ", \"meter\": \"vu\", \"vu\": \(list(reading.values))"
        case .ppm1?:
            line += ", \"meter\": \"ppm1\", \"ppm_db\": \(list(reading.values)), "
                + "\"din_db\": \(list(reading.values.map { MeterScale.scaled($0, kind: .ppm1) }))"
        case .ppm2?:
            line += ", \"meter\": \"ppm2\", \"ppm_db\": \(list(reading.values)), "
                + "\"bbc_mark\": \(list(reading.values.map { MeterScale.scaled($0, kind: .ppm2) }))"
        case .loudness?:
            let loudness = reading.loudness
            line += ", \"meter\": \"loudness\", \"momentary_lufs\": \(number(loudness?.momentary)), "
                + "\"short_term_lufs\": \(number(loudness?.shortTerm)), "
                + "\"integrated_lufs\": \(number(loudness?.integrated)), "
                + "\"loudness_range_lu\": \(number(loudness?.loudnessRange)), "
                + "\"true_peak_dbtp\": \(list(reading.values))"
        }
        return line + "}"
    }

    /// Sends each event's JSON line from now on to `events` too (with or without --levels-json), unless
    /// reported with `forward: false`. `events` must not block.
    func forwardEvents(_ events: @escaping @Sendable (String) -> Void) {
        forward.withLock { $0 = events }
    }

    /// Reports an event: its line on stderr (above the readout, which is drawn again below it), its
    /// JSON line with --levels-json, and that line to where events are forwarded (unless `forward` is false).
    func report(_ report: EventReport, showMessage: Bool = true, forward forwarding: Bool = true) {
        if showMessage, let message = report.message {
            terminal.withLock {
            if drawing {
                let previous = linesDrawn.withLock { count in
                    defer { count = 0 }
                    return count
                }
                // Clear the readout, print the message where it was, and draw the readout below it, in
                // one write: the terminal never shows the message without the readout.
                drawLocked(above: (previous > 1 ? "\u{1B}[\(previous - 1)A" : "") + "\r\u{1B}[J" + "recorder: "
                           + visible(message) + "\n")
            } else {
                writeLine("recorder: " + message)
            }
            }
        }
        if json, let line = report.json { jsonChannel.write(line + "\n") }
        if forwarding, let line = report.json, let events = forward.withLock({ $0 }) { events(line) }
    }

    /// Says once, above the readout, that standard output failed and the recording goes on without it.
    func outputFailed(_ code: Int32) {
        let time = lastTime.withLock { $0 }
        let message = "warning: at \(clock(time)) \(describeOutputFailure(code, "standard output")); the recording "
            + "goes on, without more level lines"
        report(EventReport(message: message, json: nil))
    }

    /// Sets the programme's length (the clock reads "elapsed / total") and the word shown after the
    /// numbers ("paused"), and redraws.
    func setStatus(_ status: String?, total: Double? = nil) {
        state.withLock { state in
            state.status = status
            if let total { state.total = total }
        }
        if drawing { draw() }
    }

    /// Counts a marker in the readout.
    func addMarker() {
        state.withLock { $0.markers += 1 }
        if drawing { draw() }
    }

    /// Shows `text` under the readout from now on (the keys).
    func setHint(_ text: String?) {
        hint.withLock { $0 = text }
    }

    /// Draws the first (empty) readout at once, so the line is there before the first buffer.
    func start() {
        if drawing { draw() }
    }

    /// Draws the last state and leaves the cursor on a new line.
    func finish() async {
        guard drawing else { return }
        hint.withLock { $0 = nil }  // the keys are over
        draw()
        writeError("\n")
    }

    private func draw() {
        terminal.withLock { drawLocked() }
    }

    /// Draws the readout where it was, after `above` (text that ends where the readout begins).
    private func drawLocked(above: String = "") {
        var current = state.withLock { $0 }
        if let path {
            var status = stat()
            if stat(path, &status) == 0 { current.bytesWritten = Int64(status.st_size) }
        }
        let width = Self.terminalWidth()
        var lines = LevelDisplay.render(current, width: width, colour: colour, meter: meter, target: target)
        if let hint = hint.withLock({ $0 }) { lines.append(String(hint.prefix(max(0, width - 1)))) }
        let previous = linesDrawn.withLock { count in
            defer { count = lines.count }
            return count
        }
        // Back to the first line of the previous drawing, then rewrite each line and clear its rest.
        // The cursor is left at column 0, so a "^C" the terminal echoes lands inside the line (and is
        // drawn over) instead of wrapping a full-width line onto the next one.
        var text = above + (previous > 1 ? "\u{1B}[\(previous - 1)A" : "")
        // A drawing with fewer lines than the last (the hint gone) clears what is left below it.
        text += lines.map { "\r" + $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J\r"
        writeError(text)
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(environment("COLUMNS") ?? "") ?? 80
    }
}

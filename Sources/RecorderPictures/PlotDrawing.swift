// The drawing of one plot, part by part, back to front: panels and grids, the target band, the loudness
// curves and the integrated line, the waveform lanes with their ceilings, gaps and markers, overs on
// top, then the axes' labels, the legend and the caption.
import Glibc
import RecorderKit

struct PlotDrawing {
    let canvas: Canvas
    let layout: PlotLayout
    let analysis: FileAnalysis
    let options: PlotOptions
    typealias Palette = Plot.Palette

    func draw() {
        canvas.fillRectangle(x: 0, y: 0, width: Double(layout.width), height: Double(layout.height), Palette.background)
        panels()
        loudness()
        waveforms()
        markers()
        overs()
        labels()
        caption()
    }

    /// The time the plot spans (the length the file announced, when it ends early).
    private var seconds: Double { layout.duration }

    private func panels() {
        let width = layout.plotWidth
        canvas.fillRectangle(x: layout.left, y: layout.loudnessTop, width: width,
                             height: layout.loudnessBottom - layout.loudnessTop, Palette.panel)
        for lane in layout.lanes {
            canvas.fillRectangle(x: layout.left, y: lane.top, width: width, height: lane.bottom - lane.top, Palette.panel)
        }
        for tick in layout.loudnessTicks {
            let y = layout.y(lufs: tick.value)
            canvas.line(layout.left, y, layout.right, y, Palette.grid)
        }
        for tick in layout.timeTicks {
            let x = layout.x(seconds: tick.value)
            canvas.line(x, layout.loudnessTop, x, layout.lanes.last?.bottom ?? layout.loudnessBottom, Palette.grid)
        }
    }

    private func loudness() {
        // The target band, then the curves, then the integrated line over them.
        let top = layout.y(lufs: options.target + options.tolerance)
        let bottom = layout.y(lufs: options.target - options.tolerance)
        canvas.fillRectangle(x: layout.left, y: top, width: layout.plotWidth, height: max(1, bottom - top), Palette.targetBand)
        canvas.line(layout.left, layout.y(lufs: options.target), layout.right, layout.y(lufs: options.target),
                    Palette.integrated, width: 0.5, dash: [4, 3])
        if let series = analysis.loudnessSeries {
            canvas.polyline(curve(series.momentary, stepFrames: series.stepFrames), Palette.momentary, width: 1)
            canvas.polyline(curve(series.shortTerm, stepFrames: series.stepFrames), Palette.shortTerm, width: 1.5)
        }
        if let integrated = analysis.integrated {
            let y = layout.y(lufs: integrated)
            canvas.line(layout.left, y, layout.right, y, Palette.integrated, width: 1.5)
        }
    }

    /// A loudness series as points: each value at the end of its window, or, when there are more values
    /// than pixels, the highest of each pixel column's values (so no peak of the curve is lost).
    private func curve(_ values: [Float?], stepFrames: Int) -> [(x: Double, y: Double)?] {
        let rate = Double(max(analysis.sampleRate, 1))
        let step = Double(stepFrames) / rate
        let columns = max(1, Int(layout.plotWidth))
        guard Double(values.count) > layout.plotWidth else {
            return values.enumerated().map { index, value in
                value.map { (layout.x(seconds: Double(index + 1) * step), layout.y(lufs: Double($0))) }
            }
        }
        var highest = [Float?](repeating: nil, count: columns)
        var seen = [Bool](repeating: false, count: columns)
        for (index, value) in values.enumerated() {
            let column = min(columns - 1, Int(Double(index + 1) * step / seconds * Double(columns)))
            seen[column] = true
            if let value { highest[column] = max(highest[column] ?? value, value) }
        }
        return (0..<columns).compactMap { column -> (x: Double, y: Double)?? in
            guard seen[column] else { return .none }
            return .some(highest[column].map { (layout.left + Double(column) + 0.5, layout.y(lufs: Double($0))) })
        }
    }

    private func waveforms() {
        let ceiling = pow(10, analysis.overCeiling / 20)
        for lane in layout.lanes {
            canvas.line(layout.left, lane.middle, layout.right, lane.middle, Palette.grid)
            for tick in PlotLayout.amplitudeTicks.dropFirst() {
                for sign in [1.0, -1.0] {
                    let y = layout.y(amplitude: sign * tick.value, lane: lane)
                    canvas.line(layout.left, y, layout.right, y, Palette.grid, width: 0.5)
                }
            }
            if let waveform = analysis.waveform {
                var peaks: [(x: Double, top: Double, bottom: Double)] = []
                var bands: [(x: Double, top: Double, bottom: Double)] = []
                for (index, column) in waveform.columns.enumerated() {
                    let channels = lane.channels.clamped(to: 0..<column.minimum.count)
                    guard !channels.isEmpty else { continue }
                    let low = channels.map { column.minimum[$0] }.min()!, high = channels.map { column.maximum[$0] }.max()!
                    let rms = channels.map { column.rms[$0] }.max()!
                    // Silence (a column at exactly 0) draws nothing: the zero line is the grid's.
                    guard high > low || high != 0 else { continue }
                    let x = layout.left + Double(index) + 0.5
                    peaks.append((x, layout.y(amplitude: Double(high), lane: lane), max(layout.y(amplitude: Double(low), lane: lane),
                                                                                        layout.y(amplitude: Double(high), lane: lane) + 1)))
                    if rms > 0 {
                        // As audio editors draw it: ±RMS about the zero line, darker inside the peaks.
                        bands.append((x, layout.y(amplitude: Double(rms), lane: lane), layout.y(amplitude: -Double(rms), lane: lane)))
                    }
                }
                canvas.verticals(peaks, Palette.waveform)
                canvas.verticals(bands, Palette.rms)
            }
            if ceiling < 1 {
                for sign in [1.0, -1.0] {
                    let y = layout.y(amplitude: sign * ceiling, lane: lane)
                    canvas.line(layout.left, y, layout.right, y, Palette.ceiling, width: 0.75, dash: [6, 3])
                }
            }
        }
    }

    /// The gap a marker stands for, in seconds, when it is a recorder's loss marker ("gap 1.148 s: …").
    static func gapSeconds(_ label: String) -> Double? {
        guard label.hasPrefix("gap ") else { return nil }
        let number = label.dropFirst(4).prefix { $0.isNumber || $0 == "." }
        guard let value = Double(String(number)), label.dropFirst(4 + number.count).hasPrefix(" s") else { return nil }
        return value
    }

    private func markers() {
        let top = layout.loudnessTop, bottom = layout.lanes.last?.bottom ?? layout.loudnessBottom
        let rate = Double(max(analysis.sampleRate, 1))
        for marker in analysis.markers {
            let start = Double(marker.frame) / rate
            let x = layout.x(seconds: start)
            if let gap = Self.gapSeconds(marker.label) {
                let end = layout.x(seconds: start + gap)
                canvas.fillRectangle(x: x, y: top, width: max(1, end - x), height: bottom - top, Palette.gap)
            }
            canvas.line(x, top, x, bottom, Palette.marker, width: 1, dash: [3, 2])
        }
    }

    /// Each over: the lane shaded where it is, and a solid strip along the lane's top (true peak) or
    /// bottom (clipped samples), at least a pixel wide, so the waveform under it stays visible.
    private func overs() {
        let rate = Double(max(analysis.sampleRate, 1))
        for over in analysis.overs {
            guard let lane = layout.lane(ofChannel: over.channel) else { continue }
            let x = layout.x(seconds: Double(over.startFrame) / rate)
            let end = layout.x(seconds: Double(over.startFrame + over.frames) / rate)
            let colour = over.kind == .truePeak ? Palette.truePeakOver : Palette.clipped
            let strip = min(8, (lane.bottom - lane.top) / 4)
            canvas.fillRectangle(x: x, y: lane.top, width: max(1, end - x), height: lane.bottom - lane.top,
                                 Colour(colour, alpha: 0.18))
            canvas.fillRectangle(x: x, y: over.kind == .truePeak ? lane.top : lane.bottom - strip, width: max(1, end - x),
                                 height: strip, colour)
        }
    }

    private func labels() {
        let small = 11.0
        canvas.text(title, x: layout.left, y: 20, size: 14, Palette.text, bold: true)
        legend(size: small)
        canvas.text("LUFS", x: 8, y: layout.loudnessTop + 10, size: small, Palette.text)
        for tick in layout.loudnessTicks.dropFirst() {
            canvas.text(tick.label, x: layout.left - 6, y: layout.y(lufs: tick.value) + 4, size: small, Palette.text, anchor: .right)
        }
        for lane in layout.lanes {
            let height = lane.bottom - lane.top
            canvas.text(lane.title, x: layout.left + 4, y: lane.top + 12, size: small, Palette.text)
            guard height >= 60 else { continue }
            canvas.text("dBFS", x: 8, y: lane.top + 10, size: small - 1, Palette.text)
            for tick in PlotLayout.amplitudeTicks {
                canvas.text(tick.label, x: layout.left - 6, y: layout.y(amplitude: tick.value, lane: lane) + 4, size: small, Palette.text,
                            anchor: .right)
            }
        }
        let axis = layout.timeLabelY
        for tick in layout.timeTicks {
            // The last label kept inside the picture.
            let x = layout.x(seconds: tick.value)
            canvas.text(tick.label, x: x, y: axis, size: small, Palette.text,
                        anchor: x + 30 > Double(layout.width) ? .right : .centre)
        }
        let rate = Double(max(analysis.sampleRate, 1))
        for marker in analysis.markers {
            canvas.text(marker.label, x: layout.x(seconds: Double(marker.frame) / rate) + 3, y: layout.loudnessTop + 12, size: 10,
                        Palette.marker)
        }
    }

    private var title: String {
        let name = analysis.path.split(separator: "/").last.map(String.init) ?? analysis.path
        return "\(name) — \(analysis.channelCount) ch, \(analysis.sampleRate) Hz"
    }

    /// The key, right-aligned on the title's line: a swatch before each name.
    private func legend(size: Double) {
        let entries: [(String, Colour, Bool)] = [
            ("momentary", Palette.momentary, false), ("short-term", Palette.shortTerm, false),
            ("integrated", Palette.integrated, false),
            ("target \(fixed(options.target, 0)) ±\(fixed(options.tolerance, 0)) LU", Colour(Palette.targetBand, alpha: 0.6), true),
            ("ceiling \(fixed(analysis.overCeiling, 1)) dBTP", Palette.ceiling, false), ("true-peak over", Palette.truePeakOver, true),
            ("clipped", Palette.clipped, true), ("marker", Palette.marker, false), ("gap", Colour(Palette.gap, alpha: 0.8), true),
        ]
        var x = layout.right
        for (name, colour, box) in entries.reversed() {
            x -= canvas.measure(name, size: size)
            canvas.text(name, x: x, y: 20, size: size, Palette.text)
            x -= 18
            if box {
                canvas.fillRectangle(x: x, y: 12, width: 12, height: 9, colour)
            } else {
                canvas.line(x, 16.5, x + 12, 16.5, colour, width: 2)
            }
            x -= 12
        }
    }

    private func caption() {
        func lufs(_ value: Double?) -> String { value.map { fixed($0, 1) + " LUFS" } ?? "—" }
        let truePeak = analysis.truePeak.compactMap { $0 }.max()
        let duration = PlotLayout.clock(seconds, hours: seconds >= 3_600, decimals: 3)
        canvas.text("integrated \(lufs(analysis.integrated))   LRA \(analysis.loudnessRange.map { fixed($0, 1) + " LU" } ?? "—")   "
                    + "max true peak \(truePeak.map { fixed($0, 1) + " dBTP" } ?? "—")   max momentary \(lufs(analysis.maxMomentary))   "
                    + "max short-term \(lufs(analysis.maxShortTerm))   duration \(duration)",
                    x: layout.left, y: layout.captionY[0], size: 12, Palette.text, bold: true)
        let truePeakOvers = analysis.overs.filter { $0.kind == .truePeak }.count
        let clippedRuns = analysis.overs.count - truePeakOvers
        let perLane = layout.lanes.first?.channels.count ?? 1
        let drawn = perLane == 1 ? "every channel in its own lane"
            : "\(analysis.channelCount) channels in \(layout.lanes.count) lanes of \(perLane) (each lane: its channels' lowest, highest and loudest RMS)"
        let missing = analysis.missingFrames > 0
            ? " · the file ends \(fixed(Double(analysis.missingFrames) / Double(max(analysis.sampleRate, 1)), 3)) s before its header says" : ""
        canvas.text("\(truePeakOvers) true-peak overs, \(clippedRuns) clipped runs"
                    + (analysis.oversLeftOut > 0 ? " (and \(analysis.oversLeftOut) more not drawn)" : "")
                    + " · \(drawn) · waveform linear, ticks in dBFS; RMS band dark" + missing,
                    x: layout.left, y: layout.captionY[1], size: 11, Palette.text)
    }
}

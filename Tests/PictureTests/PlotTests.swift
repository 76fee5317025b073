// The plot read back: the SVG's marks where the test file's overs, markers and gap are, the integrated
// line at the measured loudness, the axes' labels drawn where their ticks are; the PNG's waveform
// columns where the file has sound and none where it is silent.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

/// 10 s of 48 kHz stereo: a −20 dBFS 440 Hz sine in both channels for 8 s, then digital silence; in
/// channel 1 a run of 30 full-scale samples at 2.000 s; in channel 2 a 997 Hz sine at −0.45 dBFS (over a
/// −1 dBTP ceiling, never clipped) from 6.500 s for 100 ms; markers "intro" at 1 s and a recorder's gap
/// marker at 4 s ("gap 0.500 s: …").
struct MarkedTestFile {
    static let rate = 48_000
    static let seconds = 10.0
    static let clipFrame = 96_000
    static let clipLength = 30
    static let overFrame = 312_000
    static let overLength = 4_800
    static let silentFrom = 8.0
    static let markers: [(Int, String)] = [(48_000, "intro"), (192_000, "gap 0.500 s: the system did not keep up")]

    static func write(_ path: String) throws {
        let frames = Int(seconds) * rate
        var samples = [Int16](repeating: 0, count: frames * 2)
        for frame in 0..<Int(silentFrom * Double(rate)) {
            let value = Int16((0.1 * 32_767 * sin(2 * .pi * 440 * Double(frame) / Double(rate))).rounded())
            samples[frame * 2] = value
            samples[frame * 2 + 1] = value
        }
        for frame in clipFrame..<(clipFrame + clipLength) { samples[frame * 2] = 32_767 }
        for frame in overFrame..<(overFrame + overLength) {
            samples[frame * 2 + 1] = Int16((0.95 * 32_767 * sin(2 * .pi * 997 * Double(frame - overFrame) / Double(rate))).rounded())
        }
        try writeMarkedWAV(path, samples: samples, channels: 2, sampleRate: rate, markers: markers)
    }
}

@Suite struct PlotTests {
    let options = PlotOptions(width: 1_600, height: 900, target: -23)

    func analysed(_ folder: String) throws -> FileAnalysis {
        let path = folder + "/marked.wav"
        try MarkedTestFile.write(path)
        return try FileAnalysis.analyze(path: path, request: Plot.request(options))
    }

    /// x of `seconds` computed here from the plot's edges: the time axis spans the file.
    func expectedX(_ layout: PlotLayout, _ seconds: Double) -> Double {
        layout.left + seconds / MarkedTestFile.seconds * (layout.right - layout.left)
    }

    /// The time axis of 5 s, 10 min and 10 h (and of one frame): round steps at least 90 pixels apart,
    /// mm:ss with the fraction a short file needs, h:mm:ss from an hour.
    @Test func timeIsLabelledForAnyLength() {
        func labels(_ seconds: Double) -> [String] {
            PlotLayout(width: 1_600, height: 900, duration: seconds, channels: 2, target: -23).timeTicks.map(\.label)
        }
        #expect(labels(5) == ["00:00.0", "00:00.5", "00:01.0", "00:01.5", "00:02.0", "00:02.5", "00:03.0", "00:03.5", "00:04.0",
                              "00:04.5", "00:05.0"])
        #expect(labels(600) == (0...10).map { "\($0 < 10 ? "0" : "")\($0):00" })
        #expect(labels(36_000) == (0...10).map { "\($0):00:00" })
        #expect(labels(1.0 / 48_000) == ["00:00.000"])
        let layout = PlotLayout(width: 1_600, height: 900, duration: 36_000, channels: 2, target: -23)
        let ticks = layout.timeTicks
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { layout.x(seconds: $1.value) - layout.x(seconds: $0.value) >= 90 })
    }

    @Test func theOversAreFoundWhereTheyWereWritten() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let analysis = try analysed(folder)
        let clipped = analysis.overs.filter { $0.kind == .clipped }
        #expect(clipped.count == 1)
        #expect(clipped.first?.channel == 0)
        #expect(clipped.first?.startFrame == Int64(MarkedTestFile.clipFrame))
        #expect(clipped.first?.frames == Int64(MarkedTestFile.clipLength))
        #expect(clipped.first?.clippedSamples == Int64(MarkedTestFile.clipLength))
        let overs = analysis.overs.filter { $0.kind == .truePeak && $0.channel == 1 }
        #expect(overs.count == 1)
        // The sine passes the ceiling (0.891 of full scale, the sine 0.95) within a quarter period.
        let start = overs.first.map { Int($0.startFrame) } ?? -1
        #expect((MarkedTestFile.overFrame...(MarkedTestFile.overFrame + 12)).contains(start), "over at \(start)")
        let end = overs.first.map { Int($0.startFrame + $0.frames) } ?? -1
        #expect(abs(end - (MarkedTestFile.overFrame + MarkedTestFile.overLength)) <= 12, "over ends at \(end)")
        // The full-scale step rings over the ceiling in channel 1 as well, around its run.
        let step = analysis.overs.filter { $0.kind == .truePeak && $0.channel == 0 }
        #expect(step.count == 1 && abs(Int(step[0].startFrame) - MarkedTestFile.clipFrame) <= 12)
        #expect(analysis.oversLeftOut == 0)
    }

    @Test func theSVGShowsEachOverMarkerAndGapWhereTheFilePlacesThem() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let analysis = try analysed(folder)
        let layout = try Plot.draw(analysis, to: folder + "/plot.svg", options: options)
        let svg = try readSVG(folder + "/plot.svg")
        let lanes = layout.lanes
        #expect(lanes.count == 2)
        // Overs: the solid strips (the legend's swatches are above the plot).
        func strips(_ colour: Colour) -> [SVGPath] {
            svg.paths.filter { path in
                path.isFilled(Int((colour.red * 255).rounded()), Int((colour.green * 255).rounded()), Int((colour.blue * 255).rounded()))
                    && (path.points.first?.y ?? 0) >= layout.loudnessBottom
            }
        }
        let clippedMarks = strips(Plot.Palette.clipped)
        #expect(clippedMarks.count == 1)
        let clipX = expectedX(layout, Double(MarkedTestFile.clipFrame) / Double(MarkedTestFile.rate))
        #expect(abs((clippedMarks.first?.points.first?.x ?? -99) - clipX) <= 1)
        // In channel 1's lane, along its bottom.
        #expect((clippedMarks.first?.points.map(\.y).max() ?? 0) <= lanes[0].bottom + 0.01)
        #expect((clippedMarks.first?.points.map(\.y).min() ?? 0) >= lanes[0].top)
        let overMarks = strips(Plot.Palette.truePeakOver)
        #expect(overMarks.count == 2)
        let overX = expectedX(layout, Double(MarkedTestFile.overFrame) / Double(MarkedTestFile.rate))
        let inLane2 = overMarks.filter { ($0.points.first?.y ?? 0) >= lanes[1].top }
        #expect(inLane2.count == 1)
        #expect(abs((inLane2.first?.points.first?.x ?? -99) - overX) <= 1)
        let overEnd = expectedX(layout, Double(MarkedTestFile.overFrame + MarkedTestFile.overLength) / Double(MarkedTestFile.rate))
        #expect(abs((inLane2.first?.points.map(\.x).max() ?? -99) - overEnd) <= 1)

        // The integrated line at the measured loudness, on the panel's scale computed here.
        let integrated = try #require(analysis.integrated)
        let scale = layout.loudnessRange
        let expectedY = layout.loudnessBottom - (integrated - scale.lowerBound) / (scale.upperBound - scale.lowerBound)
            * (layout.loudnessBottom - layout.loudnessTop)
        let green = Plot.Palette.integrated
        let lines = svg.paths.filter {
            $0.isStroked(Int(green.red * 255), Int((green.green * 255).rounded()), Int((green.blue * 255).rounded()))
                && $0.style["stroke-width"] == "1.5"
        }
        #expect(lines.count == 1)
        #expect(lines.first.map { $0.points.allSatisfy { abs($0.y - expectedY) < 0.5 } } == true)
        #expect(lines.first.map { abs($0.points[0].x - layout.left) < 0.5 && abs($0.points[1].x - layout.right) < 0.5 } == true)

        // Markers: dashed lines at 1 s and 4 s; the gap's span from 4 s for 0.5 s.
        let grey = Plot.Palette.marker
        let markerLines = svg.paths.filter {
            $0.isStroked(Int((grey.red * 255).rounded()), Int((grey.green * 255).rounded()), Int((grey.blue * 255).rounded()))
                && $0.style["stroke-dasharray"] != nil
        }
        let markerXs = markerLines.compactMap { $0.points.first?.x }.sorted()
        #expect(markerXs.count == 2)
        #expect(zip(markerXs, [1.0, 4.0]).allSatisfy { abs($0 - expectedX(layout, $1)) <= 1 }, "markers at \(markerXs)")
        let orange = Plot.Palette.gap
        let gaps = svg.paths.filter {
            $0.isFilled(Int((orange.red * 255).rounded()), Int((orange.green * 255).rounded()), Int((orange.blue * 255).rounded()),
                        opacity: orange.alpha) && ($0.points.first?.y ?? 0) >= layout.loudnessTop
        }
        #expect(gaps.count == 1)
        let gapXs = gaps.first?.points.map(\.x) ?? []
        #expect(abs((gapXs.min() ?? -99) - expectedX(layout, 4)) <= 1)
        #expect(abs((gapXs.max() ?? -99) - expectedX(layout, 4.5)) <= 1)

        // Labels: every time tick's label drawn under it (a glyph per character on the label line), and
        // every loudness tick's beside it.
        let ticks = layout.timeTicks
        #expect(ticks.map(\.label).prefix(3) == ["00:00", "00:01", "00:02"])
        for tick in ticks {
            let x = expectedX(layout, tick.value)
            let glyphs = svg.glyphs.filter { abs($0.y - layout.timeLabelY) < 0.5 && $0.x >= x - 60 && $0.x <= x + 45 }
            #expect(glyphs.count == tick.label.count, "label \(tick.label) at \(x): \(glyphs.count) glyphs")
        }
        for tick in layout.loudnessTicks.dropFirst() {
            let y = layout.y(lufs: tick.value) + 4
            let glyphs = svg.glyphs.filter { abs($0.y - y) < 0.5 && $0.x < layout.left }
            #expect(glyphs.count == tick.label.count, "label \(tick.label)")
        }
        // The caption's two lines are there.
        #expect(svg.glyphs.filter { abs($0.y - layout.captionY[0]) < 0.5 }.count > 60)
        #expect(svg.glyphs.filter { abs($0.y - layout.captionY[1]) < 0.5 }.count > 40)
    }

    @Test func thePNGHasWaveformColumnsWhereTheSoundIsAndNoneWhereItIsSilent() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let analysis = try analysed(folder)
        let layout = try Plot.draw(analysis, to: folder + "/plot.png", options: options)
        let image = try DecodedPNG(folder + "/plot.png")
        #expect(image.width == 1_600 && image.height == 900)
        let colours: [(Int, Int, Int)] = [components(Plot.Palette.waveform), components(Plot.Palette.rms)]
        for lane in layout.lanes {
            var sounding = 0, silent = 0
            for column in 0..<Int(layout.plotWidth) {
                let x = Int(layout.left) + column
                let drawn = (Int(lane.top)..<Int(lane.bottom)).contains { y in
                    let pixel = image.rgb(x, y)
                    return colours.contains { $0 == pixel }
                }
                // The column's time span, computed here.
                let from = Double(column) / layout.plotWidth * MarkedTestFile.seconds
                let to = Double(column + 1) / layout.plotWidth * MarkedTestFile.seconds
                // Where an over, a marker or the gap is marked, its shading tints the waveform: those columns
                // are not judged.
                let overs = [(1.99, 2.01), (6.49, 6.61), (0.99, 1.01), (3.99, 4.51)]
                if overs.contains(where: { from < $0.1 && to > $0.0 }) { continue }
                if to <= MarkedTestFile.silentFrom {
                    #expect(drawn, "no waveform at column \(column) (\(from) s)")
                    sounding += drawn ? 1 : 0
                } else if from > MarkedTestFile.silentFrom {
                    #expect(!drawn, "waveform in the silence at column \(column) (\(from) s)")
                    silent += drawn ? 0 : 1
                }
            }
            #expect(sounding > 1_000 && silent > 290)
        }
    }
}

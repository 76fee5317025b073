// The plot's SVG rendered by a real browser (Debian's headless Chromium): it draws the waveform where
// the file has sound and nothing where it is silent, as cairo's own PNG does. The screenshot is kept in
// .build/test-artifacts.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

/// Renders `svg` in headless Chromium at `width` × `height` into `screenshot`; the browser's status.
func renderInChromium(_ svg: String, width: Int, height: Int, screenshot: String) throws -> ProcessResult {
    let profile = try temporaryDirectory(prefix: "recorder-chromium")
    defer { try? FileManager.default.removeItem(atPath: profile) }
    // As root, Chromium runs only without its sandbox; a profile of its own, no GPU, no scrollbars.
    return try runProcess("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                       "--user-data-dir=\(profile)", "--window-size=\(width),\(height)",
                                       "--screenshot=\(screenshot)", "file://\(svg)"])
}

@Suite struct BrowserRenderingTests {
    @Test func chromiumDrawsThePlotsWaveformWhereTheSoundIs() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try MarkedTestFile.write(folder + "/marked.wav")
        let options = PlotOptions()
        let analysis = try FileAnalysis.analyze(path: folder + "/marked.wav", request: Plot.request(options))
        let layout = try Plot.draw(analysis, to: folder + "/plot.svg", options: options)
        let shot = try artifactsFolder() + "/plot-in-chromium.png"
        try? FileManager.default.removeItem(atPath: shot)
        let result = try renderInChromium(folder + "/plot.svg", width: options.width, height: options.height, screenshot: shot)
        #expect(result.status == 0, "\(result.stderr)")
        let image = try DecodedPNG(shot)
        #expect(image.width == options.width && image.height == options.height)
        let colours = [components(Plot.Palette.waveform), components(Plot.Palette.rms)]
        func close(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Bool { abs(a.0 - b.0) <= 3 && abs(a.1 - b.1) <= 3 && abs(a.2 - b.2) <= 3 }
        let lane = layout.lanes[0]
        var sounding = 0, silent = 0, soundingJudged = 0, silentJudged = 0
        for column in 0..<Int(layout.plotWidth) {
            let from = Double(column) / layout.plotWidth * MarkedTestFile.seconds
            let to = Double(column + 1) / layout.plotWidth * MarkedTestFile.seconds
            if [(0.99, 1.01), (1.99, 2.01), (3.99, 4.51), (6.49, 6.61)].contains(where: { from < $0.1 && to > $0.0 }) { continue }
            let drawn = (Int(lane.top)..<Int(lane.bottom)).contains { y in colours.contains { close($0, image.rgb(Int(layout.left) + column, y)) } }
            if to <= MarkedTestFile.silentFrom {
                soundingJudged += 1
                sounding += drawn ? 1 : 0
            } else if from > MarkedTestFile.silentFrom {
                silentJudged += 1
                silent += drawn ? 0 : 1
            }
        }
        // Every sounding column drawn, every silent one blank (the counts of the columns judged).
        #expect(sounding == soundingJudged && soundingJudged > 1_000, "\(sounding) of \(soundingJudged) sounding columns drawn")
        #expect(silent == silentJudged && silentJudged > 290, "\(silent) of \(silentJudged) silent columns blank")
        // The over strip in red where the over is.
        let over = components(Plot.Palette.truePeakOver)
        let x = Int(layout.left + 6.55 / MarkedTestFile.seconds * layout.plotWidth)
        #expect(close(image.rgb(x, Int(layout.lanes[1].top) + 2), over))
    }
}

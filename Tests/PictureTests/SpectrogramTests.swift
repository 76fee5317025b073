// Spectrograms read back from their PNG: the bright row where a sine's frequency is, and the bright
// line following a sweep.
import Foundation
import RecorderKit
import RecorderPictures
import Testing
import TestSupport

@Suite struct SpectrogramTests {
    /// The row of each image column whose pixel is brightest (the colour scale's brightness rises with
    /// the level: black, violet, red, orange, yellow, white).
    func brightestRows(_ image: DecodedPNG, _ layout: SpectrogramLayout) -> [Int] {
        (0..<layout.columns).map { column in
            var best = 0, bestSum = -1
            for row in 0..<layout.rows {
                let (r, g, b) = image.rgb(Int(layout.left) + column, Int(layout.top) + row)
                if r + g + b > bestSum {
                    bestSum = r + g + b
                    best = row
                }
            }
            return best
        }
    }

    func draw(_ samples: [Int16], channels: Int, rate: Int, options: SpectrogramOptions, to path: String) throws -> SpectrogramLayout {
        let wav = path + ".wav"
        try writeWAV(wav, samples: samples, channels: channels, sampleRate: rate)
        let tap = options.tap()
        try FileAnalysis.scan(path: wav, taps: [tap])
        return try SpectrogramPicture.draw(tap, title: "test", to: path, options: options)
    }

    @Test(arguments: [false, true])
    func aSineIsABrightRowAtItsFrequency(logarithmic: Bool) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rate = 48_000
        let samples = sineSamples(frames: 5 * rate, frequency: 1_000, sampleRate: Double(rate), amplitudes: [0.5])
        let options = SpectrogramOptions(width: 800, height: 500, logarithmic: logarithmic)
        let layout = try draw(samples, channels: 1, rate: rate, options: options, to: folder + "/sine.png")
        let image = try DecodedPNG(folder + "/sine.png")
        let expected = layout.y(frequency: 1_000) - layout.top
        for (column, row) in brightestRows(image, layout).enumerated() {
            #expect(abs(Double(row) + 0.5 - expected) <= 1.5, "column \(column): row \(row), 1 kHz at \(expected)")
        }
        // Its frequency is labelled on the logarithmic axis (the linear one labels every 2 kHz here).
        #expect(layout.frequencyTicks.contains { $0.label == (logarithmic ? "1k" : "2k") })
    }

    @Test func aSweepIsALineFollowingItsFrequency() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rate = 48_000, seconds = 8.0
        let (low, high) = (500.0, 15_000.0)
        // A linear sweep: phase = 2π (low t + (high − low) t² / 2T).
        let samples = (0..<Int(seconds) * rate).map { frame -> Int16 in
            let t = Double(frame) / Double(rate)
            return Int16((16_000 * sin(2 * .pi * (low * t + (high - low) * t * t / (2 * seconds)))).rounded())
        }
        let options = SpectrogramOptions(width: 900, height: 560)
        let layout = try draw(samples, channels: 1, rate: rate, options: options, to: folder + "/sweep.png")
        let image = try DecodedPNG(folder + "/sweep.png")
        let rows = brightestRows(image, layout)
        let hertzPerRow = layout.nyquist / Double(layout.rows)
        for (column, row) in rows.enumerated().dropFirst(3).dropLast(3) {
            let t = (Double(column) + 0.5) / Double(layout.columns) * seconds
            let expected = low + (high - low) * t / seconds
            #expect(abs(layout.frequency(row: row) - expected) <= 2.5 * hertzPerRow, "column \(column): \(layout.frequency(row: row)) Hz, expected \(expected)")
        }
    }
}

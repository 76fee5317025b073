// The readout's drawing on known readings, no terminal or server involved.
@testable import RecorderKit
import Testing
@testable import RecorderCommandLine

/// A reading of `kind` with the core levels `levels` and the meter's `values`.
private func reading(_ kind: MeterKind, levels: [LevelMeterState], values: [Double], clipEvents: [Int64]? = nil,
                     loudness: LoudnessReading? = nil) -> MeterReading {
    MeterReading(kind: kind, endFrame: 4_410, frameCount: 4_410, time: 0.1, levels: levels, values: values,
                 clippedSamples: clipEvents ?? values.map { _ in 0 }, clipEvents: clipEvents ?? values.map { _ in 0 },
                 loudness: loudness)
}

/// The bar between the first "[" and "]" of a line.
private func bar(_ line: String) -> Substring { line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" } }

@Suite struct DisplayTests {
    @Test func aLineShowsTimeBarNumbersClipAndSizeWithinTheWidth() {
        var state = DisplayState(channelCount: 1)
        state.take(reading(.peak, levels: [LevelMeterState(averagePower: -30, peakPower: -0.0001)], values: [-0.0001]), at: 63.45)
        state.bytesWritten = 5_600_000
        let line = LevelDisplay.render(state, width: 80, colour: false)
        #expect(line.count == 1)
        #expect(line[0].count == 79)
        #expect(line[0].hasPrefix("01:03.4 ["))
        #expect(line[0].hasSuffix("] avg -30.0 pk   0.0 dBFS CLIP 5.3 MiB"))
        // −30 dBFS is half of the −60 … 0 scale; the hold marker (the peak meter's held peak) sits at the top.
        #expect(bar(line[0]).filter { $0 == "#" }.count == bar(line[0]).count / 2)
        #expect(bar(line[0]).last == "|")
    }

    @Test func silenceAndManyChannelsAndColour() {
        var state = DisplayState(channelCount: 2)
        state.take(reading(.peak, levels: [LevelMeterState(averagePower: -1, peakPower: -0.5), .init(averagePower: -160, peakPower: -160)],
                           values: [-0.5, -.infinity]), at: 0.1)
        let lines = LevelDisplay.render(state, width: 60, colour: true)
        #expect(lines.count == 2)
        #expect(lines[0].contains(" ch1  [\u{1B}[31m#"))  // red zone above −2 dBFS
        #expect(lines[1].contains(" ch2  [....."))
        #expect(lines[1].contains("avg  -inf pk  -inf dBFS"))
        let narrow = LevelDisplay.render(state, width: 30, colour: false)
        #expect(narrow.allSatisfy { $0.count <= 29 || !$0.contains("[") })
    }

    /// A stereo take in 100 columns with the size, the paused state and markers on the first line:
    /// every channel's bar has one width (one scale), so −9 and −17 dBFS compare by their lengths.
    @Test(arguments: [nil, MeterKind.peak, .vu, .ppm1, .ppm2])
    func everyChannelsBarHasOneWidthWhateverTheFirstLineCarries(meter: MeterKind?) {
        var state = DisplayState(channelCount: 2)
        state.take(reading(meter ?? .peak, levels: [LevelMeterState(averagePower: -9, peakPower: -6),
                                                    LevelMeterState(averagePower: -17, peakPower: -14)],
                           values: [-6, -14]), at: 12.3)
        state.bytesWritten = 1_234_567
        state.status = "paused"
        state.markers = 3
        let lines = LevelDisplay.render(state, width: 100, colour: false, meter: meter)
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(" 1.1 MiB paused 3 markers"), "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 99 }, "\(lines)")
        #expect(bar(lines[0]).count == bar(lines[1]).count, "\(lines)")
        #expect(bar(lines[0]).count >= 10, "\(lines)")
        #expect(lines[0].firstIndex(of: "[").map { lines[0].distance(from: lines[0].startIndex, to: $0) }
                == lines[1].firstIndex(of: "[").map { lines[1].distance(from: lines[1].startIndex, to: $0) })
        if meter == nil {
            // Average bars on one scale: −9 is 51/60 of it, −17 is 43/60.
            let width = Double(bar(lines[0]).count)
            #expect(bar(lines[0]).filter { $0 == "#" }.count == Int(((-9.0 + 60) / 60 * width).rounded(.down)))
            #expect(bar(lines[1]).filter { $0 == "#" }.count == Int(((-17.0 + 60) / 60 * width).rounded(.down)))
        }
        // Too narrow for the tail: it goes first, from every line alike.
        let narrow = LevelDisplay.render(state, width: 50, colour: false, meter: meter)
        #expect(!narrow[0].contains("paused") && bar(narrow[0]).count == bar(narrow[1]).count, "\(narrow)")
    }

    @Test func theVUScaleRunsFromMinus20ToPlus3WithTheReferenceMarked() throws {
        var state = DisplayState(channelCount: 1)
        state.take(reading(.vu, levels: [.init(averagePower: -21, peakPower: -18)], values: [-8.5]), at: 1)
        let line = try #require(LevelDisplay.render(state, width: 80, colour: false, meter: .vu).first)
        #expect(line.hasSuffix("]  -8.5 VU     "), "\(line)")
        let cells = bar(line)
        // −8.5 VU is 11.5 of the scale's 23 dB; the 0 VU mark at 20/23 of the bar.
        #expect(cells.filter { $0 == "#" }.count == Int(11.5 / 23 * Double(cells.count)))
        #expect(cells.firstIndex(of: ":").map { cells.distance(from: cells.startIndex, to: $0) } == Int(20 / 23.0 * Double(cells.count)))
    }

    @Test func ppmScalesAreDINDecibelsAndBBCMarks() throws {
        var state = DisplayState(channelCount: 1)
        // A sine 18 dB under full scale: the EBU alignment level, −9 dB on the DIN scale and mark 4.
        state.take(reading(.ppm1, levels: [.init(averagePower: -21, peakPower: -18)], values: [-18]), at: 1)
        #expect(try #require(LevelDisplay.render(state, width: 80, colour: false, meter: .ppm1).first).contains("]  -9.0 dB DIN"))
        state.take(reading(.ppm2, levels: [.init(averagePower: -21, peakPower: -18)], values: [-18]), at: 1)
        #expect(try #require(LevelDisplay.render(state, width: 80, colour: false, meter: .ppm2).first).contains("] PPM  4.0"))
        state.take(reading(.ppm2, levels: [.init(averagePower: -13, peakPower: -10)], values: [-10]), at: 1)
        #expect(try #require(LevelDisplay.render(state, width: 80, colour: false, meter: .ppm2).first).contains("] PPM  6.0"))
    }

    @Test func thePeakMeterShowsTheHeldPeakAndClipEvents() throws {
        var state = DisplayState(channelCount: 1)
        state.take(reading(.peak, levels: [.init(averagePower: -40, peakPower: -30)], values: [-6], clipEvents: [3]), at: 1)
        let line = try #require(LevelDisplay.render(state, width: 80, colour: false, meter: .peak).first)
        #expect(line.contains("] pk -30.0 hold  -6.0 dBFS clips 3"), "\(line)")
        // The bar reaches −30 (half), the hold marker sits at −6 (9/10 of the bar).
        let cells = bar(line)
        #expect(cells.filter { $0 == "#" }.count == cells.count / 2)
        #expect(cells.firstIndex(of: "|").map { cells.distance(from: cells.startIndex, to: $0) } == Int(0.9 * Double(cells.count)))
    }

    @Test func theLoudnessViewMarksTheTargetAndShowsTheProgramme() throws {
        var state = DisplayState(channelCount: 2)
        state.take(reading(.loudness, levels: [.init(averagePower: -20, peakPower: -17), .init(averagePower: -20, peakPower: -17)],
                           values: [-1.24, -2.5],
                           loudness: LoudnessReading(momentary: -20, shortTerm: -21.5, integrated: -22.04, loudnessRange: 4.4)),
                   at: 12)
        let lines = LevelDisplay.render(state, width: 100, colour: false, meter: .loudness, target: -16)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("00:12.0 ["))
        #expect(lines[0].contains("] M -20.0 S -21.5 I -22.0 LUFS (target -16.0)"), "\(lines[0])")
        #expect(lines[1].contains("LRA   4.4 LU  TP  -1.2 dBTP"), "\(lines[1])")  // the higher channel's
        // Scale −34 … −7 LUFS for a −16 target: −20 is 14 of its 27 LU; the target mark at 18/27.
        let cells = bar(lines[0])
        #expect(cells.filter { $0 == "#" }.count == Int(14 / 27.0 * Double(cells.count)))
        #expect(cells.firstIndex(of: ":").map { cells.distance(from: cells.startIndex, to: $0) } == Int(18 / 27.0 * Double(cells.count)))
    }

    /// Before the first buffer, and in digital silence, every value is −∞: each view draws an empty bar
    /// and says so (this once crashed the BBC scale).
    @Test(arguments: MeterKind.allCases)
    func everyViewDrawsSilenceFromRest(kind: MeterKind) throws {
        var state = DisplayState(channelCount: 2)
        let silence = LevelMeterState(averagePower: LevelMeterState.silence, peakPower: LevelMeterState.silence)
        let lines = LevelDisplay.render(state, width: 80, colour: false, meter: kind)
        state.take(reading(kind, levels: [silence, silence], values: [-.infinity, -.infinity],
                           loudness: kind == .loudness ? LoudnessReading(momentary: nil, shortTerm: nil, integrated: nil, loudnessRange: nil) : nil),
                   at: 0.1)
        for line in lines + LevelDisplay.render(state, width: 80, colour: false, meter: kind) {
            #expect(!bar(line).contains("#"), "\(line)")
            #expect(line.contains("-inf") || line.contains("PPM    -"), "\(line)")
        }
    }

    @Test func jsonLinesCarryTheSelectedMetersValues() {
        let levels = [LevelMeterState(averagePower: -21, peakPower: -18)]
        #expect(LiveOutput.jsonLine(reading(.vu, levels: levels, values: [-0.25]), frames: 4_410, time: 0.1, meter: .vu)
                == #"{"t": 0.100, "frames": 4410, "average_db": [-21.00], "peak_db": [-18.00], "meter": "vu", "vu": [-0.25]}"#)
        #expect(LiveOutput.jsonLine(reading(.ppm2, levels: levels, values: [-18]), frames: 4_410, time: 0.1, meter: .ppm2)
                .hasSuffix(#""meter": "ppm2", "ppm_db": [-18.00], "bbc_mark": [4.00]}"#))
        let quiet = reading(.loudness, levels: levels, values: [-.infinity],
                            loudness: LoudnessReading(momentary: -30, shortTerm: nil, integrated: nil, loudnessRange: nil))
        #expect(LiveOutput.jsonLine(quiet, frames: 4_410, time: 0.1, meter: .loudness).hasSuffix(
            #""meter": "loudness", "momentary_lufs": -30.00, "short_term_lufs": null, "integrated_lufs": null, "loudness_range_lu": null, "true_peak_dbtp": [null]}"#))
        #expect(LiveOutput.jsonLine(reading(.peak, levels: levels, values: [-18]), frames: 4_410, time: 0.1, meter: nil)
                == #"{"t": 0.100, "frames": 4410, "average_db": [-21.00], "peak_db": [-18.00]}"#)
    }
}

/// A take of several sources: a titled group of bars per source, the channel numbers the take's.
@Test func severalSourcesDrawATitledGroupOfBarsEach() {
    var state = DisplayState(channelCount: 3)
    state.groups = [("mic", 0..<1), ("desktop.monitor", 1..<3)]
    let lines = LevelDisplay.render(state, width: 80, colour: false)
    #expect(lines.count == 5)
    #expect(lines[0] == "── mic ──")
    #expect(lines[1].contains(" ch1 "))
    #expect(lines[2] == "── desktop.monitor ──")
    #expect(lines[3].contains(" ch2 ") && lines[4].contains(" ch3 "))
    #expect(lines.allSatisfy { $0.count <= 79 })
}

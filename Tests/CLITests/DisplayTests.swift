// The readout's drawing and ballistics on known readings, no terminal or server involved.
import RecorderKit
import Testing
@testable import recorder

@Suite struct DisplayTests {
    @Test func peakHoldHoldsThenFallsAt20DecibelsPerSecond() {
        var hold = PeakHold()
        hold.update(peak: -6, at: 0)
        hold.update(peak: -40, at: 1.0)
        #expect(hold.level == -6)  // still held at 1.0 s
        hold.update(peak: -40, at: 1.5)
        #expect(hold.level == -6)  // the hold ends at 1.5 s
        hold.update(peak: -40, at: 2.0)
        #expect(abs(hold.level - -16) < 0.001)  // 0.5 s of 20 dB/s
        hold.update(peak: -40, at: 4.0)
        #expect(hold.level == -40)  // never below the current peak
        hold.update(peak: -3, at: 4.1)
        #expect(hold.level == -3)  // a new peak takes over at once
    }

    @Test func aLineShowsTimeBarNumbersClipAndSizeWithinTheWidth() {
        var state = DisplayState(channelCount: 1)
        state.take([LevelMeterState(averagePower: -30, peakPower: -0.0001)], at: 63.45)
        state.bytesWritten = 5_600_000
        let line = LevelDisplay.render(state, width: 80, colour: false)
        #expect(line.count == 1)
        #expect(line[0].count == 79)
        #expect(line[0].hasPrefix("01:03.4 ["))
        #expect(line[0].hasSuffix("] avg -30.0 pk   0.0 dBFS CLIP 5.3 MiB"))
        // −30 dBFS is half of the −60 … 0 scale; the hold marker sits at the top.
        let bar = line[0].drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
        #expect(bar.filter { $0 == "#" }.count == bar.count / 2)
        #expect(bar.last == "|")
    }

    @Test func silenceAndManyChannelsAndColour() {
        var state = DisplayState(channelCount: 2)
        state.take([LevelMeterState(averagePower: -1, peakPower: -0.5), .init(averagePower: -160, peakPower: -160)], at: 0.1)
        let lines = LevelDisplay.render(state, width: 60, colour: true)
        #expect(lines.count == 2)
        #expect(lines[0].contains(" ch1  [\u{1B}[31m#"))  // red zone above −2 dBFS
        #expect(lines[1].contains(" ch2  [....."))
        #expect(lines[1].contains("avg  -inf pk  -inf dBFS"))
        let narrow = LevelDisplay.render(state, width: 30, colour: false)
        #expect(narrow.allSatisfy { $0.count <= 29 || !$0.contains("[") })
    }
}

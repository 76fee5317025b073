// The player tests' oracle tested itself: what an ear heard passes where it is what was played, silent
// only where the player reported an underrun or the ear reported its own loss, and fails where a frame
// was lost, repeated, changed or silenced without such a report.
import Testing
import TestSupport

@Suite struct HearingTests {
    private let played = noiseSamples(count: 20_000, seed: 5)
    private let lead = [Int16](repeating: 0, count: 2_000)
    private let silence = [Int16](repeating: 0, count: 300)

    @Test func theWholeSignalAfterSilencePasses() {
        #expect(departure(ofHeard: Heard(samples: lead + played + lead), from: played, underruns: 0) == nil)
    }

    @Test func aSilentRunPassesOnlyWithAnUnderrunReported() {
        let late = lead + played[..<8_000] + silence + played[8_000...] + lead
        #expect(departure(ofHeard: Heard(samples: late), from: played, underruns: 1) == nil)
        #expect(departure(ofHeard: Heard(samples: late), from: played, underruns: 0)?.contains("1 silent gaps heard") == true)
        let comparison = compare(heard: Heard(samples: late), played: played, underruns: 1)
        #expect(comparison.silentGaps == 1 && comparison.earLosses == 0)
    }

    @Test func lostRepeatedOrChangedFramesFail() {
        let lost = lead + played[..<8_000] + played[8_100...] + lead
        #expect(departure(ofHeard: Heard(samples: lost), from: played, underruns: 5) != nil)
        let repeated = lead + played[..<8_000] + played[7_900...] + lead
        #expect(departure(ofHeard: Heard(samples: repeated), from: played, underruns: 5) != nil)
        var changed = lead + played + lead
        changed[9_000] &+= 1
        #expect(departure(ofHeard: Heard(samples: changed), from: played, underruns: 5)?.hasPrefix("departs") == true)
        #expect(departure(ofHeard: Heard(samples: changed, lost: []), from: played, underruns: 0, tolerance: 1) == nil)
        let short = lead + played[..<15_000] + lead
        #expect(departure(ofHeard: Heard(samples: short), from: played, underruns: 0) == "only 15000 of 20000 frames heard")
        #expect(departure(ofHeard: Heard(samples: lead + played + played[..<100] + lead), from: played, underruns: 0)?
                    .hasPrefix("more was heard after it") == true)
    }

    @Test func playedZerosMustBeHeardInPlace() {
        var withZeros = played
        for index in 5_000..<6_000 { withZeros[index] = 0 }
        #expect(departure(ofHeard: Heard(samples: lead + withZeros + lead), from: withZeros, underruns: 0) == nil)
        let dropped = lead + withZeros[..<5_000] + withZeros[6_000...] + lead
        #expect(departure(ofHeard: Heard(samples: dropped), from: withZeros, underruns: 3) != nil)
    }

    /// Where the ear reported a loss (written as silence), what the sink played there is unknown: the
    /// comparison goes on after it, as long as no more played frames went unheard than the ear lost.
    @Test func theEarsOwnLossesAreSkippedUpToTheirLength() {
        let frame = lead.count + 8_000
        let earLost = lead + played[..<8_000] + silence + played[8_300...] + lead
        let heard = Heard(samples: earLost, lost: [frame..<(frame + 300)])
        let comparison = compare(heard: heard, played: played, underruns: 0)
        #expect(comparison.departure == nil && comparison.earLosses == 1 && comparison.silentGaps == 0)
        // A loss the ear reported shorter than what went unheard does not excuse the rest.
        let tooMuch = lead + played[..<8_000] + silence + played[9_000...] + lead
        #expect(departure(ofHeard: Heard(samples: tooMuch, lost: [frame..<(frame + 300)]), from: played, underruns: 9)?
                    .contains("played frames not heard") == true)
        // Nor does it excuse frames heard twice.
        let again = lead + played[..<8_000] + silence + played[7_000...] + lead
        #expect(departure(ofHeard: Heard(samples: again, lost: [frame..<(frame + 300)]), from: played, underruns: 9) != nil)
        // The ear lost the start, or the end.
        let noStart = [Int16](repeating: 0, count: 2_300) + played[300...] + lead
        #expect(departure(ofHeard: Heard(samples: noStart, lost: [2_000..<2_300]), from: played, underruns: 0) == nil)
        #expect(departure(ofHeard: Heard(samples: noStart), from: played, underruns: 0) == "the start was not heard")
        let noEnd = lead + played[..<19_000] + [Int16](repeating: 0, count: 1_000)
        #expect(departure(ofHeard: Heard(samples: noEnd, lost: [21_000..<22_000]), from: played, underruns: 0) == nil)
    }

    @Test func heardSignalLeavesOutTheEarsLosses() {
        let earLost = lead + played[..<8_000] + silence + played[8_300...] + lead
        let heard = Heard(samples: earLost, lost: [10_000..<10_300])
        #expect(heardSignal(heard, underruns: 0)?.count == 19_700)
        #expect(heardSignal(Heard(samples: earLost), underruns: 0) == nil)
        #expect(heardSignal(Heard(samples: earLost), underruns: 1)?.count == 19_700)
    }

    @Test func oneChannelOfAStereoEarKeepsItsLosses() {
        let stereo = Heard(samples: [1, -1, 2, -2, 3, -3], channels: 2, lost: [1..<2])
        #expect(stereo.channel(1).samples == [-1, -2, -3] && stereo.channel(1).lost == [1..<2] && stereo.lostFrames == 1)
    }
}

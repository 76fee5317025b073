// The tests' oracle tested itself: a take set against a reference capture passes where it holds what the
// server delivered (or, where the capture missed a stretch, exactly what was played there) and fails
// where it lost, repeated or silenced frames.
import Testing
@testable import TestSupport

@Suite struct TakeComparisonTests {
    private let noise = noiseSamples(count: 20_000, seed: 77)

    /// The reference: silence, then the noise, then silence (as a monitor capture of a played noise).
    private var reference: [Int16] { [Int16](repeating: 0, count: 3_000) + noise + [Int16](repeating: 0, count: 3_000) }

    private func compare(_ take: [Int16], _ reference: [Int16]) -> TakeComparison {
        TakeComparison(take: take.map { Double($0) / 32_768 }, reference: reference.map { Double($0) / 32_768 },
                       channels: 1, played: noise)
    }

    @Test func aTakeThatIsAStretchOfTheCapturePasses() {
        let take = Array(reference[1_000..<24_000])
        let result = compare(take, reference)
        #expect(result.offset == 1_000 && result.differing == 0 && result.covered)
    }

    @Test func aStretchTheCaptureMissedPassesOnlyIfItIsWhatWasPlayedThere() {
        var missed = reference
        for index in 9_000..<9_680 { missed[index] = 0 }  // the capture's stream got silence (pipewire-pulse)
        let take = Array(reference[1_000..<24_000])
        #expect(compare(take, missed).differing == 0)
        // The take silent there instead of the capture: a loss, whatever was played.
        var silenced = take
        for index in 8_000..<8_680 { silenced[index] = 0 }
        #expect(compare(silenced, reference).differing == 680)
    }

    @Test func framesLostOrRepeatedAreFoundEvenWhereTheyAreThePlayedSignalShifted() {
        let take = Array(reference[1_000..<24_000])
        let lost = Array(take[..<10_000] + take[10_100...])
        #expect(compare(lost, reference).differing > 0)
        let repeated = Array(take[..<10_000] + take[9_900...])
        #expect(compare(repeated, reference).differing > 0)
    }
}

// The tests' reading of a file's gap markers (NumberedSource.markedGaps, lossIsMarked) against the
// labels the recorder writes (RecordingGap.markerLabel): a take made by the command or the page is checked by them.
@testable import RecorderKit
import Testing
import TestSupport

struct MarkedGapTests {
    @Test func theLabelsTheRecorderWritesAreReadBackToTheFrame() {
        let gaps = [
            RecordingGap(startFrame: 100, frameCount: 50_627, reason: .dropped, sampleRate: 44_100),
            RecordingGap(startFrame: 90_000, frameCount: 2_205, reason: .suspended, sampleRate: 44_100, source: "mic"),
            RecordingGap(startFrame: 200_000, frameCount: 1, reason: .serverLost, sampleRate: 44_100),
        ]
        let markers = gaps.map { FileMarker(frame: $0.startFrame, label: $0.markerLabel) }
            + [FileMarker(frame: 5, label: "chorus"), FileMarker(frame: 6, label: "gap in the story")]
        let read = NumberedSource.markedGaps(markers, sampleRate: 44_100)
        #expect(read.map(\.frame) == [100, 90_000, 200_000])
        // Milliseconds in the label: each length within half of one (22 frames at 44.1 kHz).
        for (gap, marked) in zip(gaps, read) {
            #expect(abs(Int(gap.frameCount) - marked.count) <= 22, "\(gap.markerLabel): \(marked.count)")
        }
    }

    /// A summary's dropped frames against a file's markers: nothing and no marker, or the markers'
    /// total within half a millisecond each; anything else is a loss the file does not explain.
    @Test func aSummarysDropsMustBeTheMarkedOnes() {
        let lost = RecordingGap(startFrame: 4_410, frameCount: 2_205, reason: .dropped, sampleRate: 44_100)
        let marked = [FileMarker(frame: 10, label: "chorus"), FileMarker(frame: lost.startFrame, label: lost.markerLabel)]
        let unmarked = [FileMarker(frame: 10, label: "chorus")]
        #expect(NumberedSource.lossIsMarked(0, markers: unmarked, sampleRate: 44_100))
        #expect(NumberedSource.lossIsMarked(2_205, markers: marked, sampleRate: 44_100))
        #expect(NumberedSource.lossIsMarked(2_220, markers: marked, sampleRate: 44_100))
        #expect(!NumberedSource.lossIsMarked(2_205, markers: unmarked, sampleRate: 44_100), "a drop no marker places")
        #expect(!NumberedSource.lossIsMarked(0, markers: marked, sampleRate: 44_100), "a marker no drop explains")
        #expect(!NumberedSource.lossIsMarked(4_410, markers: marked, sampleRate: 44_100), "twice the marked loss")
    }
}

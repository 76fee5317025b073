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

    /// A loss of one source found late: its marker names the source and how far before it the audio went
    /// missing, and is read back for that source only.
    @Test func aLossFoundLateIsReadBackWithItsSourceAndHowLate() {
        let late = RecordingGap(startFrame: 300_000, frameCount: 4_090, reason: .dropped, sampleRate: 8_000, source: "b",
                                foundLate: 34_000)
        let other = RecordingGap(startFrame: 100_000, frameCount: 48_000, reason: .dropped, sampleRate: 8_000, source: "a")
        #expect(late.markerLabel == "gap 0.511 s in b: the system did not keep up (found late: went missing up to 4.250 s before)")
        let markers = [other, late].map { FileMarker(frame: $0.startFrame, label: $0.markerLabel) }
        let read = NumberedSource.markedGaps(markers, sampleRate: 8_000, source: "b")
        #expect(read.count == 1 && read.first?.frame == 300_000 && read.first?.count == 4_088 && read.first?.foundLate == 34_000,
                "\(read)")
        #expect(NumberedSource.markedGaps(markers, sampleRate: 8_000, source: "a").map(\.foundLate) == [0])
    }
}

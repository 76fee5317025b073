// The tests' reading of a file's gap markers (NumberedSource.markedGaps) against the labels the recorder
// writes (RecordingGap.markerLabel): a take made by the command or the page is checked by them.
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
}

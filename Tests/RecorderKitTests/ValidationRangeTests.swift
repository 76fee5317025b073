// The ranges the library publishes for its arguments (the command validates with the same): their bounds,
// and no trap for any number they are asked about.
import Testing
import RecorderKit

@Suite struct ValidationRangeTests {
    @Test func theTriggersRangesAreTheDocumentedOnes() {
        #expect(SoundTrigger.startAboveRange == -159...0)
        #expect(SoundTrigger.hangRange == 0...3_600)
        #expect(SoundTrigger.stopBelowRange(startAbove: -30) == -160...(-30))
        #expect(!SoundTrigger.stopBelowRange(startAbove: -30).contains(-20))
    }

    @Test func theRecordersRangesFollowItsBuffers() {
        #expect(Recorder.preRollRange == 0...60)
        #expect(Recorder.queueDurationRange() == 0.4...3_600)
        #expect(Recorder.queueDurationRange(bufferDuration: 2) == 8...3_600)
    }

    @Test(arguments: [0, -1, 1e15, -1e15, .infinity, -.infinity, .nan, .greatestFiniteMagnitude])
    func noNumberMakesARangeTrap(_ value: Double) {
        let stops = SoundTrigger.stopBelowRange(startAbove: Float(value))
        #expect(stops.lowerBound == -160 && stops.upperBound >= -160)
        let queues = Recorder.queueDurationRange(bufferDuration: value)
        #expect(queues.upperBound == 3_600 && queues.lowerBound <= 3_600)
    }

    @Test func theLibraryRefusesWhatTheRangesLeaveOut() {
        #expect(throws: RecorderError.self) { try Recorder(maximumPreRoll: 60.5) }
        #expect(throws: RecorderError.self) { try Recorder(maxQueueDuration: 0.3) }
    }
}

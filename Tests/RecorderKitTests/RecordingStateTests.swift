// A recording's timeline without a server: pauses against a fixed length and a stop, markers at joins and
// ends, the parts of a buffer that reach the file, losses and joins as the summary gives them, and the
// sound-activated takes' pre-roll and hang, each against frames worked out by hand or counted one by one.
import Testing
@testable import RecorderKit

@Suite struct RecordingStateTests {
    /// The frames of `range` that reach the file, listed one by one through `forEachRecordedPart`.
    private func recorded(_ recording: RecordingState, _ range: Range<Int64>) -> [Int64] {
        var frames: [Int64] = []
        recording.forEachRecordedPart(of: range) { part in
            frames += Array(part)
            return true
        }
        return frames
    }

    @Test func aPauseExtendsATakeOfFixedLengthByItsOwnLength() throws {
        var recording = RecordingState(number: 1, path: "a.wav", start: 1_000, frameLimit: 500)
        #expect(recording.end == 1_500)
        let pausedResult = recording.pause(at: 1_200)

        let paused = try #require(pausedResult)
        #expect(paused.frame == 1_200 && paused.isNew)
        #expect(recording.isPaused && recording.end == nil)
        // Nothing is complete while paused, however far capture goes.
        #expect(!recording.isComplete(delivered: 10_000))
        let resumedResult = recording.resume(at: 1_500)

        let resumed = try #require(resumedResult)
        #expect(resumed.frame == 1_500 && resumed.pausedFrames == 300)
        // 200 frames before the pause, 300 still owed after it.
        #expect(recording.end == 1_800)
        #expect(!recording.isComplete(delivered: 1_799) && recording.isComplete(delivered: 1_800))
        #expect(recording.recordedFrames(delivered: 1_300) == 200)
        #expect(recording.recordedFrames(delivered: 5_000) == 500)
        #expect(recorded(recording, 900..<2_000) == Array(1_000..<1_200) + Array(1_500..<1_800))
    }

    @Test func aPauseDuringAStopLeavesTheCutWhereItIs() throws {
        var recording = RecordingState(number: 1, path: "a.wav", start: 0, frameLimit: 500)
        recording.requestStop()
        let paused = recording.pause(at: 200)
        #expect(paused != nil)
        #expect(recording.end == 500)
        _ = recording.resume(at: 400)
        #expect(recording.end == 500 && recording.recordedFrames(delivered: 1_000) == 300)
    }

    @Test func pausingTwiceAndResumingWhenNotPausedChangeNothing() throws {
        var recording = RecordingState(number: 1, path: "a.wav", start: 100)
        #expect(recording.resume(at: 150) == nil)
        let firstResult = recording.pause(at: 150)

        let first = try #require(firstResult)
        let secondResult = recording.pause(at: 400)

        let second = try #require(secondResult)
        #expect(first.frame == 150 && first.isNew && second.frame == 150 && !second.isNew)
        #expect(recording.pauses == [PauseSpan(from: 150, to: nil)])
        // A resume asked before the pause's frame (capture read earlier) resumes where it began.
        let resumedResult = recording.resume(at: 120)

        let resumed = try #require(resumedResult)
        #expect(resumed.frame == 150 && resumed.pausedFrames == 0)
        #expect(recording.resume(at: 500) == nil && !recording.isPaused)
    }

    @Test func aPauseBeforeATimedStartBeginsAtTheStart() throws {
        var recording = RecordingState(number: 1, path: "a.wav", start: 1_000)
        let pausedResult = recording.pause(at: 400)

        let paused = try #require(pausedResult)
        #expect(paused.frame == 1_000)
        _ = recording.resume(at: 1_300)
        #expect(recorded(recording, 0..<1_400) == Array(1_300..<1_400))
    }

    @Test func aCutOnlyMovesTheEndEarlier() {
        var recording = RecordingState(number: 1, path: "a.wav", start: 0, frameLimit: 1_000)
        recording.cut(at: 1_200)
        #expect(recording.end == 1_000)
        recording.cut(at: 700)
        #expect(recording.end == 700)
        // An end at or before the start: complete before anything is delivered.
        var early = RecordingState(number: 2, path: "b.wav", start: 500)
        early.cut(at: 400)
        #expect(early.isComplete(delivered: 0) && recorded(early, 0..<1_000).isEmpty)
    }

    @Test func markersStandAtTheJoinAtTheStartAndAtTheEnd() throws {
        var recording = RecordingState(number: 1, path: "a.wav", start: 1_000, frameLimit: 1_000)
        // Before a timed start: at the start.
        let early = try recording.mark("", at: 600)
        #expect(early.label == "marker 1" && early.frame == 1_000 && early.position == 0)
        _ = recording.pause(at: 1_250)
        // While paused: at the join, which is 250 frames in.
        let atJoin = try recording.mark("join", at: 1_400)
        #expect(atJoin.frame == 1_400 && atJoin.position == 250)
        _ = recording.resume(at: 1_500)
        #expect(recording.end == 2_250)
        // After the end: at the end.
        let late = try recording.mark("late\nline", at: 9_000)
        #expect(late.frame == 2_250 && late.position == 1_000 && late.label == "late line")
        #expect(recording.markers.map(\.position) == [0, 250, 1_000])
        #expect(recording.markers.map(\.label) == ["marker 1", "join", "late line"])
    }

    @Test func aRecordingTakesAsManyMarkersAsAFileHoldsAndNoMore() throws {
        var recording = RecordingState(number: 1, path: "full.aiff", start: 0)
        for frame in 0..<Int64(MarkerChunk.maxCount) { _ = try recording.mark("m", at: frame) }
        #expect(recording.markers.count == MarkerChunk.maxCount)
        var refused: RecorderError?
        do {
            _ = try recording.mark("one more", at: 40_000)
        } catch {
            refused = error
        }
        #expect(refused?.code == .invalidState && refused?.message.contains("'full.aiff'") == true)
        #expect(recording.markers.count == MarkerChunk.maxCount)
    }

    /// Random starts, lengths, pauses and stops: the frames of each buffer that reach the file, the
    /// recorded count and the part of a loss the file holds agree with a count of the frames one by one.
    @Test func theFileTakesExactlyTheFramesFromStartToEndOutsideThePauses() {
        var seed: UInt64 = 0xC0FFEE
        func next(_ bound: Int) -> Int64 {
            seed ^= seed >> 12
            seed ^= seed << 25
            seed ^= seed >> 27
            return Int64(Int((seed &* 0x2545_F491_4F6C_DD1D) >> 33) % bound)
        }
        for _ in 0..<1_000 {
            let start = next(50)
            var recording = RecordingState(number: 1, path: "a.wav", start: start,
                                           frameLimit: next(3) == 0 ? nil : next(150))
            var at = start + next(30)
            for _ in 0..<Int(next(4)) {
                _ = recording.pause(at: at)
                at += 1 + next(40)
                if next(5) > 0 { _ = recording.resume(at: at) }
                at += next(40)
            }
            if next(4) == 0 { recording.cut(at: start + next(200)) }
            let inFile: (Int64) -> Bool = { frame in
                frame >= recording.start && frame < (recording.end ?? .max)
                    && !recording.pauses.contains { frame >= $0.from && frame < ($0.to ?? .max) }
            }
            let lower = next(250), range = lower..<(lower + next(80))
            #expect(recorded(recording, range) == range.filter(inFile), "\(recording) \(range)")
            let delivered = next(300)
            #expect(recording.recordedFrames(delivered: delivered) == Int64((0..<delivered).filter(inFile).count))
            let loss = recording.lossInFile(at: range.lowerBound, count: Int64(range.count))
            #expect(loss.frames == Int64(range.filter(inFile).count), "\(recording) loss \(range)")
            if let first = range.first(where: inFile) {
                #expect(loss.position == Int64((0..<first).filter(inFile).count))
            }
        }
    }

    @Test func theJoinsAreTheResumedPausesWithinTheFile() {
        var recording = RecordingState(number: 1, path: "a.wav", start: 100)
        _ = recording.pause(at: 200)
        _ = recording.resume(at: 260)
        _ = recording.pause(at: 400)
        _ = recording.resume(at: 410)
        _ = recording.pause(at: 500)  // open: where the file ends, not a join
        let joins = recording.joins(frameCount: 1_000, sampleRate: 100)
        #expect(joins.map(\.startFrame) == [100, 240] && joins.map(\.pausedFrames) == [60, 10])
        #expect(joins.map(\.duration) == [0.6, 0.1])
        // A file cut shorter than the second join lists only the first.
        #expect(recording.joins(frameCount: 150, sampleRate: 100).map(\.startFrame) == [100])
    }

    @Test func aSoundActivatedRecordingListensPausedAndPauseLeavesItAlone() {
        var recording = RecordingState(number: 1, path: "t.wav", start: 1_000, takes: trigger(start: 1_000))
        #expect(recording.isTriggered && !recording.isPaused)
        #expect(recording.pause(at: 1_100) == nil && recording.resume(at: 1_200) == nil)
        #expect(recording.pauses == [PauseSpan(from: 1_000, to: nil)])
        #expect(recorded(recording, 1_000..<2_000).isEmpty)
    }

    /// 100-frame buffers, a hang of 300 frames and a pre-roll of 250: the first take reaches back no
    /// further than the recording's start or the kept audio; it ends with the third quiet buffer; the
    /// next one's pre-roll reaches back no further than that end.
    @Test func takesBeginWithTheirPreRollAndEndAfterTheHang() throws {
        var recording = RecordingState(number: 1, path: "t.wav", start: 1_000, takes: trigger(start: 1_000))
        #expect(recording.listen(peak: -60, range: 1_000..<1_100) == .none)
        #expect(recording.listen(peak: -10, range: 1_100..<1_200) == .begin)
        // Listening does not begin the take: the caller first makes its file ready.
        #expect(recording.takes?.count == 0 && recording.takes?.isOpen == false)
        let first = recording.beginTake(onset: 1_100, keptFrom: 900)
        #expect(first.number == 1 && first.first == 1_000)  // not before the recording's start
        #expect(recording.pauses == [PauseSpan(from: 1_000, to: 1_000)])
        #expect(recording.listen(peak: -10, range: 1_200..<1_300) == .none)
        #expect(recording.listen(peak: -60, range: 1_300..<1_400) == .none)
        #expect(recording.listen(peak: -60, range: 1_400..<1_500) == .none)
        // A loud buffer in the quiet starts the hang again.
        #expect(recording.listen(peak: -20, range: 1_500..<1_600) == .none)
        #expect(recording.listen(peak: -60, range: 1_600..<1_700) == .none)
        #expect(recording.listen(peak: -60, range: 1_700..<1_800) == .none)
        #expect(recording.listen(peak: -60, range: 1_800..<1_900) == .endsWithThisBuffer)
        #expect(recording.pauses.last == PauseSpan(from: 1_900, to: nil))
        recording.endTake(first: first.first)
        #expect(recording.takes?.lastEnd == 1_900 && recording.takes?.isOpen == false)
        #expect(recorded(recording, 900..<2_200) == Array(1_000..<1_900))
        // The next take: its pre-roll of 250 reaches back to 1 950, the kept audio only to 2 000.
        #expect(recording.listen(peak: -10, range: 2_200..<2_300) == .begin)
        let second = recording.beginTake(onset: 2_200, keptFrom: 2_000)
        #expect(second.number == 2 && second.first == 2_000)
        // With more kept, no further back than the last take's end.
        var other = RecordingState(number: 2, path: "u.wav", start: 0, takes: trigger(start: 0))
        _ = other.beginTake(onset: 100, keptFrom: 0)
        _ = other.listen(peak: -60, range: 100..<400)
        other.endTake(first: 0)
        #expect(other.beginTake(onset: 500, keptFrom: 0).first == 400)
        // Without kept audio contiguous up to the onset, the take begins at the onset.
        var bare = RecordingState(number: 3, path: "v.wav", start: 0, takes: trigger(start: 0))
        #expect(bare.beginTake(onset: 700, keptFrom: nil).first == 700)
    }

    @Test func noTakeBeginsAtOrPastTheRecordingsEnd() {
        var recording = RecordingState(number: 1, path: "t.wav", start: 0, frameLimit: 1_000, takes: trigger(start: 0))
        #expect(recording.listen(peak: -10, range: 900..<1_000) == .begin)
        #expect(recording.listen(peak: -10, range: 1_000..<1_100) == .none)
    }

    private func trigger(start: Int64) -> TakeTrigger {
        TakeTrigger(trigger: SoundTrigger(startAbove: -30, stopBelow: -40, hang: 3), hangFrames: 300,
                    preRollFrames: 250, start: start)
    }
}

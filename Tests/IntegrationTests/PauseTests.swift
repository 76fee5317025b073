// pause() and resume(): AudioQueuePause semantics on the one control path, proven with a played noise.
import Foundation
import RecorderKit
import Testing
import TestSupport
import Locking

private let monitor = PrivateServer.monoSink + ".monitor"

@Suite(.timeLimit(.minutes(2)))
struct PauseTests {
    /// Each level reading says where its buffer's end is in the recording (`recordingPosition`): frames
    /// since the file's start with the paused ones left out; nil before and after the recording.
    @Test func levelReadingsCarryTheRecordingPosition() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            var readings = recorder.levelReadings().makeAsyncIterator()
            let idle = try #require(await readings.next())
            #expect(idle.recordingPosition == nil && idle.recordingTime == nil)
            let start = try recorder.record(to: directory + "/positions.aiff")
            var seen: [LevelReading] = []
            func collect(past frame: Int64) async throws {
                while let reading = await readings.next() {
                    seen.append(reading)
                    if reading.endFrame > frame { return }
                }
                throw TestFailure("the readings ended")
            }
            try await collect(past: start + 13_230)
            #expect(recorder.isRecording && recorder.isFileOpen)
            let pausedAt = try #require(recorder.pause())
            // As AVAudioRecorder: not recording while paused, though the file stays open.
            #expect(!recorder.isRecording && recorder.isFileOpen && recorder.isPaused)
            try await collect(past: pausedAt + 13_230)
            let resumedAt = try #require(recorder.resume())
            #expect(recorder.isRecording && !recorder.isPaused)
            try await collect(past: resumedAt + 13_230)
            let summary = try #require(try await recorder.stopRecording())
            #expect(!recorder.isRecording && !recorder.isFileOpen)
            let last = try #require(seen.last?.endFrame)
            try await collect(past: last + 4_410)
            let ended = summary.startFrame + summary.frameCount + (resumedAt - pausedAt)
            for reading in seen where reading.endFrame > start {
                if reading.endFrame > ended + 4_410 {
                    #expect(reading.recordingPosition == nil, "after the stop: \(reading)")
                    continue
                }
                guard reading.endFrame <= min(ended, last) else { continue }
                let paused = max(0, min(reading.endFrame, resumedAt) - pausedAt)
                #expect(reading.recordingPosition == reading.endFrame - start - paused, "\(reading)")
                #expect(reading.recordingTime == reading.recordingPosition.map { Double($0) / 44_100 })
            }
            #expect(seen.filter { $0.endFrame > start && $0.endFrame <= ended }.count >= 6)
        }
    }

    /// The file is the noise minus exactly the paused frames: the audio after the resume joins the audio
    /// before the pause without a frame lost or repeated; the meters run on while paused; the events,
    /// the summary and `currentTime` say where. Pause and resume come from the input handler, timed by
    /// the audio: a test task may wait many seconds for a thread when CI runs a hundred tests at once.
    @Test func aPauseLeavesOutExactlyThePausedFramesAndTheRestJoins() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            // 10 s of noise: the pause comes after 1 s of it and lasts 0.5 s.
            let noise = noiseSamples(count: 44_100 * 10, seed: 21)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            let events = recorder.events()
            struct Script {
                var start: Int64?
                var loud: Int64 = 0
                var pausedAt: Int64?
                var pausedTwice: Int64?
                var resumedAt: Int64?
                var resumedTwice: Int64??
                var peaksWhilePaused: [Float] = []
                var timesWhilePaused: [Double] = []
            }
            let script = Locked(Script())
            recorder.setInputHandler { [weak recorder] buffer in
                guard let recorder else { return }
                let end = buffer.startFrame + Int64(buffer.frameCount)
                script.withLock { script in
                    guard let start = script.start, buffer.startFrame >= start, script.resumedAt == nil else { return }
                    if let paused = script.pausedAt {
                        // The handler runs after the buffer's reading: the meters of a paused recording.
                        if buffer.startFrame >= paused + 4_410 {
                            script.peaksWhilePaused.append(recorder.getPeakPower())
                            script.timesWhilePaused.append(recorder.currentTime)
                        }
                        if end >= paused + 22_050 {
                            script.resumedAt = recorder.resume()
                            script.resumedTwice = .some(recorder.resume())
                        }
                    } else {
                        if recorder.getPeakPower() > -60 { script.loud += Int64(buffer.frameCount) }
                        if script.loud >= 44_100 {
                            script.pausedAt = recorder.pause()
                            script.pausedTwice = recorder.pause()
                        }
                    }
                }
            }
            let path = directory + "/paused.aiff"
            let start = try recorder.record(to: path)
            script.withLock { $0.start = start }
            try await server.play(directory + "/noise.wav")
            let after = recorder.capturedFrames + 8_820
            _ = try await firstReading(recorder.levelReadings()) { $0.endFrame > after }
            let summary = try #require(try await recorder.stopRecording())
            recorder.setInputHandler(nil)

            let done = script.withLock { $0 }
            let pausedAt = try #require(done.pausedAt), resumedAt = try #require(done.resumedAt)
            #expect(done.pausedTwice == pausedAt, "pausing a paused recording does nothing")
            #expect(done.resumedTwice == .some(nil), "resuming a recording that is not paused does nothing")
            #expect(!done.peaksWhilePaused.isEmpty && done.peaksWhilePaused.allSatisfy { $0 > -60 }, "\(done.peaksWhilePaused)")
            #expect(done.timesWhilePaused.allSatisfy { $0 == Double(pausedAt - start) / 44_100 }, "\(done.timesWhilePaused)")
            let paused = resumedAt - pausedAt
            #expect(paused >= 17_640)
            #expect(summary.pauses.map(\.startFrame) == [pausedAt - start])
            #expect(summary.pauses.map(\.pausedFrames) == [paused])
            var seen: [RecorderEvent] = []
            for await event in events {
                if case .recordingFinished = event { break }
                seen.append(event)
            }
            // Both events place the join where the summary does: the first pause, `pausedAt - start` in.
            #expect(seen.contains(.recordingPaused(atFrame: pausedAt, recordingFrame: pausedAt - start)))
            #expect(seen.contains(.recordingResumed(atFrame: resumedAt, pausedFrames: paused, recordingFrame: pausedAt - start)))

            let file = try readSoundFile(path)
            #expect(Int64(file.frames) == summary.frameCount)
            let join = Int(pausedAt - start)
            let noiseStart = try #require(firstIndex(of: Array(noise.prefix(64)), in: file.samples))
            #expect(noiseStart < join)
            // Before the join: the noise from its start; after it: the noise from the first frame
            // captured after the resume, to its end.
            #expect(Array(file.samples[noiseStart..<join]) == Array(noise[0..<(join - noiseStart)]))
            let resumedNoise = join - noiseStart + Int(paused)
            #expect(resumedNoise < noise.count)
            let rest = noise.count - resumedNoise
            #expect(file.samples.count >= join + rest)
            #expect(Array(file.samples[join..<min(file.samples.count, join + rest)]) == Array(noise[resumedNoise...]))
        }
    }

    /// A take of fixed length counts recorded time: a pause in `record(to:duration:)` extends it, and
    /// the file still holds exactly the duration. Paused 0.3 s in for 1 s (longer than what is left of
    /// a 1 s take), from the input handler.
    @Test func aTimedTakeCountsOnlyTheRecordedTime() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/timed.aiff"
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            let marks = Locked<(start: Int64?, paused: Int64?, resumed: Int64?)>((nil, nil, nil))
            recorder.setInputHandler { [weak recorder] buffer in
                guard let recorder else { return }
                marks.withLock { marks in
                    guard let start = marks.start else { return }
                    if marks.paused == nil, buffer.startFrame >= start + 13_230 {
                        marks.paused = recorder.pause()
                    } else if let paused = marks.paused, marks.resumed == nil, buffer.startFrame >= paused + 44_100 {
                        marks.resumed = recorder.resume()
                    }
                }
            }
            let start = try recorder.record(to: path, duration: 1)
            marks.withLock { $0.start = start }
            let summary = try #require(try await recorder.waitForRecording())
            let done = marks.withLock { $0 }
            let pausedAt = try #require(done.paused), resumedAt = try #require(done.resumed)
            #expect(summary.frameCount == 44_100)
            #expect(try readSoundFile(path).frames == 44_100)
            #expect(summary.pauses.map(\.pausedFrames) == [resumedAt - pausedAt])
            #expect(resumedAt - pausedAt >= 44_100)
            #expect(summary.pauses.first?.startFrame == pausedAt - start)
        }
    }

    /// Stopped while paused: the file ends at the pause; no join is listed. Pausing with nothing
    /// recorded does nothing (nil, as AVAudioRecorder); pausing from the input handler and resuming from a readings
    /// consumer neither deadlock nor trap.
    @Test func stopWhilePausedEndsTheFileAtThePauseAndBadCallsAreSafe() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            // As AVAudioRecorder: nothing being recorded, nothing to pause.
            #expect(recorder.pause() == nil)
            #expect(recorder.resume() == nil)
            #expect(recorder.currentTime == 0)

            // Paused from the input handler (the delivery thread), once.
            let pausedAt = Locked<Int64?>(nil)
            recorder.setInputHandler { [weak recorder] buffer in
                guard let recorder, pausedAt.withLock({ $0 == nil }), recorder.isRecording else { return }
                let frame = recorder.pause()
                pausedAt.withLock { $0 = frame }
            }
            let levels = recorder.levelReadings()
            let start = try recorder.record(to: directory + "/stopped.aiff")
            var frame: Int64?
            for await _ in levels {
                frame = pausedAt.withLock { $0 }
                if frame != nil { break }
            }
            let paused = try #require(frame)
            recorder.setInputHandler(nil)
            #expect(recorder.isPaused)
            _ = try await firstReading(recorder.levelReadings()) { $0.endFrame > paused + 8_820 }
            let summary = try #require(try await recorder.stopRecording())
            #expect(summary.frameCount == paused - start)
            #expect(summary.pauses.isEmpty)
            #expect(try readSoundFile(directory + "/stopped.aiff").frames == Int(paused - start))
            #expect(!recorder.isPaused && recorder.resume() == nil)
        }
    }
}

// pause() and resume(): AudioQueuePause semantics on the one control path, proven with a played noise.
import Foundation
import RecorderKit
import Testing
import TestSupport

private let monitor = PrivateServer.monoSink + ".monitor"

/// Reads `readings` until one ends at or after `frame`; returns the readings seen on the way.
private func readings(through frame: Int64, _ iterator: inout AsyncStream<LevelReading>.Iterator) async throws -> [LevelReading] {
    var seen: [LevelReading] = []
    while let reading = await iterator.next() {
        seen.append(reading)
        if reading.endFrame >= frame { return seen }
    }
    throw TestFailure("the readings ended before frame \(frame)")
}

@Suite(.timeLimit(.minutes(2)))
struct PauseTests {
    /// The file is the noise minus exactly the paused frames: the audio after the resume joins the audio
    /// before the pause without a frame lost or repeated; the meters run on while paused; the events,
    /// the summary and `currentTime` say where.
    @Test func aPauseLeavesOutExactlyThePausedFramesAndTheRestJoins() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            // 10 s of noise: the pause comes 1 s in and lasts 0.5 s, with room for a slow machine.
            let noise = noiseSamples(count: 44_100 * 10, seed: 21)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            let events = recorder.events()
            var levels = recorder.levelReadings().makeAsyncIterator()
            let path = directory + "/paused.aiff"
            let start = try recorder.record(to: path)
            let player = Task.detached { try await server.play(directory + "/noise.wav") }
            var loud: Int64 = 0
            while let reading = await levels.next() {
                if reading.channels[0].peakPower > -60 { loud += Int64(reading.frameCount) }
                if loud >= 44_100 { break }
            }
            let pausedAt = try recorder.pause()
            #expect(recorder.isPaused && recorder.isRecording)
            #expect(try recorder.pause() == pausedAt, "pausing a paused recording does nothing")
            let during = try await readings(through: pausedAt + 22_050, &levels)
            // The meters go on while paused, and `currentTime` stands still at the pause.
            #expect(during.filter { $0.endFrame > pausedAt + 4_410 }.allSatisfy { $0.channels[0].peakPower > -60 })
            #expect(recorder.currentTime == Double(pausedAt - start) / 44_100)
            let resumedAt = try #require(recorder.resume())
            #expect(recorder.resume() == nil, "resuming a recording that is not paused does nothing")
            #expect(!recorder.isPaused)
            try await player.value
            _ = try await readings(through: recorder.capturedFrames + 8_820, &levels)
            let summary = try #require(try await recorder.stopRecording())

            let paused = resumedAt - pausedAt
            #expect(paused >= 22_050)
            #expect(summary.pauses.map(\.startFrame) == [pausedAt - start])
            #expect(summary.pauses.map(\.pausedFrames) == [paused])
            var seen: [RecorderEvent] = []
            for await event in events {
                if case .recordingFinished = event { break }
                seen.append(event)
            }
            #expect(seen.contains(.recordingPaused(atFrame: pausedAt)))
            #expect(seen.contains(.recordingResumed(atFrame: resumedAt, pausedFrames: paused)))

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
    /// the file still holds exactly the duration.
    @Test func aTimedTakeCountsOnlyTheRecordedTime() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/timed.aiff"
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            var levels = recorder.levelReadings().makeAsyncIterator()
            // 3 s: the pause 0.3 s in must come well before the end even when CI's load delays this task.
            let start = try recorder.record(to: path, duration: 3)
            _ = try await readings(through: start + 13_230, &levels)
            let pausedAt = try recorder.pause()
            _ = try await readings(through: pausedAt + 44_100, &levels)
            #expect(recorder.isRecording, "the pause outlasted the rest of the take: the take waits")
            let resumedAt = try #require(recorder.resume())
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 132_300)
            #expect(try readSoundFile(path).frames == 132_300)
            #expect(summary.pauses.map(\.pausedFrames) == [resumedAt - pausedAt])
            #expect(summary.pauses.first?.startFrame == pausedAt - start)
        }
    }

    /// Stopped while paused: the file ends at the pause; no join is listed. Pausing with nothing
    /// recorded is a one-line error; pausing from the input handler and resuming from a readings
    /// consumer neither deadlock nor trap.
    @Test func stopWhilePausedEndsTheFileAtThePauseAndBadCallsAreSafe() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            #expect(throws: RecorderError.self) { try recorder.pause() }
            do throws(RecorderError) { try recorder.pause() } catch {
                #expect(error.code == .invalidState)
                #expect(error.message == "cannot pause: nothing is being recorded; call record(to:) first")
            }
            #expect(recorder.resume() == nil)
            #expect(recorder.currentTime == 0)

            // Paused from the input handler (the delivery thread), once.
            let pausedAt = Locked<Int64?>(nil)
            recorder.setInputHandler { [weak recorder] buffer in
                guard let recorder, pausedAt.withLock({ $0 == nil }), recorder.isRecording else { return }
                let frame = try? recorder.pause()
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

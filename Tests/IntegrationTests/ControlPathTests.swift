// Issue 11 through the API: control calls from the input handler, from stream consumers and from a
// deinit on the delivery thread; the stall/stop interleaving; async variants; errors' causes.
import Foundation
import Glibc
@testable import RecorderKit
import Synchronization
import Testing
import TestSupport
import Locking

/// What a handler saw when it acted: the buffer's end, and the summary its call returned.
private struct HandlerStop: Sendable {
    var bufferEnd: Int64 = 0
    var summary: RecordingSummary?
    var error: RecorderError?
    var seconds = 0.0
}

/// Records the numbered source with `recorder` into `path`; the handler `act` is called (once) on the
/// first buffer by which `frames` frames of the feed have gone by.
private func recordNumbered(_ recorder: Recorder, path: String, after frames: Int64,
                            act: @escaping @Sendable (Recorder?, CapturedBuffer) -> HandlerStop) async throws
    -> (HandlerStop, Int64) {
    let seen = Locked<Int64>(0)
    let result = Locked<HandlerStop?>(nil)
    let acted = AsyncStream<Void>.makeStream()
    // Only frames the take holds count: the handler also gets the buffers captured before it began
    // (once, beside the ThreadSanitizer stage and scripts/busy, one of them made a take of 17 640 frames
    // count as 22 050). Until `record` has said where the take begins, nothing counts.
    let takeStart = Locked<Int64?>(nil)
    recorder.setInputHandler { [weak recorder] buffer in
        let numbered = (0..<buffer.frameCount).contains { buffer.sample(frame: $0, channel: 0) != 0 }
        guard let first = takeStart.withLock({ $0 }) else { return }
        let end = buffer.startFrame + Int64(buffer.frameCount)
        let due = seen.withLock { seen -> Bool in
            guard seen >= 0 else { return false }
            if numbered { seen += max(0, end - max(first, buffer.startFrame)) }
            if seen >= frames { seen = -1; return true }
            return false
        }
        guard due else { return }
        result.withLock { $0 = act(recorder, buffer) }
        acted.continuation.yield()
        acted.continuation.finish()
    }
    let start = try recorder.record(to: path)
    takeStart.withLock { $0 = start }
    for await _ in acted.stream { break }
    return (try #require(result.withLock { $0 }), start)
}

/// The file holds every frame of the feed from its first to its last: none missing that the recorder
/// did not count (it counted none here), whatever the server did.
/// Every frame of the feed in the take in order, or lost where `summary` counted and placed it (a loaded
/// machine may make a loss; a silent one fails), and at least `frames` of the feed accounted for.
private func expectEveryFrame(_ path: String, _ source: NumberedSource, _ summary: RecordingSummary, atLeast frames: Int,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let take = try readSoundFile(path)
    let check = try await source.check(take.samples, gaps: summary.gaps)
    #expect(check.numbered + check.counted >= frames, "\(check)", sourceLocation: sourceLocation)
    #expect(check.unexplained.isEmpty, "\(check)", sourceLocation: sourceLocation)
    #expect(summary.droppedFrames == summary.gaps.filter { $0.reason == .dropped }.reduce(0) { $0 + $1.frameCount },
            "\(summary.gaps)", sourceLocation: sourceLocation)
}

/// Runs `body` with a private server whose numbered source is fed, and stops both whatever happens.
private func withNumberedSource<T>(_ body: (PrivateServer, NumberedSource, String) async throws -> T) async throws -> T {
    try await withPrivateServer { server in
        let directory = try temporaryDirectory()
        let source = try await NumberedSource(server: server, directory: directory)
        defer { source.stop() }
        return try await body(server, source, directory)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct ControlPathTests {
    private let monitor = PrivateServer.monoSink + ".monitor"

    @Test func stopRecordingFromTheInputHandlerEndsTheFileWithThatBuffer() async throws {
        try await withNumberedSource { server, source, directory in
            let path = directory + "/handler-stop.aiff"
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            defer { recorder.stop() }
            let (stop, start) = try await recordNumbered(recorder, path: path, after: 22_050) { recorder, buffer in
                let began = monotonicSeconds()
                var outcome = HandlerStop(bufferEnd: buffer.startFrame + Int64(buffer.frameCount))
                do throws(RecorderError) { outcome.summary = try recorder?.stopRecording() } catch { outcome.error = error }
                outcome.seconds = monotonicSeconds() - began
                return outcome
            }
            #expect(stop.error == nil)
            let summary = try #require(stop.summary, "stopRecording() from the handler returned no summary")
            #expect(stop.seconds < 30, "the call took \(stop.seconds) s")  // a hang: no time is measured here
            #expect(summary.startFrame == start)
            #expect(summary.startFrame + summary.frameCount == stop.bufferEnd, "the file ends with the handler's buffer")
            #expect(!recorder.isRecording)
            #expect(try await recorder.waitForRecording() == summary)
            try await expectEveryFrame(path, source, summary, atLeast: 22_050)
            #expect(try readSoundFile(path).frames == Int(summary.frameCount))
            // The recorder goes on: another take can start from the same handler's thread later.
            try recorder.record(to: path + ".2.aiff", duration: 0.2)
            #expect(try await recorder.waitForRecording()?.frameCount == 8_820)
        }
    }

    @Test func stopFromTheInputHandlerEndsCaptureAndTheStreams() async throws {
        try await withNumberedSource { server, source, directory in
            let path = directory + "/handler-full-stop.aiff"
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            let events = recorder.events()
            let calls = Atomic<Int>(0)
            let (stop, _) = try await recordNumbered(recorder, path: path, after: 22_050) { recorder, buffer in
                let began = monotonicSeconds()
                recorder?.stop()
                calls.add(1, ordering: .relaxed)
                return HandlerStop(bufferEnd: buffer.startFrame + Int64(buffer.frameCount), seconds: monotonicSeconds() - began)
            }
            #expect(stop.seconds < 30)  // a hang: no time is measured here
            var finished: RecordingSummary?
            for await event in events {  // ends when the delivery thread has shut down
                if case .recordingFinished(let summary) = event { finished = summary }
            }
            let summary = try #require(finished)
            #expect(summary.startFrame + summary.frameCount == stop.bufferEnd)
            #expect(calls.load(ordering: .relaxed) == 1)
            #expect(throws: RecorderError.self) { try recorder.record(to: path + ".again.aiff") }
            await recorder.stop()  // idempotent, from an async context
            try await expectEveryFrame(path, source, summary, atLeast: 22_050)
        }
    }

    @Test func aRecorderReleasedInsideItsOwnHandlerStopsAndClosesTheFile() async throws {
        try await withNumberedSource { server, source, directory in
            let path = directory + "/released.aiff"
            let owner = Locked<Recorder?>(try Recorder(source: NumberedSource.name, server: server.address))
            let events = try #require(owner.withLock { $0?.events() })
            let seen = Atomic<Int64>(0)
            let deinitThread = Locked<Bool?>(nil)
            try owner.withLock { recorder in
                recorder?.setInputHandler { buffer in
                    let numbered = (0..<buffer.frameCount).contains { buffer.sample(frame: $0, channel: 0) != 0 }
                    guard numbered, seen.add(Int64(buffer.frameCount), ordering: .relaxed).newValue >= 22_050 else { return }
                    // The last reference goes here, on the delivery thread: deinit runs stop() there.
                    let last = owner.withLock { recorder -> Recorder? in
                        defer { recorder = nil }
                        return recorder
                    }
                    if last != nil { deinitThread.withLock { $0 = true } }
                }
                try recorder?.record(to: path)
            }
            let began = monotonicSeconds()
            var finished: RecordingSummary?
            for await event in events {
                if case .recordingFinished(let summary) = event { finished = summary }
            }
            #expect(deinitThread.withLock { $0 } == true)
            let summary = try #require(finished)
            #expect(summary.error == nil)
            #expect(monotonicSeconds() - began < 30)  // bounded: no hang
            try await expectEveryFrame(path, source, summary, atLeast: 22_050)
            #expect(try readSoundFile(path).frames == Int(summary.frameCount))
        }
    }

    @Test func aLevelReadingsConsumerStopsTheRecordingWithTheBlockingAndTheAsyncCall() async throws {
        try await withNumberedSource { server, source, directory in
            let recorder = try Recorder(source: NumberedSource.name, server: server.address)
            defer { recorder.stop() }
            for blocking in [true, false] {
                let readings = recorder.levelReadings()
                let path = directory + "/consumer-\(blocking).aiff"
                try recorder.record(to: path)
                var signal = 0
                var summary: RecordingSummary?
                let began: Double
                var heard = 0
                for await reading in readings {
                    heard += reading.frameCount
                    if reading.channels[0].peakPower > -60 {
                        signal += reading.frameCount
                        if signal >= 44_100 { break }
                    }
                    // Bounded: a feed that never comes is a failure with its reason, not a hang.
                    if heard > 44_100 * 15 {
                        Issue.record("no second of the feed in 15 s recorded (blocking: \(blocking)); fed: \(source.framesFed)")
                        break
                    }
                }
                began = monotonicSeconds()
                if blocking {
                    // The blocking call, made from the consumer's task (a cooperative thread).
                    summary = try { () throws(RecorderError) -> RecordingSummary? in try recorder.stopRecording() }()
                } else {
                    summary = try await recorder.stopRecording()
                }
                #expect(monotonicSeconds() - began < 30)  // a hang: no time is measured here
                let done = try #require(summary)
                // The stop is at the moment of the call, not of the reading: a consumer that lags (two
                // cooperative threads shared with a hundred tests) stops later. Either way the file holds at
                // least the second of the feed the consumer saw (less the part of its first buffer before
                // the feed began), every frame of the feed from its first to its last.
                let take = try readSoundFile(path)
                let firstSound = take.samples.firstIndex { $0 != 0 } ?? take.samples.count
                #expect(take.samples.count - firstSound >= 44_100 - 4_410, "blocking: \(blocking)")
                try await expectEveryFrame(path, source, done, atLeast: 44_100 - 4_410)
            }
        }
    }

    @Test func waitForRecordingFromTheHandlerIsInvalidStateNotADeadlock() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/wait.aiff"
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let outcome = Locked<RecorderError?>(nil)
            let done = AsyncStream<Void>.makeStream()
            recorder.setInputHandler { [weak recorder] _ in
                guard outcome.withLock({ $0 == nil }) else { return }
                do throws(RecorderError) { _ = try recorder?.waitForRecording() } catch { outcome.withLock { $0 = error } }
                done.continuation.finish()
            }
            try recorder.record(to: path, duration: 1)
            for await _ in done.stream {}
            let error = try #require(outcome.withLock { $0 })
            #expect(error.code == .invalidState)
            #expect(error.message.contains("input handler"))
            #expect(try await recorder.waitForRecording()?.frameCount == 44_100)
        }
    }

    /// The interleaving that hung the old stopRecording: every buffer busy (2 buffers of 10 ms, a
    /// handler often slower than a buffer), so capture stalls and resumes all the time while stops come in.
    @Test func stopsWhileCaptureStallsForWantOfBuffersNeverHang() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: monitor, server: server.address, bufferCount: 2, bufferDuration: 0.01)
            defer { recorder.stop() }
            // 0, 7 or 14 ms per 10 ms buffer: faster than real time on average (the stop does not wait
            // behind an ever-growing backlog) but often slower than a buffer, so capture stalls.
            let calls = Atomic<Int>(0)
            recorder.setInputHandler { _ in usleep(UInt32(calls.add(1, ordering: .relaxed).newValue % 3) * 7_000) }
            // A thousand stops, or as many as 60 s of the clock hold: under ThreadSanitizer beside the CPU
            // work a thousand took longer than the suite's limit, a deadline that measured the machine.
            // Any stop that hangs is found: each is bounded alone.
            let iterations = Int(ProcessInfo.processInfo.environment["STALL_ITERATIONS"] ?? "") ?? 1_000
            let until = monotonicSeconds() + 60
            let (slowest, done) = try await offThread { () -> (Double, Int) in
                var slowest = 0.0, done = 0
                for index in 0..<iterations where monotonicSeconds() < until {
                    done += 1
                    let path = directory + "/take-\(index % 4).aiff"
                    try recorder.record(to: path, overwrite: true)
                    if index % 3 == 0 { usleep(UInt32(index % 7) * 1_000) }
                    let began = monotonicSeconds()
                    _ = try recorder.stopRecording()
                    slowest = max(slowest, monotonicSeconds() - began)
                    if slowest > 30 { throw TestFailure("stopRecording took \(slowest) s at iteration \(index)") }
                }
                return (slowest, done)
            }
            #expect(slowest < 30)  // a hang: how long a stop takes is the benchmark's to measure
            #expect(done >= 1)
            print("stops while capture stalls: \(done) record/stop cycles, the slowest stop \(slowest) s")
            #expect(!recorder.isRecording)
        }
    }

    /// A handler slower than real time at every buffer: libpulse's queue only grows, so a stop that
    /// read until the queue is empty, or whose target followed what keeps arriving, would never end. The
    /// flush's target is fixed when it is asked; the recording ends there, with every frame in the file.
    @Test func aStopWithAHandlerSlowerThanRealTimeEnds() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/behind.aiff"
            let recorder = try Recorder(source: monitor, server: server.address, bufferCount: 2, bufferDuration: 0.01)
            recorder.setInputHandler { _ in usleep(15_000) }  // 15 ms for each 10 ms buffer
            try recorder.record(to: path)
            // A second of backlog builds up behind the handler before the stop.
            _ = try await readingThrough(recorder.capturedFrames + 44_100, recorder.levelReadings())
            let summary = try await offThread { () throws -> RecordingSummary? in
                let stopped = DispatchSemaphore(value: 0)
                let result = Locked<Result<RecordingSummary?, RecorderError>?>(nil)
                let thread = Thread {
                    result.withLock { $0 = Result { () throws(RecorderError) in try recorder.stopRecording() } }
                    stopped.signal()
                }
                thread.start()
                // A ceiling only a hang reaches: the backlog is about a second of audio. (A hung recorder
                // is left as it is: its stop would hang this test too.)
                guard stopped.wait(timeout: .now() + 60) == .success else {
                    throw TestFailure("stopRecording did not return in 60 s with the handler behind")
                }
                recorder.stop()
                return try result.withLock { $0! }.get()
            }
            let done = try #require(summary)
            if let serverCaptured = recorder.delivery.lastDrain.withLock({ $0 }) {
                #expect(done.startFrame + done.frameCount >= serverCaptured)
            }
            let file = try readSoundFile(path)
            #expect(Int64(file.samples.count) == done.frameCount && done.frameCount > 0)
        }
    }

    @Test func errorsKeepTheirCause() async throws {
        do {
            _ = try Recorder(server: "tcp:127.0.0.1:1")
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.code == .serverUnreachable)
            #expect(error.underlyingError?.domain == .pulseAudio)
            #expect(error.underlyingError?.code == 6)  // PA_ERR_CONNECTIONREFUSED
        }
        let directory = try temporaryDirectory()
        do {
            _ = try SoundFileWriter(path: directory + "/missing/take.aiff", format: .default)
            Issue.record("created a file in a missing directory")
        } catch {
            #expect(error.code == .cannotCreateFile)
            #expect(error.underlyingError == .init(.posix, ENOENT))
        }
    }
}

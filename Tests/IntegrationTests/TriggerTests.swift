// record(to:trigger:): sound-activated takes on a scripted on/off noise, boundaries and content exact.
import Foundation
import RecorderKit
import Testing
import TestSupport
import Locking

private let monitor = PrivateServer.monoSink + ".monitor"

/// 1 s of silence, 1 s of noise, 2 s of silence, 0.7 s of noise, 2 s of silence.
private func onOffNoise() -> (samples: [Int16], bursts: [Range<Int>]) {
    let silence = [Int16](repeating: 0, count: 44_100)
    let first = noiseSamples(count: 44_100, seed: 51), second = noiseSamples(count: 30_870, seed: 52)
    let samples = silence + first + silence + silence + second + silence + silence
    return (samples, [44_100..<88_200, 176_400..<207_270])
}

/// The bursts of sound in `timeline` from `from` on: first non-zero sample to the last one before a
/// second of zeros.
private func bursts(in timeline: [Int16], from: Int) -> [Range<Int>] {
    var result: [Range<Int>] = []
    var index = from
    while let start = timeline[index...].firstIndex(where: { $0 != 0 }) {
        var end = start
        var scan = start
        while scan < timeline.count, scan - end < 44_100 {
            if timeline[scan] != 0 { end = scan + 1 }
            scan += 1
        }
        result.append(start..<end)
        index = end
        if scan >= timeline.count { break }
    }
    return result
}

@Suite(.timeLimit(.minutes(2)))
struct TriggerTests {
    /// Two bursts of noise, a threshold of −30 dBFS to start and −40 to stop, a 0.5 s hang and a 0.3 s
    /// pre-roll: two takes, each beginning exactly 0.3 s before the buffer in which its burst begins
    /// (that buffer within one buffer of the burst's first sample) and ending 0.5 s (and at most one
    /// buffer more) after its last sample; each take's file holds exactly those frames of what the
    /// server delivered; a marker added between takes lands on the next take's first frame; `pause()`
    /// leaves the takes alone.
    @Test(arguments: [false, true])
    func takesBeginWithTheirPreRollAndEndAfterTheHang(oneFile: Bool) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let (samples, _) = onOffNoise()
            try writeWAV(directory + "/onoff.wav", samples: samples, channels: 1)
            let recorder = try Recorder(source: monitor, server: server.address, maximumPreRoll: 0.3)
            defer { recorder.stop() }
            let timeline = Timeline()
            // The marker between the takes, from the input handler, timed by the audio: the trigger ends
            // take 1 with its fifth quiet buffer (0.5 s), and the handler runs after that decision. (From
            // the events stream, a test task that ran late once added it after take 2 had begun.)
            struct Between { var loud = false; var quiet = 0; var marker: Int64?; var failure: String? }
            let between = Locked(Between())
            recorder.setInputHandler { [weak recorder] buffer in
                timeline.add(buffer, at: 0)
                guard let recorder else { return }
                let peak = recorder.getPeakPower()
                between.withLock { state in
                    guard state.marker == nil else { return }
                    if peak > -30 { state.loud = true; state.quiet = 0 } else if state.loud && peak < -40 { state.quiet += 1 }
                    guard state.quiet == 5 else { return }
                    do throws(RecorderError) { state.marker = try recorder.addMarker("between") } catch { state.failure = error.message }
                }
            }
            let events = recorder.events()
            let path = directory + "/take.aiff"
            let trigger = SoundTrigger(startAbove: -30, stopBelow: -40, hang: 0.5, oneFile: oneFile)
            let listening = try recorder.record(to: path, trigger: trigger, preRoll: 0.3)
            #expect(recorder.isRecording && !recorder.isPaused)
            #expect(recorder.pause() == nil, "pause() leaves a sound-activated recording alone")
            let player = Task { try await server.play(directory + "/onoff.wav") }
            var started: [(Int, String, Int64)] = []
            var ended: [RecordingTake] = []
            for await event in events {
                if case .takeStarted(let number, let file, let frame) = event { started.append((number, file, frame)) }
                if case .takeEnded(let take) = event {
                    ended.append(take)
                    if take.number == 2 { break }
                }
            }
            try await player.value
            let summary = try #require(try await recorder.stopRecording())
            recorder.setInputHandler(nil)

            #expect(summary.takes == ended)
            #expect(summary.takes.count == 2)
            #expect(summary.pauses.isEmpty)
            #expect(started.map(\.0) == [1, 2])
            #expect(started.map(\.2) == summary.takes.map(\.startFrame))
            let names = oneFile ? [path, path] : [directory + "/take-001.aiff", directory + "/take-002.aiff"]
            #expect(started.map(\.1) == names && summary.takes.map(\.path) == names)
            #expect(summary.files == (oneFile ? [path] : names))
            #expect(!FileManager.default.fileExists(atPath: oneFile ? directory + "/take-001.aiff" : path))
            #expect(summary.frameCount == summary.takes.reduce(0) { $0 + $1.frameCount })

            let reference = timeline.samples
            #expect(timeline.isContiguous)
            let heard = bursts(in: reference, from: Int(listening))
            #expect(heard.count == 2, "\(heard)")
            var inFile: [Int16] = []
            for (take, burst) in zip(summary.takes, heard) {
                #expect(take.onsetFrame <= Int64(burst.lowerBound) && Int64(burst.lowerBound) < take.onsetFrame + 4_410,
                        "take \(take.number): onset buffer \(take.onsetFrame), sound from \(burst.lowerBound)")
                #expect(take.startFrame == take.onsetFrame - 13_230, "the 0.3 s pre-roll")
                let end = take.startFrame + take.frameCount
                #expect(end - Int64(burst.upperBound) >= 22_050 && end - Int64(burst.upperBound) <= 22_050 + 4_410,
                        "take \(take.number) ends \(end - Int64(burst.upperBound)) frames after its sound")
                let expected = Array(reference[Int(take.startFrame)..<Int(end)])
                if oneFile {
                    #expect(take.fileFrame == Int64(inFile.count))
                    inFile += expected
                } else {
                    #expect(take.fileFrame == 0)
                    #expect(Array(try readSoundFile(take.path).samples) == expected, "take \(take.number) bit-exact")
                }
            }
            if oneFile { #expect(Array(try readSoundFile(path).samples) == inFile, "the takes back to back, bit-exact") }
            // The marker between the takes is at the second take's first frame.
            let marker = between.withLock { $0 }
            #expect(marker.failure == nil)
            #expect(marker.marker == summary.takes[0].frameCount)
            #expect(summary.markers.map(\.path) == [summary.takes[1].path])
            #expect(summary.markers.map(\.fileFrame) == [summary.takes[1].fileFrame])
            #expect(try FileAnalysis.analyze(path: summary.takes[1].path).markers == [FileMarker(frame: summary.takes[1].fileFrame, label: "between")])
        }
    }

    /// A recording that never takes leaves no file; bad thresholds are one-line errors, and nothing is
    /// created for them.
    @Test func noSoundNoFileAndBadThresholds() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            let path = directory + "/quiet.wav"
            try recorder.record(to: path, trigger: SoundTrigger(startAbove: -50))
            _ = try await firstReading(recorder.levelReadings()) { $0.endFrame > 22_050 }
            let summary = try #require(try await recorder.stopRecording())
            #expect(summary.takes.isEmpty && summary.files.isEmpty && summary.frameCount == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
            for (trigger, message) in [
                (SoundTrigger(startAbove: .nan), "invalid start threshold nan dBFS: use -159 to 0 dBFS, e.g. -40"),
                (SoundTrigger(startAbove: 1e15), "invalid start threshold 1e+15 dBFS: use -159 to 0 dBFS, e.g. -40"),
                (SoundTrigger(startAbove: -40, stopBelow: -30), "invalid stop threshold -30.0 dBFS: use -160 dBFS up to the start threshold (-40.0)"),
                (SoundTrigger(startAbove: -40, hang: -1), "invalid hang time -1.0 s: use 0 to 3600 seconds"),
            ] {
                #expect(throws: RecorderError.self) { try recorder.record(to: path, trigger: trigger) }
                do throws(RecorderError) {
                    try recorder.record(to: path, trigger: trigger)
                } catch {
                    #expect(error.message == message)
                }
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/quiet-001.wav"))
            // A pre-roll longer than the recorder keeps is cut to what it keeps (here none), as for record(to:).
            try recorder.record(to: path, trigger: SoundTrigger(startAbove: -40), preRoll: 1)
            #expect(FileManager.default.fileExists(atPath: directory + "/quiet-001.wav"), "the first take's file, ready")
            #expect(try await recorder.stopRecording()?.takes.isEmpty == true)
            #expect(!FileManager.default.fileExists(atPath: directory + "/quiet-001.wav"))
        }
    }

    /// Sound already loud when a sound-activated recording begins: the take starts at once, no earlier
    /// than the recording (a take of several sources, whose first buffer can begin before the recording's
    /// start, once trapped here on a pre-roll running backwards: `SeveralSourceTakeTests`).
    @Test func aTakeThatBeginsAtOnceStartsWithTheRecording() async throws {
        try await withPrivateServer { server in
            try await withSteadySine(on: server) {
                let recorder = try Recorder(source: PrivateServer.monoSink + ".monitor", server: server.address, maximumPreRoll: 1)
                defer { recorder.stop() }
                _ = try await readingThrough(recorder.capturedFrames + 4_410, recorder.levelReadings())
                let path = try temporaryDirectory() + "/loud.wav"
                let start = try recorder.record(to: path, trigger: SoundTrigger(startAbove: -20, hang: 1, oneFile: true), preRoll: 0.5,
                                                frameLimit: 22_050)
                let summary = try #require(try await recorder.waitForRecording())
                let take = try #require(summary.takes.first)
                #expect(take.startFrame >= start)
                #expect(summary.frameCount == 22_050)
            }
        }
    }
}

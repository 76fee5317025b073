// What a one-source take does, a take of several sources does too: containers, sample formats, pauses,
// markers, pre-roll, split files, sound-activated takes.
import Foundation
import RecorderKit
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(3)))
struct SeveralSourceTakeTests {
    /// The sine source (one channel) and the stereo sink's monitor (two, silent), as one take.
    private static let sources = [PrivateServer.sineSource, PrivateServer.stereoSink + ".monitor"]

    /// Every container that holds three channels and every sample format: a three-channel file of the
    /// length asked, the sine in its first channel.
    @Test(arguments: [("wav", SampleFormat.int16), ("aiff", .int24), ("caf", .int32), ("flac", .int24), ("au", .float32),
                      ("w64", .int16), ("rf64", .float32)])
    func everyContainerAndSampleFormat(_ type: String, _ sampleFormat: SampleFormat) async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(sources: Self.sources, sampleFormat: sampleFormat, server: server.address)
            defer { recorder.stop() }
            let path = try temporaryDirectory() + "/take." + type
            try recorder.record(to: path, duration: 1)
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.frameCount == 44_100)
            let take = try readSoundFile(path)
            #expect(take.channels == 3)
            #expect(take.frames == 44_100)
            // (The sine is the only sound: the others are silent monitors.)
            #expect(try fileLevels(path).peak > -7, "\(type) \(sampleFormat)")
            #expect(summary.sources.map(\.channelCount) == [1, 2])
        }
    }

    /// A pause, a marker and pre-roll in a take of two sources: the file is the captured frames less the
    /// paused ones, the marker is in it, the take begins with its pre-roll.
    @Test func pausesMarkersAndPreRoll() async throws {
        try await withPrivateServer { server in
            let recorder = try Recorder(sources: Self.sources, server: server.address, maximumPreRoll: 1)
            defer { recorder.stop() }
            let readings = recorder.levelReadings()
            _ = try await readingThrough(recorder.capturedFrames + 22_050, readings)
            let path = try temporaryDirectory() + "/take.wav"
            let start = try recorder.record(to: path, overwrite: false, preRoll: 0.5)
            _ = try await readingThrough(start + 44_100, readings)
            let paused = try #require(recorder.pause())
            _ = try await readingThrough(paused + 22_050, readings)
            let resumed = try #require(recorder.resume())
            _ = try await readingThrough(resumed + 22_050, readings)
            try recorder.addMarker("here")
            _ = try await readingThrough(recorder.capturedFrames + 11_025, readings)
            let summary = try #require(try await recorder.stopRecording())
            #expect(summary.pauses.count == 1)
            #expect(summary.pauses.first?.pausedFrames == resumed - paused)
            #expect(summary.markers.map(\.label) == ["here"])
            #expect(summary.markers.first?.isStoredInFile == true)
            let take = try readSoundFile(path)
            #expect(Int64(take.frames) == summary.frameCount)
            #expect(take.channels == 3)
            let document = try #require(try ixmlDocument(path))
            #expect(ixmlValue("PRE_RECORD_SAMPLECOUNT", in: document) == "22050")
        }
    }

    /// A size limit splits a take of two sources into numbered files as it does one source's, and a
    /// sound-activated take (it listens to every source's channels) starts on the sine.
    @Test func splitFilesAndSoundActivatedTakes() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(sources: Self.sources, server: server.address, maximumPreRoll: 0.5)
            defer { recorder.stop() }
            try recorder.record(to: directory + "/split.wav", overwrite: false, frameLimit: 110_250, maxFramesPerFile: 44_100)
            let split = try #require(try await recorder.waitForRecording())
            #expect(split.files.count == 3)
            #expect(try split.files.map { try readSoundFile($0).frames } == [44_100, 44_100, 22_050])
            try recorder.record(to: directory + "/trigger.wav", trigger: SoundTrigger(startAbove: -20, stopBelow: -20, hang: 0.2, oneFile: true),
                                preRoll: 0.1, frameLimit: 88_200)
            let triggered = try #require(try await recorder.waitForRecording())
            #expect(!triggered.takes.isEmpty)
            #expect(try readSoundFile(directory + "/trigger.wav").channels == 3)
        }
    }
}

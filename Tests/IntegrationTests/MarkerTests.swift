// addMarker(_:): markers taken on the one control path, stored in AIFF and WAV files (read back by
// libsndfile), listed in the summary and the events.
import Foundation
import RecorderKit
import Testing
import TestSupport
import Locking

private let monitor = PrivateServer.monoSink + ".monitor"

@Suite(.timeLimit(.minutes(2)))
struct MarkerTests {
    /// Markers dropped from the input handler (timed by the audio) before a pause, during it and after
    /// it, in a recording split into 1 s files: each file holds its own markers at the frame whose
    /// audio was being captured when the marker was asked for (the join, for the one dropped while
    /// paused); libsndfile reads them back; the summary and the events say the same.
    @Test(arguments: ["aiff", "wav"])
    func eachMarkerIsStoredInItsFileAtTheFrameCapturedWhenItWasAskedFor(type: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let noise = noiseSamples(count: 44_100 * 8, seed: 41)
            try writeWAV(directory + "/noise.wav", samples: noise, channels: 1)
            let recorder = try Recorder(source: monitor, server: server.address)
            defer { recorder.stop() }
            let events = recorder.events()
            let timeline = Timeline()
            struct Script {
                var start: Int64?
                var loudBuffers = 0
                var positions: [Int64] = []
                var pausedAt: Int64?
                var resumedAt: Int64?
                var failure: String?
                var done = false
            }
            let script = Locked(Script())
            recorder.setInputHandler { [weak recorder] buffer in
                guard let recorder else { return }
                timeline.add(buffer, at: 0)
                script.withLock { script in
                    guard let start = script.start, buffer.startFrame >= start, !script.done else { return }
                    if recorder.getPeakPower() > -60 { script.loudBuffers += 1 }
                    do throws(RecorderError) {
                        switch script.loudBuffers {
                        case 8 where script.positions.isEmpty: script.positions.append(try recorder.addMarker("before the pause"))
                        case 12 where script.pausedAt == nil: script.pausedAt = recorder.pause()
                        case 15 where script.positions.count == 1: script.positions.append(try recorder.addMarker())
                        case 18 where script.resumedAt == nil: script.resumedAt = recorder.resume()
                        case 30 where script.positions.count == 2:
                            script.positions.append(try recorder.addMarker("after\nthe pause"))
                            script.done = true
                        default: break
                        }
                    } catch {
                        script.failure = error.message
                    }
                }
            }
            let path = directory + "/marked." + type
            let start = try recorder.record(to: path, maxFramesPerFile: 44_100)
            script.withLock { $0.start = start }
            try await server.play(directory + "/noise.wav")
            let summary = try #require(try await recorder.stopRecording())
            recorder.setInputHandler(nil)

            let done = script.withLock { $0 }
            #expect(done.failure == nil)
            #expect(done.done)
            let pausedAt = try #require(done.pausedAt), resumedAt = try #require(done.resumedAt)
            let paused = resumedAt - pausedAt
            #expect(summary.markers.map(\.label) == ["before the pause", "marker 2", "after the pause"])
            #expect(summary.markers.map(\.startFrame) == done.positions)
            #expect(summary.markers.allSatisfy { $0.isStoredInFile })
            #expect(done.positions[1] == pausedAt - start, "a marker dropped while paused is at the join")

            var added: [(label: String, frame: Int64, position: Int64)] = []
            for await event in events {
                if case .markerAdded(let label, let frame, let position) = event { added.append((label, frame, position)) }
                if case .recordingFinished = event { break }
            }
            #expect(added.map(\.label) == summary.markers.map(\.label))
            #expect(added.map(\.position) == done.positions)
            // The event's recorder frame is the recording position plus the start and what was paused before it.
            #expect(added[0].frame == start + added[0].position)
            #expect(added[1].frame >= pausedAt && added[1].frame < resumedAt)
            #expect(added[2].frame == start + added[2].position + paused)

            // Each file holds exactly its markers, at their frames, read back by libsndfile.
            var fileStarts: [String: Int64] = [:]
            var total: Int64 = 0
            var recorded: [Int16] = []
            for file in summary.files {
                fileStarts[file] = total
                let contents = try readSoundFile(file)
                recorded += contents.samples
                total += Int64(contents.frames)
                let stored = try FileAnalysis.analyze(path: file).markers
                let expected = summary.markers.filter { $0.path == file }.map { FileMarker(frame: $0.fileFrame, label: $0.label) }
                #expect(stored == expected, "\(file)")
            }
            #expect(total == summary.frameCount)
            #expect(Set(summary.markers.map(\.path)).count >= 2, "markers 1.6 s apart in 1 s files: \(summary.markers)")
            #expect(done.positions == done.positions.sorted())
            for marker in summary.markers {
                #expect(fileStarts[marker.path].map { $0 + marker.fileFrame } == marker.startFrame)
            }
            // At each marker the file holds the audio captured at its recorder frame (the resume's for
            // the one dropped while paused).
            let reference = timeline.samples
            #expect(timeline.isContiguous)
            for (index, marker) in summary.markers.enumerated() {
                let frame = Int(index == 1 ? resumedAt : added[index].frame)
                let position = Int(marker.startFrame)
                #expect(Array(recorded[position..<(position + 441)]) == Array(reference[frame..<(frame + 441)]), "marker \(index + 1)")
            }
        }
    }

    /// A size limit holds what close adds: the marker chunk of every file is counted before its audio
    /// reaches the limit, so no file passes 9 KiB (the header's take sheet takes about 4.8 of them; before
    /// the marker chunk was counted, a file of a 4 KiB limit was 4212 bytes); a marker that came too late
    /// to fit is listed, not stored; every frame is in some file.
    @Test(arguments: ["aiff", "wav"])
    func aSizeLimitHoldsTheMarkersEachFileCarries(type: String) async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            // A marker with the longest label at every buffer: the files (2 000 frames each) fill fast.
            recorder.setInputHandler { [weak recorder] _ in _ = try? recorder?.addMarker(String(repeating: "m", count: 300)) }
            let limit = 9_216
            try recorder.record(to: directory + "/take.\(type)", frameLimit: 22_050, maxBytesPerFile: Int64(limit))
            let summary = try #require(try await recorder.waitForRecording())
            #expect(summary.error == nil && summary.files.count > 5 && !summary.markers.isEmpty)
            var frames: Int64 = 0
            for file in summary.files {
                #expect(fileSize(file) <= limit, "\(file): \(fileSize(file)) bytes")
                let analysis = try FileAnalysis.analyze(path: file)
                frames += analysis.frames
                let stored = summary.markers.filter { $0.path == file && $0.isStoredInFile }
                #expect(analysis.markers.map(\.frame) == stored.map(\.fileFrame), "\(file)")
            }
            #expect(frames == summary.frameCount && frames == 22_050)
            #expect(summary.markers.contains { $0.isStoredInFile }, "room was kept for the markers known in time")
        }
    }

    /// CAF and FLAC cannot hold markers: the summary lists them, saying so. Without a recording a marker
    /// is a one-line error; a label is cleaned and cut to what a file holds.
    @Test func markersWithoutAFileToHoldThemAndBadLabels() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(server: server.address)
            defer { recorder.stop() }
            #expect(throws: RecorderError.self) { try recorder.addMarker() }
            do throws(RecorderError) {
                try recorder.addMarker()
            } catch {
                #expect(error.code == .invalidState)
                #expect(error.message == "cannot add a marker: nothing is being recorded; call record(to:) first")
            }
            try recorder.record(to: directory + "/take.flac")
            try recorder.addMarker(String(repeating: "é", count: 200) + "\u{0}")
            try recorder.addMarker("tab\there")
            let summary = try #require(try await recorder.stopRecording())
            #expect(summary.markers.count == 2)
            #expect(summary.markers.allSatisfy { !$0.isStoredInFile })
            #expect(summary.markers[0].label == String(repeating: "é", count: 127), "255 bytes of UTF-8, cut between characters")
            #expect(summary.markers[1].label == "tab here")
            #expect(try FileAnalysis.analyze(path: directory + "/take.flac").markers.isEmpty)
        }
    }
}

// Every RecorderKit error: its code, and a message that names what failed and what to do.
import Foundation
import RecorderKit
import Testing
import TestSupport

/// Runs `body`, expecting a RecorderError of `code`; returns it for message checks.
func expectError(_ code: RecorderError.Code, _ body: () throws -> Void,
                 sourceLocation: SourceLocation = #_sourceLocation) -> RecorderError? {
    do {
        try body()
        Issue.record("expected a \(code) error, got none", sourceLocation: sourceLocation)
    } catch let error as RecorderError {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a RecorderError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite(.timeLimit(.minutes(3)))
struct ErrorTests {
    @Test func noServerAtAUnixPathNamesTheAddressAndWhatToDo() throws {
        let error = expectError(.serverUnreachable) { _ = try Recorder(server: "unix:/nonexistent/recorder/native") }
        #expect(error?.message.contains("unix:/nonexistent/recorder/native") == true)
        #expect(error?.message.contains("start PulseAudio") == true)
    }

    @Test func noServerOnATCPPortSaysConnectionRefused() throws {
        let error = expectError(.serverUnreachable) { _ = try Recorder(server: "tcp:127.0.0.1:1") }
        #expect(error?.message.contains("tcp:127.0.0.1:1") == true)
        #expect(error?.message.contains("Connection refused") == true)
    }

    @Test func anUnknownSourceIsNamedAndTheAvailableOnesListed() async throws {
        try await withPrivateServer { server in
            let error = expectError(.sourceNotFound) { _ = try Recorder(source: "no-such-mic", server: server.address) }
            #expect(error?.message.contains("'no-such-mic'") == true)
            #expect(error?.message.contains(PrivateServer.sineSource) == true)
            #expect(error?.message.contains(PrivateServer.monoSink + ".monitor") == true)
            // Shell metacharacters are just characters of a name that does not exist.
            let odd = expectError(.sourceNotFound) { _ = try Recorder(source: "no;such$(mic)", server: server.address) }
            #expect(odd?.message.hasPrefix("no capture source named 'no;such$(mic)'") == true)
        }
    }

    @Test func badBufferSettingsThrowBeforeConnecting() throws {
        let count = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", bufferCount: 1) }
        #expect(count?.message.contains("buffer count 1") == true)
        // Durations are seconds, as everywhere in the API.
        let duration = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", bufferDuration: 0.005) }
        #expect(duration?.message == "invalid buffer duration 0.005 s: use 0.01 to 2 seconds (0.1 s is the design default)")
        let queue = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", maxQueueDuration: 0.3) }
        #expect(queue?.message == "invalid queue duration 0.3 s: use at least 4 buffers' worth (0.4 s) "
                + "and at most an hour (3600 s; the server caps it at 4 MiB anyway)")
        for huge in [Double(Int.max), 1e300, .infinity, .nan] {  // used to overflow converting to frames
            let error = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", maxQueueDuration: huge) }
            #expect(error?.message.hasPrefix("invalid queue duration \(huge) s") == true)
            let buffer = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", bufferDuration: huge) }
            #expect(buffer?.message.hasPrefix("invalid buffer duration \(huge) s") == true)
        }
        let timeout = expectError(.invalidFormat) { _ = try Recorder(server: "unix:/nonexistent", reconnectTimeout: -1) }
        #expect(timeout?.message == "invalid reconnect timeout -1.0 s: use 0 or more seconds")
    }

    @Test func fileErrorsNameThePathAndLeaveExistingFilesUntouched() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }

            let existing = directory + "/keep.aiff"
            try Data("precious".utf8).write(to: URL(fileURLWithPath: existing))
            let exists = expectError(.fileExists) { try recorder.record(to: existing) }
            #expect(exists?.message.contains(existing) == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("precious".utf8))

            let missing = directory + "/no/such/dir/take.aiff"
            let noDirectory = expectError(.cannotCreateFile) { try recorder.record(to: missing) }
            #expect(noDirectory?.message.contains(missing) == true)
            #expect(noDirectory?.message.contains("No such file or directory") == true)

            let folder = directory + "/folder.aiff"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let isDirectory = expectError(.cannotCreateFile) { try recorder.record(to: folder, overwrite: true) }
            #expect(isDirectory?.message.contains("is a directory") == true)

            let link = directory + "/link.aiff"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: existing)
            let symlink = expectError(.cannotCreateFile) { try recorder.record(to: link, overwrite: true) }
            #expect(symlink?.message.contains("symbolic link") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("precious".utf8))

            let m4a = expectError(.unsupportedFileType) { try recorder.record(to: directory + "/take.m4a") }
            #expect(m4a?.message.contains(".aiff") == true)
            #expect(!FileManager.default.fileExists(atPath: directory + "/take.m4a"))
            // Hostile numbers (issue 12): a one-line error each, never a trap (1e15 s used to trap converting
            // to Int64 frames, and a frame limit near Int64.max overflowed when added to the start).
            for bad in [-1, -1e-9, 1e15, 1e300, Double.nan, .infinity, -.infinity, 0x1p63] {
                let duration = expectError(.invalidFormat) { try recorder.record(to: directory + "/d.aiff", duration: bad) }
                #expect(duration?.message == "invalid duration \(bad) s: use 0 to 52286689551330 seconds at 44100 Hz")
            }
            for bad: Int64 in [-1, .max, .min, StreamFormat.maxFrameCount + 1] {
                let limit = expectError(.invalidFormat) { try recorder.record(to: directory + "/d.aiff", frameLimit: bad) }
                #expect(limit?.message == "invalid frame limit \(bad): use 0 to 2305843009213693952 frames")
                let split = expectError(.invalidFormat) { try recorder.record(to: directory + "/d.aiff", maxFramesPerFile: bad) }
                #expect(split?.message.hasPrefix("invalid file length \(bad) frames: use 1 to ") == true)
            }
            for bad: Int64 in [0, -1, .min, 40] {
                let size = expectError(.invalidFormat) { try recorder.record(to: directory + "/d.aiff", maxBytesPerFile: bad) }
                #expect(size?.message.hasPrefix("invalid file size limit \(bad) bytes: ") == true, "\(String(describing: size))")
            }
            for bad in [-1, 1, 5, Int.max, Int.min] {
                // A channel the format lacks is an error for the AudioQueue-style calls; AVAudioRecorder's
                // names read the floor for it, as Apple's do.
                let peak = expectError(.invalidChannel) { _ = try recorder.getPeakPower(channel: bad) }
                #expect(peak?.message == "there is no channel \(bad): the recorder captures 1 channel (0)")
                let average = expectError(.invalidChannel) { _ = try recorder.getAveragePower(channel: bad) }
                #expect(average?.message == peak?.message)
                recorder.isMeteringEnabled = true
                recorder.updateMeters()
                #expect(recorder.peakPower(forChannel: bad) == LevelMeterState.silence)
                #expect(recorder.averagePower(forChannel: bad) == LevelMeterState.silence)
            }
            for options in [MeterOptions(peakHold: .infinity), MeterOptions(peakDecay: .nan), MeterOptions(clipRun: .min),
                            MeterOptions(vuReference: 1e300)] {
                let meter = expectError(.invalidFormat) { _ = try recorder.meterReadings(.vu, options: options) }
                #expect(meter?.message.hasPrefix("invalid ") == true, "\(String(describing: meter))")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/d.aiff"))
            #expect(!recorder.isRecording)

            // Explicit overwrite replaces the file (AudioFile's EraseFile).
            try recorder.record(to: existing, overwrite: true, frameLimit: 4_410)
            let summary = try #require(try recorder.waitForRecording())
            #expect(summary.frameCount == 4_410)
            #expect(try readSoundFile(existing).frames == 4_410)
        }
    }

    /// Issue 12, point 3, through the API: a file another recorder writes is not replaced, even with
    /// `overwrite`, and its take is kept.
    @Test func overwriteOnAFileAnotherRecorderWritesIsRefusedWithFileInUse() async throws {
        try await withPrivateServer { server in
            let path = try temporaryDirectory() + "/held.aiff"
            let first = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { first.stop() }
            let second = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { second.stop() }
            try first.record(to: path, frameLimit: 22_050)
            let error = expectError(.fileInUse) { try second.record(to: path, overwrite: true) }
            #expect(error?.message == "'\(path)' is in use by another recording and was left untouched; "
                    + "choose another name or stop that recording first")
            #expect(!second.isRecording)
            let summary = try #require(try first.waitForRecording())
            #expect(summary.frameCount == 22_050 && summary.error == nil)
            #expect(try readSoundFile(path).frames == 22_050)
            // Once the first file is closed the lock is gone.
            try second.record(to: path, overwrite: true, frameLimit: 4_410)
            #expect(try #require(try second.waitForRecording()).frameCount == 4_410)
        }
    }

    @Test func aReadOnlyFilesystemAndASymlinkLoopCannotBeCreated() async throws {
        try await withTinyDisk(readOnly: true) { mountPoint in try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let readOnly = expectError(.cannotCreateFile) { try recorder.record(to: mountPoint + "/take.aiff") }
            #expect(readOnly?.message == "cannot create '\(mountPoint)/take.aiff': Read-only file system; choose a writable location")
            let directory = try temporaryDirectory()
            try FileManager.default.createSymbolicLink(atPath: directory + "/a", withDestinationPath: directory + "/b")
            try FileManager.default.createSymbolicLink(atPath: directory + "/b", withDestinationPath: directory + "/a")
            let loop = expectError(.cannotCreateFile) { try recorder.record(to: directory + "/a/take.aiff") }
            #expect(loop?.message.contains("symbolic link (or a loop of them)") == true)
            #expect(!recorder.isRecording)
        } }
    }

    @Test func aFullDiskEndsTheRecordingWithThePathTheReasonAndAValidFile() async throws {
        // A 64 KiB tmpfs: about 0.7 s of 44.1 kHz mono.
        try await withTinyDisk { mountPoint in try await withPrivateServer { server in
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            defer { recorder.stop() }
            let path = mountPoint + "/take.aiff"
            try recorder.record(to: path, duration: 5)
            let error = expectError(.writeFailed) { _ = try recorder.waitForRecording() }
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("failed after") == true && error?.message.contains(": No space left on device; the file was closed with what was written") == true, "\(error?.message ?? "")")
            let summary = try #require(recorder.lastRecording)
            #expect(summary.error == error)
            #expect(summary.frameCount > 0)
            // Everything written before the failure is readable, with a header that says so.
            let file = try readSoundFile(path)
            #expect(Int64(file.frames) == summary.frameCount)
        } }
    }

    @Test func callsOutOfOrderAreInvalidState() async throws {
        try await withPrivateServer { server in
            let directory = try temporaryDirectory()
            let recorder = try Recorder(source: PrivateServer.sineSource, server: server.address)
            try recorder.record(to: directory + "/a.aiff")
            let twice = expectError(.invalidState) { try recorder.record(to: directory + "/b.aiff") }
            #expect(twice?.message.contains("already recording to '\(directory)/a.aiff'") == true)
            recorder.stop()
            #expect(!recorder.isRecording)
            #expect(try readSoundFile(directory + "/a.aiff").channels == 1)
            let stopped = expectError(.invalidState) { try recorder.record(to: directory + "/c.aiff") }
            #expect(stopped?.message.contains("stopped") == true)
            #expect(try recorder.stopRecording() == nil)
        }
    }
}

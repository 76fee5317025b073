// Files that are what they say, whatever stops them: an AIFF left before its first buffer (a process
// killed then), and a take of each container ended by a full disk, each read back by its own tool.
import CSndFile
import Foundation
import Glibc
import Testing
import TestSupport
@testable import RecorderKit

/// The limit is a ceiling only a hang reaches: beside the tsan stage and `scripts/busy`, the six full-disk
/// cases took 365 s together in one fresh clone's run, and passed a one-minute limit in five of six in the next.
@Suite(.timeLimit(.minutes(5)))
struct FileWholenessTests {
    /// An AIFF (with its iXML take sheet) as a process killed before its first buffer leaves it (never
    /// closed): its FORM size is the file's, its sound chunk lies inside it, and libsndfile, ffprobe and
    /// sox read an empty take (FORM said 46 bytes of 4 150, and sox and ffprobe could not open it).
    @Test func anAIFFLeftBeforeItsFirstBufferIsAnEmptyTake() throws {
        let path = try temporaryDirectory() + "/killed.aiff"
        let metadata = RecordingMetadata(scene: "1", take: 1)
        let writer = try SoundFileWriter(path: path, format: try StreamFormat(sampleRate: 44_100, channelCount: 1),
                                         ixml: IXMLChunk.document(metadata, FileSession.firstFile(
                                             format: try StreamFormat(sampleRate: 44_100, channelCount: 1), firstFrameTime: 0,
                                             preRollFrames: 0)))
        defer { writer.close() }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let formSize = bytes[4..<8].reduce(0) { $0 << 8 | Int($1) }
        #expect(formSize == bytes.count - 8, "FORM says \(formSize) bytes of \(bytes.count - 8)")
        #expect(try readSoundFile(path).frames == 0)
        #expect(try runProcess("sox", [path, "-n", "stat"]).status == 0)
        let probe = try runProcess("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        #expect(probe.status == 0 && probe.stdout.hasPrefix("pcm_s16be"), "\(probe.stderr)")
        #expect(try ixmlDocument(path) != nil)
    }

    /// A take of each container written until the disk is full: the write that cannot fit fails before
    /// libsndfile takes its frames, the file closes whole, and it holds exactly the frames counted, as
    /// its own tool reads them (`flac -t` for FLAC; a FLAC ended so was not a valid stream, and decoded
    /// 2 920 frames fewer than counted). Lossy files decode (their codec's padding aside).
    @Test(arguments: [FileType.flac, .wav, .aiff, .caf, .mp3, .ogg])
    func aTakeEndedByAFullDiskHoldsTheFramesCounted(type: FileType) async throws {
        try await withTinyDisk(size: "256k") { disk in
            let path = disk + "/take." + type.rawValue
            let format = try StreamFormat(sampleRate: 44_100, channelCount: 2)
            let writer = try SoundFileWriter(path: path, format: format, fileType: type)
            let noise = noiseSamples(count: 4_410 * 2, seed: 91)
            let bytes = noise.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
            var failure: RecorderError?
            for _ in 0..<1_000 {
                do {
                    try bytes.withUnsafeBytes { try writer.write(packets: $0) }
                } catch let error as RecorderError {
                    failure = error
                    break
                }
            }
            writer.close()
            let error = try #require(failure, "256 KiB never filled")
            #expect(error.message.contains("No space left on device"), "\(error.message)")
            let counted = writer.framesWritten
            #expect(counted > 0)
            switch type {
            case .flac:
                let test = try runProcess("flac", ["-t", "-s", path])
                #expect(test.status == 0, "\(test.stderr)")
                #expect(try decodedFrames(path).frames == counted)
            case .mp3, .ogg:
                #expect(try runProcess("ffprobe", ["-v", "error", path]).status == 0)
                #expect(try decodedFrames(path).frames > 0)
            default:
                #expect(try readSoundFile(path).frames == Int(counted))
                #expect(try runProcess("sox", [path, "-n", "stat"]).status == 0)
            }
        }
    }

    /// `normalize` onto a disk that cannot hold the result (a FLAC and a WAV of 256 KiB onto 128 KiB):
    /// refused with the disk's reason, nothing left where the copy was to go (a FLAC's last block was lost
    /// unseen at its close, and a cut-short copy reported as normalised).
    @Test(arguments: [FileType.flac, .wav])
    func normalizeOntoAFullDiskLeavesNothing(type: FileType) async throws {
        let source = try temporaryDirectory() + "/loud." + type.rawValue
        let writer = try SoundFileWriter(path: source, format: try StreamFormat(sampleRate: 44_100, channelCount: 2), fileType: type)
        let noise = noiseSamples(count: 44_100 * 2 * 3, seed: 93)
        let bytes = noise.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        try bytes.withUnsafeBytes { try writer.write(packets: $0) }
        writer.close()
        try await withTinyDisk(size: "128k") { disk in
            let output = disk + "/quiet." + type.rawValue
            do throws(RecorderError) {
                _ = try Normalization.normalize(source, to: output, target: -30)
                Issue.record("normalised onto a full disk")
            } catch {
                #expect(error.code == .writeFailed && error.message.contains("No space left on device")
                        && error.message.contains("it was removed"), "\(error.message)")
            }
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}


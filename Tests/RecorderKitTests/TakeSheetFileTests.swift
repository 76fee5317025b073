// The take sheet's chunks in each container, without a server: iXML reserved before the audio and filled at
// close in WAV, RF64, AIFF and CAF (none elsewhere); bext only in WAV and RF64; text made safe for XML.
import CSndFile
import Foundation
import Glibc
import Testing
@testable import RecorderKit
import TestSupport

@Suite struct TakeSheetFileTests {
    private let facts = IXMLFacts(sampleRate: 44_100, bitDepth: 16, channelCount: 2, timeReference: 123_456_789_012,
                                  fileUID: "F1", familyUID: "FAM", fileIndex: 28, totalFiles: 30, preRecordFrames: 44_100)

    @Test(arguments: [FileType.wav, .rf64, .aiff, .caf, .flac, .w64])
    func theIXMLChunkIsFilledAtCloseWhereTheContainerHoldsOne(type: FileType) throws {
        let path = try temporaryDirectory() + "/take." + type.rawValue
        var metadata = RecordingMetadata(project: "P", scene: "12A", take: 3)
        let first = IXMLChunk.document(metadata, facts)
        let writer = try SoundFileWriter(path: path, format: try StreamFormat(sampleRate: 44_100, channelCount: 2),
                                         broadcast: BroadcastInfo(firstFrameTime: 0, sampleRate: 44_100), ixml: first)
        let holds = [.wav, .rf64, .aiff, .caf].contains(type)
        #expect((writer.ixmlReserved > 0) == holds && (writer.broadcastInfo != nil) == (type == .wav || type == .rf64))
        let silence = [UInt8](repeating: 0, count: 4 * 44_100)
        try silence.withUnsafeBytes { try writer.write(packets: $0) }
        // Before the close, as a file cut short would be: the first document.
        if holds { #expect(try ixmlDocument(path)?.trimmingCharacters(in: .whitespaces) == first) }
        metadata.circled = true
        let last = IXMLChunk.document(metadata, facts)
        #expect(writer.setIXML(last) == holds)
        #expect(!writer.setIXML(String(repeating: "x", count: writer.ixmlReserved + 1)))
        writer.close()
        let read = try ixmlDocument(path)
        #expect(read?.trimmingCharacters(in: .whitespaces) == (holds ? last : nil), "\(read ?? "none")")
        #expect(try readSoundFile(path).frames == 44_100)
    }

    /// The take-number scan opens only regular files: a FIFO (whose open would block until a writer
    /// came), a socket, a character device and a dangling link, each named like a take, are skipped, and
    /// the next take follows the real file's.
    @Test func theNextTakeScanSkipsWhatIsNotARegularFile() throws {
        let folder = try temporaryDirectory()
        let writer = try SoundFileWriter(path: folder + "/real.wav", format: try StreamFormat(sampleRate: 44_100, channelCount: 1),
                                         ixml: IXMLChunk.document(RecordingMetadata(scene: "1", take: 4), facts))
        writer.close()
        #expect(mkfifo(folder + "/fifo.wav", 0o644) == 0 && mkfifo(folder + "/fifo.aiff", 0o644) == 0)
        #expect(mkfifo(folder + "/fifo.caf", 0o644) == 0 && mkfifo(folder + "/fifo.rf64", 0o644) == 0)
        #expect(symlink(folder + "/nowhere.wav", folder + "/dangling.wav") == 0)
        #expect(symlink("/dev/null", folder + "/device.wav") == 0)
        #expect(symlink(folder + "/real.wav", folder + "/link.wav") == 0)
        let socketPath = folder + "/socket.wav"
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        // A hang here is the defect (the test's time limit ends it).
        #expect(RecordingMetadata.nextTake(scene: "1", in: folder) == 5)
        #expect(RecordingMetadata.nextTake(scene: "2", in: folder) == 1)
    }

    @Test func theDocumentSaysWhatTheFieldsHoldAndEscapesXML() {
        let metadata = RecordingMetadata(project: "A & B <C>", scene: "\u{1}1", take: 0, note: String(repeating: "é", count: 3_000),
                                         noGood: true, wildTrack: true, trackNames: ["Boom", "Lav \"1\""])
        let document = IXMLChunk.document(metadata, facts)
        #expect(document.contains("<PROJECT>A &amp; B &lt;C&gt;</PROJECT>") && document.contains("<SCENE> 1</SCENE>"))
        #expect(!document.contains("<TAKE>"), "a take below 1 is not written")
        #expect(document.contains("<TAKE_TYPE>NO_GOOD,WILD_TRACK</TAKE_TYPE>") && document.contains("<NO_GOOD>TRUE</NO_GOOD>"))
        #expect(document.contains("<NAME>Lav &quot;1&quot;</NAME>") && document.contains("<TRACK_COUNT>2</TRACK_COUNT>"))
        #expect(document.contains("<TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>28</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>")
                && document.contains("<TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>3197704724</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>"))
        #expect(document.contains("<FILE_SET_INDEX>AB</FILE_SET_INDEX>") && document.contains("<PRE_RECORD_SAMPLECOUNT>44100</PRE_RECORD_SAMPLECOUNT>"))
        // 3 000 two-byte characters cut to 4 096 bytes, between characters.
        let note = IXMLChunk.value(of: "NOTE", in: document) ?? ""
        #expect(note.utf8.count == 4_096 && note.allSatisfy { $0 == "é" })
        #expect(IXMLChunk.fileSetIndex(1) == "A" && IXMLChunk.fileSetIndex(26) == "Z" && IXMLChunk.fileSetIndex(27) == "AA")
    }

    @Test func broadcastFieldsAreCutBetweenCharactersAndLoudnessStoredInHundredths() {
        #expect(BroadcastInfo.field("ab\u{7}c", bytes: 32) == Array("ab c".utf8))
        #expect(BroadcastInfo.field(String(repeating: "€", count: 20), bytes: 32).count == 30)
        #expect(BroadcastInfo.stored(-23.456) == -2346 && BroadcastInfo.stored(nil) == 0x7FFF && BroadcastInfo.stored(.nan) == 0x7FFF)
        #expect(BroadcastInfo.stored(400) == 0x7FFF && BroadcastInfo.stored(-400) == 0x7FFF && BroadcastInfo.value(0x7FFF) == nil)
        let info = BroadcastInfo(firstFrameTime: .nan, sampleRate: 48_000)
        #expect(info.originationDate.count == 10 && info.originatorReference.count == 32 && info.version == 2)
        #expect(BroadcastInfo(firstFrameTime: 1e300, sampleRate: -5).timeReference == 0)
    }
}

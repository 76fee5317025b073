// A streaming player's parser as Apple code writes it (import AudioToolbox changed): a file's bytes fed
// to Audio File Stream Services in uneven pieces, as a download delivers them; the properties printed as
// they are found, the packets written one after another to OUT, where packet 100 begins.
//
//   streaming-parser IN OUT   parses IN (MP3, AAC in ADTS, or WAVE), writes its packets to OUT, prints what it learned
import Foundation
import OpenAudioToolbox

final class StreamState {
    let output: FileHandle
    var packets = 0
    var bytes = 0
    var describedPackets = 0
    init(output: FileHandle) { self.output = output }
}

func fourCC(_ value: UInt32) -> String {
    String(bytes: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, encoding: .ascii) ?? "?"
}

let propertyListener: AudioFileStream_PropertyListenerProc = { clientData, stream, propertyID, _ in
    switch propertyID {
    case kAudioFileStreamProperty_FileFormat:
        var type: AudioFileTypeID = 0
        var size = UInt32(MemoryLayout<AudioFileTypeID>.size)
        AudioFileStreamGetProperty(stream, propertyID, &size, &type)
        print("file format: \(fourCC(type))")
    case kAudioFileStreamProperty_DataFormat:
        var format = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        AudioFileStreamGetProperty(stream, propertyID, &size, &format)
        print("data format: \(fourCC(format.mFormatID)) \(Int(format.mSampleRate)) Hz, \(format.mChannelsPerFrame) channels, "
              + "\(format.mFramesPerPacket) frames a packet, \(format.mBytesPerPacket) bytes a packet")
    case kAudioFileStreamProperty_DataOffset:
        var offset: Int64 = 0
        var size = UInt32(MemoryLayout<Int64>.size)
        AudioFileStreamGetProperty(stream, propertyID, &size, &offset)
        print("data offset: \(offset)")
    case kAudioFileStreamProperty_AudioDataPacketCount:
        var count: UInt64 = 0
        var size = UInt32(MemoryLayout<UInt64>.size)
        AudioFileStreamGetProperty(stream, propertyID, &size, &count)
        print("packet count: \(count)")
    case kAudioFileStreamProperty_PacketTableInfo:
        var table = AudioFilePacketTableInfo()
        var size = UInt32(MemoryLayout<AudioFilePacketTableInfo>.size)
        AudioFileStreamGetProperty(stream, propertyID, &size, &table)
        print("packet table: \(table.mPrimingFrames) priming, \(table.mRemainderFrames) remainder, \(table.mNumberValidFrames) valid")
    case kAudioFileStreamProperty_ReadyToProducePackets:
        print("ready to produce packets")
    default:
        break
    }
}

let packetsProc: AudioFileStream_PacketsProc = { clientData, numberBytes, numberPackets, inputData, packetDescriptions in
    let state = Unmanaged<StreamState>.fromOpaque(clientData).takeUnretainedValue()
    if let packetDescriptions {
        for index in 0..<Int(numberPackets) {
            let description = packetDescriptions[index]
            let packet = Data(bytes: inputData.advanced(by: Int(description.mStartOffset)), count: Int(description.mDataByteSize))
            state.output.write(packet)
            state.bytes += packet.count
        }
        state.describedPackets += Int(numberPackets)
    } else {
        state.output.write(Data(bytes: inputData, count: Int(numberBytes)))
        state.bytes += Int(numberBytes)
    }
    state.packets += Int(numberPackets)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let input = FileManager.default.contents(atPath: arguments[1]),
      FileManager.default.createFile(atPath: arguments[2], contents: nil), let output = FileHandle(forWritingAtPath: arguments[2]) else {
    FileHandle.standardError.write("usage: streaming-parser IN OUT\n".data(using: .utf8)!)
    exit(2)
}
let state = StreamState(output: output)
var stream: AudioFileStreamID?
var status = AudioFileStreamOpen(Unmanaged.passUnretained(state).toOpaque(), propertyListener, packetsProc, kAudioFileMP3Type, &stream)
guard status == noErr, let stream else { exit(1) }

// Pieces of 1, 7, 333, 4 096 and 1 500 bytes in turn, as a network delivers them.
let pieces = [1, 7, 333, 4_096, 1_500]
var offset = 0, turn = 0
while offset < input.count {
    let count = min(pieces[turn % pieces.count], input.count - offset)
    status = input.withUnsafeBytes { bytes in
        AudioFileStreamParseBytes(stream, UInt32(count), bytes.baseAddress! + offset, [])
    }
    guard status == noErr else {
        print("parse failed: \(status)")
        exit(1)
    }
    offset += count
    turn += 1
}
try output.close()
print("packets: \(state.packets) in \(state.bytes) bytes, \(state.describedPackets) described")

var seekOffset: Int64 = 0
var seekFlags = AudioFileStreamSeekFlags()
status = AudioFileStreamSeek(stream, 100, &seekOffset, &seekFlags)
print("packet 100 at byte \(seekOffset) of the data, estimated: \(seekFlags.contains(.offsetIsEstimated))")
AudioFileStreamClose(stream)

// Audio File Stream Services: a stream's bytes parsed as they arrive (from a socket, a download) into its
// properties and its packets, each handed to the client's callbacks as it is found: MP3 through libmpg123,
// WAVE's linear PCM read here.
import Foundation
import Locking
import RecorderKit

/// One stream's parser: the reader its first bytes chose, what it has learned, the client's callbacks.
final class AudioFileStreamParser: @unchecked Sendable {
    // @unchecked Sendable: `state` is behind its lock; the callbacks and client pointer are fixed, and are
    // called with no lock held (a callback may call back into the stream).
    private struct State {
        var reader: (any StreamReader)?
        var facts = StreamFacts()
        var failed: OSStatus?
        var sniffed: [UInt8] = []
    }
    private let state = Locked(State())
    let client: UnsafeMutableRawPointer?
    let onProperty: AudioFileStream_PropertyListenerProc
    let onPackets: AudioFileStream_PacketsProc
    let hint: AudioFileTypeID

    init(client: UnsafeMutableRawPointer?, onProperty: AudioFileStream_PropertyListenerProc,
         onPackets: AudioFileStream_PacketsProc, hint: AudioFileTypeID) {
        self.client = client
        self.onProperty = onProperty
        self.onPackets = onPackets
        self.hint = hint
    }

    var facts: StreamFacts { state.withLock { $0.facts } }

    /// Parses `bytes`; the events found, or the status that ends the stream.
    func parse(_ bytes: UnsafeRawBufferPointer, discontinuity: Bool) -> Result<[StreamEvent], StreamStatus> {
        state.withLock { state in
            if let failed = state.failed { return .failure(StreamStatus(failed)) }
            if state.reader == nil {
                // The kind of stream, from its first bytes (the hint where they do not say).
                state.sniffed += bytes
                switch Self.kind(of: state.sniffed, hint: hint) {
                case .none: return .success([])
                case .some(.failure(let status)):
                    state.failed = status.status
                    return .failure(status)
                case .some(.success(let reader)):
                    state.reader = reader
                    let sniffed = state.sniffed
                    state.sniffed = []
                    return sniffed.withUnsafeBytes { run(reader, $0, discontinuity: false, &state) }
                }
            }
            return run(state.reader!, bytes, discontinuity: discontinuity, &state)
        }
    }

    private func run(_ reader: any StreamReader, _ bytes: UnsafeRawBufferPointer, discontinuity: Bool, _ state: inout State) -> Result<[StreamEvent], StreamStatus> {
        let result = reader.parse(bytes, discontinuity: discontinuity, facts: &state.facts)
        if case .failure(let status) = result { state.failed = status.status }
        return result
    }

    /// The reader for a stream that begins with `bytes`: WAVE for "RIFF…WAVE", AAC for an ADTS sync (or
    /// the ADTS hint), MPEG audio for an ID3 tag or a frame sync (or the MP3 hint); nil until enough has
    /// come to tell.
    private static func kind(of bytes: [UInt8], hint: AudioFileTypeID) -> Result<any StreamReader, StreamStatus>? {
        guard bytes.count >= 12 else { return nil }
        if bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WAVE".utf8) { return .success(WAVEStreamReader()) }
        if ADTSStreamReader.isSync(bytes[0], bytes[1]) || (hint == kAudioFileAAC_ADTSType && !bytes[0..<3].elementsEqual("ID3".utf8)) {
            return .success(ADTSStreamReader())
        }
        let mpeg = bytes[0..<3].elementsEqual("ID3".utf8) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
            || [kAudioFileMP3Type, kAudioFileMP2Type, kAudioFileMP1Type].contains(hint)
        guard mpeg else { return .failure(StreamStatus(kAudioFileStreamError_UnsupportedFileType)) }
        do throws(RecorderError) {
            return .success(try MP3StreamReader())
        } catch {
            QueueRegistry.noteFailure("AudioFileStreamParseBytes: \(error.message)")
            return .failure(StreamStatus(kAudioFileStreamError_UnsupportedFileType))
        }
    }

    /// The byte offset of packet `packet`, from the reader.
    func byteOffset(ofPacket packet: Int64) -> (offset: Int64, estimated: Bool)? {
        state.withLock { state in state.reader?.byteOffset(ofPacket: packet, facts: state.facts) }
    }
}

private enum StreamRegistry {
    static let streams = HandleRegistry<AudioFileStreamParser>()
}

/// Opens a parser: `inPropertyListenerProc` is called as each property becomes known
/// (kAudioFileStreamProperty_ReadyToProducePackets last, before the first packets), `inPacketsProc` with
/// each batch of packets, both from inside `AudioFileStreamParseBytes`, on its thread. MP3 (MPEG audio
/// layers I–III, an ID3 tag before it skipped), AAC in ADTS and WAVE (linear PCM) are parsed; the kind
/// is told by the first bytes, `inFileTypeHint` deciding only for a stream without a tag or sync at the start. Any
/// thread; one stream's calls one at a time (as Apple's).
@discardableResult
public func AudioFileStreamOpen(_ inClientData: UnsafeMutableRawPointer?, _ inPropertyListenerProc: AudioFileStream_PropertyListenerProc,
                                _ inPacketsProc: AudioFileStream_PacketsProc, _ inFileTypeHint: AudioFileTypeID,
                                _ outAudioFileStream: UnsafeMutablePointer<AudioFileStreamID?>) -> OSStatus {
    let parser = AudioFileStreamParser(client: inClientData, onProperty: inPropertyListenerProc, onPackets: inPacketsProc, hint: inFileTypeHint)
    outAudioFileStream.pointee = StreamRegistry.streams.add(parser)
    return noErr
}

/// Parses the next `inDataByteSize` bytes of the stream, calling the callbacks with what they complete.
/// `kAudioFileStreamParseFlag_Discontinuity`: these bytes do not follow the last ones (after a seek).
/// Statuses: kAudioFileStreamError_UnsupportedFileType for a stream neither MPEG audio, ADTS nor WAVE,
/// …_UnsupportedDataFormat for WAVE that is not linear PCM, …_InvalidFile for a WAVE header that is not
/// one; after such a status the stream answers it to every call.
@discardableResult
public func AudioFileStreamParseBytes(_ inAudioFileStream: AudioFileStreamID, _ inDataByteSize: UInt32, _ inData: UnsafeRawPointer?,
                                      _ inFlags: AudioFileStreamParseFlags) -> OSStatus {
    guard let parser = StreamRegistry.streams.find(inAudioFileStream) else { return kAudio_ParamError }
    guard inDataByteSize == 0 || inData != nil else { return kAudio_ParamError }
    let bytes = UnsafeRawBufferPointer(start: inDataByteSize == 0 ? nil : inData, count: Int(inDataByteSize))
    let result = parser.parse(bytes, discontinuity: inFlags.contains(.discontinuity))
    switch result {
    case .failure(let status): return status.status
    case .success(let events):
        for event in events {
            switch event {
            case .property(let id):
                var flags = AudioFileStreamPropertyFlags()
                parser.onProperty(parser.client ?? UnsafeMutableRawPointer(bitPattern: 1)!, inAudioFileStream, id, &flags)
            case .packets(let bytes, var descriptions, let count):
                bytes.withUnsafeBytes { raw in
                    if descriptions == nil {
                        parser.onPackets(parser.client ?? UnsafeMutableRawPointer(bitPattern: 1)!, UInt32(raw.count), UInt32(count), raw.baseAddress!, nil)
                    } else {
                        descriptions!.withUnsafeMutableBufferPointer {
                            parser.onPackets(parser.client ?? UnsafeMutableRawPointer(bitPattern: 1)!, UInt32(raw.count), UInt32(count),
                                             raw.baseAddress!, $0.baseAddress)
                        }
                    }
                }
            }
        }
        return noErr
    }
}

/// Where packet `inPacketOffset` begins in the stream, for the client to read from there (and parse with
/// `kAudioFileStreamParseFlag_Discontinuity`). WAVE's is exact; MP3's estimated from the packets' average
/// size so far (`kAudioFileStreamSeekFlag_OffsetIsEstimated` set). kAudioFileStreamError_DataUnavailable
/// before the first packets; …_InvalidPacketOffset for a negative packet.
@discardableResult
public func AudioFileStreamSeek(_ inAudioFileStream: AudioFileStreamID, _ inPacketOffset: Int64,
                                _ outDataByteOffset: UnsafeMutablePointer<Int64>, _ ioFlags: UnsafeMutablePointer<AudioFileStreamSeekFlags>) -> OSStatus {
    guard let parser = StreamRegistry.streams.find(inAudioFileStream) else { return kAudio_ParamError }
    guard inPacketOffset >= 0 else { return kAudioFileStreamError_InvalidPacketOffset }
    guard let (offset, estimated) = parser.byteOffset(ofPacket: min(inPacketOffset, Int64.max / 1 << 20)) else {
        return kAudioFileStreamError_DataUnavailable
    }
    // Offsets from the start of the audio data, as Apple's (add the DataOffset property to read the stream).
    outDataByteOffset.pointee = offset - (parser.facts.dataOffset ?? 0)
    ioFlags.pointee = estimated ? .offsetIsEstimated : []
    return noErr
}

private func streamPropertySize(_ id: AudioFileStreamPropertyID) -> Int? {
    switch id {
    case kAudioFileStreamProperty_ReadyToProducePackets, kAudioFileStreamProperty_FileFormat,
         kAudioFileStreamProperty_MaximumPacketSize, kAudioFileStreamProperty_PacketSizeUpperBound, kAudioFileStreamProperty_BitRate:
        MemoryLayout<UInt32>.size
    case kAudioFileStreamProperty_DataFormat: MemoryLayout<AudioStreamBasicDescription>.size
    case kAudioFileStreamProperty_DataOffset: MemoryLayout<Int64>.size
    case kAudioFileStreamProperty_AudioDataByteCount, kAudioFileStreamProperty_AudioDataPacketCount: MemoryLayout<UInt64>.size
    case kAudioFileStreamProperty_AverageBytesPerPacket: MemoryLayout<Double>.size
    case kAudioFileStreamProperty_PacketTableInfo: MemoryLayout<AudioFilePacketTableInfo>.size
    default: nil
    }
}

/// The size of property `inPropertyID`, and that it cannot be set. The properties: ReadyToProducePackets,
/// FileFormat, DataFormat, DataOffset, AudioDataByteCount, AudioDataPacketCount, MaximumPacketSize,
/// PacketSizeUpperBound, BitRate, AverageBytesPerPacket, PacketTableInfo; any other is
/// kAudioFileStreamError_UnsupportedProperty.
@discardableResult
public func AudioFileStreamGetPropertyInfo(_ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID,
                                           _ outPropertyDataSize: UnsafeMutablePointer<UInt32>?,
                                           _ outWritable: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    guard StreamRegistry.streams.find(inAudioFileStream) != nil else { return kAudio_ParamError }
    guard let size = streamPropertySize(inPropertyID) else { return kAudioFileStreamError_UnsupportedProperty }
    outPropertyDataSize?.pointee = UInt32(size)
    outWritable?.pointee = false
    return noErr
}

/// Property `inPropertyID` as learned so far: kAudioFileStreamError_ValueUnknown while the stream has not
/// said it (the packet count of an MP3 without a LAME/Xing frame, before the end), …_BadPropertySize for
/// a buffer too small. The bit rate and average packet size are of the packets parsed so far.
@discardableResult
public func AudioFileStreamGetProperty(_ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID,
                                       _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer) -> OSStatus {
    guard let parser = StreamRegistry.streams.find(inAudioFileStream) else { return kAudio_ParamError }
    guard let size = streamPropertySize(inPropertyID) else { return kAudioFileStreamError_UnsupportedProperty }
    guard Int(ioPropertyDataSize.pointee) >= size else { return kAudioFileStreamError_BadPropertySize }
    let facts = parser.facts
    func store<T>(_ value: T?) -> OSStatus {
        guard let value else { return kAudioFileStreamError_ValueUnknown }
        outPropertyData.storeBytes(of: value, as: T.self)
        ioPropertyDataSize.pointee = UInt32(size)
        return noErr
    }
    let average = facts.packetsSeen > 0 ? Double(facts.bytesSeen) / Double(facts.packetsSeen) : nil
    switch inPropertyID {
    case kAudioFileStreamProperty_ReadyToProducePackets: return store(UInt32(facts.readyToProducePackets ? 1 : 0))
    case kAudioFileStreamProperty_FileFormat: return store(facts.fileFormat)
    case kAudioFileStreamProperty_DataFormat: return store(facts.dataFormat)
    case kAudioFileStreamProperty_DataOffset: return store(facts.dataOffset)
    case kAudioFileStreamProperty_AudioDataByteCount: return store(facts.audioDataByteCount)
    case kAudioFileStreamProperty_AudioDataPacketCount: return store(facts.audioDataPacketCount)
    case kAudioFileStreamProperty_MaximumPacketSize, kAudioFileStreamProperty_PacketSizeUpperBound: return store(facts.maximumPacketSize)
    case kAudioFileStreamProperty_PacketTableInfo: return store(facts.packetTable)
    case kAudioFileStreamProperty_AverageBytesPerPacket: return store(average)
    case kAudioFileStreamProperty_BitRate:
        guard let average, let format = facts.dataFormat, format.mFramesPerPacket > 0 else { return store(UInt32?.none) }
        return store(UInt32(clamping: Int64(average * 8 * format.mSampleRate / Double(format.mFramesPerPacket))))
    default: return kAudioFileStreamError_UnsupportedProperty
    }
}

/// Setting a property: none can be set here (kAudioFileStreamError_IllegalOperation).
@discardableResult
public func AudioFileStreamSetProperty(_ inAudioFileStream: AudioFileStreamID, _ inPropertyID: AudioFileStreamPropertyID,
                                       _ inPropertyDataSize: UInt32, _ inPropertyData: UnsafeRawPointer) -> OSStatus {
    guard StreamRegistry.streams.find(inAudioFileStream) != nil else { return kAudio_ParamError }
    return kAudioFileStreamError_IllegalOperation
}

/// Closes the parser; its handle is invalid from now on. From a callback too (what that parse call had
/// found still comes).
@discardableResult
public func AudioFileStreamClose(_ inAudioFileStream: AudioFileStreamID) -> OSStatus {
    StreamRegistry.streams.remove(inAudioFileStream) == nil ? kAudio_ParamError : noErr
}

// What Audio File Stream's parser learns from a stream's bytes, and its readers: MP3 (MPEG audio frames
// found by libmpg123, the LAME tag's delay and padding), AAC in ADTS (its frame headers read here) and
// WAVE (its header read here, then whole frames of linear PCM).
import RecorderKit

/// What the parser has learned of the stream so far (nil: not yet known).
struct StreamFacts {
    var fileFormat: AudioFileTypeID?
    var dataFormat: AudioStreamBasicDescription?
    var dataOffset: Int64?
    var audioDataByteCount: UInt64?
    var audioDataPacketCount: UInt64?
    var maximumPacketSize: UInt32?
    var packetTable: AudioFilePacketTableInfo?
    /// Packets and their bytes so far (the average packet size and bit rate while the totals are unknown).
    var packetsSeen: UInt64 = 0
    var bytesSeen: UInt64 = 0
    var readyToProducePackets = false
}

/// One thing a reader found, for the parser to tell its client in order.
enum StreamEvent {
    case property(AudioFileStreamPropertyID)
    /// Packets: their bytes, one description each (nil for constant-size packets), how many.
    case packets([UInt8], [AudioStreamPacketDescription]?, Int)
}

/// Reads one kind of stream.
protocol StreamReader: AnyObject {
    /// Takes the next bytes (after a seek when `discontinuity`), updating `facts`; what it found, in order.
    /// A status when the bytes cannot be this kind of stream.
    func parse(_ bytes: UnsafeRawBufferPointer, discontinuity: Bool, facts: inout StreamFacts) -> Result<[StreamEvent], StreamStatus>
    /// The byte offset of packet `packet` and whether it is estimated; nil when it cannot be known yet.
    func byteOffset(ofPacket packet: Int64, facts: StreamFacts) -> (offset: Int64, estimated: Bool)?
}

/// A status a reader returns.
struct StreamStatus: Error {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}

/// MPEG audio (layers I–III): each frame a packet, found by libmpg123 in the bytes fed to it (an ID3 tag
/// before them skipped, the LAME/Xing frame read for the packet count, delay and padding, not given as a
/// packet). The first frame gives the format.
final class MP3StreamReader: StreamReader {
    private let library: MPG123Library
    private let handle: MPG123Library.Handle

    init() throws(RecorderError) {
        library = try MPG123Library.loaded()
        guard let made = library.new(nil, nil) else { throw RecorderError(.invalidState, "libmpg123 could not make a reader") }
        handle = made
        _ = library.param(handle, MPG123Library.addFlags, MPG123Library.quiet, 0)
        _ = library.openFeed(handle)
    }

    deinit { library.delete(handle) }

    func parse(_ bytes: UnsafeRawBufferPointer, discontinuity: Bool, facts: inout StreamFacts) -> Result<[StreamEvent], StreamStatus> {
        if discontinuity, facts.readyToProducePackets {
            // Bytes from elsewhere: a fresh feed, which finds the next frame header in them.
            _ = library.openFeed(handle)
        }
        if let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty {
            _ = library.feed(handle, base, bytes.count)
        }
        var events: [StreamEvent] = []
        var packed: [UInt8] = []
        var descriptions: [AudioStreamPacketDescription] = []
        while true {
            let status = library.nextFrame(handle)
            guard status == MPG123Library.ok || status == MPG123Library.newFormat else { break }
            var header: UInt = 0
            var body: UnsafeMutablePointer<UInt8>?
            var bodyBytes = 0
            guard library.frameData(handle, &header, &body, &bodyBytes) == MPG123Library.ok, let body,
                  let frame = MPEGFrameHeader(UInt32(truncatingIfNeeded: header)) else { continue }
            if !facts.readyToProducePackets {
                events += announce(frame, facts: &facts)
            }
            let start = Int64(packed.count)
            packed += [UInt8(truncatingIfNeeded: header >> 24), UInt8(truncatingIfNeeded: header >> 16),
                       UInt8(truncatingIfNeeded: header >> 8), UInt8(truncatingIfNeeded: header)]
            packed += UnsafeBufferPointer(start: body, count: bodyBytes)
            descriptions.append(AudioStreamPacketDescription(mStartOffset: start, mVariableFramesInPacket: 0,
                                                             mDataByteSize: UInt32(packed.count) - UInt32(start)))
        }
        if !descriptions.isEmpty {
            facts.packetsSeen += UInt64(descriptions.count)
            facts.bytesSeen += UInt64(packed.count)
            events.append(.packets(packed, descriptions, descriptions.count))
        }
        // Bytes that hold no frame at all after a good many: not MPEG audio.
        if !facts.readyToProducePackets, bytes.count > 0, facts.bytesSeen == 0, facts.fileFormat == nil, fedWithoutFrame(bytes.count) > 1 << 20 {
            return .failure(StreamStatus(kAudioFileStreamError_UnsupportedFileType))
        }
        return .success(events)
    }

    private var unframed = 0
    private func fedWithoutFrame(_ count: Int) -> Int {
        unframed += count
        return unframed
    }

    /// The first frame's format and what the LAME tag says; then ready.
    private func announce(_ frame: MPEGFrameHeader, facts: inout StreamFacts) -> [StreamEvent] {
        var events: [StreamEvent] = []
        facts.fileFormat = [1: kAudioFileMP1Type, 2: kAudioFileMP2Type][frame.layer] ?? kAudioFileMP3Type
        events.append(.property(kAudioFileStreamProperty_FileFormat))
        facts.dataFormat = AudioStreamBasicDescription(
            mSampleRate: Double(frame.sampleRate), mFormatID: [1: kAudioFormatMPEGLayer1, 2: kAudioFormatMPEGLayer2][frame.layer] ?? kAudioFormatMPEGLayer3,
            mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: UInt32(frame.framesPerPacket), mBytesPerFrame: 0,
            mChannelsPerFrame: UInt32(frame.channels), mBitsPerChannel: 0, mReserved: 0)
        events.append(.property(kAudioFileStreamProperty_DataFormat))
        let position = library.framePosition(handle)
        if position >= 0 {
            facts.dataOffset = position
            events.append(.property(kAudioFileStreamProperty_DataOffset))
        }
        facts.maximumPacketSize = UInt32(frame.largestFrameBytes)
        events.append(.property(kAudioFileStreamProperty_MaximumPacketSize))
        let frames = library.frameLength(handle)
        if frames > 0 {
            facts.audioDataPacketCount = UInt64(frames)
            events.append(.property(kAudioFileStreamProperty_AudioDataPacketCount))
        }
        var delay = 0, padding = 0
        if frame.layer == 3, library.getState(handle, MPG123Library.encoderDelay, &delay, nil) == MPG123Library.ok, delay >= 0,
           library.getState(handle, MPG123Library.encoderPadding, &padding, nil) == MPG123Library.ok, padding >= 0, frames > 0 {
            // The decoder's own delay (529 frames of layer III's synthesis) comes on top of the encoder's.
            let priming = delay + 529, remainder = max(0, padding - 529)
            let total = Int64(frames) * Int64(frame.framesPerPacket)
            facts.packetTable = AudioFilePacketTableInfo(mNumberValidFrames: max(0, total - Int64(priming) - Int64(remainder)),
                                                         mPrimingFrames: Int32(priming), mRemainderFrames: Int32(remainder))
            events.append(.property(kAudioFileStreamProperty_PacketTableInfo))
        }
        facts.readyToProducePackets = true
        events.append(.property(kAudioFileStreamProperty_ReadyToProducePackets))
        return events
    }

    func byteOffset(ofPacket packet: Int64, facts: StreamFacts) -> (offset: Int64, estimated: Bool)? {
        guard let dataOffset = facts.dataOffset, facts.packetsSeen > 0 else { return nil }
        // Frames vary in size (padding, VBR): the average so far, estimated.
        let average = Double(facts.bytesSeen) / Double(facts.packetsSeen)
        return (dataOffset + Int64((Double(packet) * average).rounded(.down)), true)
    }
}

/// A WAVE file's header read as it streams in (RIFF, its fmt and data chunks), then its data as whole
/// frames of linear PCM: constant-size packets, one frame each.
final class WAVEStreamReader: StreamReader {
    /// The header's bytes until the data chunk begins; then what is left of a frame cut by a read.
    private var pending: [UInt8] = []
    /// Bytes of the stream taken so far.
    private var position: Int64 = 0

    func parse(_ bytes: UnsafeRawBufferPointer, discontinuity: Bool, facts: inout StreamFacts) -> Result<[StreamEvent], StreamStatus> {
        if discontinuity, facts.readyToProducePackets { pending.removeAll() }
        pending += bytes
        position += Int64(bytes.count)
        var events: [StreamEvent] = []
        if !facts.readyToProducePackets {
            switch readHeader(&facts) {
            case .failure(let status): return .failure(status)
            case .success(nil): return .success([])
            case .success(let found?): events = found
            }
        }
        guard let format = facts.dataFormat, format.mBytesPerFrame > 0 else { return .success(events) }
        let frameBytes = Int(format.mBytesPerFrame)
        let whole = pending.count / frameBytes
        if whole > 0 {
            let packets = Array(pending[..<(whole * frameBytes)])
            pending.removeFirst(whole * frameBytes)
            facts.packetsSeen += UInt64(whole)
            facts.bytesSeen += UInt64(packets.count)
            events.append(.packets(packets, nil, whole))
        }
        return .success(events)
    }

    /// The header, if all of it has come: the format and the data chunk's place; nil until then.
    private func readHeader(_ facts: inout StreamFacts) -> Result<[StreamEvent]?, StreamStatus> {
        func word(_ at: Int) -> UInt32 { UInt32(pending[at]) | UInt32(pending[at + 1]) << 8 | UInt32(pending[at + 2]) << 16 | UInt32(pending[at + 3]) << 24 }
        func half(_ at: Int) -> UInt16 { UInt16(pending[at]) | UInt16(pending[at + 1]) << 8 }
        guard pending.count >= 12 else { return .success(nil) }
        guard pending[0..<4].elementsEqual("RIFF".utf8), pending[8..<12].elementsEqual("WAVE".utf8) else {
            return .failure(StreamStatus(kAudioFileStreamError_UnsupportedFileType))
        }
        var at = 12
        var format: AudioStreamBasicDescription?
        while at + 8 <= pending.count {
            let size = Int(word(at + 4))
            if pending[at..<(at + 4)].elementsEqual("data".utf8) {
                guard var found = format else { return .failure(StreamStatus(kAudioFileStreamError_InvalidFile)) }
                let headerBytes = at + 8
                facts.fileFormat = kAudioFileWAVEType
                found.mFramesPerPacket = 1
                facts.dataFormat = found
                facts.dataOffset = Int64(headerBytes)
                facts.audioDataByteCount = UInt64(size)
                facts.audioDataPacketCount = UInt64(size) / UInt64(max(1, found.mBytesPerFrame))
                facts.maximumPacketSize = found.mBytesPerFrame
                facts.readyToProducePackets = true
                pending.removeFirst(headerBytes)
                return .success([.property(kAudioFileStreamProperty_FileFormat), .property(kAudioFileStreamProperty_DataFormat),
                                 .property(kAudioFileStreamProperty_DataOffset), .property(kAudioFileStreamProperty_AudioDataByteCount),
                                 .property(kAudioFileStreamProperty_AudioDataPacketCount), .property(kAudioFileStreamProperty_MaximumPacketSize),
                                 .property(kAudioFileStreamProperty_ReadyToProducePackets)])
            }
            let next = at + 8 + size + (size & 1)
            if pending[at..<(at + 4)].elementsEqual("fmt ".utf8) {
                guard pending.count >= at + 8 + 16 else { return .success(nil) }
                let tag = half(at + 8), channels = UInt32(half(at + 10)), rate = word(at + 12), block = UInt32(half(at + 20))
                let bits = UInt32(half(at + 22))
                // 1: integer PCM, 3: float, 0xFFFE: extensible (its subformat's first two bytes say which).
                let kind = tag == 0xFFFE && pending.count >= at + 8 + 26 ? half(at + 8 + 24) : tag
                guard kind == 1 || kind == 3, channels > 0, rate > 0, bits > 0, block == (bits + 7) / 8 * channels else {
                    return .failure(StreamStatus(kAudioFileStreamError_UnsupportedDataFormat))
                }
                let flags: AudioFormatFlags = kind == 3 ? kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked
                    : (bits > 8 ? kAudioFormatFlagIsSignedInteger : 0) | kAudioFormatFlagIsPacked
                format = AudioStreamBasicDescription(mSampleRate: Double(rate), mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                                     mBytesPerPacket: block, mFramesPerPacket: 1, mBytesPerFrame: block,
                                                     mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
            }
            // A chunk that has not all come yet: wait for it (its size said; the header is small).
            guard next <= pending.count || !pending[at..<(at + 4)].elementsEqual("fmt ".utf8) else { return .success(nil) }
            if next > 1 << 24 { return .failure(StreamStatus(kAudioFileStreamError_InvalidFile)) }
            at = next
        }
        return .success(nil)
    }

    func byteOffset(ofPacket packet: Int64, facts: StreamFacts) -> (offset: Int64, estimated: Bool)? {
        guard let dataOffset = facts.dataOffset, let format = facts.dataFormat else { return nil }
        return (dataOffset + packet * Int64(format.mBytesPerFrame), false)
    }
}

/// AAC in ADTS frames: each frame's raw data a packet (its 7-byte header, 9 with a CRC, left out, as
/// Apple's parser gives them to a decoder of kAudioFormatMPEG4AAC), 1 024 frames a raw data block; the
/// first header gives the format. Bytes that are not a frame (after a seek) are skipped to the next sync.
final class ADTSStreamReader: StreamReader {
    private var pending: [UInt8] = []

    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    /// Whether `bytes` (at least two) begin an ADTS header: the 12-bit sync and layer 0.
    static func isSync(_ first: UInt8, _ second: UInt8) -> Bool { first == 0xFF && second & 0xF6 == 0xF0 }

    func parse(_ bytes: UnsafeRawBufferPointer, discontinuity: Bool, facts: inout StreamFacts) -> Result<[StreamEvent], StreamStatus> {
        if discontinuity { pending.removeAll() }
        pending += bytes
        var events: [StreamEvent] = []
        var packets: [UInt8] = []
        var descriptions: [AudioStreamPacketDescription] = []
        var at = 0
        while at + 7 <= pending.count {
            let header = pending[at..<(at + 7)].map { Int($0) }
            let rateIndex = header[2] >> 2 & 0x0F, channelConfiguration = (header[2] & 1) << 2 | header[3] >> 6
            let frameLength = (header[3] & 3) << 11 | header[4] << 3 | header[5] >> 5
            let headerLength = header[1] & 1 == 1 ? 7 : 9
            guard Self.isSync(pending[at], pending[at + 1]), rateIndex < Self.sampleRates.count, frameLength > headerLength else {
                guard facts.readyToProducePackets || at > 0 || discontinuity else { return .failure(StreamStatus(kAudioFileStreamError_InvalidFile)) }
                at += 1  // not a frame: on to the next sync
                continue
            }
            guard at + frameLength <= pending.count else { break }
            if !facts.readyToProducePackets {
                let objectType = (header[2] >> 6) + 1  // 2: AAC LC
                facts.fileFormat = kAudioFileAAC_ADTSType
                facts.dataFormat = AudioStreamBasicDescription(
                    mSampleRate: Double(Self.sampleRates[rateIndex]), mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: UInt32(objectType),
                    mBytesPerPacket: 0, mFramesPerPacket: 1_024, mBytesPerFrame: 0,
                    mChannelsPerFrame: UInt32(channelConfiguration == 7 ? 8 : channelConfiguration), mBitsPerChannel: 0, mReserved: 0)
                facts.dataOffset = 0
                facts.maximumPacketSize = 8_191 - 7
                facts.readyToProducePackets = true
                events += [kAudioFileStreamProperty_FileFormat, kAudioFileStreamProperty_DataFormat, kAudioFileStreamProperty_DataOffset,
                           kAudioFileStreamProperty_MaximumPacketSize, kAudioFileStreamProperty_ReadyToProducePackets].map(StreamEvent.property)
            }
            let blocks = (header[6] & 3) + 1
            descriptions.append(AudioStreamPacketDescription(mStartOffset: Int64(packets.count), mVariableFramesInPacket: blocks == 1 ? 0 : UInt32(blocks * 1_024),
                                                             mDataByteSize: UInt32(frameLength - headerLength)))
            packets += pending[(at + headerLength)..<(at + frameLength)]
            at += frameLength
        }
        pending.removeFirst(at)
        if !descriptions.isEmpty {
            facts.packetsSeen += UInt64(descriptions.count)
            facts.bytesSeen += UInt64(packets.count)
            events.append(.packets(packets, descriptions, descriptions.count))
        }
        return .success(events)
    }

    func byteOffset(ofPacket packet: Int64, facts: StreamFacts) -> (offset: Int64, estimated: Bool)? {
        guard facts.packetsSeen > 0 else { return nil }
        // Frames vary in size: the average so far (headers counted), estimated.
        let average = Double(facts.bytesSeen) / Double(facts.packetsSeen) + 7
        return (Int64((Double(packet) * average).rounded(.down)), true)
    }
}

/// The four bytes that begin an MPEG audio frame.
struct MPEGFrameHeader {
    let layer: Int
    let sampleRate: Int
    let channels: Int
    let framesPerPacket: Int
    /// The biggest frame this version, layer and rate can make (the highest bit rate, padded).
    let largestFrameBytes: Int

    init?(_ header: UInt32) {
        guard header >> 21 == 0x7FF else { return nil }
        let version = Int(header >> 19 & 3)  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layerBits = Int(header >> 17 & 3)
        let rateIndex = Int(header >> 10 & 3)
        guard version != 1, layerBits != 0, rateIndex != 3 else { return nil }
        layer = 4 - layerBits
        let base = [44_100, 48_000, 32_000][rateIndex]
        sampleRate = version == 3 ? base : version == 2 ? base / 2 : base / 4
        channels = header >> 6 & 3 == 3 ? 1 : 2
        let mpeg1 = version == 3
        framesPerPacket = layer == 1 ? 384 : (layer == 3 && !mpeg1 ? 576 : 1_152)
        let topRate = mpeg1 ? [448_000, 384_000, 320_000][layer - 1] : [256_000, 160_000, 160_000][layer - 1]
        largestFrameBytes = layer == 1 ? (12 * topRate / sampleRate + 1) * 4 : framesPerPacket / 8 * topRate / sampleRate + 1
    }
}

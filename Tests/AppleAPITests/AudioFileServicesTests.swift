// Audio File Services without a server: packets written and read back through libsndfile, in each
// container and byte order a file type takes, properties, and Apple's statuses for what is refused.
import CSndFile
import Foundation
import OpenAudioToolbox
import Testing
import TestSupport

private func pcm(channels: UInt32 = 2, bits: UInt32 = 16, float: Bool = false, bigEndian: Bool) -> AudioStreamBasicDescription {
    AudioStreamBasicDescription(
        mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
        mFormatFlags: kLinearPCMFormatFlagIsPacked | (float ? kLinearPCMFormatFlagIsFloat : kLinearPCMFormatFlagIsSignedInteger)
            | (bigEndian ? kLinearPCMFormatFlagIsBigEndian : 0),
        mBytesPerPacket: bits / 8 * channels, mFramesPerPacket: 1, mBytesPerFrame: bits / 8 * channels,
        mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
}

struct AudioFileServicesTests {
    /// Each writable type, in the byte orders it takes and every sample type: packets written in two
    /// calls (the second at the packet count) read back, byte for byte, through AudioFileReadPacketData
    /// of the file reopened, with its properties; libsndfile reads the container and encoding asked for.
    @Test(arguments: [(kAudioFileAIFFType, true, Int32(SF_FORMAT_AIFF)), (kAudioFileAIFCType, false, Int32(SF_FORMAT_AIFF)),
                      (kAudioFileWAVEType, false, Int32(SF_FORMAT_WAV)), (kAudioFileCAFType, true, Int32(SF_FORMAT_CAF)),
                      (kAudioFileCAFType, false, Int32(SF_FORMAT_CAF)), (kAudioFileRF64Type, false, Int32(SF_FORMAT_RF64)),
                      (kAudioFileNextType, true, Int32(SF_FORMAT_AU)), (kAudioFileWave64Type, false, Int32(SF_FORMAT_W64))])
    func packetsWrittenReadBackByteForByte(type: AudioFileTypeID, bigEndian: Bool, container: Int32) throws {
        let directory = try temporaryDirectory()
        for (bits, float) in [(UInt32(16), false), (24, false), (32, false), (32, true)] {
            var format = pcm(bits: bits, float: float, bigEndian: bigEndian)
            let url = URL(fileURLWithPath: directory + "/take-\(bits)\(float ? "f" : "").\(type)")
            var file: AudioFileID?
            if type == kAudioFileAIFCType, float, !bigEndian {  // libsndfile writes floats in AIFF-C big-endian only
                #expect(AudioFileCreateWithURL(url as CFURL, type, &format, .eraseFile, &file) == kAudioFileUnsupportedDataFormatError)
                continue
            }
            #expect(AudioFileCreateWithURL(url as CFURL, type, &format, .eraseFile, &file) == noErr, "\(bits) bits")
            let created = try #require(file)
            // Noise as bytes: for floats, values within ±1 (any bits would include NaNs, which libsndfile keeps
            // but normalises the sign of); for integers, any bytes.
            let frames = 1_000, frameBytes = Int(format.mBytesPerFrame)
            let noise = noiseSamples(count: frames * 2, seed: UInt64(bits))
            let bytes: [UInt8] = float
                ? noise.flatMap { sample -> [UInt8] in
                    let bits = (Float(sample) / 32_768).bitPattern
                    let big = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: bits >> UInt32($0)) }
                    return bigEndian ? big : big.reversed()
                }
                : (0..<(frames * frameBytes)).map { UInt8(truncatingIfNeeded: Int(noise[$0 % noise.count]) &* 31 &+ $0) }
            var packets = UInt32(600)
            #expect(AudioFileWritePackets(created, false, UInt32(600 * frameBytes), nil, 0, &packets, bytes) == noErr)
            #expect(packets == 600)
            packets = 1_000  // more than the bytes given: only the bytes' worth (400) is written
            let rest = Array(bytes[(600 * frameBytes)...])
            #expect(AudioFileWritePackets(created, false, UInt32(rest.count), nil, 600, &packets, rest) == noErr)
            #expect(packets == 400)
            packets = 1
            #expect(AudioFileWritePackets(created, false, UInt32(frameBytes), nil, 1_001, &packets, bytes) == kAudioFileInvalidPacketOffsetError)
            #expect(AudioFileClose(created) == noErr)
            #expect(AudioFileClose(created) == kAudioFileNotOpenError)

            let written = try #require(try? readFormat(url.path))
            #expect(written.container == container, "\(bits) bits")
            #expect(written.frames == 1_000 && written.channels == 2 && written.rate == 48_000)

            var opened: AudioFileID?
            #expect(AudioFileOpenURL(url as CFURL, .readPermission, 0, &opened) == noErr)
            let reading = try #require(opened)
            defer { AudioFileClose(reading) }
            var described = AudioStreamBasicDescription()
            var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            #expect(AudioFileGetProperty(reading, kAudioFilePropertyDataFormat, &size, &described) == noErr)
            #expect(described.mFormatFlags == format.mFormatFlags && described.mBitsPerChannel == bits
                    && described.mBytesPerPacket == format.mBytesPerPacket && described.mSampleRate == 48_000, "\(described)")
            var count: UInt64 = 0
            size = 8
            #expect(AudioFileGetProperty(reading, kAudioFilePropertyAudioDataPacketCount, &size, &count) == noErr && count == 1_000)
            var duration: Double = 0
            #expect(AudioFileGetProperty(reading, kAudioFilePropertyEstimatedDuration, &size, &duration) == noErr)
            #expect(abs(duration - 1_000.0 / 48_000) < 1e-12)
            var fileType: AudioFileTypeID = 0
            size = 4
            #expect(AudioFileGetProperty(reading, kAudioFilePropertyFileFormat, &size, &fileType) == noErr)
            #expect(fileType == (type == kAudioFileAIFFType && float ? kAudioFileAIFCType : type))

            var readBack = [UInt8](repeating: 0, count: bytes.count + 64)
            var byteCount = UInt32(readBack.count)
            packets = 2_000
            #expect(AudioFileReadPacketData(reading, false, &byteCount, nil, 0, &packets, &readBack) == noErr)
            #expect(packets == 1_000 && byteCount == UInt32(bytes.count))
            #expect(readBack.prefix(bytes.count).elementsEqual(bytes), "\(bits)-bit \(float ? "float " : "")packets differ")
            // From the middle, a few at a time; at the end, none.
            byteCount = UInt32(3 * frameBytes)
            packets = 10
            #expect(AudioFileReadPacketData(reading, false, &byteCount, nil, 997, &packets, &readBack) == noErr)
            #expect(packets == 3 && readBack.prefix(3 * frameBytes).elementsEqual(bytes[(997 * frameBytes)...]))
            packets = 10
            byteCount = UInt32(readBack.count)
            #expect(AudioFileReadPacketData(reading, false, &byteCount, nil, 1_000, &packets, &readBack) == noErr)
            #expect(packets == 0 && byteCount == 0)
            packets = 1
            #expect(AudioFileWritePackets(reading, false, 4, nil, 0, &packets, bytes) == kAudioFilePermissionsError)
        }
    }

    /// What a type or a format cannot hold, an existing file without `.eraseFile`, a missing folder, a
    /// compressed file's packets, and handles that are not open: Apple's statuses, and one line saying why.
    @Test func whatIsRefusedGetsAppleStatusAndOneLine() throws {
        let directory = try temporaryDirectory()
        var file: AudioFileID?
        var littleEndian = pcm(bigEndian: false)
        var bigEndian = pcm(bigEndian: true)
        let aiff = URL(fileURLWithPath: directory + "/take.aif")
        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileAIFFType, &littleEndian, .eraseFile, &file) == kAudioFileUnsupportedDataFormatError)
        #expect(file == nil)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains(aiff.path) == true)
        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileWAVEType, &bigEndian, .eraseFile, &file) == kAudioFileUnsupportedDataFormatError)
        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileM4AType, &bigEndian, .eraseFile, &file) == kAudioFileUnsupportedFileTypeError)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("'m4af'") == true)
        var compressed = bigEndian
        compressed.mFormatID = kAudioFormatAppleLossless
        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileCAFType, &compressed, .eraseFile, &file) == kAudioFileUnsupportedDataFormatError)

        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileAIFFType, &bigEndian, [], &file) == noErr)
        AudioFileClose(file!)
        #expect(AudioFileCreateWithURL(aiff as CFURL, kAudioFileAIFFType, &bigEndian, [], &file) == kAudioFilePermissionsError)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains(".eraseFile") == true)
        let missing = URL(fileURLWithPath: directory + "/no/such/folder/take.aif")
        #expect(AudioFileCreateWithURL(missing as CFURL, kAudioFileAIFFType, &bigEndian, .eraseFile, &file) == kAudioFileFileNotFoundError)
        #expect(AudioFileOpenURL(missing as CFURL, .readPermission, 0, &file) == kAudioFileFileNotFoundError)
        #expect(AudioFileOpenURL(aiff as CFURL, .readWritePermission, 0, &file) == kAudioFileOperationNotSupportedError)
        #expect(AudioFileCreateWithURL(URL(string: "https://example.com/a.aif")! as CFURL, kAudioFileAIFFType, &bigEndian, .eraseFile, &file) == kAudio_ParamError)

        // A FLAC file opens and tells its format; its packets are not read here.
        let flac = directory + "/tone.flac"
        try writeFLAC(flac)
        #expect(AudioFileOpenURL(URL(fileURLWithPath: flac) as CFURL, .readPermission, 0, &file) == noErr)
        let opened = try #require(file)
        var described = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioFileGetProperty(opened, kAudioFilePropertyDataFormat, &size, &described) == noErr)
        #expect(described.mFormatID == kAudioFormatFLAC)
        var bytes = [UInt8](repeating: 0, count: 64)
        var byteCount: UInt32 = 64
        var packets: UInt32 = 8
        #expect(AudioFileReadPacketData(opened, false, &byteCount, nil, 0, &packets, &bytes) == kAudioFileOperationNotSupportedError)
        size = 2
        #expect(AudioFileGetProperty(opened, kAudioFilePropertyDataFormat, &size, &described) == kAudioFileBadPropertySizeError)
        #expect(AudioFileGetProperty(opened, 0x7878_7878, &size, &described) == kAudioFileUnsupportedPropertyError)
        var writable: UInt32 = 9
        #expect(AudioFileGetPropertyInfo(opened, kAudioFilePropertyAudioDataPacketCount, &size, &writable) == noErr)
        #expect(size == 8 && writable == 0)
        #expect(AudioFileClose(opened) == noErr)
        #expect(AudioFileReadPacketData(opened, false, &byteCount, nil, 0, &packets, &bytes) == kAudioFileNotOpenError)
    }
}

private func readFormat(_ path: String) throws -> (container: Int32, frames: Int64, channels: Int32, rate: Int32) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw TestFailure("libsndfile cannot open \(path)") }
    sf_close(file)
    return (info.format & Int32(SF_FORMAT_TYPEMASK), info.frames, info.channels, info.samplerate)
}

private func writeFLAC(_ path: String) throws {
    var info = SF_INFO(frames: 0, samplerate: 44_100, channels: 1, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16), sections: 0, seekable: 0)
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { throw TestFailure("libsndfile cannot write \(path)") }
    let tone = sineSamples(frames: 4_410, frequency: 1_000, amplitudes: [0.5])
    _ = tone.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, 4_410) }
    sf_close(file)
}

// Audio File Services' functions, with Apple's signatures: create, open, write and read linear PCM
// packets (one frame each), read properties, close. Any thread; one file's calls are serialized.
import CSndFile
import Foundation
import Locking

/// The open files by handle, so that a call with a closed or foreign AudioFileID is refused with a status.
enum FileRegistry {
    private static let files = HandleRegistry<AudioFileObject>()
    static func add(_ file: AudioFileObject) -> AudioFileID { files.add(file) }
    static func find(_ handle: AudioFileID) -> AudioFileObject? { files.find(handle) }
    static func remove(_ handle: AudioFileID) -> AudioFileObject? { files.remove(handle) }
}

private func opened(_ result: Result<AudioFileObject, AudioFileFailure>,
                    _ outAudioFile: UnsafeMutablePointer<AudioFileID?>) -> OSStatus {
    switch result {
    case .success(let file):
        outAudioFile.pointee = FileRegistry.add(file)
        return noErr
    case .failure(let failure):
        QueueRegistry.noteFailure(failure.message)
        return failure.status
    }
}

/// Creates a file of `inFileType` (AIFF, AIFC, WAVE, RF64, W64, CAF, NeXT) for linear PCM packets of
/// `inFormat`. An existing file is replaced only with `.eraseFile` (kAudioFilePermissionsError otherwise).
/// AAC, ALAC, MP3 and M4A files cannot be written on Linux: kAudioFileUnsupportedFileTypeError.
@discardableResult
public func AudioFileCreateWithURL(_ inFileRef: CFURL, _ inFileType: AudioFileTypeID,
                                   _ inFormat: UnsafePointer<AudioStreamBasicDescription>,
                                   _ inFlags: AudioFileFlags,
                                   _ outAudioFile: UnsafeMutablePointer<AudioFileID?>) -> OSStatus {
    outAudioFile.pointee = nil
    guard inFileRef.isFileURL else {
        QueueRegistry.noteFailure(notAFileURL(inFileRef, "create"))
        return kAudio_ParamError
    }
    return opened(AudioFileObject.create(path: inFileRef.path, type: inFileType, description: inFormat.pointee,
                                         erase: inFlags.contains(.eraseFile)), outAudioFile)
}

/// Opens a sound file of any type libsndfile reads, to read (write permission is refused on Linux:
/// kAudioFileOperationNotSupportedError). The type hint is not needed.
@discardableResult
public func AudioFileOpenURL(_ inFileRef: CFURL, _ inPermissions: AudioFilePermissions,
                             _ inFileTypeHint: AudioFileTypeID,
                             _ outAudioFile: UnsafeMutablePointer<AudioFileID?>) -> OSStatus {
    outAudioFile.pointee = nil
    guard inFileRef.isFileURL else {
        QueueRegistry.noteFailure(notAFileURL(inFileRef, "open"))
        return kAudio_ParamError
    }
    guard inPermissions == .readPermission else {
        QueueRegistry.noteFailure("cannot open \(inFileRef.path) to write: files are opened to read only on Linux; create a new one")
        return kAudioFileOperationNotSupportedError
    }
    return opened(AudioFileObject.open(path: inFileRef.path), outAudioFile)
}

/// Opens, to read, a sound file the caller holds: `inReadFunc` reads its bytes, `inGetSizeFunc` says how
/// many there are (any type libsndfile reads). Writing through callbacks is refused on Linux
/// (kAudioFileOperationNotSupportedError); `inClientData` must stay valid until AudioFileClose.
@discardableResult
public func AudioFileOpenWithCallbacks(_ inClientData: UnsafeMutableRawPointer, _ inReadFunc: AudioFile_ReadProc,
                                       _ inWriteFunc: AudioFile_WriteProc?, _ inGetSizeFunc: AudioFile_GetSizeProc,
                                       _ inSetSizeFunc: AudioFile_SetSizeProc?, _ inFileTypeHint: AudioFileTypeID,
                                       _ outAudioFile: UnsafeMutablePointer<AudioFileID?>) -> OSStatus {
    outAudioFile.pointee = nil
    guard inWriteFunc == nil, inSetSizeFunc == nil else {
        QueueRegistry.noteFailure("cannot open audio data to write through callbacks on Linux; create a file with AudioFileCreateWithURL")
        return kAudioFileOperationNotSupportedError
    }
    let source = CallbackSource(client: inClientData, read: inReadFunc, size: inGetSizeFunc)
    return opened(AudioFileObject.open(callbacks: source), outAudioFile)
}

/// Writes `ioNumPackets` packets (at most `inNumBytes` bytes' worth) at packet `inStartingPacket`, which
/// may be at most the packets in the file; `ioNumPackets` becomes the packets written.
@discardableResult
public func AudioFileWritePackets(_ inAudioFile: AudioFileID, _ inUseCache: Bool, _ inNumBytes: UInt32,
                                  _ inPacketDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
                                  _ inStartingPacket: Int64, _ ioNumPackets: UnsafeMutablePointer<UInt32>,
                                  _ inBuffer: UnsafeRawPointer) -> OSStatus {
    guard let file = FileRegistry.find(inAudioFile) else { return kAudioFileNotOpenError }
    guard file.writable, file.bytesPerPacket > 0 else { return kAudioFilePermissionsError }
    let count = min(Int(ioNumPackets.pointee), Int(inNumBytes) / file.bytesPerPacket)
    ioNumPackets.pointee = 0
    guard count > 0 else { return noErr }
    let status = file.write(inBuffer, count: count, start: inStartingPacket)
    if status == noErr { ioNumPackets.pointee = UInt32(count) }
    return status
}

/// Reads up to `ioNumPackets` packets (at most `ioNumBytes` bytes) from packet `inStartingPacket` into
/// `outBuffer`, as the file holds them (kAudioFilePropertyDataFormat says how); both counts become what
/// was read, 0 at the end. Compressed files: kAudioFileOperationNotSupportedError (use AVAudioFile).
@discardableResult
public func AudioFileReadPacketData(_ inAudioFile: AudioFileID, _ inUseCache: Bool,
                                    _ ioNumBytes: UnsafeMutablePointer<UInt32>,
                                    _ outPacketDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?,
                                    _ inStartingPacket: Int64, _ ioNumPackets: UnsafeMutablePointer<UInt32>,
                                    _ outBuffer: UnsafeMutableRawPointer?) -> OSStatus {
    guard let file = FileRegistry.find(inAudioFile) else { return kAudioFileNotOpenError }
    guard let outBuffer else { return kAudio_ParamError }
    let packetBytes = max(1, file.bytesPerPacket)
    let count = min(Int(ioNumPackets.pointee), Int(ioNumBytes.pointee) / packetBytes)
    let (status, read) = file.read(into: outBuffer, count: count, start: inStartingPacket)
    ioNumPackets.pointee = UInt32(read)
    ioNumBytes.pointee = UInt32(read * packetBytes)
    return status
}

/// The size of property `inPropertyID` and whether it can be set (none can here).
@discardableResult
public func AudioFileGetPropertyInfo(_ inAudioFile: AudioFileID, _ inPropertyID: AudioFilePropertyID,
                                     _ outDataSize: UnsafeMutablePointer<UInt32>?,
                                     _ isWritable: UnsafeMutablePointer<UInt32>?) -> OSStatus {
    guard FileRegistry.find(inAudioFile) != nil else { return kAudioFileNotOpenError }
    guard let size = fileProperty(inPropertyID) else { return kAudioFileUnsupportedPropertyError }
    outDataSize?.pointee = UInt32(size)
    isWritable?.pointee = 0
    return noErr
}

private func fileProperty(_ id: AudioFilePropertyID) -> Int? {
    switch id {
    case kAudioFilePropertyDataFormat: MemoryLayout<AudioStreamBasicDescription>.size
    case kAudioFilePropertyFileFormat, kAudioFilePropertyMaximumPacketSize, kAudioFilePropertyPacketSizeUpperBound,
         kAudioFilePropertyIsOptimized: MemoryLayout<UInt32>.size
    case kAudioFilePropertyAudioDataPacketCount, kAudioFilePropertyAudioDataByteCount: MemoryLayout<UInt64>.size
    case kAudioFilePropertyEstimatedDuration, kAudioFilePropertyAverageBytesPerPacket: MemoryLayout<Double>.size
    case kAudioFilePropertyBitRate, kAudioFilePropertySourceBitDepth: MemoryLayout<UInt32>.size
    case kAudioFilePropertyChannelLayout: MemoryLayout<AudioChannelLayout>.size
    default: nil
    }
}

/// Reads a property: the data format, the file type, packet and byte counts, the duration, the packet
/// size and its average, the bit rate and source bit depth (negative for floats, as Apple's), the channel
/// layout (mono, stereo, or that many channels in order). The rest (the magic cookie, which linear PCM has
/// none of, the info dictionary, markers) are kAudioFileUnsupportedPropertyError. `ioDataSize` must have
/// room for it and becomes its size.
@discardableResult
public func AudioFileGetProperty(_ inAudioFile: AudioFileID, _ inPropertyID: AudioFilePropertyID,
                                 _ ioDataSize: UnsafeMutablePointer<UInt32>,
                                 _ outPropertyData: UnsafeMutableRawPointer) -> OSStatus {
    guard let file = FileRegistry.find(inAudioFile) else { return kAudioFileNotOpenError }
    guard let size = fileProperty(inPropertyID) else { return kAudioFileUnsupportedPropertyError }
    guard Int(ioDataSize.pointee) >= size else { return kAudioFileBadPropertySizeError }
    let packets = file.packetCount
    switch inPropertyID {
    case kAudioFilePropertyDataFormat:
        outPropertyData.storeBytes(of: file.description, as: AudioStreamBasicDescription.self)
    case kAudioFilePropertyFileFormat:
        outPropertyData.storeBytes(of: file.type, as: UInt32.self)
    case kAudioFilePropertyMaximumPacketSize, kAudioFilePropertyPacketSizeUpperBound:
        outPropertyData.storeBytes(of: UInt32(file.bytesPerPacket), as: UInt32.self)
    case kAudioFilePropertyIsOptimized:
        outPropertyData.storeBytes(of: UInt32(1), as: UInt32.self)
    case kAudioFilePropertyAudioDataPacketCount:
        outPropertyData.storeBytes(of: UInt64(max(0, packets)), as: UInt64.self)
    case kAudioFilePropertyAudioDataByteCount:
        outPropertyData.storeBytes(of: UInt64(max(0, packets)) * UInt64(file.bytesPerPacket), as: UInt64.self)
    case kAudioFilePropertyEstimatedDuration:
        outPropertyData.storeBytes(of: Double(packets) / file.description.mSampleRate, as: Double.self)
    case kAudioFilePropertyAverageBytesPerPacket:
        outPropertyData.storeBytes(of: Double(file.bytesPerPacket), as: Double.self)
    case kAudioFilePropertyBitRate:
        // Linear PCM's: rate × bits per frame (a compressed file's is not known here: 0).
        let bits = file.description.mSampleRate * Double(file.description.mBytesPerFrame) * 8
        outPropertyData.storeBytes(of: UInt32(clamping: Int64(min(4e9, bits))), as: UInt32.self)
    case kAudioFilePropertySourceBitDepth:
        let bits = Int32(file.description.mBitsPerChannel)
        outPropertyData.storeBytes(of: file.description.mFormatFlags & kAudioFormatFlagIsFloat != 0 ? -bits : bits, as: Int32.self)
    case kAudioFilePropertyChannelLayout:
        let channels = file.description.mChannelsPerFrame
        let tag = channels == 1 ? kAudioChannelLayoutTag_Mono
            : channels == 2 ? kAudioChannelLayoutTag_Stereo : kAudioChannelLayoutTag_DiscreteInOrder | channels
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = tag
        outPropertyData.storeBytes(of: layout, as: AudioChannelLayout.self)
    default:
        return kAudioFileUnsupportedPropertyError
    }
    ioDataSize.pointee = UInt32(size)
    return noErr
}

/// Finishes the file's header and closes it; the handle is invalid from now on.
@discardableResult
public func AudioFileClose(_ inAudioFile: AudioFileID) -> OSStatus {
    guard let file = FileRegistry.remove(inAudioFile) else { return kAudioFileNotOpenError }
    file.close()
    return noErr
}

/// The one line for a URL that names no local file (`https://…`, `data:…`): Apple's file calls take file
/// URLs only, and so do these; `what` is the verb ("open", "create", "record into", "play").
public func notAFileURL(_ url: URL, _ what: String) -> String {
    "cannot \(what) \(url.absoluteString): it is not a file URL; download it first, or give a local path "
        + "(URL(fileURLWithPath:))"
}

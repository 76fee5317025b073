// Extended Audio File Services with Apple's signatures: a file read or written in the program's own PCM
// format (the client data format), converted on the way by PCMConverter — decoded first when the file is
// compressed (anything libsndfile reads), written as the linear PCM Audio File Services write. Any
// thread; one file's calls one at a time, as Apple's.
import Foundation
import Locking

/// One file of Extended Audio File Services: the Audio File Services file under it, the client format,
/// and the converter between them (made when the client format is set, or at the first read or write).
final class ExtAudioFileObject: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `lock` (recursive: a converter's calls
    // back into the file do not deadlock).
    let lock = PosixMutex(recursive: true)
    let file: AudioFileObject
    /// The Audio File Services handle of `file` (registered for a file opened or created here: disposed with it).
    let fileID: AudioFileID
    let ownsFile: Bool
    let writing: Bool
    var client: AudioStreamBasicDescription
    var converter: PCMConverter?
    var converterHandle: AudioConverterRef?
    /// The next frame, in the file's frames (reading: where the converter's input resumes; writing: packets written).
    var fileFrame: Int64 = 0
    /// Frames handed to or taken from the client since the last seek, and where that seek put it.
    var clientFrames: Int64 = 0
    var seekedTo: Int64 = 0
    var scratch: [Float] = []
    var bytes: [UInt8] = []
    var ioBufferSize: UInt32 = 32_768

    init(file: AudioFileObject, fileID: AudioFileID, ownsFile: Bool, writing: Bool) {
        self.file = file
        self.fileID = fileID
        self.ownsFile = ownsFile
        self.writing = writing
        client = file.description
    }

    /// What reading decodes to before the client's conversion: the file's rate and channels as floats.
    var decoded: AudioStreamBasicDescription {
        let channels = file.description.mChannelsPerFrame
        return AudioStreamBasicDescription(mSampleRate: file.description.mSampleRate, mFormatID: kAudioFormatLinearPCM,
                                           mFormatFlags: kAudioFormatFlagsNativeFloatPacked, mBytesPerPacket: 4 * channels,
                                           mFramesPerPacket: 1, mBytesPerFrame: 4 * channels, mChannelsPerFrame: channels,
                                           mBitsPerChannel: 32, mReserved: 0)
    }

    /// The converter for the current client format (made on first need); nil when it cannot be made.
    func ensureConverter() -> PCMConverter? {
        if let converter { return converter }
        converter = writing ? PCMConverter(from: client, to: file.description) : PCMConverter(from: decoded, to: client)
        return converter
    }

    /// Writes what a rate conversion still holds (its tail): the end of what was written.
    func flushWriting() {
        guard writing, let converter, converter.rateChanges else { return }
        let frameBytes = converter.outputBytesPerFrame
        var raw = [UInt8](repeating: 0, count: 4_096 * frameBytes)
        converter.lock.withLock {
            while true {
                let (count, ending) = raw.withUnsafeMutableBytes { bytes -> (Int, PCMConverter.Ending) in
                    var output = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: file.description.mChannelsPerFrame,
                                                                                       mDataByteSize: UInt32(bytes.count), mData: bytes.baseAddress))
                    let (count, ending) = converter.fill(&output, capacity: 4_096) { _ in .endOfStream }
                    if count > 0, file.write(bytes.baseAddress!, count: count, start: fileFrame) == noErr { fileFrame += Int64(count) }
                    return (count, ending)
                }
                if count == 0 || ending != .filled { break }
            }
        }
    }

    func dropConverter() {
        if let handle = converterHandle { AudioConverterDispose(handle) }
        converterHandle = nil
        converter = nil
    }
}

/// The live files by handle, so that a call with a disposed or foreign handle is refused with a status.
enum ExtFileRegistry {
    private static let files = HandleRegistry<ExtAudioFileObject>()
    static func add(_ file: ExtAudioFileObject) -> ExtAudioFileRef { files.add(file) }
    static func remove(_ handle: ExtAudioFileRef) -> ExtAudioFileObject? { files.remove(handle) }

    /// Runs `body` with the file of `handle` under its lock; kAudio_ParamError for a handle that is none.
    static func with(_ handle: ExtAudioFileRef, _ body: (ExtAudioFileObject) -> OSStatus) -> OSStatus {
        files.with(handle) { file in file.lock.withLock { body(file) } }
    }
}

// MARK: Opening, creating, wrapping

/// Opens a sound file of any type libsndfile reads (compressed ones decoded) for reading. Until a client
/// format is set, reads give the file's own format (a compressed file needs one:
/// `kExtAudioFileError_NonPCMClientFormat`).
@discardableResult
public func ExtAudioFileOpenURL(_ inURL: CFURL, _ outExtAudioFile: UnsafeMutablePointer<ExtAudioFileRef?>) -> OSStatus {
    outExtAudioFile.pointee = nil
    var fileID: AudioFileID?
    let status = AudioFileOpenURL(inURL, .readPermission, 0, &fileID)
    guard status == noErr, let fileID, let file = FileRegistry.find(fileID) else { return status }
    outExtAudioFile.pointee = ExtFileRegistry.add(ExtAudioFileObject(file: file, fileID: fileID, ownsFile: true, writing: false))
    return noErr
}

/// Creates a file of `inFileType` holding `inStreamDesc` (linear PCM, as Audio File Services create it;
/// `kAudioFileFlags_EraseFile` to replace one). Writes take the client format, the file's until set. The
/// channel layout is not written (libsndfile writes none for these types).
@discardableResult
public func ExtAudioFileCreateWithURL(_ inURL: CFURL, _ inFileType: AudioFileTypeID, _ inStreamDesc: UnsafePointer<AudioStreamBasicDescription>,
                                      _ inChannelLayout: UnsafePointer<AudioChannelLayout>?, _ inFlags: UInt32,
                                      _ outExtAudioFile: UnsafeMutablePointer<ExtAudioFileRef?>) -> OSStatus {
    outExtAudioFile.pointee = nil
    var fileID: AudioFileID?
    let status = AudioFileCreateWithURL(inURL, inFileType, inStreamDesc, AudioFileFlags(rawValue: inFlags), &fileID)
    guard status == noErr, let fileID, let file = FileRegistry.find(fileID) else { return status }
    outExtAudioFile.pointee = ExtFileRegistry.add(ExtAudioFileObject(file: file, fileID: fileID, ownsFile: true, writing: true))
    return noErr
}

/// Wraps a file Audio File Services opened (to read) or created (to write, `inForWriting`); disposing the
/// wrapper leaves the file open.
@discardableResult
public func ExtAudioFileWrapAudioFileID(_ inFileID: AudioFileID, _ inForWriting: Bool,
                                        _ outExtAudioFile: UnsafeMutablePointer<ExtAudioFileRef?>) -> OSStatus {
    outExtAudioFile.pointee = nil
    guard let file = FileRegistry.find(inFileID) else { return kAudioFileNotOpenError }
    guard !inForWriting || file.writable else {
        QueueRegistry.noteFailure("cannot wrap \(file.path) for writing: it was opened to read; create the file with AudioFileCreateWithURL")
        return kAudioFilePermissionsError
    }
    let object = ExtAudioFileObject(file: file, fileID: inFileID, ownsFile: false, writing: inForWriting)
    if inForWriting { object.fileFrame = file.packetCount }
    outExtAudioFile.pointee = ExtFileRegistry.add(object)
    return noErr
}

/// Writes what a rate conversion still holds, closes the file (one opened or created here: its header
/// finished) and frees the handle.
@discardableResult
public func ExtAudioFileDispose(_ inExtAudioFile: ExtAudioFileRef) -> OSStatus {
    guard let file = ExtFileRegistry.remove(inExtAudioFile) else { return kAudio_ParamError }
    file.lock.withLock {
        file.flushWriting()
        file.dropConverter()
        if file.ownsFile { AudioFileClose(file.fileID) }
    }
    return noErr
}

// MARK: Reading and writing

/// Reads up to `*ioNumberFrames` frames of the client format into `ioData` (set to the frames read; 0 at
/// the end), converting and resampling from the file on the way.
@discardableResult
public func ExtAudioFileRead(_ inExtAudioFile: ExtAudioFileRef, _ ioNumberFrames: UnsafeMutablePointer<UInt32>,
                             _ ioData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        let wanted = Int(ioNumberFrames.pointee)
        ioNumberFrames.pointee = 0
        guard !file.writing else { return kExtAudioFileError_InvalidOperationOrder }
        guard file.client.mFormatID == kAudioFormatLinearPCM else {
            QueueRegistry.noteFailure("cannot read \(file.file.path) in its compressed format: set kExtAudioFileProperty_ClientDataFormat to linear PCM first")
            return kExtAudioFileError_NonPCMClientFormat
        }
        guard let converter = file.ensureConverter() else { return kExtAudioFileError_InvalidDataFormat }
        let channels = Int(file.file.description.mChannelsPerFrame)
        let list = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(list.unsafeMutablePointer) }
        var failure: OSStatus?
        let (frames, ending) = converter.lock.withLock {
            converter.fill(ioData, capacity: wanted) { needed in
                let chunk = max(1, min(needed, 65_536))
                if file.scratch.count < chunk * channels { file.scratch = [Float](repeating: 0, count: chunk * channels) }
                let (status, read) = file.scratch.withUnsafeMutableBufferPointer {
                    file.file.readFloats(into: $0.baseAddress!, count: chunk, start: file.fileFrame)
                }
                if status != noErr {
                    failure = status
                    return .failed(status)
                }
                guard read > 0 else { return .endOfStream }
                file.fileFrame += Int64(read)
                return file.scratch.withUnsafeMutableBufferPointer { samples in
                    list[0] = AudioBuffer(mNumberChannels: UInt32(channels), mDataByteSize: UInt32(read * channels * 4),
                                          mData: UnsafeMutableRawPointer(samples.baseAddress))
                    return .data(list.unsafeMutablePointer, frames: read)
                }
            }
        }
        ioNumberFrames.pointee = UInt32(frames)
        file.clientFrames += Int64(frames)
        if case .failed(let status) = ending { return failure ?? status }
        return noErr
    }
}

/// Writes `inNumberFrames` frames of the client format from `ioData` at the file's end, converted to the
/// file's format; on a full disk the write is refused whole (the file keeps what it had).
@discardableResult
public func ExtAudioFileWrite(_ inExtAudioFile: ExtAudioFileRef, _ inNumberFrames: UInt32, _ ioData: UnsafePointer<AudioBufferList>) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        guard file.writing else { return kExtAudioFileError_InvalidOperationOrder }
        guard let converter = file.ensureConverter() else { return kExtAudioFileError_InvalidDataFormat }
        let frames = Int(inNumberFrames)
        guard frames > 0 else { return noErr }
        let input = UnsafeMutablePointer(mutating: ioData)
        guard converter.fits(input, frames: frames, forOutput: false) else { return kExtAudioFileError_InvalidDataFormat }
        let frameBytes = converter.outputBytesPerFrame
        if file.bytes.count < frames * frameBytes + frameBytes { file.bytes = [UInt8](repeating: 0, count: (frames + 1) * frameBytes) }
        return file.bytes.withUnsafeMutableBytes { raw -> OSStatus in
            var output = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: file.file.description.mChannelsPerFrame,
                                                                                   mDataByteSize: UInt32(raw.count), mData: raw.baseAddress))
            // The rate conversion keeps a tail: what is not out yet is written by a later write, or at the end by dispose.
            var given = false
            let capacity = raw.count / frameBytes
            var written = 0
            var status = noErr
            converter.lock.withLock {
                while status == noErr {
                    output.mBuffers.mDataByteSize = UInt32(raw.count)
                    let (count, ending) = converter.fill(&output, capacity: capacity) { _ in
                        defer { given = true }
                        return given ? .noDataNow : .data(input, frames: frames)
                    }
                    if count > 0 {
                        status = file.file.write(raw.baseAddress!, count: count, start: file.fileFrame)
                        if status == noErr { file.fileFrame += Int64(count) }
                        written += count
                    }
                    if ending != .filled { break }
                }
            }
            file.clientFrames += Int64(frames)
            return status
        }
    }
}

/// As `ExtAudioFileWrite`, done before it returns (Linux has no writer thread for it); 0 frames (Apple's
/// way of priming the asynchronous writer) does nothing.
@discardableResult
public func ExtAudioFileWriteAsync(_ inExtAudioFile: ExtAudioFileRef, _ inNumberFrames: UInt32, _ ioData: UnsafePointer<AudioBufferList>?) -> OSStatus {
    guard inNumberFrames > 0, let ioData else {
        return ExtFileRegistry.with(inExtAudioFile) { _ in noErr }
    }
    return ExtAudioFileWrite(inExtAudioFile, inNumberFrames, ioData)
}

/// Moves reading to frame `inFrameOffset` of the client format (at the client's rate); the converter
/// starts afresh there. Files being written cannot seek (`kExtAudioFileError_InvalidSeek`).
@discardableResult
public func ExtAudioFileSeek(_ inExtAudioFile: ExtAudioFileRef, _ inFrameOffset: Int64) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        guard !file.writing, inFrameOffset >= 0 else { return kExtAudioFileError_InvalidSeek }
        let ratio = file.file.description.mSampleRate / file.client.mSampleRate
        let target = Double(inFrameOffset) * (ratio.isFinite && ratio > 0 ? ratio : 1)
        guard target <= Double(file.file.packetCount) else { return kExtAudioFileError_InvalidSeek }
        file.fileFrame = Int64(target.rounded())
        file.seekedTo = inFrameOffset
        file.clientFrames = 0
        if let converter = file.converter { converter.lock.withLock { converter.reset() } }
        return noErr
    }
}

/// The frame of the client format reading or writing is at.
@discardableResult
public func ExtAudioFileTell(_ inExtAudioFile: ExtAudioFileRef, _ outFrameOffset: UnsafeMutablePointer<Int64>) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        outFrameOffset.pointee = file.seekedTo + file.clientFrames
        return noErr
    }
}

// MARK: Properties

private func extProperty(_ id: ExtAudioFilePropertyID) -> (size: Int, writable: Bool)? {
    switch id {
    case kExtAudioFileProperty_FileDataFormat: (MemoryLayout<AudioStreamBasicDescription>.size, false)
    case kExtAudioFileProperty_ClientDataFormat: (MemoryLayout<AudioStreamBasicDescription>.size, true)
    case kExtAudioFileProperty_FileLengthFrames: (8, false)
    case kExtAudioFileProperty_AudioFile: (MemoryLayout<AudioFileID>.size, false)
    case kExtAudioFileProperty_AudioConverter: (MemoryLayout<AudioConverterRef>.size, false)
    case kExtAudioFileProperty_FileMaxPacketSize, kExtAudioFileProperty_ClientMaxPacketSize: (4, false)
    case kExtAudioFileProperty_IOBufferSizeBytes: (4, true)
    default: nil
    }
}

/// A property's size and whether it can be set.
@discardableResult
public func ExtAudioFileGetPropertyInfo(_ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID,
                                        _ outSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { _ in
        guard let (size, writable) = extProperty(inPropertyID) else { return kExtAudioFileError_InvalidProperty }
        outSize?.pointee = UInt32(size)
        outWritable?.pointee = DarwinBoolean(writable)
        return noErr
    }
}

/// Reads a property: the file's and the client's formats, the length in the file's frames, the Audio
/// File Services handle, the converter (an Audio Converter Services handle whose quality and complexity
/// may be set), the largest packets, the I/O buffer size.
@discardableResult
public func ExtAudioFileGetProperty(_ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID,
                                    _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        guard let (size, _) = extProperty(inPropertyID) else { return kExtAudioFileError_InvalidProperty }
        guard Int(ioPropertyDataSize.pointee) >= size else { return kExtAudioFileError_InvalidPropertySize }
        switch inPropertyID {
        case kExtAudioFileProperty_FileDataFormat: outPropertyData.storeBytes(of: file.file.description, as: AudioStreamBasicDescription.self)
        case kExtAudioFileProperty_ClientDataFormat: outPropertyData.storeBytes(of: file.client, as: AudioStreamBasicDescription.self)
        case kExtAudioFileProperty_FileLengthFrames: outPropertyData.storeBytes(of: file.writing ? file.fileFrame : file.file.packetCount, as: Int64.self)
        case kExtAudioFileProperty_AudioFile: outPropertyData.storeBytes(of: file.fileID, as: AudioFileID.self)
        case kExtAudioFileProperty_AudioConverter:
            guard let converter = file.ensureConverter() else { return kExtAudioFileError_InvalidDataFormat }
            if file.converterHandle == nil { file.converterHandle = ConverterRegistry.add(converter) }
            outPropertyData.storeBytes(of: file.converterHandle!, as: AudioConverterRef.self)
        case kExtAudioFileProperty_FileMaxPacketSize: outPropertyData.storeBytes(of: max(1, file.file.description.mBytesPerPacket), as: UInt32.self)
        case kExtAudioFileProperty_ClientMaxPacketSize: outPropertyData.storeBytes(of: file.client.mBytesPerPacket, as: UInt32.self)
        case kExtAudioFileProperty_IOBufferSizeBytes: outPropertyData.storeBytes(of: file.ioBufferSize, as: UInt32.self)
        default: return kExtAudioFileError_InvalidProperty
        }
        ioPropertyDataSize.pointee = UInt32(size)
        return noErr
    }
}

/// Sets the client data format (linear PCM of any layout the converters take, any rate: reads and writes
/// are converted to and from it) or the I/O buffer size (kept).
@discardableResult
public func ExtAudioFileSetProperty(_ inExtAudioFile: ExtAudioFileRef, _ inPropertyID: ExtAudioFilePropertyID,
                                    _ inPropertyDataSize: UInt32, _ inPropertyData: UnsafeRawPointer) -> OSStatus {
    ExtFileRegistry.with(inExtAudioFile) { file in
        guard let (size, writable) = extProperty(inPropertyID) else { return kExtAudioFileError_InvalidProperty }
        guard writable else { return kExtAudioFileError_InvalidProperty }
        guard Int(inPropertyDataSize) == size else { return kExtAudioFileError_InvalidPropertySize }
        switch inPropertyID {
        case kExtAudioFileProperty_ClientDataFormat:
            let format = inPropertyData.load(as: AudioStreamBasicDescription.self)
            guard format.mFormatID == kAudioFormatLinearPCM else { return kExtAudioFileError_NonPCMClientFormat }
            let made = file.writing ? PCMConverter(from: format, to: file.file.description) : PCMConverter(from: file.decoded, to: format)
            guard let made else {
                QueueRegistry.noteFailure("cannot take the client format (\(format.mChannelsPerFrame) channels, \(format.mBitsPerChannel) bits): "
                    + "give packed linear PCM of 8- to 32-bit integers or 32- or 64-bit floats")
                return kExtAudioFileError_InvalidDataFormat
            }
            file.flushWriting()
            file.dropConverter()
            file.client = format
            file.converter = made
            if !file.writing {
                // Reading goes on from the same moment, in the new format's frames.
                file.seekedTo = Int64((Double(file.fileFrame) * format.mSampleRate / file.file.description.mSampleRate).rounded())
                file.clientFrames = 0
            }
        case kExtAudioFileProperty_IOBufferSizeBytes: file.ioBufferSize = inPropertyData.load(as: UInt32.self)
        default: return kExtAudioFileError_InvalidProperty
        }
        return noErr
    }
}

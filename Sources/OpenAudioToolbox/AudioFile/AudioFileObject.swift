// One audio file opened by Audio File Services: a libsndfile handle, the linear PCM packets it holds
// (one frame per packet), and where the next packet goes or comes from.
import CSndFile
import Foundation
import Locking
import RecorderKit

final class AudioFileObject: @unchecked Sendable {
    // @unchecked Sendable: the libsndfile handle is used only under `lock`; the other fields are fixed.
    private let lock = PosixMutex()
    private var file: OpaquePointer?
    let path: String
    let type: AudioFileTypeID
    /// What the packets are: the file's own samples (its byte order, signed unless 8-bit, packed); for
    /// a compressed file, its format ID only (its packets cannot be read here).
    let description: AudioStreamBasicDescription
    /// The layout packets are written in: a file created here; nil for a file opened to be read.
    let layout: PCMLayout?
    let writable: Bool
    /// Packets in the file.
    private var packets: Int64
    /// The frame libsndfile's position is at.
    private var position: Int64 = 0
    /// The caller's callbacks libsndfile reads through, kept while the file is open.
    private var source: CallbackSource?
    /// A created file's room on its disk (see RecorderKit's `DiskRoom`): each write has its room first,
    /// so on a full disk it is refused whole, never left half in the file; and the descriptor it keeps.
    private var room: DiskRoom?
    private var roomDescriptor: Int32 = -1

    private init(file: OpaquePointer, path: String, type: AudioFileTypeID, description: AudioStreamBasicDescription,
                 layout: PCMLayout?, writable: Bool, packets: Int64) {
        self.file = file
        self.path = path
        self.type = type
        self.description = description
        self.layout = layout
        self.writable = writable
        self.packets = packets
    }

    deinit { close() }

    // MARK: Creating

    /// The libsndfile container of `type`, and the byte orders its linear PCM may have (big, little).
    private static func container(_ type: AudioFileTypeID) -> (format: Int32, big: Bool, little: Bool)? {
        switch type {
        case kAudioFileAIFFType: (Int32(SF_FORMAT_AIFF), true, false)
        case kAudioFileAIFCType: (Int32(SF_FORMAT_AIFF), true, true)
        case kAudioFileWAVEType: (Int32(SF_FORMAT_WAV), false, true)
        case kAudioFileRF64Type: (Int32(SF_FORMAT_RF64), false, true)
        case kAudioFileWave64Type: (Int32(SF_FORMAT_W64), false, true)
        case kAudioFileCAFType: (Int32(SF_FORMAT_CAF), true, true)
        case kAudioFileNextType: (Int32(SF_FORMAT_AU), true, false)
        default: nil
        }
    }

    /// Creates the file at `path` for packets of `description`; a status and a one-line reason on failure.
    static func create(path: String, type: AudioFileTypeID, description: AudioStreamBasicDescription,
                       erase: Bool) -> Result<AudioFileObject, AudioFileFailure> {
        guard let container = container(type) else {
            return .failure(.init(kAudioFileUnsupportedFileTypeError,
                "cannot create \(path): \(fourCharacters(type)) files are not written on Linux; use AIFF, AIFC, WAVE, RF64, W64, CAF or NeXT"))
        }
        guard case .success(let layout) = PCMLayout.checking(description),
              layout.bigEndian ? container.big : container.little else {
            return .failure(.init(kAudioFileUnsupportedDataFormatError,
                "cannot create \(path): a \(fourCharacters(type)) file takes interleaved packed linear PCM (16-, 24-, 32-bit signed "
                + "or 32-bit float) in its own byte order"))
        }
        if !erase, FileManager.default.fileExists(atPath: path) {
            return .failure(.init(kAudioFilePermissionsError,
                "cannot create \(path): the file exists; pass kAudioFileFlags_EraseFile (.eraseFile) to replace it"))
        }
        let encoding: Int32 = switch layout.sampleFormat {
        case .int16: Int32(SF_FORMAT_PCM_16)
        case .int24: Int32(SF_FORMAT_PCM_24)
        case .int32: Int32(SF_FORMAT_PCM_32)
        case .float32: Int32(SF_FORMAT_FLOAT)
        }
        // AIFC: libsndfile writes AIFF-C when the byte order is given explicitly.
        let endian: Int32 = type == kAudioFileAIFCType || type == kAudioFileCAFType
            ? Int32(layout.bigEndian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE) : 0
        var info = SF_INFO(frames: 0, samplerate: Int32(layout.sampleRate), channels: Int32(layout.channelCount),
                           format: container.format | encoding | endian, sections: 0, seekable: 0)
        guard sf_format_check(&info) != 0 else {
            return .failure(.init(kAudioFileUnsupportedDataFormatError,
                "cannot create \(path): libsndfile does not write this format in a \(fourCharacters(type)) file"))
        }
        errno = 0
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            let reason = String(cString: sf_strerror(nil))
            let status = errno == ENOENT ? kAudioFileFileNotFoundError
                : errno == EACCES || errno == EPERM || errno == EROFS ? kAudioFilePermissionsError : kAudioFileUnspecifiedError
            return .failure(.init(status, "cannot create \(path): \(reason); check that its folder exists and is writable"))
        }
        // The header is rewritten after every write, so the file is whole if the program stops anywhere.
        sf_command(file, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
        let object = AudioFileObject(file: file, path: path, type: type, description: description, layout: layout,
                                     writable: true, packets: 0)
        object.roomDescriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        object.room = DiskRoom(descriptor: object.roomDescriptor, closingReserve: DiskRoom.closingReserve(encoded: false, bytesPerFrame: 0))
        return .success(object)
    }

    // MARK: Opening

    /// Opens `path` for reading: any file libsndfile reads.
    static func open(path: String) -> Result<AudioFileObject, AudioFileFailure> {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            let status = !FileManager.default.fileExists(atPath: path) ? kAudioFileFileNotFoundError
                : access(path, R_OK) != 0 ? kAudioFilePermissionsError : kAudioFileUnsupportedFileTypeError
            return .failure(.init(status, "cannot open \(path): \(reason); give a sound file libsndfile reads"))
        }
        return .success(opened(file, info, path: path, source: nil))
    }

    /// Opens, for reading, the bytes the caller's callbacks read (AudioFileOpenWithCallbacks).
    static func open(callbacks: CallbackSource) -> Result<AudioFileObject, AudioFileFailure> {
        var info = SF_INFO()
        var io = CallbackSource.io
        guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            return .failure(.init(kAudioFileUnsupportedFileTypeError,
                "cannot open the audio data: \(String(cString: sf_strerror(nil))); give bytes of a sound file libsndfile reads"))
        }
        return .success(opened(file, info, path: "the audio data", source: callbacks))
    }

    /// The object for a file libsndfile opened to read: what its packets are, from its format word.
    private static func opened(_ file: OpaquePointer, _ info: SF_INFO, path: String, source: CallbackSource?) -> AudioFileObject {
        let major = info.format & Int32(SF_FORMAT_TYPEMASK)
        let minor = info.format & Int32(SF_FORMAT_SUBMASK)
        let swapped = sf_command(file, Int32(SFC_RAW_DATA_NEEDS_ENDSWAP), nil, 0) != 0
        let hostBig = 1.bigEndian == 1
        let bigEndian = swapped != hostBig
        var description = AudioStreamBasicDescription()
        description.mSampleRate = Double(info.samplerate)
        description.mChannelsPerFrame = UInt32(info.channels)
        description.mFramesPerPacket = 1
        // FLAC, Ogg and MPEG files report their decoded sample type (FLAC: PCM_16); their packets are compressed.
        let compressed = [Int32(SF_FORMAT_FLAC), Int32(SF_FORMAT_OGG), Int32(SF_FORMAT_MPEG)].contains(major)
        let bits: UInt32? = switch minor {
        case _ where compressed: nil
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): 8
        case Int32(SF_FORMAT_PCM_16): 16
        case Int32(SF_FORMAT_PCM_24): 24
        case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT): 32
        case Int32(SF_FORMAT_DOUBLE): 64
        default: nil
        }
        if let bits {
            description.mFormatID = kAudioFormatLinearPCM
            description.mBitsPerChannel = bits
            description.mBytesPerFrame = bits / 8 * UInt32(info.channels)
            description.mBytesPerPacket = description.mBytesPerFrame
            var flags = kAudioFormatFlagIsPacked
            if minor == Int32(SF_FORMAT_FLOAT) || minor == Int32(SF_FORMAT_DOUBLE) {
                flags |= kAudioFormatFlagIsFloat
            } else if minor != Int32(SF_FORMAT_PCM_U8) {
                flags |= kAudioFormatFlagIsSignedInteger
            }
            if bigEndian && bits > 8 { flags |= kAudioFormatFlagIsBigEndian }
            description.mFormatFlags = flags
        } else {
            description.mFormatID = switch minor {
            case Int32(SF_FORMAT_ULAW): kAudioFormatULaw
            case Int32(SF_FORMAT_ALAW): kAudioFormatALaw
            case Int32(SF_FORMAT_MPEG_LAYER_III): kAudioFormatMPEGLayer3
            case Int32(SF_FORMAT_OPUS): kAudioFormatOpus
            case Int32(SF_FORMAT_VORBIS): 0x766F7262  // 'vorb'
            default: major == Int32(SF_FORMAT_FLAC) ? kAudioFormatFLAC : 0
            }
        }
        let type: AudioFileTypeID = switch major {
        case Int32(SF_FORMAT_AIFF): bigEndian && minor != Int32(SF_FORMAT_FLOAT) ? kAudioFileAIFFType : kAudioFileAIFCType
        case Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_WAVEX): kAudioFileWAVEType
        case Int32(SF_FORMAT_RF64): kAudioFileRF64Type
        case Int32(SF_FORMAT_W64): kAudioFileWave64Type
        case Int32(SF_FORMAT_CAF): kAudioFileCAFType
        case Int32(SF_FORMAT_AU): kAudioFileNextType
        case Int32(SF_FORMAT_FLAC): kAudioFileFLACType
        case Int32(SF_FORMAT_MPEG): kAudioFileMP3Type
        default: 0
        }
        let object = AudioFileObject(file: file, path: path, type: type, description: description, layout: nil,
                                     writable: false, packets: statedOrCountedFrames(file, info))
        object.source = source
        return object
    }

    // MARK: Packets

    var packetCount: Int64 { lock.withLock { packets } }
    var bytesPerPacket: Int { Int(description.mBytesPerPacket) }

    /// Writes `count` packets from `bytes` (in the file's layout) starting at packet `start`, which may
    /// be at most the packets written so far (a later start would leave a hole).
    func write(_ bytes: UnsafeRawPointer, count: Int, start: Int64) -> OSStatus {
        guard let layout, writable else { return kAudioFilePermissionsError }
        return lock.withLock { () -> OSStatus in
            guard let file else { return kAudioFileNotOpenError }
            guard start >= 0, start <= packets else { return kAudioFileInvalidPacketOffsetError }
            if start != position {
                guard sf_seek(file, start, SEEK_SET | Int32(SFM_WRITE)) == start else { return kAudioFilePositionError }
                position = start
            }
            guard room?.make(for: Int64(count * bytesPerPacket)) ?? true else {
                QueueRegistry.noteFailure("cannot write to \(path): \(String(cString: strerror(errno))) after \(packets) packets; "
                    + "the file keeps them; free space or write elsewhere")
                return kAudioFileUnspecifiedError
            }
            let samples = count * layout.channelCount
            let written: Int64
            switch layout.sampleFormat {
            case .int16:
                var scratch = [Int16](repeating: 0, count: samples)
                for index in 0..<samples { scratch[index] = Int16(truncatingIfNeeded: layout.integerSample(bytes, at: index)) }
                written = sf_writef_short(file, scratch, Int64(count))
            case .int24, .int32:
                var scratch = [Int32](repeating: 0, count: samples)
                let shift = layout.sampleFormat == .int24 ? 8 : 0
                for index in 0..<samples { scratch[index] = layout.integerSample(bytes, at: index) << shift }
                written = sf_writef_int(file, scratch, Int64(count))
            case .float32:
                var scratch = [Float](repeating: 0, count: samples)
                for index in 0..<samples { scratch[index] = Float(bitPattern: UInt32(bitPattern: layout.integerSample(bytes, at: index))) }
                written = sf_writef_float(file, scratch, Int64(count))
            }
            position += written
            packets = max(packets, position)
            if written != Int64(count) {
                QueueRegistry.noteFailure("cannot write to \(path): \(String(cString: sf_strerror(file))); check the disk's free space")
                return kAudioFileUnspecifiedError
            }
            return noErr
        }
    }

    /// Reads up to `count` packets from packet `start` into `destination`, as the file holds them;
    /// returns how many (0 at or after the end).
    func read(into destination: UnsafeMutableRawPointer, count: Int, start: Int64) -> (OSStatus, Int) {
        guard description.mFormatID == kAudioFormatLinearPCM, bytesPerPacket > 0 else {
            QueueRegistry.noteFailure("cannot read packets of \(path): its audio is compressed; decode it with AVAudioFile")
            return (kAudioFileOperationNotSupportedError, 0)
        }
        return lock.withLock { () -> (OSStatus, Int) in
            guard let file else { return (kAudioFileNotOpenError, 0) }
            guard start >= 0 else { return (kAudioFileInvalidPacketOffsetError, 0) }
            guard start < packets, count > 0 else { return (noErr, 0) }
            if start != position {
                guard sf_seek(file, start, SEEK_SET | Int32(SFM_READ)) == start else { return (kAudioFilePositionError, 0) }
                position = start
            }
            let wanted = min(Int64(count), packets - start)
            let bytes = sf_read_raw(file, destination, wanted * Int64(bytesPerPacket))
            let frames = Int(max(0, bytes) / Int64(bytesPerPacket))
            position += Int64(frames)
            return (noErr, frames)
        }
    }

    /// Reads up to `count` frames from frame `start` as interleaved floats of full scale ±1, decoding a
    /// compressed file too (what Extended Audio File Services read); returns how many (0 at the end).
    func readFloats(into destination: UnsafeMutablePointer<Float>, count: Int, start: Int64) -> (OSStatus, Int) {
        lock.withLock { () -> (OSStatus, Int) in
            guard let file else { return (kAudioFileNotOpenError, 0) }
            guard start >= 0 else { return (kAudioFileInvalidPacketOffsetError, 0) }
            guard count > 0 else { return (noErr, 0) }
            if start != position {
                guard sf_seek(file, start, SEEK_SET | Int32(SFM_READ)) == start else { return (kAudioFilePositionError, 0) }
                position = start
            }
            let read = Int(max(0, sf_readf_float(file, destination, Int64(count))))
            position += Int64(read)
            return (noErr, read)
        }
    }

    func close() {
        lock.withLock {
            if let file { sf_close(file) }
            file = nil
            source = nil
            room?.release()
            room = nil
            if roomDescriptor >= 0 { Glibc.close(roomDescriptor) }
            roomDescriptor = -1
        }
    }
}

/// A status and the one line behind it.
struct AudioFileFailure: Error {
    let status: OSStatus
    let message: String
    init(_ status: OSStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// A four-character code as its characters ('AIFF'), or its number when they are not printable.
func fourCharacters(_ code: UInt32) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> UInt32($0)) }
    guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return "\(code)" }
    return "'" + String(decoding: bytes, as: UTF8.self) + "'"
}

/// A file the caller holds, read through its callbacks (AudioFileOpenWithCallbacks): libsndfile's
/// virtual I/O over them, with the position libsndfile moves.
final class CallbackSource {
    let client: UnsafeMutableRawPointer
    let read: AudioFile_ReadProc
    let size: AudioFile_GetSizeProc
    var position: Int64 = 0

    init(client: UnsafeMutableRawPointer, read: AudioFile_ReadProc, size: AudioFile_GetSizeProc) {
        self.client = client
        self.read = read
        self.size = size
    }

    static func from(_ user: UnsafeMutableRawPointer?) -> CallbackSource {
        Unmanaged<CallbackSource>.fromOpaque(user!).takeUnretainedValue()
    }

    /// libsndfile's virtual I/O over a `CallbackSource` (its user data); writing is refused.
    static var io: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in
                let source = CallbackSource.from(user)
                return source.size(source.client)
            },
            seek: { offset, whence, user in
                let source = CallbackSource.from(user)
                let base = whence == SEEK_CUR ? source.position : whence == SEEK_END ? source.size(source.client) : 0
                let (target, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, target >= 0 else { return -1 }
                source.position = target
                return target
            },
            read: { destination, count, user in
                let source = CallbackSource.from(user)
                guard let destination, count > 0 else { return 0 }
                var actual: UInt32 = 0
                let request = UInt32(clamping: count)
                guard source.read(source.client, source.position, request, destination, &actual) == noErr else { return 0 }
                let got = min(actual, request)
                source.position += Int64(got)
                return sf_count_t(got)
            },
            write: { _, _, _ in 0 },
            tell: { user in CallbackSource.from(user).position })
    }
}

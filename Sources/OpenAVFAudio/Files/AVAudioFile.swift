// AVAudioFile: frames read from any file libsndfile decodes, or written to a new one, through buffers of
// the processing format (32-bit float, a buffer per channel, unless another common format is asked).
import CSndFile
import Foundation
import Locking
import RecorderKit

open class AVAudioFile: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the libsndfile handle and the counts are used only under `lock`.
    private let lock = PosixMutex()
    private var file: OpaquePointer?
    private var frames: Int64
    private var position: Int64 = 0
    private let writing: Bool
    /// A written file's room on its disk for each write and its close (see RecorderKit's `DiskRoom`), and
    /// its descriptor (closed after libsndfile's last write; -1 for a file read).
    private var room: DiskRoom?
    private var descriptor: Int32 = -1
    /// The bits of the file's integer samples (8…32), converted here at 2^(bits−1) to full scale both ways
    /// (libsndfile's own float conversion writes at 2^(bits−1) − 1, which does not read back the same); nil
    /// for float or lossy files, which libsndfile converts.
    private let integerBits: Int?
    /// The file's location.
    public let url: URL
    /// The format of the audio in the file (its own encoding: compressed formats have no common format).
    public let fileFormat: AVAudioFormat
    /// The format of the buffers `read(into:)` fills and `write(from:)` takes.
    public let processingFormat: AVAudioFormat

    /// Opens `fileURL` to read any sound file libsndfile reads, into standard-format buffers.
    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Opens `fileURL` to read into buffers of `format` (float32, float64, int16 or int32), interleaved or not.
    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        guard fileURL.isFileURL else { throw statusError(kAudio_ParamError, notAFileURL(fileURL, "open")) }
        url = fileURL
        writing = false
        var handle: AudioFileID?
        let status = AudioFileOpenURL(fileURL as CFURL, .readPermission, 0, &handle)
        guard status == noErr, let handle else {
            throw statusError(status, OpenAudioToolboxLastErrorMessage() ?? "cannot open \(fileURL.path)")
        }
        var described = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        AudioFileGetProperty(handle, kAudioFilePropertyDataFormat, &size, &described)
        AudioFileClose(handle)
        var info = SF_INFO()
        guard let opened = sf_open(fileURL.path, Int32(SFM_READ), &info),
              let fileFormat = AVAudioFormat(streamDescription: &described),
              let processing = AVAudioFormat(commonFormat: format, sampleRate: Double(info.samplerate),
                                             channels: AVAudioChannelCount(info.channels), interleaved: interleaved) else {
            throw statusError(kAudioFileUnsupportedDataFormatError,
                              "cannot read \(fileURL.path) as \(format): \(String(cString: sf_strerror(nil)))")
        }
        file = opened
        frames = statedOrCountedFrames(opened, info)  // never SF_COUNT_MAX: the frames that are there
        integerBits = Self.integerBits(info.format)
        self.fileFormat = fileFormat
        processingFormat = processing
        super.init()
    }

    /// Creates `fileURL` (replacing a file there) for `settings` (AVFormatIDKey linear PCM or FLAC,
    /// AVSampleRateKey, AVNumberOfChannelsKey, AVLinearPCMBitDepthKey, AVLinearPCMIsFloatKey), of the
    /// type its extension names (wav, aif/aiff/aifc, caf, flac, au, w64, rf64, ogg, opus, mp3); written from
    /// standard-format buffers. AAC and ALAC cannot be encoded on Linux: an error says so.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// As `init(forWriting:settings:)`, written from buffers of `format`, interleaved or not.
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        guard fileURL.isFileURL else { throw statusError(kAudio_ParamError, notAFileURL(fileURL, "create")) }
        url = fileURL
        writing = true
        frames = 0
        let reader = SettingsReader(settings: settings)
        guard let rate = reader.number(AVSampleRateKey), rate.isFinite, rate >= 1, rate <= 384_000,
              let channels = reader.number(AVNumberOfChannelsKey), channels >= 1, channels <= 32 else {
            throw statusError(kAudioFileUnsupportedDataFormatError,
                "cannot create \(fileURL.path): the settings need AVSampleRateKey (1 to 384000) and AVNumberOfChannelsKey (1 to 32)")
        }
        let sndfileFormat = try Self.sndfileFormat(fileURL, reader)
        var info = SF_INFO(frames: 0, samplerate: Int32(rate), channels: Int32(channels), format: sndfileFormat, sections: 0, seekable: 0)
        guard sf_format_check(&info) != 0 else {
            throw statusError(kAudioFileUnsupportedDataFormatError,
                "cannot create \(fileURL.path): libsndfile does not write these settings in a .\(fileURL.pathExtension) file")
        }
        let descriptor = open(fileURL.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0, let opened = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0) else {
            let code = errno
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw statusError(code == ENOENT ? kAudioFileFileNotFoundError : kAudioFilePermissionsError,
                "cannot create \(fileURL.path): \(descriptor < 0 ? String(cString: strerror(code)) : String(cString: sf_strerror(nil))); "
                + "check that its folder exists and is writable")
        }
        let subtype = sndfileFormat & Int32(SF_FORMAT_SUBMASK)
        if let strategy = settings[AVEncoderBitRateStrategyKey] as? String, [SF_FORMAT_MPEG_LAYER_III, SF_FORMAT_OPUS].map({ Int32($0) }).contains(subtype) {
            // The lossy encoders' bit rate modes (linear PCM and FLAC have none, and ignore it, as Apple's do).
            var mode = Int32(strategy == AVAudioBitRateStrategy_Constant ? SF_BITRATE_MODE_CONSTANT
                : strategy == AVAudioBitRateStrategy_LongTermAverage ? SF_BITRATE_MODE_AVERAGE : SF_BITRATE_MODE_VARIABLE)
            // libsndfile 1.2's MP3 encoder answers 0 (LAME's success) where Opus answers SF_TRUE: its error says.
            sf_command(opened, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            guard sf_error(opened) == Int32(SF_ERR_NO_ERROR) else {
                sf_close(opened)
                Glibc.close(descriptor)
                throw statusError(kAudioFileUnsupportedDataFormatError,
                    "cannot create \(fileURL.path): its encoder refuses bit rate strategy \(strategy); leave AVEncoderBitRateStrategyKey out")
            }
        }
        room = DiskRoom(descriptor: descriptor, closingReserve: DiskRoom.closingReserve(
            encoded: ![SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32, SF_FORMAT_FLOAT,
                       SF_FORMAT_DOUBLE].map({ Int32($0) }).contains(subtype),
            bytesPerFrame: 8 * Int(channels)))
        guard let fileFormat = AVAudioFormat(settings: settings),
              let processing = AVAudioFormat(commonFormat: format, sampleRate: rate, channels: AVAudioChannelCount(channels),
                                             interleaved: interleaved) else {
            sf_close(opened)
            Glibc.close(descriptor)
            throw statusError(kAudio_ParamError, "cannot write \(fileURL.path) from \(format) buffers")
        }
        file = opened
        self.descriptor = descriptor
        integerBits = Self.integerBits(sndfileFormat)
        self.fileFormat = fileFormat
        processingFormat = processing
        super.init()
    }

    private static func integerBits(_ format: Int32) -> Int? {
        switch format & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): 8
        case Int32(SF_FORMAT_PCM_16): 16
        case Int32(SF_FORMAT_PCM_24): 24
        case Int32(SF_FORMAT_PCM_32): 32
        default: nil
        }
    }

    /// libsndfile's format word for a file at `url` with these settings.
    private static func sndfileFormat(_ url: URL, _ reader: SettingsReader) throws -> Int32 {
        let formatID = reader.formatID
        let float = reader.flag(AVLinearPCMIsFloatKey) ?? false
        let depth = reader.number(AVLinearPCMBitDepthKey) ?? (float ? 32 : 16)
        let bits = depth.isFinite && abs(depth) <= 1_024 ? Int(depth) : 0  // NaN, 1e30: no depth it writes
        let pcm: Int32? = switch (float, bits) {
        case (true, 32): Int32(SF_FORMAT_FLOAT)
        case (true, 64): Int32(SF_FORMAT_DOUBLE)
        case (false, 8): Int32(SF_FORMAT_PCM_S8)
        case (false, 16): Int32(SF_FORMAT_PCM_16)
        case (false, 24): Int32(SF_FORMAT_PCM_24)
        case (false, 32): Int32(SF_FORMAT_PCM_32)
        default: nil
        }
        if formatID == kAudioFormatMPEG4AAC || formatID == kAudioFormatAppleLossless {
            throw statusError(kAudioFileUnsupportedDataFormatError,
                "cannot create \(url.path): AAC and Apple Lossless cannot be encoded on Linux; use FLAC (AVFormatIDKey: kAudioFormatFLAC) or linear PCM")
        }
        let container: Int32
        var encoding = pcm
        switch url.pathExtension.lowercased() {
        case "wav", "wave":
            container = Int32(SF_FORMAT_WAV)
            if !float && bits == 8 { encoding = Int32(SF_FORMAT_PCM_U8) }  // WAV's 8-bit samples are unsigned
        case "aif", "aiff", "aifc": container = Int32(SF_FORMAT_AIFF)
        case "caf": container = Int32(SF_FORMAT_CAF)
        case "au", "snd": container = Int32(SF_FORMAT_AU)
        case "w64": container = Int32(SF_FORMAT_W64)
        case "rf64": container = Int32(SF_FORMAT_RF64)
        case "flac":
            // FLAC holds 8, 16 or 24 bits (libsndfile's encoder): 32 and float are refused, not written as 16.
            container = Int32(SF_FORMAT_FLAC)
            guard !float, [8, 16, 24].contains(bits) else {
                throw statusError(kAudioFileUnsupportedDataFormatError,
                    "cannot create \(url.path): FLAC holds 8, 16 or 24-bit integer samples, not \(bits)-bit \(float ? "float" : "integer"); "
                    + "use AVLinearPCMBitDepthKey 24 (or write a .wav or .caf)")
            }
            encoding = bits == 24 ? Int32(SF_FORMAT_PCM_24) : bits == 8 ? Int32(SF_FORMAT_PCM_S8) : Int32(SF_FORMAT_PCM_16)
        case "ogg", "oga": container = Int32(SF_FORMAT_OGG); encoding = Int32(SF_FORMAT_VORBIS)
        case "opus": container = Int32(SF_FORMAT_OGG); encoding = Int32(SF_FORMAT_OPUS)
        case "mp3": container = Int32(SF_FORMAT_MPEG); encoding = Int32(SF_FORMAT_MPEG_LAYER_III)
        case "m4a", "aac", "mp4": throw statusError(kAudioFileUnsupportedFileTypeError,
            "cannot create \(url.path): MPEG-4 files cannot be written on Linux; use .wav, .aif, .caf, .flac, .ogg, .opus or .mp3")
        default: throw statusError(kAudioFileUnsupportedFileTypeError,
            "cannot create \(url.path): its extension names no type written here; use .wav, .aif, .caf, .flac, .ogg, .opus or .mp3")
        }
        guard let encoding else {
            throw statusError(kAudioFileUnsupportedDataFormatError,
                "cannot create \(url.path): \(bits)-bit \(float ? "float" : "integer") samples are not written; use 16, 24 or 32 bits, or 32-bit float")
        }
        return container | encoding
    }

    deinit { close() }

    /// Frames in the file (written so far, for a file being written).
    public var length: AVAudioFramePosition { lock.withLock { frames } }

    /// The frame the next read or write starts at. Setting it moves there (clamped to 0…`length`).
    public var framePosition: AVAudioFramePosition {
        get { lock.withLock { position } }
        set {
            lock.withLock {
                guard let file else { return }
                let target = max(0, min(newValue, frames))
                if sf_seek(file, target, SEEK_SET | Int32(writing ? SFM_WRITE : SFM_READ)) == target { position = target }
            }
        }
    }

    /// Whether the file is open (until `close()`).
    public var isOpen: Bool { lock.withLock { file != nil } }

    /// Fills `buffer` (of the processing format) from `framePosition`, as much as it holds.
    public func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames into `buffer` from `framePosition`; `frameLength` says how many (0 at
    /// the end).
    public func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        let channels = Int(processingFormat.channelCount)
        guard buffer.format.channelCount == processingFormat.channelCount, buffer.format.sampleRate == processingFormat.sampleRate else {
            throw statusError(kAudio_ParamError, "cannot read \(url.path) into a buffer of \(buffer.format): use its processingFormat")
        }
        let wanted = Int(min(frames, buffer.frameCapacity))
        var scratch = [Float](repeating: 0, count: max(1, wanted * channels))
        let read = try lock.withLock { () throws -> Int in
            guard let file, !writing else { throw statusError(kAudioFileNotOpenError, "cannot read \(url.path): it is not open for reading") }
            let got: Int
            if integerBits != nil {
                var integers = [Int32](repeating: 0, count: scratch.count)
                got = Int(sf_readf_int(file, &integers, Int64(wanted)))
                for index in 0..<(got * channels) { scratch[index] = Float(Double(integers[index]) / 2_147_483_648) }
            } else {
                got = Int(sf_readf_float(file, &scratch, Int64(wanted)))
            }
            position += Int64(got)
            return got
        }
        for frame in 0..<read {
            for channel in 0..<channels { buffer.setSample(scratch[frame * channels + channel], channel: channel, frame: frame) }
        }
        buffer.frameLength = AVAudioFrameCount(read)
    }

    /// Writes `buffer`'s `frameLength` frames at `framePosition`.
    public func write(from buffer: AVAudioPCMBuffer) throws {
        let channels = Int(processingFormat.channelCount)
        guard buffer.format.channelCount == processingFormat.channelCount else {
            throw statusError(kAudio_ParamError, "cannot write a buffer of \(buffer.format) to \(url.path): use its processingFormat")
        }
        let count = Int(buffer.frameLength)
        var scratch = [Float](repeating: 0, count: max(1, count * channels))
        for frame in 0..<count {
            for channel in 0..<channels { scratch[frame * channels + channel] = buffer.sample(channel: channel, frame: frame) }
        }
        try lock.withLock { () throws in
            guard let file, writing else { throw statusError(kAudioFileNotOpenError, "cannot write to \(url.path): it is not open for writing") }
            // Room first: on a full disk the write is refused whole, before the encoder takes frames it
            // could write only in part (the file closes with what was written before).
            guard room?.make(for: Int64(count * channels * 8)) ?? true else {
                throw statusError(kAudioFileUnspecifiedError,
                    "cannot write to \(url.path): \(String(cString: strerror(errno))) after \(frames) frames; the file keeps them; "
                    + "free space or write elsewhere")
            }
            let written: Int64
            if let bits = integerBits {
                // Rounded to the file's depth at 2^(bits−1), clipped, then placed in the top bits.
                let scale = Double(1 << (bits - 1)), shift = 32 - bits
                let integers = scratch.map { sample -> Int32 in
                    let value = sample.isNaN ? 0 : (Double(sample) * scale).rounded()
                    return Int32(max(-scale, min(scale - 1, value))) << Int32(shift)
                }
                written = sf_writef_int(file, integers, Int64(count))
            } else {
                written = sf_writef_float(file, scratch, Int64(count))
            }
            position += written
            frames = max(frames, position)
            guard written == Int64(count) else {
                throw statusError(kAudioFileUnspecifiedError, "cannot write to \(url.path): \(String(cString: sf_strerror(file))); check the disk's free space")
            }
        }
    }

    /// Finishes and closes the file; reads and writes fail afterwards. Idempotent.
    public func close() {
        lock.withLock {
            if let file { sf_close(file) }
            file = nil
            // What the close wrote is in; the room left past the end is given back.
            room?.release()
            room = nil
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }
}

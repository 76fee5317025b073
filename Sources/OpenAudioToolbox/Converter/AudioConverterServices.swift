// Audio Converter Services with Apple's signatures, for linear PCM: a converter made between two formats,
// its properties, and the three ways of converting (a buffer, a buffer list, or filling from an input
// procedure) — over PCMConverter (sample types, channels, libsoxr's rate conversion). Any thread; one
// converter's calls one at a time, as Apple's.
import Foundation
import Locking

/// The live converters by handle, so that a call with a disposed or foreign handle is refused with a status.
enum ConverterRegistry {
    private static let converters = HandleRegistry<PCMConverter>()
    static func add(_ converter: PCMConverter) -> AudioConverterRef { converters.add(converter) }
    static func find(_ handle: AudioConverterRef?) -> PCMConverter? { converters.find(handle) }
    static func remove(_ handle: AudioConverterRef) -> PCMConverter? { converters.remove(handle) }

    /// Runs `body` with the converter of `handle` under its lock; kAudio_ParamError for a handle that is none.
    static func with(_ handle: AudioConverterRef, _ body: (PCMConverter) -> OSStatus) -> OSStatus {
        guard let converter = find(handle) else { return kAudio_ParamError }
        return converter.lock.withLock { body(converter) }
    }
}

/// A converter from `inSourceFormat` to `inDestinationFormat`: linear PCM of 8- to 32-bit integers or 32-
/// or 64-bit floats, either byte order, interleaved or not, 1…1 024 channels, any rates. Anything else is
/// `kAudioConverterErr_FormatNotSupported` (encoding and decoding are not built; the line in
/// `OpenAudioToolboxLastErrorMessage()` says what to use).
@discardableResult
public func AudioConverterNew(_ inSourceFormat: UnsafePointer<AudioStreamBasicDescription>,
                              _ inDestinationFormat: UnsafePointer<AudioStreamBasicDescription>,
                              _ outAudioConverter: UnsafeMutablePointer<AudioConverterRef?>) -> OSStatus {
    guard let converter = PCMConverter(from: inSourceFormat.pointee, to: inDestinationFormat.pointee) else {
        let ids = [inSourceFormat.pointee.mFormatID, inDestinationFormat.pointee.mFormatID].map(fourCharacters)
        QueueRegistry.noteFailure("cannot make a converter from '\(ids[0])' to '\(ids[1])': Audio Converter Services on Linux "
            + "convert packed linear PCM (8- to 32-bit integers, 32- or 64-bit floats); decode or encode with AVAudioFile or RecorderKit")
        return kAudioConverterErr_FormatNotSupported
    }
    outAudioConverter.pointee = ConverterRegistry.add(converter)
    return noErr
}

/// Disposes of the converter; its handle is invalid from now on (a fill under way finishes).
@discardableResult
public func AudioConverterDispose(_ inAudioConverter: AudioConverterRef) -> OSStatus {
    ConverterRegistry.remove(inAudioConverter) == nil ? kAudio_ParamError : noErr
}

/// Forgets the stream: the next input starts afresh (primed again).
@discardableResult
public func AudioConverterReset(_ inAudioConverter: AudioConverterRef) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        converter.reset()
        return noErr
    }
}

// MARK: Properties

/// The size of each property read here, and whether it can be set.
private func converterProperty(_ id: AudioConverterPropertyID, _ converter: PCMConverter) -> (size: Int, writable: Bool)? {
    switch id {
    case kAudioConverterCurrentInputStreamDescription, kAudioConverterCurrentOutputStreamDescription:
        (MemoryLayout<AudioStreamBasicDescription>.size, false)
    case kAudioConverterSampleRateConverterQuality, kAudioConverterSampleRateConverterComplexity, kAudioConverterPrimeMethod,
         kAudioConverterPropertyDithering, kAudioConverterCodecQuality:
        (4, true)
    case kAudioConverterPropertyMinimumInputBufferSize, kAudioConverterPropertyMinimumOutputBufferSize,
         kAudioConverterPropertyMaximumInputPacketSize, kAudioConverterPropertyMaximumOutputPacketSize,
         kAudioConverterPropertyCalculateInputBufferSize, kAudioConverterPropertyCalculateOutputBufferSize:
        (4, false)
    case kAudioConverterPrimeInfo: (MemoryLayout<AudioConverterPrimeInfo>.size, true)
    case kAudioConverterChannelMap: (4 * converter.outputChannels, true)
    default: nil
    }
}

/// A property's size and whether it can be set; `kAudioConverterErr_PropertyNotSupported` for one not read here.
@discardableResult
public func AudioConverterGetPropertyInfo(_ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID,
                                          _ outSize: UnsafeMutablePointer<UInt32>?, _ outWritable: UnsafeMutablePointer<DarwinBoolean>?) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        guard let (size, writable) = converterProperty(inPropertyID, converter) else { return kAudioConverterErr_PropertyNotSupported }
        outSize?.pointee = UInt32(size)
        outWritable?.pointee = DarwinBoolean(writable)
        return noErr
    }
}

/// Reads a property: the stream descriptions, the rate converter's quality and complexity, the prime
/// method and info, the channel map, buffer sizes (`CalculateInputBufferSize` takes an output byte count in
/// `outPropertyData` and gives the input bytes it needs; `CalculateOutputBufferSize` the other way).
@discardableResult
public func AudioConverterGetProperty(_ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID,
                                      _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>, _ outPropertyData: UnsafeMutableRawPointer) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        guard let (size, _) = converterProperty(inPropertyID, converter) else { return kAudioConverterErr_PropertyNotSupported }
        guard Int(ioPropertyDataSize.pointee) >= size else { return kAudioConverterErr_BadPropertySizeError }
        let ratio = converter.outputFormat.mSampleRate / converter.inputFormat.mSampleRate
        switch inPropertyID {
        case kAudioConverterCurrentInputStreamDescription: outPropertyData.storeBytes(of: converter.inputFormat, as: AudioStreamBasicDescription.self)
        case kAudioConverterCurrentOutputStreamDescription: outPropertyData.storeBytes(of: converter.outputFormat, as: AudioStreamBasicDescription.self)
        case kAudioConverterSampleRateConverterQuality: outPropertyData.storeBytes(of: UInt32(converter.quality), as: UInt32.self)
        case kAudioConverterSampleRateConverterComplexity:
            let complexity = switch converter.phase {
            case .steep: kAudioConverterSampleRateConverterComplexity_Mastering
            case .minimum: kAudioConverterSampleRateConverterComplexity_MinimumPhase
            case .linear: converter.quality < 0x20 ? kAudioConverterSampleRateConverterComplexity_Linear
                                                   : kAudioConverterSampleRateConverterComplexity_Normal
            }
            outPropertyData.storeBytes(of: complexity, as: UInt32.self)
        case kAudioConverterPrimeMethod: outPropertyData.storeBytes(of: converter.primeMethod, as: UInt32.self)
        case kAudioConverterPrimeInfo:
            outPropertyData.storeBytes(of: AudioConverterPrimeInfo(leadingFrames: converter.primeLeadingFrames,
                                                                   trailingFrames: converter.primeTrailingFrames), as: AudioConverterPrimeInfo.self)
        case kAudioConverterChannelMap:
            for (index, source) in converter.channelMap.enumerated() {
                outPropertyData.storeBytes(of: Int32(source), toByteOffset: 4 * index, as: Int32.self)
            }
        case kAudioConverterPropertyDithering, kAudioConverterCodecQuality: outPropertyData.storeBytes(of: UInt32(0), as: UInt32.self)
        case kAudioConverterPropertyMinimumInputBufferSize, kAudioConverterPropertyMaximumInputPacketSize:
            outPropertyData.storeBytes(of: UInt32(converter.inputBytesPerFrame), as: UInt32.self)
        case kAudioConverterPropertyMinimumOutputBufferSize, kAudioConverterPropertyMaximumOutputPacketSize:
            outPropertyData.storeBytes(of: UInt32(converter.outputBytesPerFrame), as: UInt32.self)
        case kAudioConverterPropertyCalculateInputBufferSize:
            let frames = (Double(outPropertyData.load(as: UInt32.self)) / Double(converter.outputBytesPerFrame) / ratio).rounded(.up)
            outPropertyData.storeBytes(of: UInt32(clamping: Int64(min(4e9, frames)) * Int64(converter.inputBytesPerFrame)), as: UInt32.self)
        case kAudioConverterPropertyCalculateOutputBufferSize:
            let frames = (Double(outPropertyData.load(as: UInt32.self)) / Double(converter.inputBytesPerFrame) * ratio).rounded(.up)
            outPropertyData.storeBytes(of: UInt32(clamping: Int64(min(4e9, frames)) * Int64(converter.outputBytesPerFrame)), as: UInt32.self)
        default: return kAudioConverterErr_PropertyNotSupported
        }
        ioPropertyDataSize.pointee = UInt32(size)
        return noErr
    }
}

/// Sets the rate converter's quality (0…127) or complexity ('line', 'norm', 'bats', 'minp'), the prime
/// method (0…2) and info, the channel map (an Int32 per output channel: the input channel, or −1), or the
/// dithering and codec quality (kept, unused).
@discardableResult
public func AudioConverterSetProperty(_ inAudioConverter: AudioConverterRef, _ inPropertyID: AudioConverterPropertyID,
                                      _ inPropertyDataSize: UInt32, _ inPropertyData: UnsafeRawPointer) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        guard let (size, writable) = converterProperty(inPropertyID, converter) else { return kAudioConverterErr_PropertyNotSupported }
        guard writable else { return kAudioConverterErr_PropertyNotSupported }
        guard Int(inPropertyDataSize) == size else { return kAudioConverterErr_BadPropertySizeError }
        switch inPropertyID {
        case kAudioConverterSampleRateConverterQuality:
            converter.quality = Int(min(0x7F, inPropertyData.load(as: UInt32.self)))
        case kAudioConverterSampleRateConverterComplexity:
            switch inPropertyData.load(as: UInt32.self) {
            case kAudioConverterSampleRateConverterComplexity_Linear:
                converter.phase = .linear
                converter.quality = 0
            case kAudioConverterSampleRateConverterComplexity_Normal: converter.phase = .linear
            case kAudioConverterSampleRateConverterComplexity_Mastering: converter.phase = .steep
            case kAudioConverterSampleRateConverterComplexity_MinimumPhase: converter.phase = .minimum
            default: return kAudioConverterErr_PropertyNotSupported
            }
        case kAudioConverterPrimeMethod:
            let method = inPropertyData.load(as: UInt32.self)
            guard method <= 2 else { return kAudio_ParamError }
            converter.primeMethod = method
        case kAudioConverterPrimeInfo:
            let info = inPropertyData.load(as: AudioConverterPrimeInfo.self)
            converter.primeLeadingFrames = info.leadingFrames
            converter.primeTrailingFrames = info.trailingFrames
        case kAudioConverterChannelMap:
            converter.channelMap = (0..<converter.outputChannels).map { Int(inPropertyData.load(fromByteOffset: 4 * $0, as: Int32.self)) }
        default: break  // dithering, codec quality: kept by no one (no dither, no codec)
        }
        return noErr
    }
}

// MARK: Converting

/// Converts `inInputDataSize` bytes of interleaved input into `outOutputData`, which has room for
/// `*ioOutputDataSize` bytes (set to the bytes written). At one rate only, and interleaved formats only:
/// use `AudioConverterFillComplexBuffer` for rate conversion, `AudioConverterConvertComplexBuffer` for
/// deinterleaved audio (`kAudioConverterErr_OperationNotSupported` otherwise, as Apple's).
@discardableResult
public func AudioConverterConvertBuffer(_ inAudioConverter: AudioConverterRef, _ inInputDataSize: UInt32, _ inInputData: UnsafeRawPointer,
                                        _ ioOutputDataSize: UnsafeMutablePointer<UInt32>, _ outOutputData: UnsafeMutableRawPointer) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        let interleaved = [converter.inputFormat, converter.outputFormat].allSatisfy { $0.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 }
        guard interleaved, !converter.rateChanges else {
            QueueRegistry.noteFailure("AudioConverterConvertBuffer converts interleaved audio at one rate; use AudioConverterFillComplexBuffer "
                + "for rate conversion, AudioConverterConvertComplexBuffer for a buffer per channel")
            return kAudioConverterErr_OperationNotSupported
        }
        let frames = min(Int(inInputDataSize) / converter.inputBytesPerFrame, Int(ioOutputDataSize.pointee) / converter.outputBytesPerFrame)
        var input = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: UInt32(converter.inputChannels),
                                    mDataByteSize: UInt32(frames * converter.inputBytesPerFrame), mData: UnsafeMutableRawPointer(mutating: inInputData)))
        var output = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: UInt32(converter.outputChannels),
                                     mDataByteSize: UInt32(frames * converter.outputBytesPerFrame), mData: outOutputData))
        let written = convertOnce(converter, frames: frames, &input, &output)
        ioOutputDataSize.pointee = UInt32(written * converter.outputBytesPerFrame)
        return noErr
    }
}

/// Converts `inNumberPCMFrames` frames of `inInputData` into `outOutputData` (room for as many), at one
/// rate (`kAudioConverterErr_OperationNotSupported` when the rates differ: fill instead).
@discardableResult
public func AudioConverterConvertComplexBuffer(_ inAudioConverter: AudioConverterRef, _ inNumberPCMFrames: UInt32,
                                               _ inInputData: UnsafePointer<AudioBufferList>,
                                               _ outOutputData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        guard !converter.rateChanges else {
            QueueRegistry.noteFailure("AudioConverterConvertComplexBuffer converts at one rate; use AudioConverterFillComplexBuffer for rate conversion")
            return kAudioConverterErr_OperationNotSupported
        }
        let frames = Int(inNumberPCMFrames)
        let input = UnsafeMutablePointer(mutating: inInputData)
        guard converter.fits(input, frames: frames, forOutput: false) else { return kAudioConverterErr_InvalidInputSize }
        guard converter.fits(outOutputData, frames: frames, forOutput: true) else { return kAudioConverterErr_InvalidOutputSize }
        _ = convertOnce(converter, frames: frames, input, outOutputData)
        return noErr
    }
}

/// One buffer's conversion at one rate, leaving nothing pending.
private func convertOnce(_ converter: PCMConverter, frames: Int, _ input: UnsafeMutablePointer<AudioBufferList>,
                         _ output: UnsafeMutablePointer<AudioBufferList>) -> Int {
    var given = false
    converter.reset()
    defer { converter.reset() }
    return converter.fill(output, capacity: frames) { _ in
        defer { given = true }
        return given ? .noDataNow : .data(input, frames: frames)
    }.frames
}

/// Fills `outOutputData` with up to `*ioOutputDataPacketSize` converted frames (set to the frames written),
/// calling `inInputDataProc` for input as Apple's does: it sets the list's buffers and the packet count;
/// 0 packets with noErr ends the stream (the converter's tail is given out, and later fills give
/// nothing until `AudioConverterReset`); another status stops the fill, which returns it with the frames
/// written so far. Packet descriptions are not used (linear PCM).
@discardableResult
public func AudioConverterFillComplexBuffer(_ inAudioConverter: AudioConverterRef, _ inInputDataProc: AudioConverterComplexInputDataProc,
                                            _ inInputDataProcUserData: UnsafeMutableRawPointer?,
                                            _ ioOutputDataPacketSize: UnsafeMutablePointer<UInt32>,
                                            _ outOutputData: UnsafeMutablePointer<AudioBufferList>,
                                            _ outPacketDescription: UnsafeMutablePointer<AudioStreamPacketDescription>?) -> OSStatus {
    ConverterRegistry.with(inAudioConverter) { converter in
        let capacity = Int(ioOutputDataPacketSize.pointee)
        guard converter.fits(outOutputData, frames: capacity, forOutput: true) else {
            ioOutputDataPacketSize.pointee = 0
            return kAudioConverterErr_InvalidOutputSize
        }
        let inputBuffers = converter.inputFormat.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 ? converter.inputChannels : 1
        let list = AudioBufferList.allocate(maximumBuffers: inputBuffers)
        defer { free(list.unsafeMutablePointer) }
        let (written, ending) = converter.fill(outOutputData, capacity: capacity) { wanted in
            for index in 0..<list.count { list[index] = AudioBuffer(mNumberChannels: 0, mDataByteSize: 0, mData: nil) }
            list.count = inputBuffers
            var packets = UInt32(clamping: wanted)
            var descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
            let status = inInputDataProc(inAudioConverter, &packets, list.unsafeMutablePointer, &descriptions, inInputDataProcUserData)
            if status != noErr { return .failed(status) }
            if packets == 0 { return .endOfStream }
            return .data(list.unsafeMutablePointer, frames: Int(packets))
        }
        ioOutputDataPacketSize.pointee = UInt32(written)
        if case .failed(let status) = ending { return status }
        return noErr
    }
}

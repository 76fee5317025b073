// Audio Format Services: AudioFormatGetPropertyInfo and AudioFormatGetProperty over what this package
// knows of formats (which it reads and writes, their packets) and the channel layout tables.
import Foundation

/// The formats this package decodes (AVAudioFile, ExtAudioFile, AudioFile read them through libsndfile).
private let decodable: [AudioFormatID] = [kAudioFormatLinearPCM, kAudioFormatULaw, kAudioFormatALaw, kAudioFormatFLAC,
                                          kAudioFormatOpus, kAudioFormatMPEGLayer3]
/// The formats it encodes (files AVAudioFile and AVAudioRecorder write). AAC and Apple Lossless are not
/// among them: no library Debian ships encodes them under a licence this package may link.
private let encodable: [AudioFormatID] = [kAudioFormatLinearPCM, kAudioFormatFLAC, kAudioFormatOpus, kAudioFormatMPEGLayer3]

/// Frames in one packet of each compressed format Apple's FormatInfo fills in (their standards' frames).
private let framesPerPacket: [AudioFormatID: UInt32] = [
    kAudioFormatMPEG4AAC: 1_024, kAudioFormatMPEG4AAC_HE: 2_048, kAudioFormatMPEG4AAC_HE_V2: 2_048,
    kAudioFormatMPEG4AAC_LD: 512, kAudioFormatMPEG4AAC_ELD: 512, kAudioFormatMPEG4AAC_ELD_SBR: 1_024,
    kAudioFormatMPEGLayer1: 384, kAudioFormatMPEGLayer2: 1_152, kAudioFormatMPEGLayer3: 1_152,
    kAudioFormatFLAC: 4_096, kAudioFormatAppleLossless: 4_096, kAudioFormatOpus: 960,
    kAudioFormatAC3: 1_536, kAudioFormatEnhancedAC3: 1_536, kAudioFormatAMR: 160, kAudioFormatAMR_WB: 320,
    kAudioFormatAppleIMA4: 64, kAudioFormatiLBC: 160,
]

/// What a property's answer is: its bytes, and for a list the size of one item (a short buffer gets the
/// whole items that fit, as Apple's lists do); nil item size: the whole answer or kAudioFormatBadPropertySizeError.
private struct Answer {
    var bytes: [UInt8]
    var itemSize: Int? = nil

    init<T>(_ value: T) { bytes = withUnsafeBytes(of: value) { Array($0) } }
    init<T>(list: [T]) {
        bytes = list.withUnsafeBytes { Array($0) }
        itemSize = MemoryLayout<T>.stride
    }
    init(bytes: [UInt8]) { self.bytes = bytes }
}

private func specifier<T>(_ pointer: UnsafeRawPointer?, _ size: UInt32, as type: T.Type) -> T? {
    guard let pointer, Int(size) >= MemoryLayout<T>.size else { return nil }
    return pointer.loadUnaligned(as: T.self)
}

/// The answer to `id` for the specifier given; for FormatInfo, `data` is the description to fill in.
private func answer(_ id: AudioFormatPropertyID, _ size: UInt32, _ pointer: UnsafeRawPointer?,
                    data: UnsafeRawPointer?, dataSize: Int) -> Result<Answer, OSStatusError> {
    func layoutLabels() -> Result<[AudioChannelLabel], OSStatusError> {
        guard let pointer, Int(size) >= ChannelLayouts.descriptionsOffset else { return .failure(.init(kAudioFormatBadSpecifierSizeError)) }
        guard let labels = ChannelLayouts.labels(of: pointer, size: Int(size)) else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(labels)
    }
    func tag() -> Result<AudioChannelLayoutTag, OSStatusError> {
        specifier(pointer, size, as: AudioChannelLayoutTag.self).map { .success($0) } ?? .failure(.init(kAudioFormatBadSpecifierSizeError))
    }
    switch id {
    case kAudioFormatProperty_FormatInfo:
        guard let data, dataSize >= MemoryLayout<AudioStreamBasicDescription>.size else { return .failure(.init(kAudioFormatBadPropertySizeError)) }
        return filledIn(data.loadUnaligned(as: AudioStreamBasicDescription.self)).map { Answer($0) }
    case kAudioFormatProperty_FormatIsVBR, kAudioFormatProperty_FormatIsExternallyFramed:
        guard let format = specifier(pointer, size, as: AudioStreamBasicDescription.self) else { return .failure(.init(kAudioFormatBadSpecifierSizeError)) }
        let compressed = format.mFormatID != kAudioFormatLinearPCM && format.mBytesPerPacket == 0
        // Variable packets need describing from outside unless each carries its own header (MPEG audio's).
        let selfFramed = [kAudioFormatMPEGLayer1, kAudioFormatMPEGLayer2, kAudioFormatMPEGLayer3].contains(format.mFormatID)
        let yes = id == kAudioFormatProperty_FormatIsVBR ? compressed : compressed && !selfFramed
        return .success(Answer(UInt32(yes ? 1 : 0)))
    case kAudioFormatProperty_EncodeFormatIDs: return .success(Answer(list: encodable))
    case kAudioFormatProperty_DecodeFormatIDs: return .success(Answer(list: decodable))
    case kAudioFormatProperty_NumberOfChannelsForLayout:
        guard let pointer, let count = ChannelLayouts.channelCount(of: pointer, size: Int(size)) else {
            return .failure(.init(kAudioFormatBadSpecifierSizeError))
        }
        return .success(Answer(count))
    case kAudioFormatProperty_ChannelLayoutForTag:
        return tag().flatMap { tag in
            ChannelLayouts.labels(forTag: tag).map { .success(Answer(bytes: ChannelLayouts.bytes(describing: $0))) }
                ?? .failure(.init(kAudioFormatUnknownFormatError))
        }
    case kAudioFormatProperty_TagForChannelLayout:
        if let pointer, Int(size) >= 4 {
            let given = pointer.loadUnaligned(as: AudioChannelLayoutTag.self)
            if given != kAudioChannelLayoutTag_UseChannelDescriptions, given != kAudioChannelLayoutTag_UseChannelBitmap {
                return .success(Answer(given))
            }
        }
        return layoutLabels().flatMap { labels in
            ChannelLayouts.tag(forLabels: labels).map { .success(Answer($0)) } ?? .failure(.init(kAudioFormatUnknownFormatError))
        }
    case kAudioFormatProperty_BitmapForLayoutTag:
        return tag().flatMap { tag in
            ChannelLayouts.labels(forTag: tag).flatMap(ChannelLayouts.bitmap(forLabels:)).map { .success(Answer($0)) }
                ?? .failure(.init(kAudioFormatUnknownFormatError))
        }
    case kAudioFormatProperty_ChannelLayoutForBitmap:
        guard let bitmap = specifier(pointer, size, as: UInt32.self) else { return .failure(.init(kAudioFormatBadSpecifierSizeError)) }
        return .success(Answer(bytes: ChannelLayouts.bytes(describing: ChannelLayouts.labels(forBitmap: bitmap))))
    case kAudioFormatProperty_TagsForNumberOfChannels:
        guard let count = specifier(pointer, size, as: UInt32.self) else { return .failure(.init(kAudioFormatBadSpecifierSizeError)) }
        return .success(Answer(list: ChannelLayouts.tags.filter { $0 & 0xFFFF == count }))
    case kAudioFormatProperty_AreChannelLayoutsEquivalent:
        // Two layout pointers; a layout given by pointer has no size, so each is read up to its own count.
        guard let pointer, Int(size) >= 2 * MemoryLayout<UnsafeRawPointer>.size else { return .failure(.init(kAudioFormatBadSpecifierSizeError)) }
        let pair = (0..<2).map { pointer.loadUnaligned(fromByteOffset: $0 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer?.self) }
        guard let first = pair[0], let second = pair[1] else { return .failure(.init(kAudio_ParamError)) }
        let labels = [first, second].map { ChannelLayouts.labels(of: $0, size: ownSize($0)) }
        guard let one = labels[0], let other = labels[1] else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        return .success(Answer(UInt32(one == other ? 1 : 0)))
    case kAudioFormatProperty_ValidateChannelLayout:
        return layoutLabels().map { _ in Answer(bytes: []) }
    default:
        return .failure(.init(kAudioFormatUnsupportedPropertyError))
    }
}

/// The size a layout given by pointer alone says it has (its descriptions, if it uses them).
private func ownSize(_ layout: UnsafeRawPointer) -> Int {
    guard layout.loadUnaligned(as: UInt32.self) == kAudioChannelLayoutTag_UseChannelDescriptions else { return ChannelLayouts.descriptionsOffset }
    let count = Int(min(layout.loadUnaligned(fromByteOffset: 8, as: UInt32.self), 65_535))
    return ChannelLayouts.byteSize(descriptions: count)
}

/// `format` with what its ID implies filled in: linear PCM's packet, frame and sample sizes (packed), μ-
/// and A-law's bytes, a compressed format's frames per packet; kAudioFormatUnknownFormatError for an ID
/// not known here, or linear PCM with no bits.
private func filledIn(_ given: AudioStreamBasicDescription) -> Result<AudioStreamBasicDescription, OSStatusError> {
    var format = given
    let channels = format.mChannelsPerFrame
    switch format.mFormatID {
    case kAudioFormatLinearPCM:
        let bits = format.mBitsPerChannel
        guard (1...64).contains(bits) else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        let bytes = (bits + 7) / 8
        if bits == bytes * 8 { format.mFormatFlags |= kAudioFormatFlagIsPacked }
        format.mFramesPerPacket = 1
        format.mBytesPerFrame = format.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 ? bytes : bytes &* channels
        format.mBytesPerPacket = format.mBytesPerFrame
    case kAudioFormatULaw, kAudioFormatALaw:
        format.mFramesPerPacket = 1
        format.mBitsPerChannel = 8
        format.mBytesPerFrame = channels
        format.mBytesPerPacket = channels
    default:
        guard let frames = framesPerPacket[format.mFormatID] else { return .failure(.init(kAudioFormatUnknownFormatError)) }
        format.mFramesPerPacket = frames
        format.mBitsPerChannel = 0
        format.mBytesPerFrame = 0
        // IMA4 packs 64 frames of each channel in 34 bytes; the others' packets vary.
        format.mBytesPerPacket = format.mFormatID == kAudioFormatAppleIMA4 ? 34 &* channels : 0
    }
    return .success(format)
}

/// A status as an error, for the answers above.
private struct OSStatusError: Error {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}

/// The size of property `inPropertyID`'s answer for this specifier (a list's: all its items). The
/// properties answered: FormatInfo, FormatIsVBR, FormatIsExternallyFramed, EncodeFormatIDs,
/// DecodeFormatIDs, NumberOfChannelsForLayout, ChannelLayoutForTag, TagForChannelLayout,
/// BitmapForLayoutTag, ChannelLayoutForBitmap, TagsForNumberOfChannels, AreChannelLayoutsEquivalent,
/// ValidateChannelLayout; any other is kAudioFormatUnsupportedPropertyError (the names, which are
/// CFStrings, the codecs' lists and rates, panning matrices and ID3 tags are not here). Any thread.
@discardableResult
public func AudioFormatGetPropertyInfo(_ inPropertyID: AudioFormatPropertyID, _ inSpecifierSize: UInt32,
                                       _ inSpecifier: UnsafeRawPointer?,
                                       _ outPropertyDataSize: UnsafeMutablePointer<UInt32>) -> OSStatus {
    if inPropertyID == kAudioFormatProperty_FormatInfo {
        outPropertyDataSize.pointee = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        return noErr
    }
    switch answer(inPropertyID, inSpecifierSize, inSpecifier, data: nil, dataSize: 0) {
    case .success(let answer):
        outPropertyDataSize.pointee = UInt32(answer.bytes.count)
        return noErr
    case .failure(let error):
        return error.status
    }
}

/// Property `inPropertyID` for the specifier given (see AudioFormatGetPropertyInfo for which are
/// answered, and what each specifier is), copied to `outPropertyData` with `ioPropertyDataSize` made its
/// size: a list gives as many whole items as the buffer holds; anything else needs its whole size
/// (kAudioFormatBadPropertySizeError). FormatInfo reads the description in `outPropertyData` and fills it
/// in (Apple's use: format ID, rate and channels set, the rest found). Channel layouts come back as
/// descriptions (kAudioChannelLayoutTag_UseChannelDescriptions) in the order Apple's header documents
/// for the tag; a tag with no documented order is kAudioFormatUnknownFormatError. Any thread.
@discardableResult
public func AudioFormatGetProperty(_ inPropertyID: AudioFormatPropertyID, _ inSpecifierSize: UInt32,
                                   _ inSpecifier: UnsafeRawPointer?, _ ioPropertyDataSize: UnsafeMutablePointer<UInt32>?,
                                   _ outPropertyData: UnsafeMutableRawPointer?) -> OSStatus {
    let room = Int(ioPropertyDataSize?.pointee ?? 0)
    switch answer(inPropertyID, inSpecifierSize, inSpecifier, data: UnsafeRawPointer(outPropertyData), dataSize: room) {
    case .failure(let error):
        return error.status
    case .success(let answer):
        var count = answer.bytes.count
        if room < count {
            guard let item = answer.itemSize else { return kAudioFormatBadPropertySizeError }
            count = room / item * item
        }
        if count > 0 {
            guard let outPropertyData else { return kAudio_ParamError }
            answer.bytes.withUnsafeBytes { outPropertyData.copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
        ioPropertyDataSize?.pointee = UInt32(count)
        return noErr
    }
}

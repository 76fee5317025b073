// AVAudioChannelLayout: which speaker each channel of a format is for, from a layout tag or an
// AudioChannelLayout structure; immutable.
import Foundation
import OpenAudioToolbox

/// A channel layout: immutable once made (so it may be shared between threads).
open class AVAudioChannelLayout: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `storage` is allocated and written in init only; afterwards it is read, never
    // written, and freed in deinit.
    private let storage: UnsafeMutableRawPointer
    private let size: Int
    /// The tag the layout was made with, or kAudioChannelLayoutTag_UseChannelDescriptions /
    /// kAudioChannelLayoutTag_UseChannelBitmap for a structure that uses those.
    public let layoutTag: AudioChannelLayoutTag
    /// The channels: the tag's low 16 bits, the bitmap's bits, or the descriptions' count.
    public let channelCount: AVAudioChannelCount

    /// The layout a tag names; nil for kAudioChannelLayoutTag_UseChannelDescriptions and
    /// kAudioChannelLayoutTag_UseChannelBitmap, which need a structure (as Apple's returns nil).
    public convenience init?(layoutTag: AudioChannelLayoutTag) {
        guard layoutTag != kAudioChannelLayoutTag_UseChannelDescriptions, layoutTag != kAudioChannelLayoutTag_UseChannelBitmap else {
            return nil
        }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = layoutTag
        self.init(layout: &layout)
    }

    /// A copy of `layout`: its tag, bitmap, and as many descriptions as it says it has (the caller's
    /// structure must hold them, as Apple's requires; at most 65 535 are read).
    public init(layout: UnsafePointer<AudioChannelLayout>) {
        let raw = UnsafeRawPointer(layout)
        let tag = layout.pointee.mChannelLayoutTag
        let descriptions = tag == kAudioChannelLayoutTag_UseChannelDescriptions ? Int(min(layout.pointee.mNumberChannelDescriptions, 65_535)) : 0
        size = ChannelLayouts.byteSize(descriptions: descriptions)
        storage = .allocate(byteCount: size, alignment: MemoryLayout<AudioChannelLayout>.alignment)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        storage.copyMemory(from: raw, byteCount: ChannelLayouts.descriptionsOffset + descriptions * ChannelLayouts.descriptionSize)
        storage.storeBytes(of: UInt32(descriptions), toByteOffset: 8, as: UInt32.self)
        layoutTag = tag
        channelCount = ChannelLayouts.channelCount(of: storage, size: size) ?? 0
        super.init()
    }

    /// The layout whose structure `data` holds (AVChannelLayoutKey's value); nil if its descriptions would
    /// lie beyond the data.
    convenience init?(data: Data) {
        let copied: AVAudioChannelLayout?? = data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count >= ChannelLayouts.descriptionsOffset else { return .none }
            let tag = base.loadUnaligned(as: AudioChannelLayoutTag.self)
            let count = Int(base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            let needed = ChannelLayouts.descriptionsOffset + (tag == kAudioChannelLayoutTag_UseChannelDescriptions ? count * ChannelLayouts.descriptionSize : 0)
            guard raw.count >= needed else { return .none }
            // Aligned, and with room for Swift's whole structure, before it is read as one.
            var bytes = [UInt8](repeating: 0, count: max(needed, MemoryLayout<AudioChannelLayout>.size))
            bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[0..<needed])) }
            return bytes.withUnsafeBytes { .some(AVAudioChannelLayout(layout: $0.baseAddress!.assumingMemoryBound(to: AudioChannelLayout.self))) }
        }
        guard let copied, let copied else { return nil }
        self.init(layout: copied.layout)
    }

    deinit { storage.deallocate() }

    /// The layout as a structure (valid while this object lives).
    public var layout: UnsafePointer<AudioChannelLayout> { UnsafePointer(storage.assumingMemoryBound(to: AudioChannelLayout.self)) }

    /// The structure's bytes, as AVChannelLayoutKey holds them.
    var data: Data { Data(bytes: storage, count: size) }

    /// The channels in order, where they are known (a tag with no documented order: nil).
    var labels: [AudioChannelLabel]? { ChannelLayouts.labels(of: storage, size: size) }

    /// Equal: the same channels in the same order, however each says it (a tag, a bitmap, descriptions);
    /// two tags of no known order are equal when they are the same tag.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioChannelLayout else { return false }
        if let mine = labels, let theirs = other.labels { return mine == theirs }
        return layoutTag == other.layoutTag && channelCount == other.channelCount
    }

    open override var hash: Int { Int(channelCount) }

    open override var description: String {
        "<AVAudioChannelLayout: tag 0x\(String(layoutTag, radix: 16)), \(channelCount) ch>"
    }
}

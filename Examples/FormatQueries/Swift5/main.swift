// A format utility's queries as Apple code makes them (import AudioToolbox/AVFAudio changed): what a
// format's packets are, which formats encode, a surround layout's channels, layouts compared, a format
// with a layout, where an engine's nodes connect, the session's categories. One line per answer.
import Foundation
import OpenAudioToolbox
import OpenAVFAudio

func fourCC(_ value: UInt32) -> String {
    String(bytes: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, encoding: .ascii) ?? "?"
}

// What an AAC stream's packets are, from its ID, rate and channels alone.
var aac = AudioStreamBasicDescription()
aac.mFormatID = kAudioFormatMPEG4AAC
aac.mSampleRate = 44_100
aac.mChannelsPerFrame = 2
var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
var status = AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &size, &aac)
print("aac info: \(status) frames per packet \(aac.mFramesPerPacket) bytes per packet \(aac.mBytesPerPacket)")

var pcm = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                      mFormatFlags: kAudioFormatFlagIsSignedInteger, mBytesPerPacket: 0, mFramesPerPacket: 0,
                                      mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 24, mReserved: 0)
status = AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &size, &pcm)
print("pcm info: \(status) bytes per frame \(pcm.mBytesPerFrame) packed \(pcm.mFormatFlags & kAudioFormatFlagIsPacked != 0)")

var isVBR: UInt32 = 0
size = UInt32(MemoryLayout<UInt32>.size)
AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &aac, &size, &isVBR)
var pcmVBR: UInt32 = 1
AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, UInt32(MemoryLayout<AudioStreamBasicDescription>.size), &pcm, &size, &pcmVBR)
print("vbr: aac \(isVBR) pcm \(pcmVBR)")

// Which formats can be encoded: the list's size first, then the list.
AudioFormatGetPropertyInfo(kAudioFormatProperty_EncodeFormatIDs, 0, nil, &size)
var encoders = [AudioFormatID](repeating: 0, count: Int(size) / MemoryLayout<AudioFormatID>.size)
AudioFormatGetProperty(kAudioFormatProperty_EncodeFormatIDs, 0, nil, &size, &encoders)
print("encoders: \(encoders.map(fourCC).joined(separator: ","))")
print("can record aac: \(encoders.contains(kAudioFormatMPEG4AAC))")

// A 5.1 layout's channels, as a player that routes surround asks for them.
var tag = kAudioChannelLayoutTag_MPEG_5_1_A
status = AudioFormatGetPropertyInfo(kAudioFormatProperty_ChannelLayoutForTag, UInt32(MemoryLayout<AudioChannelLayoutTag>.size), &tag, &size)
let layoutMemory = UnsafeMutableRawPointer.allocate(byteCount: Int(size), alignment: MemoryLayout<AudioChannelLayout>.alignment)
defer { layoutMemory.deallocate() }
let layoutSize = size
status = AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutForTag, UInt32(MemoryLayout<AudioChannelLayoutTag>.size), &tag, &size, layoutMemory)
let layout = layoutMemory.assumingMemoryBound(to: AudioChannelLayout.self)
let count = Int(layout.pointee.mNumberChannelDescriptions)
let labels = withUnsafeMutablePointer(to: &layout.pointee.mChannelDescriptions) { first in
    UnsafeBufferPointer(start: first, count: count).map { $0.mChannelLabel }
}
print("5.1 layout: \(status) size \(layoutSize) \(count) channels: \(labels.map(String.init).joined(separator: " "))")

var channels: UInt32 = 0
size = UInt32(MemoryLayout<UInt32>.size)
AudioFormatGetProperty(kAudioFormatProperty_NumberOfChannelsForLayout, layoutSize, layout, &size, &channels)
var foundTag: AudioChannelLayoutTag = 0
AudioFormatGetProperty(kAudioFormatProperty_TagForChannelLayout, layoutSize, layout, &size, &foundTag)
print("channels \(channels), tag back \(foundTag == kAudioChannelLayoutTag_MPEG_5_1_A)")

var bitmap: UInt32 = 0
tag = kAudioChannelLayoutTag_MPEG_5_1_A
AudioFormatGetProperty(kAudioFormatProperty_BitmapForLayoutTag, UInt32(MemoryLayout<AudioChannelLayoutTag>.size), &tag, &size, &bitmap)
print("5.1 bitmap: 0x\(String(bitmap, radix: 16))")

// Two layouts saying the same channels differently: a tag and descriptions.
var stereo = AudioChannelLayout()
stereo.mChannelLayoutTag = kAudioChannelLayoutTag_Stereo
let described = UnsafeMutableRawPointer.allocate(byteCount: 52, alignment: 4)
defer { described.deallocate() }
described.initializeMemory(as: UInt8.self, repeating: 0, count: 52)
described.storeBytes(of: kAudioChannelLayoutTag_UseChannelDescriptions, as: UInt32.self)
described.storeBytes(of: UInt32(2), toByteOffset: 8, as: UInt32.self)
described.storeBytes(of: kAudioChannelLabel_Left, toByteOffset: 12, as: UInt32.self)
described.storeBytes(of: kAudioChannelLabel_Right, toByteOffset: 32, as: UInt32.self)
var equivalent: UInt32 = 0
withUnsafePointer(to: &stereo) { stereoPointer in
    var pair: [UnsafeRawPointer] = [UnsafeRawPointer(stereoPointer), UnsafeRawPointer(described)]
    size = UInt32(MemoryLayout<UInt32>.size)
    AudioFormatGetProperty(kAudioFormatProperty_AreChannelLayoutsEquivalent, UInt32(2 * MemoryLayout<UnsafeRawPointer>.size), &pair, &size, &equivalent)
}
print("stereo tag equals L R descriptions: \(equivalent)")

// AVFAudio's side: a layout object, a format that carries it, and its settings.
let surround = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: surround)
print("AVAudioChannelLayout: \(surround.channelCount) channels, format \(format.channelCount) channels, carries layout \(format.channelLayout == surround)")
let fromSettings = AVAudioFormat(settings: format.settings)
print("layout through settings: \(fromSettings?.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)")
print("no layout for UseChannelDescriptions: \(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_UseChannelDescriptions) == nil)")

// Where an engine's nodes are connected.
let engine = AVAudioEngine()
let player = AVAudioPlayerNode()
let reverb = AVAudioUnitReverb()
engine.attach(player)
engine.attach(reverb)
engine.connect(player, to: reverb, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
engine.connect(reverb, to: engine.mainMixerNode, format: nil)
let point = engine.inputConnectionPoint(for: reverb, inputBus: 0)
print("reverb fed by player: \(point?.node === player) bus \(point?.bus ?? -1)")
let outputs = engine.outputConnectionPoints(for: reverb, outputBus: 0)
print("reverb feeds main mixer: \(outputs.count == 1 && outputs[0].node === engine.mainMixerNode)")
print("nothing into player: \(engine.inputConnectionPoint(for: player, inputBus: 0) == nil)")

// The session: the categories a settings screen lists.
print("categories: \(AVAudioSession.sharedInstance().availableCategories.count)")
print("output volume: \(AVAudioSession.sharedInstance().outputVolume)")

// Audio Format Services and AVAudioChannelLayout: the example (Examples/FormatQueries, Swift 5 and 6)
// run against a private server, its answers checked against Apple's documented values (AAC's 1 024-frame
// packets, the header's channel orders, the bitmap bits, the server's own volume); each tag's channels
// against the order Apple's header documents; every format listed as encodable written and read back; and
// what a porter's mistakes get (short buffers, nil specifiers, counts past the data).
import Foundation
import OpenAVFAudio
import OpenAudioToolbox
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2)))
struct AudioFormatServicesTests {
    /// The abbreviations of Apple's CoreAudioBaseTypes.h (its comment above the tags), as labels.
    static let abbreviations: [String: AudioChannelLabel] = [
        "L": kAudioChannelLabel_Left, "R": kAudioChannelLabel_Right, "C": kAudioChannelLabel_Center,
        "LFE": kAudioChannelLabel_LFEScreen, "Ls": kAudioChannelLabel_LeftSurround, "Rs": kAudioChannelLabel_RightSurround,
        "Lc": kAudioChannelLabel_LeftCenter, "Rc": kAudioChannelLabel_RightCenter, "Cs": kAudioChannelLabel_CenterSurround,
        "Rls": kAudioChannelLabel_RearSurroundLeft, "Rrs": kAudioChannelLabel_RearSurroundRight,
        "Lt": kAudioChannelLabel_LeftTotal, "Rt": kAudioChannelLabel_RightTotal, "Ts": kAudioChannelLabel_TopCenterSurround,
        "Vhl": kAudioChannelLabel_VerticalHeightLeft, "Vhr": kAudioChannelLabel_VerticalHeightRight,
        "Lw": kAudioChannelLabel_LeftWide, "Rw": kAudioChannelLabel_RightWide,
    ]

    /// Tags of each family and the channels Apple's header lists beside them.
    static let documented: [(AudioChannelLayoutTag, String)] = [
        (kAudioChannelLayoutTag_Stereo, "L R"), (kAudioChannelLayoutTag_MatrixStereo, "Lt Rt"),
        (kAudioChannelLayoutTag_Quadraphonic, "L R Ls Rs"), (kAudioChannelLayoutTag_MPEG_3_0_B, "C L R"),
        (kAudioChannelLayoutTag_MPEG_5_0_D, "C L R Ls Rs"), (kAudioChannelLayoutTag_MPEG_5_1_A, "L R C LFE Ls Rs"),
        (kAudioChannelLayoutTag_MPEG_5_1_C, "L C R Ls Rs LFE"), (kAudioChannelLayoutTag_MPEG_7_1_B, "C Lc Rc L R Ls Rs LFE"),
        (kAudioChannelLayoutTag_MPEG_7_1_C, "L R C LFE Ls Rs Rls Rrs"), (kAudioChannelLayoutTag_ITU_2_1, "L R Cs"),
        (kAudioChannelLayoutTag_DVD_18, "L R Ls Rs LFE"), (kAudioChannelLayoutTag_AudioUnit_7_0, "L R Ls Rs C Rls Rrs"),
        (kAudioChannelLayoutTag_AAC_6_1, "C L R Ls Rs Cs LFE"), (kAudioChannelLayoutTag_AC3_2_1_1, "L R Cs LFE"),
        (kAudioChannelLayoutTag_EAC3_7_1_D, "L C R Ls Rs LFE Lw Rw"), (kAudioChannelLayoutTag_DTS_6_1_B, "C L R Rls Rrs Ts LFE"),
        (kAudioChannelLayoutTag_WAVE_7_1, "L R C LFE Rls Rrs Ls Rs"), (kAudioChannelLayoutTag_SMPTE_DTV, "L R C LFE Ls Rs Lt Rt"),
        (kAudioChannelLayoutTag_Ogg_5_1, "L C R Rls Rrs LFE"), (kAudioChannelLayoutTag_AAC_7_1_C, "C L R Ls Rs LFE Vhl Vhr"),
    ]

    /// The channels property ChannelLayoutForTag gives for `tag`, or its status.
    static func channels(of tag: AudioChannelLayoutTag) -> (OSStatus, [AudioChannelLabel]) {
        var tag = tag, size: UInt32 = 0
        let tagSize = UInt32(MemoryLayout<AudioChannelLayoutTag>.size)
        let info = AudioFormatGetPropertyInfo(kAudioFormatProperty_ChannelLayoutForTag, tagSize, &tag, &size)
        guard info == noErr else { return (info, []) }
        var bytes = [UInt32](repeating: 0xDEAD, count: Int(size) / 4)
        let status = AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutForTag, tagSize, &tag, &size, &bytes)
        // Words: tag, bitmap, count, then five per description (label, flags, three coordinates).
        return (status, (0..<Int(bytes[2])).map { bytes[3 + 5 * $0] })
    }

    @Test(arguments: ["format-queries-swift5", "format-queries-swift6"])
    func aFormatUtilitysQueriesGetApplesAnswers(_ product: String) async throws {
        try await withPrivateServer { server in
            try server.run("pactl", ["set-sink-volume", PrivateServer.monoSink, "50%"])
            let program = try builtProduct(product)
            let environment = server.clientEnvironment
            let result = try await offThread { try runProcess(program, [], environment: environment) }
            #expect(result.status == 0, "\(result.stderr)")
            let fiveOne = "L R C LFE Ls Rs".split(separator: " ").map { String(Self.abbreviations[String($0)]!) }.joined(separator: " ")
            let bits: AudioChannelBitmap = [.bit_Left, .bit_Right, .bit_Center, .bit_LFEScreen, .bit_LeftSurround, .bit_RightSurround]
            let expected = [
                // AAC: 1 024 frames a packet, packets of varying size (ISO 14496-3; Apple's FormatInfo).
                "aac info: 0 frames per packet 1024 bytes per packet 0",
                "pcm info: 0 bytes per frame 6 packed true", "vbr: aac 1 pcm 0",
                "encoders: lpcm,flac,opus,.mp3", "can record aac: false",
                // 12 bytes, then 20 a description.
                "5.1 layout: 0 size \(12 + 6 * 20) 6 channels: \(fiveOne)", "channels 6, tag back true",
                "5.1 bitmap: 0x\(String(bits.rawValue, radix: 16))", "stereo tag equals L R descriptions: 1",
                "AVAudioChannelLayout: 6 channels, format 6 channels, carries layout true", "layout through settings: true",
                "no layout for UseChannelDescriptions: true", "reverb fed by player: true bus 0", "reverb feeds main mixer: true",
                "nothing into player: true", "categories: 6", "output volume: 0.5",
            ]
            #expect(result.stdout.split(separator: "\n").map(String.init) == expected, "\(result.stdout)")
            try server.run("pactl", ["set-sink-mute", PrivateServer.monoSink, "1"])
            let muted = try await offThread { try runProcess(program, [], environment: environment) }
            #expect(muted.stdout.hasSuffix("output volume: 0.0\n"), "\(muted.stdout)")
        }
    }

    @Test func eachTagGivesTheChannelsApplesHeaderListsForIt() throws {
        for (tag, listed) in Self.documented {
            let (status, labels) = Self.channels(of: tag)
            #expect(status == noErr && labels == listed.split(separator: " ").map { Self.abbreviations[String($0)]! },
                    "tag 0x\(String(tag, radix: 16)): \(status) \(labels), documented \(listed)")
            // And back: the tag (or the first tag holding those channels, which has the same ones).
            let back = AVAudioChannelLayout(layoutTag: tag)!
            #expect(back.channelCount == tag & 0xFFFF)
        }
        // Discrete channels in order, and Ambisonics by channel number.
        #expect(Self.channels(of: kAudioChannelLayoutTag_DiscreteInOrder | 3).1 == [0x10000, 0x10001, 0x10002])
        #expect(Self.channels(of: kAudioChannelLayoutTag_HOA_ACN_SN3D | 4).1 == [0x20000, 0x20001, 0x20002, 0x20003])
        // A tag no order is known for: said, not guessed.
        #expect(Self.channels(of: kAudioChannelLayoutTag_CICP_13).0 == kAudioFormatUnknownFormatError)
        #expect(Self.channels(of: kAudioChannelLayoutTag_Unknown | 2).0 == kAudioFormatUnknownFormatError)
    }

    @Test func everyTagWithKnownChannelsHasAsManyAsItsLowBitsSay() throws {
        var tags: [AudioChannelLayoutTag] = []
        var size: UInt32 = 0
        for count in UInt32(1)...24 {
            var channels = count
            #expect(AudioFormatGetPropertyInfo(kAudioFormatProperty_TagsForNumberOfChannels, 4, &channels, &size) == noErr)
            var found = [AudioChannelLayoutTag](repeating: 0, count: Int(size) / 4)
            #expect(AudioFormatGetProperty(kAudioFormatProperty_TagsForNumberOfChannels, 4, &channels, &size, &found) == noErr)
            #expect(found.allSatisfy { $0 & 0xFFFF == count })
            tags += found
        }
        #expect(tags.count > 100 && tags.contains(kAudioChannelLayoutTag_Stereo) && tags.contains(kAudioChannelLayoutTag_TMH_10_2_full))
        for tag in tags {
            let (status, labels) = Self.channels(of: tag)
            #expect(status == noErr && labels.count == Int(tag & 0xFFFF) && Set(labels).count == labels.count, "0x\(String(tag, radix: 16))")
        }
    }

    @Test func everyFormatListedAsEncodableIsWrittenAndReadBack() throws {
        var size: UInt32 = 0
        #expect(AudioFormatGetPropertyInfo(kAudioFormatProperty_EncodeFormatIDs, 0, nil, &size) == noErr)
        var ids = [AudioFormatID](repeating: 0, count: Int(size) / 4)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_EncodeFormatIDs, 0, nil, &size, &ids) == noErr)
        let extensions: [AudioFormatID: String] = [kAudioFormatLinearPCM: "wav", kAudioFormatFLAC: "flac", kAudioFormatOpus: "opus",
                                                   kAudioFormatMPEGLayer3: "mp3"]
        let directory = try temporaryDirectory()
        #expect(!ids.isEmpty)
        for id in ids {
            let name = try #require(extensions[id], "no file type for format \(id)")
            let url = URL(fileURLWithPath: directory + "/encoded.\(name)")
            let settings: [String: Any] = [AVFormatIDKey: id, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1]
            do {
                let file = try AVAudioFile(forWriting: url, settings: settings)
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_800))
                buffer.frameLength = 4_800
                for index in 0..<4_800 { buffer.floatChannelData![0][index] = 0.5 * sin(Float(index) * 0.05) }
                try file.write(from: buffer)
            }
            var fileID: AudioFileID?
            #expect(AudioFileOpenURL(url, .readPermission, 0, &fileID) == noErr)
            var format = AudioStreamBasicDescription()
            var formatSize = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            #expect(AudioFileGetProperty(fileID!, kAudioFilePropertyDataFormat, &formatSize, &format) == noErr)
            #expect(format.mFormatID == id, "\(name): read back as \(format.mFormatID)")
            AudioFileClose(fileID!)
            // And decodable: every encodable format is in the decode list.
            var decodeSize: UInt32 = 0
            AudioFormatGetPropertyInfo(kAudioFormatProperty_DecodeFormatIDs, 0, nil, &decodeSize)
            var decoders = [AudioFormatID](repeating: 0, count: Int(decodeSize) / 4)
            AudioFormatGetProperty(kAudioFormatProperty_DecodeFormatIDs, 0, nil, &decodeSize, &decoders)
            #expect(decoders.contains(id))
        }
    }

    /// AVEncoderBitRateStrategyKey reaches LAME: a constant-rate MP3 carries LAME's "Info" frame, a
    /// variable one its "Xing" frame (LAME's convention for the first frame of each).
    @Test(arguments: [(AVAudioBitRateStrategy_Constant, "Info"), (AVAudioBitRateStrategy_Variable, "Xing")])
    func everyMP3IsWrittenWithTheBitRateStrategyAsked(_ strategy: String, _ tag: String) throws {
        let url = URL(fileURLWithPath: try temporaryDirectory() + "/strategy.mp3")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatMPEGLayer3, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1,
                                       AVEncoderBitRateStrategyKey: strategy]
        do {
            let file = try AVAudioFile(forWriting: url, settings: settings)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 44_100))
            buffer.frameLength = 44_100
            for index in 0..<44_100 { buffer.floatChannelData![0][index] = 0.5 * sin(Float(index) * 0.05) * Float(index % 7_000) / 7_000 }
            try file.write(from: buffer)
        }
        let head = try Data(contentsOf: url).prefix(4_096)
        #expect(head.range(of: Data(tag.utf8)) != nil, "no \(tag) frame in an MP3 written with \(strategy)")
    }

    @Test func aPortersMistakesGetStatusesNotCrashes() throws {
        var size: UInt32 = 4
        var value: UInt32 = 0
        // No specifier where one is needed; a short one; an unsupported property; a name (a CFString).
        #expect(AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutForTag, 0, nil, &size, &value) == kAudioFormatBadSpecifierSizeError)
        var tag = kAudioChannelLayoutTag_Stereo
        #expect(AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutForTag, 2, &tag, &size, &value) == kAudioFormatBadSpecifierSizeError)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatName, 0, nil, &size, &value) == kAudioFormatUnsupportedPropertyError)
        // A layout too big for the buffer: refused whole, nothing written.
        value = 7
        #expect(AudioFormatGetProperty(kAudioFormatProperty_ChannelLayoutForTag, 4, &tag, &size, &value) == kAudioFormatBadPropertySizeError)
        #expect(value == 7)
        // A list: as many whole items as fit.
        var two: [AudioFormatID] = [0, 0, 0]
        size = 9
        #expect(AudioFormatGetProperty(kAudioFormatProperty_EncodeFormatIDs, 0, nil, &size, &two) == noErr)
        #expect(size == 8 && two[2] == 0 && two[0] == kAudioFormatLinearPCM)
        // A layout saying it has more descriptions than its bytes hold; a huge count of discrete channels.
        var lying = [UInt32](repeating: 0, count: 8)
        lying[0] = kAudioChannelLayoutTag_UseChannelDescriptions
        lying[2] = 1_000_000
        size = 4
        #expect(AudioFormatGetProperty(kAudioFormatProperty_TagForChannelLayout, 32, &lying, &size, &value) == kAudioFormatUnknownFormatError)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_ValidateChannelLayout, 32, &lying, nil, nil) == kAudioFormatUnknownFormatError)
        #expect(Self.channels(of: kAudioChannelLayoutTag_DiscreteInOrder | 0xFFFF).1.count == 0xFFFF)
        // Equivalence with a nil pointer in the pair; FormatInfo of an ID no one knows, and of 0-bit PCM.
        var pair: [UnsafeRawPointer?] = [nil, nil]
        #expect(AudioFormatGetProperty(kAudioFormatProperty_AreChannelLayoutsEquivalent, 16, &pair, &size, &value) == kAudio_ParamError)
        var unknown = AudioStreamBasicDescription()
        unknown.mFormatID = 0x7A7A_7A7A
        var formatSize = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &formatSize, &unknown) == kAudioFormatUnknownFormatError)
        unknown.mFormatID = kAudioFormatLinearPCM
        #expect(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, nil, &formatSize, &unknown) == kAudioFormatUnknownFormatError)
        // AVFAudio: a layout's bytes too short in settings; formats made with layouts of odd rates do not trap.
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2,
                                       AVChannelLayoutKey: Data([1, 2, 3])]
        #expect(AVAudioFormat(settings: settings) == nil)
        let stereo = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!
        for rate in [Double.nan, -1, .infinity, 0] {
            #expect(AVAudioFormat(standardFormatWithSampleRate: rate, channelLayout: stereo).channelCount == 2)
        }
        // A layout with channels that do not match the description's.
        var mono = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM, mFormatFlags: kAudioFormatFlagsNativeFloatPacked,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 1,
                                               mBitsPerChannel: 32, mReserved: 0)
        #expect(AVAudioFormat(streamDescription: &mono, channelLayout: stereo) == nil)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo) != AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MatrixStereo))
    }
}

// The channel layout tags' channels in order, as Apple's CoreAudioBaseTypes.h documents each tag, and
// the variable-length AudioChannelLayout structures made of them: tag ↔ channel labels ↔ channel bitmap.

/// Channel layouts by their labels. Pure functions over fixed tables: any thread.
package enum ChannelLayouts {
    /// The header's abbreviations (its comment above the tags), as labels.
    private static let abbreviations: [Substring: AudioChannelLabel] = [
        "L": kAudioChannelLabel_Left, "R": kAudioChannelLabel_Right, "C": kAudioChannelLabel_Center,
        "LFE": kAudioChannelLabel_LFEScreen, "Ls": kAudioChannelLabel_LeftSurround, "Rs": kAudioChannelLabel_RightSurround,
        "Lc": kAudioChannelLabel_LeftCenter, "Rc": kAudioChannelLabel_RightCenter, "Cs": kAudioChannelLabel_CenterSurround,
        "Lsd": kAudioChannelLabel_LeftSurroundDirect, "Rsd": kAudioChannelLabel_RightSurroundDirect,
        "Ts": kAudioChannelLabel_TopCenterSurround, "Vhl": kAudioChannelLabel_VerticalHeightLeft,
        "Vhc": kAudioChannelLabel_VerticalHeightCenter, "Vhr": kAudioChannelLabel_VerticalHeightRight,
        "Tbl": kAudioChannelLabel_TopBackLeft, "Tbr": kAudioChannelLabel_TopBackRight,
        "Rls": kAudioChannelLabel_RearSurroundLeft, "Rrs": kAudioChannelLabel_RearSurroundRight,
        "Lw": kAudioChannelLabel_LeftWide, "Rw": kAudioChannelLabel_RightWide, "LFE2": kAudioChannelLabel_LFE2,
        "Lt": kAudioChannelLabel_LeftTotal, "Rt": kAudioChannelLabel_RightTotal, "HI": kAudioChannelLabel_HearingImpaired,
        "VI": kAudioChannelLabel_Narration, "Mono": kAudioChannelLabel_Mono, "Csd": kAudioChannelLabel_CenterSurroundDirect,
        "Haptic": kAudioChannelLabel_Haptic, "Ltm": kAudioChannelLabel_LeftTopMiddle, "Rtm": kAudioChannelLabel_RightTopMiddle,
        "Ltr": kAudioChannelLabel_LeftTopRear, "Rtr": kAudioChannelLabel_RightTopRear,
        "W": kAudioChannelLabel_Ambisonic_W, "X": kAudioChannelLabel_Ambisonic_X, "Y": kAudioChannelLabel_Ambisonic_Y,
        "Z": kAudioChannelLabel_Ambisonic_Z, "Mid": kAudioChannelLabel_MS_Mid, "Side": kAudioChannelLabel_MS_Side,
        "XY_X": kAudioChannelLabel_XY_X, "XY_Y": kAudioChannelLabel_XY_Y,
    ]

    /// Each tag with a documented order, its channels as the header's comment lists them. Where several
    /// tags hold the same channels, the first listed is the one a layout of those channels is given
    /// (Stereo before ITU_2_0's alias; MPEG before the others). The mono tag's channel is the Mono label.
    private static let documented: [(AudioChannelLayoutTag, String)] = [
        (kAudioChannelLayoutTag_Mono, "Mono"), (kAudioChannelLayoutTag_Stereo, "L R"),
        (kAudioChannelLayoutTag_StereoHeadphones, "L R"), (kAudioChannelLayoutTag_MatrixStereo, "Lt Rt"),
        (kAudioChannelLayoutTag_MidSide, "Mid Side"), (kAudioChannelLayoutTag_XY, "XY_X XY_Y"),
        (kAudioChannelLayoutTag_Binaural, "L R"), (kAudioChannelLayoutTag_Ambisonic_B_Format, "W X Y Z"),
        (kAudioChannelLayoutTag_Quadraphonic, "L R Ls Rs"), (kAudioChannelLayoutTag_Pentagonal, "L R Ls Rs C"),
        (kAudioChannelLayoutTag_Hexagonal, "L R Ls Rs C Cs"), (kAudioChannelLayoutTag_Octagonal, "L R Ls Rs C Cs Lw Rw"),
        (kAudioChannelLayoutTag_Cube, "L R Rls Rrs Vhl Vhr Tbl Tbr"),
        (kAudioChannelLayoutTag_MPEG_3_0_A, "L R C"), (kAudioChannelLayoutTag_MPEG_3_0_B, "C L R"),
        (kAudioChannelLayoutTag_MPEG_4_0_A, "L R C Cs"), (kAudioChannelLayoutTag_MPEG_4_0_B, "C L R Cs"),
        (kAudioChannelLayoutTag_MPEG_5_0_A, "L R C Ls Rs"), (kAudioChannelLayoutTag_MPEG_5_0_B, "L R Ls Rs C"),
        (kAudioChannelLayoutTag_MPEG_5_0_C, "L C R Ls Rs"), (kAudioChannelLayoutTag_MPEG_5_0_D, "C L R Ls Rs"),
        (kAudioChannelLayoutTag_MPEG_5_1_A, "L R C LFE Ls Rs"), (kAudioChannelLayoutTag_MPEG_5_1_B, "L R Ls Rs C LFE"),
        (kAudioChannelLayoutTag_MPEG_5_1_C, "L C R Ls Rs LFE"), (kAudioChannelLayoutTag_MPEG_5_1_D, "C L R Ls Rs LFE"),
        (kAudioChannelLayoutTag_MPEG_6_1_A, "L R C LFE Ls Rs Cs"), (kAudioChannelLayoutTag_MPEG_7_1_A, "L R C LFE Ls Rs Lc Rc"),
        (kAudioChannelLayoutTag_MPEG_7_1_B, "C Lc Rc L R Ls Rs LFE"), (kAudioChannelLayoutTag_MPEG_7_1_C, "L R C LFE Ls Rs Rls Rrs"),
        (kAudioChannelLayoutTag_Emagic_Default_7_1, "L R Ls Rs C LFE Lc Rc"),
        (kAudioChannelLayoutTag_SMPTE_DTV, "L R C LFE Ls Rs Lt Rt"),
        (kAudioChannelLayoutTag_ITU_2_1, "L R Cs"), (kAudioChannelLayoutTag_ITU_2_2, "L R Ls Rs"),
        (kAudioChannelLayoutTag_DVD_4, "L R LFE"), (kAudioChannelLayoutTag_DVD_5, "L R LFE Cs"),
        (kAudioChannelLayoutTag_DVD_6, "L R LFE Ls Rs"), (kAudioChannelLayoutTag_DVD_10, "L R C LFE"),
        (kAudioChannelLayoutTag_DVD_11, "L R C LFE Cs"), (kAudioChannelLayoutTag_DVD_18, "L R Ls Rs LFE"),
        (kAudioChannelLayoutTag_AudioUnit_6_0, "L R Ls Rs C Cs"), (kAudioChannelLayoutTag_AudioUnit_7_0, "L R Ls Rs C Rls Rrs"),
        (kAudioChannelLayoutTag_AudioUnit_7_0_Front, "L R Ls Rs C Lc Rc"),
        (kAudioChannelLayoutTag_AAC_6_0, "C L R Ls Rs Cs"), (kAudioChannelLayoutTag_AAC_6_1, "C L R Ls Rs Cs LFE"),
        (kAudioChannelLayoutTag_AAC_7_0, "C L R Ls Rs Rls Rrs"), (kAudioChannelLayoutTag_AAC_7_1_B, "C L R Ls Rs Rls Rrs LFE"),
        (kAudioChannelLayoutTag_AAC_7_1_C, "C L R Ls Rs LFE Vhl Vhr"), (kAudioChannelLayoutTag_AAC_Octagonal, "C L R Ls Rs Rls Rrs Cs"),
        (kAudioChannelLayoutTag_TMH_10_2_std, "L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE LFE2"),
        (kAudioChannelLayoutTag_TMH_10_2_full, "L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE LFE2 Lc Rc HI VI Haptic"),
        (kAudioChannelLayoutTag_AC3_1_0_1, "C LFE"), (kAudioChannelLayoutTag_AC3_3_0, "L C R"),
        (kAudioChannelLayoutTag_AC3_3_1, "L C R Cs"), (kAudioChannelLayoutTag_AC3_3_0_1, "L C R LFE"),
        (kAudioChannelLayoutTag_AC3_2_1_1, "L R Cs LFE"), (kAudioChannelLayoutTag_AC3_3_1_1, "L C R Cs LFE"),
        (kAudioChannelLayoutTag_EAC_6_0_A, "L C R Ls Rs Cs"), (kAudioChannelLayoutTag_EAC_7_0_A, "L C R Ls Rs Rls Rrs"),
        (kAudioChannelLayoutTag_EAC3_6_1_A, "L C R Ls Rs LFE Cs"), (kAudioChannelLayoutTag_EAC3_6_1_B, "L C R Ls Rs LFE Ts"),
        (kAudioChannelLayoutTag_EAC3_6_1_C, "L C R Ls Rs LFE Vhc"), (kAudioChannelLayoutTag_EAC3_7_1_A, "L C R Ls Rs LFE Rls Rrs"),
        (kAudioChannelLayoutTag_EAC3_7_1_B, "L C R Ls Rs LFE Lc Rc"), (kAudioChannelLayoutTag_EAC3_7_1_C, "L C R Ls Rs LFE Lsd Rsd"),
        (kAudioChannelLayoutTag_EAC3_7_1_D, "L C R Ls Rs LFE Lw Rw"), (kAudioChannelLayoutTag_EAC3_7_1_E, "L C R Ls Rs LFE Vhl Vhr"),
        (kAudioChannelLayoutTag_EAC3_7_1_F, "L C R Ls Rs LFE Cs Ts"), (kAudioChannelLayoutTag_EAC3_7_1_G, "L C R Ls Rs LFE Cs Vhc"),
        (kAudioChannelLayoutTag_EAC3_7_1_H, "L C R Ls Rs LFE Ts Vhc"),
        (kAudioChannelLayoutTag_DTS_3_1, "C L R LFE"), (kAudioChannelLayoutTag_DTS_4_1, "C L R Cs LFE"),
        (kAudioChannelLayoutTag_DTS_6_0_A, "Lc Rc L R Ls Rs"), (kAudioChannelLayoutTag_DTS_6_0_B, "C L R Rls Rrs Ts"),
        (kAudioChannelLayoutTag_DTS_6_0_C, "C Cs L R Rls Rrs"), (kAudioChannelLayoutTag_DTS_6_1_A, "Lc Rc L R Ls Rs LFE"),
        (kAudioChannelLayoutTag_DTS_6_1_B, "C L R Rls Rrs Ts LFE"), (kAudioChannelLayoutTag_DTS_6_1_C, "C Cs L R Rls Rrs LFE"),
        (kAudioChannelLayoutTag_DTS_7_0, "Lc C Rc L R Ls Rs"), (kAudioChannelLayoutTag_DTS_7_1, "Lc C Rc L R Ls Rs LFE"),
        (kAudioChannelLayoutTag_DTS_8_0_A, "Lc Rc L R Ls Rs Rls Rrs"), (kAudioChannelLayoutTag_DTS_8_0_B, "Lc C Rc L R Ls Cs Rs"),
        (kAudioChannelLayoutTag_DTS_8_1_A, "Lc Rc L R Ls Rs Rls Rrs LFE"), (kAudioChannelLayoutTag_DTS_8_1_B, "Lc C Rc L R Ls Cs Rs LFE"),
        (kAudioChannelLayoutTag_DTS_6_1_D, "C L R Ls Rs LFE Cs"),
        (kAudioChannelLayoutTag_WAVE_4_0_B, "L R Rls Rrs"), (kAudioChannelLayoutTag_WAVE_5_0_B, "L R C Rls Rrs"),
        (kAudioChannelLayoutTag_WAVE_5_1_B, "L R C LFE Rls Rrs"), (kAudioChannelLayoutTag_WAVE_6_1, "L R C LFE Cs Ls Rs"),
        (kAudioChannelLayoutTag_WAVE_7_1, "L R C LFE Rls Rrs Ls Rs"),
        (kAudioChannelLayoutTag_Atmos_5_1_2, "L R C LFE Ls Rs Ltm Rtm"),
        (kAudioChannelLayoutTag_Atmos_7_1_4, "L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr"),
        (kAudioChannelLayoutTag_Atmos_9_1_6, "L R C LFE Ls Rs Rls Rrs Lw Rw Vhl Vhr Ltm Rtm Ltr Rtr"),
        (kAudioChannelLayoutTag_Logic_4_0_C, "L R Cs C"), (kAudioChannelLayoutTag_Logic_6_0_B, "L R Ls Rs Cs C"),
        (kAudioChannelLayoutTag_Logic_6_1_B, "L R Ls Rs Cs C LFE"), (kAudioChannelLayoutTag_Logic_6_1_D, "L C R Ls Cs Rs LFE"),
        (kAudioChannelLayoutTag_Logic_7_1_B, "L R Ls Rs Rls Rrs C LFE"), (kAudioChannelLayoutTag_CICP_14, "L R C LFE Ls Rs Vhl Vhr"),
        (kAudioChannelLayoutTag_Ogg_5_0, "L C R Rls Rrs"), (kAudioChannelLayoutTag_Ogg_5_1, "L C R Rls Rrs LFE"),
        (kAudioChannelLayoutTag_Ogg_6_1, "L C R Ls Rs Cs LFE"), (kAudioChannelLayoutTag_Ogg_7_1, "L C R Ls Rs Rls Rrs LFE"),
    ]

    private static let byTag: [AudioChannelLayoutTag: [AudioChannelLabel]] = Dictionary(
        documented.map { ($0.0, $0.1.split(separator: " ").map { abbreviations[$0]! }) }, uniquingKeysWith: { first, _ in first })

    /// Every tag with a documented order, each once, in the header's order.
    package static let tags: [AudioChannelLayoutTag] = {
        var seen = Set<AudioChannelLayoutTag>()
        return documented.map(\.0).filter { seen.insert($0).inserted }
    }()

    /// The channels `tag` holds, in order: its documented ones; for DiscreteInOrder | n, Discrete_0…n−1;
    /// for the two Ambisonics tags | n, ACN 0…n−1. Nil for a tag with no order known here.
    package static func labels(forTag tag: AudioChannelLayoutTag) -> [AudioChannelLabel]? {
        let count = tag & 0xFFFF, family = tag & 0xFFFF_0000
        switch family {
        case kAudioChannelLayoutTag_DiscreteInOrder:
            return (0..<count).map { kAudioChannelLabel_Discrete_0 | $0 }
        case kAudioChannelLayoutTag_HOA_ACN_SN3D, kAudioChannelLayoutTag_HOA_ACN_N3D:
            return (0..<count).map { kAudioChannelLabel_HOA_ACN_0 | $0 }
        default:
            return byTag[tag]
        }
    }

    /// The first documented tag holding exactly `labels` in that order, or DiscreteInOrder for
    /// Discrete_0…n−1; nil if none does.
    package static func tag(forLabels labels: [AudioChannelLabel]) -> AudioChannelLayoutTag? {
        if !labels.isEmpty, labels.count <= 0xFFFF, labels.enumerated().allSatisfy({ $1 == kAudioChannelLabel_Discrete_0 | UInt32($0) }) {
            return kAudioChannelLayoutTag_DiscreteInOrder | UInt32(labels.count)
        }
        return tags.first { byTag[$0] == labels }
    }

    /// The bitmap bit of a label: labels Left (1) to TopBackRight (18) are bits 0 to 17, as Apple's
    /// AudioChannelBitmap numbers them; nil for any other.
    private static func bit(_ label: AudioChannelLabel) -> UInt32? {
        (kAudioChannelLabel_Left...kAudioChannelLabel_TopBackRight).contains(label) ? 1 << (label - 1) : nil
    }

    /// The bitmap of `labels`, if each has a bit and they are in bit order (as a bitmap can only say).
    package static func bitmap(forLabels labels: [AudioChannelLabel]) -> UInt32? {
        let bits = labels.compactMap(bit)
        guard bits.count == labels.count, bits == bits.sorted(), Set(bits).count == bits.count else { return nil }
        return bits.reduce(0, |)
    }

    /// The labels a bitmap names, in bit order (bits above 17 name nothing and are ignored).
    package static func labels(forBitmap bitmap: UInt32) -> [AudioChannelLabel] {
        (0..<18).filter { bitmap & (1 << $0) != 0 }.map { $0 + 1 }
    }

    // MARK: The structure

    /// Where the descriptions start, and each one's size: the structure is 12 bytes and then
    /// mNumberChannelDescriptions descriptions (Apple's layout; Swift's declares room for one).
    package static let descriptionsOffset = MemoryLayout<AudioChannelLayout>.offset(of: \.mChannelDescriptions)!
    package static let descriptionSize = MemoryLayout<AudioChannelDescription>.stride

    /// Bytes a layout of `descriptions` descriptions takes (never less than Swift's structure).
    package static func byteSize(descriptions: Int) -> Int {
        max(MemoryLayout<AudioChannelLayout>.size, descriptionsOffset + descriptions * descriptionSize)
    }

    /// The channels `layout` names, its tag, bitmap or descriptions read (no more descriptions than
    /// `size` bytes hold); nil for a tag with no order known, or descriptions beyond `size`.
    package static func labels(of layout: UnsafeRawPointer, size: Int) -> [AudioChannelLabel]? {
        guard size >= descriptionsOffset else { return nil }
        let tag = layout.loadUnaligned(as: AudioChannelLayoutTag.self)
        switch tag {
        case kAudioChannelLayoutTag_UseChannelDescriptions:
            let count = Int(layout.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard count <= (size - descriptionsOffset) / descriptionSize else { return nil }
            return (0..<count).map {
                layout.loadUnaligned(fromByteOffset: descriptionsOffset + $0 * descriptionSize, as: AudioChannelLabel.self)
            }
        case kAudioChannelLayoutTag_UseChannelBitmap:
            return labels(forBitmap: layout.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        default:
            return labels(forTag: tag)
        }
    }

    /// The channels `layout` has: its descriptions' count, its bitmap's bits, or its tag's low 16 bits.
    package static func channelCount(of layout: UnsafeRawPointer, size: Int) -> UInt32? {
        guard size >= descriptionsOffset else { return nil }
        let tag = layout.loadUnaligned(as: AudioChannelLayoutTag.self)
        switch tag {
        case kAudioChannelLayoutTag_UseChannelDescriptions: return layout.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        case kAudioChannelLayoutTag_UseChannelBitmap: return UInt32(labels(forBitmap: layout.loadUnaligned(fromByteOffset: 4, as: UInt32.self)).count)
        default: return tag & 0xFFFF
        }
    }

    /// The bytes of a layout describing `labels` one description each (flags and coordinates zero).
    package static func bytes(describing labels: [AudioChannelLabel]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteSize(descriptions: labels.count))
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: kAudioChannelLayoutTag_UseChannelDescriptions, as: UInt32.self)
            raw.storeBytes(of: UInt32(labels.count), toByteOffset: 8, as: UInt32.self)
            for (index, label) in labels.enumerated() {
                raw.storeBytes(of: label, toByteOffset: descriptionsOffset + index * descriptionSize, as: UInt32.self)
            }
        }
        return bytes
    }
}

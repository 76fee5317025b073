// Channel layouts as CoreAudioBaseTypes.h declares them: labels, bitmaps, layout tags ((index << 16) | channel count),
// AudioChannelDescription / AudioChannelLayout, and AudioFormatListItem.
#ifndef OPEN_AUDIO_CHANNEL_LAYOUT_H
#define OPEN_AUDIO_CHANNEL_LAYOUT_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

typedef uint32_t AudioChannelLabel;
typedef uint32_t AudioChannelLayoutTag;

// CoreAudioBaseTypes.h: CF_ENUM(AudioChannelLabel)  →  Swift: AudioChannelLabel (=UInt32)
OAT_ENUM(AudioChannelLabel) {
    kAudioChannelLabel_Unknown              = 0xFFFFFFFF,
    kAudioChannelLabel_Unused               = 0,
    kAudioChannelLabel_UseCoordinates       = 100,
    kAudioChannelLabel_Left                 = 1,
    kAudioChannelLabel_Right                = 2,
    kAudioChannelLabel_Center               = 3,
    kAudioChannelLabel_LFEScreen            = 4,
    kAudioChannelLabel_LeftSurround         = 5,
    kAudioChannelLabel_RightSurround        = 6,
    kAudioChannelLabel_LeftCenter           = 7,
    kAudioChannelLabel_RightCenter          = 8,
    kAudioChannelLabel_CenterSurround       = 9,
    kAudioChannelLabel_LeftSurroundDirect   = 10,
    kAudioChannelLabel_RightSurroundDirect  = 11,
    kAudioChannelLabel_TopCenterSurround    = 12,
    kAudioChannelLabel_VerticalHeightLeft   = 13,
    kAudioChannelLabel_VerticalHeightCenter = 14,
    kAudioChannelLabel_VerticalHeightRight  = 15,
    kAudioChannelLabel_TopBackLeft          = 16,
    kAudioChannelLabel_TopBackCenter        = 17,
    kAudioChannelLabel_TopBackRight         = 18,
    kAudioChannelLabel_RearSurroundLeft     = 33,
    kAudioChannelLabel_RearSurroundRight    = 34,
    kAudioChannelLabel_LeftWide             = 35,
    kAudioChannelLabel_RightWide            = 36,
    kAudioChannelLabel_LFE2                 = 37,
    kAudioChannelLabel_LeftTotal            = 38,
    kAudioChannelLabel_RightTotal           = 39,
    kAudioChannelLabel_HearingImpaired      = 40,
    kAudioChannelLabel_Narration            = 41,
    kAudioChannelLabel_Mono                 = 42,
    kAudioChannelLabel_DialogCentricMix     = 43,
    kAudioChannelLabel_CenterSurroundDirect = 44,
    kAudioChannelLabel_Haptic               = 45,
    kAudioChannelLabel_LeftTopFront         = kAudioChannelLabel_VerticalHeightLeft, // 0xD (13)
    kAudioChannelLabel_CenterTopFront       = kAudioChannelLabel_VerticalHeightCenter, // 0xE (14)
    kAudioChannelLabel_RightTopFront        = kAudioChannelLabel_VerticalHeightRight, // 0xF (15)
    kAudioChannelLabel_LeftTopMiddle        = 49,
    kAudioChannelLabel_CenterTopMiddle      = kAudioChannelLabel_TopCenterSurround, // 0xC (12)
    kAudioChannelLabel_RightTopMiddle       = 51,
    kAudioChannelLabel_LeftTopRear          = 52,
    kAudioChannelLabel_CenterTopRear        = 53,
    kAudioChannelLabel_RightTopRear         = 54,
    kAudioChannelLabel_LeftSideSurround     = 55,                 // not in 11.3 SDK
    kAudioChannelLabel_RightSideSurround    = 56,                 // not in 11.3 SDK
    kAudioChannelLabel_LeftBottom           = 57,                 // not in 11.3 SDK
    kAudioChannelLabel_RightBottom          = 58,                 // not in 11.3 SDK
    kAudioChannelLabel_CenterBottom         = 59,                 // not in 11.3 SDK
    kAudioChannelLabel_LeftTopSurround      = 60,                 // not in 11.3 SDK
    kAudioChannelLabel_RightTopSurround     = 61,                 // not in 11.3 SDK
    kAudioChannelLabel_LFE3                 = 62,                 // not in 11.3 SDK
    kAudioChannelLabel_LeftBackSurround     = 63,                 // not in 11.3 SDK
    kAudioChannelLabel_RightBackSurround    = 64,                 // not in 11.3 SDK
    kAudioChannelLabel_LeftEdgeOfScreen     = 65,                 // not in 11.3 SDK
    kAudioChannelLabel_RightEdgeOfScreen    = 66,                 // not in 11.3 SDK
    kAudioChannelLabel_Ambisonic_W          = 200,
    kAudioChannelLabel_Ambisonic_X          = 201,
    kAudioChannelLabel_Ambisonic_Y          = 202,
    kAudioChannelLabel_Ambisonic_Z          = 203,
    kAudioChannelLabel_MS_Mid               = 204,
    kAudioChannelLabel_MS_Side              = 205,
    kAudioChannelLabel_XY_X                 = 206,
    kAudioChannelLabel_XY_Y                 = 207,
    kAudioChannelLabel_BinauralLeft         = 208,
    kAudioChannelLabel_BinauralRight        = 209,
    kAudioChannelLabel_HeadphonesLeft       = 301,
    kAudioChannelLabel_HeadphonesRight      = 302,
    kAudioChannelLabel_ClickTrack           = 304,
    kAudioChannelLabel_ForeignLanguage      = 305,
    kAudioChannelLabel_Discrete             = 400,
    kAudioChannelLabel_Discrete_0           = (1U<<16) | 0,       // 0x00010000
    kAudioChannelLabel_Discrete_1           = (1U<<16) | 1,       // 0x00010001
    kAudioChannelLabel_Discrete_2           = (1U<<16) | 2,       // 0x00010002
    kAudioChannelLabel_Discrete_3           = (1U<<16) | 3,       // 0x00010003
    kAudioChannelLabel_Discrete_4           = (1U<<16) | 4,       // 0x00010004
    kAudioChannelLabel_Discrete_5           = (1U<<16) | 5,       // 0x00010005
    kAudioChannelLabel_Discrete_6           = (1U<<16) | 6,       // 0x00010006
    kAudioChannelLabel_Discrete_7           = (1U<<16) | 7,       // 0x00010007
    kAudioChannelLabel_Discrete_8           = (1U<<16) | 8,       // 0x00010008
    kAudioChannelLabel_Discrete_9           = (1U<<16) | 9,       // 0x00010009
    kAudioChannelLabel_Discrete_10          = (1U<<16) | 10,      // 0x0001000A
    kAudioChannelLabel_Discrete_11          = (1U<<16) | 11,      // 0x0001000B
    kAudioChannelLabel_Discrete_12          = (1U<<16) | 12,      // 0x0001000C
    kAudioChannelLabel_Discrete_13          = (1U<<16) | 13,      // 0x0001000D
    kAudioChannelLabel_Discrete_14          = (1U<<16) | 14,      // 0x0001000E
    kAudioChannelLabel_Discrete_15          = (1U<<16) | 15,      // 0x0001000F
    kAudioChannelLabel_Discrete_65535       = (1U<<16) | 65535,   // 0x0001FFFF
    kAudioChannelLabel_HOA_ACN              = 500,
    kAudioChannelLabel_HOA_ACN_0            = (2U << 16) | 0,     // 0x00020000
    kAudioChannelLabel_HOA_ACN_1            = (2U << 16) | 1,     // 0x00020001
    kAudioChannelLabel_HOA_ACN_2            = (2U << 16) | 2,     // 0x00020002
    kAudioChannelLabel_HOA_ACN_3            = (2U << 16) | 3,     // 0x00020003
    kAudioChannelLabel_HOA_ACN_4            = (2U << 16) | 4,     // 0x00020004
    kAudioChannelLabel_HOA_ACN_5            = (2U << 16) | 5,     // 0x00020005
    kAudioChannelLabel_HOA_ACN_6            = (2U << 16) | 6,     // 0x00020006
    kAudioChannelLabel_HOA_ACN_7            = (2U << 16) | 7,     // 0x00020007
    kAudioChannelLabel_HOA_ACN_8            = (2U << 16) | 8,     // 0x00020008
    kAudioChannelLabel_HOA_ACN_9            = (2U << 16) | 9,     // 0x00020009
    kAudioChannelLabel_HOA_ACN_10           = (2U << 16) | 10,    // 0x0002000A
    kAudioChannelLabel_HOA_ACN_11           = (2U << 16) | 11,    // 0x0002000B
    kAudioChannelLabel_HOA_ACN_12           = (2U << 16) | 12,    // 0x0002000C
    kAudioChannelLabel_HOA_ACN_13           = (2U << 16) | 13,    // 0x0002000D
    kAudioChannelLabel_HOA_ACN_14           = (2U << 16) | 14,    // 0x0002000E
    kAudioChannelLabel_HOA_ACN_15           = (2U << 16) | 15,    // 0x0002000F
    kAudioChannelLabel_HOA_ACN_65024        = (2U << 16) | 65024, // 0x0002FE00
    kAudioChannelLabel_HOA_SN3D             = kAudioChannelLabel_HOA_ACN_0, // 0x00020000, not in 11.3 SDK
    kAudioChannelLabel_HOA_N3D              = (3U << 16),         // 0x00030000, not in 11.3 SDK
    kAudioChannelLabel_Object               = (4U << 16),         // 0x00040000, not in 11.3 SDK
    kAudioChannelLabel_BeginReserved        = 0xF0000000,
    kAudioChannelLabel_EndReserved          = 0xFFFFFFFE,
};

// CoreAudioBaseTypes.h: typedef CF_OPTIONS(UInt32, AudioChannelBitmap)  →  Swift: OptionSet struct AudioChannelBitmap (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioChannelBitmap) {
    kAudioChannelBit_Left                 = (1U<<0),            // 0x00000001
    kAudioChannelBit_Right                = (1U<<1),            // 0x00000002
    kAudioChannelBit_Center               = (1U<<2),            // 0x00000004
    kAudioChannelBit_LFEScreen            = (1U<<3),            // 0x00000008
    kAudioChannelBit_LeftSurround         = (1U<<4),            // 0x00000010
    kAudioChannelBit_RightSurround        = (1U<<5),            // 0x00000020
    kAudioChannelBit_LeftCenter           = (1U<<6),            // 0x00000040
    kAudioChannelBit_RightCenter          = (1U<<7),            // 0x00000080
    kAudioChannelBit_CenterSurround       = (1U<<8),            // 0x00000100
    kAudioChannelBit_LeftSurroundDirect   = (1U<<9),            // 0x00000200
    kAudioChannelBit_RightSurroundDirect  = (1U<<10),           // 0x00000400
    kAudioChannelBit_TopCenterSurround    = (1U<<11),           // 0x00000800
    kAudioChannelBit_VerticalHeightLeft   = (1U<<12),           // 0x00001000
    kAudioChannelBit_VerticalHeightCenter = (1U<<13),           // 0x00002000
    kAudioChannelBit_VerticalHeightRight  = (1U<<14),           // 0x00004000
    kAudioChannelBit_TopBackLeft          = (1U<<15),           // 0x00008000
    kAudioChannelBit_TopBackCenter        = (1U<<16),           // 0x00010000
    kAudioChannelBit_TopBackRight         = (1U<<17),           // 0x00020000
    kAudioChannelBit_LeftTopFront         = kAudioChannelBit_VerticalHeightLeft, // 0x1000 (4096)
    kAudioChannelBit_CenterTopFront       = kAudioChannelBit_VerticalHeightCenter, // 0x2000 (8192)
    kAudioChannelBit_RightTopFront        = kAudioChannelBit_VerticalHeightRight, // 0x4000 (16384)
    kAudioChannelBit_LeftTopMiddle        = (1U<<21),           // 0x00200000
    kAudioChannelBit_CenterTopMiddle      = kAudioChannelBit_TopCenterSurround, // 0x800 (2048)
    kAudioChannelBit_RightTopMiddle       = (1U<<23),           // 0x00800000
    kAudioChannelBit_LeftTopRear          = (1U<<24),           // 0x01000000
    kAudioChannelBit_CenterTopRear        = (1U<<25),           // 0x02000000
    kAudioChannelBit_RightTopRear         = (1U<<26),           // 0x04000000
};

// CoreAudioBaseTypes.h: typedef CF_OPTIONS(UInt32, AudioChannelFlags)  →  Swift: OptionSet struct AudioChannelFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioChannelFlags) {
    kAudioChannelFlags_AllOff                 = 0,
    kAudioChannelFlags_RectangularCoordinates = (1U<<0),            // 0x00000001
    kAudioChannelFlags_SphericalCoordinates   = (1U<<1),            // 0x00000002
    kAudioChannelFlags_Meters                 = (1U<<2),            // 0x00000004
};

// CoreAudioBaseTypes.h: typedef CF_ENUM(UInt32, AudioChannelCoordinateIndex)  →  Swift: enum AudioChannelCoordinateIndex: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioChannelCoordinateIndex) {
    kAudioChannelCoordinates_LeftRight = 0,
    kAudioChannelCoordinates_BackFront = 1,
    kAudioChannelCoordinates_DownUp    = 2,
    kAudioChannelCoordinates_Azimuth   = 0,
    kAudioChannelCoordinates_Elevation = 1,
    kAudioChannelCoordinates_Distance  = 2,
};

// CoreAudioBaseTypes.h: CF_ENUM(AudioChannelLayoutTag)  →  Swift: AudioChannelLayoutTag (=UInt32)
OAT_ENUM(AudioChannelLayoutTag) {
    kAudioChannelLayoutTag_UseChannelDescriptions = (0U<<16) | 0,       // 0x00000000
    kAudioChannelLayoutTag_UseChannelBitmap       = (1U<<16) | 0,       // 0x00010000
    kAudioChannelLayoutTag_Mono                   = (100U<<16) | 1,     // 0x00640001
    kAudioChannelLayoutTag_Stereo                 = (101U<<16) | 2,     // 0x00650002
    kAudioChannelLayoutTag_StereoHeadphones       = (102U<<16) | 2,     // 0x00660002
    kAudioChannelLayoutTag_MatrixStereo           = (103U<<16) | 2,     // 0x00670002
    kAudioChannelLayoutTag_MidSide                = (104U<<16) | 2,     // 0x00680002
    kAudioChannelLayoutTag_XY                     = (105U<<16) | 2,     // 0x00690002
    kAudioChannelLayoutTag_Binaural               = (106U<<16) | 2,     // 0x006A0002
    kAudioChannelLayoutTag_Ambisonic_B_Format     = (107U<<16) | 4,     // 0x006B0004
    kAudioChannelLayoutTag_Quadraphonic           = (108U<<16) | 4,     // 0x006C0004
    kAudioChannelLayoutTag_Pentagonal             = (109U<<16) | 5,     // 0x006D0005
    kAudioChannelLayoutTag_Hexagonal              = (110U<<16) | 6,     // 0x006E0006
    kAudioChannelLayoutTag_Octagonal              = (111U<<16) | 8,     // 0x006F0008
    kAudioChannelLayoutTag_Cube                   = (112U<<16) | 8,     // 0x00700008
    kAudioChannelLayoutTag_MPEG_1_0               = kAudioChannelLayoutTag_Mono, // 0x00640001
    kAudioChannelLayoutTag_MPEG_2_0               = kAudioChannelLayoutTag_Stereo, // 0x00650002
    kAudioChannelLayoutTag_MPEG_3_0_A             = (113U<<16) | 3,     // 0x00710003
    kAudioChannelLayoutTag_MPEG_3_0_B             = (114U<<16) | 3,     // 0x00720003
    kAudioChannelLayoutTag_MPEG_4_0_A             = (115U<<16) | 4,     // 0x00730004
    kAudioChannelLayoutTag_MPEG_4_0_B             = (116U<<16) | 4,     // 0x00740004
    kAudioChannelLayoutTag_MPEG_5_0_A             = (117U<<16) | 5,     // 0x00750005
    kAudioChannelLayoutTag_MPEG_5_0_B             = (118U<<16) | 5,     // 0x00760005
    kAudioChannelLayoutTag_MPEG_5_0_C             = (119U<<16) | 5,     // 0x00770005
    kAudioChannelLayoutTag_MPEG_5_0_D             = (120U<<16) | 5,     // 0x00780005
    kAudioChannelLayoutTag_MPEG_5_1_A             = (121U<<16) | 6,     // 0x00790006
    kAudioChannelLayoutTag_MPEG_5_1_B             = (122U<<16) | 6,     // 0x007A0006
    kAudioChannelLayoutTag_MPEG_5_1_C             = (123U<<16) | 6,     // 0x007B0006
    kAudioChannelLayoutTag_MPEG_5_1_D             = (124U<<16) | 6,     // 0x007C0006
    kAudioChannelLayoutTag_MPEG_6_1_A             = (125U<<16) | 7,     // 0x007D0007
    kAudioChannelLayoutTag_MPEG_7_1_A             = (126U<<16) | 8,     // 0x007E0008
    kAudioChannelLayoutTag_MPEG_7_1_B             = (127U<<16) | 8,     // 0x007F0008
    kAudioChannelLayoutTag_MPEG_7_1_C             = (128U<<16) | 8,     // 0x00800008
    kAudioChannelLayoutTag_Emagic_Default_7_1     = (129U<<16) | 8,     // 0x00810008
    kAudioChannelLayoutTag_SMPTE_DTV              = (130U<<16) | 8,     // 0x00820008
    kAudioChannelLayoutTag_ITU_1_0                = kAudioChannelLayoutTag_Mono, // 0x00640001
    kAudioChannelLayoutTag_ITU_2_0                = kAudioChannelLayoutTag_Stereo, // 0x00650002
    kAudioChannelLayoutTag_ITU_2_1                = (131U<<16) | 3,     // 0x00830003
    kAudioChannelLayoutTag_ITU_2_2                = (132U<<16) | 4,     // 0x00840004
    kAudioChannelLayoutTag_ITU_3_0                = kAudioChannelLayoutTag_MPEG_3_0_A, // 0x00710003
    kAudioChannelLayoutTag_ITU_3_1                = kAudioChannelLayoutTag_MPEG_4_0_A, // 0x00730004
    kAudioChannelLayoutTag_ITU_3_2                = kAudioChannelLayoutTag_MPEG_5_0_A, // 0x00750005
    kAudioChannelLayoutTag_ITU_3_2_1              = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006
    kAudioChannelLayoutTag_ITU_3_4_1              = kAudioChannelLayoutTag_MPEG_7_1_C, // 0x00800008
    kAudioChannelLayoutTag_DVD_0                  = kAudioChannelLayoutTag_Mono, // 0x00640001
    kAudioChannelLayoutTag_DVD_1                  = kAudioChannelLayoutTag_Stereo, // 0x00650002
    kAudioChannelLayoutTag_DVD_2                  = kAudioChannelLayoutTag_ITU_2_1, // 0x00830003
    kAudioChannelLayoutTag_DVD_3                  = kAudioChannelLayoutTag_ITU_2_2, // 0x00840004
    kAudioChannelLayoutTag_DVD_4                  = (133U<<16) | 3,     // 0x00850003
    kAudioChannelLayoutTag_DVD_5                  = (134U<<16) | 4,     // 0x00860004
    kAudioChannelLayoutTag_DVD_6                  = (135U<<16) | 5,     // 0x00870005
    kAudioChannelLayoutTag_DVD_7                  = kAudioChannelLayoutTag_MPEG_3_0_A, // 0x00710003
    kAudioChannelLayoutTag_DVD_8                  = kAudioChannelLayoutTag_MPEG_4_0_A, // 0x00730004
    kAudioChannelLayoutTag_DVD_9                  = kAudioChannelLayoutTag_MPEG_5_0_A, // 0x00750005
    kAudioChannelLayoutTag_DVD_10                 = (136U<<16) | 4,     // 0x00880004
    kAudioChannelLayoutTag_DVD_11                 = (137U<<16) | 5,     // 0x00890005
    kAudioChannelLayoutTag_DVD_12                 = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006
    kAudioChannelLayoutTag_DVD_13                 = kAudioChannelLayoutTag_DVD_8, // 0x00730004
    kAudioChannelLayoutTag_DVD_14                 = kAudioChannelLayoutTag_DVD_9, // 0x00750005
    kAudioChannelLayoutTag_DVD_15                 = kAudioChannelLayoutTag_DVD_10, // 0x00880004
    kAudioChannelLayoutTag_DVD_16                 = kAudioChannelLayoutTag_DVD_11, // 0x00890005
    kAudioChannelLayoutTag_DVD_17                 = kAudioChannelLayoutTag_DVD_12, // 0x00790006
    kAudioChannelLayoutTag_DVD_18                 = (138U<<16) | 5,     // 0x008A0005
    kAudioChannelLayoutTag_DVD_19                 = kAudioChannelLayoutTag_MPEG_5_0_B, // 0x00760005
    kAudioChannelLayoutTag_DVD_20                 = kAudioChannelLayoutTag_MPEG_5_1_B, // 0x007A0006
    kAudioChannelLayoutTag_AudioUnit_4            = kAudioChannelLayoutTag_Quadraphonic, // 0x006C0004
    kAudioChannelLayoutTag_AudioUnit_5            = kAudioChannelLayoutTag_Pentagonal, // 0x006D0005
    kAudioChannelLayoutTag_AudioUnit_6            = kAudioChannelLayoutTag_Hexagonal, // 0x006E0006
    kAudioChannelLayoutTag_AudioUnit_8            = kAudioChannelLayoutTag_Octagonal, // 0x006F0008
    kAudioChannelLayoutTag_AudioUnit_5_0          = kAudioChannelLayoutTag_MPEG_5_0_B, // 0x00760005
    kAudioChannelLayoutTag_AudioUnit_6_0          = (139U<<16) | 6,     // 0x008B0006
    kAudioChannelLayoutTag_AudioUnit_7_0          = (140U<<16) | 7,     // 0x008C0007
    kAudioChannelLayoutTag_AudioUnit_7_0_Front    = (148U<<16) | 7,     // 0x00940007
    kAudioChannelLayoutTag_AudioUnit_5_1          = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006
    kAudioChannelLayoutTag_AudioUnit_6_1          = kAudioChannelLayoutTag_MPEG_6_1_A, // 0x007D0007
    kAudioChannelLayoutTag_AudioUnit_7_1          = kAudioChannelLayoutTag_MPEG_7_1_C, // 0x00800008
    kAudioChannelLayoutTag_AudioUnit_7_1_Front    = kAudioChannelLayoutTag_MPEG_7_1_A, // 0x007E0008
    kAudioChannelLayoutTag_AAC_3_0                = kAudioChannelLayoutTag_MPEG_3_0_B, // 0x00720003
    kAudioChannelLayoutTag_AAC_Quadraphonic       = kAudioChannelLayoutTag_Quadraphonic, // 0x006C0004
    kAudioChannelLayoutTag_AAC_4_0                = kAudioChannelLayoutTag_MPEG_4_0_B, // 0x00740004
    kAudioChannelLayoutTag_AAC_5_0                = kAudioChannelLayoutTag_MPEG_5_0_D, // 0x00780005
    kAudioChannelLayoutTag_AAC_5_1                = kAudioChannelLayoutTag_MPEG_5_1_D, // 0x007C0006
    kAudioChannelLayoutTag_AAC_6_0                = (141U<<16) | 6,     // 0x008D0006
    kAudioChannelLayoutTag_AAC_6_1                = (142U<<16) | 7,     // 0x008E0007
    kAudioChannelLayoutTag_AAC_7_0                = (143U<<16) | 7,     // 0x008F0007
    kAudioChannelLayoutTag_AAC_7_1                = kAudioChannelLayoutTag_MPEG_7_1_B, // 0x007F0008
    kAudioChannelLayoutTag_AAC_7_1_B              = (183U<<16) | 8,     // 0x00B70008
    kAudioChannelLayoutTag_AAC_7_1_C              = (184U<<16) | 8,     // 0x00B80008
    kAudioChannelLayoutTag_AAC_Octagonal          = (144U<<16) | 8,     // 0x00900008
    kAudioChannelLayoutTag_TMH_10_2_std           = (145U<<16) | 16,    // 0x00910010
    kAudioChannelLayoutTag_TMH_10_2_full          = (146U<<16) | 21,    // 0x00920015
    kAudioChannelLayoutTag_AC3_1_0_1              = (149U<<16) | 2,     // 0x00950002
    kAudioChannelLayoutTag_AC3_3_0                = (150U<<16) | 3,     // 0x00960003
    kAudioChannelLayoutTag_AC3_3_1                = (151U<<16) | 4,     // 0x00970004
    kAudioChannelLayoutTag_AC3_3_0_1              = (152U<<16) | 4,     // 0x00980004
    kAudioChannelLayoutTag_AC3_2_1_1              = (153U<<16) | 4,     // 0x00990004
    kAudioChannelLayoutTag_AC3_3_1_1              = (154U<<16) | 5,     // 0x009A0005
    kAudioChannelLayoutTag_EAC_6_0_A              = (155U<<16) | 6,     // 0x009B0006
    kAudioChannelLayoutTag_EAC_7_0_A              = (156U<<16) | 7,     // 0x009C0007
    kAudioChannelLayoutTag_EAC3_6_1_A             = (157U<<16) | 7,     // 0x009D0007
    kAudioChannelLayoutTag_EAC3_6_1_B             = (158U<<16) | 7,     // 0x009E0007
    kAudioChannelLayoutTag_EAC3_6_1_C             = (159U<<16) | 7,     // 0x009F0007
    kAudioChannelLayoutTag_EAC3_7_1_A             = (160U<<16) | 8,     // 0x00A00008
    kAudioChannelLayoutTag_EAC3_7_1_B             = (161U<<16) | 8,     // 0x00A10008
    kAudioChannelLayoutTag_EAC3_7_1_C             = (162U<<16) | 8,     // 0x00A20008
    kAudioChannelLayoutTag_EAC3_7_1_D             = (163U<<16) | 8,     // 0x00A30008
    kAudioChannelLayoutTag_EAC3_7_1_E             = (164U<<16) | 8,     // 0x00A40008
    kAudioChannelLayoutTag_EAC3_7_1_F             = (165U<<16) | 8,     // 0x00A50008
    kAudioChannelLayoutTag_EAC3_7_1_G             = (166U<<16) | 8,     // 0x00A60008
    kAudioChannelLayoutTag_EAC3_7_1_H             = (167U<<16) | 8,     // 0x00A70008
    kAudioChannelLayoutTag_DTS_3_1                = (168U<<16) | 4,     // 0x00A80004
    kAudioChannelLayoutTag_DTS_4_1                = (169U<<16) | 5,     // 0x00A90005
    kAudioChannelLayoutTag_DTS_6_0_A              = (170U<<16) | 6,     // 0x00AA0006
    kAudioChannelLayoutTag_DTS_6_0_B              = (171U<<16) | 6,     // 0x00AB0006
    kAudioChannelLayoutTag_DTS_6_0_C              = (172U<<16) | 6,     // 0x00AC0006
    kAudioChannelLayoutTag_DTS_6_1_A              = (173U<<16) | 7,     // 0x00AD0007
    kAudioChannelLayoutTag_DTS_6_1_B              = (174U<<16) | 7,     // 0x00AE0007
    kAudioChannelLayoutTag_DTS_6_1_C              = (175U<<16) | 7,     // 0x00AF0007
    kAudioChannelLayoutTag_DTS_7_0                = (176U<<16) | 7,     // 0x00B00007
    kAudioChannelLayoutTag_DTS_7_1                = (177U<<16) | 8,     // 0x00B10008
    kAudioChannelLayoutTag_DTS_8_0_A              = (178U<<16) | 8,     // 0x00B20008
    kAudioChannelLayoutTag_DTS_8_0_B              = (179U<<16) | 8,     // 0x00B30008
    kAudioChannelLayoutTag_DTS_8_1_A              = (180U<<16) | 9,     // 0x00B40009
    kAudioChannelLayoutTag_DTS_8_1_B              = (181U<<16) | 9,     // 0x00B50009
    kAudioChannelLayoutTag_DTS_6_1_D              = (182U<<16) | 7,     // 0x00B60007
    kAudioChannelLayoutTag_WAVE_2_1               = kAudioChannelLayoutTag_DVD_4, // 0x00850003
    kAudioChannelLayoutTag_WAVE_3_0               = kAudioChannelLayoutTag_MPEG_3_0_A, // 0x00710003
    kAudioChannelLayoutTag_WAVE_4_0_A             = kAudioChannelLayoutTag_ITU_2_2, // 0x00840004
    kAudioChannelLayoutTag_WAVE_4_0_B             = (185U<<16) | 4,     // 0x00B90004
    kAudioChannelLayoutTag_WAVE_5_0_A             = kAudioChannelLayoutTag_MPEG_5_0_A, // 0x00750005
    kAudioChannelLayoutTag_WAVE_5_0_B             = (186U<<16) | 5,     // 0x00BA0005
    kAudioChannelLayoutTag_WAVE_5_1_A             = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006
    kAudioChannelLayoutTag_WAVE_5_1_B             = (187U<<16) | 6,     // 0x00BB0006
    kAudioChannelLayoutTag_WAVE_6_1               = (188U<<16) | 7,     // 0x00BC0007
    kAudioChannelLayoutTag_WAVE_7_1               = (189U<<16) | 8,     // 0x00BD0008
    kAudioChannelLayoutTag_HOA_ACN_SN3D           = (190U<<16) | 0,     // 0x00BE0000
    kAudioChannelLayoutTag_HOA_ACN_N3D            = (191U<<16) | 0,     // 0x00BF0000
    kAudioChannelLayoutTag_Atmos_5_1_2            = (194U<<16) | 8,     // 0x00C20008
    kAudioChannelLayoutTag_Atmos_5_1_4            = (195U<<16) | 10,    // 0x00C3000A
    kAudioChannelLayoutTag_Atmos_7_1_2            = (196U<<16) | 10,    // 0x00C4000A
    kAudioChannelLayoutTag_Atmos_7_1_4            = (192U<<16) | 12,    // 0x00C0000C
    kAudioChannelLayoutTag_Atmos_9_1_6            = (193U<<16) | 16,    // 0x00C10010
    kAudioChannelLayoutTag_Logic_Mono             = kAudioChannelLayoutTag_Mono, // 0x00640001, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Stereo           = kAudioChannelLayoutTag_Stereo, // 0x00650002, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Quadraphonic     = kAudioChannelLayoutTag_Quadraphonic, // 0x006C0004, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_4_0_A            = kAudioChannelLayoutTag_MPEG_4_0_A, // 0x00730004, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_4_0_B            = kAudioChannelLayoutTag_MPEG_4_0_B, // 0x00740004, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_4_0_C            = (197U<<16) | 4,     // 0x00C50004, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_0_A            = kAudioChannelLayoutTag_MPEG_5_0_A, // 0x00750005, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_0_B            = kAudioChannelLayoutTag_MPEG_5_0_B, // 0x00760005, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_0_C            = kAudioChannelLayoutTag_MPEG_5_0_C, // 0x00770005, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_0_D            = kAudioChannelLayoutTag_MPEG_5_0_D, // 0x00780005, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_1_A            = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_1_B            = kAudioChannelLayoutTag_MPEG_5_1_B, // 0x007A0006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_1_C            = kAudioChannelLayoutTag_MPEG_5_1_C, // 0x007B0006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_5_1_D            = kAudioChannelLayoutTag_MPEG_5_1_D, // 0x007C0006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_0_A            = kAudioChannelLayoutTag_AAC_6_0, // 0x008D0006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_0_B            = (198U<<16) | 6,     // 0x00C60006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_0_C            = kAudioChannelLayoutTag_AudioUnit_6_0, // 0x008B0006, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_1_A            = kAudioChannelLayoutTag_AAC_6_1, // 0x008E0007, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_1_B            = (199U<<16) | 7,     // 0x00C70007, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_1_C            = kAudioChannelLayoutTag_MPEG_6_1_A, // 0x007D0007, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_6_1_D            = (200U<<16) | 7,     // 0x00C80007, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_A            = kAudioChannelLayoutTag_AudioUnit_7_1, // 0x00800008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_B            = (201U<<16) | 8,     // 0x00C90008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_C            = kAudioChannelLayoutTag_MPEG_7_1_C, // 0x00800008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_SDDS_A       = kAudioChannelLayoutTag_MPEG_7_1_A, // 0x007E0008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_SDDS_B       = kAudioChannelLayoutTag_MPEG_7_1_B, // 0x007F0008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_7_1_SDDS_C       = kAudioChannelLayoutTag_Emagic_Default_7_1, // 0x00810008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_5_1_2      = kAudioChannelLayoutTag_Atmos_5_1_2, // 0x00C20008, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_5_1_4      = kAudioChannelLayoutTag_Atmos_5_1_4, // 0x00C3000A, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_7_1_2      = kAudioChannelLayoutTag_Atmos_7_1_2, // 0x00C4000A, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_7_1_4_A    = kAudioChannelLayoutTag_Atmos_7_1_4, // 0x00C0000C, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_7_1_4_B    = (202U<<16) | 12,    // 0x00CA000C, not in 11.3 SDK
    kAudioChannelLayoutTag_Logic_Atmos_7_1_6      = (203U<<16) | 14,    // 0x00CB000E, not in 11.3 SDK
    kAudioChannelLayoutTag_DiscreteInOrder        = (147U<<16) | 0,     // 0x00930000
    kAudioChannelLayoutTag_CICP_1                 = kAudioChannelLayoutTag_MPEG_1_0, // 0x00640001, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_2                 = kAudioChannelLayoutTag_MPEG_2_0, // 0x00650002, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_3                 = kAudioChannelLayoutTag_MPEG_3_0_A, // 0x00710003, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_4                 = kAudioChannelLayoutTag_MPEG_4_0_A, // 0x00730004, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_5                 = kAudioChannelLayoutTag_MPEG_5_0_A, // 0x00750005, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_6                 = kAudioChannelLayoutTag_MPEG_5_1_A, // 0x00790006, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_7                 = kAudioChannelLayoutTag_MPEG_7_1_B, // 0x007F0008, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_9                 = kAudioChannelLayoutTag_ITU_2_1, // 0x00830003, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_10                = kAudioChannelLayoutTag_ITU_2_2, // 0x00840004, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_11                = kAudioChannelLayoutTag_MPEG_6_1_A, // 0x007D0007, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_12                = kAudioChannelLayoutTag_MPEG_7_1_C, // 0x00800008, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_13                = (204U<<16) | 24,    // 0x00CC0018, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_14                = (205U<<16) | 8,     // 0x00CD0008, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_15                = (206U<<16) | 12,    // 0x00CE000C, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_16                = (207U<<16) | 10,    // 0x00CF000A, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_17                = (208U<<16) | 12,    // 0x00D0000C, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_18                = (209U<<16) | 14,    // 0x00D1000E, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_19                = (210U<<16) | 12,    // 0x00D2000C, not in 11.3 SDK
    kAudioChannelLayoutTag_CICP_20                = (211U<<16) | 14,    // 0x00D3000E, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_3_0                = kAudioChannelLayoutTag_AC3_3_0, // 0x00960003, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_4_0                = kAudioChannelLayoutTag_WAVE_4_0_B, // 0x00B90004, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_5_0                = (212U<<16) | 5,     // 0x00D40005, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_5_1                = (213U<<16) | 6,     // 0x00D50006, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_6_1                = (214U<<16) | 7,     // 0x00D60007, not in 11.3 SDK
    kAudioChannelLayoutTag_Ogg_7_1                = (215U<<16) | 8,     // 0x00D70008, not in 11.3 SDK
    kAudioChannelLayoutTag_BeginReserved          = 0xF0000000,
    kAudioChannelLayoutTag_EndReserved            = 0xFFFEFFFF,
    kAudioChannelLayoutTag_Unknown                = 0xFFFF0000,
};

/// One channel: its label, and (for kAudioChannelLabel_UseCoordinates) a position.
typedef struct AudioChannelDescription {
    AudioChannelLabel mChannelLabel;
    AudioChannelFlags mChannelFlags;
    float mCoordinates[3];
} AudioChannelDescription;

/// A channel layout: a tag, a bitmap (tag kAudioChannelLayoutTag_UseChannelBitmap) or descriptions (tag
/// kAudioChannelLayoutTag_UseChannelDescriptions). Variable length: mNumberChannelDescriptions descriptions.
typedef struct AudioChannelLayout {
    AudioChannelLayoutTag mChannelLayoutTag;
    AudioChannelBitmap mChannelBitmap;
    uint32_t mNumberChannelDescriptions;
    AudioChannelDescription mChannelDescriptions[1];
} AudioChannelLayout;

/// One entry of kAudioFilePropertyFormatList / kAudioFormatProperty_FormatList.
typedef struct AudioFormatListItem {
    AudioStreamBasicDescription mASBD;
    AudioChannelLayoutTag mChannelLayoutTag;
} AudioFormatListItem;

/// The channels a layout tag stands for: its low 16 bits. An inline function, as Apple's CF_INLINE is, so
/// that Swift sees it (`AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_Stereo)` is 2).
static inline uint32_t AudioChannelLayoutTag_GetNumberOfChannels(AudioChannelLayoutTag inLayoutTag) {
    return (uint32_t)(inLayoutTag & 0x0000FFFF);
}

#pragma clang assume_nonnull end

#endif

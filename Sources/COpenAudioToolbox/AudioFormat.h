// Audio Format Services' types and constants as Apple's AudioFormat.h declares them.
#ifndef OPEN_AUDIO_FORMAT_H
#define OPEN_AUDIO_FORMAT_H

#include "CoreAudioTypes.h"
#include "AudioChannelLayout.h"

#pragma clang assume_nonnull begin

typedef uint32_t AudioFormatPropertyID;

// AudioFormat.h: typedef CF_ENUM(UInt32, AudioPanningMode)  →  Swift: enum AudioPanningMode: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioPanningMode) {
    kPanningMode_SoundField         = 3,
    kPanningMode_VectorBasedPanning = 4,
};

// AudioFormat.h: typedef CF_ENUM(UInt32, AudioBalanceFadeType)  →  Swift: enum AudioBalanceFadeType: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioBalanceFadeType) {
    kAudioBalanceFadeType_MaxUnityGain = 0,
    kAudioBalanceFadeType_EqualPower   = 1,
};

// AudioFormat.h: CF_ENUM(AudioFormatPropertyID)  →  Swift: AudioFormatPropertyID (=UInt32)
OAT_ENUM(AudioFormatPropertyID) {
    kAudioFormatProperty_FormatInfo                       = 0x666D7469,         // 'fmti'
    kAudioFormatProperty_FormatName                       = 0x666E616D,         // 'fnam'
    kAudioFormatProperty_EncodeFormatIDs                  = 0x61636F66,         // 'acof'
    kAudioFormatProperty_DecodeFormatIDs                  = 0x61636966,         // 'acif'
    kAudioFormatProperty_FormatList                       = 0x666C7374,         // 'flst'
    kAudioFormatProperty_ASBDFromESDS                     = 0x65737364,         // 'essd'
    kAudioFormatProperty_ChannelLayoutFromESDS            = 0x6573636C,         // 'escl'
    kAudioFormatProperty_OutputFormatList                 = 0x6F666C73,         // 'ofls'
    kAudioFormatProperty_FirstPlayableFormatFromList      = 0x6670666C,         // 'fpfl'
    kAudioFormatProperty_FormatIsVBR                      = 0x66766272,         // 'fvbr'
    kAudioFormatProperty_FormatIsExternallyFramed         = 0x66657866,         // 'fexf'
    kAudioFormatProperty_FormatEmploysDependentPackets    = 0x66646570,         // 'fdep'
    kAudioFormatProperty_FormatIsEncrypted                = 0x63727970,         // 'cryp'
    kAudioFormatProperty_Encoders                         = 0x6176656E,         // 'aven'
    kAudioFormatProperty_Decoders                         = 0x61766465,         // 'avde'
    kAudioFormatProperty_AvailableEncodeBitRates          = 0x61656272,         // 'aebr'
    kAudioFormatProperty_AvailableEncodeSampleRates       = 0x61657372,         // 'aesr'
    kAudioFormatProperty_AvailableEncodeChannelLayoutTags = 0x6165636C,         // 'aecl'
    kAudioFormatProperty_AvailableEncodeNumberChannels    = 0x61766E63,         // 'avnc'
    kAudioFormatProperty_AvailableDecodeNumberChannels    = 0x61646E63,         // 'adnc'
    kAudioFormatProperty_ASBDFromMPEGPacket               = 0x61646D70,         // 'admp'
    kAudioFormatProperty_BitmapForLayoutTag               = 0x626D7467,         // 'bmtg'
    kAudioFormatProperty_MatrixMixMap                     = 0x6D6D6170,         // 'mmap'
    kAudioFormatProperty_ChannelMap                       = 0x63686D70,         // 'chmp'
    kAudioFormatProperty_NumberOfChannelsForLayout        = 0x6E63686D,         // 'nchm'
    kAudioFormatProperty_AreChannelLayoutsEquivalent      = 0x63686571,         // 'cheq'
    kAudioFormatProperty_ChannelLayoutHash                = 0x63686861,         // 'chha'
    kAudioFormatProperty_ValidateChannelLayout            = 0x7661636C,         // 'vacl'
    kAudioFormatProperty_ChannelLayoutForTag              = 0x636D706C,         // 'cmpl'
    kAudioFormatProperty_TagForChannelLayout              = 0x636D7074,         // 'cmpt'
    kAudioFormatProperty_ChannelLayoutName                = 0x6C6F6E6D,         // 'lonm'
    kAudioFormatProperty_ChannelLayoutSimpleName          = 0x6C736E6D,         // 'lsnm'
    kAudioFormatProperty_ChannelLayoutForBitmap           = 0x636D7062,         // 'cmpb'
    kAudioFormatProperty_ChannelName                      = 0x636E616D,         // 'cnam'
    kAudioFormatProperty_ChannelShortName                 = 0x63736E6D,         // 'csnm'
    kAudioFormatProperty_TagsForNumberOfChannels          = 0x74616763,         // 'tagc'
    kAudioFormatProperty_PanningMatrix                    = 0x70616E6D,         // 'panm'
    kAudioFormatProperty_BalanceFade                      = 0x62616C66,         // 'balf'
    kAudioFormatProperty_ID3TagSize                       = 0x69643373,         // 'id3s'
    kAudioFormatProperty_ID3TagToDictionary               = 0x69643364,         // 'id3d'
};

// AudioFormat.h: CF_ENUM(AudioFormatPropertyID)  →  Swift: AudioFormatPropertyID (=UInt32)
OAT_ENUM(AudioFormatPropertyID) {
    kAudioFormatProperty_HardwareCodecCapabilities = 0x68776363,         // 'hwcc', iOS only
};

// AudioFormat.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioDecoderComponentType = 0x61646563,         // 'adec', iOS only
    kAudioEncoderComponentType = 0x61656E63,         // 'aenc', iOS only
};

// AudioFormat.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAppleSoftwareAudioCodecManufacturer = 0x6170706C,         // 'appl', iOS only
    kAppleHardwareAudioCodecManufacturer = 0x61706877,         // 'aphw', iOS only
};

// AudioFormat.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioFormatUnspecifiedError         = 0x77686174,         // 'what'
    kAudioFormatUnsupportedPropertyError = 0x70726F70,         // 'prop'
    kAudioFormatBadPropertySizeError     = 0x2173697A,         // '!siz'
    kAudioFormatBadSpecifierSizeError    = 0x21737063,         // '!spc'
    kAudioFormatUnknownFormatError       = 0x21666D74,         // '!fmt'
};

typedef struct AudioPanningInfo {
    AudioPanningMode mPanningMode;
    uint32_t mCoordinateFlags;
    float mCoordinates[3];
    float mGainScale;
    const AudioChannelLayout *mOutputChannelMap;
} AudioPanningInfo;

typedef struct AudioBalanceFade {
    float mLeftRightBalance;
    float mBackFrontFade;
    AudioBalanceFadeType mType;
    const AudioChannelLayout *mChannelLayout;
} AudioBalanceFade;

typedef struct AudioFormatInfo {
    AudioStreamBasicDescription mASBD;
    const void *mMagicCookie;
    uint32_t mMagicCookieSize;
} AudioFormatInfo;

typedef struct ExtendedAudioFormatInfo {
    AudioStreamBasicDescription mASBD;
    const void *_Nullable mMagicCookie;
    uint32_t mMagicCookieSize;
    AudioClassDescription mClassDescription;
} ExtendedAudioFormatInfo;

#pragma clang assume_nonnull end

#endif

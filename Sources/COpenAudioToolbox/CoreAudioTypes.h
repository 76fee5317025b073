// Core Audio's C types and constants, laid out as Apple's CoreAudioTypes.h lays them out, so that Swift code
// written against AudioToolbox sees the same structs, memberwise initializers, option sets and constants.
#ifndef OPEN_CORE_AUDIO_TYPES_H
#define OPEN_CORE_AUDIO_TYPES_H

#include <stdint.h>
#include <stdbool.h>

#define OAT_ENUM(type) enum : type
#define OAT_OPTIONS(type, name) enum __attribute__((flag_enum, enum_extensibility(open))) name : type name; \
    enum __attribute__((flag_enum, enum_extensibility(open))) name : type
#define OAT_CLOSED_ENUM(type, name) enum __attribute__((enum_extensibility(open))) name : type name; \
    enum __attribute__((enum_extensibility(open))) name : type

#pragma clang assume_nonnull begin

/// A result code: 0 (`noErr`) for success, else one of the `k…Err…` constants.
typedef int32_t OSStatus;

OAT_ENUM(OSStatus) {
    noErr = 0,
    kAudio_UnimplementedError = -4,
    kAudio_FileNotFoundError = -43,
    kAudio_FilePermissionError = -54,
    kAudio_TooManyFilesOpenError = -42,
    kAudio_ParamError = -50,
    kAudio_MemFullError = -108,
};

/// A four-character code ('lpcm', 'auou'), its first character in the most significant byte.
typedef uint32_t FourCharCode;
/// A type or creator code: a four-character code.
typedef FourCharCode OSType;

/// One buffer of audio: `mNumberChannels` interleaved channels in `mDataByteSize` bytes at `mData`.
typedef struct AudioBuffer {
    uint32_t mNumberChannels;
    uint32_t mDataByteSize;
    void *_Nullable mData;
} AudioBuffer;

/// A variable-length list of buffers (one per channel for deinterleaved audio, one in all for interleaved):
/// `mNumberBuffers` of them, laid out from `mBuffers` on. Swift code reaches them through
/// `UnsafeMutableAudioBufferListPointer`; `AudioBufferList.allocate(maximumBuffers:)` makes room for more than one.
typedef struct AudioBufferList {
    uint32_t mNumberBuffers;
    AudioBuffer mBuffers[1];
} AudioBufferList;

/// A range of values (a sample rate range, say).
typedef struct AudioValueRange {
    double mMinimum;
    double mMaximum;
} AudioValueRange;

typedef uint32_t AudioFormatID;
typedef uint32_t AudioFormatFlags;

/// A stream's format: for linear PCM, one frame per packet and `mBytesPerFrame` bytes per frame.
typedef struct AudioStreamBasicDescription {
    double mSampleRate;
    AudioFormatID mFormatID;
    AudioFormatFlags mFormatFlags;
    uint32_t mBytesPerPacket;
    uint32_t mFramesPerPacket;
    uint32_t mBytesPerFrame;
    uint32_t mChannelsPerFrame;
    uint32_t mBitsPerChannel;
    uint32_t mReserved;
} AudioStreamBasicDescription;

/// Where a packet of variable size lies in a buffer (not used by linear PCM).
typedef struct AudioStreamPacketDescription {
    int64_t mStartOffset;
    uint32_t mVariableFramesInPacket;
    uint32_t mDataByteSize;
} AudioStreamPacketDescription;

typedef OAT_CLOSED_ENUM(uint32_t, SMPTETimeType) {
    kSMPTETimeType24 = 0,
    kSMPTETimeType25 = 1,
    kSMPTETimeType30Drop = 2,
    kSMPTETimeType30 = 3,
    kSMPTETimeType2997 = 4,
    kSMPTETimeType2997Drop = 5,
    kSMPTETimeType60 = 6,
    kSMPTETimeType5994 = 7,
    kSMPTETimeType60Drop = 8,
    kSMPTETimeType5994Drop = 9,
    kSMPTETimeType50 = 10,
    kSMPTETimeType2398 = 11,
};

typedef OAT_OPTIONS(uint32_t, SMPTETimeFlags) {
    kSMPTETimeUnknown = 0,
    kSMPTETimeValid = 1u << 0,
    kSMPTETimeRunning = 1u << 1,
};

typedef struct SMPTETime {
    int16_t mSubframes;
    int16_t mSubframeDivisor;
    uint32_t mCounter;
    SMPTETimeType mType;
    SMPTETimeFlags mFlags;
    int16_t mHours;
    int16_t mMinutes;
    int16_t mSeconds;
    int16_t mFrames;
} SMPTETime;

typedef OAT_OPTIONS(uint32_t, AudioTimeStampFlags) {
    kAudioTimeStampNothingValid = 0,
    kAudioTimeStampSampleTimeValid = 1u << 0,
    kAudioTimeStampHostTimeValid = 1u << 1,
    kAudioTimeStampRateScalarValid = 1u << 2,
    kAudioTimeStampWordClockTimeValid = 1u << 3,
    kAudioTimeStampSMPTETimeValid = 1u << 4,
    kAudioTimeStampSampleHostTimeValid = (1u << 0) | (1u << 1),
};

/// A moment: here the sample time (frames since the queue started) and the host time (CLOCK_MONOTONIC
/// nanoseconds, where Apple's systems count mach ticks).
typedef struct AudioTimeStamp {
    double mSampleTime;
    uint64_t mHostTime;
    double mRateScalar;
    uint64_t mWordClockTime;
    SMPTETime mSMPTETime;
    AudioTimeStampFlags mFlags;
    uint32_t mReserved;
} AudioTimeStamp;

// Format IDs (four-character codes, written in hex).
OAT_ENUM(AudioFormatID) {
    kAudioFormatLinearPCM = 0x6C70636D,        // 'lpcm'
    kAudioFormatAC3 = 0x61632D33,              // 'ac-3'
    kAudioFormatAppleIMA4 = 0x696D6134,        // 'ima4'
    kAudioFormatMPEG4AAC = 0x61616320,         // 'aac '
    kAudioFormatAppleLossless = 0x616C6163,    // 'alac'
    kAudioFormatULaw = 0x756C6177,             // 'ulaw'
    kAudioFormatALaw = 0x616C6177,             // 'alaw'
    kAudioFormatMPEGLayer3 = 0x2E6D7033,       // '.mp3'
    kAudioFormatFLAC = 0x666C6163,             // 'flac'
    kAudioFormatOpus = 0x6F707573,             // 'opus'
};

OAT_ENUM(AudioFormatFlags) {
    kAudioFormatFlagIsFloat = 1u << 0,
    kAudioFormatFlagIsBigEndian = 1u << 1,
    kAudioFormatFlagIsSignedInteger = 1u << 2,
    kAudioFormatFlagIsPacked = 1u << 3,
    kAudioFormatFlagIsAlignedHigh = 1u << 4,
    kAudioFormatFlagIsNonInterleaved = 1u << 5,
    kAudioFormatFlagIsNonMixable = 1u << 6,
    kAudioFormatFlagsAreAllClear = 0x80000000,

    kLinearPCMFormatFlagIsFloat = 1u << 0,
    kLinearPCMFormatFlagIsBigEndian = 1u << 1,
    kLinearPCMFormatFlagIsSignedInteger = 1u << 2,
    kLinearPCMFormatFlagIsPacked = 1u << 3,
    kLinearPCMFormatFlagIsAlignedHigh = 1u << 4,
    kLinearPCMFormatFlagIsNonInterleaved = 1u << 5,
    kLinearPCMFormatFlagIsNonMixable = 1u << 6,
    kLinearPCMFormatFlagsAreAllClear = 0x80000000,

#if defined(__BIG_ENDIAN__) || (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    kAudioFormatFlagsNativeEndian = 1u << 1,
#else
    kAudioFormatFlagsNativeEndian = 0,
#endif
    kAudioFormatFlagsNativeFloatPacked = (1u << 0) | kAudioFormatFlagsNativeEndian | (1u << 3),
};

// Not an enum in Apple's header: `static const Float64 kAudioStreamAnyRate = 0.0;` (Swift: Float64).
static const double kAudioStreamAnyRate = 0.0;

// Apple defines this only when CA_PREFER_FIXED_POINT (iOS); a #define of an int literal, so Swift sees Int32.
#define kAudioUnitSampleFractionBits 24

// Deprecated canonical sample types (Float32 on macOS; SInt16 / SInt32 8.24 fixed point on iOS).
typedef float AudioSampleType __attribute__((deprecated("The concept of canonical formats is deprecated")));
typedef float AudioUnitSampleType __attribute__((deprecated("The concept of canonical formats is deprecated")));

/// Buffers for a translation (Apple: both pointers __nonnull).
typedef struct AudioValueTranslation {
    void *mInputData;
    uint32_t mInputDataSize;
    void *mOutputData;
    uint32_t mOutputDataSize;
} AudioValueTranslation;

/// Identifies a codec: type ('aenc'/'adec'), subtype (format ID) and manufacturer.
typedef struct AudioClassDescription {
    OSType mType;
    OSType mSubType;
    OSType mManufacturer;
} AudioClassDescription;

// CoreAudioBaseTypes.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudio_NoError          = 0,                  // not in 11.3 SDK
    kAudio_BadFilePathError = 0x21707468,         // '!pth'
};

// CoreAudioBaseTypes.h: CF_ENUM(AudioFormatID)  →  Swift: AudioFormatID (=UInt32)
OAT_ENUM(AudioFormatID) {
    kAudioFormat60958AC3             = 0x63616333,         // 'cac3'
    kAudioFormatMPEG4CELP            = 0x63656C70,         // 'celp'
    kAudioFormatMPEG4HVXC            = 0x68767863,         // 'hvxc'
    kAudioFormatMPEG4TwinVQ          = 0x74777671,         // 'twvq'
    kAudioFormatMACE3                = 0x4D414333,         // 'MAC3'
    kAudioFormatMACE6                = 0x4D414336,         // 'MAC6'
    kAudioFormatQDesign              = 0x51444D43,         // 'QDMC'
    kAudioFormatQDesign2             = 0x51444D32,         // 'QDM2'
    kAudioFormatQUALCOMM             = 0x51636C70,         // 'Qclp'
    kAudioFormatMPEGLayer1           = 0x2E6D7031,         // '.mp1'
    kAudioFormatMPEGLayer2           = 0x2E6D7032,         // '.mp2'
    kAudioFormatTimeCode             = 0x74696D65,         // 'time'
    kAudioFormatMIDIStream           = 0x6D696469,         // 'midi'
    kAudioFormatParameterValueStream = 0x61707673,         // 'apvs'
    kAudioFormatMPEG4AAC_HE          = 0x61616368,         // 'aach'
    kAudioFormatMPEG4AAC_LD          = 0x6161636C,         // 'aacl'
    kAudioFormatMPEG4AAC_ELD         = 0x61616365,         // 'aace'
    kAudioFormatMPEG4AAC_ELD_SBR     = 0x61616366,         // 'aacf'
    kAudioFormatMPEG4AAC_ELD_V2      = 0x61616367,         // 'aacg'
    kAudioFormatMPEG4AAC_HE_V2       = 0x61616370,         // 'aacp'
    kAudioFormatMPEG4AAC_Spatial     = 0x61616373,         // 'aacs'
    kAudioFormatMPEGD_USAC           = 0x75736163,         // 'usac'
    kAudioFormatAMR                  = 0x73616D72,         // 'samr'
    kAudioFormatAMR_WB               = 0x73617762,         // 'sawb'
    kAudioFormatAudible              = 0x41554442,         // 'AUDB'
    kAudioFormatiLBC                 = 0x696C6263,         // 'ilbc'
    kAudioFormatDVIIntelIMA          = 0x6D730011,
    kAudioFormatMicrosoftGSM         = 0x6D730031,
    kAudioFormatAES3                 = 0x61657333,         // 'aes3'
    kAudioFormatEnhancedAC3          = 0x65632D33,         // 'ec-3'
};

// CoreAudioBaseTypes.h: CF_ENUM(AudioFormatFlags)  →  Swift: AudioFormatFlags (=UInt32)
OAT_ENUM(AudioFormatFlags) {
    kLinearPCMFormatFlagsSampleFractionShift = 7,
    kLinearPCMFormatFlagsSampleFractionMask  = (0x3F << kLinearPCMFormatFlagsSampleFractionShift), // 0x1F80 (8064)
    kAppleLosslessFormatFlag_16BitSourceData = 1,
    kAppleLosslessFormatFlag_20BitSourceData = 2,
    kAppleLosslessFormatFlag_24BitSourceData = 3,
    kAppleLosslessFormatFlag_32BitSourceData = 4,
};

// CoreAudioBaseTypes.h: CF_ENUM(AudioFormatFlags)  →  Swift: AudioFormatFlags (=UInt32)
OAT_ENUM(AudioFormatFlags) {
    kAudioFormatFlagsCanonical          = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked, // 0x9 on little-endian, macOS value; iOS: 12, deprecated
    kAudioFormatFlagsAudioUnitCanonical = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved, // 0x29 on little-endian, macOS value; iOS: 3116, deprecated
};

// CoreAudioBaseTypes.h: typedef CF_ENUM(long, MPEG4ObjectID)  →  Swift: enum MPEG4ObjectID: Int
typedef OAT_CLOSED_ENUM(long, MPEG4ObjectID) {
    kMPEG4Object_AAC_Main     = 1,
    kMPEG4Object_AAC_LC       = 2,
    kMPEG4Object_AAC_SSR      = 3,
    kMPEG4Object_AAC_LTP      = 4,
    kMPEG4Object_AAC_SBR      = 5,
    kMPEG4Object_AAC_Scalable = 6,
    kMPEG4Object_TwinVQ       = 7,
    kMPEG4Object_CELP         = 8,
    kMPEG4Object_HVXC         = 9,
};

#pragma clang assume_nonnull end

#endif

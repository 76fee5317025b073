// Audio File Services' C types and constants as Apple's AudioFile.h declares them; the functions are
// Swift, in OpenAudioToolbox.
#ifndef OPEN_AUDIO_FILE_H
#define OPEN_AUDIO_FILE_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

typedef struct OpaqueAudioFileID *AudioFileID;
typedef uint32_t AudioFileTypeID;
typedef uint32_t AudioFilePropertyID;

/// The callbacks of a file held by the caller (AudioFileOpenWithCallbacks): read `requestCount` bytes
/// at `inPosition` into `buffer`, saying how many in `actualCount`; the file's size.
typedef OSStatus (*AudioFile_ReadProc)(void *inClientData, int64_t inPosition, uint32_t requestCount,
    void *buffer, uint32_t *actualCount);
typedef OSStatus (*AudioFile_WriteProc)(void *inClientData, int64_t inPosition, uint32_t requestCount,
    const void *buffer, uint32_t *actualCount);
typedef int64_t (*AudioFile_GetSizeProc)(void *inClientData);
typedef OSStatus (*AudioFile_SetSizeProc)(void *inClientData, int64_t inSize);

OAT_ENUM(AudioFileTypeID) {
    kAudioFileAIFFType = 0x41494646,      // 'AIFF'
    kAudioFileAIFCType = 0x41494643,      // 'AIFC'
    kAudioFileWAVEType = 0x57415645,      // 'WAVE'
    kAudioFileRF64Type = 0x52463634,      // 'RF64'
    kAudioFileBW64Type = 0x42573634,      // 'BW64'
    kAudioFileWave64Type = 0x57363466,    // 'W64f'
    kAudioFileCAFType = 0x63616666,       // 'caff'
    kAudioFileNextType = 0x4E655854,      // 'NeXT'
    kAudioFileFLACType = 0x666C6163,      // 'flac'
    kAudioFileMP3Type = 0x4D504733,       // 'MPG3'
    kAudioFileAAC_ADTSType = 0x61647473,  // 'adts'
    kAudioFileM4AType = 0x6D346166,       // 'm4af'
};

typedef OAT_OPTIONS(uint32_t, AudioFileFlags) {
    kAudioFileFlags_EraseFile = 1,
    kAudioFileFlags_DontPageAlignAudioData = 2,
};

typedef OAT_CLOSED_ENUM(int8_t, AudioFilePermissions) {
    kAudioFileReadPermission = 0x01,
    kAudioFileWritePermission = 0x02,
    kAudioFileReadWritePermission = 0x03,
};

OAT_ENUM(OSStatus) {
    kAudioFileUnspecifiedError = 0x7768743F,            // 'wht?'
    kAudioFileUnsupportedFileTypeError = 0x7479703F,    // 'typ?'
    kAudioFileUnsupportedDataFormatError = 0x666D743F,  // 'fmt?'
    kAudioFileUnsupportedPropertyError = 0x7074793F,    // 'pty?'
    kAudioFileBadPropertySizeError = 0x2173697A,        // '!siz'
    kAudioFilePermissionsError = 0x70726D3F,            // 'prm?'
    kAudioFileNotOptimizedError = 0x6F70746D,           // 'optm'
    kAudioFileInvalidChunkError = 0x63686B3F,           // 'chk?'
    kAudioFileDoesNotAllow64BitDataSizeError = 0x6F66663F, // 'off?'
    kAudioFileInvalidPacketOffsetError = 0x70636B3F,    // 'pck?'
    kAudioFileInvalidPacketDependencyError = 0x6465703F, // 'dep?'
    kAudioFileInvalidFileError = 0x6474613F,            // 'dta?'
    kAudioFileOperationNotSupportedError = 0x6F703F3F,  // 'op??'
    kAudioFileNotOpenError = -38,
    kAudioFileEndOfFileError = -39,
    kAudioFilePositionError = -40,
    kAudioFileFileNotFoundError = -43,
};

OAT_ENUM(AudioFilePropertyID) {
    kAudioFilePropertyFileFormat = 0x66666D74,            // 'ffmt': AudioFileTypeID
    kAudioFilePropertyDataFormat = 0x64666D74,            // 'dfmt': AudioStreamBasicDescription
    kAudioFilePropertyIsOptimized = 0x6F70746D,           // 'optm': UInt32
    kAudioFilePropertyAudioDataByteCount = 0x62636E74,    // 'bcnt': UInt64
    kAudioFilePropertyAudioDataPacketCount = 0x70636E74,  // 'pcnt': UInt64
    kAudioFilePropertyMaximumPacketSize = 0x70737A65,     // 'psze': UInt32
    kAudioFilePropertyDataOffset = 0x646F6666,            // 'doff': Int64
    kAudioFilePropertyEstimatedDuration = 0x65647572,     // 'edur': Float64 seconds
    kAudioFilePropertyPacketSizeUpperBound = 0x706B7562,  // 'pkub': UInt32
    kAudioFilePropertyMagicCookieData = 0x6D676963,       // 'mgic': none in a linear PCM file
    kAudioFilePropertyChannelLayout = 0x636D6170,         // 'cmap'
    kAudioFilePropertyInfoDictionary = 0x696E666F,        // 'info'
    kAudioFilePropertyPacketTableInfo = 0x706E666F,       // 'pnfo'
    kAudioFilePropertyBitRate = 0x62726174,               // 'brat': UInt32 bits per second
    kAudioFilePropertyFormatList = 0x666C7374,            // 'flst'
    kAudioFilePropertyMarkerList = 0x6D6B6C73,            // 'mkls'
    kAudioFilePropertyRegionList = 0x72676C73,            // 'rgls'
    kAudioFilePropertySourceBitDepth = 0x73627464,        // 'sbtd'
    kAudioFilePropertyAverageBytesPerPacket = 0x61627070, // 'abpp'
    kAudioFilePropertyDeferSizeUpdates = 0x64737A75,      // 'dszu'
    kAudioFilePropertyReserveDuration = 0x72737276,       // 'rsrv'
    kAudioFilePropertyID3Tag = 0x69643374,                // 'id3t'
};

// AudioFile.h: CF_ENUM(AudioFileTypeID)  →  Swift: AudioFileTypeID (=UInt32)
OAT_ENUM(AudioFileTypeID) {
    kAudioFileSoundDesigner2Type = 0x53643266,         // 'Sd2f'
    kAudioFileMP2Type            = 0x4D504732,         // 'MPG2'
    kAudioFileMP1Type            = 0x4D504731,         // 'MPG1'
    kAudioFileAC3Type            = 0x61632D33,         // 'ac-3'
    kAudioFileMPEG4Type          = 0x6D703466,         // 'mp4f'
    kAudioFileM4BType            = 0x6D346266,         // 'm4bf'
    kAudioFile3GPType            = 0x33677070,         // '3gpp'
    kAudioFile3GP2Type           = 0x33677032,         // '3gp2'
    kAudioFileAMRType            = 0x616D7266,         // 'amrf'
    kAudioFileLATMInLOASType     = 0x6C6F6173,         // 'loas'
};

// AudioFile.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioFileLoopDirection_NoLooping          = 0,
    kAudioFileLoopDirection_Forward            = 1,
    kAudioFileLoopDirection_ForwardAndBackward = 2,
    kAudioFileLoopDirection_Backward           = 3,
};

// AudioFile.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioFileMarkerType_Generic = 0,
};

// AudioFile.h: typedef CF_OPTIONS(UInt32, AudioFileRegionFlags)  →  Swift: OptionSet struct AudioFileRegionFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioFileRegionFlags) {
    kAudioFileRegionFlag_LoopEnable   = 1,
    kAudioFileRegionFlag_PlayForward  = 2,
    kAudioFileRegionFlag_PlayBackward = 4,
};

// AudioFile.h: typedef CF_OPTIONS(UInt32, AudioBytePacketTranslationFlags)  →  Swift: OptionSet struct AudioBytePacketTranslationFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioBytePacketTranslationFlags) {
    kBytePacketTranslationFlag_IsEstimate = 1,
};

// AudioFile.h: CF_ENUM(AudioFilePropertyID)  →  Swift: AudioFilePropertyID (=UInt32)
OAT_ENUM(AudioFilePropertyID) {
    kAudioFilePropertyDataFormatName                 = 0x666E6D65,         // 'fnme'
    kAudioFilePropertyPacketToFrame                  = 0x706B6672,         // 'pkfr'
    kAudioFilePropertyFrameToPacket                  = 0x6672706B,         // 'frpk'
    kAudioFilePropertyRestrictsRandomAccess          = 0x72726170,         // 'rrap'
    kAudioFilePropertyPacketToRollDistance           = 0x706B726C,         // 'pkrl'
    kAudioFilePropertyPreviousIndependentPacket      = 0x70696E64,         // 'pind'
    kAudioFilePropertyNextIndependentPacket          = 0x6E696E64,         // 'nind'
    kAudioFilePropertyPacketToDependencyInfo         = 0x706B6470,         // 'pkdp'
    kAudioFilePropertyPacketToByte                   = 0x706B6279,         // 'pkby'
    kAudioFilePropertyByteToPacket                   = 0x6279706B,         // 'bypk'
    kAudioFilePropertyChunkIDs                       = 0x63686964,         // 'chid'
    kAudioFilePropertyPacketRangeByteCountUpperBound = 0x70727562,         // 'prub'
    kAudioFilePropertyID3TagOffset                   = 0x6964336F,         // 'id3o'
    kAudioFilePropertyAlbumArtwork                   = 0x61617274,         // 'aart'
    kAudioFilePropertyAudioTrackCount                = 0x61746374,         // 'atct'
    kAudioFilePropertyUseAudioTrack                  = 0x7561746B,         // 'uatk'
};

// AudioFile.h: CF_ENUM(AudioFilePropertyID)  →  Swift: AudioFilePropertyID (=UInt32)
OAT_ENUM(AudioFilePropertyID) {
    kAudioFileGlobalInfo_ReadableTypes                        = 0x61667266,         // 'afrf'
    kAudioFileGlobalInfo_WritableTypes                        = 0x61667766,         // 'afwf'
    kAudioFileGlobalInfo_FileTypeName                         = 0x66746E6D,         // 'ftnm'
    kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat = 0x73646964,         // 'sdid'
    kAudioFileGlobalInfo_AvailableFormatIDs                   = 0x666D6964,         // 'fmid'
    kAudioFileGlobalInfo_AllExtensions                        = 0x616C7874,         // 'alxt'
    kAudioFileGlobalInfo_AllHFSTypeCodes                      = 0x61686673,         // 'ahfs'
    kAudioFileGlobalInfo_AllUTIs                              = 0x61757469,         // 'auti'
    kAudioFileGlobalInfo_AllMIMETypes                         = 0x616D696D,         // 'amim'
    kAudioFileGlobalInfo_ExtensionsForType                    = 0x66657874,         // 'fext'
    kAudioFileGlobalInfo_HFSTypeCodesForType                  = 0x66686673,         // 'fhfs'
    kAudioFileGlobalInfo_UTIsForType                          = 0x66757469,         // 'futi'
    kAudioFileGlobalInfo_MIMETypesForType                     = 0x666D696D,         // 'fmim'
    kAudioFileGlobalInfo_TypesForMIMEType                     = 0x746D696D,         // 'tmim'
    kAudioFileGlobalInfo_TypesForUTI                          = 0x74757469,         // 'tuti'
    kAudioFileGlobalInfo_TypesForHFSTypeCode                  = 0x74686673,         // 'thfs'
    kAudioFileGlobalInfo_TypesForExtension                    = 0x74657874,         // 'text'
};

typedef struct AudioFile_SMPTE_Time {
    int8_t mHours;
    uint8_t mMinutes;
    uint8_t mSeconds;
    uint8_t mFrames;
    uint32_t mSubFrameSampleOffset;
} AudioFile_SMPTE_Time;

typedef struct AudioFramePacketTranslation {
    int64_t mFrame;
    int64_t mPacket;
    uint32_t mFrameOffsetInPacket;
} AudioFramePacketTranslation;

typedef struct AudioBytePacketTranslation {
    int64_t mByte;
    int64_t mPacket;
    uint32_t mByteOffsetInPacket;
    AudioBytePacketTranslationFlags mFlags;
} AudioBytePacketTranslation;

/// kAudioFilePropertyPacketTableInfo: valid frames, priming and remainder frames.
typedef struct AudioFilePacketTableInfo {
    int64_t mNumberValidFrames;
    int32_t mPrimingFrames;
    int32_t mRemainderFrames;
} AudioFilePacketTableInfo;

typedef struct AudioPacketRangeByteCountTranslation {
    int64_t mPacket;
    int64_t mPacketCount;
    int64_t mByteCountUpperBound;
} AudioPacketRangeByteCountTranslation;

typedef struct AudioPacketRollDistanceTranslation {
    int64_t mPacket;
    int64_t mRollDistance;
} AudioPacketRollDistanceTranslation;

typedef struct AudioIndependentPacketTranslation {
    int64_t mPacket;
    int64_t mIndependentlyDecodablePacket;
} AudioIndependentPacketTranslation;

typedef struct AudioPacketDependencyInfoTranslation {
    int64_t mPacket;
    uint32_t mIsIndependentlyDecodable;
    uint32_t mNumberPrerollPackets;
} AudioPacketDependencyInfoTranslation;

typedef struct AudioFileTypeAndFormatID {
    AudioFileTypeID mFileType;
    uint32_t mFormatID;
} AudioFileTypeAndFormatID;

#pragma clang assume_nonnull end

#endif

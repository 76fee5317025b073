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
    kAudioFilePropertyIsOptimized = 0x6F707469,           // 'opti': UInt32
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

#pragma clang assume_nonnull end

#endif

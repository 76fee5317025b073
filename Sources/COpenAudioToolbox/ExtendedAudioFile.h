// Extended Audio File Services' types, properties and result codes, with Apple's values
// (ExtendedAudioFile.h), and the channel layout a created file may be given (CoreAudioTypes.h).
#ifndef OPEN_EXTENDED_AUDIO_FILE_H
#define OPEN_EXTENDED_AUDIO_FILE_H

#include "CoreAudioTypes.h"
#include "AudioChannelLayout.h"

#pragma clang assume_nonnull begin



/// A file opened, created or wrapped by Extended Audio File Services.
typedef struct OpaqueExtAudioFile *ExtAudioFileRef;
typedef uint32_t ExtAudioFilePropertyID;

OAT_ENUM(ExtAudioFilePropertyID) {
    kExtAudioFileProperty_FileDataFormat = 0x66666D74,      // 'ffmt'
    kExtAudioFileProperty_FileChannelLayout = 0x66636C6F,   // 'fclo'
    kExtAudioFileProperty_ClientDataFormat = 0x63666D74,    // 'cfmt'
    kExtAudioFileProperty_ClientChannelLayout = 0x63636C6F, // 'cclo'
    kExtAudioFileProperty_CodecManufacturer = 0x636D616E,   // 'cman'
    kExtAudioFileProperty_AudioConverter = 0x61636E76,      // 'acnv'
    kExtAudioFileProperty_AudioFile = 0x6166696C,           // 'afil'
    kExtAudioFileProperty_FileMaxPacketSize = 0x666D7073,   // 'fmps'
    kExtAudioFileProperty_ClientMaxPacketSize = 0x636D7073, // 'cmps'
    kExtAudioFileProperty_FileLengthFrames = 0x2366726D,    // '#frm'
    kExtAudioFileProperty_ConverterConfig = 0x61636366,     // 'accf'
    kExtAudioFileProperty_IOBufferSizeBytes = 0x696F6273,   // 'iobs'
    kExtAudioFileProperty_IOBuffer = 0x696F6266,            // 'iobf'
    kExtAudioFileProperty_PacketTable = 0x78707469,         // 'xpti'
};

OAT_ENUM(OSStatus) {
    kExtAudioFileError_InvalidProperty = -66561,
    kExtAudioFileError_InvalidPropertySize = -66562,
    kExtAudioFileError_NonPCMClientFormat = -66563,
    kExtAudioFileError_InvalidChannelMap = -66564,
    kExtAudioFileError_InvalidOperationOrder = -66565,
    kExtAudioFileError_InvalidDataFormat = -66566,
    kExtAudioFileError_MaxPacketSizeUnknown = -66567,
    kExtAudioFileError_InvalidSeek = -66568,
    kExtAudioFileError_AsyncWriteTooLarge = -66569,
    kExtAudioFileError_AsyncWriteBufferOverflow = -66570,
};

typedef int32_t ExtAudioFilePacketTableInfoOverride;

// ExtendedAudioFile.h: CF_ENUM(ExtAudioFilePacketTableInfoOverride)  →  Swift: ExtAudioFilePacketTableInfoOverride (=Int32)
OAT_ENUM(ExtAudioFilePacketTableInfoOverride) {
    kExtAudioFilePacketTableInfoOverride_UseFileValue        = -1,
    kExtAudioFilePacketTableInfoOverride_UseFileValueIfValid = -2,
};

// ExtendedAudioFile.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kExtAudioFileError_CodecUnavailableInputConsumed    = -66559,             // iOS only
    kExtAudioFileError_CodecUnavailableInputNotConsumed = -66560,             // iOS only
};

#pragma clang assume_nonnull end

#endif

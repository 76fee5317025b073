// Audio Converter Services' types, result codes and constants, with Apple's values (AudioConverter.h): the
// converter handle, its properties and input procedure, and what AVAudioConverter's errors carry.
#ifndef OPEN_AUDIO_CONVERTER_H
#define OPEN_AUDIO_CONVERTER_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

OAT_ENUM(OSStatus) {
    kAudioConverterErr_FormatNotSupported = 0x666D743F,            // 'fmt?'
    kAudioConverterErr_OperationNotSupported = 0x6F703F3F,         // 'op??'
    kAudioConverterErr_PropertyNotSupported = 0x70726F70,          // 'prop'
    kAudioConverterErr_InvalidInputSize = 0x696E737A,              // 'insz'
    kAudioConverterErr_InvalidOutputSize = 0x6F74737A,             // 'otsz'
    kAudioConverterErr_UnspecifiedError = 0x77686174,              // 'what'
    kAudioConverterErr_BadPropertySizeError = 0x2173697A,          // '!siz'
    kAudioConverterErr_RequiresPacketDescriptionsError = 0x21706B64, // '!pkd'
    kAudioConverterErr_InputSampleRateOutOfRange = 0x21697372,     // '!isr'
    kAudioConverterErr_OutputSampleRateOutOfRange = 0x216F7372,    // '!osr'
};

OAT_ENUM(uint32_t) {
    kAudioConverterQuality_Max = 0x7F,
    kAudioConverterQuality_High = 0x60,
    kAudioConverterQuality_Medium = 0x40,
    kAudioConverterQuality_Low = 0x20,
    kAudioConverterQuality_Min = 0,
};

OAT_ENUM(uint32_t) {
    kConverterPrimeMethod_Pre = 0,
    kConverterPrimeMethod_Normal = 1,
    kConverterPrimeMethod_None = 2,
};

/// A converter made by `AudioConverterNew`.
typedef struct OpaqueAudioConverter *AudioConverterRef;
typedef uint32_t AudioConverterPropertyID;

/// The frames a rate conversion is primed with, before and after the stream.
typedef struct AudioConverterPrimeInfo {
    uint32_t leadingFrames;
    uint32_t trailingFrames;
} AudioConverterPrimeInfo;

/// Supplies input to `AudioConverterFillComplexBuffer`: set `ioData`'s buffers to (up to)
/// `*ioNumberDataPackets` packets of the source format and `*ioNumberDataPackets` to how many; 0 packets
/// and noErr is the end of the stream; any other status stops the fill, which returns it.
typedef OSStatus (*AudioConverterComplexInputDataProc)(AudioConverterRef inAudioConverter, uint32_t *ioNumberDataPackets,
                                                       AudioBufferList *ioData,
                                                       AudioStreamPacketDescription *_Nullable *_Nullable outDataPacketDescription,
                                                       void *_Nullable inUserData);

OAT_ENUM(AudioConverterPropertyID) {
    kAudioConverterPropertyMinimumInputBufferSize = 0x6D696273,   // 'mibs'
    kAudioConverterPropertyMinimumOutputBufferSize = 0x6D6F6273,  // 'mobs'
    kAudioConverterPropertyMaximumInputPacketSize = 0x78697073,   // 'xips'
    kAudioConverterPropertyMaximumOutputPacketSize = 0x786F7073,  // 'xops'
    kAudioConverterPropertyCalculateInputBufferSize = 0x63696273, // 'cibs'
    kAudioConverterPropertyCalculateOutputBufferSize = 0x636F6273, // 'cobs'
    kAudioConverterSampleRateConverterComplexity = 0x73726361,    // 'srca'
    kAudioConverterSampleRateConverterQuality = 0x73726371,       // 'srcq'
    kAudioConverterSampleRateConverterInitialPhase = 0x73726370,  // 'srcp'
    kAudioConverterCodecQuality = 0x63647175,                     // 'cdqu'
    kAudioConverterPrimeMethod = 0x70726D6D,                      // 'prmm'
    kAudioConverterPrimeInfo = 0x7072696D,                        // 'prim'
    kAudioConverterChannelMap = 0x63686D70,                       // 'chmp'
    kAudioConverterDecompressionMagicCookie = 0x646D6763,         // 'dmgc'
    kAudioConverterCompressionMagicCookie = 0x636D6763,           // 'cmgc'
    kAudioConverterEncodeBitRate = 0x62726174,                    // 'brat'
    kAudioConverterCurrentOutputStreamDescription = 0x61636F64,   // 'acod'
    kAudioConverterCurrentInputStreamDescription = 0x61636964,    // 'acid'
    kAudioConverterPropertySettings = 0x61637073,                 // 'acps'
    kAudioConverterPropertyDithering = 0x64697468,                // 'dith'
};

OAT_ENUM(uint32_t) {
    kAudioConverterSampleRateConverterComplexity_Linear = 0x6C696E65,       // 'line'
    kAudioConverterSampleRateConverterComplexity_Normal = 0x6E6F726D,       // 'norm'
    kAudioConverterSampleRateConverterComplexity_Mastering = 0x62617473,    // 'bats'
    kAudioConverterSampleRateConverterComplexity_MinimumPhase = 0x6D696E70, // 'minp'
};

// AudioConverter.h: CF_ENUM(AudioConverterPropertyID)  →  Swift: AudioConverterPropertyID (=UInt32)
OAT_ENUM(AudioConverterPropertyID) {
    kAudioConverterPropertyInputCodecParameters     = 0x69636470,         // 'icdp'
    kAudioConverterPropertyOutputCodecParameters    = 0x6F636470,         // 'ocdp'
    kAudioConverterEncodeAdjustableSampleRate       = 0x616A7372,         // 'ajsr'
    kAudioConverterInputChannelLayout               = 0x69636C20,         // 'icl '
    kAudioConverterOutputChannelLayout              = 0x6F636C20,         // 'ocl '
    kAudioConverterApplicableEncodeBitRates         = 0x61656272,         // 'aebr'
    kAudioConverterAvailableEncodeBitRates          = 0x76656272,         // 'vebr'
    kAudioConverterApplicableEncodeSampleRates      = 0x61657372,         // 'aesr'
    kAudioConverterAvailableEncodeSampleRates       = 0x76657372,         // 'vesr'
    kAudioConverterAvailableEncodeChannelLayoutTags = 0x6165636C,         // 'aecl'
    kAudioConverterPropertyBitDepthHint             = 0x61636264,         // 'acbd'
    kAudioConverterPropertyFormatList               = 0x666C7374,         // 'flst'
};

// AudioConverter.h: CF_ENUM(AudioConverterPropertyID)  →  Swift: AudioConverterPropertyID (=UInt32)
OAT_ENUM(AudioConverterPropertyID) {
    kAudioConverterPropertyDitherBitDepth = 0x64626974,         // 'dbit', macOS only
};

// AudioConverter.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kDitherAlgorithm_TPDF         = 1,                  // macOS only
    kDitherAlgorithm_NoiseShaping = 2,                  // macOS only
};

// AudioConverter.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioConverterErr_HardwareInUse        = 0x68776975,         // 'hwiu', iOS only
    kAudioConverterErr_NoHardwarePermission = 0x7065726D,         // 'perm', iOS only
};

// AudioConverter.h: CF_ENUM(AudioConverterPropertyID)  →  Swift: AudioConverterPropertyID (=UInt32)
OAT_ENUM(AudioConverterPropertyID) {
    kAudioConverterPropertyMaximumInputBufferSize = 0x78696273,         // 'xibs'
    kAudioConverterSampleRateConverterAlgorithm   = 0x73726369,         // 'srci'
};

// AudioConverter.h: CF_ENUM(AudioConverterPropertyID)  →  Swift: AudioConverterPropertyID (=UInt32)
OAT_ENUM(AudioConverterPropertyID) {
    kAudioConverterPropertyCanResumeFromInterruption = 0x63726669,         // 'crfi', iOS only
};

/// Deprecated (macOS 10.5) input procedure of AudioConverterFillBuffer.
typedef OSStatus (*AudioConverterInputDataProc)(AudioConverterRef inAudioConverter, uint32_t *ioDataSize,
    void *_Nonnull *_Nonnull outData, void *_Nullable inUserData);

#pragma clang assume_nonnull end

#endif

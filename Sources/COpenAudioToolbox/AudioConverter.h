// Audio Converter Services' result codes and constants, with Apple's values (AudioConverter.h): what
// AVAudioConverter's errors carry, and what converter code compares against.
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

#pragma clang assume_nonnull end

#endif

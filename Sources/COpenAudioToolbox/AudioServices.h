// System Sound Services' types and constants as Apple's AudioServices.h declares them.
#ifndef OPEN_AUDIO_SERVICES_H
#define OPEN_AUDIO_SERVICES_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

typedef uint32_t SystemSoundID;
typedef uint32_t AudioServicesPropertyID;
/// Called when a system sound finishes playing.
typedef void (*AudioServicesSystemSoundCompletionProc)(SystemSoundID ssID, void *_Nullable clientData);

// AudioServices.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioServicesNoError                                 = 0,
    kAudioServicesUnsupportedPropertyError                = 0x7074793F,         // 'pty?'
    kAudioServicesBadPropertySizeError                    = 0x2173697A,         // '!siz'
    kAudioServicesBadSpecifierSizeError                   = 0x21737063,         // '!spc'
    kAudioServicesSystemSoundUnspecifiedError             = -1500,
    kAudioServicesSystemSoundClientTimedOutError          = -1501,
    kAudioServicesSystemSoundExceededMaximumDurationError = -1502,
};

// AudioServices.h: CF_ENUM(SystemSoundID)  →  Swift: SystemSoundID (=UInt32)
OAT_ENUM(SystemSoundID) {
    kSystemSoundID_UserPreferredAlert = 0x00001000,         // macOS only
    kSystemSoundID_FlashScreen        = 0x00000FFE,         // macOS only
    kUserPreferredAlert               = kSystemSoundID_UserPreferredAlert, // 0x1000 (4096), macOS only
};

// AudioServices.h: CF_ENUM(SystemSoundID)  →  Swift: SystemSoundID (=UInt32)
OAT_ENUM(SystemSoundID) {
    kSystemSoundID_Vibrate = 0x00000FFF,
};

// AudioServices.h: CF_ENUM(AudioServicesPropertyID)  →  Swift: AudioServicesPropertyID (=UInt32)
OAT_ENUM(AudioServicesPropertyID) {
    kAudioServicesPropertyIsUISound                 = 0x69737569,         // 'isui'
    kAudioServicesPropertyCompletePlaybackIfAppDies = 0x69666469,         // 'ifdi'
};

#pragma clang assume_nonnull end

#endif

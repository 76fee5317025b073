// Audio Queue Services' C types, callbacks and constants as Apple's AudioQueue.h declares them; the
// functions themselves are Swift, in OpenAudioToolbox.
#ifndef OPEN_AUDIO_QUEUE_H
#define OPEN_AUDIO_QUEUE_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

typedef uint32_t AudioQueuePropertyID;
typedef uint32_t AudioQueueParameterID;
typedef float AudioQueueParameterValue;
typedef struct OpaqueAudioQueue *AudioQueueRef;
typedef struct OpaqueAudioQueueTimeline *AudioQueueTimelineRef;

/// One buffer of a queue: `mAudioDataBytesCapacity` bytes at `mAudioData`, of which `mAudioDataByteSize`
/// hold audio. Made by AudioQueueAllocateBuffer, owned by its queue until AudioQueueFreeBuffer or
/// AudioQueueDispose.
typedef struct AudioQueueBuffer {
    const uint32_t mAudioDataBytesCapacity;
    void *const mAudioData;
    uint32_t mAudioDataByteSize;
    void *_Nullable mUserData;
    const uint32_t mPacketDescriptionCapacity;
    AudioStreamPacketDescription *const _Nullable mPacketDescriptions;
    uint32_t mPacketDescriptionCount;
} AudioQueueBuffer;

typedef AudioQueueBuffer *AudioQueueBufferRef;

/// One channel's level: average (RMS) and peak power, linear 0…1 or in dB (−160…0), by the property read.
typedef struct AudioQueueLevelMeterState {
    float mAveragePower;
    float mPeakPower;
} AudioQueueLevelMeterState;

typedef struct AudioQueueParameterEvent {
    AudioQueueParameterID mID;
    AudioQueueParameterValue mValue;
} AudioQueueParameterEvent;

/// Called with each buffer a recording queue filled, on the queue's run loop (or on its own thread).
typedef void (*AudioQueueInputCallback)(void *_Nullable inUserData, AudioQueueRef inAQ,
    AudioQueueBufferRef inBuffer, const AudioTimeStamp *inStartTime, uint32_t inNumberPacketDescriptions,
    const AudioStreamPacketDescription *_Nullable inPacketDescs);

/// Called with each buffer a playback queue has finished with, to be filled and enqueued again.
typedef void (*AudioQueueOutputCallback)(void *_Nullable inUserData, AudioQueueRef inAQ,
    AudioQueueBufferRef inBuffer);

/// Called when a property a listener was added for changes (kAudioQueueProperty_IsRunning).
typedef void (*AudioQueuePropertyListenerProc)(void *_Nullable inUserData, AudioQueueRef inAQ,
    AudioQueuePropertyID inID);

OAT_ENUM(OSStatus) {
    kAudioQueueErr_InvalidBuffer = -66687,
    kAudioQueueErr_BufferEmpty = -66686,
    kAudioQueueErr_DisposalPending = -66685,
    kAudioQueueErr_InvalidProperty = -66684,
    kAudioQueueErr_InvalidPropertySize = -66683,
    kAudioQueueErr_InvalidParameter = -66682,
    kAudioQueueErr_CannotStart = -66681,
    kAudioQueueErr_InvalidDevice = -66680,
    kAudioQueueErr_BufferInQueue = -66679,
    kAudioQueueErr_InvalidRunState = -66678,
    kAudioQueueErr_InvalidQueueType = -66677,
    kAudioQueueErr_Permissions = -66676,
    kAudioQueueErr_InvalidPropertyValue = -66675,
    kAudioQueueErr_PrimeTimedOut = -66674,
    kAudioQueueErr_CodecNotFound = -66673,
    kAudioQueueErr_InvalidCodecAccess = -66672,
    kAudioQueueErr_QueueInvalidated = -66671,
    kAudioQueueErr_TooManyTaps = -66670,
    kAudioQueueErr_InvalidTapContext = -66669,
    kAudioQueueErr_RecordUnderrun = -66668,
    kAudioQueueErr_InvalidTapType = -66667,
    kAudioQueueErr_BufferEnqueuedTwice = -66666,
    kAudioQueueErr_CannotStartYet = -66665,
    kAudioQueueErr_EnqueueDuringReset = -66632,
    kAudioQueueErr_InvalidOfflineMode = -66626,
    kAudioFormatUnsupportedDataFormatError = 0x666D743F,   // 'fmt?'
};

OAT_ENUM(AudioQueuePropertyID) {
    kAudioQueueProperty_IsRunning = 0x6171726E,               // 'aqrn': UInt32, 1 while running
    kAudioQueueDeviceProperty_SampleRate = 0x61717372,        // 'aqsr': Float64
    kAudioQueueDeviceProperty_NumberChannels = 0x61716463,    // 'aqdc': UInt32
    kAudioQueueProperty_CurrentDevice = 0x61716364,           // 'aqcd'
    kAudioQueueProperty_MagicCookie = 0x61716D63,             // 'aqmc'
    kAudioQueueProperty_MaximumOutputPacketSize = 0x786F7073, // 'xops': UInt32
    kAudioQueueProperty_StreamDescription = 0x61716674,       // 'aqft': AudioStreamBasicDescription
    kAudioQueueProperty_ChannelLayout = 0x6171636C,           // 'aqcl'
    kAudioQueueProperty_EnableLevelMetering = 0x61716D65,     // 'aqme': UInt32 0 or 1
    kAudioQueueProperty_CurrentLevelMeter = 0x61716D76,       // 'aqmv': AudioQueueLevelMeterState per channel, linear
    kAudioQueueProperty_CurrentLevelMeterDB = 0x61716D64,     // 'aqmd': AudioQueueLevelMeterState per channel, dB
    kAudioQueueProperty_DecodeBufferSizeFrames = 0x64636266,  // 'dcbf'
    kAudioQueueProperty_ConverterError = 0x71637665,          // 'qcve'
    kAudioQueueProperty_EnableTimePitch = 0x715F7470,         // 'q_tp'
    kAudioQueueProperty_TimePitchAlgorithm = 0x71747061,      // 'qtpa'
    kAudioQueueProperty_TimePitchBypass = 0x71747062,         // 'qtpb'
};

// kAudioQueueProperty_TimePitchAlgorithm's values.
OAT_ENUM(uint32_t) {
    kAudioQueueTimePitchAlgorithm_Spectral = 0x73706563,      // 'spec'
    kAudioQueueTimePitchAlgorithm_TimeDomain = 0x7469646F,    // 'tido'
    kAudioQueueTimePitchAlgorithm_Varispeed = 0x76737064,     // 'vspd'
};

OAT_ENUM(AudioQueueParameterID) {
    kAudioQueueParam_Volume = 1,
    kAudioQueueParam_PlayRate = 2,
    kAudioQueueParam_Pitch = 3,
    kAudioQueueParam_VolumeRampTime = 4,
    kAudioQueueParam_Pan = 13,
};

typedef struct OpaqueAudioQueueProcessingTap *AudioQueueProcessingTapRef;

// AudioQueue.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioQueueTimePitchAlgorithm_LowQualityZeroLatency = 0x6C717A6C,         // 'lqzl', iOS only, deprecated
};

// AudioQueue.h: CF_ENUM(AudioQueuePropertyID)  →  Swift: AudioQueuePropertyID (=UInt32)
OAT_ENUM(AudioQueuePropertyID) {
    kAudioQueueProperty_HardwareCodecPolicy = 0x61716370,         // 'aqcp', iOS only
};

// AudioQueue.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioQueueHardwareCodecPolicy_Default         = 0,                  // iOS only
    kAudioQueueHardwareCodecPolicy_UseSoftwareOnly = 1,                  // iOS only
    kAudioQueueHardwareCodecPolicy_UseHardwareOnly = 2,                  // iOS only
    kAudioQueueHardwareCodecPolicy_PreferSoftware  = 3,                  // iOS only
    kAudioQueueHardwareCodecPolicy_PreferHardware  = 4,                  // iOS only
};

// AudioQueue.h: CF_ENUM(AudioQueuePropertyID)  →  Swift: AudioQueuePropertyID (=UInt32)
OAT_ENUM(AudioQueuePropertyID) {
    kAudioQueueProperty_ChannelAssignments = 0x61716361,         // 'aqca'
};

// AudioQueue.h: typedef CF_OPTIONS(UInt32, AudioQueueProcessingTapFlags)  →  Swift: OptionSet struct AudioQueueProcessingTapFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioQueueProcessingTapFlags) {
    kAudioQueueProcessingTap_PreEffects    = (1 << 0),           // 0x00000001
    kAudioQueueProcessingTap_PostEffects   = (1 << 1),           // 0x00000002
    kAudioQueueProcessingTap_Siphon        = (1 << 2),           // 0x00000004
    kAudioQueueProcessingTap_StartOfStream = (1 << 8),           // 0x00000100
    kAudioQueueProcessingTap_EndOfStream   = (1 << 9),           // 0x00000200
};

typedef void (*AudioQueueProcessingTapCallback)(void *inClientData, AudioQueueProcessingTapRef inAQTap,
    uint32_t inNumberFrames, AudioTimeStamp *ioTimeStamp, AudioQueueProcessingTapFlags *ioFlags,
    uint32_t *outNumberFrames, AudioBufferList *ioData);

#pragma clang assume_nonnull end

#endif

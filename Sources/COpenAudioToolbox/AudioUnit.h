// Audio Unit and Audio Component types and constants, laid out as Apple's AUComponent.h, AudioComponent.h and
// AudioUnitProperties.h lay them out: the descriptions, identifiers, scopes, flags and callbacks that I/O unit code
// passes. The calls themselves are Swift functions in OpenAudioToolbox.
#ifndef OPEN_AUDIO_UNIT_H
#define OPEN_AUDIO_UNIT_H

#include "CoreAudioTypes.h"

#pragma clang assume_nonnull begin

/// A kind of unit, found by `AudioComponentFindNext`.
typedef struct OpaqueAudioComponent *AudioComponent;
/// A unit made from a component by `AudioComponentInstanceNew`.
typedef struct ComponentInstanceRecord *AudioComponentInstance;
typedef AudioComponentInstance AudioUnit;

typedef uint32_t AudioUnitPropertyID;
typedef uint32_t AudioUnitScope;
typedef uint32_t AudioUnitElement;
typedef uint32_t AudioUnitParameterID;
typedef float AudioUnitParameterValue;

/// What a component is: type, subtype and manufacturer codes (0 in a search matches any).
typedef struct AudioComponentDescription {
    OSType componentType;
    OSType componentSubType;
    OSType componentManufacturer;
    uint32_t componentFlags;
    uint32_t componentFlagsMask;
} AudioComponentDescription;

typedef OAT_OPTIONS(uint32_t, AudioComponentFlags) {
    kAudioComponentFlag_Unsearchable = 1,
    kAudioComponentFlag_SandboxSafe = 2,
    kAudioComponentFlag_IsV3AudioUnit = 4,
    kAudioComponentFlag_RequiresAsyncInstantiation = 8,
    kAudioComponentFlag_CanLoadInProcess = 0x10,
};

typedef OAT_OPTIONS(uint32_t, AudioComponentInstantiationOptions) {
    kAudioComponentInstantiation_LoadOutOfProcess = 1,
    kAudioComponentInstantiation_LoadInProcess = 2,
    kAudioComponentInstantiation_LoadedRemotely = 1u << 31,
};

typedef OAT_OPTIONS(uint32_t, AudioUnitRenderActionFlags) {
    kAudioUnitRenderAction_PreRender = 1u << 2,
    kAudioUnitRenderAction_PostRender = 1u << 3,
    kAudioUnitRenderAction_OutputIsSilence = 1u << 4,
    kAudioOfflineUnitRenderAction_Preflight = 1u << 5,
    kAudioOfflineUnitRenderAction_Render = 1u << 6,
    kAudioOfflineUnitRenderAction_Complete = 1u << 7,
    kAudioUnitRenderAction_PostRenderError = 1u << 8,
    kAudioUnitRenderAction_DoNotCheckRenderArgs = 1u << 9,
};

/// A render or input callback: fills `ioData` with `inNumberFrames` frames (an output unit's render
/// callback), or is told that `inNumberFrames` frames of input can be fetched with `AudioUnitRender`
/// (an input callback, `ioData` NULL).
typedef OSStatus (*AURenderCallback)(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                     const AudioTimeStamp *inTimeStamp, uint32_t inBusNumber,
                                     uint32_t inNumberFrames, AudioBufferList *_Nullable ioData);

typedef struct AURenderCallbackStruct {
    AURenderCallback _Nullable inputProc;
    void *_Nullable inputProcRefCon;
} AURenderCallbackStruct;

// Component types ('auou', 'aufx', …), subtypes and the one manufacturer.
OAT_ENUM(OSType) {
    kAudioUnitType_Output = 0x61756F75,            // 'auou'
    kAudioUnitType_MusicDevice = 0x61756D75,       // 'aumu'
    kAudioUnitType_MusicEffect = 0x61756D66,       // 'aumf'
    kAudioUnitType_FormatConverter = 0x61756663,   // 'aufc'
    kAudioUnitType_Effect = 0x61756678,            // 'aufx'
    kAudioUnitType_Mixer = 0x61756D78,             // 'aumx'
    kAudioUnitType_Panner = 0x6175706E,            // 'aupn'
    kAudioUnitType_Generator = 0x6175676E,         // 'augn'
    kAudioUnitType_OfflineEffect = 0x61756F6C,     // 'auol'
    kAudioUnitType_MIDIProcessor = 0x61756D69,     // 'aumi'

    kAudioUnitManufacturer_Apple = 0x6170706C,     // 'appl'

    kAudioUnitSubType_GenericOutput = 0x67656E72,      // 'genr'
    kAudioUnitSubType_RemoteIO = 0x72696F63,           // 'rioc'
    kAudioUnitSubType_HALOutput = 0x6168616C,          // 'ahal'
    kAudioUnitSubType_DefaultOutput = 0x64656620,      // 'def '
    kAudioUnitSubType_SystemOutput = 0x73797320,       // 'sys '
    kAudioUnitSubType_VoiceProcessingIO = 0x7670696F,  // 'vpio'
    kAudioUnitSubType_AUConverter = 0x636F6E76,        // 'conv'
    kAudioUnitSubType_Varispeed = 0x76617269,          // 'vari'
    kAudioUnitSubType_NewTimePitch = 0x6E757470,       // 'nutp'
    kAudioUnitSubType_MultiChannelMixer = 0x6D636D78,  // 'mcmx'
    kAudioUnitSubType_Delay = 0x64656C79,              // 'dely'
    kAudioUnitSubType_Distortion = 0x64697374,         // 'dist'
    kAudioUnitSubType_Reverb2 = 0x72766232,            // 'rvb2'
    kAudioUnitSubType_NBandEQ = 0x6E626571,            // 'nbeq'
    kAudioUnitSubType_LowPassFilter = 0x6C706173,      // 'lpas'
    kAudioUnitSubType_HighPassFilter = 0x68706173,     // 'hpas'
    kAudioUnitSubType_BandPassFilter = 0x62706173,     // 'bpas'
    kAudioUnitSubType_PeakLimiter = 0x6C6D7472,        // 'lmtr'
    kAudioUnitSubType_DynamicsProcessor = 0x64636D70,  // 'dcmp'
    kAudioUnitSubType_Sampler = 0x73616D70,            // 'samp'
    kAudioUnitSubType_MIDISynth = 0x6D73796E,          // 'msyn'
    kAudioUnitSubType_AudioFilePlayer = 0x6166706C,    // 'afpl'
    kAudioUnitSubType_ScheduledSoundPlayer = 0x7373706C, // 'sspl'
};

OAT_ENUM(AudioUnitScope) {
    kAudioUnitScope_Global = 0,
    kAudioUnitScope_Input = 1,
    kAudioUnitScope_Output = 2,
    kAudioUnitScope_Group = 3,
    kAudioUnitScope_Part = 4,
    kAudioUnitScope_Note = 5,
    kAudioUnitScope_Layer = 6,
    kAudioUnitScope_LayerItem = 7,
};

OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_ClassInfo = 0,
    kAudioUnitProperty_MakeConnection = 1,
    kAudioUnitProperty_SampleRate = 2,
    kAudioUnitProperty_ParameterList = 3,
    kAudioUnitProperty_ParameterInfo = 4,
    kAudioUnitProperty_StreamFormat = 8,
    kAudioUnitProperty_ElementCount = 11,
    kAudioUnitProperty_Latency = 12,
    kAudioUnitProperty_SupportedNumChannels = 13,
    kAudioUnitProperty_MaximumFramesPerSlice = 14,
    kAudioUnitProperty_AudioChannelLayout = 19,
    kAudioUnitProperty_TailTime = 20,
    kAudioUnitProperty_BypassEffect = 21,
    kAudioUnitProperty_LastRenderError = 22,
    kAudioUnitProperty_SetRenderCallback = 23,
    kAudioUnitProperty_FactoryPresets = 24,
    kAudioUnitProperty_RenderQuality = 26,
    kAudioUnitProperty_InPlaceProcessing = 29,
    kAudioUnitProperty_ElementName = 30,
    kAudioUnitProperty_PresentPreset = 36,
    kAudioUnitProperty_ShouldAllocateBuffer = 51,

    kAudioOutputUnitProperty_CurrentDevice = 2000,
    kAudioOutputUnitProperty_IsRunning = 2001,
    kAudioOutputUnitProperty_ChannelMap = 2002,
    kAudioOutputUnitProperty_EnableIO = 2003,
    kAudioOutputUnitProperty_StartTime = 2004,
    kAudioOutputUnitProperty_SetInputCallback = 2005,
    kAudioOutputUnitProperty_HasIO = 2006,
    kAudioOutputUnitProperty_StartTimestampsAtZero = 2007,

    kAUVoiceIOProperty_BypassVoiceProcessing = 2100,
    kAUVoiceIOProperty_VoiceProcessingEnableAGC = 2101,
    kAUVoiceIOProperty_MuteOutput = 2104,
};

// AUSampler's banks (AudioUnitProperties.h): the General MIDI percussion and melodic bank MSBs and the default LSB.
enum {
    kAUSampler_DefaultPercussionBankMSB = 0x78,
    kAUSampler_DefaultMelodicBankMSB = 0x79,
    kAUSampler_DefaultBankLSB = 0x00,
};

// Audio Unit and Audio Component result codes.
OAT_ENUM(OSStatus) {
    kAudioUnitErr_InvalidProperty = -10879,
    kAudioUnitErr_InvalidParameter = -10878,
    kAudioUnitErr_InvalidElement = -10877,
    kAudioUnitErr_NoConnection = -10876,
    kAudioUnitErr_FailedInitialization = -10875,
    kAudioUnitErr_TooManyFramesToProcess = -10874,
    kAudioUnitErr_InvalidFile = -10871,
    kAudioUnitErr_UnknownFileType = -10870,
    kAudioUnitErr_FileNotSpecified = -10869,
    kAudioUnitErr_FormatNotSupported = -10868,
    kAudioUnitErr_Uninitialized = -10867,
    kAudioUnitErr_InvalidScope = -10866,
    kAudioUnitErr_PropertyNotWritable = -10865,
    kAudioUnitErr_CannotDoInCurrentContext = -10863,
    kAudioUnitErr_InvalidPropertyValue = -10851,
    kAudioUnitErr_PropertyNotInUse = -10850,
    kAudioUnitErr_Initialized = -10849,
    kAudioUnitErr_InvalidOfflineRender = -10848,
    kAudioUnitErr_Unauthorized = -10847,
    kAudioUnitErr_RenderTimeout = -66745,
    kAudioUnitErr_ExtensionNotFound = -66744,
    kAudioComponentErr_InstanceTimedOut = -66754,
    kAudioComponentErr_InstanceInvalidated = -66749,
    kAudioComponentErr_NotPermitted = -66748,
    kAudioComponentErr_InitializationTimedOut = -66747,
    kAudioComponentErr_InvalidFormat = -66746,
};

#pragma clang assume_nonnull end

#endif

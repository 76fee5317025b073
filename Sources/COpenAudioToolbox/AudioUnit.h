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

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_CPULoad                     = 6,
    kAudioUnitProperty_ParameterValueStrings       = 16,
    kAudioUnitProperty_HostCallbacks               = 27,
    kAudioUnitProperty_SupportedChannelLayoutTags  = 32,
    kAudioUnitProperty_DependentParameters         = 45,
    kAudioUnitProperty_InputSamplesInOutput        = 49,
    kAudioUnitProperty_FrequencyResponse           = 52,
    kAudioUnitProperty_ParameterHistoryInfo        = 53,
    kAudioUnitProperty_NickName                    = 54,
    kAudioUnitProperty_OfflineRender               = 37,
    kAudioUnitProperty_ParameterIDName             = 34,
    kAudioUnitProperty_ParameterStringFromValue    = 33,
    kAudioUnitProperty_ParameterClumpName          = 35,
    kAudioUnitProperty_ParameterValueFromString    = 38,
    kAudioUnitProperty_ContextName                 = 25,
    kAudioUnitProperty_PresentationLatency         = 40,
    kAudioUnitProperty_ClassInfoFromDocument       = 50,
    kAudioUnitProperty_RequestViewController       = 56,
    kAudioUnitProperty_ParametersForOverview       = 57,
    kAudioUnitProperty_SupportsMPE                 = 58,
    kAudioUnitProperty_RenderContextObserver       = 60,
    kAudioUnitProperty_LastRenderSampleTime        = 61,
    kAudioUnitProperty_LoadedOutOfProcess          = 62,
    kAudioUnitProperty_FastDispatch                = 5,                  // macOS only
    kAudioUnitProperty_SetExternalBuffer           = 15,                 // macOS only
    kAudioUnitProperty_GetUIComponentList          = 18,                 // macOS only
    kAudioUnitProperty_CocoaUI                     = 31,                 // macOS only
    kAudioUnitProperty_IconLocation                = 39,                 // macOS only
    kAudioUnitProperty_AUHostIdentifier            = 46,                 // macOS only
    kAudioUnitProperty_MIDIOutputCallbackInfo      = 47,
    kAudioUnitProperty_MIDIOutputCallback          = 48,
    kAudioUnitProperty_MIDIOutputEventListCallback = 63,
    kAudioUnitProperty_AudioUnitMIDIProtocol       = 64,
    kAudioUnitProperty_HostMIDIProtocol            = 65,
    kAudioUnitProperty_MIDIOutputBufferSizeHint    = 66,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_RemoteControlEventListener = 100,
    kAudioUnitProperty_IsInterAppConnected        = 101,
    kAudioUnitProperty_PeerURL                    = 102,
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kRenderQuality_Max    = 127,
    kRenderQuality_High   = 96,
    kRenderQuality_Medium = 64,
    kRenderQuality_Low    = 32,
    kRenderQuality_Min    = 0,
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kNumberOfResponseFrequencies = 1024,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AudioUnitParameterUnit)  →  Swift: enum AudioUnitParameterUnit: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioUnitParameterUnit) {
    kAudioUnitParameterUnit_Generic             = 0,
    kAudioUnitParameterUnit_Indexed             = 1,
    kAudioUnitParameterUnit_Boolean             = 2,
    kAudioUnitParameterUnit_Percent             = 3,
    kAudioUnitParameterUnit_Seconds             = 4,
    kAudioUnitParameterUnit_SampleFrames        = 5,
    kAudioUnitParameterUnit_Phase               = 6,
    kAudioUnitParameterUnit_Rate                = 7,
    kAudioUnitParameterUnit_Hertz               = 8,
    kAudioUnitParameterUnit_Cents               = 9,
    kAudioUnitParameterUnit_RelativeSemiTones   = 10,
    kAudioUnitParameterUnit_MIDINoteNumber      = 11,
    kAudioUnitParameterUnit_MIDIController      = 12,
    kAudioUnitParameterUnit_Decibels            = 13,
    kAudioUnitParameterUnit_LinearGain          = 14,
    kAudioUnitParameterUnit_Degrees             = 15,
    kAudioUnitParameterUnit_EqualPowerCrossfade = 16,
    kAudioUnitParameterUnit_MixerFaderCurve1    = 17,
    kAudioUnitParameterUnit_Pan                 = 18,
    kAudioUnitParameterUnit_Meters              = 19,
    kAudioUnitParameterUnit_AbsoluteCents       = 20,
    kAudioUnitParameterUnit_Octaves             = 21,
    kAudioUnitParameterUnit_BPM                 = 22,
    kAudioUnitParameterUnit_Beats               = 23,
    kAudioUnitParameterUnit_Milliseconds        = 24,
    kAudioUnitParameterUnit_Ratio               = 25,
    kAudioUnitParameterUnit_CustomUnit          = 26,
    kAudioUnitParameterUnit_MIDI2Controller     = 27,
};

// AudioUnitProperties.h: typedef CF_OPTIONS(UInt32, AudioUnitParameterOptions)  →  Swift: OptionSet struct AudioUnitParameterOptions (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AudioUnitParameterOptions) {
    kAudioUnitParameterFlag_CFNameRelease      = (1UL << 4),         // 0x00000010
    kAudioUnitParameterFlag_OmitFromPresets    = (1UL << 13),        // 0x00002000
    kAudioUnitParameterFlag_PlotHistory        = (1UL << 14),        // 0x00004000
    kAudioUnitParameterFlag_MeterReadOnly      = (1UL << 15),        // 0x00008000
    kAudioUnitParameterFlag_DisplayMask        = (7UL << 16) | (1UL << 22), // 0x00470000
    kAudioUnitParameterFlag_DisplaySquareRoot  = (1UL << 16),        // 0x00010000
    kAudioUnitParameterFlag_DisplaySquared     = (2UL << 16),        // 0x00020000
    kAudioUnitParameterFlag_DisplayCubed       = (3UL << 16),        // 0x00030000
    kAudioUnitParameterFlag_DisplayCubeRoot    = (4UL << 16),        // 0x00040000
    kAudioUnitParameterFlag_DisplayExponential = (5UL << 16),        // 0x00050000
    kAudioUnitParameterFlag_HasClump           = (1UL << 20),        // 0x00100000
    kAudioUnitParameterFlag_ValuesHaveStrings  = (1UL << 21),        // 0x00200000
    kAudioUnitParameterFlag_DisplayLogarithmic = (1UL << 22),        // 0x00400000
    kAudioUnitParameterFlag_IsHighResolution   = (1UL << 23),        // 0x00800000
    kAudioUnitParameterFlag_NonRealTime        = (1UL << 24),        // 0x01000000
    kAudioUnitParameterFlag_CanRamp            = (1UL << 25),        // 0x02000000
    kAudioUnitParameterFlag_ExpertMode         = (1UL << 26),        // 0x04000000
    kAudioUnitParameterFlag_HasCFNameString    = (1UL << 27),        // 0x08000000
    kAudioUnitParameterFlag_IsGlobalMeta       = (1UL << 28),        // 0x10000000
    kAudioUnitParameterFlag_IsElementMeta      = (1UL << 29),        // 0x20000000
    kAudioUnitParameterFlag_IsReadable         = (1UL << 30),        // 0x40000000
    kAudioUnitParameterFlag_IsWritable         = (1UL << 31),        // 0x80000000
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAudioUnitClumpID_System = 0,
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAudioUnitParameterName_Full = -1,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AudioUnitRemoteControlEvent)  →  Swift: enum AudioUnitRemoteControlEvent: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioUnitRemoteControlEvent) {
    kAudioUnitRemoteControlEvent_TogglePlayPause = 1,
    kAudioUnitRemoteControlEvent_ToggleRecord    = 2,
    kAudioUnitRemoteControlEvent_Rewind          = 3,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_AllParameterMIDIMappings   = 41,                 // macOS only
    kAudioUnitProperty_AddParameterMIDIMapping    = 42,                 // macOS only
    kAudioUnitProperty_RemoveParameterMIDIMapping = 43,                 // macOS only
    kAudioUnitProperty_HotMapParameterMIDIMapping = 44,                 // macOS only
};

// AudioUnitProperties.h: typedef CF_OPTIONS(UInt32, AUParameterMIDIMappingFlags)  →  Swift: OptionSet struct AUParameterMIDIMappingFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AUParameterMIDIMappingFlags) {
    kAUParameterMIDIMapping_AnyChannelFlag = (1L << 0),          // 0x00000001, macOS only
    kAUParameterMIDIMapping_AnyNoteFlag    = (1L << 1),          // 0x00000002, macOS only
    kAUParameterMIDIMapping_SubRange       = (1L << 2),          // 0x00000004, macOS only
    kAUParameterMIDIMapping_Toggle         = (1L << 3),          // 0x00000008, macOS only
    kAUParameterMIDIMapping_Bipolar        = (1L << 4),          // 0x00000010, macOS only
    kAUParameterMIDIMapping_Bipolar_On     = (1L << 5),          // 0x00000020, macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kMusicDeviceProperty_MIDIXMLNames          = 1006,               // macOS only
    kMusicDeviceProperty_PartGroup             = 1010,               // macOS only
    kMusicDeviceProperty_DualSchedulingMode    = 1013,               // macOS only
    kMusicDeviceProperty_SupportsStartStopNote = 1014,               // macOS only
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kMusicDeviceSampleFrameMask_SampleOffset = 0xFFFFFF,           // macOS only
    kMusicDeviceSampleFrameMask_IsScheduled  = 0x01000000,         // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitOfflineProperty_InputSize             = 3020,               // macOS only
    kAudioUnitOfflineProperty_OutputSize            = 3021,               // macOS only
    kAudioUnitOfflineProperty_StartOffset           = 3022,               // macOS only
    kAudioUnitOfflineProperty_PreflightRequirements = 3023,               // macOS only
    kAudioUnitOfflineProperty_PreflightName         = 3024,               // macOS only
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kOfflinePreflight_NotRequired = 0,                  // macOS only
    kOfflinePreflight_Optional    = 1,                  // macOS only
    kOfflinePreflight_Required    = 2,                  // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_DistanceAttenuationData = 3600,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitMigrateProperty_FromPlugin    = 4000,               // macOS only
    kAudioUnitMigrateProperty_OldAutomation = 4001,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kOtherPluginFormat_Undefined = 0,                  // macOS only
    kOtherPluginFormat_kMAS      = 1,                  // macOS only
    kOtherPluginFormat_kVST      = 2,                  // macOS only
    kOtherPluginFormat_AU        = 3,                  // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_SampleRateConverterComplexity = 3014,
};

// AudioUnitProperties.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSampleRateConverterComplexity_Linear    = 0x6C696E65,         // 'line'
    kAudioUnitSampleRateConverterComplexity_Normal    = 0x6E6F726D,         // 'norm'
    kAudioUnitSampleRateConverterComplexity_Mastering = 0x62617473,         // 'bats'
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioOutputUnitProperty_OSWorkgroup = 2015,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioOutputUnitProperty_MIDICallbacks                   = 2010,
    kAudioOutputUnitProperty_HostReceivesRemoteControlEvents = 2011,
    kAudioOutputUnitProperty_RemoteControlToHost             = 2012,
    kAudioOutputUnitProperty_HostTransportState              = 2013,
    kAudioOutputUnitProperty_NodeComponentDescription        = 2014,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUVoiceIOSpeechActivityEvent)  →  Swift: enum AUVoiceIOSpeechActivityEvent: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUVoiceIOSpeechActivityEvent) {
    kAUVoiceIOSpeechActivityHasStarted = 0,
    kAUVoiceIOSpeechActivityHasEnded   = 1,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUVoiceIOProperty_MutedSpeechActivityEventListener = 2106,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUVoiceIOOtherAudioDuckingLevel)  →  Swift: enum AUVoiceIOOtherAudioDuckingLevel: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUVoiceIOOtherAudioDuckingLevel) {
    kAUVoiceIOOtherAudioDuckingLevelDefault = 0,
    kAUVoiceIOOtherAudioDuckingLevelMin     = 10,
    kAUVoiceIOOtherAudioDuckingLevelMid     = 20,
    kAUVoiceIOOtherAudioDuckingLevelMax     = 30,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUVoiceIOProperty_OtherAudioDuckingConfiguration = 2108,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUVoiceIOProperty_DuckNonVoiceAudio = 2102,               // iOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUVoiceIOProperty_VoiceProcessingQuality = 2103,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUNBandEQProperty_NumberOfBands      = 2200,
    kAUNBandEQProperty_MaxNumberOfBands   = 2201,
    kAUNBandEQProperty_BiquadCoefficients = 2203,
};

// AudioUnitProperties.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAUVoiceIOErr_UnexpectedNumberOfInputChannels = -66784,             // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_MeteringMode         = 3007,
    kAudioUnitProperty_MatrixLevels         = 3006,
    kAudioUnitProperty_MatrixDimensions     = 3009,
    kAudioUnitProperty_MeterClipping        = 3011,
    kAudioUnitProperty_InputAnchorTimeStamp = 3016,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_ReverbRoomType                              = 10,
    kAudioUnitProperty_UsesInternalReverb                          = 1005,
    kAudioUnitProperty_SpatializationAlgorithm                     = 3000,
    kAudioUnitProperty_SpatialMixerRenderingFlags                  = 3003,
    kAudioUnitProperty_SpatialMixerSourceMode                      = 3005,
    kAudioUnitProperty_SpatialMixerDistanceParams                  = 3010,
    kAudioUnitProperty_SpatialMixerAttenuationCurve                = 3013,
    kAudioUnitProperty_SpatialMixerOutputType                      = 3100,
    kAudioUnitProperty_SpatialMixerPointSourceInHeadMode           = 3103,
    kAudioUnitProperty_SpatialMixerEnableHeadTracking              = 3111,
    kAudioUnitProperty_SpatialMixerPersonalizedHRTFMode            = 3113,
    kAudioUnitProperty_SpatialMixerAnyInputIsUsingPersonalizedHRTF = 3116,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatializationAlgorithm)  →  Swift: enum AUSpatializationAlgorithm: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatializationAlgorithm) {
    kSpatializationAlgorithm_EqualPowerPanning  = 0,
    kSpatializationAlgorithm_SphericalHead      = 1,
    kSpatializationAlgorithm_HRTF               = 2,
    kSpatializationAlgorithm_SoundField         = 3,
    kSpatializationAlgorithm_VectorBasedPanning = 4,
    kSpatializationAlgorithm_StereoPassThrough  = 5,
    kSpatializationAlgorithm_HRTFHQ             = 6,
    kSpatializationAlgorithm_UseOutputType      = 7,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatialMixerSourceMode)  →  Swift: enum AUSpatialMixerSourceMode: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatialMixerSourceMode) {
    kSpatialMixerSourceMode_SpatializeIfMono = 0,
    kSpatialMixerSourceMode_Bypass           = 1,
    kSpatialMixerSourceMode_PointSource      = 2,
    kSpatialMixerSourceMode_AmbienceBed      = 3,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUReverbRoomType)  →  Swift: enum AUReverbRoomType: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUReverbRoomType) {
    kReverbRoomType_SmallRoom     = 0,
    kReverbRoomType_MediumRoom    = 1,
    kReverbRoomType_LargeRoom     = 2,
    kReverbRoomType_MediumHall    = 3,
    kReverbRoomType_LargeHall     = 4,
    kReverbRoomType_Plate         = 5,
    kReverbRoomType_MediumChamber = 6,
    kReverbRoomType_LargeChamber  = 7,
    kReverbRoomType_Cathedral     = 8,
    kReverbRoomType_LargeRoom2    = 9,
    kReverbRoomType_MediumHall2   = 10,
    kReverbRoomType_MediumHall3   = 11,
    kReverbRoomType_LargeHall2    = 12,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatialMixerAttenuationCurve)  →  Swift: enum AUSpatialMixerAttenuationCurve: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatialMixerAttenuationCurve) {
    kSpatialMixerAttenuationCurve_Power       = 0,
    kSpatialMixerAttenuationCurve_Exponential = 1,
    kSpatialMixerAttenuationCurve_Inverse     = 2,
    kSpatialMixerAttenuationCurve_Linear      = 3,
};

// AudioUnitProperties.h: typedef CF_OPTIONS(UInt32, AUSpatialMixerRenderingFlags)  →  Swift: OptionSet struct AUSpatialMixerRenderingFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AUSpatialMixerRenderingFlags) {
    kSpatialMixerRenderingFlags_InterAuralDelay     = (1L << 0),          // 0x00000001
    kSpatialMixerRenderingFlags_DistanceAttenuation = (1L << 2),          // 0x00000004
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatialMixerPersonalizedHRTFMode)  →  Swift: enum AUSpatialMixerPersonalizedHRTFMode: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatialMixerPersonalizedHRTFMode) {
    kSpatialMixerPersonalizedHRTFMode_Off  = 0,
    kSpatialMixerPersonalizedHRTFMode_On   = 1,
    kSpatialMixerPersonalizedHRTFMode_Auto = 2,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatialMixerOutputType)  →  Swift: enum AUSpatialMixerOutputType: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatialMixerOutputType) {
    kSpatialMixerOutputType_Headphones       = 1,
    kSpatialMixerOutputType_BuiltInSpeakers  = 2,
    kSpatialMixerOutputType_ExternalSpeakers = 3,
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AUSpatialMixerPointSourceInHeadMode)  →  Swift: enum AUSpatialMixerPointSourceInHeadMode: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUSpatialMixerPointSourceInHeadMode) {
    kSpatialMixerPointSourceInHeadMode_Mono   = 0,
    kSpatialMixerPointSourceInHeadMode_Bypass = 1,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_3DMixerDistanceParams   = 3010,
    kAudioUnitProperty_3DMixerAttenuationCurve = 3013,
    kAudioUnitProperty_DopplerShift            = 3002,
    kAudioUnitProperty_3DMixerRenderingFlags   = 3003,
    kAudioUnitProperty_3DMixerDistanceAtten    = 3004,
    kAudioUnitProperty_ReverbPreset            = 3012,
};

// AudioUnitProperties.h: typedef CF_OPTIONS(UInt32, AU3DMixerRenderingFlags)  →  Swift: OptionSet struct AU3DMixerRenderingFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AU3DMixerRenderingFlags) {
    k3DMixerRenderingFlags_InterAuralDelay           = (1L << 0),          // 0x00000001
    k3DMixerRenderingFlags_DopplerShift              = (1L << 1),          // 0x00000002
    k3DMixerRenderingFlags_DistanceAttenuation       = (1L << 2),          // 0x00000004
    k3DMixerRenderingFlags_DistanceFilter            = (1L << 3),          // 0x00000008
    k3DMixerRenderingFlags_DistanceDiffusion         = (1L << 4),          // 0x00000010
    k3DMixerRenderingFlags_LinearDistanceAttenuation = (1L << 5),          // 0x00000020
    k3DMixerRenderingFlags_ConstantReverbBlend       = (1L << 6),          // 0x00000040
};

// AudioUnitProperties.h: typedef CF_ENUM(UInt32, AU3DMixerAttenuationCurve)  →  Swift: enum AU3DMixerAttenuationCurve: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AU3DMixerAttenuationCurve) {
    k3DMixerAttenuationCurve_Power       = 0,
    k3DMixerAttenuationCurve_Exponential = 1,
    k3DMixerAttenuationCurve_Inverse     = 2,
    k3DMixerAttenuationCurve_Linear      = 3,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_ScheduleAudioSlice     = 3300,
    kAudioUnitProperty_ScheduleStartTimeStamp = 3301,
    kAudioUnitProperty_CurrentPlayTime        = 3302,
};

// AudioUnitProperties.h: typedef CF_OPTIONS(UInt32, AUScheduledAudioSliceFlags)  →  Swift: OptionSet struct AUScheduledAudioSliceFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, AUScheduledAudioSliceFlags) {
    kScheduledAudioSliceFlag_Complete          = 0x01,
    kScheduledAudioSliceFlag_BeganToRender     = 0x02,
    kScheduledAudioSliceFlag_BeganToRenderLate = 0x04,
    kScheduledAudioSliceFlag_Loop              = 0x08,
    kScheduledAudioSliceFlag_Interrupt         = 0x10,
    kScheduledAudioSliceFlag_InterruptAtLoop   = 0x20,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_ScheduledFileIDs              = 3310,
    kAudioUnitProperty_ScheduledFileRegion           = 3311,
    kAudioUnitProperty_ScheduledFilePrime            = 3312,
    kAudioUnitProperty_ScheduledFileBufferSizeFrames = 3313,
    kAudioUnitProperty_ScheduledFileNumberBuffers    = 3314,
};

// AudioUnitProperties.h: what kAudioUnitProperty_ScheduledFileRegion takes (the file player's regions).
struct ScheduledAudioFileRegion;
typedef void (*ScheduledAudioFileRegionCompletionProc)(void *_Nullable userData, struct ScheduledAudioFileRegion *fileRegion,
                                                       OSStatus result);
struct ScheduledAudioFileRegion {
    AudioTimeStamp mTimeStamp;
    ScheduledAudioFileRegionCompletionProc _Nullable mCompletionProc;
    void *_Nullable mCompletionProcUserData;
    struct OpaqueAudioFileID *mAudioFile;
    uint32_t mLoopCount;
    int64_t mStartFrame;
    uint32_t mFramesToPlay;
};
typedef struct ScheduledAudioFileRegion ScheduledAudioFileRegion;

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kMusicDeviceProperty_UsesInternalReverb = kAudioUnitProperty_UsesInternalReverb, // 0x3ED (1005), macOS only
    kMusicDeviceProperty_SoundBankData      = 1008,               // macOS only
    kMusicDeviceProperty_StreamFromDisk     = 1011,               // macOS only
    kMusicDeviceProperty_SoundBankFSRef     = 1012,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kMusicDeviceProperty_InstrumentName   = 1001,
    kMusicDeviceProperty_InstrumentNumber = 1004,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kMusicDeviceProperty_InstrumentCount = 1000,
    kMusicDeviceProperty_BankName        = 1007,
    kMusicDeviceProperty_SoundBankURL    = 1100,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUMIDISynthProperty_EnablePreload = 4119,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUSamplerProperty_LoadInstrument = 4102,
    kAUSamplerProperty_LoadAudioFiles = 4101,
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kInstrumentType_DLSPreset = 1,
    kInstrumentType_SF2Preset = kInstrumentType_DLSPreset, // 0x1 (1)
    kInstrumentType_AUPreset  = 2,
    kInstrumentType_Audiofile = 3,
    kInstrumentType_EXS24     = 4,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_DeferredRendererPullSize     = 3320,
    kAudioUnitProperty_DeferredRendererExtraLatency = 3321,
    kAudioUnitProperty_DeferredRendererWaitFrames   = 3322,
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUNetReceiveProperty_Hostname = 3511,               // macOS only
    kAUNetReceiveProperty_Password = 3512,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUNetSendProperty_PortNum                 = 3513,               // macOS only
    kAUNetSendProperty_TransmissionFormat      = 3514,               // macOS only
    kAUNetSendProperty_TransmissionFormatIndex = 3515,               // macOS only
    kAUNetSendProperty_ServiceName             = 3516,               // macOS only
    kAUNetSendProperty_Disconnect              = 3517,               // macOS only
    kAUNetSendProperty_Password                = 3518,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUNetSendPresetFormat_PCMFloat32      = 0,                  // macOS only
    kAUNetSendPresetFormat_PCMInt24        = 1,                  // macOS only
    kAUNetSendPresetFormat_PCMInt16        = 2,                  // macOS only
    kAUNetSendPresetFormat_Lossless24      = 3,                  // macOS only
    kAUNetSendPresetFormat_Lossless16      = 4,                  // macOS only
    kAUNetSendPresetFormat_ULaw            = 5,                  // macOS only
    kAUNetSendPresetFormat_IMA4            = 6,                  // macOS only
    kAUNetSendPresetFormat_AAC_128kbpspc   = 7,                  // macOS only
    kAUNetSendPresetFormat_AAC_96kbpspc    = 8,                  // macOS only
    kAUNetSendPresetFormat_AAC_80kbpspc    = 9,                  // macOS only
    kAUNetSendPresetFormat_AAC_64kbpspc    = 10,                 // macOS only
    kAUNetSendPresetFormat_AAC_48kbpspc    = 11,                 // macOS only
    kAUNetSendPresetFormat_AAC_40kbpspc    = 12,                 // macOS only
    kAUNetSendPresetFormat_AAC_32kbpspc    = 13,                 // macOS only
    kAUNetSendPresetFormat_AAC_LD_64kbpspc = 14,                 // macOS only
    kAUNetSendPresetFormat_AAC_LD_48kbpspc = 15,                 // macOS only
    kAUNetSendPresetFormat_AAC_LD_40kbpspc = 16,                 // macOS only
    kAUNetSendPresetFormat_AAC_LD_32kbpspc = 17,                 // macOS only
    kAUNetSendNumPresetFormats             = 18,                 // macOS only
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAudioUnitParameterFlag_Global = (1L << 0),          // 0x00000001, macOS only
    kAudioUnitParameterFlag_Input  = (1L << 1),          // 0x00000002, macOS only
    kAudioUnitParameterFlag_Output = (1L << 2),          // 0x00000004, macOS only
    kAudioUnitParameterFlag_Group  = (1L << 3),          // 0x00000008, macOS only
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAudioUnitParameterFlag_HasName = kAudioUnitParameterFlag_ValuesHaveStrings, // 0x00200000, macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_SRCAlgorithm       = 9,                  // macOS only
    kAudioUnitProperty_MIDIControlMapping = 17,                 // macOS only
    kAudioUnitProperty_CurrentPreset      = 28,                 // macOS only
    kAudioUnitProperty_ParameterValueName = kAudioUnitProperty_ParameterStringFromValue, // 0x21 (33), macOS only
    kAudioUnitProperty_BusCount           = kAudioUnitProperty_ElementCount, // 0xB (11), macOS only
    kAudioOfflineUnitProperty_InputSize   = kAudioUnitOfflineProperty_InputSize, // 0xBCC (3020), macOS only
    kAudioOfflineUnitProperty_OutputSize  = kAudioUnitOfflineProperty_OutputSize, // 0xBCD (3021), macOS only
};

// AudioUnitProperties.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSRCAlgorithm_Polyphase     = 0x706F6C79,         // 'poly', macOS only
    kAudioUnitSRCAlgorithm_MediumQuality = 0x63737263,         // 'csrc', macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kMusicDeviceProperty_GroupOutputBus  = 1002,               // macOS only
    kMusicDeviceProperty_SoundBankFSSpec = 1003,               // macOS only
    kAudioUnitProperty_PannerMode        = 3008,               // macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAudioUnitProperty_SpeakerConfiguration = 3001,               // macOS only
};

// AudioUnitProperties.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kSpeakerConfiguration_HeadPhones = 0,                  // macOS only
    kSpeakerConfiguration_Stereo     = 1,                  // macOS only
    kSpeakerConfiguration_Quad       = 2,                  // macOS only
    kSpeakerConfiguration_5_0        = 3,                  // macOS only
    kSpeakerConfiguration_5_1        = kSpeakerConfiguration_5_0, // 0x3 (3), macOS only
};

// AudioUnitProperties.h: CF_ENUM(AudioUnitPropertyID)  →  Swift: AudioUnitPropertyID (=UInt32)
OAT_ENUM(AudioUnitPropertyID) {
    kAUSamplerProperty_LoadPresetFromBank = 4100,
    kAUSamplerProperty_BankAndPreset      = kAUSamplerProperty_LoadPresetFromBank, // 0x1004 (4100)
};

// AudioComponent.h: typedef CF_ENUM(UInt32, AudioComponentValidationResult)  →  Swift: enum AudioComponentValidationResult: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AudioComponentValidationResult) {
    kAudioComponentValidationResult_Unknown                = 0,
    kAudioComponentValidationResult_Passed                 = 1,
    kAudioComponentValidationResult_Failed                 = 2,
    kAudioComponentValidationResult_TimedOut               = 3,
    kAudioComponentValidationResult_UnauthorizedError_Open = 4,
    kAudioComponentValidationResult_UnauthorizedError_Init = 5,
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitType_SpeechSynthesizer = 0x61757370,         // 'ausp'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitType_RemoteEffect      = 0x61757278,         // 'aurx'
    kAudioUnitType_RemoteGenerator   = 0x61757267,         // 'aurg'
    kAudioUnitType_RemoteInstrument  = 0x61757269,         // 'auri'
    kAudioUnitType_RemoteMusicEffect = 0x6175726D,         // 'aurm'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_DLSSynth = 0x646C7320,         // 'dls ', macOS only
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_DeferredRenderer = 0x64656672,         // 'defr'
    kAudioUnitSubType_Splitter         = 0x73706C74,         // 'splt'
    kAudioUnitSubType_MultiSplitter    = 0x6D73706C,         // 'mspl'
    kAudioUnitSubType_Merger           = 0x6D657267,         // 'merg'
    kAudioUnitSubType_AUiPodTimeOther  = 0x6970746F,         // 'ipto'
    kAudioUnitSubType_RoundTripAAC     = 0x72616163,         // 'raac'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_TimePitch = 0x746D7074,         // 'tmpt'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_AUiPodTime = 0x6970746D,         // 'iptm', iOS only, deprecated
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_HighShelfFilter  = 0x68736866,         // 'hshf'
    kAudioUnitSubType_LowShelfFilter   = 0x6C736866,         // 'lshf'
    kAudioUnitSubType_ParametricEQ     = 0x706D6571,         // 'pmeq'
    kAudioUnitSubType_SampleDelay      = 0x73646C79,         // 'sdly'
    kAudioUnitSubType_AUSoundIsolation = 0x766F6973,         // 'vois'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_GraphicEQ           = 0x67726571,         // 'greq', macOS only
    kAudioUnitSubType_MultiBandCompressor = 0x6D636D70,         // 'mcmp', macOS only
    kAudioUnitSubType_MatrixReverb        = 0x6D726576,         // 'mrev', macOS only
    kAudioUnitSubType_Pitch               = 0x746D7074,         // 'tmpt', macOS only
    kAudioUnitSubType_AUFilter            = 0x66696C74,         // 'filt', macOS only
    kAudioUnitSubType_NetSend             = 0x6E736E64,         // 'nsnd', macOS only
    kAudioUnitSubType_RogerBeep           = 0x726F6772,         // 'rogr', macOS only
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_AUiPodEQ = 0x69706571,         // 'ipeq', iOS only, deprecated
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_MatrixMixer  = 0x6D786D78,         // 'mxmx'
    kAudioUnitSubType_SpatialMixer = 0x3364656D,         // '3dem'
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_StereoMixer = 0x736D7872,         // 'smxr', macOS only
    kAudioUnitSubType_3DMixer     = 0x33646D78,         // '3dmx', macOS only, deprecated
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_AU3DMixerEmbedded = 0x3364656D,         // '3dem', iOS only
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_SphericalHeadPanner = 0x73706872,         // 'sphr', macOS only
    kAudioUnitSubType_VectorPanner        = 0x76626173,         // 'vbas', macOS only
    kAudioUnitSubType_SoundFieldPanner    = 0x616D6269,         // 'ambi', macOS only
    kAudioUnitSubType_HRTFPanner          = 0x68727466,         // 'hrtf', macOS only
};

// AUComponent.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAudioUnitSubType_NetReceive = 0x6E726376,         // 'nrcv', macOS only
};

// AUComponent.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioUnitErr_MIDIOutputBufferFull         = -66753,
    kAudioUnitErr_InvalidParameterValue        = -66743,
    kAudioUnitErr_InvalidFilePath              = -66742,
    kAudioUnitErr_MissingKey                   = -66741,
    kAudioUnitErr_ComponentManagerNotSupported = -66740,
};

// AUComponent.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioComponentErr_DuplicateDescription = -66752,
    kAudioComponentErr_UnsupportedType      = -66751,
    kAudioComponentErr_TooManyInstances     = -66750,
};

// AUComponent.h: typedef CF_ENUM(UInt32, AUParameterEventType)  →  Swift: enum AUParameterEventType: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, AUParameterEventType) {
    kParameterEvent_Immediate = 1,
    kParameterEvent_Ramped    = 2,
};

// AUComponent.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAudioUnitRange                                    = 0x0000,
    kAudioUnitInitializeSelect                         = 0x0001,
    kAudioUnitUninitializeSelect                       = 0x0002,
    kAudioUnitGetPropertyInfoSelect                    = 0x0003,
    kAudioUnitGetPropertySelect                        = 0x0004,
    kAudioUnitSetPropertySelect                        = 0x0005,
    kAudioUnitAddPropertyListenerSelect                = 0x000A,
    kAudioUnitRemovePropertyListenerSelect             = 0x000B,
    kAudioUnitRemovePropertyListenerWithUserDataSelect = 0x0012,
    kAudioUnitAddRenderNotifySelect                    = 0x000F,
    kAudioUnitRemoveRenderNotifySelect                 = 0x0010,
    kAudioUnitGetParameterSelect                       = 0x0006,
    kAudioUnitSetParameterSelect                       = 0x0007,
    kAudioUnitScheduleParametersSelect                 = 0x0011,
    kAudioUnitRenderSelect                             = 0x000E,
    kAudioUnitResetSelect                              = 0x0009,
    kAudioUnitComplexRenderSelect                      = 0x0013,
    kAudioUnitProcessSelect                            = 0x0014,
    kAudioUnitProcessMultipleSelect                    = 0x0015,
};

// AUComponent.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioUnitErr_IllegalInstrument      = -10873,
    kAudioUnitErr_InstrumentTypeNotFound = -10872,
};

typedef struct AudioUnitParameterEvent {
    AudioUnitScope scope;
    AudioUnitElement element;
    AudioUnitParameterID parameter;
    AUParameterEventType eventType;
    union {
        struct {
            int32_t startBufferOffset;
            uint32_t durationInFrames;
            AudioUnitParameterValue startValue;
            AudioUnitParameterValue endValue;
        } ramp;
        struct {
            uint32_t bufferOffset;
            AudioUnitParameterValue value;
        } immediate;
    } eventValues;
} AudioUnitParameterEvent;

typedef struct AudioUnitParameter {
    AudioUnit mAudioUnit;
    AudioUnitParameterID mParameterID;
    AudioUnitScope mScope;
    AudioUnitElement mElement;
} AudioUnitParameter;

typedef struct AudioUnitProperty {
    AudioUnit mAudioUnit;
    AudioUnitPropertyID mPropertyID;
    AudioUnitScope mScope;
    AudioUnitElement mElement;
} AudioUnitProperty;

typedef void (*AudioUnitPropertyListenerProc)(void *inRefCon, AudioUnit inUnit, AudioUnitPropertyID inID,
    AudioUnitScope inScope, AudioUnitElement inElement);

/// kAudioUnitProperty_MakeConnection.
typedef struct AudioUnitConnection {
    AudioUnit _Nullable sourceAudioUnit;
    uint32_t sourceOutputNumber;
    uint32_t destInputNumber;
} AudioUnitConnection;

/// kAudioUnitProperty_SupportedNumChannels (-1 = any).
typedef struct AUChannelInfo {
    int16_t inChannels;
    int16_t outChannels;
} AUChannelInfo;

typedef struct AudioUnitFrequencyResponseBin {
    double mFrequency;
    double mMagnitude;
} AudioUnitFrequencyResponseBin;

typedef struct AUDependentParameter {
    AudioUnitScope mScope;
    AudioUnitParameterID mParameterID;
} AUDependentParameter;

#pragma clang assume_nonnull end

#endif

// Music Player / Music Sequence types and constants as Apple's MusicPlayer.h declares them.
#ifndef OPEN_MUSIC_PLAYER_H
#define OPEN_MUSIC_PLAYER_H

#include <float.h>
#include "AudioUnit.h"

#pragma clang assume_nonnull begin

typedef uint32_t MusicEventType;
typedef double MusicTimeStamp;
typedef uint32_t MusicDeviceGroupID;   // MusicDevice.h; needed by ExtendedControlEvent

typedef struct OpaqueMusicPlayer *MusicPlayer;
typedef struct OpaqueMusicSequence *MusicSequence;
typedef struct OpaqueMusicTrack *MusicTrack;
typedef struct OpaqueMusicEventIterator *MusicEventIterator;

// Apple: `#define kMusicTimeStamp_EndOfTrack DBL_MAX` (Swift: Double).
#define kMusicTimeStamp_EndOfTrack DBL_MAX

// MusicPlayer.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kMusicEventType_NULL               = 0,
    kMusicEventType_ExtendedNote       = 1,
    kMusicEventType_ExtendedTempo      = 3,
    kMusicEventType_User               = 4,
    kMusicEventType_Meta               = 5,
    kMusicEventType_MIDINoteMessage    = 6,
    kMusicEventType_MIDIChannelMessage = 7,
    kMusicEventType_MIDIRawData        = 8,
    kMusicEventType_Parameter          = 9,
    kMusicEventType_AUPreset           = 10,
};

// MusicPlayer.h: typedef CF_OPTIONS(UInt32, MusicSequenceLoadFlags)  →  Swift: OptionSet struct MusicSequenceLoadFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, MusicSequenceLoadFlags) {
    kMusicSequenceLoadSMF_PreserveTracks   = 0,
    kMusicSequenceLoadSMF_ChannelsToTracks = (1 << 0),           // 0x00000001
};

// MusicPlayer.h: typedef CF_ENUM(UInt32, MusicSequenceType)  →  Swift: enum MusicSequenceType: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, MusicSequenceType) {
    kMusicSequenceType_Beats   = 0x62656174,         // 'beat'
    kMusicSequenceType_Seconds = 0x73656373,         // 'secs'
    kMusicSequenceType_Samples = 0x73616D70,         // 'samp'
};

// MusicPlayer.h: typedef CF_ENUM(UInt32, MusicSequenceFileTypeID)  →  Swift: enum MusicSequenceFileTypeID: UInt32
typedef OAT_CLOSED_ENUM(uint32_t, MusicSequenceFileTypeID) {
    kMusicSequenceFile_AnyType     = 0,
    kMusicSequenceFile_MIDIType    = 0x6D696469,         // 'midi'
    kMusicSequenceFile_iMelodyType = 0x696D656C,         // 'imel'
};

// MusicPlayer.h: typedef CF_OPTIONS(UInt32, MusicSequenceFileFlags)  →  Swift: OptionSet struct MusicSequenceFileFlags (RawValue UInt32)
typedef OAT_OPTIONS(uint32_t, MusicSequenceFileFlags) {
    kMusicSequenceFileFlags_Default   = 0,
    kMusicSequenceFileFlags_EraseFile = 1,
};

// MusicPlayer.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAudioToolboxErr_InvalidSequenceType      = -10846,
    kAudioToolboxErr_TrackIndexError          = -10859,
    kAudioToolboxErr_TrackNotFound            = -10858,
    kAudioToolboxErr_EndOfTrack               = -10857,
    kAudioToolboxErr_StartOfTrack             = -10856,
    kAudioToolboxErr_IllegalTrackDestination  = -10855,
    kAudioToolboxErr_NoSequence               = -10854,
    kAudioToolboxErr_InvalidEventType         = -10853,
    kAudioToolboxErr_InvalidPlayerState       = -10852,
    kAudioToolboxErr_CannotDoInCurrentContext = -10863,
    kAudioToolboxError_NoTrackDestination     = -66720,
};

// MusicPlayer.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kSequenceTrackProperty_LoopInfo            = 0,
    kSequenceTrackProperty_OffsetTime          = 1,
    kSequenceTrackProperty_MuteStatus          = 2,
    kSequenceTrackProperty_SoloStatus          = 3,
    kSequenceTrackProperty_AutomatedParameters = 4,
    kSequenceTrackProperty_TrackLength         = 5,
    kSequenceTrackProperty_TimeResolution      = 6,
};

// MusicPlayer.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kMusicEventType_ExtendedControl = 2,                  // macOS only
};

typedef struct MIDINoteMessage {
    uint8_t channel;
    uint8_t note;
    uint8_t velocity;
    uint8_t releaseVelocity;
    float duration;
} MIDINoteMessage;

typedef struct MIDIChannelMessage {
    uint8_t status;
    uint8_t data1;
    uint8_t data2;
    uint8_t reserved;
} MIDIChannelMessage;

typedef struct MIDIRawData {
    uint32_t length;
    uint8_t data[1];
} MIDIRawData;

typedef struct MIDIMetaEvent {
    uint8_t metaEventType;
    uint8_t unused1;
    uint8_t unused2;
    uint8_t unused3;
    uint32_t dataLength;
    uint8_t data[1];
} MIDIMetaEvent;

typedef struct MusicEventUserData {
    uint32_t length;
    uint8_t data[1];
} MusicEventUserData;

typedef struct ParameterEvent {
    AudioUnitParameterID parameterID;
    AudioUnitScope scope;
    AudioUnitElement element;
    AudioUnitParameterValue value;
} ParameterEvent;

typedef struct ExtendedTempoEvent {
    double bpm;
} ExtendedTempoEvent;

typedef struct ExtendedControlEvent {   // macOS only
    MusicDeviceGroupID groupID;
    AudioUnitParameterID controlID;
    AudioUnitParameterValue value;
} ExtendedControlEvent;

typedef struct CABarBeatTime {
    int32_t bar;
    uint16_t beat;
    uint16_t subbeat;
    uint16_t subbeatDivisor;
    uint16_t reserved;
} CABarBeatTime;

typedef struct MusicTrackLoopInfo {
    MusicTimeStamp loopDuration;
    int32_t numberOfLoops;
} MusicTrackLoopInfo;

typedef void (*MusicSequenceUserCallback)(void *_Nullable inClientData, MusicSequence inSequence, MusicTrack inTrack,
    MusicTimeStamp inEventTime, const MusicEventUserData *inEventData, MusicTimeStamp inStartSliceBeat,
    MusicTimeStamp inEndSliceBeat);

#pragma clang assume_nonnull end

#endif

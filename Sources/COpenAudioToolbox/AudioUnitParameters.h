// The parameter IDs of Apple's audio units, as AudioUnitParameters.h declares them.
#ifndef OPEN_AUDIO_UNIT_PARAMETERS_H
#define OPEN_AUDIO_UNIT_PARAMETERS_H

#include "AudioUnit.h"

#pragma clang assume_nonnull begin

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUGroupParameterID_Volume               = 7,
    kAUGroupParameterID_Sustain              = 64,
    kAUGroupParameterID_Sostenuto            = 66,
    kAUGroupParameterID_AllNotesOff          = 123,
    kAUGroupParameterID_ModWheel             = 1,
    kAUGroupParameterID_PitchBend            = 0xE0,
    kAUGroupParameterID_AllSoundOff          = 120,
    kAUGroupParameterID_ResetAllControllers  = 121,
    kAUGroupParameterID_Pan                  = 10,
    kAUGroupParameterID_Foot                 = 4,
    kAUGroupParameterID_ChannelPressure      = 0xD0,
    kAUGroupParameterID_KeyPressure          = 0xA0,
    kAUGroupParameterID_Expression           = 11,
    kAUGroupParameterID_DataEntry            = 6,
    kAUGroupParameterID_Volume_LSB           = kAUGroupParameterID_Volume + 32, // 0x27 (39)
    kAUGroupParameterID_ModWheel_LSB         = kAUGroupParameterID_ModWheel + 32, // 0x21 (33)
    kAUGroupParameterID_Pan_LSB              = kAUGroupParameterID_Pan + 32, // 0x2A (42)
    kAUGroupParameterID_Foot_LSB             = kAUGroupParameterID_Foot + 32, // 0x24 (36)
    kAUGroupParameterID_Expression_LSB       = kAUGroupParameterID_Expression + 32, // 0x2B (43)
    kAUGroupParameterID_DataEntry_LSB        = kAUGroupParameterID_DataEntry + 32, // 0x26 (38)
    kAUGroupParameterID_KeyPressure_FirstKey = 256,
    kAUGroupParameterID_KeyPressure_LastKey  = 383,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kPannerParam_Gain        = 0,                  // macOS only
    kPannerParam_Azimuth     = 1,                  // macOS only
    kPannerParam_Elevation   = 2,                  // macOS only
    kPannerParam_Distance    = 3,                  // macOS only
    kPannerParam_CoordScale  = 4,                  // macOS only
    kPannerParam_RefDistance = 5,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kSpatialMixerParam_Azimuth                = 0,
    kSpatialMixerParam_Elevation              = 1,
    kSpatialMixerParam_Distance               = 2,
    kSpatialMixerParam_Gain                   = 3,
    kSpatialMixerParam_PlaybackRate           = 4,
    kSpatialMixerParam_Enable                 = 5,
    kSpatialMixerParam_MinGain                = 6,
    kSpatialMixerParam_MaxGain                = 7,
    kSpatialMixerParam_ReverbBlend            = 8,
    kSpatialMixerParam_GlobalReverbGain       = 9,
    kSpatialMixerParam_OcclusionAttenuation   = 10,
    kSpatialMixerParam_ObstructionAttenuation = 11,
    kSpatialMixerParam_HeadYaw                = 19,
    kSpatialMixerParam_HeadPitch              = 20,
    kSpatialMixerParam_HeadRoll               = 21,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kReverbParam_FilterFrequency = 14,
    kReverbParam_FilterBandwidth = 15,
    kReverbParam_FilterGain      = 16,
    kReverbParam_FilterType      = 17,
    kReverbParam_FilterEnable    = 18,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    k3DMixerParam_Azimuth                          = 0,
    k3DMixerParam_Elevation                        = 1,
    k3DMixerParam_Distance                         = 2,
    k3DMixerParam_Gain                             = 3,
    k3DMixerParam_PlaybackRate                     = 4,
    k3DMixerParam_BusEnable                        = 20,
    k3DMixerParam_MinGainInDecibels                = 21,
    k3DMixerParam_MaxGainInDecibels                = 22,
    k3DMixerParam_DryWetReverbBlend                = 23,
    k3DMixerParam_GlobalReverbGainInDecibels       = 24,
    k3DMixerParam_OcclusionAttenuationInDecibels   = 25,
    k3DMixerParam_ObstructionAttenuationInDecibels = 26,
    k3DMixerParam_ReverbBlend                      = 5,                  // macOS value; iOS: 8, deprecated
    k3DMixerParam_GlobalReverbGain                 = 6,                  // macOS value; iOS: 9, deprecated
    k3DMixerParam_OcclusionAttenuation             = 7,                  // macOS value; iOS: 10, deprecated
    k3DMixerParam_ObstructionAttenuation           = 8,                  // macOS value; iOS: 11, deprecated
    k3DMixerParam_MinGain                          = 9,                  // macOS value; iOS: 6, deprecated
    k3DMixerParam_MaxGain                          = 10,                 // macOS value; iOS: 7, deprecated
    k3DMixerParam_PreAveragePower                  = 1000,
    k3DMixerParam_PrePeakHoldLevel                 = 2000,
    k3DMixerParam_PostAveragePower                 = 3000,
    k3DMixerParam_PostPeakHoldLevel                = 4000,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    k3DMixerParam_Enable = 5,                  // iOS only, deprecated
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kMultiChannelMixerParam_Volume            = 0,
    kMultiChannelMixerParam_Enable            = 1,
    kMultiChannelMixerParam_Pan               = 2,
    kMultiChannelMixerParam_PreAveragePower   = 1000,
    kMultiChannelMixerParam_PrePeakHoldLevel  = 2000,
    kMultiChannelMixerParam_PostAveragePower  = 3000,
    kMultiChannelMixerParam_PostPeakHoldLevel = 4000,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kMatrixMixerParam_Volume                  = 0,
    kMatrixMixerParam_Enable                  = 1,
    kMatrixMixerParam_PreAveragePower         = 1000,
    kMatrixMixerParam_PrePeakHoldLevel        = 2000,
    kMatrixMixerParam_PostAveragePower        = 3000,
    kMatrixMixerParam_PostPeakHoldLevel       = 4000,
    kMatrixMixerParam_PreAveragePowerLinear   = 5000,
    kMatrixMixerParam_PrePeakHoldLevelLinear  = 6000,
    kMatrixMixerParam_PostAveragePowerLinear  = 7000,
    kMatrixMixerParam_PostPeakHoldLevelLinear = 8000,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kHALOutputParam_Volume = 14,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kTimePitchParam_Rate        = 0,
    kTimePitchParam_Pitch       = 1,
    kTimePitchParam_EffectBlend = 2,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kNewTimePitchParam_Rate                        = 0,
    kNewTimePitchParam_Pitch                       = 1,
    kNewTimePitchParam_Smoothness                  = 4,
    kNewTimePitchParam_Overlap                     = kNewTimePitchParam_Smoothness, // 0x4 (4), deprecated
    kNewTimePitchParam_EnableSpectralCoherence     = 6,
    kNewTimePitchParam_EnablePeakLocking           = kNewTimePitchParam_EnableSpectralCoherence, // 0x6 (6), deprecated
    kNewTimePitchParam_EnableTransientPreservation = 7,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUSamplerParam_Gain         = 900,
    kAUSamplerParam_CoarseTuning = 901,
    kAUSamplerParam_FineTuning   = 902,
    kAUSamplerParam_Pan          = 903,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kBandpassParam_CenterFrequency = 0,
    kBandpassParam_Bandwidth       = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kHipassParam_CutoffFrequency = 0,
    kHipassParam_Resonance       = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kLowPassParam_CutoffFrequency = 0,
    kLowPassParam_Resonance       = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kHighShelfParam_CutOffFrequency = 0,
    kHighShelfParam_Gain            = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAULowShelfParam_CutoffFrequency = 0,
    kAULowShelfParam_Gain            = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kParametricEQParam_CenterFreq = 0,
    kParametricEQParam_Q          = 1,
    kParametricEQParam_Gain       = 2,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kLimiterParam_AttackTime = 0,
    kLimiterParam_DecayTime  = 1,
    kLimiterParam_PreGain    = 2,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kDynamicsProcessorParam_Threshold          = 0,
    kDynamicsProcessorParam_HeadRoom           = 1,
    kDynamicsProcessorParam_ExpansionRatio     = 2,
    kDynamicsProcessorParam_ExpansionThreshold = 3,
    kDynamicsProcessorParam_AttackTime         = 4,
    kDynamicsProcessorParam_ReleaseTime        = 5,
    kDynamicsProcessorParam_OverallGain        = 6,
    kDynamicsProcessorParam_MasterGain         = kDynamicsProcessorParam_OverallGain, // 0x6 (6), deprecated
    kDynamicsProcessorParam_CompressionAmount  = 1000,
    kDynamicsProcessorParam_InputAmplitude     = 2000,
    kDynamicsProcessorParam_OutputAmplitude    = 3000,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kVarispeedParam_PlaybackRate  = 0,
    kVarispeedParam_PlaybackCents = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kDistortionParam_Delay          = 0,
    kDistortionParam_Decay          = 1,
    kDistortionParam_DelayMix       = 2,
    kDistortionParam_Decimation     = 3,
    kDistortionParam_Rounding       = 4,
    kDistortionParam_DecimationMix  = 5,
    kDistortionParam_LinearTerm     = 6,
    kDistortionParam_SquaredTerm    = 7,
    kDistortionParam_CubicTerm      = 8,
    kDistortionParam_PolynomialMix  = 9,
    kDistortionParam_RingModFreq1   = 10,
    kDistortionParam_RingModFreq2   = 11,
    kDistortionParam_RingModBalance = 12,
    kDistortionParam_RingModMix     = 13,
    kDistortionParam_SoftClipGain   = 14,
    kDistortionParam_FinalMix       = 15,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kDelayParam_WetDryMix    = 0,
    kDelayParam_DelayTime    = 1,
    kDelayParam_Feedback     = 2,
    kDelayParam_LopassCutoff = 3,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kSampleDelayParam_DelayFrames = 0,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUNBandEQParam_GlobalGain = 0,
    kAUNBandEQParam_BypassBand = 1000,
    kAUNBandEQParam_FilterType = 2000,
    kAUNBandEQParam_Frequency  = 3000,
    kAUNBandEQParam_Gain       = 4000,
    kAUNBandEQParam_Bandwidth  = 5000,
};

// AudioUnitParameters.h: CF_ENUM(long)  →  Swift: long (=Int)
OAT_ENUM(long) {
    kAUNBandEQFilterType_Parametric                  = 0,
    kAUNBandEQFilterType_2ndOrderButterworthLowPass  = 1,
    kAUNBandEQFilterType_2ndOrderButterworthHighPass = 2,
    kAUNBandEQFilterType_ResonantLowPass             = 3,
    kAUNBandEQFilterType_ResonantHighPass            = 4,
    kAUNBandEQFilterType_BandPass                    = 5,
    kAUNBandEQFilterType_BandStop                    = 6,
    kAUNBandEQFilterType_LowShelf                    = 7,
    kAUNBandEQFilterType_HighShelf                   = 8,
    kAUNBandEQFilterType_ResonantLowShelf            = 9,
    kAUNBandEQFilterType_ResonantHighShelf           = 10,
    kNumAUNBandEQFilterTypes                         = 11,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kRoundTripAACParam_Format                     = 0,
    kRoundTripAACParam_EncodingStrategy           = 1,
    kRoundTripAACParam_RateOrQuality              = 2,
    kRoundTripAACParam_BitRate                    = 1,                  // macOS only
    kRoundTripAACParam_Quality                    = 2,                  // macOS only
    kRoundTripAACParam_CompressedFormatSampleRate = 3,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUSoundIsolationParam_WetDryMixPercent = 0,
    kAUSoundIsolationParam_SoundToIsolate   = 1,
};

// AudioUnitParameters.h: CF_ENUM(long)  →  Swift: long (=Int)
OAT_ENUM(long) {
    kAUSoundIsolationSoundType_Voice = 1,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kGraphicEQParam_NumberOfBands = 10000,              // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kReverbParam_DryWetMix       = 0,                  // macOS only
    kReverbParam_SmallLargeMix   = 1,                  // macOS only
    kReverbParam_SmallSize       = 2,                  // macOS only
    kReverbParam_LargeSize       = 3,                  // macOS only
    kReverbParam_PreDelay        = 4,                  // macOS only
    kReverbParam_LargeDelay      = 5,                  // macOS only
    kReverbParam_SmallDensity    = 6,                  // macOS only
    kReverbParam_LargeDensity    = 7,                  // macOS only
    kReverbParam_LargeDelayRange = 8,                  // macOS only
    kReverbParam_SmallBrightness = 9,                  // macOS only
    kReverbParam_LargeBrightness = 10,                 // macOS only
    kReverbParam_SmallDelayRange = 11,                 // macOS only
    kReverbParam_ModulationRate  = 12,                 // macOS only
    kReverbParam_ModulationDepth = 13,                 // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kMultibandCompressorParam_Pregain            = 0,                  // macOS only
    kMultibandCompressorParam_Postgain           = 1,                  // macOS only
    kMultibandCompressorParam_Crossover1         = 2,                  // macOS only
    kMultibandCompressorParam_Crossover2         = 3,                  // macOS only
    kMultibandCompressorParam_Crossover3         = 4,                  // macOS only
    kMultibandCompressorParam_Threshold1         = 5,                  // macOS only
    kMultibandCompressorParam_Threshold2         = 6,                  // macOS only
    kMultibandCompressorParam_Threshold3         = 7,                  // macOS only
    kMultibandCompressorParam_Threshold4         = 8,                  // macOS only
    kMultibandCompressorParam_Headroom1          = 9,                  // macOS only
    kMultibandCompressorParam_Headroom2          = 10,                 // macOS only
    kMultibandCompressorParam_Headroom3          = 11,                 // macOS only
    kMultibandCompressorParam_Headroom4          = 12,                 // macOS only
    kMultibandCompressorParam_AttackTime         = 13,                 // macOS only
    kMultibandCompressorParam_ReleaseTime        = 14,                 // macOS only
    kMultibandCompressorParam_EQ1                = 15,                 // macOS only
    kMultibandCompressorParam_EQ2                = 16,                 // macOS only
    kMultibandCompressorParam_EQ3                = 17,                 // macOS only
    kMultibandCompressorParam_EQ4                = 18,                 // macOS only
    kMultibandCompressorParam_CompressionAmount1 = 1000,               // macOS only
    kMultibandCompressorParam_CompressionAmount2 = 2000,               // macOS only
    kMultibandCompressorParam_CompressionAmount3 = 3000,               // macOS only
    kMultibandCompressorParam_CompressionAmount4 = 4000,               // macOS only
    kMultibandCompressorParam_InputAmplitude1    = 5000,               // macOS only
    kMultibandCompressorParam_InputAmplitude2    = 6000,               // macOS only
    kMultibandCompressorParam_InputAmplitude3    = 7000,               // macOS only
    kMultibandCompressorParam_InputAmplitude4    = 8000,               // macOS only
    kMultibandCompressorParam_OutputAmplitude1   = 9000,               // macOS only
    kMultibandCompressorParam_OutputAmplitude2   = 10000,              // macOS only
    kMultibandCompressorParam_OutputAmplitude3   = 11000,              // macOS only
    kMultibandCompressorParam_OutputAmplitude4   = 12000,              // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kMultibandFilter_LowFilterType  = 0,                  // macOS only
    kMultibandFilter_LowFrequency   = 1,                  // macOS only
    kMultibandFilter_LowGain        = 2,                  // macOS only
    kMultibandFilter_CenterFreq1    = 3,                  // macOS only
    kMultibandFilter_CenterGain1    = 4,                  // macOS only
    kMultibandFilter_Bandwidth1     = 5,                  // macOS only
    kMultibandFilter_CenterFreq2    = 6,                  // macOS only
    kMultibandFilter_CenterGain2    = 7,                  // macOS only
    kMultibandFilter_Bandwidth2     = 8,                  // macOS only
    kMultibandFilter_CenterFreq3    = 9,                  // macOS only
    kMultibandFilter_CenterGain3    = 10,                 // macOS only
    kMultibandFilter_Bandwidth3     = 11,                 // macOS only
    kMultibandFilter_HighFilterType = 12,                 // macOS only
    kMultibandFilter_HighFrequency  = 13,                 // macOS only
    kMultibandFilter_HighGain       = 14,                 // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kRogerBeepParam_InGateThreshold      = 0,                  // macOS only
    kRogerBeepParam_InGateThresholdTime  = 1,                  // macOS only
    kRogerBeepParam_OutGateThreshold     = 2,                  // macOS only
    kRogerBeepParam_OutGateThresholdTime = 3,                  // macOS only
    kRogerBeepParam_Sensitivity          = 4,                  // macOS only
    kRogerBeepParam_RogerType            = 5,                  // macOS only
    kRogerBeepParam_RogerGain            = 6,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kStereoMixerParam_Volume            = 0,                  // macOS only
    kStereoMixerParam_Pan               = 1,                  // macOS only
    kStereoMixerParam_PreAveragePower   = 1000,               // macOS only
    kStereoMixerParam_PrePeakHoldLevel  = 2000,               // macOS only
    kStereoMixerParam_PostAveragePower  = 3000,               // macOS only
    kStereoMixerParam_PostPeakHoldLevel = 4000,               // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUNetReceiveParam_Status        = 0,                  // macOS only
    kAUNetReceiveParam_NumParameters = 1,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kAUNetSendParam_Status        = 0,                  // macOS only
    kAUNetSendParam_NumParameters = 1,                  // macOS only
};

// AudioUnitParameters.h: enum { }  (no fixed type)  →  Swift: Int
enum {
    kAUNetStatus_NotConnected = 0,                  // macOS only
    kAUNetStatus_Connected    = 1,                  // macOS only
    kAUNetStatus_Overflow     = 2,                  // macOS only
    kAUNetStatus_Underflow    = 3,                  // macOS only
    kAUNetStatus_Connecting   = 4,                  // macOS only
    kAUNetStatus_Listening    = 5,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kMusicDeviceParam_Tuning       = 0,                  // macOS only
    kMusicDeviceParam_Volume       = 1,                  // macOS only
    kMusicDeviceParam_ReverbVolume = 2,                  // macOS only
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kRandomParam_BoundA = 0,
    kRandomParam_BoundB = 1,
    kRandomParam_Curve  = 2,
};

// AudioUnitParameters.h: CF_ENUM(AudioUnitParameterID)  →  Swift: AudioUnitParameterID (=UInt32)
OAT_ENUM(AudioUnitParameterID) {
    kReverb2Param_DryWetMix            = 0,
    kReverb2Param_Gain                 = 1,
    kReverb2Param_MinDelayTime         = 2,
    kReverb2Param_MaxDelayTime         = 3,
    kReverb2Param_DecayTimeAt0Hz       = 4,
    kReverb2Param_DecayTimeAtNyquist   = 5,
    kReverb2Param_RandomizeReflections = 6,
};

#pragma clang assume_nonnull end

#endif

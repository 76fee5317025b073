// AUGraph's types and constants as Apple's AUGraph.h declares them (AUGraph is deprecated in favour of AVAudioEngine).
#ifndef OPEN_AU_GRAPH_H
#define OPEN_AU_GRAPH_H

#include "AudioUnit.h"

#pragma clang assume_nonnull begin

typedef struct OpaqueAUGraph *AUGraph;
typedef int32_t AUNode;

// AUGraph.h: CF_ENUM(OSStatus)  →  Swift: OSStatus (=Int32)
OAT_ENUM(OSStatus) {
    kAUGraphErr_NodeNotFound             = -10860,
    kAUGraphErr_InvalidConnection        = -10861,
    kAUGraphErr_OutputNodeErr            = -10862,
    kAUGraphErr_CannotDoInCurrentContext = -10863,
    kAUGraphErr_InvalidAudioUnit         = -10864,
};

// AUGraph.h: CF_ENUM(UInt32)  →  Swift: UInt32
OAT_ENUM(uint32_t) {
    kAUNodeInteraction_Connection    = 1,
    kAUNodeInteraction_InputCallback = 2,
};

typedef struct AudioUnitNodeConnection {
    AUNode sourceNode;
    uint32_t sourceOutputNumber;
    AUNode destNode;
    uint32_t destInputNumber;
} AudioUnitNodeConnection;
typedef struct AudioUnitNodeConnection AUNodeConnection;

typedef struct AUNodeRenderCallback {
    AUNode destNode;
    AudioUnitElement destInputNumber;
    AURenderCallbackStruct cback;
} AUNodeRenderCallback;

/// nodeInteractionType is kAUNodeInteraction_Connection or kAUNodeInteraction_InputCallback.
typedef struct AUNodeInteraction {
    uint32_t nodeInteractionType;
    union {
        AUNodeConnection connection;
        AUNodeRenderCallback inputCallback;
    } nodeInteraction;
} AUNodeInteraction;

#pragma clang assume_nonnull end

#endif

// The module's face: Core Audio's C types and constants (re-exported) and the CoreFoundation names that
// Audio Queue and Audio File code passes, so that such code compiles on Linux with its import changed.
@_exported import COpenAudioToolbox

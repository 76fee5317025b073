// libsoxr, the resampler sox and ffmpeg use: AVAudioConverter's and the Audio Converter's rate conversion
// (OpenAudioToolbox links it) and a several-source take's drift correction (RecorderKit loads it when such
// a take starts: a one-source take never maps it).
#include <soxr.h>

// libsoxr, the resampler sox and ffmpeg use: AVAudioConverter's and the Audio Converter's rate conversion.
#include <soxr.h>

// libsndfile: reading and writing sound files (AIFF, WAV, CAF, FLAC, ...).
#include <sndfile.h>

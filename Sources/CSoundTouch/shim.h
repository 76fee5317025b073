// SoundTouch's C interface (libSoundTouchDll, from libsoundtouch-dev): tempo, pitch and rate of an audio
// stream. Its header declares the functions without arguments in the old C way, `f()`; they are declared
// again here with their prototypes, so that Swift sees them taking none.
#include <SoundTouchDLL.h>

HANDLE soundtouch_createInstance(void);
const char *soundtouch_getVersionString(void);
unsigned int soundtouch_getVersionId(void);

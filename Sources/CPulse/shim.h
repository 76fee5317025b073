// The libpulse asynchronous API (threaded mainloop, context, stream, introspection).
#include <pulse/pulseaudio.h>

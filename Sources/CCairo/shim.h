// cairo with its SVG surface and PNG functions: the plots and the spectrogram.
#include <cairo.h>
#include <cairo-svg.h>

// cairo's types and constants, with its SVG surface and PNG functions: the plots and the spectrogram.
// Nothing links cairo: RecorderPictures looks its functions up when the first picture is drawn
// (CairoLibrary.swift), so a run that draws nothing never maps it.
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>

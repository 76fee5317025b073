// KissFFT's real-input FFT, float build (Debian's libkissfft-float): the spectrogram.
#include <kissfft/kiss_fftr.h>

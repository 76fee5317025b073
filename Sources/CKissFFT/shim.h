// KissFFT's real-input FFT, float build (Debian's libkissfft-float): the spectrogram. Types only: the
// functions are looked up when the first spectrogram is made (Spectrogram.swift), so nothing else maps it.
#include <kissfft/kiss_fftr.h>

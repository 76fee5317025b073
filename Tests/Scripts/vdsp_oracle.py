#!/usr/bin/env python3
"""The vDSP example's oracle: what Apple documents each call to give, computed by numpy in double from the
same clip, against what the program wrote (OUTDIR/NAME.f32, raw Float32).

Usage: vdsp_oracle.py CLIP OUTDIR; prints JSON: the reference scalars ("rms", "peak", "mean", "loudest_bin",
"loudest_db") and, for each vector, its largest difference from the reference relative to the reference's
largest magnitude ("errors"; for the decibel vector, the largest difference in dB).
Written from Apple's documentation, not from the C code: vDSP_fft_zrip's forward transform is twice the DFT
packed with the DC term in realp[0] and the Nyquist term in imagp[0], its inverse unscaled; vDSP_DFT_zop is
unscaled; vDSP_DFT_zrop packs and scales as zrip; vDSP_hann_window with vDSP_HANN_NORM is
0.8165 (1 - cos(2 pi n / N)) and the denormalised one half of that without the factor's 0.8165."""
import json
import sys
import wave

import numpy as np


def main(clip, outdir):
    with wave.open(clip) as w:
        x = np.frombuffer(w.readframes(4096), dtype="<i2").astype(np.float64) / 32768
    n = len(x)
    got = lambda name: np.fromfile(f"{outdir}/{name}.f32", dtype="<f4").astype(np.float64)
    errors = {}

    def compare(name, reference):
        values = got(name)
        assert len(values) == len(reference), f"{name}: {len(values)} values, {len(reference)} expected"
        errors[name] = float(np.max(np.abs(values - reference)) / max(1e-30, np.max(np.abs(reference))))

    k = np.arange(n)
    window = 0.8165 * (1 - np.cos(2 * np.pi * k / n))
    windowed = x * window
    compare("windowed", windowed)
    spectrum = 2 * np.fft.rfft(windowed)
    packed_real = spectrum[: n // 2].real.copy()
    packed_imag = spectrum[: n // 2].imag.copy()
    packed_imag[0] = spectrum[n // 2].real
    compare("packed_real", packed_real)
    compare("packed_imag", packed_imag)
    magnitudes = np.abs(spectrum[: n // 2]) ** 2
    compare("magnitudes", magnitudes)
    compare("restored", windowed)
    compare("faded", x * (k / n))
    pixels = np.abs(x).reshape(-1, 64).mean(axis=1)
    errors["pixels_db"] = float(np.max(np.abs(got("pixels_db") - 20 * np.log10(pixels))))
    dft = np.fft.fft(x[:768])
    compare("zop_real", dft.real)
    compare("zop_imag", dft.imag)
    real_dft = 2 * np.fft.rfft(x[:768])
    zrop_real = real_dft[:384].real.copy()
    zrop_imag = real_dft[:384].imag.copy()
    zrop_imag[0] = real_dft[384].real
    compare("zrop_real", zrop_real)
    compare("zrop_imag", zrop_imag)
    overlay = 2 * np.fft.rfft(x * 0.5 * (1 - np.cos(2 * np.pi * k / n)))
    overlay_imag = overlay[: n // 2].imag.copy()
    overlay_imag[0] = overlay[n // 2].real
    compare("overlay_real", overlay[: n // 2].real)
    compare("overlay_imag", overlay_imag)
    print(json.dumps({
        "rms": float(np.sqrt(np.mean(x * x))), "peak": float(np.max(np.abs(x))), "mean": float(np.mean(x)),
        "loudest_bin": int(np.argmax(magnitudes)), "loudest_db": float(20 * np.log10(np.max(np.abs(x)))),
        "errors": errors,
    }))


if __name__ == "__main__":
    main(*sys.argv[1:3])

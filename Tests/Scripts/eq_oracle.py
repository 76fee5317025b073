#!/usr/bin/env python3
"""The EQ tests' oracle: each band's biquad as Robert Bristow-Johnson's Audio EQ Cookbook gives it, its
magnitude response by scipy.signal.freqz, in dB, at the frequencies asked.

Reads JSON as its argument (or on stdin): {"rate": 48000, "frequencies": [...], "bands": [{"type": "lowPass", "f0": 1000,
"bw": 1.0, "gain": 6.0}, ...]}; writes one line per band: the dB values, space-separated.
Written from the cookbook's text, not from the Swift code: the types map as AVAudioUnitEQ documents them
(low/high-pass Butterworth, Q = 1/sqrt(2); shelves with S = 1; the resonant and band filters' alpha
from the bandwidth BW in octaves)."""
import json
import math
import sys

import numpy as np
from scipy.signal import freqz


def coefficients(kind, f0, bw, gain, rate):
    a = 10 ** (gain / 40)
    w0 = 2 * math.pi * f0 / rate
    cw, sw = math.cos(w0), math.sin(w0)
    alpha_bw = sw * math.sinh(math.log(2) / 2 * bw * w0 / sw)
    alpha_q = sw / (2 * (1 / math.sqrt(2)))
    alpha_s = sw / 2 * math.sqrt((a + 1 / a) * (1 / 1.0 - 1) + 2)
    if kind == "parametric":
        b = [1 + alpha_bw * a, -2 * cw, 1 - alpha_bw * a]
        den = [1 + alpha_bw / a, -2 * cw, 1 - alpha_bw / a]
    elif kind in ("lowPass", "resonantLowPass"):
        al = alpha_q if kind == "lowPass" else alpha_bw
        b = [(1 - cw) / 2, 1 - cw, (1 - cw) / 2]
        den = [1 + al, -2 * cw, 1 - al]
    elif kind in ("highPass", "resonantHighPass"):
        al = alpha_q if kind == "highPass" else alpha_bw
        b = [(1 + cw) / 2, -(1 + cw), (1 + cw) / 2]
        den = [1 + al, -2 * cw, 1 - al]
    elif kind == "bandPass":
        b = [alpha_bw, 0, -alpha_bw]
        den = [1 + alpha_bw, -2 * cw, 1 - alpha_bw]
    elif kind == "bandStop":
        b = [1, -2 * cw, 1]
        den = [1 + alpha_bw, -2 * cw, 1 - alpha_bw]
    elif kind in ("lowShelf", "resonantLowShelf"):
        al = alpha_s if kind == "lowShelf" else alpha_bw
        r = 2 * math.sqrt(a) * al
        b = [a * ((a + 1) - (a - 1) * cw + r), 2 * a * ((a - 1) - (a + 1) * cw), a * ((a + 1) - (a - 1) * cw - r)]
        den = [(a + 1) + (a - 1) * cw + r, -2 * ((a - 1) + (a + 1) * cw), (a + 1) + (a - 1) * cw - r]
    elif kind in ("highShelf", "resonantHighShelf"):
        al = alpha_s if kind == "highShelf" else alpha_bw
        r = 2 * math.sqrt(a) * al
        b = [a * ((a + 1) + (a - 1) * cw + r), -2 * a * ((a - 1) + (a + 1) * cw), a * ((a + 1) + (a - 1) * cw - r)]
        den = [(a + 1) - (a - 1) * cw + r, 2 * ((a - 1) - (a + 1) * cw), (a + 1) - (a - 1) * cw - r]
    else:
        sys.exit("unknown filter type " + kind)
    return b, den


def main():
    request = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    rate = request["rate"]
    frequencies = np.array(request["frequencies"], dtype=float)
    for band in request["bands"]:
        b, a = coefficients(band["type"], band["f0"], band["bw"], band["gain"], rate)
        _, response = freqz(b, a, worN=frequencies, fs=rate)
        print(" ".join("%.6f" % (20 * math.log10(max(abs(h), 1e-30))) for h in response))


main()

// vDSP's windows: Hann, Hamming and Blackman, periodic (the denominator is N, so C[0] is the window's
// start and C[N] would be the next period's), the whole window or its first (N + 1) / 2 points.
#include <math.h>
#include "vDSP.h"

static vDSP_Length length(vDSP_Length n, int flag) { return (flag & vDSP_HALF_WINDOW) ? (n + 1) / 2 : n; }

#define WINDOW(name, type, expression)                                                                   \
    void name(type *c, vDSP_Length n, int flag) {                                                        \
        const double hannWeight = (flag & vDSP_HANN_NORM) ? 0.8165 : 0.5;                                \
        (void)hannWeight;                                                                                \
        for (vDSP_Length i = 0, count = length(n, flag); i < count; i++) {                               \
            const double phase = 2 * M_PI * (double)i / (double)n;                                       \
            c[i] = (type)(expression);                                                                   \
        }                                                                                                \
    }
WINDOW(vDSP_hann_window, float, hannWeight * (1 - cos(phase)))
WINDOW(vDSP_hann_windowD, double, hannWeight * (1 - cos(phase)))
WINDOW(vDSP_hamm_window, float, 0.54 - 0.46 * cos(phase))
WINDOW(vDSP_hamm_windowD, double, 0.54 - 0.46 * cos(phase))
WINDOW(vDSP_blkman_window, float, 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase))
WINDOW(vDSP_blkman_windowD, double, 0.42 - 0.5 * cos(phase) + 0.08 * cos(2 * phase))

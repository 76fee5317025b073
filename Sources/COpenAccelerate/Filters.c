// vDSP's FIR filters: conv (correlation, or convolution with a negative filter stride) and desamp (a
// filter then decimation). C[n] sums P products; A must hold what the last output reaches.
#include "vDSP.h"

#define CONVOLUTION(conv, desamp, type)                                                                  \
    void conv(const type *a, vDSP_Stride ia, const type *f, vDSP_Stride iff, type *c, vDSP_Stride ic,  \
              vDSP_Length n, vDSP_Length p) {                                                            \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            double sum = 0;                                                                              \
            for (vDSP_Length j = 0; j < p; j++) sum += (double)a[(long)(i + j) * ia] * f[(long)j * iff]; \
            c[(long)i * ic] = (type)sum;                                                                 \
        }                                                                                                \
    }                                                                                                    \
    void desamp(const type *a, vDSP_Stride df, const type *f, type *c, vDSP_Length n, vDSP_Length p) {  \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            double sum = 0;                                                                              \
            for (vDSP_Length j = 0; j < p; j++) sum += (double)a[(long)i * df + (long)j] * f[j];         \
            c[i] = (type)sum;                                                                            \
        }                                                                                                \
    }
CONVOLUTION(vDSP_conv, vDSP_desamp, float)
CONVOLUTION(vDSP_convD, vDSP_desampD, double)

// vDSP's conversions between integer and floating-point vectors, and between float and double.
// Integers from floats saturate at the type's range (NaN gives 0), so no input is undefined behaviour.
#include <math.h>
#include <stdint.h>
#include "vDSP.h"

#define AT(p, n, stride) (p)[(long)(n) * (stride)]

#define WIDEN(name, from, to)                                                                            \
    void name(const from *a, vDSP_Stride ia, to *c, vDSP_Stride ic, vDSP_Length n) {                    \
        for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = (to)AT(a, i, ia);                             \
    }
WIDEN(vDSP_vflt16, short, float)
WIDEN(vDSP_vflt16D, short, double)
WIDEN(vDSP_vflt32, int, float)
WIDEN(vDSP_vflt8, signed char, float)
WIDEN(vDSP_vfltu8, unsigned char, float)
WIDEN(vDSP_vfltu16, unsigned short, float)
WIDEN(vDSP_vspdp, float, double)
WIDEN(vDSP_vdpsp, double, float)

static double saturated(double x, double low, double high) {
    if (isnan(x)) return 0;
    return x < low ? low : (x > high ? high : x);
}

#define FIX(name, to, low, high, rounding)                                                               \
    void name(const float *a, vDSP_Stride ia, to *c, vDSP_Stride ic, vDSP_Length n) {                   \
        for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = (to)saturated(rounding((double)AT(a, i, ia)), low, high); \
    }
FIX(vDSP_vfix16, short, INT16_MIN, INT16_MAX, trunc)
FIX(vDSP_vfixr16, short, INT16_MIN, INT16_MAX, rint)
FIX(vDSP_vfix32, int, INT32_MIN, INT32_MAX, trunc)
FIX(vDSP_vfixr32, int, INT32_MIN, INT32_MAX, rint)

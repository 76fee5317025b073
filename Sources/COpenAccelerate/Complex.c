// vDSP's complex vectors: interleaved to split and back, magnitudes, phases, products. A DSPComplex
// stride counts floats (legacy: 2 for contiguous pairs), a split vector's counts elements.
#include <math.h>
#include "vDSP.h"

#define SPLIT(ctoz, ztoc, complex, split)                                                                \
    void ctoz(const complex *c, vDSP_Stride ic, const split *z, vDSP_Stride iz, vDSP_Length n) {        \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            const complex value = c[(long)i * ic / 2];                                                   \
            z->realp[(long)i * iz] = value.real;                                                         \
            z->imagp[(long)i * iz] = value.imag;                                                         \
        }                                                                                                \
    }                                                                                                    \
    void ztoc(const split *z, vDSP_Stride iz, complex *c, vDSP_Stride ic, vDSP_Length n) {              \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            c[(long)i * ic / 2].real = z->realp[(long)i * iz];                                           \
            c[(long)i * ic / 2].imag = z->imagp[(long)i * iz];                                           \
        }                                                                                                \
    }
SPLIT(vDSP_ctoz, vDSP_ztoc, DSPComplex, DSPSplitComplex)
SPLIT(vDSP_ctozD, vDSP_ztocD, DSPDoubleComplex, DSPDoubleSplitComplex)

// C = f(re, im) for each element (no knowledge of a real FFT's packing: at 0, DC and Nyquist together).
#define MAGNITUDE(name, split, type, expression)                                                         \
    void name(const split *a, vDSP_Stride ia, type *c, vDSP_Stride ic, vDSP_Length n) {                 \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            const type re = a->realp[(long)i * ia], im = a->imagp[(long)i * ia];                         \
            c[(long)i * ic] = (expression);                                                              \
        }                                                                                                \
    }
MAGNITUDE(vDSP_zvmags, DSPSplitComplex, float, re * re + im * im)
MAGNITUDE(vDSP_zvmagsD, DSPDoubleSplitComplex, double, re * re + im * im)
MAGNITUDE(vDSP_zvabs, DSPSplitComplex, float, hypotf(re, im))
MAGNITUDE(vDSP_zvabsD, DSPDoubleSplitComplex, double, hypot(re, im))
MAGNITUDE(vDSP_zvphas, DSPSplitComplex, float, atan2f(im, re))

// C = A * B, or conj(A) * B when Conjugate is -1.
void vDSP_zvmul(const DSPSplitComplex *a, vDSP_Stride ia, const DSPSplitComplex *b, vDSP_Stride ib, const DSPSplitComplex *c,
                vDSP_Stride ic, vDSP_Length n, int conjugate) {
    const float sign = conjugate < 0 ? -1.0f : 1.0f;
    for (vDSP_Length i = 0; i < n; i++) {
        const float ar = a->realp[(long)i * ia], ai = sign * a->imagp[(long)i * ia];
        const float br = b->realp[(long)i * ib], bi = b->imagp[(long)i * ib];
        c->realp[(long)i * ic] = ar * br - ai * bi;
        c->imagp[(long)i * ic] = ar * bi + ai * br;
    }
}

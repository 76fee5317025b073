// vDSP's element-by-element arithmetic on strided vectors (add, subtract, multiply, divide, scale, clip,
// ramps, decibels). Each output element depends only on the inputs at its index, so in place is safe.
#include <math.h>
#include "vDSP.h"

#define AT(p, n, stride) (p)[(long)(n) * (stride)]

// Two vectors: C = A op B. vsub and vdiv take B (the subtrahend, the divisor) first, as Apple's do.
#define BINARY(name, type, expression)                                                                   \
    void name(const type *a, vDSP_Stride ia, const type *b, vDSP_Stride ib, type *c, vDSP_Stride ic, vDSP_Length n) { \
        for (vDSP_Length i = 0; i < n; i++) { type x = AT(a, i, ia), y = AT(b, i, ib); AT(c, i, ic) = (expression); } \
    }
BINARY(vDSP_vadd, float, x + y)
BINARY(vDSP_vaddD, double, x + y)
BINARY(vDSP_vmul, float, x * y)
BINARY(vDSP_vmulD, double, x * y)
BINARY(vDSP_vsub, float, y - x)
BINARY(vDSP_vsubD, double, y - x)
BINARY(vDSP_vdiv, float, y / x)
BINARY(vDSP_vdivD, double, y / x)

// A vector and a scalar B[0]: C = A op B[0].
#define SCALAR(name, type, expression)                                                                   \
    void name(const type *a, vDSP_Stride ia, const type *b, type *c, vDSP_Stride ic, vDSP_Length n) {   \
        const type s = *b;                                                                               \
        for (vDSP_Length i = 0; i < n; i++) { type x = AT(a, i, ia); AT(c, i, ic) = (expression); }     \
    }
SCALAR(vDSP_vsmul, float, x * s)
SCALAR(vDSP_vsmulD, double, x * s)
SCALAR(vDSP_vsadd, float, x + s)
SCALAR(vDSP_vsaddD, double, x + s)
SCALAR(vDSP_vsdiv, float, x / s)
SCALAR(vDSP_vsdivD, double, x / s)
SCALAR(vDSP_vthr, float, s <= x ? x : s)
SCALAR(vDSP_vthres, float, s <= x ? x : 0)

void vDSP_svdiv(const float *a, const float *b, vDSP_Stride ib, float *c, vDSP_Stride ic, vDSP_Length n) {
    const float s = *a;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = s / AT(b, i, ib);
}

// One vector: C = f(A).
#define UNARY(name, type, expression)                                                                    \
    void name(const type *a, vDSP_Stride ia, type *c, vDSP_Stride ic, vDSP_Length n) {                  \
        for (vDSP_Length i = 0; i < n; i++) { type x = AT(a, i, ia); AT(c, i, ic) = (expression); }     \
    }
UNARY(vDSP_vabs, float, fabsf(x))
UNARY(vDSP_vabsD, double, fabs(x))
UNARY(vDSP_vneg, float, -x)
UNARY(vDSP_vsq, float, x * x)
UNARY(vDSP_vsqD, double, x * x)

void vDSP_vma(const float *a, vDSP_Stride ia, const float *b, vDSP_Stride ib, const float *c, vDSP_Stride ic, float *d,
              vDSP_Stride id, vDSP_Length n) {
    for (vDSP_Length i = 0; i < n; i++) AT(d, i, id) = AT(a, i, ia) * AT(b, i, ib) + AT(c, i, ic);
}

void vDSP_vsma(const float *a, vDSP_Stride ia, const float *b, const float *c, vDSP_Stride ic, float *d, vDSP_Stride id,
               vDSP_Length n) {
    const float s = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(d, i, id) = AT(a, i, ia) * s + AT(c, i, ic);
}

void vDSP_vsmsa(const float *a, vDSP_Stride ia, const float *b, const float *c, float *d, vDSP_Stride id, vDSP_Length n) {
    const float s = *b, t = *c;
    for (vDSP_Length i = 0; i < n; i++) AT(d, i, id) = AT(a, i, ia) * s + t;
}

#define FILL(clear, fill, type)                                                                          \
    void clear(type *c, vDSP_Stride ic, vDSP_Length n) { for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = 0; } \
    void fill(const type *a, type *c, vDSP_Stride ic, vDSP_Length n) {                                  \
        const type s = *a;                                                                               \
        for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = s;                                            \
    }
FILL(vDSP_vclr, vDSP_vfill, float)
FILL(vDSP_vclrD, vDSP_vfillD, double)

// C[n] = A[0] + n B[0]: each element from its index (no running sum, so no error builds up).
void vDSP_vramp(const float *a, const float *b, float *c, vDSP_Stride ic, vDSP_Length n) {
    const double start = *a, step = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = (float)(start + (double)i * step);
}

void vDSP_vrampD(const double *a, const double *b, double *c, vDSP_Stride ic, vDSP_Length n) {
    const double start = *a, step = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = start + (double)i * step;
}

// From A[0] to B[0] inclusive over N points.
void vDSP_vgen(const float *a, const float *b, float *c, vDSP_Stride ic, vDSP_Length n) {
    const double start = *a, end = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = n > 1 ? (float)(start + (end - start) * (double)i / (double)(n - 1)) : (float)start;
}

// O[i] = Start * I[i], Start += Step each element; Start left where the next buffer's fade goes on.
void vDSP_vrampmul(const float *in, vDSP_Stride is, float *start, const float *step, float *out, vDSP_Stride os, vDSP_Length n) {
    float gain = *start;
    const float increment = *step;
    for (vDSP_Length i = 0; i < n; i++) { AT(out, i, os) = gain * AT(in, i, is); gain += increment; }
    *start = gain;
}

#define CLIP(name, type)                                                                                 \
    void name(const type *a, vDSP_Stride ia, const type *b, const type *c, type *d, vDSP_Stride id, vDSP_Length n) { \
        const type low = *b, high = *c;                                                                  \
        for (vDSP_Length i = 0; i < n; i++) {                                                            \
            type x = AT(a, i, ia);                                                                       \
            if (x < low) x = low;                                                                        \
            if (high < x) x = high;                                                                      \
            AT(d, i, id) = x;                                                                            \
        }                                                                                                \
    }
CLIP(vDSP_vclip, float)
CLIP(vDSP_vclipD, double)

// C = alpha log10(A / B[0]): alpha 20 for amplitudes (F == 1), 10 for powers (F == 0).
void vDSP_vdbcon(const float *a, vDSP_Stride ia, const float *b, float *c, vDSP_Stride ic, vDSP_Length n, unsigned int f) {
    const float alpha = f ? 20.0f : 10.0f, reference = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = alpha * log10f(AT(a, i, ia) / reference);
}

void vDSP_vdbconD(const double *a, vDSP_Stride ia, const double *b, double *c, vDSP_Stride ic, vDSP_Length n, unsigned int f) {
    const double alpha = f ? 20.0 : 10.0, reference = *b;
    for (vDSP_Length i = 0; i < n; i++) AT(c, i, ic) = alpha * log10(AT(a, i, ia) / reference);
}

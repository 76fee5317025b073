// vDSP's reductions (means, extrema, sums, RMS, dot products): one value from a strided vector, in C[0].
// Float vectors are summed in double, so a long meter window loses nothing to the order of the additions.
#include <math.h>
#include "vDSP.h"

// A contiguous vector is summed in eight lanes (element k into lane k mod 8, the lanes added pairwise at
// the end): eight independent chains the compiler can keep in vector registers, where one chain waits on
// each addition before the next. A strided vector, and the last n mod 8 elements, in one chain.
#define SUM_OF(name, type, accumulator, term)                                                      \
    static accumulator name(const type *a, vDSP_Stride ia, vDSP_Length n) {                         \
        accumulator lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                            \
        vDSP_Length i = 0;                                                                          \
        if (ia == 1)                                                                                \
            for (; i + 8 <= n; i += 8)                                                              \
                for (int k = 0; k < 8; k++) { accumulator x = a[i + (vDSP_Length)k]; lanes[k] += (term); } \
        accumulator sum = 0;                                                                        \
        for (; i < n; i++) { accumulator x = a[(long)i * ia]; sum += (term); }                      \
        return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])) + sum; \
    }
SUM_OF(sum_f, float, double, x)
SUM_OF(sum_d, double, double, x)
SUM_OF(squares_f, float, double, x * x)
SUM_OF(squares_d, double, double, x * x)
SUM_OF(magnitudes_f, float, double, fabs(x))

void vDSP_sve(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)sum_f(a, i, n); }
void vDSP_sveD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = (double)sum_d(a, i, n); }
void vDSP_svesq(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)squares_f(a, i, n); }
void vDSP_svesqD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = (double)squares_d(a, i, n); }
void vDSP_meanv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)(sum_f(a, i, n) / (double)n); }
void vDSP_meanvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = (double)(sum_d(a, i, n) / (double)n); }
void vDSP_meamgv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)(magnitudes_f(a, i, n) / (double)n); }
void vDSP_measqv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)(squares_f(a, i, n) / (double)n); }
void vDSP_measqvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = (double)(squares_d(a, i, n) / (double)n); }
void vDSP_rmsqv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = (float)sqrt(squares_f(a, i, n) / (double)n); }
void vDSP_rmsqvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = (double)sqrt(squares_d(a, i, n) / (double)n); }

void vDSP_dotpr(const float *a, vDSP_Stride ia, const float *b, vDSP_Stride ib, float *c, vDSP_Length n) {
    double sum = 0;
    for (vDSP_Length i = 0; i < n; i++) sum += (double)a[(long)i * ia] * b[(long)i * ib];
    *c = (float)sum;
}

void vDSP_dotprD(const double *a, vDSP_Stride ia, const double *b, vDSP_Stride ib, double *c, vDSP_Length n) {
    double sum = 0;
    for (vDSP_Length i = 0; i < n; i++) sum += a[(long)i * ia] * b[(long)i * ib];
    *c = (double)sum;
}

// The extremum of f(x) (x or |x|) and the first index where it stands (times the stride, as Apple's).
#define EXTREMUM(name, type, start, value, better)                                             \
    static type name(const type *a, vDSP_Stride ia, vDSP_Length n, vDSP_Length *where) {       \
        type best = (start);                                                                   \
        vDSP_Length index = 0;                                                                 \
        for (vDSP_Length i = 0; i < n; i++) {                                                  \
            type x = (value);                                                                  \
            if (x better best) { best = x; index = i * (vDSP_Length)ia; }                      \
        }                                                                                      \
        if (where) *where = index;                                                             \
        return best;                                                                           \
    }
EXTREMUM(max_f, float, -INFINITY, a[(long)i * ia], >)
EXTREMUM(max_d, double, -INFINITY, a[(long)i * ia], >)
EXTREMUM(min_f, float, INFINITY, a[(long)i * ia], <)
EXTREMUM(min_d, double, INFINITY, a[(long)i * ia], <)
EXTREMUM(maxmg_f, float, -INFINITY, fabsf(a[(long)i * ia]), >)
EXTREMUM(maxmg_d, double, -INFINITY, fabs(a[(long)i * ia]), >)
EXTREMUM(minmg_f, float, INFINITY, fabsf(a[(long)i * ia]), <)

void vDSP_maxv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = max_f(a, i, n, 0); }
void vDSP_maxvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = max_d(a, i, n, 0); }
void vDSP_minv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = min_f(a, i, n, 0); }
void vDSP_minvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = min_d(a, i, n, 0); }
void vDSP_maxmgv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = maxmg_f(a, i, n, 0); }
void vDSP_maxmgvD(const double *a, vDSP_Stride i, double *c, vDSP_Length n) { *c = maxmg_d(a, i, n, 0); }
void vDSP_minmgv(const float *a, vDSP_Stride i, float *c, vDSP_Length n) { *c = minmg_f(a, i, n, 0); }
void vDSP_maxvi(const float *a, vDSP_Stride i, float *c, vDSP_Length *index, vDSP_Length n) { *c = max_f(a, i, n, index); }
void vDSP_minvi(const float *a, vDSP_Stride i, float *c, vDSP_Length *index, vDSP_Length n) { *c = min_f(a, i, n, index); }
void vDSP_maxmgvi(const float *a, vDSP_Stride i, float *c, vDSP_Length *index, vDSP_Length n) { *c = maxmg_f(a, i, n, index); }

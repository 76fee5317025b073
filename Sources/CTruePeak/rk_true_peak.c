// The true-peak interpolator's inner loop: see rk_true_peak.h. In C because Swift's SIMD types go
// through generic code in a debug build, where this loop ran a hundred times slower than optimized
// (the tests' debug `recorder` spent a sixth of its CPU here); clang's vector extensions do not.
#include "rk_true_peak.h"

#pragma clang fp contract(off)

typedef float rk_float8 __attribute__((vector_size(32)));
// The same, loadable from any float's address.
typedef float rk_float8_unaligned __attribute__((vector_size(32), aligned(4), may_alias));

// The loop, inlined twice below: for AVX2 and for the baseline (SSE2).
static inline __attribute__((always_inline))
float interpolated_peak(const float *samples, ptrdiff_t count, const float *weights, int phases, int length) {
    // The largest and the smallest output so far, eight lanes each: |x| without a branch per lane.
    rk_float8 highest = {0}, lowest = {0};
    ptrdiff_t index = 0;
    for (; index + 8 <= count; index += 8) {
        const float *current = samples + index;
        for (int phase = 0; phase < phases; phase++) {
            const float *phase_weights = weights + (ptrdiff_t)phase * length;
            rk_float8 sum = {0};
            for (int k = 0; k < length; k++) {
                rk_float8 window = *(const rk_float8_unaligned *)(current - k);
                sum += phase_weights[k] * window;
            }
            highest = __builtin_elementwise_max(highest, sum);
            lowest = __builtin_elementwise_min(lowest, sum);
        }
    }
    float result = 0;
    for (int lane = 0; lane < 8; lane++) {
        if (highest[lane] > result) result = highest[lane];
        if (-lowest[lane] > result) result = -lowest[lane];
    }
    for (; index < count; index++) {
        const float *current = samples + index;
        for (int phase = 0; phase < phases; phase++) {
            float sum = 0;
            for (int k = 0; k < length; k++) sum += weights[(ptrdiff_t)phase * length + k] * current[-k];
            if (sum > result) result = sum;
            if (-sum > result) result = -sum;
        }
    }
    return result;
}


// With AVX2 an eight-float vector is one register, not two. No fused operations either way (contract
// off above; AVX2 does not bring FMA), so both give the same bits.
__attribute__((target("avx2")))
static float interpolated_peak_avx2(const float *samples, ptrdiff_t count, const float *weights, int phases, int length) {
    return interpolated_peak(samples, count, weights, phases, length);
}

static float interpolated_peak_baseline(const float *samples, ptrdiff_t count, const float *weights, int phases, int length) {
    return interpolated_peak(samples, count, weights, phases, length);
}

// Chosen at each call (the processor's features are read once, before main): not by an ifunc, whose
// resolver runs while the loader relocates, before a sanitizer's runtime is ready for it.
float rk_interpolated_peak(const float *samples, ptrdiff_t count, const float *weights, int phases, int length) {
    return __builtin_cpu_supports("avx2")
        ? interpolated_peak_avx2(samples, count, weights, phases, length)
        : interpolated_peak_baseline(samples, count, weights, phases, length);
}

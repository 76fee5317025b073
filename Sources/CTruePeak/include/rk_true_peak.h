// The true-peak interpolator's inner loop (ITU-R BS.1770-4, Annex 2), for Swift: eight oversampled
// outputs at a time in C vector types, which compile to vector instructions at every optimization level.
#ifndef RK_TRUE_PEAK_H
#define RK_TRUE_PEAK_H

#include <stddef.h>

/// The largest |output| of each of `phases` interpolating phases for the `count` samples at `samples`
/// (the `length - 1` floats before `samples` are read too: the filter's history). `weights` holds
/// `length` weights per phase, one phase after the other; weight `k` applies to the sample `k` before
/// the output's. Products and sums, never fused, so the result does not depend on the instruction set.
/// NaN outputs are passed over. Returns 0 for `count` 0.
float rk_interpolated_peak(const float *samples, ptrdiff_t count, const float *weights, int phases, int length);

#endif

// vDSP's FFTs (power-of-two, split complex, in place or out of place) and DFTs (f * 2^n points) on KissFFT's
// float transforms. Apple's packing and scaling: a real forward transform is twice the DFT with the DC in
// realp[0] and the Nyquist bin in imagp[0]; every other transform, and every inverse, is unscaled.
// KissFFT's real transforms keep scratch in their configuration, so each setup has a lock: a setup may be
// used from several threads, one transform at a time. Nothing is allocated per transform.
#include <pthread.h>
#include <stdlib.h>
#include <kissfft/kiss_fft.h>
#include <kissfft/kiss_fftr.h>
#include "vDSP.h"

enum { largest_log2n = 24 };  // 16 M points: beyond it a setup is refused (NULL), not a huge allocation

struct OpaqueFFTSetup {
    vDSP_Length log2n;
    pthread_mutex_t lock;
    kiss_fftr_cfg real[2][largest_log2n + 1];     // [forward, inverse][log2 of the real length], from 1
    kiss_fft_cfg complex[2][largest_log2n + 1];   // [forward, inverse][log2 of the length], from 0
    kiss_fft_cpx *in, *out;                       // 2^log2n points each, under the lock
};

void vDSP_destroy_fftsetup(FFTSetup _Nullable setup) {
    if (!setup) return;
    for (int d = 0; d < 2; d++) {
        for (vDSP_Length k = 0; k <= setup->log2n; k++) {
            kiss_fft_free(setup->real[d][k]);
            kiss_fft_free(setup->complex[d][k]);
        }
    }
    free(setup->in);
    free(setup->out);
    pthread_mutex_destroy(&setup->lock);
    free(setup);
}

FFTSetup _Nullable vDSP_create_fftsetup(vDSP_Length log2n, FFTRadix radix) {
    if (radix != kFFTRadix2 || log2n > largest_log2n) return NULL;
    FFTSetup setup = calloc(1, sizeof *setup);
    if (!setup) return NULL;
    setup->log2n = log2n;
    pthread_mutex_init(&setup->lock, NULL);
    int complete = 1;
    for (int d = 0; d < 2; d++) {
        for (vDSP_Length k = 0; k <= log2n; k++) {
            setup->complex[d][k] = kiss_fft_alloc(1 << k, d, NULL, NULL);
            if (k >= 1) setup->real[d][k] = kiss_fftr_alloc(1 << k, d, NULL, NULL);
            complete &= setup->complex[d][k] != NULL && (k == 0 || setup->real[d][k] != NULL);
        }
    }
    setup->in = malloc(sizeof(kiss_fft_cpx) << log2n);
    setup->out = malloc(sizeof(kiss_fft_cpx) << log2n);
    if (!complete || !setup->in || !setup->out) {
        vDSP_destroy_fftsetup(setup);
        return NULL;
    }
    return setup;
}

// A real transform of `2 * half` points between KissFFT's form and Apple's packed split form. `time` holds
// the points (even ones in realp, odd in imagp, as vDSP_ctoz leaves them); `spectrum` bins 0 ... half.
static void packed_to_time(const DSPSplitComplex *a, vDSP_Stride ia, float *time, vDSP_Length half) {
    for (vDSP_Length n = 0; n < half; n++) {
        time[2 * n] = a->realp[(long)n * ia];
        time[2 * n + 1] = a->imagp[(long)n * ia];
    }
}

static void time_to_packed(const float *time, const DSPSplitComplex *c, vDSP_Stride ic, vDSP_Length half) {
    for (vDSP_Length n = 0; n < half; n++) {
        c->realp[(long)n * ic] = time[2 * n];
        c->imagp[(long)n * ic] = time[2 * n + 1];
    }
}

static void spectrum_to_packed(const kiss_fft_cpx *spectrum, float scale, const DSPSplitComplex *c, vDSP_Stride ic, vDSP_Length half) {
    c->realp[0] = scale * spectrum[0].r;
    c->imagp[0] = scale * spectrum[half].r;
    for (vDSP_Length k = 1; k < half; k++) {
        c->realp[(long)k * ic] = scale * spectrum[k].r;
        c->imagp[(long)k * ic] = scale * spectrum[k].i;
    }
}

static void packed_to_spectrum(const DSPSplitComplex *a, vDSP_Stride ia, kiss_fft_cpx *spectrum, vDSP_Length half) {
    spectrum[0] = (kiss_fft_cpx){a->realp[0], 0};
    spectrum[half] = (kiss_fft_cpx){a->imagp[0], 0};
    for (vDSP_Length k = 1; k < half; k++) spectrum[k] = (kiss_fft_cpx){a->realp[(long)k * ia], a->imagp[(long)k * ia]};
}

// A real transform with KissFFT's configuration for its length and direction; `in` and `out` scratch.
static void real_transform(kiss_fftr_cfg config, int inverse, const DSPSplitComplex *a, vDSP_Stride ia, const DSPSplitComplex *c,
                           vDSP_Stride ic, vDSP_Length half, kiss_fft_cpx *in, kiss_fft_cpx *out) {
    float *time = (float *)in;
    if (!inverse) {
        packed_to_time(a, ia, time, half);
        kiss_fftr(config, time, out);
        spectrum_to_packed(out, 2, c, ic, half);
    } else {
        packed_to_spectrum(a, ia, out, half);
        kiss_fftri(config, out, time);
        time_to_packed(time, c, ic, half);
    }
}

void vDSP_fft_zrop(FFTSetup setup, const DSPSplitComplex *a, vDSP_Stride ia, const DSPSplitComplex *c, vDSP_Stride ic,
                   vDSP_Length log2n, FFTDirection direction) {
    if (log2n < 1 || log2n > setup->log2n || (direction != kFFTDirection_Forward && direction != kFFTDirection_Inverse)) return;
    const int inverse = direction == kFFTDirection_Inverse;
    pthread_mutex_lock(&setup->lock);
    real_transform(setup->real[inverse][log2n], inverse, a, ia, c, ic, (vDSP_Length)1 << (log2n - 1), setup->in, setup->out);
    pthread_mutex_unlock(&setup->lock);
}

void vDSP_fft_zrip(FFTSetup setup, const DSPSplitComplex *c, vDSP_Stride ic, vDSP_Length log2n, FFTDirection direction) {
    vDSP_fft_zrop(setup, c, ic, c, ic, log2n, direction);
}

static void complex_transform(kiss_fft_cfg config, const float *ir, const float *ii, vDSP_Stride is, float *or_, float *oi,
                              vDSP_Stride os, vDSP_Length n, kiss_fft_cpx *in, kiss_fft_cpx *out) {
    for (vDSP_Length k = 0; k < n; k++) in[k] = (kiss_fft_cpx){ir[(long)k * is], ii[(long)k * is]};
    kiss_fft(config, in, out);
    for (vDSP_Length k = 0; k < n; k++) {
        or_[(long)k * os] = out[k].r;
        oi[(long)k * os] = out[k].i;
    }
}

void vDSP_fft_zop(FFTSetup setup, const DSPSplitComplex *a, vDSP_Stride ia, const DSPSplitComplex *c, vDSP_Stride ic,
                  vDSP_Length log2n, FFTDirection direction) {
    if (log2n > setup->log2n || (direction != kFFTDirection_Forward && direction != kFFTDirection_Inverse)) return;
    const int inverse = direction == kFFTDirection_Inverse;
    pthread_mutex_lock(&setup->lock);
    complex_transform(setup->complex[inverse][log2n], a->realp, a->imagp, ia, c->realp, c->imagp, ic, (vDSP_Length)1 << log2n,
                      setup->in, setup->out);
    pthread_mutex_unlock(&setup->lock);
}

void vDSP_fft_zip(FFTSetup setup, const DSPSplitComplex *c, vDSP_Stride ic, vDSP_Length log2n, FFTDirection direction) {
    vDSP_fft_zop(setup, c, ic, c, ic, log2n, direction);
}

// MARK: DFTs

struct vDSP_DFT_SetupStruct {
    int real;           // zrop (Length real points, N/2 in each array) or zop (Length complex points)
    int inverse;
    vDSP_Length length;
    pthread_mutex_t lock;
    kiss_fftr_cfg real_config;
    kiss_fft_cfg complex_config;
    kiss_fft_cpx *in, *out;
};

// Length = f * 2^n with f 1, 3, 5 or 15 and n at least `least`.
static int dft_length(vDSP_Length length, int least) {
    int n = 0;
    while (length > 0 && length % 2 == 0) { length /= 2; n++; }
    return n >= least && (length == 1 || length == 3 || length == 5 || length == 15);
}

void vDSP_DFT_DestroySetup(vDSP_DFT_Setup _Nullable setup) {
    if (!setup) return;
    kiss_fft_free(setup->real_config);
    kiss_fft_free(setup->complex_config);
    free(setup->in);
    free(setup->out);
    pthread_mutex_destroy(&setup->lock);
    free(setup);
}

static vDSP_DFT_Setup _Nullable dft_setup(int real, vDSP_Length length, vDSP_DFT_Direction direction) {
    if (!dft_length(length, real ? 4 : 3) || length > ((vDSP_Length)1 << largest_log2n)) return NULL;
    if (direction != vDSP_DFT_FORWARD && direction != vDSP_DFT_INVERSE) return NULL;
    vDSP_DFT_Setup setup = calloc(1, sizeof *setup);
    if (!setup) return NULL;
    setup->real = real;
    setup->inverse = direction == vDSP_DFT_INVERSE;
    setup->length = length;
    pthread_mutex_init(&setup->lock, NULL);
    if (real) setup->real_config = kiss_fftr_alloc((int)length, setup->inverse, NULL, NULL);
    else setup->complex_config = kiss_fft_alloc((int)length, setup->inverse, NULL, NULL);
    setup->in = malloc(sizeof(kiss_fft_cpx) * length);
    setup->out = malloc(sizeof(kiss_fft_cpx) * (length + 1));
    if ((real ? (void *)setup->real_config : (void *)setup->complex_config) == NULL || !setup->in || !setup->out) {
        vDSP_DFT_DestroySetup(setup);
        return NULL;
    }
    return setup;
}

// `previous` lets Apple share tables between setups; each setup here has its own, so it is not needed.
vDSP_DFT_Setup _Nullable vDSP_DFT_zop_CreateSetup(vDSP_DFT_Setup _Nullable previous, vDSP_Length length, vDSP_DFT_Direction direction) {
    (void)previous;
    return dft_setup(0, length, direction);
}

vDSP_DFT_Setup _Nullable vDSP_DFT_zrop_CreateSetup(vDSP_DFT_Setup _Nullable previous, vDSP_Length length, vDSP_DFT_Direction direction) {
    (void)previous;
    return dft_setup(1, length, direction);
}

void vDSP_DFT_Execute(const struct vDSP_DFT_SetupStruct *setup, const float *ir, const float *ii, float *or_, float *oi) {
    struct vDSP_DFT_SetupStruct *shared = (struct vDSP_DFT_SetupStruct *)setup;  // the lock and scratch only
    pthread_mutex_lock(&shared->lock);
    if (setup->real) {
        const DSPSplitComplex a = {(float *)ir, (float *)ii}, c = {or_, oi};
        real_transform(setup->real_config, setup->inverse, &a, 1, &c, 1, setup->length / 2, shared->in, shared->out);
    } else {
        complex_transform(setup->complex_config, ir, ii, 1, or_, oi, 1, setup->length, shared->in, shared->out);
    }
    pthread_mutex_unlock(&shared->lock);
}

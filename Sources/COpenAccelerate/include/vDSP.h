// vDSP's C interface as Apple's vDSP.h declares it (Accelerate, vecLib): the types, the constants and the
// functions, so that Swift imports them with Apple's spellings (`FFTDirection(FFT_FORWARD)`, `.FORWARD`,
// `vDSP_Length`). The functions are defined in this module's C files; the FFTs are KissFFT's (float only:
// Debian ships no double-precision KissFFT, so the D variants of the FFTs and DFTs are not declared).
#ifndef OPEN_ACCELERATE_VDSP_H
#define OPEN_ACCELERATE_VDSP_H

#include <stdint.h>

#pragma clang assume_nonnull begin

typedef unsigned long vDSP_Length;
typedef long vDSP_Stride;

typedef struct DSPComplex { float real; float imag; } DSPComplex;
typedef struct DSPSplitComplex { float *realp; float *imagp; } DSPSplitComplex;
typedef struct DSPDoubleComplex { double real; double imag; } DSPDoubleComplex;
typedef struct DSPDoubleSplitComplex { double *realp; double *imagp; } DSPDoubleSplitComplex;
// Old names the header still gives (USE_NON_APPLE_STANDARD_DATATYPES).
typedef DSPComplex COMPLEX;
typedef DSPSplitComplex COMPLEX_SPLIT;
typedef DSPDoubleComplex DOUBLE_COMPLEX;
typedef DSPDoubleSplitComplex DOUBLE_COMPLEX_SPLIT;

/// A setup for the power-of-two FFTs (vDSP_create_fftsetup), and one for the DFTs: opaque, as Apple's.
typedef struct OpaqueFFTSetup *FFTSetup;
typedef struct vDSP_DFT_SetupStruct *vDSP_DFT_Setup;

typedef int FFTDirection;
typedef int FFTRadix;
// Anonymous enums, so Swift sees Int constants as on Apple (`FFTDirection(FFT_FORWARD)`).
enum { kFFTDirection_Forward = +1, kFFTDirection_Inverse = -1 };
enum { kFFTRadix2 = 0, kFFTRadix3 = 1, kFFTRadix5 = 2 };
enum { vDSP_HALF_WINDOW = 1, vDSP_HANN_DENORM = 0, vDSP_HANN_NORM = 2 };
enum { FFT_FORWARD = kFFTDirection_Forward, FFT_INVERSE = kFFTDirection_Inverse };
enum { FFT_RADIX2 = kFFTRadix2, FFT_RADIX3 = kFFTRadix3, FFT_RADIX5 = kFFTRadix5 };

/// The DFTs' direction: a Swift enum with `.FORWARD` and `.INVERSE`, as CF_ENUM makes it on Apple.
typedef enum __attribute__((enum_extensibility(open))) vDSP_DFT_Direction : int {
    vDSP_DFT_FORWARD = +1,
    vDSP_DFT_INVERSE = -1
} vDSP_DFT_Direction;

// MARK: Reductions: the result in C[0]. N == 0: maxima -INFINITY, minima +INFINITY, sums 0, means NaN.
void vDSP_rmsqv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_rmsqvD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Length __N);
void vDSP_maxmgv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_maxmgvD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Length __N);
void vDSP_minmgv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_maxv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_maxvD(const double *__A, vDSP_Stride __I, double *__C, vDSP_Length __N);
void vDSP_minv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_minvD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Length __N);
void vDSP_maxvi(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length *__I, vDSP_Length __N);
void vDSP_minvi(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length *__I, vDSP_Length __N);
void vDSP_maxmgvi(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length *__I, vDSP_Length __N);
void vDSP_meanv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_meanvD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Length __N);
void vDSP_meamgv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_measqv(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_measqvD(const double *__A, vDSP_Stride __I, double *__C, vDSP_Length __N);
void vDSP_sve(const float *__A, vDSP_Stride __I, float *__C, vDSP_Length __N);
void vDSP_sveD(const double *__A, vDSP_Stride __I, double *__C, vDSP_Length __N);
void vDSP_svesq(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Length __N);
void vDSP_svesqD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Length __N);
void vDSP_dotpr(const float *__A, vDSP_Stride __IA, const float *__B, vDSP_Stride __IB, float *__C, vDSP_Length __N);
void vDSP_dotprD(const double *__A, vDSP_Stride __IA, const double *__B, vDSP_Stride __IB, double *__C, vDSP_Length __N);

// MARK: Element by element. vsub and vdiv take the subtrahend and divisor first: C = A - B, C = A / B.
void vDSP_vadd(const float *__A, vDSP_Stride __IA, const float *__B, vDSP_Stride __IB, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vaddD(const double *__A, vDSP_Stride __IA, const double *__B, vDSP_Stride __IB, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsub(const float *__B, vDSP_Stride __IB, const float *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsubD(const double *__B, vDSP_Stride __IB, const double *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vmul(const float *__A, vDSP_Stride __IA, const float *__B, vDSP_Stride __IB, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vmulD(const double *__A, vDSP_Stride __IA, const double *__B, vDSP_Stride __IB, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vdiv(const float *__B, vDSP_Stride __IB, const float *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vdivD(const double *__B, vDSP_Stride __IB, const double *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsmul(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsmulD(const double *__A, vDSP_Stride __IA, const double *__B, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsadd(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsaddD(const double *__A, vDSP_Stride __IA, const double *__B, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsdiv(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsdivD(const double *__A, vDSP_Stride __IA, const double *__B, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_svdiv(const float *__A, const float *__B, vDSP_Stride __IB, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vma(const float *__A, vDSP_Stride __IA, const float *__B, vDSP_Stride __IB, const float *__C, vDSP_Stride __IC,
    float *__D, vDSP_Stride __ID, vDSP_Length __N);
void vDSP_vsma(const float *__A, vDSP_Stride __IA, const float *__B, const float *__C, vDSP_Stride __IC, float *__D, vDSP_Stride __ID,
    vDSP_Length __N);
void vDSP_vsmsa(const float *__A, vDSP_Stride __IA, const float *__B, const float *__C, float *__D, vDSP_Stride __ID, vDSP_Length __N);
void vDSP_vabs(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vabsD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vneg(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsq(const float *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vsqD(const double *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vclr(float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vclrD(double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfill(const float *__A, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfillD(const double *__A, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vramp(const float *__A, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vrampD(const double *__A, const double *__B, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vgen(const float *__A, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vrampmul(const float *__I, vDSP_Stride __IS, float *__Start, const float *__Step, float *__O, vDSP_Stride __OS,
    vDSP_Length __N);
void vDSP_vclip(const float *__A, vDSP_Stride __IA, const float *__B, const float *__C, float *__D, vDSP_Stride __ID, vDSP_Length __N);
void vDSP_vclipD(const double *__A, vDSP_Stride __IA, const double *__B, const double *__C, double *__D, vDSP_Stride __ID,
    vDSP_Length __N);
void vDSP_vthr(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vthres(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vdbcon(const float *__A, vDSP_Stride __IA, const float *__B, float *__C, vDSP_Stride __IC, vDSP_Length __N,
    unsigned int __F);
void vDSP_vdbconD(const double *__A, vDSP_Stride __IA, const double *__B, double *__C, vDSP_Stride __IC, vDSP_Length __N,
    unsigned int __F);

// MARK: Conversions. vfix truncates toward zero, vfixr rounds to nearest; both saturate at the type's range.
void vDSP_vflt16(const short *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vflt16D(const short *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vflt32(const int *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vflt8(const signed char *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfltu8(const unsigned char *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfltu16(const unsigned short *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfix16(const float *__A, vDSP_Stride __IA, short *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfixr16(const float *__A, vDSP_Stride __IA, short *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfix32(const float *__A, vDSP_Stride __IA, int *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vfixr32(const float *__A, vDSP_Stride __IA, int *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vspdp(const float *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_vdpsp(const double *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);

// MARK: Windows (periodic: the denominator is N). Flag: vDSP_HANN_NORM or _DENORM, or'ed with vDSP_HALF_WINDOW.
void vDSP_hann_window(float *__C, vDSP_Length __N, int __Flag);
void vDSP_hann_windowD(double *__C, vDSP_Length __N, int __Flag);
void vDSP_hamm_window(float *__C, vDSP_Length __N, int __Flag);
void vDSP_hamm_windowD(double *__C, vDSP_Length __N, int __Flag);
void vDSP_blkman_window(float *__C, vDSP_Length __N, int __Flag);
void vDSP_blkman_windowD(double *__C, vDSP_Length __N, int __Flag);

// MARK: Complex vectors. A DSPComplex stride counts floats (2: contiguous), a split one elements.
void vDSP_ctoz(const DSPComplex *__C, vDSP_Stride __IC, const DSPSplitComplex *__Z, vDSP_Stride __IZ, vDSP_Length __N);
void vDSP_ctozD(const DSPDoubleComplex *__C, vDSP_Stride __IC, const DSPDoubleSplitComplex *__Z, vDSP_Stride __IZ, vDSP_Length __N);
void vDSP_ztoc(const DSPSplitComplex *__Z, vDSP_Stride __IZ, DSPComplex *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_ztocD(const DSPDoubleSplitComplex *__Z, vDSP_Stride __IZ, DSPDoubleComplex *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvmags(const DSPSplitComplex *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvmagsD(const DSPDoubleSplitComplex *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvabs(const DSPSplitComplex *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvabsD(const DSPDoubleSplitComplex *__A, vDSP_Stride __IA, double *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvphas(const DSPSplitComplex *__A, vDSP_Stride __IA, float *__C, vDSP_Stride __IC, vDSP_Length __N);
void vDSP_zvmul(const DSPSplitComplex *__A, vDSP_Stride __IA, const DSPSplitComplex *__B, vDSP_Stride __IB,
    const DSPSplitComplex *__C, vDSP_Stride __IC, vDSP_Length __N, int __Conjugate);

// MARK: FFTs of 2^Log2N points (radix 2; 3 and 5 are refused: NULL). No scaling but the real forward's 2.
FFTSetup _Nullable vDSP_create_fftsetup(vDSP_Length __Log2n, FFTRadix __Radix);
void vDSP_destroy_fftsetup(FFTSetup _Nullable __setup);
void vDSP_fft_zrip(FFTSetup __Setup, const DSPSplitComplex *__C, vDSP_Stride __IC, vDSP_Length __Log2N, FFTDirection __Direction);
void vDSP_fft_zrop(FFTSetup __Setup, const DSPSplitComplex *__A, vDSP_Stride __IA, const DSPSplitComplex *__C, vDSP_Stride __IC,
    vDSP_Length __Log2N, FFTDirection __Direction);
void vDSP_fft_zip(FFTSetup __Setup, const DSPSplitComplex *__C, vDSP_Stride __IC, vDSP_Length __Log2N, FFTDirection __Direction);
void vDSP_fft_zop(FFTSetup __Setup, const DSPSplitComplex *__A, vDSP_Stride __IA, const DSPSplitComplex *__C, vDSP_Stride __IC,
    vDSP_Length __Log2N, FFTDirection __Direction);

// MARK: DFTs of f * 2^n points (f 1, 3, 5 or 15; complex n >= 3, real n >= 4): NULL for any other length.
vDSP_DFT_Setup _Nullable vDSP_DFT_zop_CreateSetup(vDSP_DFT_Setup _Nullable __Previous, vDSP_Length __Length,
    vDSP_DFT_Direction __Direction);
vDSP_DFT_Setup _Nullable vDSP_DFT_zrop_CreateSetup(vDSP_DFT_Setup _Nullable __Previous, vDSP_Length __Length,
    vDSP_DFT_Direction __Direction);
void vDSP_DFT_Execute(const struct vDSP_DFT_SetupStruct *__Setup, const float *__Ir, const float *__Ii, float *__Or, float *__Oi);
void vDSP_DFT_DestroySetup(vDSP_DFT_Setup _Nullable __Setup);

// MARK: Filters. conv correlates (a negative filter stride, from the filter's last element, convolves).
void vDSP_conv(const float *__A, vDSP_Stride __IA, const float *__F, vDSP_Stride __IF, float *__C, vDSP_Stride __IC,
    vDSP_Length __N, vDSP_Length __P);
void vDSP_convD(const double *__A, vDSP_Stride __IA, const double *__F, vDSP_Stride __IF, double *__C, vDSP_Stride __IC,
    vDSP_Length __N, vDSP_Length __P);
void vDSP_desamp(const float *__A, vDSP_Stride __DF, const float *__F, float *__C, vDSP_Length __N, vDSP_Length __P);
void vDSP_desampD(const double *__A, vDSP_Stride __DF, const double *__F, double *__C, vDSP_Length __N, vDSP_Length __P);

#pragma clang assume_nonnull end

#endif

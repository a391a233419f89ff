/* float32 cbrt in float, division by 3 of the exponent and one Halley step,
 * written once for one float (every level's titer_fast_cbrtf, its split
 * loop vectorized by GCC) and for sixteen (titer_vcbrtf16, where AVX-512 is
 * the target; titer_fast_cbrtf is its twin there: the same operations, FMA
 * included, so the same bits).
 *
 * |x| = 2^3q a with a in [3/16, 3/2): k = rint(|x|'s bits / (3 2^23)), the
 * bits converted to float (a piecewise-linear log2), times 1/3 and rounded
 * by 1.5 2^23 - 42 in one FMA, whose low mantissa bits then hold q = k - 42
 * (the same k fused or not: checked on every input); a's bits are |x|'s
 * less 3q << 23.  y = P(a) ~ cbrt(a), P of degree 4 fitted to the relative
 * error (2^-9.07, each coefficient rounded to float in turn), cut to 12
 * bits so y^2 is exact and R = y^3 - a one rounding of a small number (no
 * rounding at all fused); Halley's step cbrt(a) = y - y R / (2y^3 + a)
 * (the denominator 3a + 2R), error (2/3) e^3 < 2^-26.8 for |e| < 2^-8.8;
 * then 2^q and the sign into the bits.  Branch-free, one division.  Within
 * 1 ULP of the float64 cbrt rounded to float32 on every float32 in range,
 * fused and not: at most 0.582 ULP from the exact value fused (2.3% of
 * inputs not the rounded float64 result), 0.826 unfused (8.5%); raising
 * nothing but inexact; exact cubes (8, 27, 0.125, -64: all 21656 normal
 * ones) exact; the twin bit-identical (checked exhaustively in C with this
 * header, -ffp-contract=off, at the avx512, avx2 and baseline targets).  In cache on one
 * AVX-512 thread (Zen 4, C harness, 4096 floats): 0.264 ns an element
 * against 0.278 for the vector math library's _ZGVeN16v_cbrtf and 0.93 for
 * the double form it replaces vectorized by GCC; through
 * TITER_VEC_LOOP_F16 0.30-0.31 against 0.37-0.38 for TITER_VL_LOOP on
 * _ZGVeN16v_cbrtf (NumPy's cbrt from Python there: 0.39-0.41).
 * GCC-vectorized at the avx2 level (FMA loops) 0.35 against 1.08 for
 * _ZGVdN8v_cbrtf and 1.18 for the double form; through TITER_SPLIT_LOOP
 * 0.42 against 1.16 for TITER_VL_LOOP on _ZGVdN8v_cbrtf.  (Without
 * the 12-bit cut: 5% faster, but 1.01 ULP from the exact value unfused;
 * the exponent / 3 in integers (multiply-shift): slower.)  The operations
 * as in titer_vlog1pf.h; included by titer_scalar.h after it.
 * Range: normal and finite, both signs. */
#ifndef TITER_VCBRTF_H
#define TITER_VCBRTF_H

#define TITER_CBRTF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    VI bits_ = TOBITS(x), abs_ = bits_ & 0x7fffffff;                                 \
    V third_ = FMA(CVT(abs_), C(0x1.555556p-25f), C(12582870.0f));    /* + k - 42 */ \
    VI q_ = TOBITS(third_) << 23;                                     /* q << 23 */  \
    V a_ = FROMBITS(abs_ - q_ * 3);                                /* [3/16, 3/2) */ \
    V p_ = FMA(C(-0x1.99e6d6p-3f), a_, C(0x1.aa2838p-1f));                           \
    p_ = FMA(p_, a_, C(-0x1.5d3abap+0f));                                            \
    p_ = FMA(p_, a_, C(0x1.5f17c8p+0f));                                             \
    V y_ = FROMBITS(TOBITS(FMA(p_, a_, C(0x1.6fb698p-2f))) & ~0xfff);   /* 12 bits */ \
    V y2_ = y_ * y_;                                                   /* exact */   \
    V r_ = FMA(y2_, y_, -a_);                                          /* y^3 - a */ \
    V d_ = FMA(C(2.0f), r_, C(3.0f) * a_);                             /* 2y^3 + a */ \
    V t_ = FMA(-(r_ / d_), y_, y_);                                                  \
    V result = FROMBITS((TOBITS(t_) + q_) | (bits_ ^ abs_));

/* cbrt: normal and finite, both signs: titer_fast_cbrtf and
 * titer_fast_cbrtf_ok, titer_vcbrtf16 and titer_vcbrtf16_ok; lanes out of
 * the range keep their inputs for the kernel (TITER_VEC_LOOP_F16) */
TITER_TWIN_FORMS(titer_fast_cbrtf, titer_vcbrtf16, TITER_CBRTF_KERNEL, 0x00800000u, 0x7f800000u)
#define titer_vcbrtf16_rest TITER_VEC_REST_INPUT
#define titer_vcbrtf16_safe 1.0f

#endif

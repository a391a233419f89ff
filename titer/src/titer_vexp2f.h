/* float32 exp2, written once for one float (every level's
 * titer_fast_exp2f, its split loop vectorized by GCC) and for sixteen
 * (titer_vexp2f16, where AVX-512 is the target; titer_fast_exp2f is its
 * twin there: the same operations, FMA included, so the same bits).
 *
 * 2^x = 2^n 2^r with n = rint(x) (read from the bits of x + 1.5 2^23 + 127,
 * whose low mantissa bits hold n + 127: 2^n's bits shifted down 23) and r =
 * x - n exact, |r| <= 1/2; 2^r = 1 + r P(r), P of degree 5 with float
 * coefficients fitted to the relative error of 2^r, 2^-28.3 (each
 * coefficient rounded to float in turn, the later ones refitted), Horner's
 * steps fused.  For |x| < 126 the result is normal and finite and the
 * scaling exact.  Within 1 ULP of the correctly rounded exp2 (0.80 ULP
 * from the exact value at worst) on every float32 in range, with FMA and
 * without, raising nothing but inexact (checked exhaustively in C against
 * double exp2, the twin bit-identical).  12 operations a vector where
 * e^(r ln2) through titer_expm1f_poly took 15: in cache on one AVX-512
 * thread (C harness, three runs) 0.15-0.20 ns an element against 0.21-0.23
 * for the vector math library's _ZGVeN16v_exp2f, which the avx2 level
 * keeps.  The operations as
 * in titer_vlog1pf.h; included by titer_scalar.h after it. */
#ifndef TITER_VEXP2F_H
#define TITER_VEXP2F_H

#define TITER_EXP2F_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    V shifted_ = (x) + C(12582912.0f + 127.0f);                       /* 1.5 2^23 + 127 */ \
    V n_ = shifted_ - C(12582912.0f + 127.0f);                                            \
    V r_ = (x) - n_;                                                                      \
    V p_ = FMA(C(0x1.417a9ap-13f), r_, C(0x1.5f0948p-10f));                               \
    p_ = FMA(p_, r_, C(0x1.3b2dd2p-7f));                                                  \
    p_ = FMA(p_, r_, C(0x1.c6af7ap-5f));                                                  \
    p_ = FMA(p_, r_, C(0x1.ebfbdcp-3f));                                                  \
    p_ = FMA(p_, r_, C(0x1.62e430p-1f));                                                  \
    V result = TITER_EXP2F_SCALE(V, TOBITS, FROMBITS, FMA(p_, r_, C(1.0f)), shifted_, n_);
/* m 2^n: by 2^n's bits (the low mantissa bits of shifted hold n + 127),
 * or on sixteen lanes by vscalefps, one instruction for three; both exact
 * where |x| < 126 (the result normal), so the same bits */
#define TITER_EXP2F_SCALE(V, TOBITS, FROMBITS, m, shifted, n) TITER_EXP2F_SCALE_##V(TOBITS, FROMBITS, m, shifted, n)
#define TITER_EXP2F_SCALE_float(TOBITS, FROMBITS, m, shifted, n) \
    ((m) * FROMBITS((TOBITS(shifted) - 0x4b400000) << 23))
#define TITER_EXP2F_SCALE_titer_v16f(TOBITS, FROMBITS, m, shifted, n) \
    ((titer_v16f)_mm512_scalef_ps((__m512)(m), (__m512)(n)))

/* exp2: |x| < 126, the result normal and finite: titer_fast_exp2f and
 * titer_fast_exp2f_ok, titer_vexp2f16 and titer_vexp2f16_ok; lanes out of
 * the range keep their inputs for the kernel (TITER_VEC_LOOP_F16) */
TITER_TWIN_FORMS(titer_fast_exp2f, titer_vexp2f16, TITER_EXP2F_KERNEL, 0u, 0x42fc0000u)
#define titer_vexp2f16_rest TITER_VEC_REST_INPUT
#define titer_vexp2f16_safe 0.5f
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
/* the float16 loop's lanes (NOTE [float16 in registers]): x in [-14, 126),
 * inside the form's range, where 2^x >= 2^-14 is a normal half or
 * overflows (the form's results are not below 2^-14 there either: n =
 * rint(x) >= -14, and r >= 0 where n = -14); NaNs fail both */
TITER_FAST_INLINE __mmask16 titer_vexp2f16_half_ok(titer_v16f x) {
    return _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask((__m512)x, _mm512_set1_ps(-14.0f), _CMP_GE_OQ),
                                   (__m512)x, _mm512_set1_ps(126.0f), _CMP_LT_OQ);
}
#endif

#endif

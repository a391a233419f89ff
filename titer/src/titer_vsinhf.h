/* float32 sinh, division-free, written once for one float (every level's
 * titer_fast_sinhf, its split loop vectorized by GCC) and for sixteen
 * (titer_vsinhf16, where AVX-512 is the target; titer_fast_sinhf is its
 * twin there: the same operations, FMA included, so the same bits).
 *
 * a = |x| = n ln2 + r (ln 2 in two parts, |r| <= ln2/2, n read from the
 * bits of a log2(e) + 1.5 2^23), e^a = 2^n (1 + r + pe + po) and e^-a =
 * 2^-n (1 - r + pe - po) with pe and po the even and odd Taylor terms of
 * e^r past r (to r^6 and r^7), so with S, D = 2^(n-1) +- 2^(-n-1) sinh a =
 * D + (S r + D pe + S po), the small terms summed first, so one rounding
 * dominates.  D and S are exact up to n = 12; from 13 on they round to
 * 2^(n-1), off by 2^-2n of it.  For |x| < ln2/2 (n = 0, D = 0), sinh is r
 * + po with r = x: nothing cancels.  From 2^-30 up no partial product
 * underflows; below 87.5, n <= 126 and 2^(-n-1) is a float or 0.  Within 1
 * ULP of the float64 result rounded to float32 on every float32 in range,
 * with FMA and without (checked exhaustively in C with this header, the
 * twin bit-identical).  In cache on one AVX-512 thread (C harness): 0.30
 * ns an element against 0.40 for the same arithmetic with D held exact by
 * blends, r^8 and 2^-60 <= |x| < 89 (the split loop's before).  (cosh's
 * division in titer_scalar.h is cheaper, but sinh would need a polynomial
 * below |x| = 1.25 beside it, where e^-a's rounding is comparable to the
 * result: slower than this at every level.)  The operations as in
 * titer_vlog1pf.h; included by titer_scalar.h after it. */
#ifndef TITER_VSINHF_H
#define TITER_VSINHF_H

#define TITER_SINHF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    VI sign_ = TOBITS(x) & ~0x7fffffff;                                              \
    V a_ = FROMBITS(TOBITS(x) ^ sign_);                                              \
    V shifted_ = FMA(a_, C(1.44269504088896341f), C(12582912.0f));                   \
    V n_ = shifted_ - C(12582912.0f);                                 /* rint */     \
    VI n_at_exponent_ = (TOBITS(shifted_) - 0x4b400000) << 23;        /* n << 23 */  \
    V r_ = FMA(n_, C(2.12194440e-4f), FMA(n_, C(-0.693359375f), a_));                \
    V z_ = r_ * r_;                                                                  \
    V pe_ = FMA(FMA(C(1.3888889e-03f), z_, C(4.1666668e-02f)), z_, C(0.5f)) * z_;    \
    V po_ = FMA(FMA(C(1.9841270e-04f), z_, C(8.3333338e-03f)), z_, C(1.6666667e-01f)) \
            * z_ * r_;                                                               \
    V up_ = FROMBITS(0x3f000000 + n_at_exponent_);                    /* 2^(n-1) */  \
    V down_ = FROMBITS(0x3f000000 - n_at_exponent_);                 /* 2^(-n-1) */  \
    V sum_ = up_ + down_, diff_ = up_ - down_;                                       \
    V mag_ = diff_ + FMA(sum_, r_, FMA(diff_, pe_, sum_ * po_));                     \
    V result = FROMBITS(TOBITS(mag_) | sign_);

/* sinh: 2^-30 <= |x| < 87.5 (no partial product underflows; n <= 126, so
 * 2^(-n-1) is a float or 0): titer_fast_sinhf and titer_fast_sinhf_ok,
 * titer_vsinhf16 and titer_vsinhf16_ok; lanes out of the range keep their
 * inputs for the kernel (TITER_VEC_LOOP_F16 in titer_vtanf.h) */
TITER_TWIN_FORMS(titer_fast_sinhf, titer_vsinhf16, TITER_SINHF_KERNEL, 0x30800000u, 0x42af0000u)
#define titer_vsinhf16_rest TITER_VEC_REST_INPUT
#define titer_vsinhf16_safe 0.5f

#endif

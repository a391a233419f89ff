/* float32 log, log1p, arcsinh, arccosh and arctanh where AVX-512 is the
 * target: one log kernel in float on sixteen lanes, the others an argument
 * reduction in front of it, each with its scalar twin (the same kernel on
 * one float: the same bits) for a block's remainder.  The levels without
 * AVX-512 keep titer_fast_logf's split loop and the vector math library's
 * loops (or, without it, the double formulas of titer_fast_log1pf and its
 * neighbours).
 *
 * log x: x = 2^e m with m in [sqrt(2)/2, sqrt(2)) read from x's bits, f =
 * m - 1 (exact), log(1 + f) = f + f^2 (f P(f) - 1/2) with titer_fast_logf's
 * polynomial P, and e ln 2 in two parts; that kernel's compare and select
 * for m's interval become an integer offset (0.34 against 0.39-0.42 ns an
 * element in cache, one AVX-512 thread, a C harness).  Within 1 ULP of the
 * float64 log rounded to float32 on every positive normal float32.
 * log1p u: a = 1 + u rounded, e read from a's bits; f = u 2^-e + (2^-e -
 * 1) -- the first an exponent shift of u's bits, the second exact in one
 * FMA, so f is m - 1 rounded once from the exact 1 + u, without a
 * correction term for a's rounding (and f = u when e = 0) -- then the same
 * tail.  The squared term as a product of f with (f P - 1/2) f keeps every
 * partial product above the normal range for |u| >= 2^-60 (f^3 P
 * underflows from 2^-42).  Within 1 ULP of the float64 log1p rounded to
 * float32 on every float32 of the range (2^-60 <= |u|, u > -1, finite).
 * Both raise nothing in range, their scalar twins bit-identical (checked
 * exhaustively in C with this header, -ffp-contract=off).
 *
 * The others, through w with f(x) = log1p(w), within 2 ULP of the rounded
 * float64 result on every float32 of their ranges (likewise checked; the
 * vector math library's are within 3):
 *   arccosh x, x >= 1: t = x - 1 (exact below 2^24), w = t + sqrt(t x + t)
 *     (one FMA); from x = 2^13 on, log(2x) = log1p(x - 1) with e + 1 (the
 *     1/(4x^2) left out is below 2^-28 of the result), the small branch's
 *     operands capped so it raises nothing there;
 *   arcsinh x: a = |x|, w = a + a^2 / (1 + sqrt(1 + a^2)), from a = 2^12 on
 *     log(2a) likewise; the sign put back;
 *   arctanh x, |x| < 1: w = 2a / (1 - a), half of log1p w, the sign back.
 * A kernel below is written once for a type V (float or sixteen floats),
 * its signed integer twin VI, and operations FMA, C (a constant), TOBITS /
 * FROMBITS (bit casts to VI and back), CVT (VI to V), MIN, SQRT and MASK (a
 * comparison's all-ones mask as VI); EBUMP (VI, 0 or all ones) adds 1 to e.
 * Included by titer_scalar.h after the double forms. */
#ifndef TITER_VLOG1PF_H
#define TITER_VLOG1PF_H

/* a float kernel's operations on one float, at every level (titer_vsinhf.h) */
#define TITER_F1_TOBITS(x) ((int32_t)titer_f2bits(x))
#define TITER_F1_FROMBITS(b) titer_bits2f((uint32_t)(b))
#define TITER_F1_CVT(e) ((float)(e))
#define TITER_F1_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TITER_F1_MASK(c) (0 - (int32_t)(c))
/* the one-float operation list of an every-level fast path: FMA as the
 * level has it (titer_poly_fma: fused in the instruction-set units) */
#define TITER_F1_LEVEL_OPS float, int32_t, titer_poly_fma, TITER_SCALAR_C, TITER_F1_TOBITS, \
                           TITER_F1_FROMBITS, TITER_F1_CVT, TITER_F1_MIN, sqrtf, TITER_F1_MASK
/* a kernel on an operation list: the list expands before the kernel's
 * arguments are counted */
#define TITER_KERNEL_OF(KERNEL, ...) KERNEL(__VA_ARGS__)
/* A kernel whose one-float form (on TITER_F1_LEVEL_OPS) is every level's
 * fast path FAST (with its range test FAST_ok: magnitudes whose bits lie
 * in [LO, HI)) and, where AVX-512 is the target, the twin of its 16-lane
 * form FORM16 (with FORM16_ok, the same range on sixteen lanes): sinh
 * (titer_vsinhf.h), exp2 (titer_vexp2f.h). */
#define TITER_TWIN_FORMS(FAST, FORM16, KERNEL, LO, HI)                             \
    TITER_FAST_INLINE int FAST##_ok(float x) {                                      \
        return titer_fabs_bits(x) - (uint32_t)(LO) < (uint32_t)(HI) - (uint32_t)(LO); \
    }                                                                               \
    TITER_FAST_INLINE float FAST(float x) {                                         \
        TITER_KERNEL_OF(KERNEL, TITER_F1_LEVEL_OPS, x, result)                      \
        return result;                                                              \
    }                                                                               \
    TITER_TWIN_FORM16(FORM16, KERNEL, LO, HI)

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)

/* log(2^e (1 + f)) from f and k = e << 23 (EBUMP: see above) */
#define TITER_LOGF_TAIL(V, VI, FMA, C, CVT, f, k, EBUMP, result)                     \
    V y = FMA(C(-0.07634344f), f, C(0.12761515f));                                   \
    y = FMA(y, f, C(-0.13160211f));                                                  \
    y = FMA(y, f, C(0.14201768f));                                                   \
    y = FMA(y, f, C(-0.16623355f));                                                  \
    y = FMA(y, f, C(0.20001227f));                                                   \
    y = FMA(y, f, C(-0.25000823f));                                                  \
    y = FMA(y, f, C(0.3333333f));                                                    \
    y = FMA(y, f, C(-0.5f)) * f;                                                     \
    V fe = CVT((k >> 23) - (EBUMP));                                                 \
    y = FMA(y, f, fe * C(-2.12194440e-4f));                                          \
    V result = FMA(C(0.693359375f), fe, f + y);
#define TITER_LOGF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    VI k = (TOBITS(x) - 0x3f3504f3) & ~0x007fffff;                   /* e << 23 */    \
    V f = FROMBITS(TOBITS(x) - k) - C(1.0f);                         /* exact */      \
    TITER_LOGF_TAIL(V, VI, FMA, C, CVT, f, k, 0, result)
#define TITER_LOG1PF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, u, EBUMP, result)  \
    VI k = (TOBITS(u + C(1.0f)) - 0x3f3504f3) & ~0x007fffff;                         \
    V f = FROMBITS(TOBITS(u) - k) + FMA(C(0.25f), FROMBITS(0x40800000 - k), C(-1.0f)); \
    TITER_LOGF_TAIL(V, VI, FMA, C, CVT, f, k, EBUMP, result)
#define TITER_LOG1PF_UNARY(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, u, result) \
    TITER_LOG1PF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, u, 0, result)

#define TITER_ACOSHF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    V xs = MIN(x, C(8192.0f)), ts = xs - C(1.0f);                                     \
    VI big = MASK(x >= C(8192.0f));                                                  \
    V w = FROMBITS((TOBITS(x - C(1.0f)) & big)                                       \
                   | (TOBITS(ts + SQRT(FMA(ts, xs, ts))) & ~big));                   \
    TITER_LOG1PF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, w, big, result)

#define TITER_ASINHF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    VI sign = TOBITS(x) & ~0x7fffffff;                                               \
    V ax = FROMBITS(TOBITS(x) ^ sign), as = MIN(ax, C(4096.0f)), a2 = as * as;       \
    VI big = MASK(ax >= C(4096.0f));                                                 \
    V w = FROMBITS((TOBITS(ax - C(1.0f)) & big)                                      \
                   | (TOBITS(as + a2 / (C(1.0f) + SQRT(a2 + C(1.0f)))) & ~big));     \
    TITER_LOG1PF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, w, big, unsigned_)     \
    V result = FROMBITS(TOBITS(unsigned_) | sign);

#define TITER_ATANHF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, MIN, SQRT, MASK, x, result) \
    VI sign = TOBITS(x) & ~0x7fffffff;                                               \
    V ax = FROMBITS(TOBITS(x) ^ sign);                                               \
    V w = (ax + ax) / (C(1.0f) - ax);                                                \
    TITER_LOG1PF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, w, 0, twice)           \
    V result = FROMBITS(TOBITS(twice * C(0.5f)) | sign);

/* the operations on one float (above, every level has them) and on sixteen */
#define TITER_F1_OPS float, int32_t, __builtin_fmaf, TITER_SCALAR_C, TITER_F1_TOBITS, \
                     TITER_F1_FROMBITS, TITER_F1_CVT, TITER_F1_MIN, sqrtf, TITER_F1_MASK
#define TITER_V16_TOBITS(x) ((titer_v16i)(x))
#define TITER_V16_FROMBITS(b) ((titer_v16f)(b))
#define TITER_V16_CVT(e) __builtin_convertvector(e, titer_v16f)
#define TITER_V16_MIN(a, b) ((titer_v16f)_mm512_min_ps((__m512)(a), (__m512)(b)))
#define TITER_V16_SQRT(v) ((titer_v16f)_mm512_sqrt_ps((__m512)(v)))
#define TITER_V16_MASK(c) (c)
#define TITER_V16_OPS titer_v16f, titer_v16i, TITER_V16_FMA, TITER_V16_C, TITER_V16_TOBITS, \
                      TITER_V16_FROMBITS, TITER_V16_CVT, TITER_V16_MIN, TITER_V16_SQRT, \
                      TITER_V16_MASK

/* each function's scalar twin (<name>_twin) and 16-lane form (<stem>16),
 * from its kernel on the operations of one float and of sixteen
 * (TITER_KERNEL_OF: above) */
#define TITER_F16_FORMS_OF(TWIN, FORM16, KERNEL, F1_OPS, V16_OPS)                      \
    TITER_FAST_INLINE float TWIN(float x) {                                          \
        TITER_KERNEL_OF(KERNEL, F1_OPS, x, result)                                   \
        return result;                                                               \
    }                                                                                \
    TITER_FAST_INLINE titer_v16f FORM16(titer_v16f x) {                              \
        TITER_KERNEL_OF(KERNEL, V16_OPS, x, result)                                  \
        return result;                                                               \
    }
/* TITER_TWIN_FORMS' sixteen lanes */
#define TITER_TWIN_FORM16(FORM16, KERNEL, LO, HI)                                  \
    TITER_FAST_INLINE titer_v16f FORM16(titer_v16f x) {                              \
        TITER_KERNEL_OF(KERNEL, TITER_V16_OPS, x, result)                            \
        return result;                                                               \
    }                                                                                \
    TITER_MAGNITUDE_RANGE16(FORM16##_ok, LO, HI)
/* a 16-lane form's range test: the magnitude's bits in [LO, HI) */
#define TITER_MAGNITUDE_RANGE16(NAME, LO, HI)                                        \
    TITER_FAST_INLINE __mmask16 NAME(titer_v16f x) {                                 \
        return titer_vbits16_in(TITER_V16_MAGNITUDE(x), LO, HI);                     \
    }
#define TITER_F16_FORMS(TWIN, FORM16, KERNEL) \
    TITER_F16_FORMS_OF(TWIN, FORM16, KERNEL, TITER_F1_OPS, TITER_V16_OPS)
TITER_F16_FORMS(titer_logf_twin, titer_vlogf16, TITER_LOGF_KERNEL)
TITER_F16_FORMS(titer_log1pf_twin, titer_vlog1pf16, TITER_LOG1PF_UNARY)
TITER_F16_FORMS(titer_acoshf_twin, titer_vacoshf16, TITER_ACOSHF_KERNEL)
TITER_F16_FORMS(titer_asinhf_twin, titer_vasinhf16, TITER_ASINHF_KERNEL)
TITER_F16_FORMS(titer_atanhf_twin, titer_vatanhf16, TITER_ATANHF_KERNEL)

/* their ranges on sixteen floats, the same as the scalar fast paths'
 * (titer_fast_log1pf_ok, ...): bit patterns in [lo, hi), of the magnitude
 * where the function is odd */
TITER_FAST_INLINE __mmask16 titer_vbits16_in(__m512i bits, uint32_t lo, uint32_t hi) {
    return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(bits, _mm512_set1_epi32((int)lo)),
                                   _mm512_set1_epi32((int)(hi - lo)));
}
#define TITER_V16_MAGNITUDE(x) _mm512_and_si512((__m512i)(x), _mm512_set1_epi32(0x7fffffff))
TITER_FAST_INLINE __mmask16 titer_vlog1pf16_ok(titer_v16f u) {
    return titer_vbits16_in((__m512i)u, 0x21800000u, 0x7f800000u)
           | titer_vbits16_in((__m512i)u, 0xa1800000u, 0xbf800000u);
}
TITER_FAST_INLINE __mmask16 titer_vlogf16_ok(titer_v16f x) {
    return titer_vbits16_in((__m512i)x, 0x00800000u, 0x7f800000u);
}
TITER_FAST_INLINE __mmask16 titer_vacoshf16_ok(titer_v16f x) {
    return titer_vbits16_in((__m512i)x, 0x3f800000u, 0x7f800000u);
}
TITER_FAST_INLINE __mmask16 titer_vasinhf16_ok(titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x21800000u, 0x7f800000u);
}
TITER_FAST_INLINE __mmask16 titer_vatanhf16_ok(titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x21800000u, 0x3f800000u);
}

/* for TITER_VEC_LOOP_F16 (titer_vtanf.h): one form, so the lanes out of
 * its range keep their inputs for the kernel (log's below: see above); the
 * input a masked-off lane computes on (in every range but arctanh's, 1) */
/* log's lanes below its range get glibc's answer in the vector, as
 * titer_domain_logf computes it: below 0 (-inf too) the default nan and
 * invalid (here from inf - inf, off the divider: the nan of (x - x) /
 * (x - x)), at +-0 -inf and divide-by-zero from -1 / +0 (only in a vector
 * with a zero); nan, subnormal and +inf lanes keep their inputs for the
 * kernel.  (The masked lanes raise nothing.)  An array half of whose
 * inputs are negative -- log under where(x > 0, ...) -- no longer sends
 * half its elements to the kernel. */
#define titer_vlogf16_rest(in, mask, rest, kept)                                       \
    {                                                                                \
        __mmask16 below_ = _mm512_cmp_ps_mask((__m512)(in), _mm512_setzero_ps(), _CMP_LT_OQ); \
        __mmask16 zero_ = _mm512_cmp_ps_mask((__m512)(in), _mm512_setzero_ps(), _CMP_EQ_OQ); \
        const __m512 inf_ = _mm512_set1_ps(__builtin_inff());                        \
        rest = _mm512_mask_sub_ps((__m512)(in), below_, inf_, inf_);                 \
        if (zero_)                                                                   \
            rest = _mm512_mask_div_ps(rest, zero_, _mm512_set1_ps(-1.0f), _mm512_setzero_ps()); \
        kept = below_ | zero_;                                                       \
    }
#define titer_vlog1pf16_rest TITER_VEC_REST_INPUT
#define titer_vacoshf16_rest TITER_VEC_REST_INPUT
#define titer_vasinhf16_rest TITER_VEC_REST_INPUT
#define titer_vatanhf16_rest TITER_VEC_REST_INPUT
#define titer_vlogf16_safe 1.0f
#define titer_vlog1pf16_safe 1.0f
#define titer_vacoshf16_safe 1.0f
#define titer_vasinhf16_safe 1.0f
#define titer_vatanhf16_safe 0.5f

#else
#define TITER_TWIN_FORM16(FORM16, KERNEL, LO, HI)
#endif
#endif

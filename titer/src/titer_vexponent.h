/* ldexp and frexp by AVX-512's exponent instructions, where AVX-512 is the
 * target (_codegen._INTRINSIC_FORMS).
 *
 * NOTE [ldexp by vscalef]: titer_ldexp (titer_scalar.h) scales in musl's
 * steps, five products a lane, so its vectorized loops ran at 0.47-0.56x
 * NumPy's AVX-512 ldexp on a Zen 4, which takes one vscalef a vector.
 * vscalef(x, y) is x 2^floor(y) rounded once, by the rounding mode, with
 * the overflow / underflow / inexact / invalid (signalling NaN) flags of
 * that one rounding: the correctly rounded ldexp, which titer_ldexp is too
 * (its steps before the last product are exact), so the same bits and
 * flags.  The exponent becomes a float first: exact for an int32 into
 * double; where it rounds (int32 into float beyond 2^24, int64 beyond the
 * float's mantissa) it is far past every exponent that leaves a finite
 * nonzero result, which it stays, so the result is unchanged (zero, inf
 * and nan scale to themselves at any y).  Lanes past the end are masked
 * off, their loads zeroed and their flags suppressed; the output's
 * elements before its 64-byte boundary are one masked step of their own
 * (NOTE [aligned stores]).  titer_vscalef_<x><n> takes a contiguous or
 * stride-0 x and n with a contiguous output and returns 1, else 0 (the
 * caller's loop runs titer_ldexp).  Included by titer_loops.h. */
#ifndef TITER_VEXPONENT_H
#define TITER_VEXPONENT_H

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>
#define TITER_HAVE_VEXPONENT 1

/* CALL for each vector of an output PO of N elements of TX, `at` its first
 * element and `mask` (M) its lanes: the elements before PO's 64-byte
 * boundary masked, whole vectors, the tail masked */
#define TITER_VEXPONENT_WALK(TX, LANES, M, PO, N, CALL)                                 \
    {                                                                                   \
        const int64_t head_ = titer_head_to_align(PO, (int64_t)sizeof(TX), N);           \
        int64_t at = 0;                                                                 \
        M mask;                                                                         \
        for (; at < head_; at += LANES) {                                               \
            mask = head_ - at >= LANES ? (M)~(M)0 : (M)(((M)1 << (head_ - at)) - 1);    \
            CALL;                                                                       \
        }                                                                               \
        at = head_;                                                                     \
        mask = (M)~(M)0;                                                                \
        for (; at + LANES <= (N); at += LANES)                                          \
            CALL;                                                                       \
        if (at < (N)) {                                                                 \
            mask = (M)(((M)1 << ((N) - at)) - 1);                                       \
            CALL;                                                                       \
        }                                                                               \
    }

/* S: the signature's chars; TX / TN the element types; LANES a vector's
 * elements, M its mask type; VX the float vector; LOADX / LOADN masked
 * zeroing loads (LOADN converting the exponents to VX), SETX / SETN the
 * broadcasts; SCALEF and STORE masked */
#define TITER_VSCALEF_DEFS(S, TX, TN, LANES, M, VX, LOADX, LOADN, SETX, SETN, SCALEF, STORE) \
TITER_FAST_INLINE void titer_vscalef_step_##S(TX *po, const TX *px, const TN *pn, VX xb,  \
                                              VX nb, int x_step, int n_step, M m) {     \
    const VX x = x_step ? LOADX(m, px) : xb, e = n_step ? LOADN(m, pn) : nb;             \
    STORE(po, m, SCALEF(m, x, e));                                                      \
}                                                                                       \
TITER_FAST_INLINE void titer_vscalef_run_##S(TX *po, const TX *px, const TN *pn,         \
                                             int x_step, int n_step, int64_t n) {       \
    const VX xb = SETX(*px), nb = SETN(*pn);                                            \
    TITER_VEXPONENT_WALK(TX, LANES, M, po, n,                                           \
                         titer_vscalef_step_##S(po + at, px + x_step * at,              \
                                                pn + n_step * at, xb, nb, x_step,       \
                                                n_step, mask))                          \
}                                                                                       \
static inline int titer_vscalef_##S(char **data, const int64_t *strides, int64_t n) {    \
    const int64_t so = strides[0], sx = strides[1], sn = strides[2];                    \
    TX *po = (TX *)data[0];                                                             \
    const TX *px = (const TX *)data[1];                                                 \
    const TN *pn = (const TN *)data[2];                                                 \
    if (so != (int64_t)sizeof(TX) || n <= 0) return 0;                                  \
    if (sx == (int64_t)sizeof(TX) && sn == (int64_t)sizeof(TN))                         \
        titer_vscalef_run_##S(po, px, pn, 1, 1, n);                                     \
    else if (sx == (int64_t)sizeof(TX) && sn == 0)                                      \
        titer_vscalef_run_##S(po, px, pn, 1, 0, n);                                     \
    else if (sx == 0 && sn == (int64_t)sizeof(TN))                                      \
        titer_vscalef_run_##S(po, px, pn, 0, 1, n);                                     \
    else                                                                                \
        return 0;                                                                       \
    return 1;                                                                           \
}

#define TITER_VSCALEF_N_I32_D(m, p) _mm512_cvtepi32_pd(_mm256_maskz_loadu_epi32((m), (p)))
#define TITER_VSCALEF_N_I64_D(m, p) _mm512_cvtepi64_pd(_mm512_maskz_loadu_epi64((m), (p)))
#define TITER_VSCALEF_N_I32_F(m, p) _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32((m), (p)))
#define TITER_VSCALEF_N_I64_F(m, p) _mm512_cvtepi64_ps(_mm512_maskz_loadu_epi64((m), (p)))
#define TITER_VSCALEF_SET_I32_D(v) _mm512_cvtepi32_pd(_mm256_set1_epi32(v))
#define TITER_VSCALEF_SET_I64_D(v) _mm512_cvtepi64_pd(_mm512_set1_epi64(v))
#define TITER_VSCALEF_SET_I32_F(v) _mm512_cvtepi32_ps(_mm512_set1_epi32(v))
#define TITER_VSCALEF_SET_I64_F(v) _mm512_cvtepi64_ps(_mm512_set1_epi64(v))

TITER_VSCALEF_DEFS(di, double, int32_t, 8, __mmask8, __m512d, _mm512_maskz_loadu_pd,
                   TITER_VSCALEF_N_I32_D, _mm512_set1_pd, TITER_VSCALEF_SET_I32_D,
                   _mm512_maskz_scalef_pd, _mm512_mask_storeu_pd)
TITER_VSCALEF_DEFS(dl, double, int64_t, 8, __mmask8, __m512d, _mm512_maskz_loadu_pd,
                   TITER_VSCALEF_N_I64_D, _mm512_set1_pd, TITER_VSCALEF_SET_I64_D,
                   _mm512_maskz_scalef_pd, _mm512_mask_storeu_pd)
TITER_VSCALEF_DEFS(fi, float, int32_t, 16, __mmask16, __m512, _mm512_maskz_loadu_ps,
                   TITER_VSCALEF_N_I32_F, _mm512_set1_ps, TITER_VSCALEF_SET_I32_F,
                   _mm512_maskz_scalef_ps, _mm512_mask_storeu_ps)
/* (int64 exponents convert to eight floats: half a vector a step) */
TITER_VSCALEF_DEFS(fl, float, int64_t, 8, __mmask8, __m256, _mm256_maskz_loadu_ps,
                   TITER_VSCALEF_N_I64_F, _mm256_set1_ps, TITER_VSCALEF_SET_I64_F,
                   _mm256_maskz_scalef_ps, _mm256_mask_storeu_ps)

/* NOTE [frexp by vgetexp]: titer_frexp (titer_scalar.h) takes a dozen
 * integer operations a lane and two outputs GCC widens and narrows between
 * (0.77x NumPy's AVX-512 frexp for float64, 0.86x for float32, on a Zen 4).
 * vgetmant(x) in [0.5, 1) with x's sign is the mantissa and vgetexp(x) + 1
 * the exponent, both exact, subnormals normalized; zeros, infinities and
 * NaNs (one vfpclass) keep x and exponent 0, as titer_frexp gives them.
 * The instructions and the exponent's conversion run on the other lanes
 * only (masked lanes raise nothing), so nothing is raised: a signalling
 * NaN keeps its bits quietly, as in NumPy's AVX-512 frexp (titer_frexp's
 * TITER_FREXP_QUIET in this unit).  titer_vfrexp_<x> takes
 * a call whose three operands are contiguous and returns 1, else 0. */
#define TITER_VFREXP_DEFS(S, TX, LANES, M, VX, VI, LOADX, MANT, EXP, CLASS, ADD, ONE,    \
                          BLEND, TO_INT, STOREX, STOREI)                                \
TITER_FAST_INLINE void titer_vfrexp_step_##S(TX *pm, int32_t *pe, const TX *px, M m) {   \
    const VX x = LOADX(m, px);                                                          \
    const M special = CLASS(x, 0x9f), other = (M)~special;   /* NaNs, zeros, infs */  \
    const VX mantissa = MANT(other, x), exponent = ADD(EXP(other, x), ONE);             \
    STOREX(pm, m, BLEND(special, mantissa, x));                                         \
    STOREI(pe, m, TO_INT(other, exponent));                                             \
}                                                                                       \
static inline int titer_vfrexp_##S(char **data, const int64_t *strides, int64_t n) {     \
    TX *pm = (TX *)data[0];                                                             \
    int32_t *pe = (int32_t *)data[1];                                                   \
    const TX *px = (const TX *)data[2];                                                 \
    if (strides[0] != (int64_t)sizeof(TX) || strides[1] != (int64_t)sizeof(int32_t)    \
            || strides[2] != (int64_t)sizeof(TX) || n <= 0)                             \
        return 0;                                                                       \
    TITER_VEXPONENT_WALK(TX, LANES, M, pm, n,                                           \
                         titer_vfrexp_step_##S(pm + at, pe + at, px + at, mask))        \
    return 1;                                                                           \
}

#define TITER_VFREXP_MANT_D(k, x) \
    _mm512_maskz_getmant_pd((k), (x), _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_src)
#define TITER_VFREXP_MANT_F(k, x) \
    _mm512_maskz_getmant_ps((k), (x), _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_src)
#define TITER_VFREXP_BLEND_D(k, a, b) _mm512_mask_blend_pd((k), (a), (b))
#define TITER_VFREXP_BLEND_F(k, a, b) _mm512_mask_blend_ps((k), (a), (b))
TITER_VFREXP_DEFS(d, double, 8, __mmask8, __m512d, __m256i, _mm512_maskz_loadu_pd,
                  TITER_VFREXP_MANT_D, _mm512_maskz_getexp_pd, _mm512_fpclass_pd_mask, _mm512_add_pd,
                  _mm512_set1_pd(1.0), TITER_VFREXP_BLEND_D, _mm512_maskz_cvtpd_epi32,
                  _mm512_mask_storeu_pd, _mm256_mask_storeu_epi32)
TITER_VFREXP_DEFS(f, float, 16, __mmask16, __m512, __m512i, _mm512_maskz_loadu_ps,
                  TITER_VFREXP_MANT_F, _mm512_maskz_getexp_ps, _mm512_fpclass_ps_mask, _mm512_add_ps,
                  _mm512_set1_ps(1.0f), TITER_VFREXP_BLEND_F, _mm512_maskz_cvtps_epi32,
                  _mm512_mask_storeu_ps, _mm512_mask_storeu_epi32)
#endif
#endif

/* ldexp by vscalef where AVX-512 is the target.
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
#ifndef TITER_VSCALEF_H
#define TITER_VSCALEF_H

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include <immintrin.h>
#define TITER_HAVE_VSCALEF 1

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
    int64_t i = titer_head_to_align(po, (int64_t)sizeof(TX), n);                         \
    for (int64_t start = 0; start < i; start += LANES) {     /* the head, masked */    \
        const int64_t left = i - start;                                                 \
        titer_vscalef_step_##S(po + start, px + x_step * start, pn + n_step * start, xb, \
                               nb, x_step, n_step,                                      \
                               left >= LANES ? (M)~(M)0 : (M)(((M)1 << left) - 1));     \
    }                                                                                   \
    for (; i + LANES <= n; i += LANES)                                                  \
        titer_vscalef_step_##S(po + i, px + x_step * i, pn + n_step * i, xb, nb, x_step, \
                               n_step, (M)~(M)0);                                       \
    if (i < n)                                                   /* the tail */        \
        titer_vscalef_step_##S(po + i, px + x_step * i, pn + n_step * i, xb, nb, x_step, \
                               n_step, (M)(((M)1 << (n - i)) - 1));                     \
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
#endif
#endif

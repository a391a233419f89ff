/* float32 log2 and log10 where AVX-512 is the target: one kernel on sixteen
 * lanes (titer_vlog2f16, titer_vlog10f16) with its scalar twin
 * (titer_log2f_twin, titer_log10f_twin: the same operations on one float,
 * FMA included, so the same bits) for TITER_VEC_LOOP_F16 (titer_vtanf.h);
 * the levels without AVX-512 keep titer_fast_log2f / titer_fast_log10f.
 *
 * x = 2^e m with m in [0.75, 1.5) from x's bits (e = (bits - bits(0.75)) >>
 * 23); a row j of 32 from m's fraction bits 18-22 (x's own bits, so j =
 * bits >> 18 and vpermt2ps takes its low five): rows of width 1/32 on
 * [1, 1.5), 1/64 on [0.75, 1); c the row's 1/centre rounded to a multiple
 * of 2^-6 or 2^-7 such that r = m c - 1 is exact in one FMA (checked for
 * every m of the row by tools/log2f_table.py), c = 1 on the two rows beside 1, so
 * -0.0205 <= r < 1/32.  log2 x = a + w: a = e + th exactly (th, -log2 c
 * rounded to a multiple of 2^-16, so e + th fits 24 bits for |e| <= 128),
 * w = r Lh + (r P(r) + tl) in two FMAs, one rounding: Lh = log2(e) in
 * float, P of degree 3 carries the rest of log2(1 + r)/r (its constant the
 * low part of log2(e); relative error 2^-26.4 of the result, minimax by
 * tools/log2f_table.py), tl = -log2 c - th.  Where a = 0 (e = 0, c = 1) the result is w,
 * one rounding; elsewhere |w| <= |a + w| (the rows beside c = 1 lie at
 * least as far from 1 as their half widths), so ulp(w) <= ulp(result) and
 * the sum before its final rounding is within half an ulp of the exact
 * value: within 1 ULP of the correctly rounded result by construction.
 * log10 alike with a = e Gh + th10 exact in one FMA (Gh = log10(2) to a
 * multiple of 2^-18, th10 to 2^-18: |a| < 39 fits 24 bits) and e Gl
 * (Gl = log10(2) - Gh) added to tl10 in the tail.
 *
 * Checked exhaustively over every positive normal float32 (a C harness
 * with this header, gcc -O3 -ffp-contract=off; a helper's design): max 1 ULP from (float)log2((double)x) and from
 * (float)log10((double)x); 0.0341% (log2) and 0.0339% (log10) differ from
 * them; the 16-lane forms and twins bit-identical; no flag but inexact;
 * log2(2^k) = k exactly for k = -126..127 (r = 0, a = e) and log10(10^k)
 * = k exactly for k = 0..10.
 * In cache (4096 floats, one AVX-512 thread, Zen 4, C harness, best of
 * 300x20, noisy machine): log2 0.185 ns an element in a plain loop, 0.22
 * through TITER_VEC_LOOP_F16; log10 0.233 / 0.24; the current loops 1.15
 * (titer_fast_log2f, GCC's 8 double lanes with a division) and 0.21-0.27
 * (libmvec's log2f / log10f through TITER_VL_LOOP, 4 ULP); NumPy (SVML)
 * 0.23 (log2) / 0.215 (log10) at 32768 elements with out= (timeit,
 * call overhead included).
 * Range: positive normal finite x (bits in [0x00800000, 0x7f800000));
 * other lanes keep their inputs for the kernel (TITER_VEC_REST_INPUT).
 * Included by titer_scalar.h after titer_vlog1pf.h (TITER_F1_*, TITER_V16_*,
 * titer_vbits16_in). */
#ifndef TITER_VLOG2F_H
#define TITER_VLOG2F_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
/* the rows (raw index j: 0-15 m in [1 + j/32, 1 + (j+1)/32), 16-31 m in
 * [0.5 + j/64, 0.5 + (j+1)/64)), their logs and the polynomials:
 * python tools/log2f_table.py 3 */
static const float titer_log2f_c[32] __attribute__((aligned(64))) = {
    0x1.0000000000000p+0f, 0x1.e800000000000p-1f, 0x1.d800000000000p-1f, 0x1.d000000000000p-1f,
    0x1.c000000000000p-1f, 0x1.b400000000000p-1f, 0x1.a800000000000p-1f, 0x1.a000000000000p-1f,
    0x1.9400000000000p-1f, 0x1.8c00000000000p-1f, 0x1.8000000000000p-1f, 0x1.7800000000000p-1f,
    0x1.7000000000000p-1f, 0x1.6800000000000p-1f, 0x1.6000000000000p-1f, 0x1.5800000000000p-1f,
    0x1.5000000000000p+0f, 0x1.4c00000000000p+0f, 0x1.4400000000000p+0f, 0x1.4000000000000p+0f,
    0x1.3800000000000p+0f, 0x1.3400000000000p+0f, 0x1.2c00000000000p+0f, 0x1.2800000000000p+0f,
    0x1.2000000000000p+0f, 0x1.1c00000000000p+0f, 0x1.1800000000000p+0f, 0x1.1400000000000p+0f,
    0x1.1000000000000p+0f, 0x1.0c00000000000p+0f, 0x1.0800000000000p+0f, 0x1.0000000000000p+0f,
};
static const float titer_log2f_th[32] __attribute__((aligned(64))) = {
    0x0.0p+0f, 0x1.1bb0000000000p-4f, 0x1.e0b0000000000p-4f, 0x1.22d8000000000p-3f,
    0x1.8a88000000000p-3f, 0x1.dac0000000000p-3f, 0x1.169c000000000p-2f, 0x1.32c0000000000p-2f,
    0x1.5dfc000000000p-2f, 0x1.7b88000000000p-2f, 0x1.a900000000000p-2f, 0x1.c818000000000p-2f,
    0x1.e7e0000000000p-2f, 0x1.042c000000000p-1f, 0x1.14c6000000000p-1f, 0x1.25c0000000000p-1f,
    -0x1.91bc000000000p-2f, -0x1.800c000000000p-2f, -0x1.5c00000000000p-2f, -0x1.49a8000000000p-2f,
    -0x1.2440000000000p-2f, -0x1.1130000000000p-2f, -0x1.d4a0000000000p-3f, -0x1.acf8000000000p-3f,
    -0x1.5c00000000000p-3f, -0x1.32b0000000000p-3f, -0x1.08c8000000000p-3f, -0x1.bc80000000000p-4f,
    -0x1.6640000000000p-4f, -0x1.0eb0000000000p-4f, -0x1.6ba0000000000p-5f, 0x0.0p+0f,
};
static const float titer_log2f_tl[32] __attribute__((aligned(64))) = {
    0x0.0p+0f, 0x1.9530020000000p-19f, 0x1.ae8f300000000p-20f, 0x1.6e155a0000000p-18f,
    0x1.80abfc0000000p-19f, 0x1.169f220000000p-18f, 0x1.4d8fc60000000p-24f, -0x1.1c8f120000000p-22f,
    0x1.cf1eea0000000p-18f, 0x1.f02cf20000000p-18f, -0x1.a39fbe0000000p-20f, 0x1.dc2d460000000p-18f,
    -0x1.40358e0000000p-19f, -0x1.5a32c20000000p-20f, -0x1.3e032e0000000p-18f, 0x1.408c780000000p-18f,
    0x1.5db83a0000000p-20f, 0x1.a9ce9e0000000p-18f, -0x1.a39fbe0000000p-18f, 0x1.ed0cba0000000p-20f,
    -0x1.eac3820000000p-20f, -0x1.f6b4c20000000p-20f, 0x1.1b3cda0000000p-19f, 0x1.0e92580000000p-18f,
    -0x1.a39fbe0000000p-19f, 0x1.61d8760000000p-19f, 0x1.3b992c0000000p-18f, -0x1.0902b60000000p-18f,
    0x1.20a6de0000000p-21f, -0x1.c4fd140000000p-19f, -0x1.a6eb1e0000000p-18f, 0x0.0p+0f,
};
static const float titer_log10f_th[32] __attribute__((aligned(64))) = {
    0x0.0p+0f, 0x1.55a0000000000p-6f, 0x1.2168000000000p-5f, 0x1.5e38000000000p-5f,
    0x1.db10000000000p-5f, 0x1.1dd4000000000p-4f, 0x1.4f7c000000000p-4f, 0x1.715c000000000p-4f,
    0x1.a570000000000p-4f, 0x1.c904000000000p-4f, 0x1.ffc0000000000p-4f, 0x1.129a000000000p-3f,
    0x1.25ba000000000p-3f, 0x1.3948000000000p-3f, 0x1.4d44000000000p-3f, 0x1.61b6000000000p-3f,
    -0x1.e3bc000000000p-4f, -0x1.ce70000000000p-4f, -0x1.a30c000000000p-4f, -0x1.8cf0000000000p-4f,
    -0x1.5fe8000000000p-4f, -0x1.48f4000000000p-4f, -0x1.1a24000000000p-4f, -0x1.0244000000000p-4f,
    -0x1.a308000000000p-5f, -0x1.7148000000000p-5f, -0x1.3ed0000000000p-5f, -0x1.0ba0000000000p-5f,
    -0x1.af60000000000p-6f, -0x1.45f0000000000p-6f, -0x1.b5e0000000000p-7f, 0x0.0p+0f,
};
static const float titer_log10f_tl[32] __attribute__((aligned(64))) = {
    0x0.0p+0f, -0x1.0b6fe40000000p-20f, 0x1.b5c8c20000000p-25f, 0x1.66b7ea0000000p-21f,
    0x1.ed766a0000000p-21f, 0x1.460c8c0000000p-20f, -0x1.5264440000000p-20f, 0x1.0ce3680000000p-20f,
    -0x1.7cda0a0000000p-20f, -0x1.5e619a0000000p-20f, -0x1.ea21c40000000p-23f, -0x1.6c13080000000p-21f,
    0x1.042b5e0000000p-20f, -0x1.fe10d60000000p-20f, -0x1.f6296e0000000p-25f, 0x1.2733060000000p-20f,
    -0x1.ab0e1a0000000p-24f, 0x1.be1b9c0000000p-20f, 0x1.629f620000000p-20f, -0x1.8388640000000p-20f,
    -0x1.222bd40000000p-26f, 0x1.2e20b80000000p-24f, 0x1.7755fc0000000p-21f, 0x1.73e0f80000000p-20f,
    -0x1.4eb0500000000p-20f, -0x1.a13e960000000p-24f, -0x1.199a5e0000000p-21f, -0x1.a817000000000p-25f,
    0x1.b53fc60000000p-24f, -0x1.3d6b2e0000000p-20f, -0x1.211d620000000p-20f, 0x0.0p+0f,
};
/* log10(2) = Gh + Gl: Gh = 0x1.3441000000000p-2 (a multiple of 2^-18), Gl = 0x1.a84fbc0000000p-21 */
#define TITER_LOG2F_LH 0x1.7154760000000p+0f
#define TITER_LOG2F_P0 0x1.20b96c0000000p-27f
#define TITER_LOG2F_P1 -0x1.7154b40000000p-1f
#define TITER_LOG2F_P2 0x1.ec96460000000p-2f
#define TITER_LOG2F_P3 -0x1.6b4b100000000p-2f
#define TITER_LOG10F_LH 0x1.bcb7b20000000p-2f
#define TITER_LOG10F_P0 -0x1.cb6e8e0000000p-27f
#define TITER_LOG10F_P1 -0x1.bcb7fa0000000p-3f
#define TITER_LOG10F_P2 0x1.2891220000000p-3f
#define TITER_LOG10F_P3 -0x1.b572d80000000p-4f
#define TITER_LOG10F_GH 0x1.3441000000000p-2f
#define TITER_LOG10F_GL 0x1.a84fbc0000000p-21f
#define TITER_LOG2F_REDUCE(V, VI, FMA, C, TOBITS, FROMBITS, LOOKUP, x, k, j, r)          \
    VI k = (TOBITS(x) - 0x3f400000) >> 23;                                    /* e */ \
    VI j = TOBITS(x) >> 18;                          /* the table's row: bits 18-22 */ \
    V r = FMA(FROMBITS(TOBITS(x) - (k << 23)), LOOKUP(titer_log2f_c, j), C(-1.0f));
#define TITER_LOG2F_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, LOOKUP, x, result)      \
    TITER_LOG2F_REDUCE(V, VI, FMA, C, TOBITS, FROMBITS, LOOKUP, x, k, j, r)              \
    V a = CVT(k) + LOOKUP(titer_log2f_th, j);                        /* exact */      \
    V p = FMA(FMA(C(TITER_LOG2F_P3), r, C(TITER_LOG2F_P2)), r, C(TITER_LOG2F_P1));   \
    p = FMA(p, r, C(TITER_LOG2F_P0));                                                 \
    V result = a + FMA(r, C(TITER_LOG2F_LH), FMA(r, p, LOOKUP(titer_log2f_tl, j)));
#define TITER_LOG10F_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, CVT, LOOKUP, x, result)     \
    TITER_LOG2F_REDUCE(V, VI, FMA, C, TOBITS, FROMBITS, LOOKUP, x, k, j, r)              \
    V fe = CVT(k);                                                                    \
    V a = FMA(fe, C(TITER_LOG10F_GH), LOOKUP(titer_log10f_th, j));   /* exact */      \
    V p = FMA(FMA(C(TITER_LOG10F_P3), r, C(TITER_LOG10F_P2)), r, C(TITER_LOG10F_P1)); \
    p = FMA(p, r, C(TITER_LOG10F_P0));                                                \
    V result = a + FMA(r, C(TITER_LOG10F_LH),                                         \
                       FMA(r, p, FMA(fe, C(TITER_LOG10F_GL), LOOKUP(titer_log10f_tl, j))));

#define TITER_LOG2F_LOOKUP1(table, j) ((table)[(j) & 31])
#define TITER_LOG2F_LOOKUP16(table, j) ((titer_v16f)_mm512_permutex2var_ps(               \
    _mm512_load_ps(table), (__m512i)(j), _mm512_load_ps((table) + 16)))
#define TITER_LOG2F_FORMS(TWIN, FORM16, KERNEL)                                          \
    TITER_FAST_INLINE float TWIN(float x) {                                             \
        KERNEL(float, int32_t, __builtin_fmaf, TITER_SCALAR_C, TITER_F1_TOBITS,          \
               TITER_F1_FROMBITS, TITER_F1_CVT, TITER_LOG2F_LOOKUP1, x, result)          \
        return result;                                                                  \
    }                                                                                   \
    TITER_FAST_INLINE titer_v16f FORM16(titer_v16f x) {                                 \
        KERNEL(titer_v16f, titer_v16i, TITER_V16_FMA, TITER_V16_C, TITER_V16_TOBITS,     \
               TITER_V16_FROMBITS, TITER_V16_CVT, TITER_LOG2F_LOOKUP16, x, result)       \
        return result;                                                                  \
    }                                                                                   \
    TITER_FAST_INLINE __mmask16 FORM16##_ok(titer_v16f x) {                             \
        return titer_vbits16_in((__m512i)x, 0x00800000u, 0x7f800000u);                  \
    }
TITER_LOG2F_FORMS(titer_log2f_twin, titer_vlog2f16, TITER_LOG2F_KERNEL)
TITER_LOG2F_FORMS(titer_log10f_twin, titer_vlog10f16, TITER_LOG10F_KERNEL)
#define titer_vlog2f16_rest TITER_VEC_REST_INPUT
#define titer_vlog10f16_rest TITER_VEC_REST_INPUT
#define titer_vlog2f16_safe 1.0f
#define titer_vlog10f16_safe 1.0f
#endif
#endif

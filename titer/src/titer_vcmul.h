/* Complex multiply, square and conjugate in interleaved lanes, where AVX2
 * or AVX-512 is the target (_codegen._INTRINSIC_FORMS).
 *
 * NOTE [complex products in place]: GCC vectorizes titer_cmul by splitting
 * each vector's real and imaginary parts apart and back (two vpermt2ps per
 * operand and two for the result at AVX-512; vpermd, vshufps and vblendps
 * at AVX2): on a Zen 5, 2^20 complex64 products took 0.61 ms on one
 * thread, NumPy's AVX-512 loop 0.38.  Here the lanes stay interleaved: x's
 * real parts duplicated into both lanes of an element and its imaginary
 * parts likewise (vmovsldup / vmovshdup, in-lane), y with its parts
 * swapped (in-lane), t = x.im * swap(y), and one vfmaddsub of x.re * y
 * with t: the real lane x.re y.re - x.im y.im, the imaginary lane x.re y.im
 * + x.im y.re, each one fused multiply-add of the product the titer_cmul
 * formula fuses with the one it rounds, so the same bits and the same
 * flags.  The FMA is NumPy's as titer_muladd's is (NOTE in titer_scalar.h;
 * AVX-512F's own instruction, an FMA target on these functions at AVX2):
 * these loops are among those built to fuse.  Conjugate flips the
 * imaginary parts' sign bits, as C's negation does (GCC's loop moved the
 * parts one at a time at AVX2).  A last partial vector is staged in zeroed
 * parts, which raise nothing.  The vectors start at the first element, as
 * NumPy's do, not at the output's boundary (NOTE [aligned stores] in
 * titer_loops.h): on a Zen 3, 2^14 conjugates from a 32-byte aligned input
 * took 7.1 us where the aligned output left the loads 16 bytes off their
 * boundary, 3.9 where it did not (NumPy 3.5-4.4).  titer_vcmul_<c> takes a contiguous output
 * with contiguous or stride-0 operands, titer_vcsquare_<c> and
 * titer_vconj_<c> contiguous ones, and return 1, else 0 (the caller's loop
 * runs the kernel).  Included by titer_loops.h. */
#ifndef TITER_VCMUL_H
#define TITER_VCMUL_H

#if (defined(__AVX512F__) && defined(__AVX512DQ__)) || defined(__AVX2__)
#include <immintrin.h>
#include <string.h>
#define TITER_HAVE_VCMUL 1

/* S: the type char; T the element type, R its part type; V the vector of
 * PARTS parts; LOADU / STOREU, SET the broadcast of one element, RE / IM /
 * SWAP the in-lane shuffles, MUL, FMADDSUB, and CONJ (the imaginary parts'
 * signs flipped).  A partial vector is staged: its elements copied into
 * zeroed parts, the vector's result copied out. */
#define TITER_VCMUL_DEFS(S, T, R, V, PARTS, LOADU, STOREU, SET, RE, IM, SWAP, MUL, FMADDSUB, CONJ) \
TITER_VCMUL_TARGET TITER_FAST_INLINE V titer_vcmul_lanes_##S(V x, V y) {                \
    return FMADDSUB(RE(x), y, MUL(IM(x), SWAP(y)));                                     \
}                                                                                       \
TITER_VCMUL_TARGET TITER_FAST_INLINE V titer_vconj_lanes_##S(V x, V y) {                \
    (void)y;                                                                            \
    return CONJ(x);                                                                     \
}                                                                                       \
/* po[at .. at + count) from zeroed parts holding the operands' (count <      \
 * PARTS), a stride-0 operand (step 0) broadcast */                                     \
TITER_VCMUL_TARGET TITER_FAST_INLINE void titer_vcmul_staged_##S(                       \
        V (*lanes)(V, V), R *po, const R *px, const R *py, int x_step, int y_step,      \
        V xb, V yb, int64_t at, int64_t count) {                                        \
    R xs[PARTS] = {0}, ys[PARTS] = {0}, os[PARTS];                                      \
    const size_t bytes = (size_t)count * sizeof(R);                                     \
    if (x_step) memcpy(xs, px + at, bytes);                                             \
    if (y_step) memcpy(ys, py + at, bytes);                                             \
    STOREU(os, lanes(x_step ? LOADU(xs) : xb, y_step ? LOADU(ys) : yb));                \
    memcpy(po + at, os, bytes);                                                         \
}                                                                                       \
/* po[at] = LANES(px[at], py[at]) over `parts` parts, a last partial vector  \
 * staged; from the first part on (NOTE [complex products in place]) */                  \
TITER_VCMUL_TARGET TITER_FAST_INLINE void titer_vcmul_run_##S(                          \
        V (*lanes)(V, V), R *po, const R *px, const R *py, int x_step, int y_step,      \
        int64_t parts) {                                                                \
    const V xb = SET(px), yb = SET(py);                                                 \
    int64_t at = 0;                                                                     \
    for (; at + PARTS <= parts; at += PARTS)                                            \
        STOREU(po + at, lanes(x_step ? LOADU(px + at) : xb, y_step ? LOADU(py + at) : yb)); \
    if (at < parts)                                                                     \
        titer_vcmul_staged_##S(lanes, po, px, py, x_step, y_step, xb, yb, at, parts - at); \
}                                                                                       \
TITER_VCMUL_TARGET static inline int titer_vcmul_##S(char **data, const int64_t *strides, \
                                                     int64_t n) {                       \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];                    \
    const int64_t one = (int64_t)sizeof(T);                                             \
    if (so != one || n <= 0 || (sx != one && sx != 0) || (sy != one && sy != 0)         \
            || (sx == 0 && sy == 0))                                                    \
        return 0;                                                                       \
    titer_vcmul_run_##S(titer_vcmul_lanes_##S, (R *)data[0], (const R *)data[1],         \
                        (const R *)data[2], sx != 0, sy != 0, 2 * n);                   \
    return 1;                                                                           \
}                                                                                       \
/* unary: square (x x) and conjugate */                                                 \
TITER_VCMUL_TARGET static inline int titer_vcunary_##S(V (*lanes)(V, V), char **data,   \
                                                       const int64_t *strides, int64_t n) { \
    if (strides[0] != (int64_t)sizeof(T) || strides[1] != (int64_t)sizeof(T) || n <= 0) \
        return 0;                                                                       \
    titer_vcmul_run_##S(lanes, (R *)data[0], (const R *)data[1], (const R *)data[1], 1, 1, \
                        2 * n);                                                         \
    return 1;                                                                           \
}                                                                                       \
TITER_VCMUL_TARGET static inline int titer_vcsquare_##S(char **data, const int64_t *strides, \
                                                        int64_t n) {                    \
    return titer_vcunary_##S(titer_vcmul_lanes_##S, data, strides, n);                  \
}                                                                                       \
TITER_VCMUL_TARGET static inline int titer_vconj_##S(char **data, const int64_t *strides, \
                                                     int64_t n) {                       \
    return titer_vcunary_##S(titer_vconj_lanes_##S, data, strides, n);                  \
}

#if defined(__AVX512F__) && defined(__AVX512DQ__)
/* FMA is AVX-512F's own */
#define TITER_VCMUL_TARGET
TITER_FAST_INLINE __m512 titer_vcmul_set_F(const float *p) {
    double both;
    memcpy(&both, p, sizeof both);
    return _mm512_castpd_ps(_mm512_set1_pd(both));
}
TITER_FAST_INLINE __m512d titer_vcmul_set_D(const double *p) {
    return _mm512_broadcast_f64x2(_mm_loadu_pd(p));
}
#define TITER_VCMUL_SWAP_F(y) _mm512_permute_ps((y), 0xb1)
#define TITER_VCMUL_RE_D(x) _mm512_movedup_pd(x)
#define TITER_VCMUL_IM_D(x) _mm512_permute_pd((x), 0xff)
#define TITER_VCMUL_SWAP_D(y) _mm512_permute_pd((y), 0x55)
#define TITER_VCMUL_CONJ_F(x) _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x),   \
                                  _mm512_set1_epi64((int64_t)0x8000000000000000)))
#define TITER_VCMUL_CONJ_D(x) _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x),   \
                                  _mm512_set4_epi64(INT64_MIN, 0, INT64_MIN, 0)))

TITER_VCMUL_DEFS(F, titer_cfloat, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps,
                 titer_vcmul_set_F, _mm512_moveldup_ps, _mm512_movehdup_ps, TITER_VCMUL_SWAP_F,
                 _mm512_mul_ps, _mm512_fmaddsub_ps, TITER_VCMUL_CONJ_F)
TITER_VCMUL_DEFS(D, titer_cdouble, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd,
                 titer_vcmul_set_D, TITER_VCMUL_RE_D, TITER_VCMUL_IM_D, TITER_VCMUL_SWAP_D,
                 _mm512_mul_pd, _mm512_fmaddsub_pd, TITER_VCMUL_CONJ_D)
#else
/* the AVX2 unit's target leaves FMA out (titer_target_avx2.h); the CPUs
 * that run it have it (_core.pyx), and the loops of these ops are built
 * with it (TITER_SIMD_FMA_CLONES) */
#define TITER_VCMUL_TARGET __attribute__((target("fma")))
TITER_FAST_INLINE __m256 titer_vcmul_set_F(const float *p) {
    double both;
    memcpy(&both, p, sizeof both);
    return _mm256_castpd_ps(_mm256_set1_pd(both));
}
TITER_FAST_INLINE __m256d titer_vcmul_set_D(const double *p) {
    return _mm256_broadcast_pd((const __m128d *)p);
}
#define TITER_VCMUL_SWAP_F(y) _mm256_permute_ps((y), 0xb1)
#define TITER_VCMUL_RE_D(x) _mm256_movedup_pd(x)
#define TITER_VCMUL_IM_D(x) _mm256_permute_pd((x), 0xf)
#define TITER_VCMUL_SWAP_D(y) _mm256_permute_pd((y), 0x5)
#define TITER_VCMUL_CONJ_F(x) _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(x),   \
                                  _mm256_set1_epi64x((int64_t)0x8000000000000000)))
#define TITER_VCMUL_CONJ_D(x) _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(x),   \
                                  _mm256_setr_epi64x(0, INT64_MIN, 0, INT64_MIN)))

TITER_VCMUL_DEFS(F, titer_cfloat, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps,
                 titer_vcmul_set_F, _mm256_moveldup_ps, _mm256_movehdup_ps, TITER_VCMUL_SWAP_F,
                 _mm256_mul_ps, _mm256_fmaddsub_ps, TITER_VCMUL_CONJ_F)
TITER_VCMUL_DEFS(D, titer_cdouble, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd,
                 titer_vcmul_set_D, TITER_VCMUL_RE_D, TITER_VCMUL_IM_D, TITER_VCMUL_SWAP_D,
                 _mm256_mul_pd, _mm256_fmaddsub_pd, TITER_VCMUL_CONJ_D)
#endif

#endif
#endif

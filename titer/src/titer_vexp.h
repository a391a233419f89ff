/* float64 exp, exp2 and expm1 by a 16-entry table of 2^(j/16), in two forms
 * that do the same arithmetic: titer_fast_exp (scalar; the split loop
 * vectorizes it at every level) and, where AVX-512 is the target,
 * titer_vfast_exp on eight lanes at a time with the table in registers (two
 * vpermi2pd picks instead of gathers: GCC 12 emulates gathers with scalar
 * loads, and real vgatherqpds made it 14.8 cycles per 8 lanes against 12.0)
 * and its loop TITER_VEC_LOOP_D8.  Both round the same operations the same way (FMA in the
 * instruction-set units), so a lane gives the same bits as the scalar twin
 * that takes the loop's remainder and the same bits at avx2 and avx512.
 * Included by titer_scalar.h. */
#ifndef TITER_VEXP_H
#define TITER_VEXP_H

/* 2^(j/16), j = 0..15: the nearest double's bits less j << 48 (adding the
 * reduction's bits k << 48 then puts 2^(floor(k/16)) into the exponent), and
 * what the nearest double misses relative to it (2^(j/16) = head (1 + tail)),
 * rounded (tools/exp_table.py) */
static const uint64_t titer_exp16_head[16] = {
    0x3ff0000000000000ull, 0x3fefb5586cf9890full, 0x3fef72b83c7d517bull, 0x3fef387a6e756238ull,
    0x3fef06fe0a31b715ull, 0x3feedea64c123422ull, 0x3feebfdad5362a27ull, 0x3feeab07dd485429ull,
    0x3feea09e667f3bcdull, 0x3feea11473eb0187ull, 0x3feeace5422aa0dbull, 0x3feec49182a3f090ull,
    0x3feee89f995ad3adull, 0x3fef199bdd85529cull, 0x3fef5818dcfba487ull, 0x3fefa4afa2a490daull};
static const double titer_exp16_tail[16] = {
    0.0, 0x1.79aa65d837b6dp-54, -0x1.01b15eaa59348p-55, 0x1.68efde3a8a894p-54,
    0x1.34d754db0abb6p-55, 0x1.59f48a72a4c6dp-55, 0x1.690cebb7aafb0p-56, 0x1.063e1e21c5409p-54,
    -0x1.3b3efbf5e2228p-54, -0x1.b32dcb94da51dp-56, 0x1.db72fc1f0eab4p-55, 0x1.1affc2b91ce27p-56,
    0x1.c1a7792cb3387p-55, 0x1.36eae30af0cb3p-56, 0x1.4a385a63d07a7p-56, -0x1.ff7128fd391f0p-55};

/* The kernel, for a scalar or a vector form V (VB: unsigned integers of its
 * width; FMA, a * b + c; C, a constant of the form; PICK(ki, head, tail),
 * the table entries of j = ki mod 16) of e^x (BASE e) or 2^x (BASE 2):
 * k = 16m + j = rint(x 16/ln2) or rint(16 x) (the rounding constant
 * 1.5 * 2^52 leaves k in the sum's low bits) and r = x - k ln2/16, or
 * (x - k/16) ln2, by TITER_EXP16_REDUCE_<BASE>; |r| <= ln2/32 (plus a hair);
 * e^x = 2^m 2^(j/16) e^r = s (1 + tail + p(r)) with s = 2^m head and p the
 * Taylor series of e^r - 1 to r^7 (the next term is below 2^-59 of the
 * result; tail p below 2^-59 too), one product-sum rounding the result
 * (FINISH).  Measured on 1e7 inputs over the range and near the multiples
 * of ln2/32 (1/32) against long double: exp within 0.544 ULP of the exact
 * result with FMA, 0.558 without; exp2 0.548 and 0.560; expm1 1.03 (where
 * s >= 2^53 and s - 1 rounds) at every level. */
#define TITER_EXP16_KERNEL(NAME, BASE, FINISH, V, VB, FMA, C, TOBITS, FROMBITS, PICK, MASK) \
TITER_FAST_INLINE V NAME(V x) {                                                   \
    V kd = FMA(x, C(TITER_EXP16_SCALE_##BASE), C(6755399441055744.0));            \
    VB ki = TOBITS(kd);                                                           \
    kd = kd - C(6755399441055744.0);                                              \
    V r = TITER_EXP16_REDUCE_##BASE(x, kd, FMA, C);                               \
    TITER_EXP16_TAIL(V, VB, FMA, C, FROMBITS, PICK, r, ki, scale, tmp)            \
    return FINISH(x, scale, tmp, FMA, C, TOBITS, FROMBITS, MASK);                 \
}
/* from r and k: scale = 2^m head and tmp = tail + p(r), e^x = scale (1 +
 * tmp) (also titer_vpow.h's, with its r carrying y log x's tail) */
#define TITER_EXP16_TAIL(V, VB, FMA, C, FROMBITS, PICK, r, ki, scale, tmp)       \
    VB head_; V tail_;                                                            \
    PICK(ki, head_, tail_);                                                       \
    V scale = FROMBITS(head_ + ((ki) << 48));                                     \
    V r2_ = (r) * (r);                                                            \
    V q_ = FMA(r2_, FMA(r, C(1.0 / 5040), C(1.0 / 720)), FMA(r, C(1.0 / 120), C(1.0 / 24))); \
    q_ = FMA(r2_, q_, FMA(r, C(1.0 / 6), C(0.5)));                                \
    V tmp = FMA(r2_, q_, tail_ + (r));
/* e^x or 2^x: s + s tmp */
#define TITER_EXP16_POW(x, scale, tmp, FMA, C, TOBITS, FROMBITS, MASK) FMA(scale, tmp, scale)
/* e^x - 1: (s - 1) + s tmp, s - 1 exact for 1/2 <= s < 2^53 (within 2^-54
 * below, where |e^x - 1| > 1/2; half the result's ULP above); for
 * |x| < 1/8, where that would cancel,
 * x + x^2 Q(x) with Q the Taylor series of (e^x - 1 - x) / x^2 to x^8 (the
 * next term is below 2^-55 of the result) */
#define TITER_EXP16_EXPM1(x, scale, tmp, FMA, C, TOBITS, FROMBITS, MASK)          \
    FROMBITS(TITER_PICK_BITS(                                                     \
        MASK((TOBITS(x) & 0x7fffffffffffffffull) < 0x3fc0000000000000ull),        \
        TOBITS(FMA(x * x, TITER_EXPM1_Q(x, FMA, C), x)),                          \
        TOBITS(FMA(scale, tmp, scale - C(1.0)))))
#define TITER_EXPM1_Q(x, FMA, C)                                                 \
    FMA(FMA(FMA(FMA(FMA(FMA(FMA(FMA(C(1.0 / 3628800), x, C(1.0 / 362880)), x,     \
        C(1.0 / 40320)), x, C(1.0 / 5040)), x, C(1.0 / 720)), x, C(1.0 / 120)), x, \
        C(1.0 / 24)), x, C(1.0 / 6)), x, C(0.5))
#define TITER_EXP16_SCALE_e 0x1.71547652b82fep+4                  /* 16/ln2 */
#define TITER_EXP16_SCALE_2 16.0
/* ln2/16 in a 36-bit head (k head exact for |k| < 2^17, and x - k head
 * exact) and a tail */
#define TITER_EXP16_REDUCE_e(x, kd, FMA, C) \
    FMA(kd, C(-0x1.cf79abc9e3b3ap-44), FMA(kd, C(-0x1.62e42fefa0000p-5), x))
/* x - k/16 exact, then one rounding: 2^-53 of r */
#define TITER_EXP16_REDUCE_2(x, kd, FMA, C) \
    (FMA(kd, C(-0.0625), x) * C(0x1.62e42fefa39efp-1))
/* the ranges: 2^-28 <= |x| < 704 for e^x and e^x - 1, < 1015 for 2^x
 * (below, glibc's 1 + x (ln2), or x, is NumPy's answer; above, where the product s (tmp)
 * is a subnormal without FMA and rounds to a quarter of the result's ULP
 * and more, glibc), on the bits, for either form */
#define TITER_EXP16_OK(b, TOP) (((b) & 0x7fffffffffffffffull) - 0x3e30000000000000ull \
                                < (TOP) - 0x3e30000000000000ull)
#define TITER_EXP16_TOP_e 0x4086000000000000ull                     /* 704 */
#define TITER_EXP16_TOP_2 0x408fb80000000000ull                     /* 1015 */

/* the scalar form's constant and 64-bit lane mask (the 8-lane form's:
 * TITER_V8_C, TITER_V8_MASK below), for the kernels written once for both */
#define TITER_SCALAR_C(c) (c)
#define TITER_SCALAR_MASK64(c) ((uint64_t)0 - (uint64_t)(c))
#define TITER_EXP16_SCALAR_PICK(ki, head, tail) \
    (head = titer_exp16_head[(ki) & 15], tail = titer_exp16_tail[(ki) & 15])
TITER_FAST_INLINE int titer_fast_exp_ok(double x) {
    return TITER_EXP16_OK(titer_d2bits(x), TITER_EXP16_TOP_e);
}
TITER_FAST_INLINE int titer_fast_exp2_ok(double x) {
    return TITER_EXP16_OK(titer_d2bits(x), TITER_EXP16_TOP_2);
}
#define titer_fast_expm1_ok titer_fast_exp_ok
#define TITER_EXP16_SCALAR(NAME, BASE, FINISH)                                   \
    TITER_EXP16_KERNEL(NAME, BASE, FINISH, double, uint64_t, titer_poly_fma,      \
                       TITER_SCALAR_C, titer_d2bits, titer_bits2d,          \
                       TITER_EXP16_SCALAR_PICK, TITER_SCALAR_MASK64)
/* the three functions of one form (scalar or 8-lane), named PREFIX exp... */
#define TITER_EXP16_FAMILY(PREFIX, FORM)                                          \
    FORM(PREFIX##exp, e, TITER_EXP16_POW)                                         \
    FORM(PREFIX##exp2, 2, TITER_EXP16_POW)                                        \
    FORM(PREFIX##expm1, e, TITER_EXP16_EXPM1)
TITER_EXP16_FAMILY(titer_fast_, TITER_EXP16_SCALAR)

/* tanh |x| = m / (m + 2), m = e^(2|x|) - 1 = hi + lo from the table branch
 * of the expm1 form, with the rounding error of its last product-sum (exact)
 * as lo; |x| held at 20 (tanh rounds to 1 from 19.06 on) and x's sign put
 * back.  No division: y = 1/d, d = hi + 2 (+ d_lo, exact), to 28 bits by a
 * reciprocal good to 14 (RCP) and one Newton step, q = hi y, then q
 * corrected by its residual and the lows, scaled by y: the correction is
 * 2^-28 of q at most, so its own error is 2^-56 and the result rounds once
 * (0.61 ULP from the exact value at worst on 8e6 inputs, where m / (m + 2)
 * in double reached 2.4 ULP: m and m + 2 each rounding by up to one; the
 * 8-lane form takes 0.87-0.91 of _ZGVeN8v_tanh's time in cache, whose
 * worst is 1.18 ULP, and 4% less than with a vdivpd; without FMA, the
 * baseline unit's form where no vector libm takes tanh, 1.47, glibc's
 * scalar tanh 2.10).
 * Below |x| = 1/16, where the table branch's m loses bits, tanh's Taylor
 * series to x^13 (the next term is below 2^-57 of the result), and below
 * 2^-27 x itself, computed only where a lane needs them (ANY).  For a
 * scalar or a vector form V (MAX: the larger of two, neither NaN). */
#define TITER_TANH16(NAME, V, VB, FMA, C, TOBITS, FROMBITS, PICK, MASK, ANY, RCP, MAX) \
TITER_FAST_INLINE V NAME(V x) {                                                   \
    uint64_t abs_ = 0x7fffffffffffffffull, twenty_ = 0x4034000000000000ull;       \
    VB ab = TOBITS(x) & abs_;                                                     \
    /* |x| held in [2^-27, 20]: nothing overflows or underflows below (the     \
       low end by a max: a compare and a pick there cost 12%) */                 \
    V x2 = FROMBITS(TITER_PICK_BITS(MASK(ab < twenty_), ab, twenty_));            \
    x2 = MAX(x2, C(0x1p-27));                                                     \
    x2 = x2 + x2;                                                                 \
    V kd = FMA(x2, C(TITER_EXP16_SCALE_e), C(6755399441055744.0));                \
    VB ki = TOBITS(kd);                                                           \
    kd = kd - C(6755399441055744.0);                                              \
    V r = TITER_EXP16_REDUCE_e(x2, kd, FMA, C);                                   \
    TITER_EXP16_TAIL(V, VB, FMA, C, FROMBITS, PICK, r, ki, scale, tmp)            \
    V s1 = scale - C(1.0);                                                        \
    V hi = FMA(scale, tmp, s1), lo = FMA(scale, tmp, s1 - hi);                    \
    V d = hi + C(2.0);                                                            \
    VB below_two = MASK(TOBITS(hi) < 0x4000000000000000ull);                      \
    V d_lo = FROMBITS(TITER_PICK_BITS(below_two, TOBITS((C(2.0) - d) + hi),       \
                                      TOBITS((hi - d) + C(2.0))));                \
    V y = RCP(d);                                                                 \
    y = FMA(y, FMA(-d, y, C(1.0)), y);                                            \
    V q = hi * y;                                                                 \
    V fix = (FMA(-q, d, hi) + lo) - q * (d_lo + lo);                              \
    V t = FMA(fix, y, q);                                                         \
    VB small = MASK(ab < 0x3fb0000000000000ull);                                  \
    if (ANY(small)) {                                                             \
        VB tiny = MASK(ab < 0x3e40000000000000ull);                               \
        V a = C(0.5) * x2, z = a * a;                                             \
        V p = FMA(FMA(FMA(FMA(FMA(C(21844.0 / 6081075), z, C(-1382.0 / 155925)), z, \
                      C(62.0 / 2835)), z, C(-17.0 / 315)), z, C(2.0 / 15)), z,    \
                  C(-1.0 / 3));                                                   \
        t = FROMBITS(TITER_PICK_BITS(small, TITER_PICK_BITS(tiny, ab, TOBITS(FMA(a * z, p, a))), \
                                     TOBITS(t)));                                 \
    }                                                                             \
    return FROMBITS(TOBITS(t) | (TOBITS(x) & ~abs_));                             \
}
/* the range: finite x (below 2^-27, tanh x is x: glibc's tanh raises
 * underflow there for a subnormal, NumPy's AVX-512 loop does not; NaN and
 * inf to glibc) */
#define TITER_TANH16_OK(b) (((b) & 0x7fffffffffffffffull) < 0x7ff0000000000000ull)
TITER_FAST_INLINE int titer_fast_tanh_ok(double x) { return TITER_TANH16_OK(titer_d2bits(x)); }

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#include <immintrin.h>
typedef double titer_v8d __attribute__((vector_size(64)));
typedef uint64_t titer_v8u __attribute__((vector_size(64)));
typedef double titer_v8d_u __attribute__((vector_size(64), aligned(8)));    /* unaligned */
#define TITER_V8_FMA(a, b, c) ((titer_v8d)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#define TITER_V8_C(c) ((titer_v8d)_mm512_set1_pd(c))
#define TITER_V8_TOBITS(v) ((titer_v8u)(v))
#define TITER_V8_FROMBITS(v) ((titer_v8d)(v))
#define TITER_V8_SQRT(v) ((titer_v8d)_mm512_sqrt_pd((__m512d)(v)))
/* a reciprocal good to 2^-14: vrcp14pd, and vrcp14sd for a scalar twin
 * (the same table, so the same bits) */
#define TITER_V8_RCP14(d) ((titer_v8d)_mm512_rcp14_pd((__m512d)(d)))
#define TITER_RCP14_SD(d) _mm_cvtsd_f64(_mm_rcp14_sd(_mm_setzero_pd(), _mm_set_sd(d)))
/* vpermi2pd reads the low four bits of each index: j */
#define TITER_EXP16_V8_PICK(ki, head, tail) (                                     \
    head = (titer_v8u)_mm512_permutex2var_epi64(                                  \
        _mm512_loadu_si512(titer_exp16_head), (__m512i)(ki),                      \
        _mm512_loadu_si512(titer_exp16_head + 8)),                                \
    tail = (titer_v8d)_mm512_permutex2var_pd(                                     \
        _mm512_loadu_pd(titer_exp16_tail), (__m512i)(ki),                         \
        _mm512_loadu_pd(titer_exp16_tail + 8)))
#define TITER_V8_MASK(c) ((titer_v8u)(c))
#define TITER_EXP16_V8(NAME, BASE, FINISH)                                       \
    TITER_EXP16_KERNEL(NAME, BASE, FINISH, titer_v8d, titer_v8u, TITER_V8_FMA,    \
                       TITER_V8_C, TITER_V8_TOBITS, TITER_V8_FROMBITS,            \
                       TITER_EXP16_V8_PICK, TITER_V8_MASK)
TITER_EXP16_FAMILY(titer_vfast_, TITER_EXP16_V8)
/* the range tests, on the bits */
#define titer_vfast_exp_ok(b) ((titer_v8u)TITER_EXP16_OK(b, TITER_EXP16_TOP_e))
#define titer_vfast_exp2_ok(b) ((titer_v8u)TITER_EXP16_OK(b, TITER_EXP16_TOP_2))
#define titer_vfast_expm1_ok titer_vfast_exp_ok
#define TITER_V8_ANY(m) (_mm512_test_epi64_mask((__m512i)(m), (__m512i)(m)) != 0)
#define TITER_V8_MAX(a, b) ((titer_v8d)_mm512_max_pd((__m512d)(a), (__m512d)(b)))
TITER_TANH16(titer_vfast_tanh, titer_v8d, titer_v8u, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS,
             TITER_V8_FROMBITS, TITER_EXP16_V8_PICK, TITER_V8_MASK, TITER_V8_ANY, TITER_V8_RCP14,
             TITER_V8_MAX)
#define titer_vfast_tanh_ok(b) ((titer_v8u)TITER_TANH16_OK(b))
#define TITER_HAVE_VFAST_D 1
/* The loops of the vector forms walk blocks of TITER_SPLIT_BLOCK elements:
 * the operands' own memory where both are contiguous, else each block
 * gathered into a buffer, computed there and scattered back, so that a
 * strided or reversed call gets the contiguous call's bits (the vector
 * math library's loops do the same: titer_veclib.h).  Between BEGIN and
 * END, bx holds m inputs and bo (bx itself in place) takes the results. */
#define TITER_VEC_BLOCKS_BEGIN(T)                                            \
    char *o = data[0], *x = data[1];                                         \
    const int64_t so = strides[0], sx = strides[1];                         \
    const int contiguous = so == (int64_t)sizeof(T) && sx == (int64_t)sizeof(T); \
    T in_buf[TITER_SPLIT_BLOCK], out_buf[TITER_SPLIT_BLOCK];                 \
    /* NOTE [aligned vector stores]: a contiguous output's first elements  \
       up to a 64-byte boundary make a block of their own (the remainder's \
       twin computes them: the same bits), so every whole vector after it  \
       is stored, and read where the input shares the offset, within one   \
       cache line.  NumPy's arrays start 16 bytes past one: split lines     \
       cost a misaligned float32 tanh 12-15% in cache (C harness). */      \
    const int64_t head = contiguous ? (int64_t)((-(uintptr_t)o & 63) / sizeof(T)) : 0; \
    for (int64_t start = 0, m = 0; start < n; start += m) {                  \
        m = start == 0 && head ? head : TITER_SPLIT_BLOCK;                   \
        m = n - start < m ? n - start : m;                                   \
        T *bo = out_buf; const T *bx = in_buf;                               \
        if (contiguous) {                                                    \
            bo = (T *)o + start;                                             \
            bx = (const T *)x + start;                                       \
        } else {                                                             \
            for (int64_t i = 0; i < m; i++)                                  \
                in_buf[i] = *(const T *)(x + (start + i) * sx);              \
        }
#define TITER_VEC_BLOCKS_END(T)                                              \
        if (!contiguous)                                                     \
            for (int64_t i = 0; i < m; i++)                                  \
                *(T *)(o + (start + i) * so) = out_buf[i];                   \
    }
/* TITER_SPLIT_LOOP (titer_loops.h) for a float64 fast path with an 8-lane
 * form VFAST (VOK its range test, all ones where in range), as
 * TITER_VEC_LOOP_F16 walks float32: a vector all in range (the common
 * case) goes through VFAST and is stored; another has its out-of-range
 * lanes given 0 (so VFAST raises nothing) and keeping their inputs, then
 * recomputed by KERNEL (libm) from the input left in the output, from the
 * block's first such vector on; the block's last n mod 8 elements through
 * the scalar twin FAST or KERNEL.  (An earlier form blended every vector
 * and kept a mask vector a vector: float64 log 1.05 ns an element in
 * cache, 0.86 this way; exp 0.65, 0.57; Zen 4, C harness.) */
#define TITER_VEC_LOOP_D8(KERNEL, OK, FAST, VOK, VFAST)                         \
    TITER_VEC_BLOCKS_BEGIN(double)                                           \
        __mmask8 keep[TITER_SPLIT_BLOCK / 8];    /* lanes VFAST computed */  \
        int64_t nv = m / 8, first_partial = nv;                              \
        for (int64_t v = 0; v < nv; v++) {                                   \
            titer_v8d in = *(const titer_v8d_u *)(bx + 8 * v);               \
            titer_v8u ok = VOK(TITER_V8_TOBITS(in));                         \
            __mmask8 mask = _mm512_test_epi64_mask((__m512i)ok, (__m512i)ok); \
            keep[v] = mask;                                                  \
            if (__builtin_expect(mask == 0xff, 1)) {                         \
                *(titer_v8d_u *)(bo + 8 * v) = VFAST(in);                    \
                continue;                                                    \
            }                                                                \
            if (first_partial == nv)                                         \
                first_partial = v;                                           \
            titer_v8d f = VFAST((titer_v8d)_mm512_maskz_mov_pd(mask, (__m512d)in)); \
            *(titer_v8d_u *)(bo + 8 * v) =                                   \
                (titer_v8d)_mm512_mask_blend_pd(mask, (__m512d)in, (__m512d)f); \
        }                                                                    \
        for (int64_t i = 8 * nv; i < m; i++) {                               \
            double xi = bx[i];                                               \
            bo[i] = OK(xi) ? FAST(xi) : KERNEL(xi);                          \
        }                                                                    \
        for (int64_t i = 8 * first_partial; i < 8 * nv; i++)                 \
            if (!((keep[i / 8] >> (i % 8)) & 1)) bo[i] = KERNEL(bo[i]);      \
    TITER_VEC_BLOCKS_END(double)
#endif
/* float64 tanh's scalar form: the 8-lane form's twin where that is built */
#ifdef TITER_HAVE_VFAST_D
#define TITER_TANH16_RCP TITER_RCP14_SD
#else
#define TITER_TANH16_RCP(d) ((double)(1.0f / (float)(d)))   /* 24 bits */
#endif
#define TITER_SCALAR_ANY(m) ((m) != 0)
#define TITER_SCALAR_MAX(a, b) ((a) > (b) ? (a) : (b))
TITER_TANH16(titer_fast_tanh, double, uint64_t, titer_poly_fma, TITER_SCALAR_C, titer_d2bits,
             titer_bits2d, TITER_EXP16_SCALAR_PICK, TITER_SCALAR_MASK64, TITER_SCALAR_ANY,
             TITER_TANH16_RCP, TITER_SCALAR_MAX)
#endif

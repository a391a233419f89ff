/* Scalar types and helpers shared by every generated loop (CPU now, the CUDA
 * kernels later).  Nothing here loops: these are the one-element building
 * blocks the op table's expressions are written in. */
#ifndef TITER_SCALAR_H
#define TITER_SCALAR_H

#include <stdint.h>
#include <string.h>
#include <math.h>
#include <fenv.h>
#include <float.h>
#include "titer_fpflags.h"   /* titer_raise_fp */

#ifndef TITER_INLINE
#define TITER_INLINE static inline
#endif

/* forced: a helper several fast paths share (the double log, atan, float16 to float) is
 * otherwise left out of line in some translation units, and a call in the
 * loop body stops it vectorizing */
#if defined(__GNUC__)
#define TITER_FAST_INLINE static inline __attribute__((always_inline))
#else
#define TITER_FAST_INLINE static inline
#endif

typedef uint8_t npy_bool_t;     /* NumPy's bool: one byte, 0 or 1 */
typedef uint16_t titer_half;    /* IEEE binary16 bits; math goes through float */
typedef struct { float re, im; } titer_cfloat;
typedef struct { double re, im; } titer_cdouble;

/* Bit casts: the branch-free helpers below work on the bits. */
TITER_FAST_INLINE float titer_bits2f(uint32_t u) { union { uint32_t i; float f; } v; v.i = u; return v.f; }
TITER_FAST_INLINE uint32_t titer_f2bits(float f) { union { uint32_t i; float f; } v; v.f = f; return v.i; }
TITER_FAST_INLINE double titer_bits2d(uint64_t u) { union { uint64_t i; double d; } v; v.i = u; return v.d; }
TITER_FAST_INLINE uint64_t titer_d2bits(double d) { union { uint64_t i; double d; } v; v.d = d; return v.i; }

/* ---- float16 <-> float32/float64, round to nearest even (NumPy's rules:
 * overflow raised past the range, underflow where the result is a subnormal
 * or zero that is not exact) ---- */

/* Branch-free, so the loops around it vectorize: the three cases are
 * computed side by side and picked by masks. */
TITER_FAST_INLINE float titer_h2f(titer_half h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t mag = (uint32_t)(h & 0x7fffu) << 13;   /* exponent and significand in place */
    uint32_t exp = mag & 0x0f800000u;
    uint32_t is_small = 0u - (uint32_t)(exp == 0), is_special = 0u - (uint32_t)(exp == 0x0f800000u);
    uint32_t normal = mag + ((127u - 15u) << 23);   /* rebiased */
    uint32_t special = mag | 0x7f800000u;           /* inf / nan, payload kept */
    /* zero or subnormal: sig 2^-24 = (2^-14 + sig 2^-24) - 2^-14, exact;
     * other lanes subtract 2^-14 from itself, so nothing is inexact */
    float bias = titer_bits2f(113u << 23);
    uint32_t small = titer_f2bits(titer_bits2f((mag & is_small) + (113u << 23)) - bias);
    return titer_bits2f(sign | (small & is_small) | (special & is_special)
                        | (normal & ~(is_small | is_special)));
}

/* float or double (T, its bits UI, SHIFT = its significand bits - 10) to
 * float16, branch-free so the loops around it vectorize; each case is
 * computed on every lane and picked by masks:
 * - normal float16 results: the significand rounded on the integer bits
 *   (add just under half an ulp, plus one when the kept part is odd: ties
 *   to even), the exponent rebiased by the same add;
 * - subnormals and zeros: the magnitude times SMALL_SCALE lands in T's own
 *   subnormals, whose step is then float16's (2^-24), so T's multiply rounds
 *   as float16 does, its bits are the float16 bits, and it raises underflow
 *   exactly where NumPy does (a tiny result that is not exact);
 * - overflow (>= 65520, which rounds past 65504): the magnitude times
 *   BIG_SCALE overflows T, raising NumPy's overflow, and its exponent bits
 *   are float16's infinity;
 * - inf and nan: the sign, all-ones exponent, the top of the payload (a nan
 *   whose payload would vanish keeps its lowest bit, as NumPy does).
 * Lanes outside a case multiply zero, so no flag comes from them. */
#define TITER_TO_HALF(NAME, T, UI, TOBITS, FROMBITS, SHIFT, EXP_BIAS, HALF_MIN_BITS, \
                      OVERFLOW_BITS, INF_BITS, SMALL_SCALE, BIG_SCALE)        \
TITER_FAST_INLINE titer_half NAME(T value) {                                 \
    const int top = (int)sizeof(UI) * 8 - 1;                                 \
    UI x = TOBITS(value);                                                    \
    UI ax = x & (((UI)1 << top) - 1);                                        \
    uint32_t sign = (uint32_t)(x >> (top - 15)) & 0x8000u;                   \
    UI is_special = (UI)0 - (UI)(ax >= (INF_BITS));                          \
    UI is_overflow = ((UI)0 - (UI)(ax >= (OVERFLOW_BITS))) & ~is_special;    \
    UI is_small = (UI)0 - (UI)(ax < (HALF_MIN_BITS));                        \
    UI is_normal = ~(is_special | is_overflow | is_small);                   \
    UI normal = (ax - ((UI)((EXP_BIAS) - 15) << ((SHIFT) + 10))              \
                 + (((UI)1 << ((SHIFT) - 1)) - 1) + ((ax >> (SHIFT)) & 1)) >> (SHIFT); \
    UI small = TOBITS(FROMBITS(ax & is_small) * (SMALL_SCALE));              \
    UI overflow = TOBITS(FROMBITS(ax & is_overflow) * (BIG_SCALE)) >> (top - 15); \
    UI payload = (ax >> (SHIFT)) & 0x3ffu;                                   \
    UI special = 0x7c00u | payload | (UI)(ax > (INF_BITS) && payload == 0); \
    UI bits = (normal & is_normal) | (small & is_small)                      \
              | (overflow & 0x7c00u) | (special & is_special);              \
    return (titer_half)(sign | (uint32_t)bits);                              \
}
TITER_TO_HALF(titer_f2h, float, uint32_t, titer_f2bits, titer_bits2f, 13, 127,
              0x38800000u, 0x477ff000u, 0x7f800000u, 0x1p-125f, 0x1p113f)

/* NOTE [float64 to float16 in 32-bit lanes]: TITER_TO_HALF's cases on the
 * double's high word, with its low word folded into the word's lowest bit
 * (set where any low bit is): every bit below float16's rounding bit is
 * only "any set" to the rounding, so the word rounds as the double does,
 * and the loops convert 8 (AVX2) or 16 (AVX-512) lanes of 32-bit
 * arithmetic a vector where the double's own took 4 or 8 of 64-bit.  The
 * subnormal case multiplies a float made of the word (rebiased, its 20
 * significand bits and the folded bit below them: rounding to odd, so the
 * float's one rounding in the multiply is the double's); magnitudes below
 * 2^-30, whose float16 is a zero with underflow, become 2^-30 first, where
 * the float's exponent still holds them.  The overflow case raises its
 * flag by a float product.  The same bits and flags as the double's form
 * (tests/test_copy.py checks them against NumPy's). */
TITER_FAST_INLINE titer_half titer_d2h(double value) {
    uint64_t x = titer_d2bits(value);
    uint32_t sign = (uint32_t)(x >> 48) & 0x8000u;
    uint32_t ax = ((uint32_t)(x >> 32) & 0x7fffffffu) | (uint32_t)((uint32_t)x != 0);
    uint32_t is_special = 0u - (uint32_t)(ax >= 0x7ff00000u);
    uint32_t is_overflow = (0u - (uint32_t)(ax >= 0x40effe00u)) & ~is_special;
    uint32_t is_small = 0u - (uint32_t)(ax < 0x3f100000u);
    uint32_t is_normal = ~(is_special | is_overflow | is_small);
    uint32_t normal = (ax - ((1023u - 15u) << 20) + ((1u << 9) - 1) + ((ax >> 10) & 1)) >> 10;
    uint32_t at_least_2_30 = ax < 0x3e100000u ? 0x3e100000u : ax;
    uint32_t as_float = ((at_least_2_30 - ((1023u - 127u) << 20)) << 3)
                        & (0u - (uint32_t)(ax != 0));      /* a zero stays 0 */
    uint32_t small = titer_f2bits(titer_bits2f(as_float & is_small) * 0x1p-125f);
    uint32_t overflow = titer_f2bits(titer_bits2f(0x7f000000u & is_overflow) * 0x1p127f) >> 16;
    uint32_t payload = (ax >> 10) & 0x3ffu;
    uint32_t special = 0x7c00u | payload | (uint32_t)(ax > 0x7ff00000u && payload == 0);
    uint32_t bits = (normal & is_normal) | (small & is_small) | (overflow & 0x7c00u)
                    | (special & is_special);
    return (titer_half)(sign | bits);
}

/* NOTE [integers to float16]: an integer's float16 is its float's: every
 * magnitude below 2^16 is a float exactly, and from 65520 on the float16 is
 * infinity, with NumPy's overflow, whatever the float; so a 32- or 64-bit
 * integer clamped to +-2^16 keeps its float16 and its flag, and converts to
 * float as a 32-bit one.  The loops then convert 8 (AVX2) or 16 (AVX-512)
 * lanes a vector, where through double (titer_d2h) they took 4 or 8 lanes
 * of 64-bit arithmetic. */
/* (the clamp in two statements: GCC 12 left a loop with it as one nested
 * ?: unvectorized) */
#define TITER_INT_TO_HALF(NAME, T, LOW)                                      \
TITER_FAST_INLINE titer_half NAME(T v) {                                     \
    T clamped = v < (LOW) ? (LOW) : v;                                       \
    clamped = clamped > 65536 ? 65536 : clamped;                             \
    return titer_f2h((float)(int32_t)clamped);                               \
}
TITER_INT_TO_HALF(titer_i32_to_h, int32_t, -65536)
TITER_INT_TO_HALF(titer_u32_to_h, uint32_t, 0u)
TITER_INT_TO_HALF(titer_i64_to_h, int64_t, -65536)
TITER_INT_TO_HALF(titer_u64_to_h, uint64_t, 0u)

/* int64 / uint64 to double as the conversion instruction rounds (to
 * nearest), for loops on targets without a vector 64-bit conversion (AVX2,
 * the baseline; cvtsi2sd keeps them scalar): the two 32-bit halves are
 * exact doubles (on the bits of 2^52 + h), the high one times 2^32 stays
 * exact, and their sum rounds once.  AVX-512 DQ converts in one
 * instruction. */
#if defined(__AVX512DQ__)
#define titer_i64_to_d(v) ((double)(int64_t)(v))
#define titer_u64_to_d(v) ((double)(uint64_t)(v))
#else
TITER_FAST_INLINE double titer_u64_to_d(uint64_t v) {
    double hi = titer_bits2d(0x4330000000000000ull | (v >> 32)) - 0x1p52;
    double lo = titer_bits2d(0x4330000000000000ull | (v & 0xffffffffull)) - 0x1p52;
    return hi * 0x1p32 + lo;
}
TITER_FAST_INLINE double titer_i64_to_d(int64_t v) {         /* high half + 2^31 */
    double hi = titer_bits2d(0x4330000000000000ull | (((uint64_t)v >> 32) ^ 0x80000000ull))
                - (0x1p52 + 0x1p31);
    double lo = titer_bits2d(0x4330000000000000ull | ((uint64_t)v & 0xffffffffull)) - 0x1p52;
    return hi * 0x1p32 + lo;
}
#endif

/* on the bits, and `|` / `&` rather than `||` / `&&` in the helpers and the
 * op table's float16 max/min: no branch, so their loops vectorize */
TITER_FAST_INLINE int titer_half_isnan(titer_half h) {
    return (h & 0x7fffu) > 0x7c00u;
}
/* quiet compares, as NumPy's npy_half_ge / npy_half_le on the bits: a nan
 * gives false and raises nothing */
TITER_FAST_INLINE int titer_half_ge(titer_half a, titer_half b) {
    return __builtin_isgreaterequal(titer_h2f(a), titer_h2f(b));
}
TITER_FAST_INLINE int titer_half_le(titer_half a, titer_half b) {
    return __builtin_islessequal(titer_h2f(a), titer_h2f(b));
}

/* ---- real helpers (type-generic so one op-table expression covers f and d) ---- */
#define titer_fabs(x) _Generic((x), float: fabsf, default: fabs)(x)

/* ---- fused multiply-add where NumPy's dispatched loops use it ----
 * NumPy's complex loops are compiled for AVX2+FMA3 and the compiler fuses
 * a*b+c there, so their last bit depends on the CPU.  titer follows: FMA
 * when the CPU has it (decided once at import), separate ops otherwise. */
extern int titer_use_fma;
#ifdef TITER_ISA
/* the instruction-set builds are chosen only on CPUs with FMA (_core.pyx);
 * loops that call this are built with FMA enabled (TITER_SIMD_FMA_CLONES) */
#define titer_muladd(x, y, z) _Generic((x), float: __builtin_fmaf, default: __builtin_fma)((x), (y), (z))
#else
#define titer_muladd(x, y, z) (titer_use_fma                                  \
    ? _Generic((x), float: __builtin_fmaf, default: __builtin_fma)((x), (y), (z)) : (x) * (y) + (z))
#endif

/* ---- complex: explicit formulas, as NumPy's loops (no C99 Annex G rescue) ---- */
#define titer_cmake(r, i) ({ __typeof__(a) _z; _z.re = (r); _z.im = (i); _z; })
#define titer_cmul(x, y) titer_cmake(titer_muladd((x).re, (y).re, -((x).im * (y).im)), \
                                     titer_muladd((x).re, (y).im, (x).im * (y).re))

/* |z|: titer_cabs_f / titer_cabs_d below (on the bits, after the bit casts) */
#define titer_cabs(z) _Generic((z).re, float: titer_cabs_f, default: titer_cabs_d)((z).re, (z).im)

/* NOTE [no fused complex lanes]: GCC vectorizes a complex formula with its
 * real part in one lane and its imaginary part in the next.  Where one lane
 * adds a product and the other subtracts one, GCC 12's SLP pattern matcher
 * makes a vfmaddsub / vfmsubadd, a fused multiply-add, even under
 * -ffp-contract=off (GCC 13 added the check), on every target with FMA: each
 * AVX-512 build.  NumPy's divide and its reduce loops do not fuse there.  So
 * those formulas write a subtraction a - b * c as the addition
 * a + b * titer_neg(c), the factor negated on its bits, where the compiler
 * cannot fold it back into a subtraction: the same value (b * -c is
 * -(b * c), and a + -p is a - p in IEEE arithmetic), only additions in the
 * lanes.  tests/test_dispatch.py disassembles every build to hold it. */
#define titer_neg(x) _Generic((x),                                             \
    float: titer_bits2f(titer_f2bits(x) ^ 0x80000000u),                        \
    default: titer_bits2d(titer_d2bits(x) ^ 0x8000000000000000ull))

/* Smith's division with NumPy's choices for a zero divisor (subtractions
 * as NOTE [no fused complex lanes]). */
#define titer_cdiv(x, y) ({                                                  \
    __typeof__(x) _q; __typeof__((x).re) _rat, _scl;                        \
    __typeof__((x).re) _ar = titer_fabs((y).re), _ai = titer_fabs((y).im);  \
    if (_ar >= _ai) {                                                       \
        if (_ar == 0 && _ai == 0) {                                         \
            _q.re = (x).re / _ar; _q.im = (x).im / _ar;                     \
        } else {                                                            \
            _rat = (y).im / (y).re;                                         \
            _scl = (__typeof__(_rat))1.0 / ((y).re + (y).im * _rat);        \
            _q.re = ((x).re + (x).im * _rat) * _scl;                        \
            _q.im = ((x).im + (x).re * titer_neg(_rat)) * _scl;             \
        }                                                                   \
    } else {                                                                \
        _rat = (y).re / (y).im;                                             \
        _scl = (__typeof__(_rat))1.0 / ((y).im + (y).re * _rat);            \
        _q.re = ((x).re * _rat + (x).im) * _scl;                            \
        _q.im = ((x).im * _rat + titer_neg((x).re)) * _scl;                 \
    }                                                                       \
    _q; })

/* Lexicographic complex order; a NaN in either part makes < and <= false.
 * NumPy's (CLT/CLE) are short-circuit: the real parts' < always runs (and
 * signals on a NaN), the imaginary parts' < only where the real parts are
 * equal.  Here every compare runs, on 0/1 results, so the loop vectorizes
 * (the && form stayed scalar: 0.8x NumPy); the imaginary parts meet as 0
 * where the real parts differ, so no compare signals where NumPy's does
 * not run. */
#define titer_ceq(x, y) ((x).re == (y).re && (x).im == (y).im)
#define titer_part_if(c, v) _Generic((v), float: titer_blend_f, default: titer_blend_d)((c), (v), 0)
#define titer_clex(x, y, OP) ({                                                \
    int same_re_ = (x).re == (y).re;                                         \
    (((x).re < (y).re) & ((x).im == (x).im) & ((y).im == (y).im))             \
        | (same_re_ & (titer_part_if(same_re_, (x).im) OP titer_part_if(same_re_, (y).im))); })
#define titer_clt(x, y) titer_clex(x, y, <)
#define titer_cle(x, y) titer_clex(x, y, <=)
#define titer_cgt(x, y) titer_clt(y, x)
#define titer_cge(x, y) titer_cle(y, x)

/* ---- exact int64 <-> uint64 comparisons (NumPy's 'qQ->?' loops) ---- */
#define TITER_MIXED_CMP(NAME, OP)                                            \
TITER_INLINE npy_bool_t titer_cmp_sl_##NAME(int64_t a, uint64_t b) {        \
    return a < 0 ? (0 OP 1) : ((uint64_t)a OP b);                           \
}                                                                           \
TITER_INLINE npy_bool_t titer_cmp_ls_##NAME(uint64_t a, int64_t b) {        \
    return b < 0 ? (1 OP 0) : (a OP (uint64_t)b);                           \
}
TITER_MIXED_CMP(equal, ==)
TITER_MIXED_CMP(not_equal, !=)
TITER_MIXED_CMP(less, <)
TITER_MIXED_CMP(less_equal, <=)
TITER_MIXED_CMP(greater, >)
TITER_MIXED_CMP(greater_equal, >=)

/* ======================================================================
 * The rest of NumPy's catalog.  Each helper reproduces the formula of the
 * NumPy loop it stands for (numpy/_core/src/umath, npymath), so special
 * values, signed zeros and FP flags come out the same.
 * ====================================================================== */
#include <complex.h>
#include <limits.h>

/* Set inside nogil loops where NumPy raises a Python error (integer power
 * with a negative exponent); the caller raises after the loop. */
extern int titer_loop_error;
#define TITER_ERR_NEGATIVE_POWER 1
#define titer_flag_error(code) __atomic_store_n(&titer_loop_error, (code), __ATOMIC_RELAXED)

/* libm's float or double variant, chosen by the argument's type. */
#define titer_m1(fn, x) _Generic((x), float: fn##f, default: fn)(x)
#define titer_m2(fn, x, y) _Generic((x), float: fn##f, default: fn)((x), (y))
/* an int64 exponent clamped into an int by masks: GCC 12 left the ?: form
 * scalar in the AVX2 unit, keeping ldexp's int64-exponent loops at 8 ns an
 * element (0.5x NumPy's scalar libm); an int32 one passes as it is */
TITER_FAST_INLINE int titer_clamp_int64(int64_t e) {
    e += ((int64_t)INT_MAX - e) & -(int64_t)(e > INT_MAX);
    e += ((int64_t)INT_MIN - e) & -(int64_t)(e < INT_MIN);
    return (int)e;
}
#define titer_clamp_int(e) _Generic((e), int64_t: titer_clamp_int64(e), default: (int)(e))

/* NOTE [libm error paths]: glibc's log family takes its error path on a
 * zero, negative or nan argument, ~60 ns a call (100x its usual time), and
 * the vectorized loops hand every such element to the scalar kernel: log of
 * an array half of whose elements are negative ran 25x slower than NumPy's.
 * These wrappers give glibc's value and flag there by the same arithmetic
 * and call libm for the rest (+inf and subnormals included):
 * - at the pole (0, or -1 for log1p), -1 / +0: -inf and divide-by-zero;
 * - below it, (x - x) / (x - x): invalid and the default nan (glibc 2.36's
 *   log10 and log10f return that nan with its sign cleared: POSITIVE_NAN);
 * - a nan argument, quieted with its payload by the same expression, without
 *   a flag -- except in log1p, whose glibc versions raise invalid on any nan
 *   (NAN_TO_LIBM: those go to libm).
 * Checked against glibc 2.36 bit for bit, flags included, on the float32
 * values below the pole, 5e7 float64 ones, nans and the poles' neighbours
 * (a signaling nan, which NumPy never makes, may differ in the invalid
 * flag); the tests run the loops over such values against NumPy.  The CPU kernels of
 * log, log2, log10 and log1p call them (their op table entries; the GPU's
 * are its own functions, titer_scalar.cuh). */
#define TITER_DOMAIN_LOG(NAME, T, FN, POLE, NAN_TO_LIBM, POSITIVE_NAN)       \
TITER_INLINE T NAME(T x) {                                                   \
    if (__builtin_expect(__builtin_isgreater(x, (POLE)), 1)                  \
            || ((NAN_TO_LIBM) && x != x))                                     \
        return FN(x);                                                        \
    if (x == (POLE)) return -1 / (x - x);                                    \
    T r = (x - x) / (x - x);                                                 \
    return (POSITIVE_NAN) && x == x ? titer_fabs(r) : r;                     \
}
TITER_DOMAIN_LOG(titer_domain_log, double, log, 0, 0, 0)
TITER_DOMAIN_LOG(titer_domain_logf, float, logf, 0, 0, 0)
TITER_DOMAIN_LOG(titer_domain_log2, double, log2, 0, 0, 0)
TITER_DOMAIN_LOG(titer_domain_log2f, float, log2f, 0, 0, 0)
TITER_DOMAIN_LOG(titer_domain_log10, double, log10, 0, 0, 1)
TITER_DOMAIN_LOG(titer_domain_log10f, float, log10f, 0, 0, 1)
TITER_DOMAIN_LOG(titer_domain_log1p, double, log1p, -1, 1, 0)
TITER_DOMAIN_LOG(titer_domain_log1pf, float, log1pf, -1, 1, 0)

/* ---- real floating point, per type (S: f/d suffix, T: C type, F: libm suffix) ---- */

#define TITER_REAL_DEFS(S, T, F)                                              \
/* npy_divmod: fmod, then Python's sign convention and snapping. */           \
TITER_INLINE T titer_divmod_##S(T a, T b, T *modulus) {                      \
    T mod = fmod##F(a, b), div, floordiv;                                    \
    if (!b) { *modulus = mod; return a / b; }                                \
    div = (a - mod) / b;                                                     \
    if (mod) {                                                               \
        if (isless(b, 0) != isless(mod, 0)) { mod += b; div -= (T)1; }       \
    } else {                                                                 \
        mod = copysign##F((T)0, b);                                          \
    }                                                                        \
    if (div) {                                                               \
        floordiv = floor##F(div);                                            \
        if (isgreater(div - floordiv, (T)0.5)) floordiv += (T)1;             \
    } else {                                                                 \
        floordiv = copysign##F((T)0, a / b);                                 \
    }                                                                        \
    *modulus = mod;                                                          \
    return floordiv;                                                         \
}                                                                            \
TITER_INLINE T titer_floordiv_##S(T a, T b) {                                \
    T mod;                                                                   \
    if (!b) {                                                                \
        T div = a / b;                                                       \
        titer_raise_fp((!a || isnan(a)) ? FE_INVALID : FE_DIVBYZERO);         \
        return div;                                                          \
    }                                                                        \
    return titer_divmod_##S(a, b, &mod);                                     \
}                                                                            \
/* npy_remainder: the modulus half of divmod only; computing the unused    \
 * quotient would raise overflow/underflow flags NumPy does not. */         \
TITER_INLINE T titer_remainder_##S(T a, T b) {                               \
    T mod = fmod##F(a, b);                                                   \
    if (!b) return mod;                                                      \
    if (mod) {                                                               \
        if (isless(b, 0) != isless(mod, 0)) mod += b;                        \
    } else {                                                                 \
        mod = copysign##F((T)0, b);                                          \
    }                                                                        \
    return mod;                                                              \
}                                                                            \
TITER_INLINE T titer_logaddexp_##S(T x, T y) {                               \
    if (x == y) return x + (T)M_LN2;    /* same-signed infinities, no flag */ \
    T tmp = x - y;                                                           \
    if (tmp > 0) return x + log1p##F(exp##F(-tmp));                          \
    if (tmp <= 0) return y + log1p##F(exp##F(tmp));                          \
    return tmp;                                                              \
}                                                                            \
TITER_INLINE T titer_logaddexp2_##S(T x, T y) {                              \
    if (x == y) return x + 1;                                                \
    T tmp = x - y;                                                           \
    if (tmp > 0) return x + (T)M_LOG2E * log1p##F(exp2##F(-tmp));            \
    if (tmp <= 0) return y + (T)M_LOG2E * log1p##F(exp2##F(tmp));            \
    return tmp;                                                              \
}
TITER_REAL_DEFS(f, float, f)
TITER_REAL_DEFS(d, double, )
/* npy_spacing: the gap to the next float away from zero (zero counts as +,
 * and steps to the smallest subnormal), stepped on the bits; nan for inf,
 * a nan quieted (invalid where it signals).  NumPy's step raises overflow
 * at inf and underflow where it lands on a subnormal from a nonzero x; the
 * gap itself is exact.  Selects by masks, so the loop vectorizes (GCC 12
 * left the ?: form scalar at AVX2, "control flow in loop"); the flags come
 * from x * x, computed only there (a call would keep the loop scalar; a
 * constant operand GCC folds, dropping the underflow), whose bits the
 * result already has (inf, or 0 OR-ed in); elsewhere 0 * 0. */
#define TITER_SPACING_DEF(S, T, U, TOBITS, FROMBITS, MAX_BITS, MIN_BITS, INF_BITS) \
TITER_INLINE T titer_spacing_##S(T x) {                                      \
    U u = TOBITS(x), a = u & (~(U)0 >> 1);                                   \
    U finite = (U)0 - (U)(a < INF_BITS), is_nan = (U)0 - (U)(a > INF_BITS);  \
    U from = u & finite & ((U)0 - (U)(a != 0));   /* +0 for zeros, inf, nan */ \
    T gap = FROMBITS(from + 1) - FROMBITS(from);                             \
    U flagged = (U)0 - (U)((a == MAX_BITS) | ((a != 0) & (a + 1 < MIN_BITS))); \
    T flag_operand = FROMBITS(u & flagged), nan_operand = FROMBITS(u & is_nan); \
    U flag_bits = TOBITS(flag_operand * flag_operand) & INF_BITS;            \
    U quieted = TOBITS(nan_operand + nan_operand);  /* NumPy's: x, quiet */  \
    U special = (quieted & is_nan) | (TOBITS((T)NAN) & ~is_nan);             \
    return FROMBITS(((TOBITS(gap) | flag_bits) & finite) | (special & ~finite)); \
}
TITER_SPACING_DEF(f, float, uint32_t, titer_f2bits, titer_bits2f, 0x7f7fffffu, 0x00800000u, 0x7f800000u)
TITER_SPACING_DEF(d, double, uint64_t, titer_d2bits, titer_bits2d,
                  0x7fefffffffffffffull, 0x0010000000000000ull, 0x7ff0000000000000ull)
#define titer_real_pick(fn, x) _Generic((x), float: fn##_f, default: fn##_d)
#define titer_divmod(a, b, m) titer_real_pick(titer_divmod, a)((a), (b), (m))
#define titer_floordiv(a, b) titer_real_pick(titer_floordiv, a)((a), (b))
#define titer_remainder(a, b) titer_real_pick(titer_remainder, a)((a), (b))
#define titer_spacing(a) titer_real_pick(titer_spacing, a)(a)
#define titer_logaddexp(a, b) titer_real_pick(titer_logaddexp, a)((a), (b))
#define titer_logaddexp2(a, b) titer_real_pick(titer_logaddexp2, a)((a), (b))

/* ---- float16 at the bit level (npy_half_nextafter, npy_half_spacing) ---- */
/* npy_half_nextafter's if-chain as integer selects, so the loop vectorizes
 * (17x faster than the branches; the same bits and overflow flags as them
 * on all 2^32 pairs when written; tests/test_catalog.py holds every x
 * against NumPy).  Equal x and y give x before NumPy 2.5 and y from it on
 * (numpy/numpy#31472: nextafter(+0, -0) is -0 from 2.5, as C's nextafter
 * and NumPy's float32/float64 loops give): titer_half_nextafter_gives_y,
 * set at import from the NumPy titer runs with
 * (_frontend.HALF_NEXTAFTER_GIVES_Y). */
extern int titer_half_nextafter_gives_y;
TITER_INLINE titer_half titer_half_nextafter(titer_half x, titer_half y) {
    uint16_t ax = x & 0x7fffu, ay = y & 0x7fffu;
    int toward_zero = (x & 0x8000u) ? (!(y & 0x8000u) | (ax > ay)) : ((int16_t)x > (int16_t)y);
    titer_half step = (titer_half)(ax == 0 ? (y & 0x8000u) + 1 : x + (toward_zero ? 0xffffu : 1u));
    titer_half equal = titer_half_nextafter_gives_y ? y : x;      /* differ only for +-0 */
    titer_half ret = (ax > 0x7c00u) | (ay > 0x7c00u) ? 0x7e00u
                     : (x == y) | ((ax | ay) == 0) ? equal : step;
    /* NumPy's overflow flag where a finite x steps to inf, raised by a
     * product that overflows only there (a call would keep the loop scalar);
     * the product's inf supplies the bits the result already has */
    int overflows = ((ret & 0x7fffu) == 0x7c00u) & ((x & 0x7c00u) != 0x7c00u);
    float big = titer_bits2f(overflows ? 0x7f7fffffu : 0u);
    return (titer_half)(ret | ((titer_f2bits(big * big) >> 16) & 0x7c00u));
}
/* NumPy's float16 sign works on the bits: a nan comes back as it went in
 * (a signaling one too), zeros of either sign as +0 */
TITER_INLINE titer_half titer_half_sign(titer_half h) {
    uint16_t a = h & 0x7fffu;
    titer_half unit = (titer_half)((h & 0x8000u) | 0x3c00u);
    return a == 0 ? 0 : a > 0x7c00u ? h : unit;
}
/* npy_half_spacing as selects, so the loop vectorizes (its branches cost
 * 1.2-6.4 ns an element, as the VM's predictor pleased): the gap above |h|,
 * below a negative power of two (half the step, toward zero); NumPy's flags
 * from float operations that raise only where it does (inf - inf: invalid,
 * for inf and nan; FLT_MAX squared: overflow, for the largest finite),
 * their results supplying bits the answer already has.  Their operands are
 * masks, not ?: (GCC sinks a select's float operation into a branch, and a
 * branch keeps the loop scalar below AVX-512). */
TITER_INLINE titer_half titer_half_spacing(titer_half h) {
    uint32_t e = (h >> 10) & 0x1fu, down = (h & 0x83ffu) == 0x8000u;
    int normal = (int)e - 10 - (int)down, shift = (int)e - 1 - (int)down;
    uint32_t gap = normal > 0 ? (uint32_t)normal << 10 : 1u << (shift > 0 ? shift : 0);
    uint32_t special = 0u - (uint32_t)(e == 0x1fu), largest = 0u - (uint32_t)(h == 0x7bffu);
    float bad = titer_bits2f(special & 0x7f800000u), big = titer_bits2f(largest & 0x7f7fffffu);
    uint32_t nan = (titer_f2bits(bad - bad) >> 16) & 0x7e00u;
    uint32_t inf = (titer_f2bits(big * big) >> 16) & 0x7c00u;
    return (titer_half)(nan | ((gap | inf) & ~special));
}
/* NumPy's clip for float16 compares with >= / <= (npy_half_ge/le). */
/* float16 clip on the bits: quiet compares of sortable integer keys and bit
 * selects, so the loop vectorizes (15 ns an element through ?: and float
 * compares, which GCC's vector code makes signaling: invalid on a nan) */
TITER_FAST_INLINE int32_t titer_half_order(titer_half h) {
    int32_t magnitude = h & 0x7fff, negate = -(int32_t)(h >> 15);
    return (magnitude ^ negate) - negate;          /* -0 and +0 both 0 */
}
TITER_INLINE titer_half titer_clip_half(titer_half x, titer_half lo, titer_half hi) {
    int keep = titer_half_isnan(x)
               | (!titer_half_isnan(lo) & (titer_half_order(x) >= titer_half_order(lo)));
    titer_half keep_x = (titer_half)(0u - (unsigned)keep);
    titer_half r = (titer_half)((x & keep_x) | (lo & (titer_half)~keep_x));
    keep = titer_half_isnan(r)
           | (!titer_half_isnan(hi) & (titer_half_order(r) <= titer_half_order(hi)));
    titer_half keep_r = (titer_half)(0u - (unsigned)keep);
    return (titer_half)((r & keep_r) | (hi & (titer_half)~keep_r));
}

/* ---- integers, per type: NumPy's rules, and no C division can trap ---- */
/* gcd of two 8-bit magnitudes by Euclid's steps in float, a fixed 12 of
 * them (the most any pair below 256 needs: 11 for consecutive Fibonacci
 * numbers, one more when x < y) as selects, so the loop vectorizes where
 * the while loop with its integer % stayed scalar (0.85x NumPy).  The
 * quotient truncated from the rounded float division is the exact one:
 * x / y is at least 1/255 below the next integer, far above float's
 * 2^-24 relative rounding for quotients below 256; the rest is exact. */
TITER_FAST_INLINE uint32_t titer_gcd_u8(uint32_t x, uint32_t y) {
    float fx = (float)x, fy = (float)y;
    for (int step = 0; step < 12; step++) {
        uint32_t live = 0u - (uint32_t)(fy != 0.0f);      /* y == 0: x stays */
        float d = titer_bits2f((titer_f2bits(fy) & live) | (0x3f800000u & ~live));
        float r = fx - (float)(int32_t)(fx / d) * d;
        fx = titer_bits2f((titer_f2bits(fy) & live) | (titer_f2bits(fx) & ~live));
        fy = titer_bits2f(titer_f2bits(r) & live);
    }
    return (uint32_t)fx;
}
/* lcm the same way: x / gcd is exact in float (an integer below 256), where
 * the integer division kept the loop scalar -- and with it the twelve
 * steps above, 5x slower than NumPy's Euclid */
TITER_FAST_INLINE uint32_t titer_lcm_u8(uint32_t x, uint32_t y) {
    uint32_t g = titer_gcd_u8(x, y);
    return (uint32_t)(int32_t)((float)x / (float)(g | (g == 0))) * y;  /* g = 0: x = 0 */
}
#define TITER_INT_DEFS(S, T, U, MIN, SIGNED)                                  \
TITER_INLINE T titer_ifloordiv_##S(T a, T b) {                               \
    if (b == 0) { titer_raise_fp(FE_DIVBYZERO); return 0; }                   \
    if (SIGNED && a == (T)(MIN) && b == (T)-1) { titer_raise_fp(FE_OVERFLOW); return a; } \
    T r = (T)(a / b);                                                        \
    if (((a > 0) != (b > 0)) && (T)(r * b) != a) r--;                        \
    return r;                                                                \
}                                                                            \
TITER_INLINE T titer_iremainder_##S(T a, T b) {                              \
    if (b == 0) { titer_raise_fp(FE_DIVBYZERO); return 0; }                   \
    if (SIGNED && b == (T)-1) return 0;                                      \
    T rem = (T)(a % b);                                                      \
    return ((a > 0) == (b > 0) || rem == 0) ? rem : (T)(rem + b);            \
}                                                                            \
TITER_INLINE T titer_ifmod_##S(T a, T b) {                                   \
    if (b == 0) { titer_raise_fp(FE_DIVBYZERO); return 0; }                   \
    if (SIGNED && b == (T)-1) return 0;                                      \
    return (T)(a % b);                                                       \
}                                                                            \
TITER_INLINE T titer_idivmod_##S(T a, T b, T *rem_out) {                     \
    if (b == 0) { titer_raise_fp(FE_DIVBYZERO); *rem_out = 0; return 0; }     \
    if (SIGNED && a == (T)(MIN) && b == (T)-1) {                             \
        titer_raise_fp(FE_OVERFLOW); *rem_out = 0; return a;                  \
    }                                                                        \
    T quo = (T)(a / b), rem = (T)(a % b);                                    \
    if ((a > 0) == (b > 0) || rem == 0) { *rem_out = rem; return quo; }      \
    *rem_out = (T)(rem + b);                                                 \
    return (T)(quo - 1);                                                     \
}                                                                            \
TITER_INLINE T titer_ipow_##S(T a, T b) {                                    \
    if (SIGNED && b < 0) { titer_flag_error(TITER_ERR_NEGATIVE_POWER); return 0; } \
    if (b == 0 || a == 1) return 1;                                          \
    uint64_t base = (uint64_t)a, e = (uint64_t)b;                            \
    uint64_t out = (e & 1) ? base : 1;                                       \
    e >>= 1;                                                                 \
    while (e > 0) { base *= base; if (e & 1) out *= base; e >>= 1; }         \
    return (T)(U)out;                                                        \
}                                                                            \
TITER_INLINE U titer_iabs_##S(T a) { return a < (T)0 ? (U)(0u - (U)a) : (U)a; } \
TITER_INLINE T titer_igcd_##S(T a, T b) {                                    \
    U x = titer_iabs_##S(a), y = titer_iabs_##S(b);                          \
    if (sizeof(T) == 1) return (T)titer_gcd_u8(x, y);      /* vectorizes */  \
    while (y) { U t = (U)(x % y); x = y; y = t; }                            \
    return (T)x;                                                             \
}                                                                            \
TITER_INLINE T titer_ilcm_##S(T a, T b) {                                    \
    U x = titer_iabs_##S(a), y = titer_iabs_##S(b);                          \
    if (sizeof(T) == 1) return (T)(U)titer_lcm_u8(x, y);   /* vectorizes */  \
    U g = (U)titer_igcd_##S(a, b);                                           \
    return g == 0 ? 0 : (T)(U)((uint64_t)(x / g) * (uint64_t)y);             \
}                                                                            \
/* shifts in the type's own width (a negative count is a huge unsigned one) \
   so narrow lanes vectorize; past the width: 0, or the sign fill */         \
TITER_INLINE T titer_lshift_##S(T a, T b) {                                  \
    return (U)b < sizeof(T) * 8 ? (T)(U)((U)a << (U)b) : 0;                  \
}                                                                            \
TITER_INLINE T titer_rshift_##S(T a, T b) {                                  \
    return (U)b < sizeof(T) * 8 ? (T)(a >> (U)b) : (a < (T)0 ? (T)-1 : 0);   \
}                                                                            \
/* bit counts by the SWAR steps on the type's own width (vector lanes that  \
   narrow; x86 has no vector popcnt before AVX-512); 64 bits use popcnt */   \
TITER_INLINE uint8_t titer_popcount_##S(T a) {                               \
    U x = titer_iabs_##S(a);                                                 \
    if (sizeof(U) == 8) return (uint8_t)__builtin_popcountll((uint64_t)x);   \
    x = (U)(x - ((x >> 1) & (U)0x5555555555555555ull));                      \
    x = (U)((x & (U)0x3333333333333333ull) + ((x >> 2) & (U)0x3333333333333333ull)); \
    x = (U)((x + (x >> 4)) & (U)0x0f0f0f0f0f0f0f0full);                      \
    return (uint8_t)((U)(x * (U)0x0101010101010101ull) >> (sizeof(U) * 8 - 8)); \
}                                                                            \
/* the same count by the popcnt builtin, for loops built where the target has \
   vector popcnt (TITER_VPOPCNT_TARGET: AVX512-VPOPCNTDQ and BITALG) */      \
TITER_INLINE uint8_t titer_popcount_insn_##S(T a) {                          \
    U x = titer_iabs_##S(a);                                                 \
    return (uint8_t)(sizeof(U) == 8 ? __builtin_popcountll((uint64_t)x)      \
                                    : __builtin_popcount((unsigned int)x));  \
}                                                                            \
/* reciprocal's fast path (TITER_SPLIT_LOOP; a zero goes to the kernel    \
 * below): 1 / a for a nonzero a, which raises nothing */                 \
TITER_FAST_INLINE int titer_fast_reciprocal_##S##_ok(T a) { return a != 0; } \
TITER_FAST_INLINE T titer_fast_reciprocal_##S(T a) {                         \
    return (T)((T)(a == 1) - (T)(SIGNED && a == (T)-1));                     \
}                                                                            \
/* 1.0 / a stored as T, as NumPy computes it: 1 for 1, -1 for -1, 0 for the \
 * rest, and for 0 x86's conversion of inf (the integer indefinite, 0 below  \
 * 32 bits) with NumPy's divide and invalid flags.  Branch-free so the loop \
 * vectorizes: the division raises divide on a zero lane and inf - inf      \
 * invalid; the other lanes raise nothing NumPy reports. */                 \
TITER_INLINE T titer_ireciprocal_##S(T a) {                                  \
    double q = 1.0 / (double)a;                                              \
    double nan_at_zero = q - q;                                              \
    T zero_answer = (SIGNED && sizeof(T) >= 4) ? (T)(MIN) : 0;              \
    return nan_at_zero != nan_at_zero ? zero_answer : titer_fast_reciprocal_##S(a); \
}                                                                            \
/* The fast path of power (TITER_SPLIT_LOOP, whose scalar pass takes the  \
 * rest to titer_ipow): a ** b for 0 <= b < 64 by six square-and-multiply   \
 * steps selected on masks, so the loop vectorizes (the products modulo     \
 * 2^bits, as the kernel's; "+ 0u" keeps narrow lanes out of signed int). */ \
TITER_FAST_INLINE int titer_fast_power_##S##_ok(T a, T b) {                  \
    (void)a;                                                                 \
    return (U)b < 64u;                                                       \
}                                                                            \
TITER_FAST_INLINE T titer_fast_power_##S(T a, T b) {                         \
    U out = 1, square = (U)a;                                                \
    for (int k = 0; k < 6; k++) {                                            \
        U use = (U)((U)0 - (U)(((U)b >> k) & 1u));                           \
        out = (U)(out * (((square & use) | ((U)1 & (U)~use)) + 0u));         \
        square = (U)(square * (square + 0u));                                \
    }                                                                        \
    return (T)out;                                                           \
}                                                                            \
/* gcd and lcm where both magnitudes are below 256 (small integers, the   \
 * usual operands): the 8-bit types' float Euclid, in these lanes; larger  \
 * ones take the kernels' Euclid. */                                        \
TITER_FAST_INLINE int titer_fast_gcd_##S##_ok(T a, T b) {                    \
    return (titer_iabs_##S(a) | titer_iabs_##S(b)) < 256u;                   \
}                                                                            \
TITER_FAST_INLINE T titer_fast_gcd_##S(T a, T b) {                           \
    return (T)titer_gcd_u8((uint32_t)titer_iabs_##S(a), (uint32_t)titer_iabs_##S(b)); \
}                                                                            \
TITER_FAST_INLINE int titer_fast_lcm_##S##_ok(T a, T b) { return titer_fast_gcd_##S##_ok(a, b); } \
TITER_FAST_INLINE T titer_fast_lcm_##S(T a, T b) {                           \
    return (T)(U)titer_lcm_u8((uint32_t)titer_iabs_##S(a), (uint32_t)titer_iabs_##S(b)); \
}                                                                            \
TITER_INLINE T titer_clip_int_##S(T x, T lo, T hi) {                         \
    T r = x > lo ? x : lo;                                                   \
    return r < hi ? r : hi;                                                  \
}
TITER_INT_DEFS(b, int8_t, uint8_t, INT8_MIN, 1)
TITER_INT_DEFS(B, uint8_t, uint8_t, 0, 0)
TITER_INT_DEFS(h, int16_t, uint16_t, INT16_MIN, 1)
TITER_INT_DEFS(H, uint16_t, uint16_t, 0, 0)
TITER_INT_DEFS(i, int32_t, uint32_t, INT32_MIN, 1)
TITER_INT_DEFS(I, uint32_t, uint32_t, 0, 0)
TITER_INT_DEFS(l, int64_t, uint64_t, INT64_MIN, 1)
TITER_INT_DEFS(L, uint64_t, uint64_t, 0, 0)
/* floor_divide, remainder, fmod and divmod of integers by one float
 * division (Q: float for 8 and 16 bits, double for 32 and 64), so the loops
 * vectorize where x86 has no integer division (the kernels' C division ran
 * at NumPy's 2 ns an element, 3.6 for 64 bits).  The rounded quotient of two
 * such integers is never on the other side of an integer from the exact
 * one: a / b is an integer (then exact) or at least 1/|b| from one, and the
 * rounding moves it by under 2^16/|b| 2^-24 in float (2^32/|b| 2^-53 in
 * double; 64-bit operands only up to 2^52 in magnitude, INRANGE, so
 * 2^52/|b| 2^-53), so its trunc and floor are exact (all 2^32 pairs of
 * each 16-bit type checked, and 2e8 random 32-bit ones).  The 64-bit loops
 * use it only where the unit has AVX-512DQ's int64 conversions
 * (_codegen._FAST_WITH_AVX512DQ).  trunc by a conversion to int32 (uint32
 * from 2^31 on through q - 2^31: AVX2 has no unsigned one), floor one below
 * it where q is below it -- no floor()/trunc() calls, which vectorize only
 * without trapping math.  The products back in unsigned arithmetic ("+ 0u"
 * keeps narrow lanes out of signed int): a floor times b may leave the
 * type, the remainder itself fits.  A zero divisor and MIN / -1 go to the
 * kernels (NumPy's answers and flags); the division raises only inexact,
 * which NumPy does not see. */
#define TITER_TRUNC_I32(q) ((int32_t)(q))
/* (q >= 0 here; from 2^31 on, trunc of q - 2^31, which is then >= 0) */
TITER_FAST_INLINE uint32_t titer_trunc_u32(double q) {
    int32_t big = q >= 2147483648.0;
    return (uint32_t)(int32_t)(q - (double)big * 2147483648.0) + ((uint32_t)big << 31);
}
#define TITER_TRUNC_U32(q) titer_trunc_u32(q)
#define TITER_IDIV_ANY(S, a, b) 1
/* |a|, |b| <= 2^52 (int64 by an unsigned shift into [0, 2^53]: an abs's
   select kept the split loop scalar) */
#define TITER_IDIV_2_52 ((uint64_t)1 << 52)
#define TITER_IDIV_SIGNED_2_52(S, a, b) (((uint64_t)(a) + TITER_IDIV_2_52 <= 2 * TITER_IDIV_2_52) \
                                         & ((uint64_t)(b) + TITER_IDIV_2_52 <= 2 * TITER_IDIV_2_52))
#define TITER_IDIV_UNSIGNED_2_52(S, a, b) (((a) <= TITER_IDIV_2_52) & ((b) <= TITER_IDIV_2_52))
#define TITER_IDIV_FAST_DEFS(S, T, U, MIN, SIGNED, Q, TRUNC, INRANGE)         \
TITER_FAST_INLINE T titer_idiv_trunc_##S(Q q) { return (T)TRUNC(q); }          \
TITER_FAST_INLINE T titer_idiv_floor_##S(Q q) {                              \
    T t = (T)TRUNC(q);                                                       \
    return (SIGNED) ? (T)(t - (T)(q < (Q)t)) : t;                            \
}                                                                            \
TITER_FAST_INLINE int titer_fast_floor_divide_##S##_ok(T a, T b) {             \
    return (b != 0) & ((a != (T)(MIN)) | (b != (T)-1) | !(SIGNED)) & INRANGE(S, a, b); \
}                                                                            \
TITER_FAST_INLINE T titer_fast_floor_divide_##S(T a, T b) {                  \
    return titer_idiv_floor_##S((Q)a / (Q)b);                                \
}                                                                            \
TITER_FAST_INLINE T titer_fast_remainder_##S(T a, T b) {                     \
    U q = (U)titer_idiv_floor_##S((Q)a / (Q)b);                              \
    return (T)(((U)a + 0u) - (q + 0u) * ((U)b + 0u));                        \
}                                                                            \
TITER_FAST_INLINE T titer_fast_fmod_##S(T a, T b) {                          \
    U q = (U)titer_idiv_trunc_##S((Q)a / (Q)b);                              \
    return (T)(((U)a + 0u) - (q + 0u) * ((U)b + 0u));                        \
}                                                                            \
TITER_FAST_INLINE T titer_fast_divmod_##S(T a, T b, T *modulus) {           \
    *modulus = titer_fast_remainder_##S(a, b);                               \
    return titer_fast_floor_divide_##S(a, b);                                \
}                                                                            \
TITER_FAST_INLINE int titer_fast_remainder_##S##_ok(T a, T b) {               \
    return titer_fast_floor_divide_##S##_ok(a, b);                           \
}                                                                            \
TITER_FAST_INLINE int titer_fast_fmod_##S##_ok(T a, T b) {                    \
    return titer_fast_floor_divide_##S##_ok(a, b);                           \
}                                                                            \
TITER_FAST_INLINE int titer_fast_divmod_##S##_ok(T a, T b) {                  \
    return titer_fast_floor_divide_##S##_ok(a, b);                           \
}
#define TITER_TRUNC_I64(q) ((int64_t)(q))
TITER_IDIV_FAST_DEFS(b, int8_t, uint8_t, INT8_MIN, 1, float, TITER_TRUNC_I32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(B, uint8_t, uint8_t, 0, 0, float, TITER_TRUNC_I32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(h, int16_t, uint16_t, INT16_MIN, 1, float, TITER_TRUNC_I32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(H, uint16_t, uint16_t, 0, 0, float, TITER_TRUNC_I32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(i, int32_t, uint32_t, INT32_MIN, 1, double, TITER_TRUNC_I32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(I, uint32_t, uint32_t, 0, 0, double, TITER_TRUNC_U32, TITER_IDIV_ANY)
TITER_IDIV_FAST_DEFS(l, int64_t, uint64_t, INT64_MIN, 1, double, TITER_TRUNC_I64,
                     TITER_IDIV_SIGNED_2_52)
TITER_IDIV_FAST_DEFS(L, uint64_t, uint64_t, 0, 0, double, TITER_TRUNC_I64, TITER_IDIV_UNSIGNED_2_52)
#define titer_int_pick(fn, x) _Generic((x), int8_t: fn##_b, uint8_t: fn##_B,         \
    int16_t: fn##_h, uint16_t: fn##_H, int32_t: fn##_i, uint32_t: fn##_I,             \
    int64_t: fn##_l, uint64_t: fn##_L)
#define titer_ifloordiv(a, b) titer_int_pick(titer_ifloordiv, a)((a), (b))
#define titer_iremainder(a, b) titer_int_pick(titer_iremainder, a)((a), (b))
#define titer_ifmod(a, b) titer_int_pick(titer_ifmod, a)((a), (b))
#define titer_idivmod(a, b, r) titer_int_pick(titer_idivmod, a)((a), (b), (r))
#define titer_ipow(a, b) titer_int_pick(titer_ipow, a)((a), (b))
#define titer_igcd(a, b) titer_int_pick(titer_igcd, a)((a), (b))
#define titer_ilcm(a, b) titer_int_pick(titer_ilcm, a)((a), (b))
#define titer_lshift(a, b) titer_int_pick(titer_lshift, a)((a), (b))
#define titer_rshift(a, b) titer_int_pick(titer_rshift, a)((a), (b))
#define titer_popcount(a) titer_int_pick(titer_popcount, a)(a)
/* set at import (_core.pyx) where the CPU has AVX512-VPOPCNTDQ and BITALG:
   the avx512 unit's bitwise_count loops then run their TITER_VPOPCNT_TARGET
   variants */
extern int titer_vpopcnt_enabled;
#define titer_ireciprocal(a) titer_int_pick(titer_ireciprocal, a)(a)
#define titer_clip_int(a, b, c) titer_int_pick(titer_clip_int, a)((a), (b), (c))

/* ---- complex functions (S: F/D, CT: struct, RT: part type, F: libm suffix) ----
 * libm's <complex.h> where NumPy calls it; NumPy's own formulas otherwise. */
#define TITER_CWRAP(name, S, CT, F, MK)                                       \
TITER_INLINE CT titer_c##name##_##S(CT x) {                                  \
    titer_z##S z = c##name##F(MK(x.re, x.im));                           \
    CT r; r.re = creal##F(z); r.im = cimag##F(z); return r;                  \
}
typedef float _Complex titer_zF;
typedef double _Complex titer_zD;
#define TITER_CPLX_DEFS(S, CT, RT, F, MK)                                     \
TITER_CWRAP(sqrt, S, CT, F, MK) TITER_CWRAP(log, S, CT, F, MK)               \
TITER_CWRAP(exp, S, CT, F, MK)                                               \
TITER_CWRAP(sin, S, CT, F, MK) TITER_CWRAP(cos, S, CT, F, MK)                \
TITER_CWRAP(tan, S, CT, F, MK) TITER_CWRAP(sinh, S, CT, F, MK)               \
TITER_CWRAP(cosh, S, CT, F, MK) TITER_CWRAP(tanh, S, CT, F, MK)              \
TITER_CWRAP(asin, S, CT, F, MK) TITER_CWRAP(acos, S, CT, F, MK)              \
TITER_CWRAP(atan, S, CT, F, MK) TITER_CWRAP(asinh, S, CT, F, MK)             \
TITER_CWRAP(acosh, S, CT, F, MK) TITER_CWRAP(atanh, S, CT, F, MK)            \
TITER_INLINE CT titer_cpack_##S(RT re, RT im) { CT r; r.re = re; r.im = im; return r; } \
TITER_INLINE CT titer_clog10_##S(CT x) {                                     \
    CT r = titer_clog_##S(x); r.re *= (RT)M_LOG10E; r.im *= (RT)M_LOG10E; return r; \
}                                                                            \
TITER_INLINE CT titer_clog2_##S(CT x) {                                      \
    CT r = titer_clog_##S(x); r.re *= (RT)M_LOG2E; r.im *= (RT)M_LOG2E; return r; \
}                                                                            \
TITER_INLINE CT titer_cexp2_##S(CT x) {                                      \
    return titer_cexp_##S(titer_cpack_##S(x.re * (RT)M_LN2, x.im * (RT)M_LN2)); \
}                                                                            \
TITER_INLINE CT titer_cexpm1_##S(CT x) {                                     \
    RT a = sin##F(x.im / 2);                                                 \
    return titer_cpack_##S(expm1##F(x.re) * cos##F(x.im) - 2 * a * a,        \
                           exp##F(x.re) * sin##F(x.im));                     \
}                                                                            \
TITER_INLINE CT titer_clog1p_##S(CT x) {                                     \
    RT l = hypot##F(x.re + 1, x.im);                                         \
    return titer_cpack_##S(log##F(l), atan2##F(x.im, x.re + 1));             \
}                                                                            \
TITER_INLINE CT titer_creciprocal_##S(CT x) {                                \
    if (fabs##F(x.im) <= fabs##F(x.re)) {                                    \
        RT r = x.im / x.re, d = x.re + x.im * r;                             \
        return titer_cpack_##S(1 / d, -r / d);                               \
    }                                                                        \
    RT r = x.re / x.im, d = x.re * r + x.im;                                 \
    return titer_cpack_##S(r / d, -1 / d);                                   \
}                                                                            \
TITER_INLINE CT titer_csign_##S(CT x) {                                      \
    RT m = hypot##F(x.re, x.im);                                             \
    if (isnan(m)) return titer_cpack_##S(NAN, NAN);                          \
    if (isinf(m)) {                                                          \
        if (isinf(x.re))                                                     \
            return isinf(x.im) ? titer_cpack_##S(NAN, NAN)                   \
                               : titer_cpack_##S(x.re > 0 ? 1 : -1, 0);      \
        return titer_cpack_##S(0, x.im > 0 ? 1 : -1);                        \
    }                                                                        \
    if (m == 0) return titer_cpack_##S(0, 0);                                \
    return titer_cpack_##S(x.re / m, x.im / m);                              \
}                                                                            \
TITER_INLINE CT titer_cmulp_##S(CT a, CT b) {                                \
    /* NOTE [no fused complex lanes] */                                       \
    return titer_cpack_##S(a.re * b.re + a.im * titer_neg(b.im),             \
                           a.re * b.im + a.im * b.re);                       \
}                                                                            \
TITER_INLINE CT titer_cdivp_##S(CT a, CT b) {                                \
    RT abr = fabs##F(b.re), abi = fabs##F(b.im), rat, scl;                   \
    if (abr >= abi) {                                                        \
        if (abr == 0 && abi == 0) return titer_cpack_##S(a.re / abr, a.im / abi); \
        rat = b.im / b.re; scl = (RT)1.0 / (b.re + b.im * rat);              \
        return titer_cpack_##S((a.re + a.im * rat) * scl,                    \
                               (a.im + a.re * titer_neg(rat)) * scl);        \
    }                                                                        \
    rat = b.re / b.im; scl = (RT)1.0 / (b.im + b.re * rat);                  \
    return titer_cpack_##S((a.re * rat + a.im) * scl,                        \
                           (a.im * rat + titer_neg(a.re)) * scl);            \
}                                                                            \
/* npy_cpow: exact small integer powers by squaring, cpow otherwise. */     \
TITER_INLINE CT titer_cpow_##S(CT a, CT b) {                                 \
    RT ar = a.re, ai = a.im, br = b.re, bi = b.im;                           \
    if (br == 0 && bi == 0) return titer_cpack_##S(1, 0);                    \
    if (ar == 0 && ai == 0) {                                                \
        if (br > 0) return titer_cpack_##S(0, 0);   /* NumPy 2: any Re(b) > 0 */ \
        titer_raise_fp(FE_INVALID);                                           \
        return titer_cpack_##S(NAN, NAN);                                    \
    }                                                                        \
    if (bi == 0 && br > -100 && br < 100 && (RT)(int64_t)br == br) {         \
        int64_t n = (int64_t)br, mask = 1;                                   \
        if (n == 1) return a;                                                \
        if (n == 2) return titer_cmulp_##S(a, a);                            \
        if (n == 3) return titer_cmulp_##S(a, titer_cmulp_##S(a, a));        \
        CT aa = titer_cpack_##S(1, 0), p = a;                                \
        if (n < 0) n = -n;                                                   \
        while (1) {                                                          \
            if (n & mask) aa = titer_cmulp_##S(aa, p);                       \
            mask <<= 1;                                                      \
            if (n < mask || mask <= 0) break;                                \
            p = titer_cmulp_##S(p, p);                                       \
        }                                                                    \
        if (br < 0) aa = titer_cdivp_##S(titer_cpack_##S(1, 0), aa);         \
        return aa;                                                           \
    }                                                                        \
    titer_z##S z = cpow##F(MK(ar, ai), MK(br, bi));                      \
    return titer_cpack_##S(creal##F(z), cimag##F(z));                        \
}
TITER_CPLX_DEFS(F, titer_cfloat, float, f, CMPLXF)
TITER_CPLX_DEFS(D, titer_cdouble, double, , CMPLX)
#define titer_cfn(fn, x) _Generic((x), titer_cfloat: titer_c##fn##_F, default: titer_c##fn##_D)(x)
#define titer_cfn2(fn, x, y) _Generic((x), titer_cfloat: titer_c##fn##_F, \
                                      default: titer_c##fn##_D)((x), (y))
#define titer_clip_complex(a, b, c) _Generic((a), titer_cfloat: titer_clip_complex_F, \
                                             default: titer_clip_complex_D)((a), (b), (c))

/* ---- fast paths (float32 exp/exp2/log/log10/tanh/sin/cos, float64
 * exp/log/sin/cos/tan/hypot, float32 through double and the exact float32
 * fmod family below them): branch-free, so loops vectorize ----
 * Each has a range test on the bits (no FP compares, so no flags) and a
 * polynomial (Cephes'; FreeBSD's for sin/cos and the float64 ones) within 1
 * ULP there (see each); a loop computes the fast
 * value for every element, then redoes the out-of-range ones (NaN, inf,
 * overflow, subnormals, zero, negatives) with libm, so special values and
 * FP flags are libm's. */
/* on the bits: signbit() stays a scalar call in GCC's vectorizer */
#define titer_signbit(x) _Generic((x), float: titer_signbit_f, default: titer_signbit_d)(x)
TITER_FAST_INLINE int titer_signbit_f(float x) { return (int)(titer_f2bits(x) >> 31); }
TITER_FAST_INLINE int titer_signbit_d(double x) { return (int)(titer_d2bits(x) >> 63); }
/* Selects on the bits (x where the mask is all ones, y where it is zero)
 * and blends on a 0/1 condition: the branch-free forms GCC if-converts and
 * vectorizes where `c ? x : y` on floats would stay scalar. */
#define TITER_PICK_BITS(m, x, y) (((x) & (m)) | ((y) & ~(m)))      /* any unsigned width */
#define titer_same_bits(x) (x)    /* the integer split loops' bit casts */
TITER_FAST_INLINE uint32_t titer_pick_f(uint32_t m, uint32_t x, uint32_t y) { return TITER_PICK_BITS(m, x, y); }
TITER_FAST_INLINE uint64_t titer_pick_d(uint64_t m, uint64_t x, uint64_t y) { return TITER_PICK_BITS(m, x, y); }
TITER_FAST_INLINE float titer_blend_f(int use_x, float x, float y) {
    return titer_bits2f(titer_pick_f(0u - (uint32_t)use_x, titer_f2bits(x), titer_f2bits(y)));
}
TITER_FAST_INLINE double titer_blend_d(int use_x, double x, double y) {
    return titer_bits2d(titer_pick_d(0 - (uint64_t)use_x, titer_d2bits(x), titer_d2bits(y)));
}

/* NumPy's complex clip: lexicographic order, NaN in the value propagates.
 * NOTE: every test runs, combined with | and &, and the picks are blends
 * on the bits: with || and ?: GCC branched on each, a coin toss on random
 * values, and the mispredictions took 14-18 ns an element. */
#define TITER_CLIP_COMPLEX(S, CT, s)                                              \
TITER_INLINE CT titer_clip_complex_##S(CT x, CT lo, CT hi) {                     \
    int keep_x = (x.re > lo.re) | ((x.re == lo.re) & (x.im > lo.im))             \
                 | (x.re != x.re) | (x.im != x.im);                              \
    CT r = titer_cpack_##S(titer_blend_##s(keep_x, x.re, lo.re),                 \
                           titer_blend_##s(keep_x, x.im, lo.im));                \
    int keep_r = (r.re < hi.re) | ((r.re == hi.re) & (r.im < hi.im))             \
                 | (r.re != r.re) | (r.im != r.im);                              \
    return titer_cpack_##S(titer_blend_##s(keep_r, r.re, hi.re),                 \
                           titer_blend_##s(keep_r, r.im, hi.im));                \
}
TITER_CLIP_COMPLEX(F, titer_cfloat, f)
TITER_CLIP_COMPLEX(D, titer_cdouble, d)

/* C's nextafter on the bits, branch-free so the loop vectorizes (glibc's is
 * a call with branches: 12 ns an element against 0.6 for float32 and 1.2 for
 * float64 here at AVX-512).  The same bits and flags as glibc's on 8e7
 * random, special and boundary pairs at each level: a NaN operand gives the
 * sum x + y (invalid where one is signaling), or y's payload quieted where
 * both are NaN, as glibc's loop returns; equal values give y; a step from a
 * finite value to inf overflows and one to a subnormal or zero underflows,
 * each raised by a product that does so only in that lane. */
#define TITER_NEXTAFTER(S, T, U, I, TOBITS, FROMBITS, SIGN, INF, QUIET)           \
TITER_INLINE T titer_nextafter_##S(T x, T y) {                                   \
    U bx = TOBITS(x), by = TOBITS(y), ax = bx & ~SIGN, ay = by & ~SIGN;           \
    U x_nan = 0 - (U)(ax > INF), y_nan = 0 - (U)(ay > INF), nan = x_nan | y_nan;  \
    U equal = 0 - (U)((bx == by) | ((ax | ay) == 0));                             \
    U down = 0 - (U)((bx & SIGN) ? (!(by & SIGN) | (ax > ay)) : ((I)bx > (I)by)); \
    U step = TITER_PICK_BITS(0 - (U)(ax == 0), (by & SIGN) | 1, bx + (down | 1)); \
    U nan_sum = TOBITS(FROMBITS(bx & nan) + FROMBITS(by & nan));                  \
    U nan_bits = TITER_PICK_BITS(x_nan & y_nan,                                   \
                                 TITER_PICK_BITS(y_nan, by, bx) | QUIET, nan_sum);\
    U moved = ~(nan | equal);                                                     \
    U to_inf = moved & (0 - (U)((step & ~SIGN) == INF));                          \
    U to_subnormal = moved & (0 - (U)((step & INF) == 0));                        \
    T big = FROMBITS(to_inf & (step - 1)), tiny = FROMBITS(to_subnormal & (step | 1)); \
    U ret = TITER_PICK_BITS(nan, nan_bits, TITER_PICK_BITS(equal, by, step));     \
    return FROMBITS(ret | (TOBITS(big * big) & INF) | TOBITS(tiny * tiny));       \
}
TITER_NEXTAFTER(f, float, uint32_t, int32_t, titer_f2bits, titer_bits2f,
                0x80000000u, 0x7f800000u, 0x00400000u)
TITER_NEXTAFTER(d, double, uint64_t, int64_t, titer_d2bits, titer_bits2d,
                0x8000000000000000ull, 0x7ff0000000000000ull, 0x0008000000000000ull)
#define titer_nextafter(a, b) titer_real_pick(titer_nextafter, a)((a), (b))

/* ldexp, frexp and modf on the bits, branch-free so their loops vectorize
 * (libm's are calls; NumPy's AVX-512 loops are vector code); the values are
 * libm's, as are the flags:
 * - ldexp(x, n) scales in steps as musl's scalbn does: by 2^EMAX up to
 *   twice while n > EMAX, by a DOWN that keeps the result normal up to twice
 *   while n < EMIN, then once by 2^n: only that last product rounds (its
 *   overflow / underflow are libm's), every other is exact;
 * - frexp(x): a subnormal is scaled to a normal first (exact); zero, inf and
 *   NaN give x and exponent 0.  A signalling NaN raises invalid where
 *   NumPy's loop is libm's frexp (x + x) and nothing where NumPy runs its
 *   AVX-512 loop (masked vgetexp): the AVX-512 unit scales the specials as
 *   0 (TITER_FREXP_QUIET), the others as themselves (titer_frexp_libm at
 *   every level: float16's, as NumPy's goes through libm's frexpf);
 * - modf(x): x - trunc(x) is exact; the sign of x on the fraction (-0 for a
 *   negative integer), 0 for an infinite x (the subtraction sees 0 - 0). */
#if defined(__AVX512F__)
#define TITER_FREXP_QUIET (~(uint64_t)0)
#else
#define TITER_FREXP_QUIET ((uint64_t)0)
#endif
#define TITER_EXPONENT_DEFS(S, T, UI, TOBITS, FROMBITS, TRUNC, MANT, BIAS, DOWN, DOWN_STEP) \
TITER_FAST_INLINE T titer_ldexp_##S(T x, int n) {                               \
    const int32_t emax = BIAS, emin = 1 - BIAS;                               \
    int32_t k = n;                                                           \
    for (int step = 0; step < 2; step++) {          /* unrolled; no branch */ \
        int32_t up = k > emax;                                               \
        x = x * titer_blend_##S(up, FROMBITS((UI)(2 * BIAS) << MANT), (T)1); \
        k -= emax & -up;                                                     \
    }                                                                        \
    for (int step = 0; step < 2; step++) {                                   \
        int32_t down = k < emin;                                             \
        x = x * titer_blend_##S(down, (T)(DOWN), (T)1);                      \
        k += (DOWN_STEP) & -down;                                            \
    }                                                                        \
    k = k > emax ? emax : k < emin ? emin : k;                               \
    return x * FROMBITS((UI)(k + BIAS) << MANT);                             \
}                                                                            \
TITER_FAST_INLINE T titer_frexp_as_##S(T x, int *exponent, UI quiet) {          \
    const UI sign = (UI)1 << (sizeof(UI) * 8 - 1), field = ((UI)2 * BIAS + 1) << MANT; \
    UI a = TOBITS(x) & ~sign;                                                \
    UI special = (UI)0 - (UI)((a == 0) | (a >= field));                       \
    int32_t tiny = a < ((UI)1 << MANT);                     /* subnormal, 0 */ \
    T scaled = FROMBITS(TOBITS(x) & ~(special & quiet));                      \
    UI u = TOBITS(scaled * titer_blend_##S(tiny, FROMBITS((UI)(BIAS + MANT + 2) << MANT), (T)1)); \
    int32_t e = (int32_t)((u & field) >> MANT) - (BIAS - 1) - ((MANT + 2) & -tiny); \
    *exponent = e & ~(int32_t)special;                                       \
    return FROMBITS(TITER_PICK_BITS(special, TOBITS(x),                       \
                                    (u & ~field) | ((UI)(BIAS - 1) << MANT))); \
}                                                                            \
TITER_FAST_INLINE T titer_frexp_##S(T x, int *exponent) {                     \
    return titer_frexp_as_##S(x, exponent, (UI)TITER_FREXP_QUIET);            \
}                                                                            \
TITER_FAST_INLINE T titer_frexp_libm_##S(T x, int *exponent) {                \
    return titer_frexp_as_##S(x, exponent, 0);                                \
}                                                                            \
TITER_FAST_INLINE T titer_modf_##S(T x, T *integral) {                        \
    const UI sign = (UI)1 << (sizeof(UI) * 8 - 1), field = ((UI)2 * BIAS + 1) << MANT; \
    T t = TRUNC(x);                                                          \
    UI finite = (UI)0 - (UI)((TOBITS(x) & ~sign) != field);   /* not +-inf */ \
    T fraction = FROMBITS(TOBITS(x) & finite) - FROMBITS(TOBITS(t) & finite); \
    *integral = t;                                                           \
    return FROMBITS((TOBITS(fraction) & ~sign) | (TOBITS(x) & sign));        \
}
TITER_EXPONENT_DEFS(f, float, uint32_t, titer_f2bits, titer_bits2f, truncf, 23, 127,
                    0x1p-102f, 102)
TITER_EXPONENT_DEFS(d, double, uint64_t, titer_d2bits, titer_bits2d, trunc, 52, 1023,
                    0x1p-969, 969)
#define titer_ldexp(x, n) _Generic((x), float: titer_ldexp_f, default: titer_ldexp_d)((x), (n))
#define titer_frexp(x, e) _Generic((x), float: titer_frexp_f, default: titer_frexp_d)((x), (e))
/* libm's frexp at every level, signalling NaN included: NumPy's float16
 * frexp is libm's frexpf on the widened value */
#define titer_frexp_libm(x, e) \
    _Generic((x), float: titer_frexp_libm_f, default: titer_frexp_libm_d)((x), (e))
#define titer_modf(x, i) _Generic((x), float: titer_modf_f, default: titer_modf_d)((x), (i))

/* |z| as NumPy's SIMD loop computes it: larger * sqrt(1 + ratio^2), with
 * inf winning over nan (a positive quiet nan).  On the bits, so the loops
 * vectorize and raise nothing: integer compares order the magnitudes, inf
 * and nan parts become 0 before the arithmetic, their answer is picked
 * after; a zero larger part divides by 1 (0 / 1 = 0). */
#define TITER_CABS(S, T, UI, SI, TOBITS, FROMBITS, SQRT, INF_BITS, NAN_BITS)   \
TITER_FAST_INLINE T titer_cabs_##S(T re, T im) {                              \
    UI rb = TOBITS(re) & (~(UI)0 >> 1), ib = TOBITS(im) & (~(UI)0 >> 1);      \
    UI any_inf = (UI)0 - (UI)((rb == (INF_BITS)) | (ib == (INF_BITS)));       \
    UI finite = (UI)0 - (UI)(((SI)rb < (SI)(INF_BITS)) & ((SI)ib < (SI)(INF_BITS))); \
    rb &= finite; ib &= finite;                                               \
    UI r_bigger = (UI)0 - (UI)((SI)rb > (SI)ib);                              \
    UI big = TITER_PICK_BITS(r_bigger, rb, ib), small = TITER_PICK_BITS(r_bigger, ib, rb); \
    T divisor = FROMBITS(TITER_PICK_BITS((UI)0 - (UI)(big == 0), TOBITS((T)1), big)); \
    T ratio = FROMBITS(small) / divisor;                                      \
    T r = SQRT(titer_muladd(ratio, ratio, (T)1)) * FROMBITS(big);             \
    return FROMBITS(TITER_PICK_BITS(finite, TOBITS(r),                        \
                                    TITER_PICK_BITS(any_inf, (UI)(INF_BITS), (UI)(NAN_BITS)))); \
}
TITER_CABS(f, float, uint32_t, int32_t, titer_f2bits, titer_bits2f, sqrtf, 0x7f800000u, 0x7fc00000u)
TITER_CABS(d, double, uint64_t, int64_t, titer_d2bits, titer_bits2d, sqrt, 0x7ff0000000000000ull,
           0x7ff8000000000000ull)

/* sin or cos from the kernels' s and c by the quadrant n of the reduction
 * (c where n is odd, negated where n & 2): on the bits, so loops vectorize */
TITER_FAST_INLINE double titer_quadrant_pick(double s, double c, uint64_t n) {
    uint64_t odd = 0 - (n & 1);
    return titer_bits2d(((titer_d2bits(c) & odd) | (titer_d2bits(s) & ~odd)) ^ ((n & 2) << 62));
}

/* a * b + c in the vectorized kernels' polynomials: one rounding in the
 * instruction-set units, whose loops calling them are built with FMA
 * (TITER_FAST_FMA, _codegen._FMA_FAST), two in the baseline build; each
 * kernel's bound holds for both. */
#ifdef TITER_ISA
#define titer_poly_fma(a, b, c) _Generic((a), float: __builtin_fmaf, default: __builtin_fma)((a), (b), (c))
#else
#define titer_poly_fma(a, b, c) ((a) * (b) + (c))
#endif

/* e^r - 1 for |r| <= ln2 / 2: r + r^2 P(r), Cephes' expf polynomial, whose
 * exact r and r^2 / 2 keep it accurate relative to e^r - 1 itself as r
 * nears 0 (no 1 added yet).  The float exp core: exp and exp2 add the 1,
 * the tanh and cosh paths scale it by 2^n and add 2^n + 1 or 2^n. */
TITER_FAST_INLINE float titer_expm1f_poly(float r) {
    float p = 1.9875691500E-4f;
    p = titer_poly_fma(p, r, 1.3981999507E-3f);
    p = titer_poly_fma(p, r, 8.3334519073E-3f);
    p = titer_poly_fma(p, r, 4.1665795894E-2f);
    p = titer_poly_fma(p, r, 1.6666665459E-1f);
    p = titer_poly_fma(p, r, 5.0000001201E-1f);
    return titer_poly_fma(p, r * r, r);
}

/* rint(x * scale) for the float exp reductions, with 2^(rint + bias - 127)
 * in its bits: k = x scale + 1.5 * 2^23 + bias holds rint + bias in its
 * low mantissa bits (k in [2^23, 2^24), whose ulp is 1), so k << 23 is that
 * power of two's bit pattern.  bias + rint must lie in [1, 254]. */
#define TITER_EXPF_MAGIC 12582912.0f                               /* 1.5 * 2^23 */
TITER_FAST_INLINE float titer_expf_reduce(float x, float scale, float bias, float *pow2) {
    float k = titer_poly_fma(x, scale, TITER_EXPF_MAGIC + bias);
    *pow2 = titer_bits2f(titer_f2bits(k) << 23);
    return k - (TITER_EXPF_MAGIC + bias);
}

TITER_FAST_INLINE int titer_fast_expf_ok(float x) {
    return (titer_f2bits(x) & 0x7fffffffu) < 0x42ae0000u;      /* |x| < 87 */
}
/* n and 2^n from one product-sum (titer_expf_reduce), r by two more: 14
 * operations a vector where the separate rint, product and shift took 19
 * (0.20 -> 0.15 ns an element in cache on one AVX-512 thread).  Within 1
 * ULP of the correctly rounded exp on every float32 with |x| < 87, with FMA
 * and without (tools/fast_f32_ulps.c). */
TITER_FAST_INLINE float titer_fast_expf(float x) {
    float pow2;
    float n = titer_expf_reduce(x, 1.44269504088896341f, 127.0f, &pow2);
    float r = titer_poly_fma(n, -0.693359375f, x);     /* ln 2 in two parts */
    r = titer_poly_fma(n, 2.12194440e-4f, r);
    return (titer_expm1f_poly(r) + 1.0f) * pow2;
}

/* log in float: x = 2^e (1 + m), 1 + m in [sqrt(2)/2, sqrt(2)) (Cephes'
 * logf's steps), log(1 + m) = m - m^2/2 + m^3 P(m) with P of degree 7 (a
 * weighted least-squares fit, Lawson's iteration, of (log(1 + m) - m +
 * m^2/2) / m^3: relative error 2^-27 with float coefficients), e ln 2 in two
 * parts; the Horner steps fused in the instruction-set units
 * (TITER_FAST_FMA).  Within 1 ULP of the float64 log rounded to float32 on
 * every positive normal float32, with FMA and without (checked
 * exhaustively). */
TITER_FAST_INLINE int titer_fast_logf_ok(float x) {
    uint32_t u = titer_f2bits(x);
    return u - 0x00800000u < 0x7f000000u;        /* normal, positive, finite */
}
TITER_FAST_INLINE float titer_fast_logf(float x) {
    uint32_t u = titer_f2bits(x);
    int32_t e = (int32_t)(u >> 23) - 126;        /* x = m * 2^e, m in [0.5, 1) */
    float m = titer_bits2f((u & 0x007fffffu) | 0x3f000000u);
    int32_t small = m < 0.707106781186547524f;  /* then x = 2m * 2^(e - 1) */
    e -= small;
    m = m + titer_bits2f(titer_f2bits(m) & (0u - (uint32_t)small)) - 1.0f;
    float z = m * m;
    float y = -0.07634344f;
    y = titer_poly_fma(y, m, 0.12761515f);
    y = titer_poly_fma(y, m, -0.13160211f);
    y = titer_poly_fma(y, m, 0.14201768f);
    y = titer_poly_fma(y, m, -0.16623355f);
    y = titer_poly_fma(y, m, 0.20001227f);
    y = titer_poly_fma(y, m, -0.25000823f);
    y = titer_poly_fma(y, m, 0.3333333f);
    y = y * m * z;
    float fe = (float)e;
    y = titer_poly_fma(-2.12194440e-4f, fe, y);
    y = titer_poly_fma(-0.5f, z, y);
    return titer_poly_fma(0.693359375f, fe, m + y);
}

/* exp2: titer_vexp2f.h (titer_fast_exp2f, included below) */

/* tanh: Cephes' odd polynomial below |x| = 0.625 (the select compares x^2,
 * which the polynomial needs anyway, with 0.625^2); above, 1 - 2 / (e^2|x|
 * + 1) with e^2|x| = 2^n (1 + p), p = e^r - 1 (titer_expm1f_poly), so the
 * divisor 2^n p + (2^n + 1) is one fused multiply-add (2^n + 1 exact for n
 * < 24, past which 2 / divisor is below half an ulp of 1 anyway).  n =
 * rint(2|x| / ln 2), r = 2(|x| - n ln2/2) with ln2/2 rounded to float: n ln2
 * loses at most 2^-29 n relative in r, and the result is 1 from |x| = 9.1
 * on.  One exp and one division, all in float (16 lanes at AVX-512).
 * Within 1 ULP of the correctly rounded tanh on every float32 in range, with
 * FMA and without (checked exhaustively against double tanh).  Out of
 * range: |x| < 2^-12 (tanh(x) is x to the last bits; libm raises underflow
 * for the subnormals), |x| >= 43, NaN, inf. */
TITER_FAST_INLINE int titer_fast_tanhf_ok(float x) {
    return (titer_f2bits(x) & 0x7fffffffu) - 0x39800000u < 0x422c0000u - 0x39800000u;
}
TITER_FAST_INLINE float titer_fast_tanhf(float x) {
    uint32_t sign = titer_f2bits(x) & 0x80000000u;
    float ax = titer_bits2f(titer_f2bits(x) ^ sign);
    float scale;                                                      /* 2^n */
    float n = titer_expf_reduce(ax, 2.88539008177792682f, 127.0f, &scale);
    float r = 2.0f * titer_poly_fma(n, -0.346573591f, ax);
    float big = 1.0f - 2.0f / titer_poly_fma(scale, titer_expm1f_poly(r), scale + 1.0f);
    float z = x * x;
    float p = -5.70498872745E-3f;
    p = titer_poly_fma(p, z, 2.06390887954E-2f);
    p = titer_poly_fma(p, z, -5.37397155531E-2f);
    p = titer_poly_fma(p, z, 1.33314422036E-1f);
    p = titer_poly_fma(p, z, -3.33332819422E-1f);
    float small = titer_poly_fma(p, z * ax, ax);
    uint32_t use_big = 0u - (uint32_t)(z >= 0.390625f);
    return titer_bits2f(TITER_PICK_BITS(use_big, titer_f2bits(big), titer_f2bits(small)) | sign);
}

/* sin and cos: x reduced by pi/2 in double (q = rint(x 2/pi), pi/2 in a
 * 33-bit head, so q * head is exact for |x| < 2^20, and a tail), then the
 * double kernels of FreeBSD's k_sinf.c / k_cosf.c on |r| <= pi/4, the
 * quadrant picking one and its sign.  Within 1 ULP of the correctly rounded
 * result on every float32 with 2^-126 <= |x| < 2^20 (checked exhaustively
 * against double sin/cos).  The quadrant is read from the low bits of the
 * rounding constant's sum, since AVX2 has no vector double -> int64. */
TITER_FAST_INLINE int titer_fast_sincosf_ok(float x) {
    return (titer_f2bits(x) & 0x7fffffffu) - 0x00800000u < 0x49800000u - 0x00800000u;
}
/* x = q pi/2 + r: the double kernels' sin r and cos r into *s and *c, and
 * the quadrant n (q in the low bits) returned */
TITER_FAST_INLINE uint64_t titer_sincosf_kernels(float xf, double *s, double *c) {
    double x = xf;
    double big = x * 6.36619772367581382433e-01 + 6755399441055744.0;      /* 1.5 * 2^52 */
    double q = big - 6755399441055744.0;
    double r = (x - q * 1.57079631090164184570e+00) - q * 1.58932547735281966916e-08;
    double z = r * r, w = z * z;
    *s = (r + (z * r) * (-0x15555554cbac77.0p-55 + z * 0x111110896efbb2.0p-59))
         + (z * r) * w * (-0x1a00f9e2cae774.0p-65 + z * 0x16cd878c3b46a7.0p-71);
    *c = ((1.0 + z * -0x1ffffffd0c5e81.0p-54) + w * 0x155553e1053a42.0p-57)
         + (w * z) * (-0x16c087e80f1e27.0p-62 + z * 0x199342e0ee5069.0p-68);
    return titer_d2bits(big);
}
TITER_FAST_INLINE float titer_sincosf_quadrant(float x, uint64_t shift) {   /* shift 0: sin, 1: cos */
    double s, c;
    uint64_t n = titer_sincosf_kernels(x, &s, &c);
    return (float)titer_quadrant_pick(s, c, n + shift);
}
#define titer_fast_sinf_ok titer_fast_sincosf_ok
#define titer_fast_cosf_ok titer_fast_sincosf_ok
TITER_FAST_INLINE float titer_fast_sinf(float x) { return titer_sincosf_quadrant(x, 0); }
TITER_FAST_INLINE float titer_fast_cosf(float x) { return titer_sincosf_quadrant(x, 1); }

#include "titer_vexp.h"    /* float64 exp, exp2, expm1: titer_fast_exp, ... */
#include "titer_vpowf.h"   /* float32 power by tables at AVX-512: titer_vpowf16, ... */
#include "titer_vpow.h"    /* float64 power by tables at AVX-512: titer_vpow8, ... */

/* float64 arcsin, division-free: for a = |x| <= 1/2, a + a z P(z) with
 * z = a^2; above, pi/2 - 2 asin(s) with z = (1 - a)/2 (exact) and
 * s = sqrt(z), s's rounding error ds = (z - s^2) / 2s kept (the residual
 * exact with FMA; the quotient in float, or by vrcp14 at AVX-512, ds being
 * 2^-53 of s), so
 * asin(s) = s + (ds + s z P(z)), and pi/2 in a head and a tail.  P is a
 * degree-11 least-squares fit (tools/fit_asin.py) of (asin(a) - a) / a^3
 * in z on [0, 1/4] (relative error below 2^-55 for asin).  Within 1.6 ULP
 * of the correctly
 * rounded result with FMA, 1.8 without (near |x| = 0.84, where pi/2 - 2s
 * rounds).  Range: 2^-26 <= |x| < 1. */
#define TITER_ARCSIN_OK(b) (((b) & 0x7fffffffffffffffull) - 0x3e50000000000000ull \
                            < 0x3ff0000000000000ull - 0x3e50000000000000ull)   /* on the bits */
TITER_FAST_INLINE int titer_fast_arcsin_ok(double x) { return TITER_ARCSIN_OK(titer_d2bits(x)); }
/* The kernel for a form V (VB its 64-bit lanes; FMA, C, TOBITS, FROMBITS,
 * MASK as in titer_vexp.h; SQRT; RCP a reciprocal good to 2^-14 or better:
 * ds needs few bits) of x into `result`. */
#define TITER_ARCSIN_KERNEL(V, VB, FMA, C, TOBITS, FROMBITS, MASK, SQRT, RCP, x, result) \
    V a = FROMBITS(TOBITS(x) & 0x7fffffffffffffffull);                                \
    VB big = MASK(a > C(0.5));                                                        \
    V z = FROMBITS(TITER_PICK_BITS(big, TOBITS((C(1.0) - a) * C(0.5)), TOBITS(a * a))); \
    V s = FROMBITS(TITER_PICK_BITS(big, TOBITS(SQRT(z)), TOBITS(a)));                 \
    V residual = FROMBITS(TOBITS(FMA(-s, s, z)) & big);                               \
    V ds = residual * (C(0.5) * RCP(FROMBITS(TITER_PICK_BITS(big, TOBITS(s), TOBITS(C(1.0)))))); \
    V p = C(0x1.04a3dcd3a4775p-5);                                                    \
    p = FMA(p, z, C(-0x1.077fa9c6b5c39p-6));                                          \
    p = FMA(p, z, C(0x1.3e74e72280f15p-6));                                           \
    p = FMA(p, z, C(0x1.ae0583de338f2p-8));                                           \
    p = FMA(p, z, C(0x1.8e811cabd59bdp-7));                                           \
    p = FMA(p, z, C(0x1.c707cf8385226p-7));                                           \
    p = FMA(p, z, C(0x1.1c6b5ff70df4ap-6));                                           \
    p = FMA(p, z, C(0x1.6e89fcb7c8c7bp-6));                                           \
    p = FMA(p, z, C(0x1.f1c72be19800ap-6));                                           \
    p = FMA(p, z, C(0x1.6db6db43779ccp-5));                                           \
    p = FMA(p, z, C(0x1.333333336d2d2p-4));                                           \
    p = FMA(p, z, C(0x1.5555555555398p-3));                                           \
    V correction = FMA(s * z, p, ds);                                                 \
    V small = s + correction;                                                         \
    V large = (C(1.57079632679489655800e+00) - C(2.0) * s)                            \
              + (C(6.12323399573676603587e-17) - C(2.0) * correction);                \
    V result = FROMBITS(TITER_PICK_BITS(big, TOBITS(large), TOBITS(small))            \
                        | (TOBITS(x) & 0x8000000000000000ull));
#ifdef TITER_HAVE_VFAST_D
/* the 8-lane form's vrcp14 (titer_vexp.h): the scalar twin gives its bits */
#define TITER_ARCSIN_RCP TITER_RCP14_SD
#else
#define TITER_ARCSIN_RCP(d) ((double)(1.0f / (float)(d)))
#endif
TITER_FAST_INLINE double titer_fast_arcsin(double x) {
    TITER_ARCSIN_KERNEL(double, uint64_t, titer_poly_fma, TITER_SCALAR_C, titer_d2bits,
                        titer_bits2d, TITER_SCALAR_MASK64, sqrt, TITER_ARCSIN_RCP, x, result)
    return result;
}
#ifdef TITER_HAVE_VFAST_D
/* its 8-lane form (TITER_VEC_LOOP_D8, _codegen._VECTOR_FORMS): vsqrtpd
 * and vrcp14pd, no division.  The split loop's vectorization of the scalar
 * kernel ran a vdivps beside each vsqrtpd, both on the one divider. */
TITER_FAST_INLINE titer_v8d titer_vfast_arcsin(titer_v8d x) {
    TITER_ARCSIN_KERNEL(titer_v8d, titer_v8u, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS,
                        TITER_V8_FROMBITS, TITER_V8_MASK, TITER_V8_SQRT, TITER_V8_RCP14, x, result)
    return result;
}
#define titer_vfast_arcsin_ok(b) ((titer_v8u)TITER_ARCSIN_OK(b))
#endif

/* float64 log: FreeBSD's e_log.c without its branches: x = 2^k (1 + f)
 * with 1 + f in [sqrt(2)/2, sqrt(2)) split on the bits, s = f / (2 + f), the
 * polynomial R(s^2), and k ln 2 in two parts; k becomes a double through the
 * 2^52 constant (AVX2 has no vector int64 -> double).  Within 1 ULP of
 * glibc's log on 1e8 random normal inputs (97% the same bits). */
TITER_FAST_INLINE int titer_fast_log_ok(double x) {
    return titer_d2bits(x) - 0x0010000000000000ull
           < 0x7ff0000000000000ull - 0x0010000000000000ull;        /* normal, positive, finite */
}
TITER_FAST_INLINE double titer_fast_log(double x) {
    uint64_t ix = titer_d2bits(x);
    uint64_t hx = (ix >> 32) + (0x3ff00000u - 0x3fe6a09eu);
    double k = titer_bits2d(((hx >> 20) + 1) | 0x4330000000000000ull) - 4503599627371520.0;
    hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
    double f = titer_bits2d((hx << 32) | (ix & 0xffffffffull)) - 1.0;
    double hfsq = 0.5 * f * f;
    double s = f / (2.0 + f);
    double z = s * s;
    double w = z * z;
    double r = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
                    + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)))
               + w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01
                      + w * 1.531383769920937332e-01));
    return k * 6.93147180369123816490e-01
           - ((hfsq - (s * (hfsq + r) + k * 1.90821492927058770002e-10)) - f);
}

#include "titer_vlog.h"    /* float64 log by tables at AVX-512: titer_vfast_log */

/* float32 log10 and log2: the float64 log above, scaled in double and
 * rounded once to float32; its error is far below half a float32 ULP, so the
 * result is within 1 ULP of the correctly rounded one (exact powers of 10
 * and 2 come out exact).  glibc's log10f and log2f are scalar calls.
 * Range: normal positive finite. */
#define titer_fast_log10f_ok titer_fast_logf_ok
TITER_FAST_INLINE float titer_fast_log10f(float x) {
    return (float)(titer_fast_log((double)x) * 0.434294481903251827651);
}
#define titer_fast_log2f_ok titer_fast_logf_ok
TITER_FAST_INLINE float titer_fast_log2f(float x) {
    return (float)(titer_fast_log((double)x) * 1.44269504088896340736);
}

/* float64 sin and cos: FreeBSD's e_rem_pio2.c medium-size reduction, both
 * of its first two rounds always (pi/2 to 118 bits; each q * part exact for
 * |x| < 2^20), giving r = y0 + y1, then its k_sin.c / k_cos.c kernels, the
 * quadrant picking one and its sign.  Within 1 ULP of glibc on 5e7 random
 * inputs with 2^-26 <= |x| < 2^19 (97.7% the same bits); below 2^-26 y0 * y0
 * could underflow. */
TITER_FAST_INLINE int titer_fast_sincos_ok(double x) {
    return (titer_d2bits(x) & 0x7fffffffffffffffull) - 0x3e50000000000000ull
           < 0x4120000000000000ull - 0x3e50000000000000ull;     /* 2^-26 <= |x| < 2^19 */
}
TITER_FAST_INLINE double titer_sincos_quadrant(double x, uint64_t shift) {  /* shift 0: sin, 1: cos */
    double big = x * 6.36619772367581382433e-01 + 6755399441055744.0;
    double q = big - 6755399441055744.0;
    double t = x - q * 1.57079632673412561417e+00;
    double w = q * 6.07710050630396597660e-11;
    double r = t - w;
    w = q * 2.02226624879595063154e-21 - ((t - r) - w);
    double y0 = r - w;
    double y1 = (r - y0) - w;
    uint64_t n = titer_d2bits(big) + shift;
    double z = y0 * y0, zz = z * z;
    double ps = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
                + z * 2.75573137070700676789e-06)
                + z * zz * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10);
    double v = z * y0;
    double s = y0 - ((z * (0.5 * y1 - v * ps) - y1) - v * -1.66666666666666324348e-01);
    double pc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
                + z * 2.48015872894767294178e-05))
                + zz * zz * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09
                + z * -1.13596475577881948265e-11));
    double hz = 0.5 * z, one_hz = 1.0 - hz;
    double c = one_hz + (((1.0 - one_hz) - hz) + (z * pc - y0 * y1));
    return titer_quadrant_pick(s, c, n);
}
#define titer_fast_sin_ok titer_fast_sincos_ok
#define titer_fast_cos_ok titer_fast_sincos_ok
TITER_FAST_INLINE double titer_fast_sin(double x) { return titer_sincos_quadrant(x, 0); }
TITER_FAST_INLINE double titer_fast_cos(double x) { return titer_sincos_quadrant(x, 1); }

/* float64 tan: x = q pi/2 + r with |r| <= pi/4 as y0 + y1 (|y1| within an
 * ULP of y0), tan(r) = y0 + y0 z P(z) + y1 (1 + tan^2 y0) with z = y0^2, as
 * a head th and its rounding error tl (one FMA each, y0 - th exact), and
 * for odd q, -1 / (th + tl) = -d (1 + e) with d = 1 / th rounded and
 * e = 1 - (th + tl) d (1 - th d exact): the reciprocal's rounding is
 * corrected, so both quadrants round about once.  P: degree 14, fitted by
 * tools/fit_tan.py (tan's relative error 2^-58 on |r| <= pi/4); its two
 * lowest terms in Horner's form (they carry the sum's rounding), the rest
 * as two Horner chains in z^2 (even and odd powers), whose shorter
 * dependency chain keeps more loop iterations in flight (about 10% faster
 * at avx512 than one chain or Estrin's form).  The reduction keeps r's relative
 * precision down to the |r| = 2^-60.5 of the doubles nearest q pi/2 in the
 * range: with FMA, pi/2 in three 53-bit parts (x - q part1 exact, q part2
 * as an exact pair); without, in 33-bit parts (each q * part exact) over
 * three rounds, the sin/cos reduction's two plus one.  Within 0.99 ULP of
 * the correctly rounded result with FMA (the avx2 and avx512 builds), 1.11
 * without, on 1.2e7 inputs (uniform, log-uniform over the range, near
 * multiples of pi/2 and of pi/4).  Range: 2^-26 <= |x| < 2^20 (q < 2^20);
 * below, glibc's x + tiny.  Out-of-range elements reach the kernel as 0:
 * even q, so it divides 1 by 1 and raises nothing. */
TITER_FAST_INLINE int titer_fast_tan_ok(double x) {
    return (titer_d2bits(x) & 0x7fffffffffffffffull) - 0x3e50000000000000ull
           < 0x4130000000000000ull - 0x3e50000000000000ull;     /* 2^-26 <= |x| < 2^20 */
}
/* 1 - a b exactly where that is representable (b the rounded 1 / a):
 * one FMA, or Dekker's product of the two halves of each (Veltkamp's
 * split by 2^27 + 1) */
TITER_FAST_INLINE double titer_one_minus_product(double a, double b) {
#ifdef TITER_ISA
    return titer_poly_fma(-a, b, 1.0);
#else
    double ac = a * 134217729.0, bc = b * 134217729.0;
    double ah = a - ac + ac, al = a - ah, bh = b - bc + bc, bl = b - bh;
    return (((1.0 - ah * bh) - ah * bl) - al * bh) - al * bl;
#endif
}
TITER_FAST_INLINE double titer_fast_tan(double x) {
    double big = titer_poly_fma(x, 6.36619772367581382433e-01, 6755399441055744.0);
    double q = big - 6755399441055744.0;
#ifdef TITER_ISA
    /* exact: a multiple of 2^-53 below 1 (x >= pi/4 where q != 0) */
    double t = titer_poly_fma(-q, 0x1.921fb54442d18p+0, x);
    double w = q * 0x1.1a62633145c07p-54;
    double w_err = titer_poly_fma(q, 0x1.1a62633145c07p-54, -w);         /* exact */
    /* exact where |t| >= |w|; below, t - w loses at most w's last bit, and
     * y0 - t is then exact */
    double y0 = t - w, y0_err = (t - y0) - w;
    double y1 = titer_poly_fma(-q, -0x1.f1976b7ed8fbcp-110, y0_err - w_err);
#else
    double t = x - q * 0x1.921fb544p+0;                                  /* exact */
    double w2 = q * 0x1.0b4611a6p-34, w3 = q * 0x1.3198a2ep-69;          /* exact */
    double r = t - w2, r_err = (t - r) - w2;                             /* exact */
    double y0 = r - w3, y0_err = (r - y0) - w3;                          /* exact */
    double y1 = (r_err + y0_err) - q * 0x1.b839a252049c1p-104;
#endif
    double z = y0 * y0, z2 = z * z;
    double p_even = 0x1.3dbc399430432p-17, p_odd = -0x1.7d71b4900d9dcp-16;
    p_even = titer_poly_fma(p_even, z2, 0x1.7cdc110c91fa7p-15);
    p_even = titer_poly_fma(p_even, z2, 0x1.0bd677e67abccp-14);
    p_even = titer_poly_fma(p_even, z2, 0x1.fd7b329fd9db6p-13);
    p_even = titer_poly_fma(p_even, z2, 0x1.7dae029ee0d26p-10);
    p_even = titer_poly_fma(p_even, z2, 0x1.226e38a376298p-7);
    p_even = titer_poly_fma(p_even, z2, 0x1.ba1ba1ba633a3p-5);
    p_odd = titer_poly_fma(p_odd, z2, -0x1.6a1b0b298e1fap-16);
    p_odd = titer_poly_fma(p_odd, z2, 0x1.66a8893040055p-14);
    p_odd = titer_poly_fma(p_odd, z2, 0x1.34dcd25a2fb14p-11);
    p_odd = titer_poly_fma(p_odd, z2, 0x1.d6d32dbace423p-9);
    p_odd = titer_poly_fma(p_odd, z2, 0x1.664f486df0986p-6);
    double high = titer_poly_fma(p_odd, z, p_even);
    double p = titer_poly_fma(titer_poly_fma(high, z, 0x1.1111111110e1cp-3), z,
                              0x1.5555555555555p-2);
    double y0z = y0 * z;
#ifdef TITER_ISA
    double th = titer_poly_fma(y0z, p, y0);
    double tl = titer_poly_fma(y0z, p, y0 - th);          /* th's rounding error */
#else
    double c = y0z * p;
    double th = y0 + c;
    double tl = (y0 - th) + c;
#endif
    tl = titer_poly_fma(y1, titer_poly_fma(th, th, 1.0), tl);       /* tan' = 1 + tan^2 */
    uint64_t odd = 0 - (titer_d2bits(big) & 1);
    double den = titer_bits2d(titer_pick_d(odd, titer_d2bits(th), titer_d2bits(1.0)));
    double d = 1.0 / den;
    double e = titer_poly_fma(-tl, d, titer_one_minus_product(den, d));
    double cot = titer_poly_fma(-d, e, -d);                            /* -1 / (th + tl) */
    return titer_bits2d(titer_pick_d(odd, titer_d2bits(cot), titer_d2bits(th + tl)));
}

/* ---- float32 through double: expm1 (in float with FMA), log1p, tan, cbrt,
 * arcsinh, arccosh, arctanh, arctan, arcsin, arccos (sinh and cosh in
 * float) ----
 * Each is a formula in double on the double paths above (exp, log, the sin
 * and cos kernels, atan below) whose error is far below half a float32 ULP,
 * rounded once to float32: within 1 ULP of the correctly rounded result on
 * every float32 in range (checked exhaustively against double libm).  Where
 * a formula cancels near zero a short Taylor series in double takes over
 * below 2^-9, picked by a mask; every formula computes nothing that raises a
 * flag in range or on the zero the loop puts in out-of-range lanes. */
TITER_FAST_INLINE uint32_t titer_fabs_bits(float x) { return titer_f2bits(x) & 0x7fffffffu; }
TITER_FAST_INLINE float titer_signed_like(float magnitude, float x) {     /* odd functions */
    return titer_bits2f(titer_f2bits(magnitude) | (titer_f2bits(x) & 0x80000000u));
}
#define TITER_BELOW_2M9(x) (titer_fabs_bits(x) < 0x3b000000u)        /* |x| < 2^-9 */
#define TITER_F_FROM_2M60(x, hi) (titer_fabs_bits(x) - 0x21800000u < (hi) - 0x21800000u)

/* 2^-60 <= |x| < 88 (expm1(88) < FLT_MAX).  With FMA (the instruction-set
 * units) in float, twice the lanes of the double form: expm1(x) = 2^n p +
 * (2^n - 1), n = rint(x / ln2) (ln 2 in two parts), p = e^r - 1 from
 * titer_expm1f_poly; 2^n p is exact, 2^n - 1 exact for n >= -24 (below,
 * the result is -1 to the last bits), so one rounding in the fused
 * multiply-add.  Nothing cancels for n = 0; for n = 1 and r < 0 (x just
 * past ln2 / 2) p's error doubles against a result near 0.41, which the
 * fused polynomial keeps within 1 ULP and the unfused one does not (2 ULP on
 * 485 float32), so the baseline keeps the double form.  Within 1 ULP of the
 * correctly rounded expm1 on every float32 in range either way (checked
 * exhaustively against double expm1).  At n = -127 (x near -88) 2^n's bits
 * are 0: the result is -1 all the same. */
TITER_FAST_INLINE int titer_fast_expm1f_ok(float x) { return TITER_F_FROM_2M60(x, 0x42b00000u); }
#ifdef TITER_ISA
TITER_FAST_INLINE float titer_fast_expm1f(float x) {
    float scale;                                                      /* 2^n */
    float n = titer_expf_reduce(x, 1.44269504088896341f, 127.0f, &scale);
    float r = titer_poly_fma(n, 2.12194440e-4f, titer_poly_fma(n, -0.693359375f, x));
    return titer_poly_fma(scale, titer_expm1f_poly(r), scale - 1.0f);
}
#else
TITER_FAST_INLINE float titer_fast_expm1f(float xf) {
    double x = xf;
    double taylor = x + x * x * (0.5 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120))));
    return (float)titer_blend_d(TITER_BELOW_2M9(xf), taylor, titer_fast_exp(x) - 1.0);
}
#endif

/* -1 < x, 2^-60 <= |x|, finite; 1 + x is exact in double from 2^-29 up */
TITER_FAST_INLINE int titer_fast_log1pf_ok(float x) {
    uint32_t u = titer_f2bits(x);
    return (u - 0x21800000u < 0x7f800000u - 0x21800000u)
           | (u - 0xa1800000u < 0xbf800000u - 0xa1800000u);
}
TITER_FAST_INLINE float titer_fast_log1pf(float xf) {
    double x = xf;
    double taylor = x - x * x * (0.5 - x * (1.0 / 3 - x * (0.25 - x * (0.2 - x * (1.0 / 6)))));
    return (float)titer_blend_d(TITER_BELOW_2M9(xf), taylor, titer_fast_log(1.0 + x));
}

/* cosh: e^a / 2 + e^-a / 2, a = |x|, with h = e^a / 2 = 2^(n-1) (1 + p)
 * (n = rint(a / ln2), ln 2 in two parts, p = e^r - 1 from
 * titer_expm1f_poly) and e^-a / 2 = 0.25 / h: one exp and one division in
 * float, nothing cancels.  a is raised to 2^-30 first (cosh is 1 below
 * either way), so r^2 does not underflow; the divisor is capped at 2^100,
 * where 0.25 / h is far below half an ulp of h, so the quotient does not
 * either.  Within 1 ULP of the correctly rounded cosh on every float32 with
 * |x| < 89, with FMA and without (checked exhaustively against double
 * cosh).  About 1.3x titer's division-free sinh kernel's speed at the
 * instruction-set levels (one exp polynomial, not an even and an odd one
 * and the exactness bookkeeping). */
TITER_FAST_INLINE int titer_fast_coshf_ok(float x) { return titer_fabs_bits(x) < 0x42b20000u; }
TITER_FAST_INLINE float titer_fast_coshf(float x) {
    uint32_t abits = titer_fabs_bits(x);
    float a = titer_bits2f(abits > 0x30800000u ? abits : 0x30800000u);            /* 2^-30 */
    float half_scale;                                                         /* 2^(n-1) */
    float n = titer_expf_reduce(a, 1.44269504088896341f, 126.0f, &half_scale);
    float r = titer_poly_fma(n, 2.12194440e-4f, titer_poly_fma(n, -0.693359375f, a));
    float h = titer_poly_fma(half_scale, titer_expm1f_poly(r), half_scale);
    uint32_t hbits = titer_f2bits(h);
    return h + 0.25f / titer_bits2f(hbits < 0x71800000u ? hbits : 0x71800000u);   /* 2^100 */
}

/* A quotient q = num / den in double for a float32 result, without a
 * double division (vdivpd costs as much as a whole float32 kernel): the
 * reciprocal of den_approx, den rounded to float32 (or computed in float),
 * divided in float (relative error below 2^-23), seeds q0 = num r0, and
 * one Newton step q0 + r0 (num - den q0) leaves an error near 2^-46.
 * den_approx must be a normal float32. */
TITER_FAST_INLINE double titer_quotient_for_float(double num, double den, float den_approx) {
    double r0 = (double)(1.0f / den_approx);
    double q0 = num * r0;
    return titer_poly_fma(r0, titer_poly_fma(-den, q0, num), q0);
}

/* tan: x = q pi/2 + r in double (q * head exact for |x| < 2^20, as for sin
 * and cos), tan r = r P(r^2) / Q(r^2) on |r| <= pi/4, a (2, 2) rational
 * fitted to tan(r)/r by weighted least squares (Lawson's iteration) for
 * relative error below 2^-35; in odd quadrants -Q / (r P), the quotient by
 * titer_quotient_for_float.  Within 1 ULP of the float64 tan rounded to
 * float32 on every float32 with 2^-126 <= |x| < 2^20, with FMA and without
 * (checked exhaustively).  At AVX-512 titer_vtanf.h's 8-lane form of the
 * same arithmetic runs instead. */
/* The double part for a form V (VB its 64-bit lanes; FMA, C, TOBITS,
 * FROMBITS as in titer_vexp.h; RCP the reciprocal seeding the quotient):
 * tan x of x (in double) into `result`.  titer_vtanf.h runs it on eight
 * lanes at AVX-512. */
#define TITER_TANF_KERNEL(V, VB, FMA, C, TOBITS, FROMBITS, RCP, x, result)            \
    V big = FMA(x, C(6.36619772367581382433e-01), C(6755399441055744.0));            \
    V q = big - C(6755399441055744.0);                                                \
    V r = FMA(q, C(-1.58932547735281966916e-08), FMA(q, C(-1.57079631090164184570e+00), x)); \
    V z = r * r;                                                                      \
    V rp = FMA(FMA(C(0x1.19d8862030c98p-10), z, C(-0x1.c822f5770dab5p-4)), z,        \
               C(0x1.00000000184c3p+0)) * r;                                          \
    V qz = FMA(FMA(C(0x1.05b54d8f6d91bp-6), z, C(-0x1.c75e129688ddbp-2)), z, C(1.0)); \
    VB odd = 0 - (TOBITS(big) & 1);                                                   \
    V num = FROMBITS(TITER_PICK_BITS(odd, TOBITS(-qz), TOBITS(rp)));                  \
    V den = FROMBITS(TITER_PICK_BITS(odd, TOBITS(rp), TOBITS(qz)));                   \
    V r0 = RCP(den);                                                                  \
    V q0 = num * r0;                                                                  \
    V result = FMA(r0, FMA(-den, q0, num), q0);
/* titer_quotient_for_float's seed */
#define TITER_TANF_FLOAT_RCP(d) ((double)(1.0f / (float)(d)))
#define titer_fast_tanf_ok titer_fast_sincosf_ok
TITER_FAST_INLINE float titer_fast_tanf(float xf) {
    double x = xf;
    TITER_TANF_KERNEL(double, uint64_t, titer_poly_fma, TITER_SCALAR_C, titer_d2bits,
                      titer_bits2d, TITER_TANF_FLOAT_RCP, x, result)
    return (float)result;
}
#include "titer_vtanf.h"   /* float32 tan in eight lanes at AVX-512: titer_vtanf8 */

/* arcsinh: log(a + sqrt(a^2 + 1)) for a = |x|; 2^-60 <= |x|, finite */
TITER_FAST_INLINE int titer_fast_arcsinhf_ok(float x) { return TITER_F_FROM_2M60(x, 0x7f800000u); }
TITER_FAST_INLINE float titer_fast_arcsinhf(float xf) {
    double a = titer_bits2f(titer_fabs_bits(xf)), z = a * a;
    double taylor = a - a * z * (1.0 / 6 - z * (3.0 / 40 - z * (15.0 / 336)));
    return titer_signed_like((float)titer_blend_d(TITER_BELOW_2M9(xf), taylor,
                                                  titer_fast_log(a + sqrt(z + 1.0))), xf);
}

/* arccosh: log(x + sqrt((x - 1)(x + 1))) for 1 <= x < inf; the fabs keeps
 * the zero of out-of-range lanes from a sqrt(-1) */
TITER_FAST_INLINE int titer_fast_arccoshf_ok(float x) {
    return titer_f2bits(x) - 0x3f800000u < 0x7f800000u - 0x3f800000u;
}
TITER_FAST_INLINE float titer_fast_arccoshf(float xf) {
    double x = xf;
    return (float)titer_fast_log(x + sqrt(fabs((x - 1.0) * (x + 1.0))));
}

/* arctanh: log(1 + 2a / (1 - a)) / 2 for a = |x|; 2^-60 <= |x| < 1 */
TITER_FAST_INLINE int titer_fast_arctanhf_ok(float x) { return TITER_F_FROM_2M60(x, 0x3f800000u); }
TITER_FAST_INLINE float titer_fast_arctanhf(float xf) {
    double a = titer_bits2f(titer_fabs_bits(xf)), z = a * a;
    double taylor = a + a * z * (1.0 / 3 + z * (0.2 + z * (1.0 / 7)));
    return titer_signed_like((float)titer_blend_d(TITER_BELOW_2M9(xf), taylor,
                                                  0.5 * titer_fast_log(1.0 + 2.0 * a / (1.0 - a))),
                             xf);
}
#include "titer_vlog1pf.h"  /* float32 log1p, arcsinh, arccosh, arctanh at AVX-512 */
#include "titer_voddf.h"    /* float32 tanh, arctan by piecewise polynomials at AVX-512 */
#include "titer_vsinhf.h"   /* float32 sinh, and its 16-lane form at AVX-512 */
#include "titer_vexp2f.h"   /* float32 exp2, and its 16-lane form at AVX-512 */
#include "titer_vcbrtf.h"   /* float32 cbrt, and its 16-lane form at AVX-512 */
#include "titer_vlog2f.h"   /* float32 log2 and log10 by a table at AVX-512 */

/* atan(a) for finite a >= 0: a reduced to |c| <= tan(pi/8) with one division
 * (c = a, (a - 1) / (a + 1) + pi/4, or -1/a + pi/2), then FreeBSD's s_atan.c
 * polynomial (good to |c| < 7/16) */
TITER_FAST_INLINE double titer_atan_nonneg(double a) {
    int mid = titer_d2bits(a) > 0x3fda827999fcef34ull;           /* a > tan(pi/8) */
    int big = titer_d2bits(a) > 0x4003504f333f9de6ull;           /* a > tan(3pi/8) */
    double num = titer_blend_d(big, -1.0, a - titer_blend_d(mid, 1.0, 0.0));
    double den = titer_blend_d(big, a, titer_blend_d(mid, a + 1.0, 1.0));
    double c = num / den, z = c * c, w = z * z;
    double s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01
                + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02
                + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
    double s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01
                + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02
                + w * -3.65315727442169155270e-02))));
    double offset = titer_blend_d(big, 1.57079632679489661923,
                                  titer_blend_d(mid, 0.785398163397448309616, 0.0));
    return offset + (c - c * (s1 + s2));
}

/* arctan: 2^-60 <= |x|, finite */
#define titer_fast_arctanf_ok titer_fast_arcsinhf_ok
TITER_FAST_INLINE float titer_fast_arctanf(float x) {
    return titer_signed_like((float)titer_atan_nonneg(titer_bits2f(titer_fabs_bits(x))), x);
}

/* arcsin: atan(a / sqrt((1 - a)(1 + a))), exact products in double;
 * 2^-60 <= |x| < 1 */
#define titer_fast_arcsinf_ok titer_fast_arctanhf_ok
TITER_FAST_INLINE float titer_fast_arcsinf(float x) {
    double a = titer_bits2f(titer_fabs_bits(x));
    return titer_signed_like((float)titer_atan_nonneg(a / sqrt((1.0 - a) * (1.0 + a))), x);
}

/* arccos: 2 atan(sqrt((1 - x) / (1 + x))); |x| < 1, zero included */
TITER_FAST_INLINE int titer_fast_arccosf_ok(float x) { return titer_fabs_bits(x) < 0x3f800000u; }
TITER_FAST_INLINE float titer_fast_arccosf(float xf) {
    double x = xf;
    return (float)(2.0 * titer_atan_nonneg(sqrt((1.0 - x) / (1.0 + x))));
}
#include "titer_vasinf.h"   /* float32 arcsin and arccos in float at AVX-512 */

/* ---- binary float32 through double: hypot, arctan2, power ---- (same
 * rules as above; an out-of-range pair becomes (1, 1) in the loop) */

/* hypot: sqrt(x^2 + y^2) in double (exact squares), as glibc's hypotf
 * computes it: its bits; finite inputs (overflow raises as glibc's does) */
TITER_FAST_INLINE int titer_fast_hypotf_ok(float x, float y) {
    return (titer_fabs_bits(x) < 0x7f800000u) & (titer_fabs_bits(y) < 0x7f800000u);
}
TITER_FAST_INLINE float titer_fast_hypotf(float x, float y) {
    double a = x, b = y;
    return (float)sqrt(a * a + b * b);
}

/* arctan2(y, x): atan of the smaller of |y|, |x| over the larger (one
 * division, never by zero), reflected into the quadrant.  |x| and |y| in
 * [2^-45, 2^45), so no result is subnormal: the range of the 16-lane form
 * at AVX-512 too (titer_voddf.h), whose loop's tails run its twin in it. */
TITER_FAST_INLINE int titer_fast_arctan2f_ok(float y, float x) {
    return (titer_fabs_bits(y) - 0x29000000u < 0x56000000u - 0x29000000u)
           & (titer_fabs_bits(x) - 0x29000000u < 0x56000000u - 0x29000000u);
}
TITER_FAST_INLINE float titer_fast_arctan2f(float yf, float xf) {
    double a = titer_bits2f(titer_fabs_bits(yf)), b = titer_bits2f(titer_fabs_bits(xf));
    int steep = (int64_t)titer_d2bits(a) > (int64_t)titer_d2bits(b);       /* |y| > |x| */
    double t = titer_atan_nonneg(titer_blend_d(steep, b, a) / titer_blend_d(steep, a, b));
    t = titer_blend_d(steep, 1.57079632679489661923 - t, t);
    t = titer_blend_d((int)(titer_f2bits(xf) >> 31), 3.14159265358979323846 - t, t);
    return titer_signed_like((float)t, yf);
}

/* float64 arctan2(y, x) with one division.  For y >= 0 it is
 * shift + atan(q), q = -|x| / |y| with shift = pi/2 where |y| > |x|
 * (steep), else q = |y| / |x|, and shift -pi more where x < 0, which gives
 * -atan2(|y|, x) there: the sign of x ^ y goes on last.  Above tan(pi/8),
 * atan(q) = +-pi/4 + atan((q -+ 1) / (1 + |q|)), as (ns -+ d) / (d + n) with
 * n, d the smaller and larger magnitude and ns = +-n (that difference and
 * sum kept exact as two-term sums), so the reduced r = num / den has
 * |r| <= tan(pi/8).  r is num * (1 / den) and its error r_lo (the residual
 * num - r den exact with FMA, plus the tails of num and den, times 1 / den)
 * is carried on: atan(r + r_lo) = r + (r_lo (1 - z) + r z P(z)) with
 * z = r^2, P a degree-10 least-squares fit (tools/fit_atan.py) of
 * (atan(r) - r) / r^3 in z (atan to 2^-58 relative), by Estrin's scheme.
 * The shifts add up to m pi/4, m in -4..2, whose head m * (pi/4's 50-bit
 * head) is exact; its sum with r is kept exact too (Fast2Sum: the head is 0
 * or larger than |r|), so only the last addition rounds much.
 * NOTE [float64 arctan2 error]: 0.71 ULP from the exact atan2 at worst on
 * 10^7 pairs with FMA (avx512, avx2), 0.73 in the baseline build (its
 * polynomial without FMA), so within 1 ULP of the correctly rounded result
 * (tests/test_catalog.py: test_float64_arctan2_fast_path).  Range: |x| and
 * |y| in [2^-125, 2^125): 1 / den, the residual and r (at least 2^-251)
 * stay normal, so nothing but inexact is raised; the rest (zeros,
 * subnormals, inf, NaN, huge or tiny magnitudes) runs glibc's atan2. */
TITER_FAST_INLINE int titer_fast_arctan2_ok(double y, double x) {
    uint64_t ay = titer_d2bits(y) & 0x7fffffffffffffffull;
    uint64_t ax = titer_d2bits(x) & 0x7fffffffffffffffull;
    return (ay - 0x3820000000000000ull < 0x0fa0000000000000ull)
           & (ax - 0x3820000000000000ull < 0x0fa0000000000000ull);
}
TITER_FAST_INLINE double titer_fast_arctan2(double y, double x) {
    /* 64-bit masks throughout (no int conditions): the loop then runs at
     * the double vector width, with no 32-bit mask lanes to widen */
    const uint64_t sign = 0x8000000000000000ull;
    uint64_t ay = titer_d2bits(y) & ~sign, ax = titer_d2bits(x) & ~sign;
    uint64_t steep = 0 - (uint64_t)((int64_t)ay > (int64_t)ax);         /* |y| > |x| */
    uint64_t steep_sign = steep & sign;
    double n = titer_bits2d(TITER_PICK_BITS(steep, ax, ay));
    double d = titer_bits2d(TITER_PICK_BITS(steep, ay, ax));
    uint64_t big = 0 - (uint64_t)(n > 0x1.a827999fcef32p-2 * d);        /* |q| > tan(pi/8) */
    double ns = titer_bits2d(titer_d2bits(n) ^ steep_sign);             /* q's numerator */
    double minus_ds = titer_bits2d(titer_d2bits(d) ^ sign ^ steep_sign); /* -copysign(d, ns) */
    double diff = minus_ds + ns, diff_lo = (minus_ds - diff) + ns;      /* exact: d >= n */
    double sum = d + n, sum_lo = (d - sum) + n;
    double num = titer_bits2d(TITER_PICK_BITS(big, titer_d2bits(diff), titer_d2bits(ns)));
    double den = titer_bits2d(TITER_PICK_BITS(big, titer_d2bits(sum), titer_d2bits(d)));
    double num_lo = titer_bits2d(titer_d2bits(diff_lo) & big);
    double den_lo = titer_bits2d(titer_d2bits(sum_lo) & big);
    double inv = 1.0 / den;
    double r = num * inv;
    double r_lo = (__builtin_fma(-r, den, num) + (num_lo - r * den_lo)) * inv;
    /* z = r^2 + 2^-250: no power of z underflows (the tail's change,
     * r 2^-250 / 3 at most, is nothing) */
    double z = titer_poly_fma(r, r, 0x1p-250), z2 = z * z, z4 = z2 * z2;
    double p01 = titer_poly_fma(z, 0x1.999999999542fp-3, -0x1.555555555553bp-2);
    double p23 = titer_poly_fma(z, 0x1.c71c70dd93d4cp-4, -0x1.2492492295a8bp-3);
    double p45 = titer_poly_fma(z, 0x1.3b110a4157ffbp-4, -0x1.745cf7f94870cp-4);
    double p67 = titer_poly_fma(z, 0x1.df069c16c2602p-5, -0x1.10eb181fa4cc5p-4);
    double p89 = titer_poly_fma(z, 0x1.377a07ed61320p-5, -0x1.9cad3eb9dddedp-5);
    double p0_3 = titer_poly_fma(z2, p23, p01);
    double p4_7 = titer_poly_fma(z2, p67, p45);
    double p8_10 = titer_poly_fma(z2, -0x1.24a8c945feecfp-6, p89);
    double p = titer_poly_fma(z4, titer_poly_fma(z4, p8_10, p4_7), p0_3);
    /* atan(r + r_lo) = atan(r) + r_lo / (1 + z), to r_lo z^2 */
    double tail = titer_poly_fma(r * z, p, titer_poly_fma(-z, r_lo, r_lo));
    /* m = 2 where steep, -4 more where x < 0, and q's sign (+-1) more where
     * reduced */
    uint64_t x_neg = 0 - (titer_d2bits(x) >> 63);
    double m = titer_bits2d(titer_d2bits(2.0) & steep) + titer_bits2d(titer_d2bits(-4.0) & x_neg)
               + titer_bits2d((titer_d2bits(1.0) | steep_sign) & big);
    double c_hi = m * 7.85398163397448278999e-01;                      /* pi/4's head */
    double hi = c_hi + r;
    double hi_err = (c_hi - hi) + r;
    double lo = hi_err + m * 3.06161699786838301793e-17;              /* and its tail */
    double res = hi + (lo + tail);
    return titer_bits2d(titer_d2bits(res) ^ ((titer_d2bits(x) ^ titer_d2bits(y)) & sign));
}

/* ln x in double for a normal, positive, finite float32 x, sized for
 * float32 results (relative error below 2^-44, where titer_fast_log keeps
 * 2^-53 with a double division): x = 2^k (1 + f), 1 + f in
 * [sqrt(2)/2, sqrt(2)) split on the float32 bits (f exact in float),
 * s = f / (2 + f) by titer_quotient_for_float, ln(1 + f) = 2s + s^3 P(s^2)
 * with P a degree-4 weighted least-squares fit (Lawson's iteration) of
 * (2 atanh(s) - 2s) / s^3, then k ln 2 added. */
TITER_FAST_INLINE double titer_log_for_float(float x) {
    uint32_t u = titer_f2bits(x) + (0x3f800000u - 0x3f3504f3u);
    double k = (double)((int32_t)(u >> 23) - 127);
    float f = titer_bits2f((u & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    double s = titer_quotient_for_float(f, 2.0 + (double)f, 2.0f + f), z = s * s;
    double p = 0x1.9114e19f57c0ap-3;
    p = titer_poly_fma(p, z, 0x1.c62b1f9ebb790p-3);
    p = titer_poly_fma(p, z, 0x1.249411d018f99p-2);
    p = titer_poly_fma(p, z, 0x1.999996a9899bep-2);
    p = titer_poly_fma(p, z, 0x1.555555561e2f6p-1);
    return titer_poly_fma(k, 6.93147180559945286227e-01, titer_poly_fma(s * z, p, 2.0 * s));
}

/* e^t in double for |t| < 708, sized for float32 results (relative error
 * below 2^-33): t = k ln 2 + r, |r| <= ln2/2, e^r = 1 + r + r^2 Q(r) with Q
 * a degree-5 weighted least-squares fit (Lawson's iteration) of
 * (e^r - 1 - r) / r^2 (the float64 exp's Taylor series runs to r^13), 2^k on
 * the bits of the rounding constant's sum. */
TITER_FAST_INLINE double titer_exp_for_float(double t) {
    double big = titer_poly_fma(t, 1.44269504088896338700e+00, 6755399441055744.0);
    double k = big - 6755399441055744.0;
    double r = titer_poly_fma(k, -6.93147180559945286227e-01, t);
    double q = 0x1.9f08b43a93baep-13;
    q = titer_poly_fma(q, r, 0x1.6d8cf6614bfb5p-10);
    q = titer_poly_fma(q, r, 0x1.11127087963f4p-7);
    q = titer_poly_fma(q, r, 0x1.55548dd5691a9p-5);
    q = titer_poly_fma(q, r, 0x1.5555544366a86p-3);
    q = titer_poly_fma(q, r, 0x1.0000003a1ca44p-1);
    double scale = titer_bits2d((titer_d2bits(big) + 1023) << 52);
    return scale * (titer_poly_fma(q, r * r, r) + 1.0);
}

/* power: exp(y ln x) in double by the two kernels above, for x normal
 * positive finite and |y (log2 x)| < 120 (bounded by |y| (|exponent of x| +
 * 1), on the bits and a product of finite values), so the result is normal
 * and finite: y ln x within 2^-34 of its value, the result within 2^-32
 * relative before its rounding to float32 */
TITER_FAST_INLINE int titer_fast_powerf_ok(float x, float y) {
    uint32_t small_y = 0u - (uint32_t)(titer_fabs_bits(y) < 0x4b800000u);   /* |y| < 2^24 */
    int32_t e = (int32_t)(titer_f2bits(x) >> 23) - 127;
    float bound = titer_bits2f(titer_fabs_bits(y) & small_y) * (float)((e < 0 ? -e : e) + 1);
    return (titer_f2bits(x) - 0x00800000u < 0x7f000000u) & (small_y != 0)
           & (titer_f2bits(bound) < 0x42f00000u);                             /* < 120 */
}
TITER_FAST_INLINE float titer_fast_powerf(float x, float y) {
    return (float)titer_exp_for_float((double)y * titer_log_for_float(x));
}

/* float32 fmod, remainder, floor_divide: fmod(a, b) = a - n b with
 * n = trunc(a / b) in double, exact when |a / b| < 2^27 (the double quotient
 * of 24-bit values is then never rounded up to the next integer, n b has
 * at most 51 bits and the difference is representable), the sign of a put
 * on a zero; remainder and floor_divide then take NumPy's npy_divmodf steps
 * in float, so all three give NumPy's bits.  Range: b normal, a finite and
 * its exponent less than b's + 27. */
TITER_FAST_INLINE int titer_fast_fmodf_ok(float a, float b) {
    uint32_t ea = titer_fabs_bits(a) >> 23, eb = titer_fabs_bits(b) >> 23;
    return (eb - 1u < 254u) & (ea < 255u) & ((int32_t)ea - (int32_t)eb < 27);
}
#define titer_fast_remainderf_ok titer_fast_fmodf_ok
/* floor_divide also computes a / b where the quotient is zero (for its
 * sign), which underflows in NumPy when |a / b| < 2^-126: those pairs go to
 * libm, so the flag is NumPy's */
TITER_FAST_INLINE int titer_fast_floor_dividef_ok(float a, float b) {
    int32_t ediff = (int32_t)(titer_fabs_bits(a) >> 23) - (int32_t)(titer_fabs_bits(b) >> 23);
    return titer_fast_fmodf_ok(a, b) & ((ediff > -100) | (titer_fabs_bits(a) == 0));
}
TITER_FAST_INLINE float titer_fast_fmodf(float af, float bf) {
    double a = af, b = bf;
    double n = (double)(int32_t)(a / b);                 /* trunc, |a / b| < 2^27 */
    float r = (float)(a - n * b);
    return titer_bits2f(titer_f2bits(r) | (titer_f2bits(af) & 0x80000000u));
}
/* npy_divmodf moves a nonzero modulus to b's sign (mod += b) */
TITER_FAST_INLINE int titer_fmodf_flips(float mod, float b) {
    return (titer_fabs_bits(mod) != 0) & (int)((titer_f2bits(mod) ^ titer_f2bits(b)) >> 31);
}
/* npy_divmodf's modulus: mod + b where flipped (b is added only there: a
 * same-signed sum could overflow), b's signed zero where mod is zero */
TITER_FAST_INLINE float titer_fast_remainderf(float a, float b) {
    float mod = titer_fast_fmodf(a, b);
    mod = mod + titer_blend_f(titer_fmodf_flips(mod, b), b, 0.0f);
    return titer_blend_f(titer_fabs_bits(mod) == 0, titer_bits2f(titer_f2bits(b) & 0x80000000u), mod);
}
/* npy_divmodf's quotient: (a - mod) / b, less 1 where mod flipped, floored
 * (by a truncating conversion: |div| < 2^28) and snapped up past .5; a zero
 * one has the sign of a / b */
TITER_FAST_INLINE float titer_fast_floor_dividef(float a, float b) {
    float mod = titer_fast_fmodf(a, b);
    float div = (a - mod) / b;
    div = titer_blend_f(titer_fmodf_flips(mod, b), div - 1.0f, div);
    float t = (float)(int32_t)div;
    float fl = titer_blend_f(t > div, t - 1.0f, t);
    float up = titer_blend_f(div - fl > 0.5f, fl + 1.0f, fl);
    return titer_blend_f(titer_fabs_bits(div) == 0,
                         titer_bits2f((titer_f2bits(a) ^ titer_f2bits(b)) & 0x80000000u), up);
}

/* float64 fmod, remainder, floor_divide with NumPy's bits.  n = trunc(a / b)
 * is the true quotient's integer part, or one more in magnitude where the
 * double quotient rounds up onto the next integer (never down past one);
 * a - n b as one fused multiply-add is exact when n is right (the true
 * difference, fmod's value, is representable).  Where n was one too many the
 * difference comes out nonzero with the sign opposite to a's: n steps back
 * and it is redone.  remainder and floor_divide then take npy_divmod's
 * steps, as in float32 above.  The loops are x86-64-v4 and v3 clones (hardware
 * FMA; TITER_FAST_FMA_CLONES) beside a baseline one that calls libm's fma,
 * exact too (the product is not rounded, so it cannot overflow).  Range: b
 * normal, a finite and 2^-1000 |b| < |a| < 2^51 |b| (by exponents: a / b
 * neither underflows nor passes 2^51), or a zero. */
#define TITER_D_SIGN 0x8000000000000000ull
TITER_FAST_INLINE int titer_fast_fmod_ok(double a, double b) {
    int64_t ea = (int64_t)((titer_d2bits(a) & ~TITER_D_SIGN) >> 52);
    int64_t eb = (int64_t)((titer_d2bits(b) & ~TITER_D_SIGN) >> 52);
    int64_t ediff = ea - eb;
    return ((uint64_t)(eb - 1) < 2046u) & (ediff < 51)
           & ((((uint64_t)(ea - 1) < 2046u) & (ediff > -1000))
              | ((titer_d2bits(a) & ~TITER_D_SIGN) == 0));
}
#define titer_fast_remainder_ok titer_fast_fmod_ok
#define titer_fast_floor_divide_ok titer_fast_fmod_ok
/* floor of |x| < 2^52 by the 2^52 rounding trick: vectorizes where floor()
 * would not (GCC emits vroundpd for it only without -ftrapping-math) */
TITER_FAST_INLINE double titer_floor_below_2p52(double x) {
    double mag = titer_bits2d(titer_d2bits(x) & ~TITER_D_SIGN);
    double nearest = titer_bits2d(titer_d2bits((mag + 4503599627370496.0) - 4503599627370496.0)
                                  | (titer_d2bits(x) & TITER_D_SIGN));
    return nearest - titer_blend_d(nearest > x, 1.0, 0.0);
}
TITER_FAST_INLINE double titer_trunc_below_2p52(double x) {
    uint64_t sign = titer_d2bits(x) & TITER_D_SIGN;
    return titer_bits2d(titer_d2bits(titer_floor_below_2p52(titer_bits2d(titer_d2bits(x) ^ sign)))
                        | sign);
}
TITER_FAST_INLINE double titer_fast_fmod(double a, double b) {
    uint64_t sign_a = titer_d2bits(a) & TITER_D_SIGN;
    double n = titer_trunc_below_2p52(a / b);
    double r = __builtin_fma(-n, b, a);
    int over = ((titer_d2bits(r) & ~TITER_D_SIGN) != 0)
               & ((titer_d2bits(r) & TITER_D_SIGN) != sign_a);
    double one_toward_n = titer_bits2d(titer_d2bits(1.0) | (titer_d2bits(n) & TITER_D_SIGN));
    r = __builtin_fma(-titer_blend_d(over, n - one_toward_n, n), b, a);
    return titer_bits2d(titer_d2bits(r) | sign_a);
}
/* npy_divmod moves a nonzero modulus to b's sign (mod += b) */
TITER_FAST_INLINE int titer_fmod_flips(double mod, double b) {
    return ((titer_d2bits(mod) & ~TITER_D_SIGN) != 0)
           & (((titer_d2bits(mod) ^ titer_d2bits(b)) & TITER_D_SIGN) != 0);
}
TITER_FAST_INLINE double titer_fast_remainder(double a, double b) {
    double mod = titer_fast_fmod(a, b);
    mod = mod + titer_blend_d(titer_fmod_flips(mod, b), b, 0.0);
    return titer_blend_d((titer_d2bits(mod) & ~TITER_D_SIGN) == 0,
                         titer_bits2d(titer_d2bits(b) & TITER_D_SIGN), mod);
}
TITER_FAST_INLINE double titer_fast_floor_divide(double a, double b) {
    double mod = titer_fast_fmod(a, b);
    double div = (a - mod) / b;
    div = titer_blend_d(titer_fmod_flips(mod, b), div - 1.0, div);
    double fl = titer_floor_below_2p52(div);
    double up = titer_blend_d(div - fl > 0.5, fl + 1.0, fl);
    return titer_blend_d((titer_d2bits(div) & ~TITER_D_SIGN) == 0,
                         titer_bits2d((titer_d2bits(a) ^ titer_d2bits(b)) & TITER_D_SIGN), up);
}

/* divmod: npy_divmod's two outputs, floor_divide's and remainder's (one
 * fmod: the compiler merges the two), over floor_divide's range (a zero
 * quotient takes the sign of a / b there too) */
#define titer_fast_divmodf_ok titer_fast_floor_dividef_ok
TITER_FAST_INLINE float titer_fast_divmodf(float a, float b, float *modulus) {
    *modulus = titer_fast_remainderf(a, b);
    return titer_fast_floor_dividef(a, b);
}
#define titer_fast_divmod_ok titer_fast_floor_divide_ok
TITER_FAST_INLINE double titer_fast_divmod(double a, double b, double *modulus) {
    *modulus = titer_fast_remainder(a, b);
    return titer_fast_floor_divide(a, b);
}

/* float64 hypot: musl's hypot without its scaling: each square as an exact
 * hi + lo pair (Dekker's split by 2^27 + 1, no FMA), the larger operand's
 * last, summed small to large, one sqrt.  Range: each of |x|, |y| zero or
 * in [2^-450, 2^450], so every partial product is normal and the sum finite. */
TITER_FAST_INLINE int titer_hypot_operand_ok(double x) {
    uint64_t a = titer_d2bits(x) & 0x7fffffffffffffffull;
    return (a == 0) | (a - 0x23d0000000000000ull < 0x5c10000000000000ull - 0x23d0000000000000ull);
}
TITER_FAST_INLINE int titer_fast_hypot_ok(double x, double y) {
    return titer_hypot_operand_ok(x) & titer_hypot_operand_ok(y);
}
TITER_FAST_INLINE double titer_square_lo(double x, double hi) {
    double xc = x * 134217729.0;
    double xh = x - xc + xc, xl = x - xh;
    return xh * xh - hi + 2.0 * xh * xl + xl * xl;
}
TITER_FAST_INLINE double titer_fast_hypot(double x, double y) {
    uint64_t ax = titer_d2bits(x) & 0x7fffffffffffffffull;
    uint64_t ay = titer_d2bits(y) & 0x7fffffffffffffffull;
    int swap = ay > ax;
    double big = titer_bits2d(swap ? ay : ax), small = titer_bits2d(swap ? ax : ay);
    double hb = big * big, hs = small * small;
    return sqrt(titer_square_lo(small, hs) + titer_square_lo(big, hb) + hs + hb);
}

/* NumPy's float clip: isnan(x) ? x : (x > lo ? x : lo), then the same
 * against hi.  NaNs are masked to 0 on the bits before the ordered compares
 * (which raise 'invalid' on NaN in vector form) and restored after, so the
 * loop vectorizes and raises nothing. */
#define TITER_CLIP_BITS(S, T, UI)                                   \
/* x != x is a quiet compare (no flag), and vectorizes for double too */    \
TITER_INLINE UI titer_nan_mask_##S(T v) { return (UI)0 - (UI)(v != v); }     \
TITER_INLINE T titer_clip_bits_##S(T x, T lo, T hi) {                        \
    union { UI i; T f; } vx, vl, vh, xs, ls, hs, r, rs, r2;                  \
    vx.f = x; vl.f = lo; vh.f = hi;                                          \
    UI xn = titer_nan_mask_##S(x), ln = titer_nan_mask_##S(lo);              \
    UI hn = titer_nan_mask_##S(hi);                                          \
    xs.i = vx.i & ~xn; ls.i = vl.i & ~ln; hs.i = vh.i & ~hn;                 \
    r.f = xs.f > ls.f ? xs.f : ls.f;                                         \
    r.i = titer_pick_##S(xn, vx.i, titer_pick_##S(ln, vl.i, r.i));           \
    UI rn = xn | ln;                                                         \
    rs.i = r.i & ~rn;                                                        \
    r2.f = rs.f < hs.f ? rs.f : hs.f;                                        \
    r2.i = titer_pick_##S(rn, r.i, titer_pick_##S(hn, vh.i, r2.i));          \
    return r2.f;                                                             \
}
TITER_CLIP_BITS(f, float, uint32_t)
TITER_CLIP_BITS(d, double, uint64_t)
#define titer_clip_float(a, b, c) _Generic((a), float: titer_clip_bits_f, default: titer_clip_bits_d)((a), (b), (c))

/* where(c, x, y) as a bit select: a branch-free form GCC vectorizes even
 * with a one-byte condition and wider values (10x over `c ? x : y` here). */
#define TITER_SELECT_INT(S, T)                                                \
TITER_INLINE T titer_select_##S(npy_bool_t c, T x, T y) {                    \
    T m = (T)(0 - (T)(c != 0));                                              \
    return (T)((x & m) | (y & (T)~m));                                       \
}
TITER_SELECT_INT(b, int8_t) TITER_SELECT_INT(B, uint8_t)
TITER_SELECT_INT(h, int16_t) TITER_SELECT_INT(H, uint16_t)
TITER_SELECT_INT(i, int32_t) TITER_SELECT_INT(I, uint32_t)
TITER_SELECT_INT(l, int64_t) TITER_SELECT_INT(L, uint64_t)
TITER_INLINE float titer_select_f(npy_bool_t c, float x, float y) {
    return titer_bits2f((uint32_t)titer_select_I(c, titer_f2bits(x), titer_f2bits(y)));
}
TITER_INLINE double titer_select_d(npy_bool_t c, double x, double y) {
    union { uint64_t i; double f; } vx, vy, r;
    vx.f = x; vy.f = y;
    r.i = titer_select_L(c, vx.i, vy.i);
    return r.f;
}
#define titer_select(c, x, y) _Generic((x), int8_t: titer_select_b, uint8_t: titer_select_B, \
    int16_t: titer_select_h, uint16_t: titer_select_H, int32_t: titer_select_i,            \
    uint32_t: titer_select_I, int64_t: titer_select_l, uint64_t: titer_select_L,          \
    float: titer_select_f, double: titer_select_d)((c), (x), (y))

#endif

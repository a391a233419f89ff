/* Scalar types and helpers shared by every generated loop (CPU now, the CUDA
 * kernels later).  Nothing here loops: these are the one-element building
 * blocks the op table's expressions are written in. */
#ifndef TITER_SCALAR_H
#define TITER_SCALAR_H

#include <stdint.h>
#include <string.h>
#include <math.h>
#include <fenv.h>

#ifndef TITER_INLINE
#define TITER_INLINE static inline
#endif

typedef uint8_t npy_bool_t;     /* NumPy's bool: one byte, 0 or 1 */
typedef uint16_t titer_half;    /* IEEE binary16 bits; math goes through float */
typedef struct { float re, im; } titer_cfloat;
typedef struct { double re, im; } titer_cdouble;

/* ---- float16 <-> float32/float64, round to nearest even (NumPy's rules) ---- */

TITER_INLINE float titer_h2f(titer_half h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = h & 0x7c00u, sig = h & 0x03ffu, bits;
    float f;
    if (exp == 0) {                      /* zero or subnormal: exact in float */
        f = (float)sig * 5.9604644775390625e-8f;      /* sig * 2^-24 */
        return sign ? -f : f;
    }
    if (exp == 0x7c00u)                  /* inf / nan, payload kept */
        bits = sign | 0x7f800000u | (sig << 13);
    else
        bits = sign | (((uint32_t)(h & 0x7fffu) + 0x1c000u) << 13);
    memcpy(&f, &bits, 4);
    return f;
}

/* Round the integer `sig >> shift` to nearest, ties to even. */
#define TITER_ROUND_SHIFT(TYPE, sig, shift) ({                              \
    TYPE _rem = (sig) & ((((TYPE)1) << (shift)) - 1);                       \
    TYPE _half = ((TYPE)1) << ((shift) - 1);                                \
    TYPE _res = (sig) >> (shift);                                           \
    if (_rem > _half || (_rem == _half && (_res & 1))) _res++;              \
    _res; })

TITER_INLINE titer_half titer_f2h(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {             /* inf or nan */
        if (ax == 0x7f800000u) return sign | 0x7c00u;
        uint16_t m = (uint16_t)((ax >> 13) & 0x3ffu);
        return sign | 0x7c00u | (m ? m : 1u);
    }
    if (ax >= 0x47800000u) {             /* >= 2^16: overflow to inf */
        feraiseexcept(FE_OVERFLOW);
        return sign | 0x7c00u;
    }
    if (ax < 0x38800000u) {              /* below 2^-14: half subnormal or 0 */
        uint32_t e = ax >> 23;
        if (e < 102) return sign;        /* below 2^-25 rounds to zero */
        uint32_t sig = (ax & 0x7fffffu) | 0x800000u;
        return sign | (uint16_t)TITER_ROUND_SHIFT(uint32_t, sig, 126 - e);
    }
    uint32_t base = TITER_ROUND_SHIFT(uint32_t, ax, 13) - ((127u - 15u) << 10);
    if (base >= 0x7c00u) {               /* rounding carried into inf */
        feraiseexcept(FE_OVERFLOW);
        return sign | 0x7c00u;
    }
    return sign | (uint16_t)base;
}

TITER_INLINE titer_half titer_d2h(double d) {
    uint64_t x;
    memcpy(&x, &d, 8);
    uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
    uint64_t ax = x & 0x7fffffffffffffffull;
    if (ax >= 0x7ff0000000000000ull) {
        if (ax == 0x7ff0000000000000ull) return sign | 0x7c00u;
        uint16_t m = (uint16_t)((ax >> 42) & 0x3ffu);
        return sign | 0x7c00u | (m ? m : 1u);
    }
    if (ax >= (1039ull << 52)) {
        feraiseexcept(FE_OVERFLOW);
        return sign | 0x7c00u;
    }
    if (ax < (1009ull << 52)) {
        uint64_t e = ax >> 52;
        if (e < 998) return sign;
        uint64_t sig = (ax & 0xfffffffffffffull) | (1ull << 52);
        return sign | (uint16_t)TITER_ROUND_SHIFT(uint64_t, sig, 1051 - e);
    }
    uint64_t base = TITER_ROUND_SHIFT(uint64_t, ax, 42) - ((1023ull - 15ull) << 10);
    if (base >= 0x7c00u) {
        feraiseexcept(FE_OVERFLOW);
        return sign | 0x7c00u;
    }
    return sign | (uint16_t)base;
}

TITER_INLINE int titer_half_isnan(titer_half h) {
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}
TITER_INLINE int titer_half_ge(titer_half a, titer_half b) {
    return titer_h2f(a) >= titer_h2f(b);
}
TITER_INLINE int titer_half_le(titer_half a, titer_half b) {
    return titer_h2f(a) <= titer_h2f(b);
}

/* ---- real helpers (type-generic so one op-table expression covers f and d) ---- */
#define titer_fabs(x) _Generic((x), float: fabsf, default: fabs)(x)

/* ---- fused multiply-add where NumPy's dispatched loops use it ----
 * NumPy's complex loops are compiled for AVX2+FMA3 and the compiler fuses
 * a*b+c there, so their last bit depends on the CPU.  titer follows: FMA
 * when the CPU has it (decided once at import), separate ops otherwise. */
extern int titer_use_fma;
#define titer_muladd(x, y, z) (titer_use_fma                                  \
    ? _Generic((x), float: fmaf, default: fma)((x), (y), (z)) : (x) * (y) + (z))

/* ---- complex: explicit formulas, as NumPy's loops (no C99 Annex G rescue) ---- */
#define titer_cmake(r, i) ({ __typeof__(a) _z; _z.re = (r); _z.im = (i); _z; })
#define titer_cmul(x, y) titer_cmake(titer_muladd((x).re, (y).re, -((x).im * (y).im)), \
                                     titer_muladd((x).re, (y).im, (x).im * (y).re))

/* |z| as NumPy's SIMD loop computes it: larger * sqrt(1 + ratio^2), with
 * inf winning over nan. */
#define titer_cabs(z) ({                                                     \
    __typeof__((z).re) _re = titer_fabs((z).re), _im = titer_fabs((z).im), _r; \
    if (isinf(_re) || isinf(_im)) _r = (__typeof__(_re))INFINITY;           \
    else if (isnan(_re) || isnan(_im)) _r = (__typeof__(_re))NAN;           \
    else {                                                                  \
        __typeof__(_re) _big = _re > _im ? _re : _im, _small = _re > _im ? _im : _re; \
        __typeof__(_re) _ratio = _big == 0 ? 0 : _small / _big;             \
        _r = _Generic(_re, float: sqrtf, default: sqrt)(                    \
                 titer_muladd(_ratio, _ratio, (__typeof__(_re))1)) * _big;   \
    }                                                                       \
    _r; })

/* Smith's division with NumPy's choices for a zero divisor. */
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
            _q.im = ((x).im - (x).re * _rat) * _scl;                        \
        }                                                                   \
    } else {                                                                \
        _rat = (y).re / (y).im;                                             \
        _scl = (__typeof__(_rat))1.0 / ((y).im + (y).re * _rat);            \
        _q.re = ((x).re * _rat + (x).im) * _scl;                            \
        _q.im = ((x).im * _rat - (x).re) * _scl;                            \
    }                                                                       \
    _q; })

/* Lexicographic complex order; a NaN in either part makes < and <= false. */
#define titer_ceq(x, y) ((x).re == (y).re && (x).im == (y).im)
#define titer_clt(x, y) (((x).re < (y).re && (x).im == (x).im && (y).im == (y).im) \
                         || ((x).re == (y).re && (x).im < (y).im))
#define titer_cle(x, y) (((x).re < (y).re && (x).im == (x).im && (y).im == (y).im) \
                         || ((x).re == (y).re && (x).im <= (y).im))
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

#endif

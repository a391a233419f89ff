/* Device-side twin of titer/src/titer_scalar.h: the same helper names, as
 * C++ overloads and templates, so the op table's C expressions compile
 * unchanged for the GPU (nvcc, NVRTC) and, through host_shim.h, with g++.
 *
 * Differences from the CPU header, by design:
 *  - no floating-point exception flags (feraiseexcept): a GPU has none to
 *    report, as with CuPy's own ufuncs;
 *  - titer_muladd always fuses (fma), as CUDA contracts a*b+c anyway.
 * Every name an expression may use is listed in TITER_DEVICE_NAMES below;
 * titer/cuda/build.py reads that list to skip (and record) ops whose
 * expressions need a helper this header does not have. */
#ifndef TITER_SCALAR_CUH
#define TITER_SCALAR_CUH

/* TITER_DEVICE_NAMES: npy_bool_t titer_half titer_cfloat titer_cdouble
   titer_h2f titer_f2h titer_d2h titer_half_isnan titer_half_ge titer_half_le
   titer_fabs titer_muladd titer_cmake titer_cmul titer_cabs titer_cdiv
   titer_ceq titer_clt titer_cle titer_cgt titer_cge
   titer_cmp_sl_equal titer_cmp_sl_not_equal titer_cmp_sl_less
   titer_cmp_sl_less_equal titer_cmp_sl_greater titer_cmp_sl_greater_equal
   titer_cmp_ls_equal titer_cmp_ls_not_equal titer_cmp_ls_less
   titer_cmp_ls_less_equal titer_cmp_ls_greater titer_cmp_ls_greater_equal
   int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t
   INFINITY NAN isnan isinf isfinite signbit titer_signbit M_PI M_LN2 M_LOG2E
   titer_m1 titer_m2 titer_clamp_int titer_floordiv titer_remainder
   titer_domain_log titer_domain_log2 titer_domain_log10 titer_domain_log1p
   titer_spacing titer_logaddexp titer_logaddexp2 titer_clip_float
   titer_nextafter titer_half_nextafter titer_half_spacing titer_half_sign
   titer_clip_half
   titer_ifloordiv titer_iremainder titer_ifmod titer_igcd titer_ilcm
   titer_lshift titer_rshift titer_popcount titer_ireciprocal titer_clip_int
   titer_divmod titer_idivmod modf frexp titer_modf titer_frexp titer_frexp_libm titer_ldexp
   titer_select
   titer_ipow titer_clip_complex titer_cfn titer_cfn2 titer_creciprocal titer_csign
   titer_csqrt titer_cexp titer_clog titer_csin titer_ccos titer_ctan titer_csinh
   titer_ccosh titer_ctanh titer_cexp2 titer_clog2 titer_clog10 titer_cexpm1
   titer_clog1p titer_cpow titer_casin titer_cacos titer_catan titer_casinh
   titer_cacosh titer_catanh */
/* titer_cfn(fn, z) needs titer_c<fn>: build.py checks for it; the complex
   elementary functions are in titer_cmath.cuh.  titer_ipow's negative
   exponents raise on the host before the launch (titer/cuda/dispatch.py): a
   kernel cannot. */

#if defined(__CUDACC_RTC__)
/* NVRTC (RawModule(code=...)) has no <stdint.h>; nvcc and the host shim do. */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#else
#include <stdint.h>
#include <math.h>
#include <string.h>
#endif

#define TITER_DEV static __device__ __forceinline__

typedef uint8_t npy_bool_t;      /* NumPy's bool: one byte, 0 or 1 */
typedef uint16_t titer_half;     /* IEEE binary16 bits; math goes through float */
/* Natural alignment (4 and 8), as NumPy's complex64/complex128: a view may
 * start anywhere its dtype's alignment allows.  Wider accesses go through
 * titer_vec, whose alignment the host checks (can_vectorize_up_to). */
struct titer_cfloat { float re, im; };
struct titer_cdouble { double re, im; };

/* ---- float16 <-> float32/float64, round to nearest even (NumPy's rules) ---- */

TITER_DEV float titer_bits_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
TITER_DEV uint32_t titer_f_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
TITER_DEV uint64_t titer_d_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

TITER_DEV float titer_h2f(titer_half h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = h & 0x7c00u, sig = h & 0x03ffu;
    if (exp == 0) {
        float f = (float)sig * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    if (exp == 0x7c00u)
        return titer_bits_f(sign | 0x7f800000u | (sig << 13));
    return titer_bits_f(sign | (((uint32_t)(h & 0x7fffu) + 0x1c000u) << 13));
}

template <class W> TITER_DEV W titer_round_shift(W sig, int shift) {
    W rem = sig & ((((W)1) << shift) - 1);
    W half = ((W)1) << (shift - 1);
    W res = sig >> shift;
    if (rem > half || (rem == half && (res & 1))) res++;
    return res;
}

TITER_DEV titer_half titer_f2h(float f) {
    uint32_t x = titer_f_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        if (ax == 0x7f800000u) return sign | 0x7c00u;
        uint16_t m = (uint16_t)((ax >> 13) & 0x3ffu);
        return sign | 0x7c00u | (m ? m : 1u);
    }
    if (ax >= 0x47800000u) return sign | 0x7c00u;
    if (ax < 0x38800000u) {
        uint32_t e = ax >> 23;
        if (e < 102) return sign;
        uint32_t sig = (ax & 0x7fffffu) | 0x800000u;
        return sign | (uint16_t)titer_round_shift<uint32_t>(sig, 126 - e);
    }
    uint32_t base = titer_round_shift<uint32_t>(ax, 13) - ((127u - 15u) << 10);
    if (base >= 0x7c00u) return sign | 0x7c00u;
    return sign | (uint16_t)base;
}

TITER_DEV titer_half titer_d2h(double d) {
    uint64_t x = titer_d_bits(d);
    uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
    uint64_t ax = x & 0x7fffffffffffffffull;
    if (ax >= 0x7ff0000000000000ull) {
        if (ax == 0x7ff0000000000000ull) return sign | 0x7c00u;
        uint16_t m = (uint16_t)((ax >> 42) & 0x3ffu);
        return sign | 0x7c00u | (m ? m : 1u);
    }
    if (ax >= (1039ull << 52)) return sign | 0x7c00u;
    if (ax < (1009ull << 52)) {
        uint64_t e = ax >> 52;
        if (e < 998) return sign;
        uint64_t sig = (ax & 0xfffffffffffffull) | (1ull << 52);
        return sign | (uint16_t)titer_round_shift<uint64_t>(sig, (int)(1051 - e));
    }
    uint64_t base = titer_round_shift<uint64_t>(ax, 42) - ((1023ull - 15ull) << 10);
    if (base >= 0x7c00u) return sign | 0x7c00u;
    return sign | (uint16_t)base;
}

TITER_DEV int titer_half_isnan(titer_half h) {
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}
TITER_DEV int titer_half_ge(titer_half a, titer_half b) { return titer_h2f(a) >= titer_h2f(b); }
TITER_DEV int titer_half_le(titer_half a, titer_half b) { return titer_h2f(a) <= titer_h2f(b); }

/* ---- real helpers ---- */
TITER_DEV float titer_fabs(float x) { return fabsf(x); }
TITER_DEV double titer_fabs(double x) { return fabs(x); }
TITER_DEV float titer_muladd(float x, float y, float z) { return fmaf(x, y, z); }
TITER_DEV double titer_muladd(double x, double y, double z) { return fma(x, y, z); }

/* ---- complex: the CPU header's formulas ---- */
template <class C> struct titer_complex_part;
template <> struct titer_complex_part<titer_cfloat> { typedef float type; };
template <> struct titer_complex_part<titer_cdouble> { typedef double type; };

template <class C, class R, class I> TITER_DEV C titer_complex_make(R r, I i) {
    C z; z.re = (typename titer_complex_part<C>::type)r;
    z.im = (typename titer_complex_part<C>::type)i; return z;
}
/* The CPU macro takes its type from the kernel's first input `a`. */
template <class X> struct titer_decay { typedef X type; };
template <class X> struct titer_decay<const X> { typedef X type; };
template <class X> struct titer_decay<X &> { typedef X type; };
template <class X> struct titer_decay<const X &> { typedef X type; };
#define titer_cmake(r, i) \
    (titer_complex_make<typename titer_decay<decltype(a)>::type>((r), (i)))

template <class C> TITER_DEV C titer_cmul(C x, C y) {
    return titer_complex_make<C>(titer_muladd(x.re, y.re, -(x.im * y.im)),
                                 titer_muladd(x.re, y.im, x.im * y.re));
}

template <class C> TITER_DEV typename titer_complex_part<C>::type titer_cabs(C z) {
    typedef typename titer_complex_part<C>::type R;
    R re = titer_fabs(z.re), im = titer_fabs(z.im);
    if (isinf(re) || isinf(im)) return (R)INFINITY;
    if (isnan(re) || isnan(im)) return (R)NAN;
    R big = re > im ? re : im, small = re > im ? im : re;
    R ratio = big == 0 ? (R)0 : small / big;
    return sqrt(titer_muladd(ratio, ratio, (R)1)) * big;
}

template <class C> TITER_DEV C titer_cdiv(C x, C y) {
    typedef typename titer_complex_part<C>::type R;
    C q; R rat, scl;
    R ar = titer_fabs(y.re), ai = titer_fabs(y.im);
    if (ar >= ai) {
        if (ar == 0 && ai == 0) {
            q.re = x.re / ar; q.im = x.im / ar;
        } else {
            rat = y.im / y.re;
            scl = (R)1.0 / (y.re + y.im * rat);
            q.re = (x.re + x.im * rat) * scl;
            q.im = (x.im - x.re * rat) * scl;
        }
    } else {
        rat = y.re / y.im;
        scl = (R)1.0 / (y.im + y.re * rat);
        q.re = (x.re * rat + x.im) * scl;
        q.im = (x.im * rat - x.re) * scl;
    }
    return q;
}

/* The complex functions of the CPU header that are arithmetic (no complex
 * libm): reciprocal and sign as NumPy computes them, clip in NumPy's
 * lexicographic order.  titer_cfn(fn, z) names titer_c<fn>. */
#define titer_cfn(fn, x) titer_c##fn(x)
#define titer_cfn2(fn, x, y) titer_c##fn((x), (y))
TITER_DEV float titer_hypot(float x, float y) { return hypotf(x, y); }
TITER_DEV double titer_hypot(double x, double y) { return hypot(x, y); }
template <class C> TITER_DEV C titer_cpack(typename titer_complex_part<C>::type re,
                                           typename titer_complex_part<C>::type im) {
    C r;
    r.re = re;
    r.im = im;
    return r;
}
template <class C> TITER_DEV C titer_creciprocal(C x) {
    typedef typename titer_complex_part<C>::type R;
    if (titer_fabs(x.im) <= titer_fabs(x.re)) {
        R r = x.im / x.re, d = x.re + x.im * r;
        return titer_cpack<C>(1 / d, -r / d);
    }
    R r = x.re / x.im, d = x.re * r + x.im;
    return titer_cpack<C>(r / d, -1 / d);
}
template <class C> TITER_DEV C titer_csign(C x) {
    typedef typename titer_complex_part<C>::type R;
    R m = titer_hypot(x.re, x.im);
    if (isnan(m)) return titer_cpack<C>((R)NAN, (R)NAN);
    if (isinf(m)) {
        if (isinf(x.re))
            return isinf(x.im) ? titer_cpack<C>((R)NAN, (R)NAN)
                               : titer_cpack<C>(x.re > 0 ? 1 : -1, 0);
        return titer_cpack<C>(0, x.im > 0 ? 1 : -1);
    }
    if (m == 0) return titer_cpack<C>(0, 0);
    return titer_cpack<C>(x.re / m, x.im / m);
}
/* NumPy's complex clip: lexicographic order, NaN in the value propagates. */
template <class C> TITER_DEV C titer_clip_complex(C x, C lo, C hi) {
    bool gt = x.re == lo.re ? x.im > lo.im : x.re > lo.re;
    C r = (gt || isnan(x.re) || isnan(x.im)) ? x : lo;
    bool lt = r.re == hi.re ? r.im < hi.im : r.re < hi.re;
    return (lt || isnan(r.re) || isnan(r.im)) ? r : hi;
}

template <class C> TITER_DEV bool titer_ceq(C x, C y) { return x.re == y.re && x.im == y.im; }
template <class C> TITER_DEV bool titer_clt(C x, C y) {
    return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im < y.im);
}
template <class C> TITER_DEV bool titer_cle(C x, C y) {
    return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im <= y.im);
}
template <class C> TITER_DEV bool titer_cgt(C x, C y) { return titer_clt(y, x); }
template <class C> TITER_DEV bool titer_cge(C x, C y) { return titer_cle(y, x); }

/* ---- exact int64 <-> uint64 comparisons ---- */
#define TITER_MIXED_CMP(NAME, OP)                                            \
TITER_DEV npy_bool_t titer_cmp_sl_##NAME(int64_t a, uint64_t b) {           \
    return a < 0 ? (0 OP 1) : ((uint64_t)a OP b);                           \
}                                                                           \
TITER_DEV npy_bool_t titer_cmp_ls_##NAME(uint64_t a, int64_t b) {           \
    return b < 0 ? (1 OP 0) : (a OP (uint64_t)b);                           \
}
TITER_MIXED_CMP(equal, ==)
TITER_MIXED_CMP(not_equal, !=)
TITER_MIXED_CMP(less, <)
TITER_MIXED_CMP(less_equal, <=)
TITER_MIXED_CMP(greater, >)
TITER_MIXED_CMP(greater_equal, >=)

/* ---- the CPU header's op helpers (its "NumPy's loops" section) ----
 * Same formulas; what differs on the device: no FP flags, and isless /
 * isgreater are plain comparisons (same results, only the flags differ). */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif
#ifndef M_LOG2E
#define M_LOG2E 1.4426950408889634074
#endif
#define TITER_INT_MAX 2147483647
#define TITER_INT_MIN (-2147483647 - 1)

/* libm's float or double variant: C++ overloads pick it by the argument. */
#define titer_m1(fn, x) (fn(x))
#define titer_m2(fn, x, y) (fn((x), (y)))
/* the CPU's is branch-free on the bits for its flags (titer_scalar.h); the
 * device's nextafter raises none */
#define titer_nextafter(x, y) (nextafter((x), (y)))
/* the op table's log family: on the CPU with titer's own error path
 * (glibc's is slow: NOTE [libm error paths] in titer_scalar.h); the
 * device's functions have no slow path to avoid */
#define titer_domain_log log
#define titer_domain_log2 log2
#define titer_domain_log10 log10
#define titer_domain_log1p log1p
#define titer_clamp_int(e) ((int)((e) > TITER_INT_MAX ? TITER_INT_MAX : (e) < TITER_INT_MIN ? TITER_INT_MIN : (e)))
/* the CPU's branch-free modf / frexp / ldexp (titer_scalar.h) give libm's
 * values: here libm's own device functions */
#define titer_modf(x, i) (modf((x), (i)))
#define titer_frexp(x, e) (frexp((x), (e)))
/* (the CPU's libm-flag variant: no FP flags on the device, the same) */
#define titer_frexp_libm(x, e) (frexp((x), (e)))
#define titer_ldexp(x, n) (ldexp((x), (n)))

template <class T> TITER_DEV T titer_divmod(T a, T b, T *modulus) {
    T mod = fmod(a, b), div, floordiv;
    if (!b) { *modulus = mod; return a / b; }
    div = (a - mod) / b;
    if (mod) {
        if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1; }
    } else {
        mod = copysign((T)0, b);
    }
    if (div) {
        floordiv = floor(div);
        if (div - floordiv > (T)0.5) floordiv += (T)1;
    } else {
        floordiv = copysign((T)0, a / b);
    }
    *modulus = mod;
    return floordiv;
}
template <class T> TITER_DEV T titer_floordiv(T a, T b) {
    T mod;
    if (!b) return a / b;
    return titer_divmod(a, b, &mod);
}
template <class T> TITER_DEV T titer_remainder(T a, T b) {
    T mod;
    if (!b) return fmod(a, b);
    titer_divmod(a, b, &mod);
    return mod;
}
template <class T> TITER_DEV T titer_spacing(T x) {
    if (isinf(x)) return (T)NAN;
    if (x == 0) return nextafter((T)0, (T)1);
    return nextafter(x, copysign((T)INFINITY, x)) - x;
}
template <class T> TITER_DEV bool titer_signbit(T x) { return signbit(x); }
template <class T> TITER_DEV T titer_logaddexp(T x, T y) {
    if (x == y) return x + (T)M_LN2;
    T tmp = x - y;
    if (tmp > 0) return x + log1p(exp(-tmp));
    if (tmp <= 0) return y + log1p(exp(tmp));
    return tmp;
}
template <class T> TITER_DEV T titer_logaddexp2(T x, T y) {
    if (x == y) return x + 1;
    T tmp = x - y;
    if (tmp > 0) return x + (T)M_LOG2E * log1p(exp2(-tmp));
    if (tmp <= 0) return y + (T)M_LOG2E * log1p(exp2(tmp));
    return tmp;
}
template <class T> TITER_DEV T titer_clip_float(T x, T lo, T hi) {
    T r = isnan(x) ? x : (x > lo ? x : lo);
    return isnan(r) ? r : (r < hi ? r : hi);
}

/* Equal x and y give x before NumPy 2.5, y from it on (titer_scalar.h's
 * twin): each module's copy of the flag is set when the backend loads it
 * (titer.cuda._cupy); the host shim's one copy is the launcher's. */
#ifdef TITER_HOST_SHIM
extern "C" int titer_half_nextafter_gives_y;
#else
extern "C" { __device__ int titer_half_nextafter_gives_y = 0; }
#endif
TITER_DEV titer_half titer_half_nextafter(titer_half x, titer_half y) {
    if (titer_half_isnan(x) || titer_half_isnan(y)) return 0x7e00u;
    if (x == y || ((x | y) & 0x7fffu) == 0) return titer_half_nextafter_gives_y ? y : x;
    if ((x & 0x7fffu) == 0) return (titer_half)((y & 0x8000u) + 1);
    if (!(x & 0x8000u)) return (int16_t)x > (int16_t)y ? x - 1 : x + 1;
    return (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) ? x - 1 : x + 1;
}
TITER_DEV titer_half titer_half_spacing(titer_half h) {
    uint16_t h_exp = h & 0x7c00u, h_sig = h & 0x03ffu;
    if (h_exp == 0x7c00u) return 0x7e00u;
    if (h == 0x7bffu) return 0x7c00u;
    if ((h & 0x8000u) && h_sig == 0) {
        if (h_exp > 0x2c00u) return (titer_half)(h_exp - 0x2c00u);
        if (h_exp > 0x0400u) return (titer_half)(1u << ((h_exp >> 10) - 2));
        return 1;
    }
    if (h_exp > 0x2800u) return (titer_half)(h_exp - 0x2800u);
    if (h_exp > 0x0400u) return (titer_half)(1u << ((h_exp >> 10) - 1));
    return 1;
}
TITER_DEV titer_half titer_half_sign(titer_half h) {     /* NumPy's, on the bits */
    uint16_t a = h & 0x7fffu;
    return a == 0 ? 0 : a > 0x7c00u ? h : (titer_half)((h & 0x8000u) | 0x3c00u);
}
TITER_DEV titer_half titer_clip_half(titer_half x, titer_half lo, titer_half hi) {
    titer_half r = (titer_half_isnan(x) || titer_half_ge(x, lo)) ? x : lo;
    return (titer_half_isnan(r) || titer_half_le(r, hi)) ? r : hi;
}

/* Integers: NumPy's rules; x / 0 and x % 0 give 0 (a GPU would give garbage). */
template <class T> struct titer_int_traits {
    enum { is_signed = (T)-1 < (T)0 };
    static __host__ __device__ constexpr T min() { return is_signed ? (T)((T)1 << (sizeof(T) * 8 - 1)) : (T)0; }
};
template <class T> struct titer_unsigned;
template <> struct titer_unsigned<int8_t> { typedef uint8_t type; };
template <> struct titer_unsigned<uint8_t> { typedef uint8_t type; };
template <> struct titer_unsigned<int16_t> { typedef uint16_t type; };
template <> struct titer_unsigned<uint16_t> { typedef uint16_t type; };
template <> struct titer_unsigned<int32_t> { typedef uint32_t type; };
template <> struct titer_unsigned<uint32_t> { typedef uint32_t type; };
template <> struct titer_unsigned<int64_t> { typedef uint64_t type; };
template <> struct titer_unsigned<uint64_t> { typedef uint64_t type; };

template <class T> TITER_DEV T titer_ifloordiv(T a, T b) {
    if (b == 0) return 0;
    if (titer_int_traits<T>::is_signed && a == titer_int_traits<T>::min() && b == (T)-1) return a;
    T r = (T)(a / b);
    if (((a > 0) != (b > 0)) && (T)(r * b) != a) r--;
    return r;
}
template <class T> TITER_DEV T titer_iremainder(T a, T b) {
    if (b == 0) return 0;
    if (titer_int_traits<T>::is_signed && b == (T)-1) return 0;
    T rem = (T)(a % b);
    return ((a > 0) == (b > 0) || rem == 0) ? rem : (T)(rem + b);
}
template <class T> TITER_DEV T titer_idivmod(T a, T b, T *rem_out) {
    if (b == 0) { *rem_out = 0; return 0; }
    if (titer_int_traits<T>::is_signed && a == titer_int_traits<T>::min() && b == (T)-1) {
        *rem_out = 0;
        return a;
    }
    T quo = (T)(a / b), rem = (T)(a % b);
    if ((a > 0) == (b > 0) || rem == 0) { *rem_out = rem; return quo; }
    *rem_out = (T)(rem + b);
    return (T)(quo - 1);
}
template <class T> TITER_DEV T titer_ifmod(T a, T b) {
    if (b == 0) return 0;
    if (titer_int_traits<T>::is_signed && b == (T)-1) return 0;
    return (T)(a % b);
}
template <class T> TITER_DEV typename titer_unsigned<T>::type titer_iabs(T a) {
    typedef typename titer_unsigned<T>::type U;
    return a < (T)0 ? (U)(0u - (U)a) : (U)a;
}
template <class T> TITER_DEV T titer_igcd(T a, T b) {
    typedef typename titer_unsigned<T>::type U;
    U x = titer_iabs(a), y = titer_iabs(b);
    while (y) { U t = (U)(x % y); x = y; y = t; }
    return (T)x;
}
template <class T> TITER_DEV T titer_ilcm(T a, T b) {
    typedef typename titer_unsigned<T>::type U;
    U x = titer_iabs(a), y = titer_iabs(b);
    U g = (U)titer_igcd(a, b);
    return g == 0 ? (T)0 : (T)(U)((uint64_t)(x / g) * (uint64_t)y);
}
template <class T> TITER_DEV T titer_lshift(T a, T b) {
    typedef typename titer_unsigned<T>::type U;
    return (uint64_t)(int64_t)b < sizeof(T) * 8 ? (T)(U)((uint64_t)(U)a << b) : (T)0;
}
template <class T> TITER_DEV T titer_rshift(T a, T b) {
    if ((uint64_t)(int64_t)b < sizeof(T) * 8) return (T)(a >> b);
    return a < (T)0 ? (T)-1 : (T)0;
}
TITER_DEV int titer_popcount64(uint64_t x) {
#ifdef TITER_HOST_SHIM
    return __builtin_popcountll(x);
#else
    return __popcll(x);
#endif
}
template <class T> TITER_DEV uint8_t titer_popcount(T a) {
    return (uint8_t)titer_popcount64((uint64_t)titer_iabs(a));
}
/* 1.0 / a stored as T; 1/0 gives x86's conversion of inf, as NumPy does. */
template <class T> TITER_DEV T titer_ireciprocal(T a) {
    if (a == 0)
        return (titer_int_traits<T>::is_signed && sizeof(T) >= 4) ? titer_int_traits<T>::min() : (T)0;
    return (T)(1.0 / (double)a);
}
/* a ** b by squaring, wrapping as NumPy's integer power; negative b never
 * reaches a kernel (the dispatcher raises first), 0 if it did. */
template <class T> TITER_DEV T titer_ipow(T a, T b) {
    typedef typename titer_unsigned<T>::type U;
    if (titer_int_traits<T>::is_signed && b < (T)0) return 0;
    if (b == 0 || a == 1) return 1;
    uint64_t base = (uint64_t)a, e = (uint64_t)b;      /* modular, as the CPU's */
    uint64_t out = (e & 1) ? base : 1;
    e >>= 1;
    while (e > 0) { base *= base; if (e & 1) out *= base; e >>= 1; }
    return (T)(U)out;
}
/* c ? x : y (the CPU's branch-free bit select has the same result) */
template <class T> TITER_DEV T titer_select(npy_bool_t c, T x, T y) { return c ? x : y; }
template <class T> TITER_DEV T titer_clip_int(T x, T lo, T hi) {
    T r = x > lo ? x : lo;
    return r < hi ? r : hi;
}

/* ---- conversions between the 14 dtypes: titer/_codegen.py's cast_expr ----
 * By dtype code (titer's, _ops.TYPECHARS order), not by C type: float16 and
 * uint16 share a C type. */
template <int CODE> struct titer_ctype;
template <> struct titer_ctype<0> { typedef npy_bool_t type; };
template <> struct titer_ctype<1> { typedef int8_t type; };
template <> struct titer_ctype<2> { typedef uint8_t type; };
template <> struct titer_ctype<3> { typedef int16_t type; };
template <> struct titer_ctype<4> { typedef uint16_t type; };
template <> struct titer_ctype<5> { typedef int32_t type; };
template <> struct titer_ctype<6> { typedef uint32_t type; };
template <> struct titer_ctype<7> { typedef int64_t type; };
template <> struct titer_ctype<8> { typedef uint64_t type; };
template <> struct titer_ctype<9> { typedef titer_half type; };
template <> struct titer_ctype<10> { typedef float type; };
template <> struct titer_ctype<11> { typedef double type; };
template <> struct titer_ctype<12> { typedef titer_cfloat type; };
template <> struct titer_ctype<13> { typedef titer_cdouble type; };

/* a real value standing for v: half -> float, complex -> real part */
template <int S> TITER_DEV auto titer_real_value(typename titer_ctype<S>::type v) {
    if constexpr (S == 9) return titer_h2f(v);
    else if constexpr (S >= 12) return v.re;
    else return v;
}

template <int D, int S>
TITER_DEV typename titer_ctype<D>::type titer_convert(typename titer_ctype<S>::type v) {
    typedef typename titer_ctype<D>::type DT;
    if constexpr (D == S) {
        return v;
    } else if constexpr (D == 0) {
        if constexpr (S >= 12) return (npy_bool_t)(v.re != 0 || v.im != 0);
        else if constexpr (S == 9) return (npy_bool_t)((v & 0x7fffu) != 0);
        else return (npy_bool_t)(v != 0);
    } else if constexpr (D == 9) {
        if constexpr (S == 0 || S == 10 || S == 12) return titer_f2h((float)titer_real_value<S>(v));
        else return titer_d2h((double)titer_real_value<S>(v));
    } else if constexpr (D >= 12) {
        typedef typename titer_complex_part<DT>::type R;
        if constexpr (S >= 12) return titer_complex_make<DT>((R)v.re, (R)v.im);
        else return titer_complex_make<DT>((R)titer_real_value<S>(v), (R)0);
    } else {
        return (DT)titer_real_value<S>(v);
    }
}

#define TITER_FOR_EACH_CODE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
    X(10) X(11) X(12) X(13)

/* LoadWithCast: the element of dtype `code` at p, as dtype D. */
/* Out of line (one copy per dtype per module), so the cast kernels stay small
 * and quick to compile; the cast path is the slow path anyway. */
#ifndef TITER_NOINLINE
#define TITER_NOINLINE __noinline__
#endif
template <int D>
static __device__ TITER_NOINLINE typename titer_ctype<D>::type titer_load_as(const char *p, int code) {
    switch (code) {
#define TITER_LOAD_CASE(K) \
    case K: return titer_convert<D, K>(*(const typename titer_ctype<K>::type *)p);
    TITER_FOR_EACH_CODE(TITER_LOAD_CASE)
#undef TITER_LOAD_CASE
    }
    return typename titer_ctype<D>::type();
}

/* StoreWithCast: v (dtype S) written at p as dtype `code`. */
template <int S>
static __device__ TITER_NOINLINE void titer_store_as(char *p, int code, typename titer_ctype<S>::type v) {
    switch (code) {
#define TITER_STORE_CASE(K) \
    case K: *(typename titer_ctype<K>::type *)p = titer_convert<K, S>(v); return;
    TITER_FOR_EACH_CODE(TITER_STORE_CASE)
#undef TITER_STORE_CASE
    }
}

#include "titer_cmath.cuh"     /* complex elementary functions */

#endif

/* Complex elementary functions for the device: what the CPU path takes from
 * glibc's <complex.h> (csqrt, cexp, clog, csin, ccos, ctan, csinh, ccosh,
 * ctanh, cpow), written from C99 Annex G's special values and the usual
 * formulas, with the care glibc takes where the plain formula loses digits:
 * overflow scaling for exp/sinh/cosh of large real parts, log|z| near |z| = 1
 * through log1p of x^2 + y^2 - 1 in extra precision, csqrt by Kahan's
 * algorithm with scaling, ctanh through sinh^2 + cos^2.  csin, ccos and ctan
 * are csinh, ccosh and ctanh of i z (Annex G defines their special values
 * that way).  The inverse functions: casin/cacos by Kahan's formulas
 * through csqrt(1 - z) and csqrt(1 + z) ("Branch cuts for complex elementary
 * functions", 1987), log(2z) past 1/eps; catanh by log1p of 4x / |1 - z|^2
 * and atan2 with x^2 + y^2 - 1 in extra precision; the others by the
 * identities casinh(z) = -i casin(iz), cacosh(z) = +-i cacos(z),
 * catan(z) = -i catanh(iz); special values as glibc's.
 * Included by titer_scalar.cuh (after the complex types and helpers). */
#ifndef TITER_CMATH_CUH
#define TITER_CMATH_CUH

/* the real functions by precision (CUDA's float/double overloads, spelled out) */
#define TITER_REAL1(name)                                                        \
    TITER_DEV float titer_r##name(float x) { return name##f(x); }               \
    TITER_DEV double titer_r##name(double x) { return name(x); }
TITER_REAL1(exp) TITER_REAL1(expm1) TITER_REAL1(log) TITER_REAL1(log1p)
TITER_REAL1(sin) TITER_REAL1(cos) TITER_REAL1(sinh) TITER_REAL1(cosh) TITER_REAL1(sqrt)
TITER_REAL1(asinh) TITER_REAL1(atan)
#undef TITER_REAL1
TITER_DEV float titer_ratan2(float y, float x) { return atan2f(y, x); }
TITER_DEV double titer_ratan2(double y, double x) { return atan2(y, x); }
TITER_DEV float titer_rcopysign(float x, float y) { return copysignf(x, y); }
TITER_DEV double titer_rcopysign(double x, double y) { return copysign(x, y); }
TITER_DEV float titer_rfma(float x, float y, float z) { return fmaf(x, y, z); }
TITER_DEV double titer_rfma(double x, double y, double z) { return fma(x, y, z); }

template <class R> struct titer_rlimits;
template <> struct titer_rlimits<float> {
    /* (max exponent - 1) * ln 2: exp() overflows above; the smallest normal */
    static __device__ __forceinline__ float exp_max() { return 88.0296919311f; }
    static __device__ __forceinline__ float min_normal() { return 1.17549435e-38f; }
    static __device__ __forceinline__ float huge() { return 3.40282347e+38f; }
    static __device__ __forceinline__ float eps() { return 1.1920929e-07f; }
    static __device__ __forceinline__ float scale_up() { return 18446744073709551616.0f; }   /* 2^64 */
    static __device__ __forceinline__ float scale_down() { return 4294967296.0f; }           /* 2^32 */
};
template <> struct titer_rlimits<double> {
    static __device__ __forceinline__ double exp_max() { return 709.0895657128241; }
    static __device__ __forceinline__ double min_normal() { return 2.2250738585072014e-308; }
    static __device__ __forceinline__ double huge() { return 1.7976931348623157e+308; }
    static __device__ __forceinline__ double eps() { return 2.220446049250313e-16; }
    static __device__ __forceinline__ double scale_up() { return 20282409603651670423947251286016.0; }  /* 2^104 */
    static __device__ __forceinline__ double scale_down() { return 4503599627370496.0; }               /* 2^52 */
};

#define TITER_CPART typename titer_complex_part<C>::type

/* e^x (cos y, sin y) for finite x, y: for x past exp's overflow the factor
 * e^t is folded into cos/sin first (a finite result stays finite). */
template <class C> TITER_DEV C titer_exp_cis(TITER_CPART x, TITER_CPART y, TITER_CPART half) {
    typedef TITER_CPART R;
    typedef titer_rlimits<R> L;
    R s = y, c = 1;
    if (titer_fabs(y) > L::min_normal()) {
        s = titer_rsin(y);
        c = titer_rcos(y);
    }
    s *= half;
    c *= half;
    const R t = L::exp_max();
    if (x > t) {
        R et = titer_rexp(t);
        x -= t;
        s *= et;
        c *= et;
        if (x > t) {
            x -= t;
            s *= et;
            c *= et;
        }
    }
    if (x > t) return titer_cpack<C>(L::huge() * c, L::huge() * s);   /* overflows */
    R e = titer_rexp(x);
    return titer_cpack<C>(e * c, e * s);
}

template <class C> TITER_DEV C titer_cexp(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (isfinite(x)) {
        if (isfinite(y)) {
            if (y == 0) return titer_cpack<C>(titer_rexp(x), y);
            return titer_exp_cis<C>(x, y, (R)1);
        }
        return titer_cpack<C>((R)NAN, (R)NAN);            /* y inf or NaN */
    }
    if (isinf(x)) {
        R value = x > 0 ? (R)INFINITY : (R)0;
        if (isfinite(y)) {
            if (y == 0) return titer_cpack<C>(value, y);
            return titer_cpack<C>(titer_rcopysign(value, titer_rcos(y)),
                                  titer_rcopysign(value, titer_rsin(y)));
        }
        if (x > 0) return titer_cpack<C>((R)INFINITY, (R)NAN);
        return titer_cpack<C>((R)0, titer_rcopysign((R)0, y));
    }
    if (y == 0) return titer_cpack<C>((R)NAN, y);             /* x NaN */
    return titer_cpack<C>((R)NAN, (R)NAN);
}

/* log|z| for finite z, not both zero; near |z| = 1 as log1p(x^2 + y^2 - 1)/2
 * with the squares split exactly (fma), so the difference keeps its digits. */
TITER_DEV float titer_log_abs(float x, float y) {
    double ax = fabs((double)x), ay = fabs((double)y);
    double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    if (big >= 0.70703125 && big <= 1.4140625)               /* x^2 in [0.5, 2] */
        return (float)(0.5 * log1p((big * big - 1.0) + small * small));
    return (float)log(hypot(ax, ay));                          /* exact squares in double */
}
TITER_DEV double titer_log_abs(double x, double y) {
    double ax = fabs(x), ay = fabs(y);
    double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    if (big >= 0.70703125 && big <= 1.4140625 && small < 1.0) {
        double b2 = big * big, b2e = fma(big, big, -b2);   /* big^2 = b2 + b2e exactly */
        double s2 = small * small, s2e = fma(small, small, -s2);
        double d = ((b2 - 1.0) + s2) + (b2e + s2e);          /* b2 - 1: exact (Sterbenz) */
        return 0.5 * log1p(d);
    }
    return log(hypot(ax, ay));
}

template <class C> TITER_DEV C titer_clog(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (isinf(x) || isinf(y)) return titer_cpack<C>((R)INFINITY, titer_ratan2(y, x));
    if (isnan(x) || isnan(y)) return titer_cpack<C>((R)NAN, (R)NAN);
    if (x == 0 && y == 0)
        return titer_cpack<C>(-(R)INFINITY, titer_rcopysign(signbit(x) ? (R)M_PI : (R)0, y));
    return titer_cpack<C>(titer_log_abs(x, y), titer_ratan2(y, x));
}

template <class C> TITER_DEV C titer_csqrt(C z) {
    typedef TITER_CPART R;
    typedef titer_rlimits<R> L;
    R x = z.re, y = z.im;
    if (isinf(y)) return titer_cpack<C>((R)INFINITY, y);
    if (isinf(x)) {
        if (x < 0) return titer_cpack<C>(isnan(y) ? (R)NAN : (R)0,
                                         titer_rcopysign((R)INFINITY, y));
        return titer_cpack<C>(x, isnan(y) ? (R)NAN : titer_rcopysign((R)0, y));
    }
    if (isnan(x) || isnan(y)) return titer_cpack<C>((R)NAN, (R)NAN);
    if (y == 0) {
        if (x < 0) return titer_cpack<C>((R)0, titer_rcopysign(titer_rsqrt(-x), y));
        return titer_cpack<C>(titer_fabs(titer_rsqrt(x)), titer_rcopysign((R)0, y));
    }
    if (x == 0) {                                  /* both parts sqrt(|y| / 2) */
        R r = titer_fabs(y) >= 2 * L::min_normal() ? titer_rsqrt((R)0.5 * titer_fabs(y))
                                                   : (R)0.5 * titer_rsqrt(2 * titer_fabs(y));
        return titer_cpack<C>(r, titer_rcopysign(r, y));
    }
    /* Kahan: t = sqrt((|x| + |z|) / 2), the other part y / (2 t); scaled so
     * that |z| neither overflows nor loses digits to underflow */
    R scale = 1;
    R ax = titer_fabs(x), ay = titer_fabs(y);
    if (ax > L::huge() / 4 || ay > L::huge() / 4) {
        x *= (R)0.25;
        y *= (R)0.25;
        scale = 2;
    } else if (ax < 4 * L::min_normal() && ay < 4 * L::min_normal()) {
        x *= L::scale_up();
        y *= L::scale_up();
        scale = 1 / L::scale_down();
    }
    R d = titer_hypot(x, y), r, s;
    if (x > 0) {
        r = titer_rsqrt((R)0.5 * (d + x));
        s = (R)0.5 * (y / r);
    } else {
        s = titer_rsqrt((R)0.5 * (d - x));
        r = titer_fabs((R)0.5 * (y / s));
    }
    return titer_cpack<C>(r * scale, titer_rcopysign(s * scale, y));
}

/* sinh(x) cos(y) + i cosh(x) sin(y) */
template <class C> TITER_DEV C titer_csinh(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (isfinite(x)) {
        if (isfinite(y)) {
            R ax = titer_fabs(x);
            if (ax > titer_rlimits<R>::exp_max()) {    /* sinh ~ cosh ~ e^|x| / 2 */
                C w = titer_exp_cis<C>(ax, y, (R)0.5);
                return titer_cpack<C>(titer_rcopysign((R)1, x) * w.re, w.im);
            }
            R s = y, c = 1;
            if (titer_fabs(y) > titer_rlimits<R>::min_normal()) {
                s = titer_rsin(y);
                c = titer_rcos(y);
            }
            return titer_cpack<C>(titer_rsinh(x) * c, titer_rcosh(x) * s);
        }
        if (x == 0) return titer_cpack<C>(x, (R)NAN);
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    if (isinf(x)) {
        if (isfinite(y) && y != 0)
            return titer_cpack<C>(titer_rcopysign((R)INFINITY, titer_rcos(y))
                                      * titer_rcopysign((R)1, x),
                                  titer_rcopysign((R)INFINITY, titer_rsin(y)));
        if (y == 0) return titer_cpack<C>(x, y);
        return titer_cpack<C>((R)INFINITY, (R)NAN);
    }
    if (y == 0) return titer_cpack<C>((R)NAN, y);
    return titer_cpack<C>((R)NAN, (R)NAN);
}

/* cosh(x) cos(y) + i sinh(x) sin(y) */
template <class C> TITER_DEV C titer_ccosh(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (isfinite(x)) {
        if (isfinite(y)) {
            R ax = titer_fabs(x);
            if (ax > titer_rlimits<R>::exp_max()) {
                C w = titer_exp_cis<C>(ax, y, (R)0.5);
                return titer_cpack<C>(w.re, titer_rcopysign((R)1, x) * w.im);
            }
            R s = y, c = 1;
            if (titer_fabs(y) > titer_rlimits<R>::min_normal()) {
                s = titer_rsin(y);
                c = titer_rcos(y);
            }
            return titer_cpack<C>(titer_rcosh(x) * c, titer_rsinh(x) * s);
        }
        return titer_cpack<C>((R)NAN, x == 0 ? (R)0 : (R)NAN);
    }
    if (isinf(x)) {
        if (isfinite(y) && y != 0)
            return titer_cpack<C>(titer_rcopysign((R)INFINITY, titer_rcos(y)),
                                  titer_rcopysign((R)INFINITY, titer_rsin(y))
                                      * titer_rcopysign((R)1, x));
        if (y == 0) return titer_cpack<C>((R)INFINITY, y * titer_rcopysign((R)1, x));
        return titer_cpack<C>((R)INFINITY, (R)NAN);
    }
    return titer_cpack<C>((R)NAN, y == 0 ? y : (R)NAN);
}

/* (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y): no cancellation */
template <class C> TITER_DEV C titer_ctanh(C z) {
    typedef TITER_CPART R;
    typedef titer_rlimits<R> L;
    R x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        if (isinf(x)) {
            R im = titer_rcopysign((R)0, y);
            if (isfinite(y) && titer_fabs(y) > 1)
                im = titer_rcopysign((R)0, titer_rsin(y) * titer_rcos(y));
            return titer_cpack<C>(titer_rcopysign((R)1, x), im);
        }
        if (x == 0) return titer_cpack<C>(x, (R)NAN);        /* C11: +-0 + i NaN */
        if (y == 0) return titer_cpack<C>((R)NAN, y);
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    R s = y, c = 1;
    if (titer_fabs(y) > L::min_normal()) {
        s = titer_rsin(y);
        c = titer_rcos(y);
    }
    const R t = (R)(int)(L::exp_max() / 2);
    if (titer_fabs(x) > t) {                       /* tanh(x) = +-1; im ~ 4 s c e^-2|x| */
        R e2t = titer_rexp(2 * t), rx = titer_fabs(x) - t;
        R im = 4 * s * c / e2t;
        im = rx > t ? im / e2t : im / titer_rexp(2 * rx);
        return titer_cpack<C>(titer_rcopysign((R)1, x), im);
    }
    R sh = x, ch = 1;
    if (titer_fabs(x) > L::min_normal()) {
        sh = titer_rsinh(x);
        ch = titer_rcosh(x);
    }
    R den = titer_fabs(sh) > titer_fabs(c) * L::eps() ? sh * sh + c * c : c * c;
    return titer_cpack<C>(sh * ch / den, s * c / den);
}

/* f(z) = -i g(i z) / h(i z): i z = (-y, x) */
template <class C> TITER_DEV C titer_times_i(C z) { return titer_cpack<C>(-z.im, z.re); }
template <class C> TITER_DEV C titer_times_minus_i(C z) { return titer_cpack<C>(z.im, -z.re); }
template <class C> TITER_DEV C titer_csin(C z) {
    typedef typename titer_complex_part<C>::type R;
    if (isinf(z.im) && !isfinite(z.re))            /* glibc: NaN + i inf, either sign of y */
        return titer_cpack<C>((R)NAN, (R)INFINITY);
    return titer_times_minus_i(titer_csinh(titer_times_i(z)));
}
template <class C> TITER_DEV C titer_ccos(C z) { return titer_ccosh(titer_times_i(z)); }
template <class C> TITER_DEV C titer_ctan(C z) { return titer_times_minus_i(titer_ctanh(titer_times_i(z))); }

/* the CPU header's formulas on top of the above */
template <class C> TITER_DEV C titer_clog10(C z) {
    typedef TITER_CPART R;
    C r = titer_clog(z);
    return titer_cpack<C>(r.re * (R)0.43429448190325182765, r.im * (R)0.43429448190325182765);
}
template <class C> TITER_DEV C titer_clog2(C z) {
    typedef TITER_CPART R;
    C r = titer_clog(z);
    return titer_cpack<C>(r.re * (R)M_LOG2E, r.im * (R)M_LOG2E);
}
template <class C> TITER_DEV C titer_cexp2(C z) {
    typedef TITER_CPART R;
    return titer_cexp(titer_cpack<C>(z.re * (R)M_LN2, z.im * (R)M_LN2));
}
template <class C> TITER_DEV C titer_cexpm1(C z) {
    typedef TITER_CPART R;
    R a = titer_rsin(z.im / 2);
    return titer_cpack<C>(titer_rexpm1(z.re) * titer_rcos(z.im) - 2 * a * a,
                          titer_rexp(z.re) * titer_rsin(z.im));
}
template <class C> TITER_DEV C titer_clog1p(C z) {
    typedef TITER_CPART R;
    R l = titer_hypot(z.re + 1, z.im);
    return titer_cpack<C>(titer_rlog(l), titer_ratan2(z.im, z.re + 1));
}

/* NumPy's npy_cpow: exact small integer powers by squaring, else
 * cexp(b log a) as glibc's cpow (a plain complex product in between). */
template <class C> TITER_DEV C titer_cmul_plain(C a, C b) {
    return titer_cpack<C>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class C> TITER_DEV C titer_cpow(C a, C b) {
    typedef TITER_CPART R;
    R br = b.re, bi = b.im;
    if (br == 0 && bi == 0) return titer_cpack<C>((R)1, (R)0);
    if (a.re == 0 && a.im == 0) {
        if (br > 0) return titer_cpack<C>((R)0, (R)0);
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    if (bi == 0 && br > -100 && br < 100 && (R)(int64_t)br == br) {
        int64_t n = (int64_t)br, mask = 1;
        if (n == 1) return a;
        if (n == 2) return titer_cmul_plain(a, a);
        if (n == 3) return titer_cmul_plain(a, titer_cmul_plain(a, a));
        C aa = titer_cpack<C>((R)1, (R)0), p = a;
        if (n < 0) n = -n;
        while (1) {
            if (n & mask) aa = titer_cmul_plain(aa, p);
            mask <<= 1;
            if (n < mask || mask <= 0) break;
            p = titer_cmul_plain(p, p);
        }
        if (br < 0) aa = titer_cdiv(titer_cpack<C>((R)1, (R)0), aa);
        return aa;
    }
    return titer_cexp(titer_cmul_plain(b, titer_clog(a)));
}

/* x^2 + y^2 - 1 for 0 <= y <= x, x in [0.5, 2): squares split exactly */
TITER_DEV float titer_x2y2m1(float x, float y) {
    double dx = x, dy = y;
    return (float)((dx * dx - 1.0) + dy * dy);         /* exact squares in double */
}
TITER_DEV double titer_x2y2m1(double x, double y) {
    double x2 = x * x, x2e = fma(x, x, -x2), y2 = y * y, y2e = fma(y, y, -y2);
    return ((x2 - 1.0) + y2) + (x2e + y2e);
}

/* casin for finite z, not both zero (Kahan) */
template <class C> TITER_DEV C titer_casin_finite(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (titer_fabs(x) >= 1 / titer_rlimits<R>::eps() || titer_fabs(y) >= 1 / titer_rlimits<R>::eps()) {
        /* asin z = -i log(2 i z) up to 1/|z|^2: (atan2(x, |y|), sign(y) log 2|z|) */
        R l = titer_rlog(titer_hypot(x / 2, y / 2)) + 2 * (R)M_LN2;
        R re = titer_ratan2(x, titer_fabs(y));
        return titer_cpack<C>(re, titer_rcopysign(l, y));
    }
    C s1 = titer_csqrt(titer_cpack<C>(1 - x, -y)), s2 = titer_csqrt(titer_cpack<C>(1 + x, y));
    return titer_cpack<C>(titer_ratan2(x, s1.re * s2.re - s1.im * s2.im),
                          titer_rasinh(s1.re * s2.im - s1.im * s2.re));
}

template <class C> TITER_DEV C titer_casinh(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        if (isinf(y)) {
            if (isnan(x)) return titer_cpack<C>(titer_rcopysign((R)INFINITY, x), (R)NAN);
            return titer_cpack<C>(titer_rcopysign((R)INFINITY, x),
                                  titer_rcopysign(isinf(x) ? (R)M_PI / 4 : (R)M_PI / 2, y));
        }
        if (!isfinite(x)) {                            /* x inf or NaN, y finite or NaN */
            bool zero_im = (isinf(x) && !isnan(y)) || (isnan(x) && y == 0);
            return titer_cpack<C>(x, zero_im ? titer_rcopysign((R)0, y) : (R)NAN);
        }
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    if (x == 0 && y == 0) return z;
    C w = titer_casin_finite(titer_times_i(z));
    return titer_times_minus_i(w);
}

template <class C> TITER_DEV C titer_casin(C z) {
    typedef TITER_CPART R;
    if (isnan(z.re) || isnan(z.im)) {
        if (z.re == 0) return z;
        if (isinf(z.re) || isinf(z.im)) return titer_cpack<C>((R)NAN, titer_rcopysign((R)INFINITY, z.im));
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    return titer_times_minus_i(titer_casinh(titer_times_i(z)));
}

/* cacos for finite z, not both zero (Kahan) */
template <class C> TITER_DEV C titer_cacos_finite(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (titer_fabs(x) >= 1 / titer_rlimits<R>::eps() || titer_fabs(y) >= 1 / titer_rlimits<R>::eps()) {
        R l = titer_rlog(titer_hypot(x / 2, y / 2)) + 2 * (R)M_LN2;
        return titer_cpack<C>(titer_ratan2(titer_fabs(y), x), titer_rcopysign(l, -y));
    }
    C s1 = titer_csqrt(titer_cpack<C>(1 - x, -y)), s2 = titer_csqrt(titer_cpack<C>(1 + x, y));
    return titer_cpack<C>(2 * titer_ratan2(s1.re, s2.re),
                          titer_rasinh(s2.re * s1.im - s2.im * s1.re));
}

template <class C> TITER_DEV C titer_cacos(C z) {
    typedef TITER_CPART R;
    if (!isfinite(z.re) || !isfinite(z.im) || (z.re == 0 && z.im == 0)) {
        C a = titer_casin(z);
        R re = (R)M_PI / 2 - a.re;
        return titer_cpack<C>(re == 0 ? (R)0 : re, -a.im);
    }
    return titer_cacos_finite(z);
}

template <class C> TITER_DEV C titer_cacosh(C z) {
    typedef TITER_CPART R;
    R x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        if (isinf(y)) {
            if (isnan(x)) return titer_cpack<C>((R)INFINITY, (R)NAN);
            R angle = isinf(x) ? (x < 0 ? (R)M_PI - (R)M_PI / 4 : (R)M_PI / 4) : (R)M_PI / 2;
            return titer_cpack<C>((R)INFINITY, titer_rcopysign(angle, y));
        }
        if (isinf(x)) {
            if (isnan(y)) return titer_cpack<C>((R)INFINITY, (R)NAN);
            return titer_cpack<C>((R)INFINITY, titer_rcopysign(signbit(x) ? (R)M_PI : (R)0, y));
        }
        return titer_cpack<C>((R)NAN, x == 0 ? (R)M_PI / 2 : (R)NAN);
    }
    if (x == 0 && y == 0) return titer_cpack<C>((R)0, titer_rcopysign((R)M_PI / 2, y));
    C a = titer_cacos_finite(z);                  /* acosh z = +-i acos z, Re >= 0 */
    if (signbit(y)) return titer_cpack<C>(a.im, -a.re);
    return titer_cpack<C>(-a.im, a.re);
}

template <class C> TITER_DEV C titer_catanh(C z) {
    typedef TITER_CPART R;
    typedef titer_rlimits<R> L;
    R x = z.re, y = z.im;
    if (!isfinite(x) || !isfinite(y)) {
        if (isinf(y))
            return titer_cpack<C>(titer_rcopysign((R)0, x), titer_rcopysign((R)M_PI / 2, y));
        if (isinf(x) || x == 0)
            return titer_cpack<C>(titer_rcopysign((R)0, x),
                                  isnan(y) ? (R)NAN : titer_rcopysign((R)M_PI / 2, y));
        return titer_cpack<C>((R)NAN, (R)NAN);
    }
    if (x == 0 && y == 0) return z;
    const R eps = L::eps();
    R re, im;
    if (titer_fabs(x) >= 16 / eps || titer_fabs(y) >= 16 / eps) {
        im = titer_rcopysign((R)M_PI / 2, y);
        if (titer_fabs(y) <= 1) re = 1 / x;
        else if (titer_fabs(x) <= 1) re = x / y / y;
        else {
            R h = titer_hypot(x / 2, y / 2);
            re = x / h / h / 4;
        }
        return titer_cpack<C>(re, im);
    }
    /* Re: log(|1 + z|^2 / |1 - z|^2) / 4, as log1p(4x / |1 - z|^2) / 4 near 1 */
    if (titer_fabs(x) == 1 && titer_fabs(y) < eps * eps) {
        re = titer_rcopysign((R)0.5, x) * ((R)M_LN2 - titer_rlog(titer_fabs(y)));
    } else {
        R y2 = titer_fabs(y) >= eps * eps ? y * y : (R)0;
        R num = 1 + x, den = 1 - x;
        num = y2 + num * num;
        den = y2 + den * den;
        R f = num / den;
        re = f < (R)0.5 ? (R)0.25 * titer_rlog(f) : (R)0.25 * titer_rlog1p(4 * x / den);
    }
    /* Im: atan2(2y, 1 - x^2 - y^2) / 2 */
    R ax = titer_fabs(x), ay = titer_fabs(y), d;
    if (ax < ay) {
        R t = ax;
        ax = ay;
        ay = t;
    }
    if (ay < eps / 2) {
        d = (1 - ax) * (1 + ax);
        if (d == 0) d = 0;
    } else if (ax >= 1) {
        d = (1 - ax) * (1 + ax) - ay * ay;
    } else if (ax >= (R)0.75 || ay >= (R)0.5) {
        d = -titer_x2y2m1(ax, ay);
    } else {
        d = (1 - ax) * (1 + ax) - ay * ay;
    }
    im = (R)0.5 * titer_ratan2(2 * y, d);
    return titer_cpack<C>(re, im);
}

template <class C> TITER_DEV C titer_catan(C z) {
    return titer_times_minus_i(titer_catanh(titer_times_i(z)));
}

#undef TITER_CPART
#endif

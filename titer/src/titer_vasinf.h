/* float32 arcsin and arccos in float on sixteen lanes where AVX-512 is the
 * target, division-free, each with its scalar twin (the same kernel on one
 * float: the same bits) for a block's remainder.  The levels without
 * AVX-512 keep the vector math library's loops (or, without it, the double
 * formulas of titer_fast_arcsinf and titer_fast_arccosf).
 *
 * Both from asin(s) = s + c, c = s z P(z), for one s in [0, 1/2], as
 * titer_fast_arcsin does in double: a = |x|; where a <= 1/2, s = a and z =
 * a^2 (a held at 2^-12 or more for the square: below, asin a rounds to a
 * anyway, and a^3 would underflow); above, z = (1 - a)/2 (exact) and s =
 * sqrt(z).  P is of degree 5 (tools/fit_asin.py --degree 5 --float32:
 * 2^-29.5 relative for asin on [0, 1/2]).  Then
 *   asin x = s + c (a <= 1/2), pi/2 - 2(s + c) (above), x's sign put back;
 *   acos x = pi/2 - sign(x)(s + c) (a <= 1/2), 2(s + c) (x > 1/2),
 *            pi - 2(s + c) (x < -1/2);
 * each H + m (s + c) with H in {0, pi/2, pi} (a head and a tail) and m in
 * {+-1, +-2}: the head plus m s in one FMA, the tail plus m c in another,
 * then their sum.  Within 2 ULP of the float64 function rounded to float32
 * for asin (9288 float32s at 2, 0.5% at 1) and 1 ULP for acos (7% at 1) on
 * every float32 of the ranges (asin 2^-60 <= |x| < 1, acos |x| < 1),
 * raising nothing but inexact, the twins bit-identical (checked
 * exhaustively in C with this header); the vector math library's loops
 * they replace reach 3 ULP (asinf, 4728 at 3) and 2 (acosf).  Summing the
 * head and m s exactly (Fast2Sum) brings asin to 1 ULP, at 10-20% more
 * time.  In cache on one AVX-512 thread (Sapphire Rapids class, C harness,
 * 4096 floats in [0.1, 0.9), interleaved): asin 0.44-0.48 ns an element
 * against 0.63 for _ZGVeN16v_asinf (3.4 for the double formula, two
 * divisions and a square root); acos 0.58-0.62 against 0.61-0.65 for
 * _ZGVeN16v_acosf; rsqrt14 and a Newton step in place of vsqrtps measured
 * 5% slower.  The operations as in titer_vlog1pf.h, MAX in CVT's and MIN's
 * place; included by titer_scalar.h after the double forms. */
#ifndef TITER_VASINF_H
#define TITER_VASINF_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)

/* pick the bits of b where the mask m is set, else those of c */
#define TITER_ASINF_PICK(m, b, c) (((m) & (b)) | (~(m) & (c)))
/* big (a > 1/2), s and c with asin(s) ~ s + c, c = s z P(z), for a = |x|
 * >= 2^-60 (VI masks: MASK) */
#define TITER_ASINF_PARTS(V, VI, FMA, C, TOBITS, FROMBITS, MAX, SQRT, MASK, a, big, s, c)  \
    VI big = MASK(a > C(0.5f));                                                        \
    V rest_ = FMA(a, C(-0.5f), C(0.5f));                        /* (1 - a)/2 */        \
    V square_in_ = MAX(a, C(0x1p-12f));                                                \
    V z_ = FROMBITS(TITER_ASINF_PICK(big, TOBITS(rest_), TOBITS(square_in_ * square_in_))); \
    V s = FROMBITS(TITER_ASINF_PICK(big, TOBITS(SQRT(rest_)), TOBITS(a)));             \
    V p_ = FMA(C(0x1.32c376p-5f), z_, C(0x1.dabcd6p-7f));                              \
    p_ = FMA(p_, z_, C(0x1.0476fep-5f));                                               \
    p_ = FMA(p_, z_, C(0x1.6cb1d6p-5f));                                               \
    p_ = FMA(p_, z_, C(0x1.33386ap-4f));                                               \
    p_ = FMA(p_, z_, C(0x1.55554cp-3f));                                               \
    V c = (s * z_) * p_;
/* H + m (s + c), H's head and tail and m given as bits */
#define TITER_ASINF_SUM(V, FMA, FROMBITS, head, tail, m, s, c, result)                  \
    V result = FMA(FROMBITS(m), s, FROMBITS(head)) + FMA(FROMBITS(m), c, FROMBITS(tail));

#define TITER_PI_2_HEAD 0x3fc90fdb      /* pi/2 rounded up, and the rest */
#define TITER_PI_2_TAIL 0xb33bbd2e
#define TITER_PI_HEAD 0x40490fdb
#define TITER_PI_TAIL 0xb3bbbd2e
#define TITER_FLOAT_2 0x40000000
#define TITER_FLOAT_1 0x3f800000

/* asin: A (a <= 1/2), pi/2 - 2A (above), the sign of x put back */
#define TITER_ASINF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, MAX, SQRT, MASK, x, result) \
    VI sign_ = TOBITS(x) & ~0x7fffffff;                                                \
    V a_ = FROMBITS(TOBITS(x) ^ sign_);                                                \
    TITER_ASINF_PARTS(V, VI, FMA, C, TOBITS, FROMBITS, MAX, SQRT, MASK, a_, big_, s_, c_) \
    TITER_ASINF_SUM(V, FMA, FROMBITS, TITER_PI_2_HEAD & big_, TITER_PI_2_TAIL & big_,  \
                    TITER_ASINF_PICK(big_, TITER_FLOAT_2 | ~0x7fffffff, TITER_FLOAT_1), \
                    s_, c_, unsigned_)                                                 \
    V result = FROMBITS(TOBITS(unsigned_) | sign_);

/* acos, with q = sign(x) s and r = sign(x) c: pi/2 - (q + r) (|x| <= 1/2),
 * H + 2(q + r) above, H = 0 for x > 0 and pi for x < 0; a below 2^-60
 * computes as 2^-60 (the result rounds the same, and c does not underflow) */
#define TITER_ACOSF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, MAX, SQRT, MASK, x, result) \
    VI sign_ = TOBITS(x) & ~0x7fffffff;                                                \
    V a_ = MAX(FROMBITS(TOBITS(x) ^ sign_), C(0x1p-60f));                              \
    TITER_ASINF_PARTS(V, VI, FMA, C, TOBITS, FROMBITS, MAX, SQRT, MASK, a_, big_, s_, c_) \
    VI negative_ = sign_ >> 31;                                                        \
    TITER_ASINF_SUM(V, FMA, FROMBITS,                                                  \
                    TITER_ASINF_PICK(big_, TITER_PI_HEAD & negative_, TITER_PI_2_HEAD), \
                    TITER_ASINF_PICK(big_, TITER_PI_TAIL & negative_, TITER_PI_2_TAIL), \
                    TITER_ASINF_PICK(big_, TITER_FLOAT_2, TITER_FLOAT_1 | ~0x7fffffff),  \
                    FROMBITS(TOBITS(s_) ^ sign_), FROMBITS(TOBITS(c_) ^ sign_), result)

/* the operations on one float and on sixteen (titer_vlog1pf.h's, with MAX
 * for CVT and MIN) */
#define TITER_F1_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TITER_V16_MAX(a, b) ((titer_v16f)_mm512_max_ps((__m512)(a), (__m512)(b)))
#define TITER_ASINF_F1_OPS float, int32_t, __builtin_fmaf, TITER_SCALAR_C, TITER_F1_TOBITS, \
                           TITER_F1_FROMBITS, TITER_F1_MAX, sqrtf, TITER_F1_MASK
#define TITER_ASINF_V16_OPS titer_v16f, titer_v16i, TITER_V16_FMA, TITER_V16_C, TITER_V16_TOBITS, \
                            TITER_V16_FROMBITS, TITER_V16_MAX, TITER_V16_SQRT, TITER_V16_MASK
TITER_F16_FORMS_OF(titer_asinf_twin, titer_vasinf16, TITER_ASINF_KERNEL, TITER_ASINF_F1_OPS,
                   TITER_ASINF_V16_OPS)
TITER_F16_FORMS_OF(titer_acosf_twin, titer_vacosf16, TITER_ACOSF_KERNEL, TITER_ASINF_F1_OPS,
                   TITER_ASINF_V16_OPS)

/* the scalar paths' ranges (titer_fast_arcsinf_ok, titer_fast_arccosf_ok) on
 * sixteen floats; the lanes out of them keep their inputs for the kernel */
TITER_MAGNITUDE_RANGE16(titer_vasinf16_ok, 0x21800000u, 0x3f800000u)
TITER_MAGNITUDE_RANGE16(titer_vacosf16_ok, 0u, 0x3f800000u)
#define titer_vasinf16_rest TITER_VEC_REST_INPUT
#define titer_vacosf16_rest TITER_VEC_REST_INPUT
#define titer_vasinf16_safe 0.5f
#define titer_vacosf16_safe 0.5f

#endif
#endif

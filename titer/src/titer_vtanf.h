/* float32 tan where AVX-512 is the target, in two forms picked per element
 * by its magnitude: below, a 16-lane form in float for 2^-39 <= |x| < 2^17
 * (titer_vtanf16), and first an 8-lane form in double for the rest of the
 * fast range 2^-126 <= |x| < 2^20: titer_fast_tanf's reduction and
 * rational (TITER_TANF_KERNEL, titer_scalar.h) on eight lanes from eight
 * floats (vcvtps2pd, vcvtpd2ps), the quotient's seed from vrcp14pd, a
 * reciprocal good to 2^-14, where the scalar kernel divides in float: one
 * Newton step q0 + r0 (num - den q0) leaves a relative error near 2^-28,
 * far inside float32's half ULP.  Within 1 ULP of the float64 tan rounded
 * to float32 on every float32 of its range (checked exhaustively, both
 * signs).  titer_tanf_twin, the forms' scalar twin (vrcp14ss/sd: the same
 * tables), takes a block's last n mod 16 elements, so an element gets the
 * same bits whichever computes it; the levels without AVX-512 keep
 * titer_fast_tanf.  Included by titer_scalar.h after titer_fast_tanf. */
#ifndef TITER_VTANF_H
#define TITER_VTANF_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)

TITER_FAST_INLINE float titer_tanf_rcp14(float xf) {
    double x = xf;
    TITER_TANF_KERNEL(double, uint64_t, titer_poly_fma, TITER_SCALAR_C, titer_d2bits,
                      titer_bits2d, TITER_RCP14_SD, x, result)
    return (float)result;
}

TITER_FAST_INLINE __m256 titer_vtanf8(__m256 xf) {
    titer_v8d x = (titer_v8d)_mm512_cvtps_pd(xf);
    TITER_TANF_KERNEL(titer_v8d, titer_v8u, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS,
                      TITER_V8_FROMBITS, TITER_V8_RCP14, x, result)
    return _mm512_cvtpd_ps((__m512d)result);
}
/* titer_fast_tanf_ok (titer_fast_sincosf_ok) on eight floats' bits */
TITER_FAST_INLINE __mmask8 titer_vtanf8_ok(__m256i bits) {
    __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    return _mm256_cmplt_epu32_mask(_mm256_sub_epi32(magnitude, _mm256_set1_epi32(0x00800000)),
                                   _mm256_set1_epi32(0x49800000 - 0x00800000));
}

/* float32 tan in float, sixteen lanes, for 2^-39 <= |x| < 2^17 (the
 * double form above, half as many lanes, takes the rest of the fast
 * range).  x = k pi/2 + r with r as a head and a tail: pi/2 = A + B + C in
 * floats, x - k A exact in one FMA (a multiple of A's unit, below 1), k B
 * as an exact product pair, the head's rounding error recovered; tan r =
 * rh + s with s = rh z P(z) + rl (1 + z), z = rh^2, P of degree 6
 * (tools/fit_tan.py --degree 6 --float32); in odd quadrants -1 / (rh + s)
 * from a = vrcp14ps(th), th = rh + s rounded, a correction e = 1 - a (rh +
 * s) in two FMAs and -(a + a e).  Within 1 ULP of the float64 tan rounded
 * to float32 on every float32 of the range, both signs, raising nothing
 * there (checked exhaustively; rh z rh starts to underflow near 2^-42).
 * 0.43 ns an element in cache on one AVX-512 thread against the double
 * form's 0.73 (a C harness, the same inputs).  For a form V: FMA, C, RCP
 * (vrcp14) and PICK_ODD(big, q, th), q where k is odd, else th. */
#define TITER_TANF16_KERNEL(V, FMA, C, RCP, PICK_ODD, x, result)                      \
    V big = FMA(x, C(0x1.45f306p-1f), C(12582912.0f));         /* 1.5 * 2^23 */      \
    V k = big - C(12582912.0f);                                                       \
    V r1 = FMA(-k, C(0x1.921fb6p+0f), x);                                             \
    V ph = k * C(-0x1.777a5cp-25f);                                                   \
    V pl = FMA(k, C(-0x1.777a5cp-25f), -ph);                                          \
    V rh = r1 - ph;                                                                   \
    V rl = FMA(-k, C(-0x1.ee59dap-50f), ((r1 - rh) - ph) - pl);                       \
    V z = rh * rh;                                                                    \
    V p = FMA(C(0x1.117266p-8f), z, C(0x1.1cae2ep-11f));                              \
    p = FMA(p, z, C(0x1.560232p-7f));                                                 \
    p = FMA(p, z, C(0x1.5f8d48p-6f));                                                 \
    p = FMA(p, z, C(0x1.ba88bep-5f));                                                 \
    p = FMA(p, z, C(0x1.110fccp-3f));                                                 \
    p = FMA(p, z, C(0x1.555556p-2f));                                                 \
    V s = FMA(rh * z, p, FMA(rl, z, rl));                                             \
    V th = rh + s;                                                                    \
    V a = RCP(th);                                                                    \
    V e = FMA(-a, s, FMA(-a, rh, C(1.0f)));                                           \
    V result = PICK_ODD(big, -FMA(a, e, a), th);
#define TITER_TANF16_SCALAR_RCP(f) _mm_cvtss_f32(_mm_rcp14_ss(_mm_setzero_ps(), _mm_set_ss(f)))
#define TITER_TANF16_SCALAR_ODD(big, q, th) ((titer_f2bits(big) & 1) ? (q) : (th))
TITER_FAST_INLINE float titer_tanf16_scalar(float x) {
    TITER_TANF16_KERNEL(float, __builtin_fmaf, TITER_SCALAR_C, TITER_TANF16_SCALAR_RCP,
                        TITER_TANF16_SCALAR_ODD, x, result)
    return result;
}
#define TITER_V16_FMA(a, b, c) ((titer_v16f)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#define TITER_V16_C(c) ((titer_v16f)_mm512_set1_ps(c))
#define TITER_V16_RCP14(v) ((titer_v16f)_mm512_rcp14_ps((__m512)(v)))
#define TITER_V16_ODD(big, q, th) ((titer_v16f)_mm512_mask_blend_ps(                 \
    _mm512_test_epi32_mask((__m512i)(big), _mm512_set1_epi32(1)), (__m512)(th), (__m512)(q)))
TITER_FAST_INLINE titer_v16f titer_vtanf16(titer_v16f x) {
    TITER_TANF16_KERNEL(titer_v16f, TITER_V16_FMA, TITER_V16_C, TITER_V16_RCP14, TITER_V16_ODD,
                        x, result)
    return result;
}
/* the float form's range, on sixteen floats */
#define TITER_TANF16_LO 0x2c000000u                                 /* 2^-39 */
#define TITER_TANF16_HI 0x48000000u                                 /* 2^17 */
TITER_FAST_INLINE __mmask16 titer_vtanf16_ok(titer_v16f x) {
    __m512i magnitude = _mm512_and_si512((__m512i)x, _mm512_set1_epi32(0x7fffffff));
    return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(TITER_TANF16_LO)),
                                   _mm512_set1_epi32(TITER_TANF16_HI - TITER_TANF16_LO));
}
/* an element of the fast range as the vector loop computes it: the float
 * form in its range, the double form's twin in the rest */
TITER_FAST_INLINE float titer_tanf_twin(float x) {
    return titer_fabs_bits(x) - TITER_TANF16_LO < TITER_TANF16_HI - TITER_TANF16_LO
               ? titer_tanf16_scalar(x) : titer_tanf_rcp14(x);
}
#define TITER_HAVE_VFAST_F16 1

/* TITER_VEC_LOOP_D8's float32 twin (titer_vexp.h), for a fast path with a
 * 16-lane form VFAST16 (VOK16 the mask of its lanes), in blocks
 * (TITER_VEC_BLOCKS_BEGIN): a vector all in VFAST16's range goes straight
 * through it;
 * another through VFAST16 with its other lanes given SAFE (an input of the
 * range), and those lanes through REST(in, mask, rest, kept): a second form
 * for the rest of the fast range (tan's 8-lane one, TITER_VEC_REST_F8) or
 * none (TITER_VEC_REST_INPUT); the lanes no form took keep their inputs,
 * recomputed by KERNEL (libm) after the block from the inputs left in the
 * output.  The block's last n mod 16 elements go through TWIN (the forms'
 * scalar twins, by the same ranges, OK their union) or KERNEL, so an
 * element gets the same bits whichever computes it.  (Masking every vector
 * cost 0.71 ns an element against 0.62 in cache for the 8-lane loop on one
 * AVX-512 thread: the masks' moves and blends compete with the arithmetic
 * for its ports.) */
#define TITER_VEC_HALF_F8(VOK8, VFAST8, in8, fast16, out8, kept8)               \
    {                                                                        \
        __mmask8 mask8 = (__mmask8)(VOK8(_mm256_castps_si256(in8)) & ~(fast16)); \
        __m256 f8 = VFAST8(_mm256_maskz_mov_ps(mask8, in8));                 \
        out8 = _mm256_mask_blend_ps(mask8, in8, f8);                         \
        kept8 = mask8;                                                       \
    }
/* the lanes of a 16-lane vector `in` out of `mask` through an 8-lane form,
 * each half, into rest; kept: the lanes it took */
#define TITER_VEC_REST_F8(VOK8, VFAST8, in, mask, rest, kept)                  \
    {                                                                        \
        __m256 lo, hi; __mmask8 kept_lo, kept_hi;                            \
        TITER_VEC_HALF_F8(VOK8, VFAST8, _mm512_castps512_ps256((__m512)(in)), \
                          mask, lo, kept_lo)                                 \
        TITER_VEC_HALF_F8(VOK8, VFAST8, _mm512_extractf32x8_ps((__m512)(in), 1), \
                          (mask) >> 8, hi, kept_hi)                          \
        rest = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);        \
        kept = (__mmask16)(kept_lo | (__mmask16)(kept_hi << 8));             \
    }
#define TITER_VEC_REST_INPUT(in, mask, rest, kept)                             \
    {                                                                        \
        rest = (__m512)(in);                                                 \
        kept = 0;                                                            \
    }
#define titer_vtanf16_rest(in, mask, rest, kept)                               \
    TITER_VEC_REST_F8(titer_vtanf8_ok, titer_vtanf8, in, mask, rest, kept)
#define titer_vtanf16_safe 1.0f
#define TITER_VEC_LOOP_F16(KERNEL, OK, TWIN, VOK16, VFAST16, REST, SAFE)       \
    TITER_VEC_BLOCKS_BEGIN(float)                                            \
        __mmask16 keep[TITER_SPLIT_BLOCK / 16];  /* lanes through a form */  \
        int64_t nv = m / 16, first_partial = nv;                            \
        for (int64_t v = 0; v < nv; v++) {                                   \
            titer_v16f in = *(const titer_v16f_u *)(bx + 16 * v);           \
            __mmask16 mask = VOK16(in);                                      \
            keep[v] = 0xffff;                                                \
            if (__builtin_expect(mask == 0xffff, 1)) {                       \
                *(titer_v16f_u *)(bo + 16 * v) = VFAST16(in);                \
                continue;                                                    \
            }                                                                \
            titer_v16f f = VFAST16((titer_v16f)_mm512_mask_mov_ps(           \
                _mm512_set1_ps(SAFE), mask, (__m512)in));                    \
            __m512 rest; __mmask16 kept;                                     \
            REST(in, mask, rest, kept)                                       \
            *(titer_v16f_u *)(bo + 16 * v) =                                  \
                (titer_v16f)_mm512_mask_blend_ps(mask, rest, (__m512)f);     \
            keep[v] = mask | kept;                                           \
            if (keep[v] != 0xffff && first_partial == nv)                    \
                first_partial = v;                                           \
        }                                                                    \
        for (int64_t i = 16 * nv; i < m; i++) {                              \
            float xi = bx[i];                                                \
            bo[i] = OK(xi) ? TWIN(xi) : KERNEL(xi);                          \
        }                                                                    \
        for (int64_t i = 16 * first_partial; i < 16 * nv; i++)               \
            if (!((keep[i / 16] >> (i % 16)) & 1)) bo[i] = KERNEL(bo[i]);    \
    TITER_VEC_BLOCKS_END(float)
#endif
#endif

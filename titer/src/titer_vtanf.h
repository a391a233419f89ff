/* float32 tan where AVX-512 is the target: titer_fast_tanf's reduction and
 * rational in double (TITER_TANF_KERNEL, titer_scalar.h), eight lanes from eight floats (vcvtps2pd, vcvtpd2ps:
 * GCC's vectorization of the scalar kernel took sixteen floats and split
 * and joined their halves with shuffles), and the quotient's seed from
 * vrcp14pd, a reciprocal good to 2^-14, where the scalar kernel divides in
 * float: one Newton step q0 + r0 (num - den q0) leaves a relative error
 * near 2^-28, far inside float32's half ULP.  Within 1 ULP of the float64
 * tan rounded to float32 on every float32 with 2^-126 <= |x| < 2^20
 * (checked exhaustively, both signs); 0.72 ns an element in cache on one
 * AVX-512 thread in the scalar kernel's loop, 0.62 in this one.
 * titer_tanf_rcp14, its scalar twin (vrcp14sd: the same table), takes a
 * block's last n mod 8 elements, so an element gets the same bits
 * whichever computes it; the levels without AVX-512 keep titer_fast_tanf.
 * Included by titer_scalar.h after titer_fast_tanf. */
#ifndef TITER_VTANF_H
#define TITER_VTANF_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)

#define TITER_TANF_SCALAR_RCP14(d) _mm_cvtsd_f64(_mm_rcp14_sd(_mm_setzero_pd(), _mm_set_sd(d)))
TITER_FAST_INLINE float titer_tanf_rcp14(float xf) {
    double x = xf;
    TITER_TANF_KERNEL(double, uint64_t, titer_poly_fma, TITER_TANF_SCALAR_C, titer_d2bits,
                      titer_bits2d, TITER_TANF_SCALAR_RCP14, x, result)
    return (float)result;
}

#define TITER_V8_RCP14(d) ((titer_v8d)_mm512_rcp14_pd((__m512d)(d)))
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
#define TITER_HAVE_VFAST_F8 1

/* TITER_VEC_LOOP_D8's float32 twin (titer_vexp.h), for a fast path with an
 * 8-lane form VFAST taking and giving eight floats (VOK its range test, a
 * mask of the lanes in range): on contiguous operands a block's vectors
 * with every lane in range go straight through VFAST; another has its
 * out-of-range lanes given 0, keeping their inputs, and recomputed by
 * KERNEL (libm) from the inputs left in the output, from the block's first
 * such vector on; the block's last n mod 8 elements go through the scalar
 * twin TWIN or KERNEL.  (Masking every vector cost 0.71 ns an element
 * against 0.62 in cache on one AVX-512 thread: the masks' moves and
 * blends compete with the conversions for one port.) */
#define TITER_VEC_LOOP_F8(KERNEL, OK, TWIN, VOK, VFAST)                         \
    char *o = data[0], *x = data[1];                                         \
    const int64_t so = strides[0], sx = strides[1];                         \
    if (so == (int64_t)sizeof(float) && sx == (int64_t)sizeof(float)) {      \
        float *po = (float *)o; const float *px = (const float *)x;         \
        __mmask8 keep[TITER_SPLIT_BLOCK / 8];    /* lanes through VFAST */   \
        for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {     \
            int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
            float *bo = po + start; const float *bx = px + start;            \
            int64_t nv = m / 8, first_partial = nv;                         \
            for (int64_t v = 0; v < nv; v++) {                               \
                __m256 in = _mm256_loadu_ps(bx + 8 * v);                     \
                __mmask8 mask = VOK(_mm256_castps_si256(in));                \
                keep[v] = mask;                                              \
                if (__builtin_expect(mask == 0xff, 1)) {                     \
                    _mm256_storeu_ps(bo + 8 * v, VFAST(in));                 \
                    continue;                                                \
                }                                                            \
                if (first_partial == nv)                                     \
                    first_partial = v;                                       \
                __m256 f = VFAST(_mm256_maskz_mov_ps(mask, in));             \
                _mm256_storeu_ps(bo + 8 * v, _mm256_mask_blend_ps(mask, in, f)); \
            }                                                                \
            for (int64_t i = 8 * nv; i < m; i++) {                           \
                float xi = bx[i];                                            \
                bo[i] = OK(xi) ? TWIN(xi) : KERNEL(xi);                      \
            }                                                                \
            for (int64_t i = 8 * first_partial; i < 8 * nv; i++)             \
                if (!((keep[i / 8] >> (i % 8)) & 1)) bo[i] = KERNEL(bo[i]);  \
        }                                                                    \
    } else {                                                                 \
        for (int64_t i = 0; i < n; i++)                                      \
            *(float *)(o + i * so) = KERNEL(*(const float *)(x + i * sx));   \
    }
#endif
#endif

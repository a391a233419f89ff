/* float32 power by tables, where AVX-512 is the target: log2 x from a
 * 16-piece table and a short polynomial, 2^t from titer_exp16_head, both in
 * double, the tables held in registers (vpermi2pd picks: GCC turns a table
 * load in a vectorized loop into scalar loads).  Forms that do the same
 * arithmetic: titer_vpowf8 on eight lanes (eight doubles), titer_vpowf16 on
 * sixteen (two of those) and titer_powf_table, their scalar twin for a
 * block's last lanes, so a lane gives the same bits whichever computes it.  The levels without AVX-512
 * keep titer_fast_powerf (titer_scalar.h), whose division-based log GCC
 * vectorizes there.  Included by titer_scalar.h after titer_vexp.h.
 *
 * x = 2^k z with z's bits in [0x3f330000, 0x3fb30000) (z in [0.699,
 * 1.398)), the piece i the top four bits of z's mantissa past that offset;
 * log2 x = (k + logc) + r P(r) with r = z invc - 1 (one rounding, |r| <
 * 0.0297), P of degree 4 (relative error 2^-32 of r P(r) <= 0.043); t =
 * y log2 x; 2^t = 2^(j/16) 2^m (1 + s Q(s)) with 16m + j = rint(16 t), s =
 * t - (16m + j)/16 exact, Q of degree 2 (2^-23 of 2^s - 1 <= 0.022); one
 * product-sum rounds the result, then float32 rounds it.  In
 * titer_fast_powerf_ok's range |y| < 120 and |t| < 120, so t is within
 * 2^-29.6 of y log2 x and the double result within 2^-28 of x^y (a
 * sixteenth of float32's unit in the last place): within 1 ULP of the
 * float64 power rounded to float32
 * (tests/test_catalog.py checks it on every float32 x for several y and on
 * random pairs).  tools/powf_table.py makes the tables and fits. */
#ifndef TITER_VPOWF_H
#define TITER_VPOWF_H

#define TITER_POWF_OFF 0x3f330000u
static const double titer_powf_invc[16] = {
    0x1.661ec6a5122f9p+0, 0x1.571ed3c506b3ap+0, 0x1.49539e3b2d067p+0, 0x1.3c995a47babe7p+0,
    0x1.30d190130d190p+0, 0x1.25e22708092f1p+0, 0x1.1bb4a4046ed29p+0, 0x1.12358e75d3033p+0,
    0x1.0953f39010954p+0, 0x1.0000000000000p+0, 0x1.e573ac901e574p-1, 0x1.ca4b3055ee191p-1,
    0x1.b2036406c80d9p-1, 0x1.9c2d14ee4a102p-1, 0x1.886e5f0abb04ap-1, 0x1.767dce434a9b1p-1};
static const double titer_powf_logc[16] = {
    -0x1.efec61b011f85p-2, -0x1.b0b67f4f46812p-2, -0x1.7418acebbf18fp-2, -0x1.39de8e1559f6ep-2,
    -0x1.01d9bbcfa61d4p-2, -0x1.97c1cb13c7ec0p-3, -0x1.2f9e32d5bfdd1p-3, -0x1.960caf9abb7c1p-4,
    -0x1.a6f9c377dd31dp-5, 0x0.0p+0, 0x1.3aa2fdd27f1bfp-4, 0x1.476a9f983f74dp-3,
    0x1.e840be74e6a4dp-3, 0x1.406463b1b0448p-2, 0x1.88e9c72e0b224p-2, 0x1.ce0a4923a587dp-2};

/* The double part for one form V (VB its 64-bit lanes; FMA, C, TOBITS,
 * FROMBITS as in titer_vexp.h; PICK(i, table) the double table's entries
 * of the pieces i, PICK_HEAD(j) titer_exp16_head's of j mod 16): z, k and
 * the piece from the float bits, y widened. */
#define TITER_POWF_KERNEL(V, VB, FMA, C, TOBITS, FROMBITS, PICK, PICK_HEAD, z, kd, piece, yd) \
    V invc = PICK(piece, titer_powf_invc), logc = PICK(piece, titer_powf_logc);     \
    V r = FMA(z, invc, C(-1.0));                                                  \
    V p = FMA(r, C(0x1.27b01f2da4b6ap-2), C(-0x1.7199adb3d3d41p-2));             \
    p = FMA(r, p, C(0x1.ec709adfe4e10p-2));                                       \
    p = FMA(r, p, C(-0x1.71547460d96eep-1));                                      \
    p = FMA(r, p, C(0x1.71547652b7635p+0));                                       \
    V t = FMA(r, p, (kd) + logc) * (yd);                                          \
    V kt = FMA(t, C(16.0), C(6755399441055744.0));                                \
    VB ki = TOBITS(kt);                                                           \
    V s = FMA(kt - C(6755399441055744.0), C(-0.0625), t);                         \
    V scale = FROMBITS(PICK_HEAD(ki) + (ki << 48));                               \
    V q = FMA(s, C(0x1.c6afdea93fbdbp-5), C(0x1.ebff9184b9908p-3));              \
    q = FMA(s, q, C(0x1.62e42ff519e0ap-1)) * s;                                   \
    V result = FMA(scale, q, scale);

/* The float bits' part, shared: the piece, k and z of x's bits u */
#define TITER_POWF_PIECE(u) (((u) - TITER_POWF_OFF) >> 19 & 15u)
#define TITER_POWF_EXPONENT(u) ((int32_t)((u) - TITER_POWF_OFF) >> 23)
#define TITER_POWF_MANTISSA(u) ((u) - (((u) - TITER_POWF_OFF) & 0xff800000u))

#define TITER_POWF_SCALAR_PICK(i, table) ((table)[(i) & 15])
#define TITER_POWF_SCALAR_HEAD(j) (titer_exp16_head[(j) & 15])
TITER_FAST_INLINE float titer_powf_table(float x, float y) {
    uint32_t u = titer_f2bits(x);
    double z = titer_bits2f(TITER_POWF_MANTISSA(u)), kd = (double)TITER_POWF_EXPONENT(u);
    uint32_t piece = TITER_POWF_PIECE(u);
    TITER_POWF_KERNEL(double, uint64_t, titer_poly_fma, TITER_SCALAR_C, titer_d2bits,
                      titer_bits2d, TITER_POWF_SCALAR_PICK, TITER_POWF_SCALAR_HEAD, z, kd, piece,
                      (double)y)
    return (float)result;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
typedef float titer_v16f __attribute__((vector_size(64)));
typedef uint32_t titer_v16u __attribute__((vector_size(64)));
typedef int32_t titer_v16i __attribute__((vector_size(64)));
typedef float titer_v16f_u __attribute__((vector_size(64), aligned(4)));      /* unaligned */
#define TITER_V8_PICK(i, table) ((titer_v8d)_mm512_permutex2var_pd(                \
    _mm512_loadu_pd(table), (__m512i)(i), _mm512_loadu_pd((table) + 8)))
#define TITER_V8_HEAD(j) ((titer_v8u)_mm512_permutex2var_epi64(                   \
    _mm512_loadu_si512(titer_exp16_head), (__m512i)(j), _mm512_loadu_si512(titer_exp16_head + 8)))

typedef uint32_t titer_v8u32 __attribute__((vector_size(32)));
typedef int32_t titer_v8i32 __attribute__((vector_size(32)));

/* eight lanes: the float bits' part in 32-bit lanes, the double part in
 * 64-bit ones.  (Sixteen floats' bits in one vector, then each half's
 * eight lanes extracted, cost 0.91-0.95 ns an element in cache on one
 * AVX-512 thread against 0.83-0.86 for eight floats loaded at a time.) */
TITER_FAST_INLINE __m256 titer_vpowf8(__m256 x, __m256 y) {
    titer_v8u32 u = (titer_v8u32)x;
    titer_v8d z = (titer_v8d)_mm512_cvtps_pd((__m256)TITER_POWF_MANTISSA(u));
    titer_v8d kd = (titer_v8d)_mm512_cvtepi32_pd((__m256i)((titer_v8i32)(u - TITER_POWF_OFF) >> 23));
    titer_v8u piece = (titer_v8u)_mm512_cvtepu32_epi64((__m256i)TITER_POWF_PIECE(u));
    titer_v8d yd = (titer_v8d)_mm512_cvtps_pd(y);
    TITER_POWF_KERNEL(titer_v8d, titer_v8u, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS,
                      TITER_V8_FROMBITS, TITER_V8_PICK, TITER_V8_HEAD, z, kd, piece, yd)
    return _mm512_cvtpd_ps((__m512d)result);
}
TITER_FAST_INLINE titer_v16f titer_vpowf16(titer_v16f x, titer_v16f y) {
    __m256 lo = titer_vpowf8(_mm512_castps512_ps256((__m512)x), _mm512_castps512_ps256((__m512)y));
    __m256 hi = titer_vpowf8(_mm512_extractf32x8_ps((__m512)x, 1), _mm512_extractf32x8_ps((__m512)y, 1));
    return (titer_v16f)_mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
#define TITER_HAVE_VPOWF 1
/* a vector with every lane in range, eight lanes at a time
 * (TITER_VEC_BLOCK2_F16's WHOLE) */
#define titer_vpowf16_whole(dst, at, xv, yv, XH, YH) {                          \
        _mm256_storeu_ps(dst, titer_vpowf8(XH(at), YH(at)));                 \
        _mm256_storeu_ps((dst) + 8, titer_vpowf8(XH((at) + 8), YH((at) + 8))); \
    }

/* titer_fast_powerf_ok on sixteen lanes: the mask of the lanes in range
 * (the same bounds, the same float product for |y| (|exponent of x| + 1)):
 * the exponent as a float by vgetexpps (zero where x is not normal: the
 * masking also keeps a NaN or zero x from raising), |y| held at 2^24 by an
 * integer min (2^24 (|e| + 1) fails the bound as |y| >= 2^24 must; a NaN's
 * bits are above it), the product by one fused multiply-add whose one
 * rounding is the product's.  9 operations where the integer exponent, its
 * conversion and a masked |y| took 14: in cache 1.19 -> 1.14 ns an element
 * for the whole vectors' loop (C harness; the bare 8-lane forms 0.92-0.95,
 * the test alone of x being normal 1.05: its port-5 compare competes with
 * the forms' table picks).  The same mask as the scalar test on 3.2e8
 * random, special and boundary pairs. */
TITER_FAST_INLINE __mmask16 titer_vpowf16_ok(titer_v16f x, titer_v16f y) {
    __m512i xb = _mm512_castps_si512((__m512)x);
    __mmask16 normal = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(xb, _mm512_set1_epi32(0x00800000)),
                                               _mm512_set1_epi32(0x7f000000));
    __m512 e = _mm512_abs_ps(_mm512_maskz_getexp_ps(normal, (__m512)x));
    __m512i yab = _mm512_and_si512(_mm512_castps_si512((__m512)y), _mm512_set1_epi32(0x7fffffff));
    __m512 held = _mm512_castsi512_ps(_mm512_min_epu32(yab, _mm512_set1_epi32(0x4b800000)));
    __m512 bound = _mm512_fmadd_ps(held, e, held);
    return normal & _mm512_cmplt_epu32_mask(_mm512_castps_si512(bound),
                                            _mm512_set1_epi32(0x42f00000));
}

/* TITER_SPLIT_LOOP2 (titer_loops.h) for a binary float32 fast path with a
 * 16-lane form VFAST, its range test VOK (a mask of the lanes in range),
 * its scalar twin TWIN and WHOLE(dst, at, xv, yv, XH, YH), which stores a
 * vector whose every lane is in range (VFAST of xv and yv, or, for power,
 * two 8-lane forms of the same bits on eight lanes loaded at a time by XH
 * and YH: <stem>16_whole), on contiguous operands (a scalar on either side
 * broadcast; other layouts gathered a block at a time into buffers, so
 * that every layout gets the contiguous call's bits), per block: a vector
 * with every lane in range goes straight through WHOLE; another has its
 * out-of-range lanes given (1, 1) and left unwritten (a masked store: in
 * place they still hold their inputs), then recomputed by KERNEL (libm)
 * from the block's first such vector on; the block's last n mod 16
 * elements through TWIN or KERNEL. (For power, a pass writing every lane's
 * mask first, then blending each vector's inputs and output by it, cost
 * 1.23 ns an element against 1.08 in cache on one AVX-512 thread; the bare
 * 16-lane form 0.90.) */
#define TITER_VEC_BLOCK2_F16(N, PO, KERNEL, OK, TWIN, VOK, VFAST, WHOLE, XV, YV, XH, YH, X_AT, Y_AT) \
    for (int64_t start = 0; start < (N); start += TITER_SPLIT_BLOCK) {      \
        int64_t m = (N) - start < TITER_SPLIT_BLOCK ? (N) - start : TITER_SPLIT_BLOCK; \
        float *bo = (PO) + start;                                            \
        int64_t nv = m / 16, first_partial = nv;                             \
        for (int64_t v = 0; v < nv; v++) {                                   \
            titer_v16f xv = XV(start + 16 * v), yv = YV(start + 16 * v);     \
            __mmask16 mask = VOK(xv, yv);                                    \
            keep[v] = mask;                                                  \
            if (__builtin_expect(mask == 0xffff, 1)) {                       \
                WHOLE(bo + 16 * v, start + 16 * v, xv, yv, XH, YH);          \
                continue;                                                    \
            }                                                                \
            if (first_partial == nv)                                         \
                first_partial = v;                                           \
            __m512 one = _mm512_set1_ps(1.0f);                               \
            titer_v16f f = VFAST((titer_v16f)_mm512_mask_mov_ps(one, mask, (__m512)xv), \
                                 (titer_v16f)_mm512_mask_mov_ps(one, mask, (__m512)yv)); \
            _mm512_mask_storeu_ps(bo + 16 * v, mask, (__m512)f);             \
        }                                                                    \
        for (int64_t i = 16 * nv; i < m; i++) {                              \
            float xi = X_AT(start + i), yi = Y_AT(start + i);                \
            bo[i] = OK(xi, yi) ? TWIN(xi, yi) : KERNEL(xi, yi);              \
        }                                                                    \
        for (int64_t i = 16 * first_partial; i < 16 * nv; i++)               \
            if (!((keep[i / 16] >> (i % 16)) & 1))                           \
                bo[i] = KERNEL(X_AT(start + i), Y_AT(start + i));            \
    }
#define TITER_V16_X_ARRAY(i) (*(const titer_v16f_u *)(px + (i)))
#define TITER_V16_Y_ARRAY(i) (*(const titer_v16f_u *)(py + (i)))
#define TITER_V16_SCALAR_X(i) (vx16)
#define TITER_V16_SCALAR_Y(i) (vy16)
#define TITER_V8_X_ARRAY(i) _mm256_loadu_ps(px + (i))
#define TITER_V8_Y_ARRAY(i) _mm256_loadu_ps(py + (i))
#define TITER_V8_SCALAR_X(i) (vx8)
#define TITER_V8_SCALAR_Y(i) (vy8)
#define TITER_V16_X_BUF(i) (*(const titer_v16f_u *)(xb + (i)))
#define TITER_V16_Y_BUF(i) (*(const titer_v16f_u *)(yb + (i)))
#define TITER_V8_X_BUF(i) _mm256_loadu_ps(xb + (i))
#define TITER_V8_Y_BUF(i) _mm256_loadu_ps(yb + (i))
#define TITER_AT_X_BUF(i) xb[i]
#define TITER_AT_Y_BUF(i) yb[i]
#define TITER_VEC_LOOP2_F16(KERNEL, OK, TWIN, VOK, VFAST, WHOLE)                   \
    char *o = data[0], *x = data[1], *y = data[2];                           \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];         \
    const int64_t item = (int64_t)sizeof(float);                            \
    if (n <= 0) return;                                                      \
    float *po = (float *)o; const float *px = (const float *)x, *py = (const float *)y; \
    const float vx = *px, vy = *py;                                         \
    const titer_v16f vx16 = (titer_v16f){0} + vx, vy16 = (titer_v16f){0} + vy; \
    const __m256 vx8 = _mm256_set1_ps(vx), vy8 = _mm256_set1_ps(vy);         \
    (void)vx8; (void)vy8;                   /* (forms without 8 lanes) */    \
    __mmask16 keep[TITER_SPLIT_BLOCK / 16];      /* lanes through VFAST */   \
    if (so == item && sx == item && sy == item) {                            \
        TITER_VEC_BLOCK2_F16(n, po, KERNEL, OK, TWIN, VOK, VFAST, WHOLE, TITER_V16_X_ARRAY,   \
                             TITER_V16_Y_ARRAY, TITER_V8_X_ARRAY, TITER_V8_Y_ARRAY,      \
                             TITER_AT_X_ARRAY, TITER_AT_Y_ARRAY)             \
    } else if (so == item && sx == item && sy == 0) {                        \
        TITER_VEC_BLOCK2_F16(n, po, KERNEL, OK, TWIN, VOK, VFAST, WHOLE, TITER_V16_X_ARRAY,   \
                             TITER_V16_SCALAR_Y, TITER_V8_X_ARRAY, TITER_V8_SCALAR_Y,    \
                             TITER_AT_X_ARRAY, TITER_AT_SCALAR_Y)            \
    } else if (so == item && sx == 0 && sy == item) {                        \
        TITER_VEC_BLOCK2_F16(n, po, KERNEL, OK, TWIN, VOK, VFAST, WHOLE, TITER_V16_SCALAR_X,  \
                             TITER_V16_Y_ARRAY, TITER_V8_SCALAR_X, TITER_V8_Y_ARRAY,     \
                             TITER_AT_SCALAR_X, TITER_AT_Y_ARRAY)            \
    } else {            /* each block gathered: the contiguous call's bits */ \
        float xb[TITER_SPLIT_BLOCK], yb[TITER_SPLIT_BLOCK], ob[TITER_SPLIT_BLOCK]; \
        for (int64_t base = 0; base < n; base += TITER_SPLIT_BLOCK) {        \
            const int64_t count = n - base < TITER_SPLIT_BLOCK ? n - base : TITER_SPLIT_BLOCK; \
            for (int64_t i = 0; i < count; i++) {                            \
                xb[i] = *(const float *)(x + (base + i) * sx);               \
                yb[i] = *(const float *)(y + (base + i) * sy);               \
            }                                                                \
            TITER_VEC_BLOCK2_F16(count, ob, KERNEL, OK, TWIN, VOK, VFAST, WHOLE, TITER_V16_X_BUF, \
                                 TITER_V16_Y_BUF, TITER_V8_X_BUF, TITER_V8_Y_BUF,          \
                                 TITER_AT_X_BUF, TITER_AT_Y_BUF)             \
            for (int64_t i = 0; i < count; i++)                              \
                *(float *)(o + (base + i) * so) = ob[i];                     \
        }                                                                    \
    }
#endif
#endif

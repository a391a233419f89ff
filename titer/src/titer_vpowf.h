/* float32 power by tables, where AVX-512 is the target: log2 x from a
 * 16-piece table and a short polynomial, 2^t from titer_exp16_head, both in
 * double, the tables held in registers (vpermi2pd picks: GCC turns a table
 * load in a vectorized loop into scalar loads).  Two forms that do the same
 * arithmetic: titer_vpowf16 on sixteen lanes (two halves of eight doubles)
 * and titer_powf_table, its scalar twin for a block's last lanes, so a lane
 * gives the same bits whichever computes it.  The levels without AVX-512
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
    TITER_POWF_KERNEL(double, uint64_t, titer_poly_fma, TITER_EXP16_SCALAR_C, titer_d2bits,
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

/* eight lanes of the double part, from half `h` of the sixteen */
#define TITER_VPOWF_HALF(h, u, yv, out)                                           \
    {                                                                             \
        titer_v16u mant = TITER_POWF_MANTISSA(u), piece16 = TITER_POWF_PIECE(u);  \
        titer_v16i k16 = (titer_v16i)((u) - TITER_POWF_OFF) >> 23;                \
        titer_v8d z = (titer_v8d)_mm512_cvtps_pd(_mm512_extractf32x8_ps((__m512)mant, h)); \
        titer_v8d kd = (titer_v8d)_mm512_cvtepi32_pd(_mm512_extracti32x8_epi32((__m512i)k16, h)); \
        titer_v8u piece = (titer_v8u)_mm512_cvtepu32_epi64(                       \
            _mm512_extracti32x8_epi32((__m512i)piece16, h));                       \
        titer_v8d yd = (titer_v8d)_mm512_cvtps_pd(_mm512_extractf32x8_ps((__m512)(yv), h)); \
        TITER_POWF_KERNEL(titer_v8d, titer_v8u, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS, \
                          TITER_V8_FROMBITS, TITER_V8_PICK, TITER_V8_HEAD, z, kd, piece, yd) \
        out = _mm512_cvtpd_ps((__m512d)result);                                   \
    }
TITER_FAST_INLINE titer_v16f titer_vpowf16(titer_v16f x, titer_v16f y) {
    titer_v16u u = (titer_v16u)x;
    __m256 lo, hi;
    TITER_VPOWF_HALF(0, u, y, lo)
    TITER_VPOWF_HALF(1, u, y, hi)
    return (titer_v16f)_mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
#define TITER_HAVE_VPOWF 1

/* TITER_SPLIT_LOOP2 (titer_loops.h) for a binary float32 fast path with a
 * 16-lane form VFAST and its scalar twin TWIN, on contiguous operands (a
 * scalar on either side broadcast): per block, OK's masks first (a loop GCC
 * vectorizes), then the whole vectors through VFAST, an out-of-range lane
 * given (1, 1) and keeping the output it had (its input, in place), then
 * recomputed by KERNEL (libm); the block's last n mod 16 elements through
 * TWIN or KERNEL.  (OK in sixteen lanes inside the VFAST pass ran slower:
 * 1.8 against 1.05 ns an element.) */
#define TITER_VEC_BLOCK2_F16(KERNEL, OK, TWIN, VFAST, XV, YV, X_AT, Y_AT)     \
    for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {        \
        int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
        float *bo = po + start;                                              \
        uint32_t all_kept = ~0u;                                             \
        for (int64_t i = 0; i < m; i++) {                                    \
            keep[i] = 0u - (uint32_t)OK(X_AT(start + i), Y_AT(start + i));   \
            all_kept &= keep[i];                                             \
        }                                                                    \
        int64_t whole = m & ~(int64_t)15;                                    \
        for (int64_t i = 0; i < whole; i += 16) {                            \
            titer_v16u mask = *(const titer_v16u *)(keep + i);               \
            titer_v16u one = (titer_v16u){0} + 0x3f800000u;                  \
            titer_v16u xb = (titer_v16u)(XV(start + i)), yb = (titer_v16u)(YV(start + i)); \
            titer_v16f f = VFAST((titer_v16f)TITER_PICK_BITS(mask, xb, one), \
                                 (titer_v16f)TITER_PICK_BITS(mask, yb, one));  \
            titer_v16u old = (titer_v16u)*(const titer_v16f_u *)(bo + i);    \
            *(titer_v16f_u *)(bo + i) = (titer_v16f)TITER_PICK_BITS(mask, (titer_v16u)f, old); \
        }                                                                    \
        for (int64_t i = whole; i < m; i++)                                  \
            if (keep[i]) bo[i] = TWIN(X_AT(start + i), Y_AT(start + i));     \
        if (!all_kept)                                                       \
            for (int64_t i = 0; i < m; i++)                                  \
                if (!keep[i]) bo[i] = KERNEL(X_AT(start + i), Y_AT(start + i)); \
    }
#define TITER_V16_X_ARRAY(i) (*(const titer_v16f_u *)(px + (i)))
#define TITER_V16_Y_ARRAY(i) (*(const titer_v16f_u *)(py + (i)))
#define TITER_V16_SCALAR_X(i) (vx16)
#define TITER_V16_SCALAR_Y(i) (vy16)
#define TITER_VEC_LOOP2_F16(KERNEL, OK, TWIN, VFAST)                           \
    char *o = data[0], *x = data[1], *y = data[2];                           \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];         \
    const int64_t item = (int64_t)sizeof(float);                            \
    if (n <= 0) return;                                                      \
    float *po = (float *)o; const float *px = (const float *)x, *py = (const float *)y; \
    const float vx = *px, vy = *py;                                         \
    const titer_v16f vx16 = (titer_v16f){0} + vx, vy16 = (titer_v16f){0} + vy; \
    uint32_t keep[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));           \
    if (so == item && sx == item && sy == item) {                            \
        TITER_VEC_BLOCK2_F16(KERNEL, OK, TWIN, VFAST, TITER_V16_X_ARRAY, TITER_V16_Y_ARRAY, \
                             TITER_AT_X_ARRAY, TITER_AT_Y_ARRAY)             \
    } else if (so == item && sx == item && sy == 0) {                        \
        TITER_VEC_BLOCK2_F16(KERNEL, OK, TWIN, VFAST, TITER_V16_X_ARRAY, TITER_V16_SCALAR_Y, \
                             TITER_AT_X_ARRAY, TITER_AT_SCALAR_Y)            \
    } else if (so == item && sx == 0 && sy == item) {                        \
        TITER_VEC_BLOCK2_F16(KERNEL, OK, TWIN, VFAST, TITER_V16_SCALAR_X, TITER_V16_Y_ARRAY, \
                             TITER_AT_SCALAR_X, TITER_AT_Y_ARRAY)            \
    } else {                                                                 \
        for (int64_t i = 0; i < n; i++)                                      \
            *(float *)(o + i * so) = KERNEL(*(const float *)(x + i * sx),              \
                                            *(const float *)(y + i * sy));             \
    }
#endif
#endif

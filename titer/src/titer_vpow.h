/* float64 power by tables held in registers, where AVX-512 is the target:
 * log x in double-double from a 16-piece table, then e^(y log x) from
 * titer_exp16_head / _tail (titer_vexp.h), eight lanes a vector
 * (titer_vpow8) with a scalar twin doing the same arithmetic
 * (titer_vpow_twin) for a block's last lanes, so a lane gives the same bits
 * whichever computes it.  The other levels keep the vector math library's
 * pow (titer_veclib.h).  Included by titer_scalar.h after titer_vpowf.h.
 *
 * x = 2^k z with z's bits in [OFF, OFF + 2^52) (z in [0.703125, 1.40625)),
 * the piece i the top four bits of z's mantissa past that offset; invc =
 * 1/c for the piece's center c (1 for the piece that holds 1), log c as a
 * head that is a multiple of 2^-42 and a tail.  r = z invc - 1 is held as
 * (z invc rounded) - 1, exact, plus the product's rounding error d (an
 * FMA), |r| < 0.0313; then log x = t1 + r - r^2/2 + r^3 P(r) + d (1 - r +
 * r^2) + (k ln2_lo + tail), t1 = k ln2_hi + head exact (both multiples of
 * 2^-42 under 2^10), r - r^2/2 added as exact sums (Fast2Sum: |t1| >= |r|
 * wherever t1 is not 0, |t2| >= r^2/2), P of degree 8 (r^2 |P - exact| <
 * 2^-66).  t = y log x as a head and a tail (an FMA gives the product's
 * error); e^t as titer_vexp.h's exp with the tail added to the reduced
 * argument.  Within 0.56 ULP of the correctly rounded x^y on 1.2e7 random
 * pairs against long double, y log x out to +-690 where the log's relative
 * error is multiplied most (a C harness); tests/test_catalog.py holds the
 * dispatched loop to 1 ULP on such pairs (NumPy's bound is 2).
 *
 * Range (titer_vpow_ok, titer_vpow8_ok): x a positive normal, y 0 or
 * 2^-400 <= |y| with |y| (|exponent of x| + 1) < 1000, so |y log x| < 694
 * and the result is normal: nothing here raises an FP flag (smaller |y|
 * would underflow r^2 in the exp).  tools/pow_table.py makes the tables
 * and the fit. */
#ifndef TITER_VPOW_H
#define TITER_VPOW_H

#define TITER_POW_OFF 0x3fe6800000000000ull
static const double titer_pow_invc[16] = {
    0x1.642c8590b2164p+0, 0x1.5555555555555p+0, 0x1.47ae147ae147bp+0, 0x1.3b13b13b13b14p+0,
    0x1.2f684bda12f68p+0, 0x1.2492492492492p+0, 0x1.1a7b9611a7b96p+0, 0x1.1111111111111p+0,
    0x1.0842108421084p+0, 0x1.0000000000000p+0, 0x1.e1e1e1e1e1e1ep-1, 0x1.c71c71c71c71cp-1,
    0x1.af286bca1af28p-1, 0x1.999999999999ap-1, 0x1.8618618618618p-1, 0x1.745d1745d1746p-1};
static const double titer_pow_logc_head[16] = {
    -0x1.522ae0738a000p-2, -0x1.269621134e000p-2, -0x1.f991c6cb3c000p-3, -0x1.a93ed3c8ae000p-3,
    -0x1.5bf406b544000p-3, -0x1.1178e8227e000p-3, -0x1.9335e5d594000p-4, -0x1.08598b59e4000p-4,
    -0x1.0415d89e78000p-5, 0x0.0p+0, 0x1.f0a30c0118000p-5, 0x1.e27076e2b0000p-4,
    0x1.5ff3070a7a000p-3, 0x1.c8ff7c79aa000p-3, 0x1.1675cababa000p-2, 0x1.4618bc21c6000p-2};
static const double titer_pow_logc_tail[16] = {
    -0x1.eba708164c759p-45, 0x1.1ba1f10522625p-44, 0x1.90b84cd7cc834p-44, 0x1.86a4350562169p-45,
    0x1.28023eb68981cp-46, -0x1.1e778ce2d07f2p-45, -0x1.30f5c3abd47dap-45, 0x1.7e9dd7009902cp-46,
    0x1.ddfc7f461c516p-44, 0x0.0p+0, -0x1.d579e83368e91p-45, -0x1.a2c2c2af0003cp-45,
    -0x1.8546f183bebf2p-44, -0x1.7814f689f8434p-45, 0x1.83c0e731f55c4p-44, -0x1.3e02f484c84ccp-46};

/* P of the log: log(1 + r) = r - r^2/2 + r^3 P(r) for |r| < 0.0313, by
 * Estrin's scheme (a shorter chain); r2 = r^2.  (titer_vlog.h's too) */
#define TITER_LOG16_POLY(V, FMA, C, r, r2, p)                                            \
    V r4_ = r2 * r2;                                                                     \
    V p01_ = FMA(r, C(-0x1.fffffffffff1fp-3), C(0x1.5555555555555p-2));                 \
    V p23_ = FMA(r, C(-0x1.5555555738058p-3), C(0x1.999999999c980p-3));                 \
    V p45_ = FMA(r, C(-0x1.ffffd4a40dcd5p-4), C(0x1.249248f995f46p-3));                 \
    V p67_ = FMA(r, C(-0x1.9a663a058ca48p-4), C(0x1.c71e48ef2f856p-4));                 \
    V p = FMA(r4_, FMA(r2, FMA(r2, C(0x1.7135a25008399p-4), p67_), p45_), FMA(r2, p23_, p01_));

/* The log's argument reduction (power's and titer_vlog.h's): the piece, k
 * as a double kd, z; r = zc - 1 exact with z invc = zc + d (an FMA gives
 * d); t1 = k ln2_hi + log c's head, exact; lo1 = k ln2_lo + its tail;
 * r2 = r^2.  The operations as in the form below. */
#define TITER_LOG16_REDUCE(V, VB, VI, FMA, C, TOBITS, FROMBITS, PICK, TO_DOUBLE, x)     \
    VB ix = TOBITS(x), tmp = ix - TITER_POW_OFF, piece = tmp >> 48;                      \
    V kd = TO_DOUBLE((VI)tmp >> 52);                                                     \
    V z = FROMBITS(ix - (tmp & 0xfff0000000000000ull));                                  \
    V invc = PICK(piece, titer_pow_invc);                                                \
    V zc = z * invc, d = FMA(z, invc, -zc), r = zc - C(1.0);                             \
    V t1 = FMA(kd, C(0x1.62e42fefa3800p-1), PICK(piece, titer_pow_logc_head));           \
    V lo1 = FMA(kd, C(0x1.ef35793c76730p-45), PICK(piece, titer_pow_logc_tail));         \
    V r2 = r * r;

/* One form V (VB its 64-bit unsigned lanes, VI signed; FMA, C, TOBITS,
 * FROMBITS as in titer_vexp.h; PICK(i, table) the table's entries of the
 * pieces i mod 16; EXP_PICK titer_vexp.h's; TO_DOUBLE signed lanes to
 * double) of x^y into `result`.  Every rounding is spelled out (the build
 * does not contract). */
#define TITER_POW_KERNEL(V, VB, VI, FMA, C, TOBITS, FROMBITS, PICK, EXP_PICK, TO_DOUBLE, x, y, \
                         result)                                                         \
    TITER_LOG16_REDUCE(V, VB, VI, FMA, C, TOBITS, FROMBITS, PICK, TO_DOUBLE, x)          \
    V t2 = t1 + r, lo2 = (t1 - t2) + r;                                                  \
    V ar = r * C(-0.5), ar2 = r * ar, lo3 = FMA(r, ar, -ar2);                            \
    V hi = t2 + ar2, lo4 = (t2 - hi) + ar2;                                              \
    TITER_LOG16_POLY(V, FMA, C, r, r2, p)                                                \
    V lo = ((lo1 + lo2) + (lo3 + lo4)) + (FMA(d, r2 - r, d) + (r2 * r) * p);            \
    V log_hi = hi + lo, log_lo = (hi - log_hi) + lo;                                     \
    V t = y * log_hi, t_lo = FMA(y, log_lo, FMA(y, log_hi, -t));                         \
    V kt = FMA(t, C(TITER_EXP16_SCALE_e), C(6755399441055744.0));                        \
    VB ki = TOBITS(kt);                                                                  \
    kt = kt - C(6755399441055744.0);                                                     \
    V s = TITER_EXP16_REDUCE_e(t, kt, FMA, C) + t_lo;                                    \
    TITER_EXP16_TAIL(V, VB, FMA, C, FROMBITS, EXP_PICK, s, ki, scale, e_tail)            \
    V result = FMA(scale, e_tail, scale);

/* the range, scalar (any level) */
#define TITER_POW_TWO_M400 0x26f0000000000000ull
#define TITER_POW_TWO_30 0x41d0000000000000ull
TITER_FAST_INLINE int titer_vpow_ok(double x, double y) {
    uint64_t ix = titer_d2bits(x), ya = titer_d2bits(y) & 0x7fffffffffffffffull;
    uint64_t small = (uint64_t)0 - (uint64_t)(ya < TITER_POW_TWO_30);
    int64_t e = (int64_t)(ix >> 52 & 0x7ff) - 1023;
    double bound = titer_bits2d(ya & small) * (double)((e < 0 ? -e : e) + 1);
    return (ix - 0x0010000000000000ull < 0x7fe0000000000000ull) & (small != 0)
           & (bound < 1000.0) & ((ya >= TITER_POW_TWO_M400) | (ya == 0));
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__) && defined(__AVX512DQ__) \
    && defined(TITER_ISA)
typedef int64_t titer_v8i __attribute__((vector_size(64)));
#define TITER_POW_SCALAR_PICK(i, table) ((table)[(i) & 15])
#define TITER_POW_SCALAR_DOUBLE(k) ((double)(k))
/* the scalar twin: the same operations on one lane (vfmadd..sd, and
 * vcvtsi2sd for vcvtqq2pd: k is exact either way) */
TITER_FAST_INLINE double titer_vpow_twin(double x, double y) {
    TITER_POW_KERNEL(double, uint64_t, int64_t, __builtin_fma, TITER_SCALAR_C, titer_d2bits,
                     titer_bits2d, TITER_POW_SCALAR_PICK, TITER_EXP16_SCALAR_PICK,
                     TITER_POW_SCALAR_DOUBLE, x, y, result)
    return result;
}
#define TITER_V8_CVT_I64(k) ((titer_v8d)_mm512_cvtepi64_pd((__m512i)(k)))
TITER_FAST_INLINE titer_v8d titer_vpow8(titer_v8d x, titer_v8d y) {
    TITER_POW_KERNEL(titer_v8d, titer_v8u, titer_v8i, TITER_V8_FMA, TITER_V8_C, TITER_V8_TOBITS,
                     TITER_V8_FROMBITS, TITER_V8_PICK, TITER_EXP16_V8_PICK, TITER_V8_CVT_I64,
                     x, y, result)
    return result;
}
/* titer_vpow_ok on eight lanes: the mask of the lanes in range (the same
 * bounds, the same double product for |y| (|exponent of x| + 1)) */
TITER_FAST_INLINE __mmask8 titer_vpow8_ok(titer_v8d x, titer_v8d y) {
    __m512i ix = _mm512_castpd_si512((__m512d)x);
    __m512i ya = _mm512_and_si512(_mm512_castpd_si512((__m512d)y),
                                  _mm512_set1_epi64(0x7fffffffffffffffll));
    __mmask8 normal = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(ix, _mm512_set1_epi64(0x0010000000000000ll)),
                                              _mm512_set1_epi64(0x7fe0000000000000ll));
    __mmask8 small = _mm512_cmplt_epu64_mask(ya, _mm512_set1_epi64((long long)TITER_POW_TWO_30));
    __m512i e = _mm512_sub_epi64(_mm512_and_si512(_mm512_srli_epi64(ix, 52), _mm512_set1_epi64(0x7ff)),
                                 _mm512_set1_epi64(1023));
    __m512d reach = _mm512_cvtepi64_pd(_mm512_add_epi64(_mm512_abs_epi64(e), _mm512_set1_epi64(1)));
    __m512d bound = _mm512_mul_pd(_mm512_maskz_mov_pd(small, _mm512_castsi512_pd(ya)), reach);
    __mmask8 not_tiny = _mm512_cmpge_epu64_mask(ya, _mm512_set1_epi64((long long)TITER_POW_TWO_M400))
                        | _mm512_cmpeq_epi64_mask(ya, _mm512_setzero_si512());
    return normal & small & not_tiny & _mm512_cmp_pd_mask(bound, _mm512_set1_pd(1000.0), _CMP_LT_OQ);
}
#define TITER_HAVE_VPOW 1

/* TITER_VEC_LOOP2_F16 (titer_vpowf.h) on eight doubles: per block, a
 * vector with every lane in range goes through VFAST; another has its
 * out-of-range lanes given (1, 1) and left unwritten (a masked store: in
 * place they still hold their inputs), then recomputed by KERNEL (libm)
 * from the block's first such vector on; the block's last n mod 8 elements
 * through TWIN or KERNEL.  Strided operands are gathered a block at a
 * time into buffers and walked the same way (tests/test_veclib.py: every
 * layout gives the contiguous call's bits). */
#define TITER_VEC_BLOCK2_D8(KERNEL, OK, TWIN, VOK, VFAST, XV, YV, X_AT, Y_AT)     \
    for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {        \
        int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
        double *bo = po + start;                                             \
        int64_t nv = m / 8, first_partial = nv;                              \
        for (int64_t v = 0; v < nv; v++) {                                   \
            titer_v8d xv = XV(start + 8 * v), yv = YV(start + 8 * v);        \
            __mmask8 mask = VOK(xv, yv);                                     \
            keep[v] = mask;                                                  \
            if (__builtin_expect(mask == 0xff, 1)) {                         \
                *(titer_v8d_u *)(bo + 8 * v) = VFAST(xv, yv);                \
                continue;                                                    \
            }                                                                \
            if (first_partial == nv)                                         \
                first_partial = v;                                           \
            __m512d one = _mm512_set1_pd(1.0);                               \
            titer_v8d f = VFAST((titer_v8d)_mm512_mask_mov_pd(one, mask, (__m512d)xv), \
                                (titer_v8d)_mm512_mask_mov_pd(one, mask, (__m512d)yv)); \
            _mm512_mask_storeu_pd(bo + 8 * v, mask, (__m512d)f);             \
        }                                                                    \
        for (int64_t i = 8 * nv; i < m; i++) {                               \
            double xi = X_AT(start + i), yi = Y_AT(start + i);               \
            bo[i] = OK(xi, yi) ? TWIN(xi, yi) : KERNEL(xi, yi);              \
        }                                                                    \
        for (int64_t i = 8 * first_partial; i < 8 * nv; i++)                 \
            if (!((keep[i / 8] >> (i % 8)) & 1))                             \
                bo[i] = KERNEL(X_AT(start + i), Y_AT(start + i));            \
    }
#define TITER_V8D_X_ARRAY(i) (*(const titer_v8d_u *)(px + (i)))
#define TITER_V8D_Y_ARRAY(i) (*(const titer_v8d_u *)(py + (i)))
#define TITER_V8D_SCALAR_X(i) (vx8)
#define TITER_V8D_SCALAR_Y(i) (vy8)
#define TITER_VEC_LOOP2_D8(KERNEL, OK, TWIN, VOK, VFAST)                        \
    char *o = data[0], *x = data[1], *y = data[2];                           \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];         \
    const int64_t item = (int64_t)sizeof(double);                           \
    if (n <= 0) return;                                                      \
    double *po = (double *)o; const double *px = (const double *)x, *py = (const double *)y; \
    const double vx = *px, vy = *py;                                        \
    const titer_v8d vx8 = (titer_v8d){0} + vx, vy8 = (titer_v8d){0} + vy;    \
    __mmask8 keep[TITER_SPLIT_BLOCK / 8];        /* lanes through VFAST */   \
    if (so == item && sx == item && sy == item) {                            \
        TITER_VEC_BLOCK2_D8(KERNEL, OK, TWIN, VOK, VFAST, TITER_V8D_X_ARRAY,  \
                            TITER_V8D_Y_ARRAY, TITER_AT_X_ARRAY, TITER_AT_Y_ARRAY) \
    } else if (so == item && sx == item && sy == 0) {                        \
        TITER_VEC_BLOCK2_D8(KERNEL, OK, TWIN, VOK, VFAST, TITER_V8D_X_ARRAY,  \
                            TITER_V8D_SCALAR_Y, TITER_AT_X_ARRAY, TITER_AT_SCALAR_Y) \
    } else if (so == item && sx == 0 && sy == item) {                        \
        TITER_VEC_BLOCK2_D8(KERNEL, OK, TWIN, VOK, VFAST, TITER_V8D_SCALAR_X, \
                            TITER_V8D_Y_ARRAY, TITER_AT_SCALAR_X, TITER_AT_Y_ARRAY) \
    } else {                       /* each block gathered into buffers */   \
        double x_buf[TITER_SPLIT_BLOCK], y_buf[TITER_SPLIT_BLOCK], o_buf[TITER_SPLIT_BLOCK]; \
        for (int64_t base = 0; base < n; base += TITER_SPLIT_BLOCK) {        \
            int64_t count = n - base < TITER_SPLIT_BLOCK ? n - base : TITER_SPLIT_BLOCK; \
            for (int64_t i = 0; i < count; i++) {                            \
                x_buf[i] = *(const double *)(x + (base + i) * sx);          \
                y_buf[i] = *(const double *)(y + (base + i) * sy);          \
            }                                                                \
            {   /* the contiguous walk over the buffers (names shadowed) */  \
                const double *px = x_buf, *py = y_buf;                       \
                double *po = o_buf;                                          \
                const int64_t n = count;                                     \
                TITER_VEC_BLOCK2_D8(KERNEL, OK, TWIN, VOK, VFAST, TITER_V8D_X_ARRAY, \
                                    TITER_V8D_Y_ARRAY, TITER_AT_X_ARRAY, TITER_AT_Y_ARRAY) \
            }                                                                \
            for (int64_t i = 0; i < count; i++)                              \
                *(double *)(o + (base + i) * so) = o_buf[i];                 \
        }                                                                    \
    }
#endif
#endif

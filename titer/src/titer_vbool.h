/* Predicates and compares of 64-bit lanes into bools, where AVX2 without
 * AVX-512 is the target (_codegen._INTRINSIC_FORMS).
 *
 * NOTE [bools from 64-bit lanes]: GCC 12 narrows the all-ones / zero
 * masks of a vectorized float64 or int64 compare to NumPy's 0/1 bytes as
 * if they were any integers: each 64 -> 32 -> 16 -> 8 step masks the
 * lanes and packs them unsigned, with two vperm2i128, two vpshufd and a
 * vpunpcklqdq a pair of vectors on the way: about sixty instructions for
 * 32 elements, and on a Zen 3 isnan of 2^20 float64 ran at 0.72x NumPy's,
 * the copy of complex64 into bool at 0.55x, the compares of float64 and
 * int64 at 0.8-0.9x (1.1x, 1.3x and 1.0-1.2x here).  A mask is all ones or
 * zero, so signed saturating packs narrow it exactly: 8 vectors of 4
 * lanes, 4 + 2 + 1 packs, the words then put in order across the two
 * halves (one vpermq, one vpshufb) and ANDed with 1.  The masks come from
 * the compare instructions of the kernel's own expression (the op table's
 * C: `a != a` is an unordered compare, `a < b` an ordered one...), whose
 * only flag is invalid: raised on the same NaNs by quiet predicates
 * (_CMP_*_OQ / _UQ) as by C's `==` / `!=`, and on signalling NaNs only
 * where C's `<` raises it on quiet ones too -- whose loops drop what they
 * raise (NOTE [quiet compares] in titer/_ops.py), so the loops' flags are
 * unchanged.  Integer lanes raise nothing either way; complex64 lanes take
 * the predicate of both parts, ORed (or ANDed) across the pair.  The
 * output's elements before its 32-byte boundary and the last partial block
 * go through a zeroed staging block (zeros raise nothing).
 * titer_vbool_<name> takes a contiguous output with contiguous or stride-0
 * operands (not all stride 0) and returns 1, else 0 (the caller's loop
 * runs the kernel).  Included by titer_loops.h; _codegen instantiates the
 * forms the op table asks for (TITER_VBOOL_UNARY / TITER_VBOOL_BINARY). */
#ifndef TITER_VBOOL_H
#define TITER_VBOOL_H

#if defined(__AVX2__) && !defined(__AVX512F__)
#include <immintrin.h>
#include <string.h>
#define TITER_HAVE_VBOOL 1

/* 32 masks of 64 bits (8 vectors) -> 32 bools, in order */
TITER_FAST_INLINE __m256i titer_vbool_pack64(const __m256i m[8]) {
    const __m256i ab = _mm256_packs_epi32(m[0], m[1]), cd = _mm256_packs_epi32(m[2], m[3]);
    const __m256i ef = _mm256_packs_epi32(m[4], m[5]), gh = _mm256_packs_epi32(m[6], m[7]);
    /* bytes: elements 0 1 4 5 8 9 ... 29 in the low half, 2 3 6 7 ... 31 in
     * the high one; as pairs P0..P15 (Pk = 2k, 2k+1): even pairs low, odd
     * pairs high; vpermq's (0,2,1,3) leaves P0 P2 P4 P6 P1 P3 P5 P7 in the
     * low half, P8 .. in the high one, which vpshufb puts in order */
    const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(ab, cd),
                                             _mm256_packs_epi32(ef, gh));
    const __m256i pairs = _mm256_permute4x64_epi64(bytes, 0xd8);
    const __m256i order = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                           0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    return _mm256_and_si256(_mm256_shuffle_epi8(pairs, order), _mm256_set1_epi8(1));
}

TITER_FAST_INLINE __m256i titer_vbool_load(const char *p) {
    return _mm256_loadu_si256((const __m256i *)p);
}

/* ---- the predicates, on the bits of 4 lanes (x, y: __m256i) ---- */
#define TITER_VB_ONES _mm256_set1_epi32(-1)
#define TITER_VB_NOT(m) _mm256_xor_si256((m), TITER_VB_ONES)
#define TITER_VB_CMP_D(x, y, P) _mm256_castpd_si256(                                 \
    _mm256_cmp_pd(_mm256_castsi256_pd(x), _mm256_castsi256_pd(y), P))
#define TITER_VB_CMP_F(x, y, P) _mm256_castps_si256(                                 \
    _mm256_cmp_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(y), P))
#define TITER_VB_ABS_D(x) _mm256_and_si256((x), _mm256_set1_epi64x(INT64_MAX))
#define TITER_VB_ABS_F(x) _mm256_and_si256((x), _mm256_set1_epi32(INT32_MAX))
#define TITER_VB_INF_D _mm256_set1_epi64x(0x7ff0000000000000)
#define TITER_VB_INF_F _mm256_set1_epi32(0x7f800000)
#define TITER_VB_ZERO _mm256_setzero_si256()
/* a complex64 lane from its parts' 32-bit masks: either part, both parts */
#define TITER_VB_ANY_PART(m) _mm256_or_si256((m), _mm256_shuffle_epi32((m), 0xb1))
#define TITER_VB_ALL_PART(m) _mm256_and_si256((m), _mm256_shuffle_epi32((m), 0xb1))
/* uint64 compares as int64 ones, the sign bits flipped */
#define TITER_VB_FLIP(x) _mm256_xor_si256((x), _mm256_set1_epi64x(INT64_MIN))

/* float64 (d) */
#define TITER_VP_nonzero_d(x) TITER_VB_CMP_D(x, TITER_VB_ZERO, _CMP_NEQ_UQ)
#define TITER_VP_isnan_d(x) TITER_VB_CMP_D(x, x, _CMP_UNORD_Q)
#define TITER_VP_isinf_d(x) _mm256_cmpeq_epi64(TITER_VB_ABS_D(x), TITER_VB_INF_D)
#define TITER_VP_isfinite_d(x) _mm256_cmpgt_epi64(TITER_VB_INF_D, TITER_VB_ABS_D(x))
#define TITER_VP_signbit_d(x) _mm256_cmpgt_epi64(TITER_VB_ZERO, x)
#define TITER_VP_logical_not_d(x) TITER_VB_CMP_D(x, TITER_VB_ZERO, _CMP_EQ_OQ)
#define TITER_VP_equal_d(x, y) TITER_VB_CMP_D(x, y, _CMP_EQ_OQ)
#define TITER_VP_not_equal_d(x, y) TITER_VB_CMP_D(x, y, _CMP_NEQ_UQ)
#define TITER_VP_less_d(x, y) TITER_VB_CMP_D(x, y, _CMP_LT_OQ)
#define TITER_VP_less_equal_d(x, y) TITER_VB_CMP_D(x, y, _CMP_LE_OQ)
#define TITER_VP_greater_d(x, y) TITER_VB_CMP_D(x, y, _CMP_GT_OQ)
#define TITER_VP_greater_equal_d(x, y) TITER_VB_CMP_D(x, y, _CMP_GE_OQ)

/* int64 (l) and uint64 (L) */
#define TITER_VP_nonzero_l(x) TITER_VB_NOT(_mm256_cmpeq_epi64(x, TITER_VB_ZERO))
#define TITER_VP_logical_not_l(x) _mm256_cmpeq_epi64(x, TITER_VB_ZERO)
#define TITER_VP_equal_l(x, y) _mm256_cmpeq_epi64(x, y)
#define TITER_VP_not_equal_l(x, y) TITER_VB_NOT(_mm256_cmpeq_epi64(x, y))
#define TITER_VP_less_l(x, y) _mm256_cmpgt_epi64(y, x)
#define TITER_VP_less_equal_l(x, y) TITER_VB_NOT(_mm256_cmpgt_epi64(x, y))
#define TITER_VP_greater_l(x, y) _mm256_cmpgt_epi64(x, y)
#define TITER_VP_greater_equal_l(x, y) TITER_VB_NOT(_mm256_cmpgt_epi64(y, x))
#define TITER_VP_nonzero_L TITER_VP_nonzero_l
#define TITER_VP_logical_not_L TITER_VP_logical_not_l
#define TITER_VP_equal_L TITER_VP_equal_l
#define TITER_VP_not_equal_L TITER_VP_not_equal_l
#define TITER_VP_less_L(x, y) TITER_VP_less_l(TITER_VB_FLIP(x), TITER_VB_FLIP(y))
#define TITER_VP_less_equal_L(x, y) TITER_VP_less_equal_l(TITER_VB_FLIP(x), TITER_VB_FLIP(y))
#define TITER_VP_greater_L(x, y) TITER_VP_greater_l(TITER_VB_FLIP(x), TITER_VB_FLIP(y))
#define TITER_VP_greater_equal_L(x, y) TITER_VP_greater_equal_l(TITER_VB_FLIP(x), TITER_VB_FLIP(y))

/* complex64 (F), a lane a number */
#define TITER_VP_nonzero_F(x) TITER_VB_ANY_PART(TITER_VB_CMP_F(x, TITER_VB_ZERO, _CMP_NEQ_UQ))
#define TITER_VP_isnan_F(x) TITER_VB_ANY_PART(TITER_VB_CMP_F(x, x, _CMP_UNORD_Q))
#define TITER_VP_isinf_F(x) TITER_VB_ANY_PART(_mm256_cmpeq_epi32(TITER_VB_ABS_F(x), TITER_VB_INF_F))
#define TITER_VP_isfinite_F(x) TITER_VB_ALL_PART(_mm256_cmpgt_epi32(TITER_VB_INF_F, TITER_VB_ABS_F(x)))
#define TITER_VP_logical_not_F(x) TITER_VB_NOT(TITER_VP_nonzero_F(x))

/* the logical ops of every lane type, from its nonzero */
#define TITER_VB_LOGICAL(C)                                                          \
    TITER_FAST_INLINE __m256i titer_vp_logical_and_##C(__m256i x, __m256i y) {       \
        return _mm256_and_si256(TITER_VP_nonzero_##C(x), TITER_VP_nonzero_##C(y));   \
    }                                                                                \
    TITER_FAST_INLINE __m256i titer_vp_logical_or_##C(__m256i x, __m256i y) {        \
        return _mm256_or_si256(TITER_VP_nonzero_##C(x), TITER_VP_nonzero_##C(y));    \
    }                                                                                \
    TITER_FAST_INLINE __m256i titer_vp_logical_xor_##C(__m256i x, __m256i y) {       \
        return _mm256_xor_si256(TITER_VP_nonzero_##C(x), TITER_VP_nonzero_##C(y));   \
    }
TITER_VB_LOGICAL(d)
TITER_VB_LOGICAL(l)
TITER_VB_LOGICAL(L)
TITER_VB_LOGICAL(F)
#define TITER_VP_logical_and_d titer_vp_logical_and_d
#define TITER_VP_logical_or_d titer_vp_logical_or_d
#define TITER_VP_logical_xor_d titer_vp_logical_xor_d
#define TITER_VP_logical_and_l titer_vp_logical_and_l
#define TITER_VP_logical_or_l titer_vp_logical_or_l
#define TITER_VP_logical_xor_l titer_vp_logical_xor_l
#define TITER_VP_logical_and_L titer_vp_logical_and_L
#define TITER_VP_logical_or_L titer_vp_logical_or_L
#define TITER_VP_logical_xor_L titer_vp_logical_xor_L
#define TITER_VP_logical_and_F titer_vp_logical_and_F
#define TITER_VP_logical_or_F titer_vp_logical_or_F
#define TITER_VP_logical_xor_F titer_vp_logical_xor_F

/* ---- the walk ---- */
#define TITER_VBOOL_BLOCK 32                    /* bools a vector: 8 x 4 lanes */
#define TITER_VBOOL_BYTES (8 * TITER_VBOOL_BLOCK)  /* their input bytes */

/* the output po[0 .. n) in blocks of 32: the elements before po's 32-byte
 * boundary and the last partial block staged (STAGED, an expression of
 * at_ and count_), whole blocks stored from WHOLE (of at_) */
#define TITER_VBOOL_WALK(PO, N, WHOLE, STAGED)                                       \
    {                                                                                \
        int64_t at_ = 0, count_ = (int64_t)((0 - (uintptr_t)(PO)) & 31);             \
        if (count_ > (N)) count_ = (N);                                              \
        if (count_ > 0) titer_vbool_unstage((PO), (STAGED), count_);                 \
        for (at_ = count_; at_ + TITER_VBOOL_BLOCK <= (N); at_ += TITER_VBOOL_BLOCK) \
            _mm256_store_si256((__m256i *)((PO) + at_), (WHOLE));                    \
        count_ = (N) - at_;                                                          \
        if (count_ > 0) titer_vbool_unstage((PO) + at_, (STAGED), count_);           \
    }

/* a partial block's input: `count` elements, zeros after them */
TITER_FAST_INLINE const char *titer_vbool_stage(char *stage, const char *p, int64_t count) {
    memset(stage, 0, TITER_VBOOL_BYTES);
    memcpy(stage, p, (size_t)(8 * count));
    return stage;
}
TITER_FAST_INLINE void titer_vbool_unstage(npy_bool_t *po, __m256i bools, int64_t count) {
    npy_bool_t out[TITER_VBOOL_BLOCK];
    _mm256_storeu_si256((__m256i *)out, bools);
    memcpy(po, out, (size_t)count);
}
/* a stride-0 operand as a block of its value, read with step 0 */
TITER_FAST_INLINE const char *titer_vbool_repeat(char *block, const char *p) {
    for (int k = 0; k < TITER_VBOOL_BLOCK; k++)
        memcpy(block + 8 * k, p, 8);
    return block;
}

#define TITER_VBOOL_UNARY(NAME, PRED)                                                \
TITER_FAST_INLINE __m256i titer_vbool_block_##NAME(const char *px) {                  \
    __m256i m[8];                                                                    \
    for (int k = 0; k < 8; k++)                                                      \
        m[k] = PRED(titer_vbool_load(px + 32 * k));                                  \
    return titer_vbool_pack64(m);                                                    \
}                                                                                    \
static inline int titer_vbool_##NAME(char **data, const int64_t *strides, int64_t n) {  \
    if (strides[0] != 1 || strides[1] != 8 || n <= 0)                                \
        return 0;                                                                    \
    npy_bool_t *po = (npy_bool_t *)data[0];                                          \
    const char *px = data[1];                                                        \
    char stage[TITER_VBOOL_BYTES];                                                   \
    TITER_VBOOL_WALK(po, n, titer_vbool_block_##NAME(px + 8 * at_),                  \
                     titer_vbool_block_##NAME(titer_vbool_stage(stage, px + 8 * at_, count_))) \
    return 1;                                                                        \
}

#define TITER_VBOOL_BINARY(NAME, PRED)                                               \
TITER_FAST_INLINE __m256i titer_vbool_block_##NAME(const char *px, const char *py) {  \
    __m256i m[8];                                                                    \
    for (int k = 0; k < 8; k++)                                                      \
        m[k] = PRED(titer_vbool_load(px + 32 * k), titer_vbool_load(py + 32 * k));   \
    return titer_vbool_pack64(m);                                                    \
}                                                                                    \
static inline int titer_vbool_##NAME(char **data, const int64_t *strides, int64_t n) {  \
    const int64_t sx = strides[1], sy = strides[2];                                  \
    if (strides[0] != 1 || n <= 0 || (sx != 8 && sx != 0) || (sy != 8 && sy != 0)   \
            || (sx == 0 && sy == 0))                                                 \
        return 0;                                                                    \
    npy_bool_t *po = (npy_bool_t *)data[0];                                          \
    char x_block[TITER_VBOOL_BYTES], y_block[TITER_VBOOL_BYTES];                     \
    const char *px = sx ? data[1] : titer_vbool_repeat(x_block, data[1]);            \
    const char *py = sy ? data[2] : titer_vbool_repeat(y_block, data[2]);            \
    TITER_VBOOL_WALK(po, n, titer_vbool_block_##NAME(px + sx * at_, py + sy * at_),  \
                     titer_vbool_block_##NAME(                                       \
                         sx ? titer_vbool_stage(x_block, px + sx * at_, count_) : px, \
                         sy ? titer_vbool_stage(y_block, py + sy * at_, count_) : py)) \
    return 1;                                                                        \
}

#endif
#endif

/* Vector transcendentals from glibc's vector math library (libmvec).
 *
 * NOTE [vector libm]: glibc (2.35 and later on x86-64) ships SIMD variants
 * of its math functions under the vector function ABI's names:
 * _ZGV<isa>N<lanes><args>_<name>, isa b = SSE2, d = AVX2, e = AVX-512
 * (_ZGVeN16v_expm1f takes and returns 16 floats in a zmm register).  They
 * are Intel's SVML algorithms, the ones NumPy's AVX-512 loops run, and stay
 * within 4 ULP (float32) and 2 ULP (float64) of the correctly rounded result
 * on the inputs we give them (tests/test_veclib.py measures every one).
 * setup.py links libmvec and defines TITER_HAVE_LIBMVEC only when a probe
 * links every symbol the op table names; without it each loop is the
 * fallback the op table gives (titer's own vectorized path, else libm).
 *
 * A vector-libm loop (TITER_VL_LOOP, TITER_VL_LOOP2) on contiguous
 * operands (or a stride-0 scalar operand) runs one pass: per vector it
 * loads the lanes, tests them against the function's trusted range
 * (titer_vl_<name>_ok: where the result is normal and finite, so NumPy
 * reports no flag) in vector form (TITER_VL_VECTORS), and when all are in
 * range (the common case) calls the vector function and stores the
 * result.  (A separate range pass over each block before the calls made
 * float32 cosh 1.19x, float64 exp2 1.16x as slow, AVX-512, 1 thread.)
 * At the first vector with a lane out of range (stored nothing) the
 * rest of the block goes the staged way, as every strided block does: the
 * elements are copied to a local buffer, an input out of range replaced by
 * a safe one, the buffer padded to whole vectors and the vector function
 * called on every vector: so every element comes from the same vector code,
 * whatever the thread count, block boundary or layout (no scalar remainder
 * loop with other bits; the last partial vector of a block is staged too).
 * Out-of-range elements are then recomputed by the op's scalar kernel
 * (libm), which raises NumPy's flags and gives its special values.
 *
 * Each instruction-set unit includes this with its own target, so its loops
 * call its own variant: TITER_CPU_DISPATCH picks the vector width too. */
#ifndef TITER_VECLIB_H
#define TITER_VECLIB_H

#include "titer_scalar.h"

#if defined(TITER_HAVE_LIBMVEC) && defined(__x86_64__) && defined(__GNUC__)
#define TITER_VL 1
#if defined(__AVX512F__)
#define TITER_VL_ISA e
#define TITER_VL_BYTES 64
#define TITER_VL_LANES_f 16
#define TITER_VL_LANES_d 8
#elif defined(__AVX2__)
#define TITER_VL_ISA d
#define TITER_VL_BYTES 32
#define TITER_VL_LANES_f 8
#define TITER_VL_LANES_d 4
#else
#define TITER_VL_ISA b
#define TITER_VL_BYTES 16
#define TITER_VL_LANES_f 4
#define TITER_VL_LANES_d 2
#endif

typedef float titer_vl_f __attribute__((vector_size(TITER_VL_BYTES)));
typedef double titer_vl_d __attribute__((vector_size(TITER_VL_BYTES)));

#define TITER_VL_NAME3(isa, lanes, args, fn) _ZGV##isa##N##lanes##args##_##fn
#define TITER_VL_NAME2(isa, lanes, args, fn) TITER_VL_NAME3(isa, lanes, args, fn)
/* the variant of libm's `fn` for element char t (f, d) and `args` (v, vv) */
#define TITER_VL_NAME(t, args, fn) TITER_VL_NAME2(TITER_VL_ISA, TITER_VL_LANES_##t, args, fn)

#include <immintrin.h>
typedef long long titer_vl_q __attribute__((vector_size(TITER_VL_BYTES)));
/* every lane of q, a vector of float (f) or double (d) lane masks (0 or
 * all ones), set: the masks' sign bits */
#if TITER_VL_BYTES == 64
#define titer_vl_all_f(q) (_mm512_movepi32_mask((__m512i)(q)) == 0xffff)
#define titer_vl_all_d(q) (_mm512_movepi64_mask((__m512i)(q)) == 0xff)
#elif TITER_VL_BYTES == 32
#define titer_vl_all_f(q) (_mm256_movemask_ps((__m256)(q)) == 0xff)
#define titer_vl_all_d(q) (_mm256_movemask_pd((__m256d)(q)) == 0xf)
#else
#define titer_vl_all_f(q) (_mm_movemask_ps((__m128)(q)) == 0xf)
#define titer_vl_all_d(q) (_mm_movemask_pd((__m128d)(q)) == 0x3)
#endif
/* The one pass over a contiguous block: i from 0 by whole vectors while
 * every lane is in range, CALL(i, ...) computing and storing the vector at
 * i, TEST(k, ...) the test of element k (the ... passed on to both); stops
 * at the first vector with a lane out of range, or at the last partial
 * one, leaving i there for the staged path.  The lane tests go to a mask
 * array, not an `&=` over the lanes: GCC 12 vectorizes the array's
 * fixed-length loop into one vector compare, but leaves such a reduction
 * as 16 scalar ones.  MXCSR as in TITER_VL_APPLY1, restored before the
 * staged path saves it again. */
#define TITER_VL_VECTORS(t, UI, TEST, CALL, ...) do {                           \
        const unsigned int flags_ = __builtin_ia32_stmxcsr();                   \
        for (; i + TITER_VL_LANES_##t <= m; i += TITER_VL_LANES_##t) {           \
            UI lane_ok_[TITER_VL_LANES_##t] __attribute__((aligned(TITER_VL_BYTES))); \
            for (int l_ = 0; l_ < TITER_VL_LANES_##t; l_++)                      \
                lane_ok_[l_] = (UI)0 - (UI)TEST(i + l_, __VA_ARGS__);            \
            titer_vl_q q_;                                                       \
            memcpy(&q_, lane_ok_, sizeof q_);                                    \
            if (__builtin_expect(!titer_vl_all_##t(q_), 0)) break;              \
            CALL(i, __VA_ARGS__);                                                \
        }                                                                        \
        __builtin_ia32_ldmxcsr(flags_);                                          \
    } while (0)

/* res[0:count] = fn(arg[0:count]) (and fn(arg, arg2)), count a multiple of
 * the lanes; memcpy is an unaligned vector load or store.  The SSE status
 * flags the calls raise are dropped (MXCSR saved before, restored after):
 * every lane is in its function's range, where the result is normal and
 * finite and NumPy reports nothing, but the AVX2 and SSE2 variants raise
 * underflow, overflow or invalid from the branch-free special-case lanes
 * they compute and discard. */
#define TITER_VL_APPLY1(t, fn, arg, res, count) do {                            \
        extern titer_vl_##t TITER_VL_NAME(t, v, fn)(titer_vl_##t);              \
        const unsigned int flags_ = __builtin_ia32_stmxcsr();                   \
        for (int64_t j_ = 0; j_ < (count); j_ += TITER_VL_LANES_##t) {           \
            titer_vl_##t v_;                                                     \
            memcpy(&v_, (arg) + j_, sizeof v_);                                  \
            v_ = TITER_VL_NAME(t, v, fn)(v_);                                    \
            memcpy((res) + j_, &v_, sizeof v_);                                  \
        }                                                                        \
        __builtin_ia32_ldmxcsr(flags_);                                          \
    } while (0)
#define TITER_VL_APPLY2(t, fn, arg, arg2, res, count) do {                      \
        extern titer_vl_##t TITER_VL_NAME(t, vv, fn)(titer_vl_##t, titer_vl_##t); \
        const unsigned int flags_ = __builtin_ia32_stmxcsr();                   \
        for (int64_t j_ = 0; j_ < (count); j_ += TITER_VL_LANES_##t) {           \
            titer_vl_##t v_, w_;                                                 \
            memcpy(&v_, (arg) + j_, sizeof v_);                                  \
            memcpy(&w_, (arg2) + j_, sizeof w_);                                 \
            v_ = TITER_VL_NAME(t, vv, fn)(v_, w_);                               \
            memcpy((res) + j_, &v_, sizeof v_);                                  \
        }                                                                        \
        __builtin_ia32_ldmxcsr(flags_);                                          \
    } while (0)

/* One block of a unary loop: IN(i) / OUT(i) the i-th element of the block
 * (an lvalue for OUT).  keep, arg and res are the caller's buffers. */
#define TITER_VL_BLOCK1(T, t, UI, TOBITS, FROMBITS, KERNEL, OK, FN, SAFE, IN, OUT) { \
        UI all_kept = ~(UI)0;                                                    \
        TITER_IVDEP for (int64_t i = 0; i < m; i++) {                            \
            T v = IN(i);                                                         \
            UI mask = (UI)0 - (UI)OK(v);                                         \
            keep[i] = mask;                                                      \
            all_kept &= mask;                                                    \
            arg[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(v), (UI)(SAFE)));     \
        }                                                                        \
        int64_t whole = (m + TITER_VL_LANES_##t - 1) & -(int64_t)TITER_VL_LANES_##t; \
        for (int64_t i = m; i < whole; i++) arg[i] = FROMBITS((UI)(SAFE));       \
        TITER_VL_APPLY1(t, FN, arg, res, whole);                                 \
        TITER_IVDEP for (int64_t i = 0; i < m; i++)                              \
            OUT(i) = FROMBITS(TITER_PICK_BITS(keep[i], TOBITS(res[i]), TOBITS(IN(i)))); \
        if (!all_kept)                                                           \
            for (int64_t i = 0; i < m; i++)                                      \
                if (!keep[i]) OUT(i) = KERNEL(OUT(i));                           \
    }

#define TITER_VL_CONTIG_IN(i) bx[i]
#define TITER_VL_CONTIG_OUT(i) bo[i]
#define TITER_VL_STRIDED_IN(i) (*(const titer_vl_elem *)(bx_ + (i) * sx))
#define TITER_VL_STRIDED_OUT(i) (*(titer_vl_elem *)(bo_ + (i) * so))

/* the element test and the vector call of a unary one pass */
#define TITER_VL_TEST1(k, t, OK, FN) OK(bx[k])
#define TITER_VL_CALL1(i, t, OK, FN) do {                                       \
        titer_vl_##t v_;                                                         \
        memcpy(&v_, bx + (i), sizeof v_);                                        \
        v_ = TITER_VL_NAME(t, v, FN)(v_);                                        \
        memcpy(bo + (i), &v_, sizeof v_);                                        \
    } while (0)

/* A unary float32 / float64 loop through the vector function FN (libm's
 * name: expm1f); SAFE the bits of an input in range.  Out may be the input
 * itself (same pointer): the one pass stores only vectors it computed, and
 * the staged path reads its block before it writes it. */
#define TITER_VL_LOOP(T, t, UI, TOBITS, FROMBITS, KERNEL, OK, FN, SAFE)         \
    typedef T titer_vl_elem;      /* for the strided accessors */              \
    extern titer_vl_##t TITER_VL_NAME(t, v, FN)(titer_vl_##t);                  \
    char *o = data[0], *x = data[1];                                            \
    const int64_t so = strides[0], sx = strides[1];                            \
    UI keep[TITER_SPLIT_BLOCK];                                                 \
    T arg[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));                      \
    T res[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));                      \
    for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {            \
        int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
        if (so == (int64_t)sizeof(T) && sx == (int64_t)sizeof(T)) {             \
            T *bo = (T *)o + start; const T *bx = (const T *)x + start;         \
            int64_t i = 0;                                                      \
            TITER_VL_VECTORS(t, UI, TITER_VL_TEST1, TITER_VL_CALL1, t, OK, FN);  \
            if (i < m) {             /* the rest of the block, staged */        \
                bo += i; bx += i; m -= i;                                       \
                TITER_VL_BLOCK1(T, t, UI, TOBITS, FROMBITS, KERNEL, OK, FN, SAFE, \
                                TITER_VL_CONTIG_IN, TITER_VL_CONTIG_OUT)         \
            }                                                                   \
        } else {                                                                \
            char *bo_ = o + start * so; const char *bx_ = x + start * sx;       \
            TITER_VL_BLOCK1(T, t, UI, TOBITS, FROMBITS, KERNEL, OK, FN, SAFE,    \
                            TITER_VL_STRIDED_IN, TITER_VL_STRIDED_OUT)           \
        }                                                                       \
    }

/* One block of a binary loop: A(i), B(i) the operands (arrays, strided or
 * a stride-0 scalar), OUT(i) the output; an out-of-range pair becomes
 * (1, 1) */
#define TITER_VL_BLOCK2(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, A, B, OUT) { \
        UI all_kept = ~(UI)0;                                                    \
        TITER_IVDEP for (int64_t i = 0; i < m; i++) {                            \
            T va = A(i), vb = B(i);                                              \
            UI mask = (UI)0 - (UI)OK(va, vb);                                    \
            keep[i] = mask;                                                      \
            all_kept &= mask;                                                    \
            arg[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(va), (UI)(ONE_BITS)));  \
            arg2[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(vb), (UI)(ONE_BITS))); \
        }                                                                        \
        int64_t whole = (m + TITER_VL_LANES_##t - 1) & -(int64_t)TITER_VL_LANES_##t; \
        for (int64_t i = m; i < whole; i++) arg[i] = arg2[i] = FROMBITS((UI)(ONE_BITS)); \
        TITER_VL_APPLY2(t, FN, arg, arg2, res, whole);                           \
        TITER_IVDEP for (int64_t i = 0; i < m; i++)                              \
            if (keep[i]) OUT(i) = res[i];                                        \
        if (!all_kept)                                                           \
            for (int64_t i = 0; i < m; i++)                                      \
                if (!keep[i]) OUT(i) = KERNEL(A(i), B(i));                       \
    }

#define TITER_VL_CONTIG_A(i) pa[i]
#define TITER_VL_CONTIG_B(i) pb[i]
#define TITER_VL_SCALAR_A(i) va0
#define TITER_VL_SCALAR_B(i) vb0
#define TITER_VL_STRIDED_A(i) (*(const titer_vl_elem *)(ba_ + (i) * sa))
#define TITER_VL_STRIDED_B(i) (*(const titer_vl_elem *)(bb_ + (i) * sb))
/* an operand's vector at i: contiguous, or the scalar in every lane */
#define TITER_VL_CONTIG_A_V(i, v) memcpy(&(v), pa + (i), sizeof(v))
#define TITER_VL_CONTIG_B_V(i, v) memcpy(&(v), pb + (i), sizeof(v))
#define TITER_VL_SCALAR_A_V(i, v) ((v) = va0v)
#define TITER_VL_SCALAR_B_V(i, v) ((v) = vb0v)

/* One block of a binary loop with a contiguous output and contiguous or
 * stride-0 operands (A, B and their vector loads A##_V, B##_V): the one
 * pass, then the rest of the block staged */
#define TITER_VL_BLOCK2_ONE_PASS(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, A, B) { \
        int64_t i = 0;                                                           \
        TITER_VL_VECTORS(t, UI, TITER_VL_TEST2, TITER_VL_CALL2, t, OK, FN, A, B); \
        if (i < m) {             /* the rest of the block, staged */            \
            bo += i; pa += i; pb += i; m -= i;                                   \
            TITER_VL_BLOCK2(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, \
                            A, B, TITER_VL_CONTIG_OUT)                           \
        }                                                                        \
    }
/* the pair test and the vector call of a binary one pass */
#define TITER_VL_TEST2(k, t, OK, FN, A, B) OK(A(k), B(k))
#define TITER_VL_CALL2(i, t, OK, FN, A, B) do {                                 \
        titer_vl_##t v_, w_;                                                     \
        A##_V(i, v_);                                                            \
        B##_V(i, w_);                                                            \
        v_ = TITER_VL_NAME(t, vv, FN)(v_, w_);                                   \
        memcpy(bo + (i), &v_, sizeof v_);                                        \
    } while (0)

/* A binary float32 / float64 loop through the vector function FN: both
 * operands contiguous, one of them a scalar, or any strides.  The inputs
 * of a pair are read again for the out-of-range ones, after the in-range
 * results are written: an operand may be out itself (same pointer and
 * strides), never partly overlapping (the iterator copies such inputs). */
#define TITER_VL_LOOP2(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN)    \
    typedef T titer_vl_elem;      /* for the strided accessors */              \
    extern titer_vl_##t TITER_VL_NAME(t, vv, FN)(titer_vl_##t, titer_vl_##t);   \
    char *o = data[0], *a = data[1], *b = data[2];                              \
    const int64_t so = strides[0], sa = strides[1], sb = strides[2];            \
    const int64_t item = (int64_t)sizeof(T);                                   \
    if (n <= 0) return;                                                         \
    const T va0 = *(const T *)a, vb0 = *(const T *)b;                           \
    const titer_vl_##t va0v = (titer_vl_##t){} + va0, vb0v = (titer_vl_##t){} + vb0; \
    UI keep[TITER_SPLIT_BLOCK];                                                 \
    T arg[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));                      \
    T arg2[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));                     \
    T res[TITER_SPLIT_BLOCK] __attribute__((aligned(64)));                      \
    for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {            \
        int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
        T *bo = (T *)o + start;                                                 \
        const T *pa = (const T *)a + start, *pb = (const T *)b + start;         \
        if (so == item && sa == item && sb == item) {                           \
            TITER_VL_BLOCK2_ONE_PASS(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, \
                                     TITER_VL_CONTIG_A, TITER_VL_CONTIG_B)      \
        } else if (so == item && sa == item && sb == 0) {                       \
            TITER_VL_BLOCK2_ONE_PASS(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, \
                                     TITER_VL_CONTIG_A, TITER_VL_SCALAR_B)      \
        } else if (so == item && sa == 0 && sb == item) {                       \
            TITER_VL_BLOCK2_ONE_PASS(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, \
                                     TITER_VL_SCALAR_A, TITER_VL_CONTIG_B)      \
        } else {                                                                \
            char *bo_ = o + start * so;                                         \
            const char *ba_ = a + start * sa, *bb_ = b + start * sb;            \
            TITER_VL_BLOCK2(T, t, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FN, \
                            TITER_VL_STRIDED_A, TITER_VL_STRIDED_B, TITER_VL_STRIDED_OUT) \
        }                                                                       \
    }
#endif   /* TITER_HAVE_LIBMVEC on x86-64 */

/* ---- trusted ranges: where the vector function's result is normal and
 * finite and within the ULP bound (checked by tests/test_veclib.py at every
 * level); the safe input of each ----
 * |x| bits of a float / double in [lo, hi): */
#define TITER_VL_ABS_F(x, lo, hi) ((titer_f2bits(x) & 0x7fffffffu) - (uint32_t)(lo) \
                                    < (uint32_t)(hi) - (uint32_t)(lo))
#define TITER_VL_ABS_D(x, lo, hi) ((titer_d2bits(x) & 0x7fffffffffffffffull) - (uint64_t)(lo) \
                                    < (uint64_t)(hi) - (uint64_t)(lo))
/* x itself (its sign bit included) in [lo, hi): positive ranges */
#define TITER_VL_POS_F(x, lo, hi) (titer_f2bits(x) - (uint32_t)(lo) < (uint32_t)(hi) - (uint32_t)(lo))
#define TITER_VL_POS_D(x, lo, hi) (titer_d2bits(x) - (uint64_t)(lo) < (uint64_t)(hi) - (uint64_t)(lo))

/* float32 bit patterns */
#define TITER_F_2M60 0x21800000u        /* 2^-60 */
#define TITER_F_2M126 0x00800000u       /* smallest normal */
#define TITER_F_ONE 0x3f800000u
#define TITER_F_2P20 0x49800000u
#define TITER_F_2P60 0x5d800000u
#define TITER_F_INF 0x7f800000u
/* float64 bit patterns */
#define TITER_D_2M60 0x3c30000000000000ull
#define TITER_D_2M1022 0x0010000000000000ull
#define TITER_D_ONE 0x3ff0000000000000ull
#define TITER_D_2P20 0x4130000000000000ull
#define TITER_D_2P500 0x5f30000000000000ull
#define TITER_D_INF 0x7ff0000000000000ull
#define TITER_VL_HALF_F 0x3f000000u                 /* 0.5: the usual safe input */
#define TITER_VL_HALF_D 0x3fe0000000000000ull
#define TITER_VL_TWO_F 0x40000000u                  /* 2: arccosh's */
#define TITER_VL_TWO_D 0x4000000000000000ull

/* exp, exp2: the result normal and finite; tiny |x| is exact enough (1) */
#define titer_vl_exp_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, 0x4086200000000000ull)   /* < 708 */
#define titer_vl_exp2f_ok(x) TITER_VL_ABS_F(x, 0, 0x42fc0000u)                      /* < 126 */
#define titer_vl_exp2_ok(x) TITER_VL_ABS_D(x, 0, 0x408ff00000000000ull)             /* < 1022 */
/* expm1: |x| >= 2^-60 (below, x itself; libm raises underflow for subnormals) */
#define titer_vl_expm1f_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, 0x42b00000u)          /* < 88 */
#define titer_vl_expm1_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, 0x4086200000000000ull) /* < 708 */
/* logarithms: normal, positive, finite */
#define titer_vl_logf_ok(x) TITER_VL_POS_F(x, TITER_F_2M126, TITER_F_INF)
#define titer_vl_log_ok(x) TITER_VL_POS_D(x, TITER_D_2M1022, TITER_D_INF)
#define titer_vl_log2f_ok titer_vl_logf_ok
#define titer_vl_log2_ok titer_vl_log_ok
#define titer_vl_log10f_ok titer_vl_logf_ok
#define titer_vl_log10_ok titer_vl_log_ok
/* log1p: -1 < x, 2^-60 <= |x|, finite */
#define titer_vl_log1pf_ok(x) (TITER_VL_POS_F(x, TITER_F_2M60, TITER_F_INF)                  \
                               | TITER_VL_POS_F(x, 0x80000000u | TITER_F_2M60, 0x80000000u | TITER_F_ONE))
#define titer_vl_log1p_ok(x) (TITER_VL_POS_D(x, TITER_D_2M60, TITER_D_INF)                   \
                              | TITER_VL_POS_D(x, 0x8000000000000000ull | TITER_D_2M60,      \
                                               0x8000000000000000ull | TITER_D_ONE))
/* sin, cos, tan: 2^-60 <= |x| < 2^20 (larger: libm's exact reduction) */
#define titer_vl_sinf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, TITER_F_2P20)
#define titer_vl_cosf_ok titer_vl_sinf_ok
#define titer_vl_tanf_ok titer_vl_sinf_ok
#define titer_vl_tan_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, TITER_D_2P20)
/* arcsin, arctanh, arccos: 2^-60 <= |x| < 1 (smaller: some variants underflow) */
#define titer_vl_asinf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, TITER_F_ONE)
#define titer_vl_asin_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, TITER_D_ONE)
#define titer_vl_atanhf_ok titer_vl_asinf_ok
#define titer_vl_atanh_ok titer_vl_asin_ok
#define titer_vl_acosf_ok titer_vl_asinf_ok
#define titer_vl_acos_ok titer_vl_asin_ok
/* arctan, tanh: 2^-60 <= |x|, finite; arcsinh also below 2^60 / 2^500
 * (where x^2 stays finite) */
#define titer_vl_atanf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, TITER_F_INF)
#define titer_vl_atan_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, TITER_D_INF)
#define titer_vl_tanhf_ok titer_vl_atanf_ok
#define titer_vl_tanh_ok titer_vl_atan_ok
#define titer_vl_asinhf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, TITER_F_2P60)
#define titer_vl_asinh_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, TITER_D_2P500)
/* arccosh: 1 <= x < 2^60 / 2^500 */
#define titer_vl_acoshf_ok(x) TITER_VL_POS_F(x, TITER_F_ONE, TITER_F_2P60)
#define titer_vl_acosh_ok(x) TITER_VL_POS_D(x, TITER_D_ONE, TITER_D_2P500)
/* sinh: 2^-60 <= |x| < 88 / 709; cosh: |x| < 88 / 709 */
#define titer_vl_sinhf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M60, 0x42b00000u)
#define titer_vl_sinh_ok(x) TITER_VL_ABS_D(x, TITER_D_2M60, 0x4086280000000000ull)
#define titer_vl_coshf_ok(x) TITER_VL_ABS_F(x, 0, 0x42b00000u)
#define titer_vl_cosh_ok(x) TITER_VL_ABS_D(x, 0, 0x4086280000000000ull)
/* cbrt: normal, finite, both signs */
#define titer_vl_cbrtf_ok(x) TITER_VL_ABS_F(x, TITER_F_2M126, TITER_F_INF)
#define titer_vl_cbrt_ok(x) TITER_VL_ABS_D(x, TITER_D_2M1022, TITER_D_INF)

/* atan2: both operands 2^-60 <= |v| < 2^60 (the quotient stays normal and
 * finite) */
#define titer_vl_atan2f_ok(y, x) (TITER_VL_ABS_F(y, TITER_F_2M60, TITER_F_2P60)                \
                                  & TITER_VL_ABS_F(x, TITER_F_2M60, TITER_F_2P60))
/* pow: a normal positive finite base, |y| < 2^24 and |y| (|exponent(x)| + 1)
 * < 120 / 1000, so the result is normal and finite */
TITER_FAST_INLINE int titer_vl_powf_ok(float x, float y) {
    uint32_t small_y = 0u - (uint32_t)(titer_fabs_bits(y) < 0x4b800000u);
    int32_t e = (int32_t)(titer_f2bits(x) >> 23) - 127;
    float bound = titer_bits2f(titer_fabs_bits(y) & small_y) * (float)((e < 0 ? -e : e) + 1);
    return TITER_VL_POS_F(x, TITER_F_2M126, TITER_F_INF) & (small_y != 0)
           & (titer_f2bits(bound) < 0x42f00000u);
}
TITER_FAST_INLINE int titer_vl_pow_ok(double x, double y) {
    uint64_t ay = titer_d2bits(y) & 0x7fffffffffffffffull;
    uint64_t small_y = 0ull - (uint64_t)(ay < 0x4170000000000000ull);          /* |y| < 2^24 */
    int64_t e = (int64_t)(titer_d2bits(x) >> 52) - 1023;
    double bound = titer_bits2d(ay & small_y) * (double)((e < 0 ? -e : e) + 1);
    return TITER_VL_POS_D(x, TITER_D_2M1022, TITER_D_INF) & (small_y != 0)
           & (titer_d2bits(bound) < 0x408f400000000000ull);                  /* < 1000 */
}

#endif

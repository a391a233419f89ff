/* Loop shapes wrapped around the one-line kernels of the op table.
 *
 * A 1-d loop sees `data[ntensors]` (outputs first, then inputs, as in ATen)
 * and one byte stride per operand.  Each shape has the three paths of
 * seed 003's VectorizedLoop2d / NumPy's BINARY_LOOP_FAST: every operand
 * contiguous, one input a stride-0 scalar with the rest contiguous, and the
 * generic strided walk.  The iterator guarantees an output either aliases an
 * input exactly or not at all, so `ivdep` is safe. */
#ifndef TITER_LOOPS_H
#define TITER_LOOPS_H

#include "titer_scalar.h"
#include <stdlib.h>

typedef void (*titer_loop1d)(char **data, const int64_t *strides, int64_t n);
typedef void (*titer_cast_fn)(const char *src, int64_t src_stride,
                              char *dst, int64_t dst_stride, int64_t n);

#if defined(__GNUC__) && !defined(__clang__)
#define TITER_IVDEP _Pragma("GCC ivdep")
#define TITER_UNROLL4 _Pragma("GCC unroll 4")
#else
#define TITER_IVDEP
#define TITER_UNROLL4
#endif

/* NOTE [aligned stores]: NumPy's allocator hands out large arrays at 16
 * bytes past a 64-byte boundary, so a vectorized loop storing whole zmm
 * registers from the first element splits every store across two cache
 * lines: a bool -> float64 cast ran 25% slower than NumPy's (which stores
 * narrower registers) on an AVX-512 Xeon.  A contiguous loop therefore
 * runs the elements before the output's first 64-byte boundary on their
 * own (the same loop body, so the same bits wherever C defines them: a
 * conversion it leaves undefined may give another value in the scalar head
 * than in the vector body, so the casts of floats to integers do not
 * align), then the rest from the boundary.  Inputs usually share the output's offset and align too.
 * `head` is 0 where the output is not aligned to its own item size. */
static inline int64_t titer_head_to_align(const void *p, int64_t itemsize, int64_t n) {
    uintptr_t a = (uintptr_t)p;
    int64_t head = a % (uintptr_t)itemsize ? 0 : (int64_t)((0 - a) & 63) / itemsize;
    return head < n ? head : n;
}
/* BODY (for element i) over 0 <= i < n, the output PO's misaligned head
 * first: one loop site, run twice, so GCC vectorizes it once; PRAGMA is
 * TITER_IVDEP or nothing (a cast's operands may overlap) */
#define TITER_ALIGNED_RUN(PRAGMA, PO, ...)                                  \
    do {                                                                    \
        int64_t i = 0;                                                      \
        const int64_t head_ = titer_head_to_align(PO, (int64_t)sizeof(*(PO)), n); \
        for (int pass_ = 0; pass_ < 2; pass_++) {                           \
            const int64_t end_ = pass_ ? n : head_;                         \
            PRAGMA for (; i < end_; i++) __VA_ARGS__;                       \
        }                                                                   \
    } while (0)

#include "titer_vexponent.h"  /* ldexp and frexp at AVX-512 (after the head) */
#include "titer_vcmul.h"      /* complex multiply and square at AVX-512 */
#include "titer_vbool.h"      /* bools from 64-bit lanes at AVX2 */

/* NOTE [broadcast fills]: a loop whose one input is broadcast (stride 0)
 * into a contiguous output -- titer.copy(dst, scalar), np.copyto's fill,
 * and a unary op or cast of a scalar into an array -- computes its one
 * value once and stores it throughout (a vectorized fill), where the
 * strided loop re-read and recomputed it an element at a time: a 2^20-byte
 * fill took 580 us against NumPy's 28 (float32: 430 against 198).  The
 * value is the kernel's on that input, so the same bits; its FP flags are
 * raised once, which is what the sticky flags show for n. */
#define TITER_UNARY_LOOP_WITH(PRAGMA, TI, TO, KERNEL)                        \
    char *o = data[0], *x = data[1];                                        \
    const int64_t so = strides[0], sx = strides[1];                        \
    if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TI)) {           \
        TO *po = (TO *)o; const TI *px = (const TI *)x;                     \
        TITER_ALIGNED_RUN(PRAGMA, po, po[i] = KERNEL(px[i]));               \
    } else if (so == (int64_t)sizeof(TO) && sx == 0 && n > 0) {             \
        /* NOTE [broadcast fills] */                                        \
        TO *po = (TO *)o; const TO value_ = KERNEL(*(const TI *)x);         \
        TITER_ALIGNED_RUN(PRAGMA, po, po[i] = value_);                      \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO *)(o + i * so) = KERNEL(*(const TI *)(x + i * sx));        \
    }
#define TITER_UNARY_LOOP(TI, TO, KERNEL) TITER_UNARY_LOOP_WITH(TITER_IVDEP, TI, TO, KERNEL)
/* four elements a turn, for kernels a target may run one at a time
 * (_codegen._UNROLLED: bitwise_count, which GCC turns into scalar popcnt
 * where the target has no vector one -- 0.7-1.0 ns an element one at a
 * turn, where NumPy's same instructions ran 0.35-0.55) */
#define TITER_UNARY_LOOP_UNROLLED(TI, TO, KERNEL)                             \
    TITER_UNARY_LOOP_WITH(TITER_IVDEP TITER_UNROLL4, TI, TO, KERNEL)

#define TITER_BINARY_LOOP(TA, TB, TO, KERNEL)                                \
    char *o = data[0], *x = data[1], *y = data[2];                          \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];       \
    if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)              \
            && sy == (int64_t)sizeof(TB)) {                                 \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB *py = (const TB *)y;                                       \
        TITER_ALIGNED_RUN(TITER_IVDEP, po, po[i] = KERNEL(px[i], py[i]));   \
    } else if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)       \
            && sy == 0) {                                                   \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB vy = *(const TB *)y;                                       \
        TITER_ALIGNED_RUN(TITER_IVDEP, po, po[i] = KERNEL(px[i], vy));      \
    } else if (so == (int64_t)sizeof(TO) && sx == 0                         \
            && sy == (int64_t)sizeof(TB)) {                                 \
        TO *po = (TO *)o; const TA vx = *(const TA *)x;                     \
        const TB *py = (const TB *)y;                                       \
        TITER_ALIGNED_RUN(TITER_IVDEP, po, po[i] = KERNEL(vx, py[i]));      \
    } else if (so == (int64_t)sizeof(TO) && sx == 2 * (int64_t)sizeof(TA)   \
            && sy == 2 * (int64_t)sizeof(TB)) {                             \
        /* step-2 slices (a[::2] + b[::2]): a constant stride vectorizes   \
         * as loads + shuffles */                                           \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB *py = (const TB *)y;                                       \
        TITER_IVDEP for (int64_t i = 0; i < n; i++)                         \
            po[i] = KERNEL(px[2 * i], py[2 * i]);                           \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO *)(o + i * so) = KERNEL(*(const TA *)(x + i * sx),         \
                                         *(const TB *)(y + i * sy));        \
    }

/* NOTE [byte products]: x86 has no 8-bit multiply, so GCC vectorizes an
 * int8/uint8 product by widening both halves of a vector to 16 bits,
 * multiplying and packing them back (two permutes and two shuffles a
 * vector, all on one port): NumPy's loop, which multiplies in 16-bit lanes
 * in place, was 1.1-1.7x as fast.  The low byte of a product depends only
 * on the low bytes of its factors, signed or not, so two neighbouring
 * bytes of a 16-bit lane multiply on their own: the even byte is the low
 * byte of the lane product, the odd one the low byte of (a >> 8) (b &
 * 0xff00), already in place.  Exact, hence the kernel's bits.  The bytes
 * before the output's 64-byte boundary (NOTE [aligned stores]) and a last
 * odd one are multiplied one at a time.  (_codegen._BYTE_PRODUCT_LOOPS) */
typedef uint16_t titer_u16_any __attribute__((aligned(1), may_alias));
static inline uint16_t titer_byte_pair_product(uint16_t a, uint16_t b) {
    uint16_t even = (uint16_t)(a * b) & 0x00ffu;
    return (uint16_t)(even | (uint16_t)((a >> 8) * (b & 0xff00u)));
}
/* o[i] = x[i] y[i] (low bytes) for 0 <= i < n, byte by byte up to the
 * output's 64-byte boundary and past the last whole pair; XP / YP give
 * pair j of the body, XB / YB byte i */
#define TITER_BYTE_PAIRS(XP, YP, XB, YB)                                    \
    do {                                                                    \
        uint8_t *po = (uint8_t *)o;                                         \
        const int64_t at = titer_head_to_align(po, 1, n), pairs = (n - at) / 2; \
        titer_u16_any *wo = (titer_u16_any *)(po + at);                     \
        for (int64_t i = 0; i < at; i++) po[i] = (uint8_t)(XB(i) * YB(i));  \
        TITER_IVDEP for (int64_t j = 0; j < pairs; j++)                     \
            wo[j] = titer_byte_pair_product(XP(j), YP(j));                  \
        for (int64_t i = at + 2 * pairs; i < n; i++) po[i] = (uint8_t)(XB(i) * YB(i)); \
    } while (0)
#define TITER_PAIR_OF_X(j) (((const titer_u16_any *)(x + at))[j])
#define TITER_PAIR_OF_Y(j) (((const titer_u16_any *)(y + at))[j])
#define TITER_PAIR_SCALAR_X(j) (pair_x)
#define TITER_PAIR_SCALAR_Y(j) (pair_y)
#define TITER_BYTE_OF_X(i) (((const uint8_t *)x)[i])
#define TITER_BYTE_OF_Y(i) (((const uint8_t *)y)[i])
#define TITER_BYTE_SCALAR_X(i) (*(const uint8_t *)x)
#define TITER_BYTE_SCALAR_Y(i) (*(const uint8_t *)y)
/* multiply of 8-bit integers: both contiguous, or one a stride-0 scalar
 * (its byte in both halves of the lane); otherwise TITER_BINARY_LOOP */
#define TITER_BYTE_PRODUCT_LOOP(TA, TB, TO, KERNEL)                          \
    if (strides[0] == 1 && (strides[1] | 1) == 1 && (strides[2] | 1) == 1   \
            && (strides[1] | strides[2])) {                                 \
        char *o = data[0];                                                  \
        const char *x = data[1], *y = data[2];                              \
        const uint16_t pair_x = (uint16_t)(*(const uint8_t *)x * 0x0101u);  \
        const uint16_t pair_y = (uint16_t)(*(const uint8_t *)y * 0x0101u);  \
        if (strides[1] && strides[2])                                       \
            TITER_BYTE_PAIRS(TITER_PAIR_OF_X, TITER_PAIR_OF_Y,              \
                             TITER_BYTE_OF_X, TITER_BYTE_OF_Y);             \
        else if (strides[1])                                                \
            TITER_BYTE_PAIRS(TITER_PAIR_OF_X, TITER_PAIR_SCALAR_Y,          \
                             TITER_BYTE_OF_X, TITER_BYTE_SCALAR_Y);         \
        else                                                                \
            TITER_BYTE_PAIRS(TITER_PAIR_SCALAR_X, TITER_PAIR_OF_Y,          \
                             TITER_BYTE_SCALAR_X, TITER_BYTE_OF_Y);         \
        return;                                                             \
    }                                                                       \
    { TITER_BINARY_LOOP(TA, TB, TO, KERNEL) }
/* square of 8-bit integers, contiguous; otherwise TITER_UNARY_LOOP */
#define TITER_BYTE_SQUARE_LOOP(TI, TO, KERNEL)                               \
    if (strides[0] == 1 && strides[1] == 1) {                               \
        char *o = data[0];                                                  \
        const char *x = data[1], *y = data[1];                              \
        TITER_BYTE_PAIRS(TITER_PAIR_OF_X, TITER_PAIR_OF_Y,                  \
                         TITER_BYTE_OF_X, TITER_BYTE_OF_Y);                 \
        return;                                                             \
    }                                                                       \
    { TITER_UNARY_LOOP(TI, TO, KERNEL) }

/* Three inputs (where, clip): all contiguous; the first contiguous with the
 * other two stride-0 scalars (clip(a, lo, hi), where(c, x, 0)); strided. */
#define TITER_TERNARY_LOOP(TA, TB, TC, TO, KERNEL)                           \
    char *o = data[0], *x = data[1], *y = data[2], *z = data[3];            \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2],       \
                  sz = strides[3];                                          \
    if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)              \
            && sy == (int64_t)sizeof(TB) && sz == (int64_t)sizeof(TC)) {    \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB *py = (const TB *)y; const TC *pz = (const TC *)z;         \
        TITER_ALIGNED_RUN(TITER_IVDEP, po, po[i] = KERNEL(px[i], py[i], pz[i])); \
    } else if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)       \
            && sy == 0 && sz == 0) {                                        \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB vy = *(const TB *)y; const TC vz = *(const TC *)z;         \
        TITER_ALIGNED_RUN(TITER_IVDEP, po, po[i] = KERNEL(px[i], vy, vz));  \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO *)(o + i * so) = KERNEL(*(const TA *)(x + i * sx),         \
                                         *(const TB *)(y + i * sy),         \
                                         *(const TC *)(z + i * sz));        \
    }

/* Two outputs (modf, frexp; divmod): data = {out0, out1, inputs...}; the
 * kernel returns out0 and writes out1 through a pointer. */
#define TITER_UNARY2_LOOP(TI, TO0, TO1, KERNEL)                              \
    char *o0 = data[0], *o1 = data[1], *x = data[2];                        \
    const int64_t s0 = strides[0], s1 = strides[1], sx = strides[2];       \
    if (s0 == (int64_t)sizeof(TO0) && s1 == (int64_t)sizeof(TO1)            \
            && sx == (int64_t)sizeof(TI)) {                                 \
        TO0 *p0 = (TO0 *)o0; TO1 *p1 = (TO1 *)o1; const TI *px = (const TI *)x; \
        for (int64_t i = 0; i < n; i++) p0[i] = KERNEL(px[i], p1 + i);      \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO0 *)(o0 + i * s0) = KERNEL(*(const TI *)(x + i * sx),       \
                                           (TO1 *)(o1 + i * s1));           \
    }

#define TITER_BINARY2_LOOP(TA, TB, TO0, TO1, KERNEL)                         \
    char *o0 = data[0], *o1 = data[1], *x = data[2], *y = data[3];          \
    const int64_t s0 = strides[0], s1 = strides[1], sx = strides[2],       \
                  sy = strides[3];                                          \
    if (s0 == (int64_t)sizeof(TO0) && s1 == (int64_t)sizeof(TO1)            \
            && sx == (int64_t)sizeof(TA) && sy == (int64_t)sizeof(TB)) {    \
        TO0 *p0 = (TO0 *)o0; TO1 *p1 = (TO1 *)o1;                           \
        const TA *px = (const TA *)x; const TB *py = (const TB *)y;         \
        for (int64_t i = 0; i < n; i++) p0[i] = KERNEL(px[i], py[i], p1 + i); \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO0 *)(o0 + i * s0) = KERNEL(*(const TA *)(x + i * sx),       \
                                           *(const TB *)(y + i * sy),       \
                                           (TO1 *)(o1 + i * s1));           \
    }

/* A loop under a where= mask: the mask is the operand after the op's own
 * `nt`; the op's loop runs on each stretch of selected elements, so the
 * others are neither computed nor written. */
static inline void titer_masked_run(titer_loop1d fn, int nt, char **data,
                                    const int64_t *strides, int64_t n) {
    char *ptrs[16];
    const char *m = data[nt];
    const int64_t sm = strides[nt];
    int64_t i = 0;
    while (i < n) {
        while (i < n && !*(const npy_bool_t *)(m + i * sm)) i++;
        int64_t start = i;
        while (i < n && *(const npy_bool_t *)(m + i * sm)) i++;
        if (i > start) {
            for (int t = 0; t < nt; t++) ptrs[t] = data[t] + start * strides[t];
            fn(ptrs, strides, i - start);
        }
    }
}

/* A unary loop with a vectorizable fast path (see titer_fast_expf), for
 * float32 or float64 (T, and UI its unsigned integer of the same width): on
 * contiguous operands a block whose inputs are all in OK's range (the
 * common case, found by a vectorized test of the block) runs FAST on them
 * and nothing else.  Otherwise FAST runs on every element of the block (an
 * out-of-range input is replaced by 0 first, so FAST raises nothing) and an
 * out-of-range element keeps its input; those are then recomputed by
 * KERNEL, the libm one (in place too: the input is still there).  The
 * test costs a pass over the block, but saves the masking, the mask store
 * and the blend of every element: float64 exp and tan, float32 log and tan
 * take 0.88-0.95x the time with it (float64 arcsin the same) in the AVX-512
 * unit, 0.81-0.96x in the AVX2 one (1 thread).
 *
 * Every instruction-set unit builds its own fast-path loops for its own
 * target (the core's unit: the baseline), so TITER_CPU_DISPATCH picks them
 * with the rest of the table.  -ffp-contract=off keeps every a*b+c apart,
 * so an own fast path gives the same bits at every level (the vector-libm
 * loops of titer_veclib.h do not: each level calls its own variant). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* fast paths built on exact fused multiply-adds (the float64 fmod family):
 * FMA in hardware in an instruction-set unit (chosen only on CPUs with FMA);
 * the baseline calls libm's fma.  Their code has no a*b+c for
 * -ffp-contract=off to keep apart. */
#ifdef TITER_ISA
#define TITER_FAST_FMA __attribute__((target("fma")))
#else
#define TITER_FAST_FMA
#endif
/* loops whose expressions fuse as NumPy's do (titer_muladd: complex
 * multiply, |z|): FMA from x86-64-v3 on; in an instruction-set unit (chosen
 * only on CPUs with FMA) FMA is added to its target */
#ifdef TITER_ISA
#define TITER_SIMD_FMA_CLONES __attribute__((target("fma")))
#else
#define TITER_SIMD_FMA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#else
#define TITER_FAST_FMA
#define TITER_SIMD_FMA_CLONES
#endif
/* see _NO_TRAPPING_MATH in titer/_codegen.py */
#if defined(__GNUC__) && !defined(__clang__)
#define TITER_NO_TRAPPING_MATH __attribute__((optimize("no-trapping-math")))
#else
#define TITER_NO_TRAPPING_MATH
#endif
/* Around the loop statements of an op that compares quietly (NOTE [quiet
 * compares] in titer/_ops.py): the invalid flag they raise is dropped, one
 * raised before them kept (titer_fpflags.h). */
#define TITER_QUIET_INVALID_BEGIN                                           \
    {                                                                       \
        const unsigned int flags_before_ = titer_fp_flags();
#define TITER_QUIET_INVALID_END                                             \
        titer_drop_own_invalid(flags_before_);                              \
    }
#define TITER_SPLIT_BLOCK 1024
/* NOTE [one-pass split loops] Where the output is apart from the input,
 * the unary split loop computes FAST on every element of a block as it
 * tests the range, with no pass of its own for the test: a block all in
 * range (the common case) is then done, one read of the input.  A block
 * with an element out of range had FAST run on it, whose flags mean
 * nothing: the flags go back to what they were before the block (FAST
 * raises nothing in range, so that is exact) and the block is redone from
 * its input, masked, then KERNEL.  In place, the first pass would have
 * overwritten that input: the range test then runs as a pass of its own.
 * Measured (2^20 float32 elements, one thread, a Sapphire Rapids VM,
 * interleaved runs): tanh 0.385 -> 0.339 ns an element, log 0.316 ->
 * 0.276, exp 0.263 -> 0.255; in cache 2-4%. */
static inline int titer_apart(const void *a, const void *b, int64_t nbytes) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x + (uintptr_t)nbytes <= y || y + (uintptr_t)nbytes <= x;
}
#include "titer_veclib.h"   /* the vector-libm loops (after the block size) */
#define TITER_SPLIT_LOOP(T, UI, TOBITS, FROMBITS, KERNEL, OK, FAST)         \
    char *o = data[0], *x = data[1];                                        \
    const int64_t so = strides[0], sx = strides[1];                        \
    if (so == (int64_t)sizeof(T) && sx == (int64_t)sizeof(T)) {             \
        T *po = (T *)o; const T *px = (const T *)x;                        \
        UI keep[TITER_SPLIT_BLOCK];        /* all ones where FAST is used */ \
        const int apart = titer_apart(po, px, n * (int64_t)sizeof(T));     \
        unsigned int flags_so_far = apart ? titer_fp_flags() : 0u;          \
        for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {    \
            int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
            T *bo = po + start; const T *bx = px + start;                   \
            UI in_range = ~(UI)0;                                           \
            if (apart) {                   /* NOTE [one-pass split loops] */ \
                TITER_IVDEP for (int64_t i = 0; i < m; i++) {               \
                    in_range &= (UI)0 - (UI)OK(bx[i]);                      \
                    bo[i] = FAST(bx[i]);                                    \
                }                                                           \
                if (in_range)                                               \
                    continue;                                               \
                titer_set_fp_flags(flags_so_far);                           \
            } else {                                                        \
                TITER_IVDEP for (int64_t i = 0; i < m; i++)                 \
                    in_range &= (UI)0 - (UI)OK(bx[i]);                      \
                if (in_range) {                                             \
                    TITER_IVDEP for (int64_t i = 0; i < m; i++)             \
                        bo[i] = FAST(bx[i]);                                \
                    continue;                                               \
                }                                                           \
            }                                                               \
            UI all_kept = ~(UI)0;                                           \
            /* bit masks, not ?:, so GCC if-converts and vectorizes */      \
            TITER_IVDEP for (int64_t i = 0; i < m; i++) {                   \
                UI vb = TOBITS(bx[i]);                                      \
                UI mask = (UI)0 - (UI)OK(bx[i]);                            \
                T f = FAST(FROMBITS(vb & mask));                            \
                keep[i] = mask;                                             \
                all_kept &= mask;                                           \
                bo[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(f), vb));        \
            }                                                               \
            /* the scalar pass over a block costs as much as the vector one: \
               skipped when every element was in range (the common case) */ \
            if (!all_kept)                                                  \
                for (int64_t i = 0; i < m; i++)                             \
                    if (!keep[i]) bo[i] = KERNEL(bo[i]);                    \
            if (apart)                                                      \
                flags_so_far = titer_fp_flags();                            \
        }                                                                   \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(T *)(o + i * so) = KERNEL(*(const T *)(x + i * sx));          \
    }

/* The binary form, for contiguous outputs and inputs that are contiguous
 * or one repeated scalar (x ** 2.5): out-of-range pairs become (1, 1)
 * (ONE_BITS) before FAST, and their output elements keep what they held, so
 * an output that is one of the inputs still has it for KERNEL's pass.
 * OUTS is TITER_ONE_OUTPUT or TITER_TWO_OUTPUTS (divmod: FAST and KERNEL
 * take a pointer to the second output and return the first); it expands its
 * arguments only for two, so one macro serves both. */
#define TITER_ONE_OUTPUT(...)
#define TITER_TWO_OUTPUTS(...) __VA_ARGS__
#define TITER_SPLIT_BLOCK2(T, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FAST, A_AT, B_AT, OUTS) \
    for (int64_t start = 0; start < n; start += TITER_SPLIT_BLOCK) {        \
        int64_t m = n - start < TITER_SPLIT_BLOCK ? n - start : TITER_SPLIT_BLOCK; \
        T *bo = po + start;                                                 \
        OUTS(T *bo1 = po1 + start;)                                         \
        UI all_kept = ~(UI)0;                                               \
        TITER_IVDEP for (int64_t i = 0; i < m; i++) {                       \
            T va = A_AT(start + i), vb = B_AT(start + i);                   \
            OUTS(T second;)                                                 \
            UI mask = (UI)0 - (UI)OK(va, vb);                               \
            T f = FAST(FROMBITS(TITER_PICK_BITS(mask, TOBITS(va), (UI)(ONE_BITS))), \
                       FROMBITS(TITER_PICK_BITS(mask, TOBITS(vb), (UI)(ONE_BITS))) \
                       OUTS(, &second));                                    \
            keep[i] = mask;                                                 \
            all_kept &= mask;                                               \
            bo[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(f), TOBITS(bo[i]))); \
            OUTS(bo1[i] = FROMBITS(TITER_PICK_BITS(mask, TOBITS(second), TOBITS(bo1[i])));) \
        }                                                                   \
        if (!all_kept)                                                      \
            for (int64_t i = 0; i < m; i++)                                 \
                if (!keep[i])                                               \
                    bo[i] = KERNEL(A_AT(start + i), B_AT(start + i) OUTS(, bo1 + i)); \
    }
#define TITER_AT_X_ARRAY(i) px[i]
#define TITER_AT_SCALAR_X(i) vx
#define TITER_AT_Y_ARRAY(i) py[i]
#define TITER_AT_SCALAR_Y(i) vy
#define TITER_SPLIT_LOOP2(T, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FAST, OUTS) \
    const int nout = 1 OUTS(+ 1);                                           \
    char *o = data[0], *x = data[nout], *y = data[nout + 1];                \
    const int64_t so = strides[0], sx = strides[nout], sy = strides[nout + 1]; \
    OUTS(char *o1 = data[1]; const int64_t so1 = strides[1];)               \
    const int64_t item = (int64_t)sizeof(T);                               \
    if (n <= 0) return;                                                     \
    T *po = (T *)o; const T *px = (const T *)x, *py = (const T *)y;        \
    OUTS(T *po1 = (T *)o1;)                                                 \
    const T vx = *px, vy = *py;                                             \
    UI keep[TITER_SPLIT_BLOCK];                                             \
    if (so == item OUTS(&& so1 == item) && sx == item && sy == item) {      \
        TITER_SPLIT_BLOCK2(T, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FAST, \
                           TITER_AT_X_ARRAY, TITER_AT_Y_ARRAY, OUTS)          \
    } else if (so == item OUTS(&& so1 == item) && sx == item && sy == 0) {  \
        TITER_SPLIT_BLOCK2(T, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FAST, \
                           TITER_AT_X_ARRAY, TITER_AT_SCALAR_Y, OUTS)         \
    } else if (so == item OUTS(&& so1 == item) && sx == 0 && sy == item) {  \
        TITER_SPLIT_BLOCK2(T, UI, TOBITS, FROMBITS, ONE_BITS, KERNEL, OK, FAST, \
                           TITER_AT_SCALAR_X, TITER_AT_Y_ARRAY, OUTS)       \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(T *)(o + i * so) = KERNEL(*(const T *)(x + i * sx), *(const T *)(y + i * sy) \
                                        OUTS(, (T *)(o1 + i * so1)));       \
    }

/* NumPy's power with a stride-0 exponent (its POWER_FAST_PATH, float32 and
 * float64, every CPU): an exponent of -1, 0, 0.5, 1 or 2 gives 1/x, 1,
 * sqrt(x), x or x*x -- not pow, whose answers differ for 0.5 at -inf (inf,
 * not NaN) and -0.  Returns 0, computing nothing, for any other exponent.
 * (_codegen.PRELUDES runs it before the power loop.) */
#define TITER_POWER_FAST_OPS(T, SUFFIX, SQRT)                                  \
static inline int titer_power_fast_ops_##SUFFIX(char **data, const int64_t *strides, \
                                                int64_t n) {                  \
    if (strides[2] != 0 || n <= 0) return 0;                                \
    const T y = *(const T *)data[2];                                        \
    char *o = data[0];                                                      \
    const char *x = data[1];                                                \
    const int64_t so = strides[0], sx = strides[1];                        \
    if (y == (T)-1)                                                         \
        for (int64_t i = 0; i < n; i++) *(T *)(o + i * so) = (T)1 / *(const T *)(x + i * sx); \
    else if (y == (T)0)                                                     \
        for (int64_t i = 0; i < n; i++) *(T *)(o + i * so) = (T)1;          \
    else if (y == (T)0.5)                                                   \
        for (int64_t i = 0; i < n; i++) *(T *)(o + i * so) = SQRT(*(const T *)(x + i * sx)); \
    else if (y == (T)1)                                                     \
        for (int64_t i = 0; i < n; i++) *(T *)(o + i * so) = *(const T *)(x + i * sx); \
    else if (y == (T)2)                                                     \
        for (int64_t i = 0; i < n; i++) {                                   \
            const T a = *(const T *)(x + i * sx);                           \
            *(T *)(o + i * so) = a * a;                                     \
        }                                                                   \
    else                                                                    \
        return 0;                                                           \
    return 1;                                                               \
}
TITER_POWER_FAST_OPS(float, f, sqrtf)
TITER_POWER_FAST_OPS(double, d, sqrt)

/* NOTE [F16C blocks]: a block of float16 is widened and rounded back by
 * F16C's vcvtph2ps / vcvtps2ph where the unit's target has them (the avx2
 * and avx512 units; a padded vector for the last few), else by titer_h2f /
 * titer_f2h (ten times the work).  The values and flags are the same
 * (checked on every third float32): widening is exact, rounding is to
 * nearest even and raises overflow and underflow as IEEE does, but
 * detecting tininess after rounding, where NumPy detects it before: a
 * magnitude in [2^-14 - 2^-26, 2^-14), which rounds up to the smallest
 * normal float16, raises underflow in NumPy and not in vcvtps2ph, so such
 * a block raises it itself.  A signaling NaN is quieted on the way in (with
 * 'invalid'); a kernel given a signaling NaN would quiet it and raise the
 * same flag. */
#if defined(__F16C__) && defined(__AVX__)
#include <immintrin.h>
/* a float whose float16 rounds up to the smallest normal from below */
static inline int titer_rounds_up_to_normal(float v) {
    return (titer_f2bits(v) & 0x7fffffffu) - 0x387ff000u < 0x38800000u - 0x387ff000u;
}
static inline void titer_raise_half_underflow(void) {   /* as a tiny product */
    volatile float tiny = 0x1p-100f;
    tiny = tiny * tiny;
}
#if defined(__AVX512F__)
/* sixteen floats rounded to halves at `out`; the lanes that
 * titer_rounds_up_to_normal */
static inline __mmask16 titer_round_to_halves16(__m512 v, titer_half *out) {
    __m512i bits = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    __mmask16 near = _mm512_cmplt_epu32_mask(
        _mm512_sub_epi32(bits, _mm512_set1_epi32(0x387ff000)),
        _mm512_set1_epi32(0x38800000 - 0x387ff000));
    _mm256_storeu_si256((__m256i *)out, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    return near;
}
#endif
static inline void titer_widen_halves(const titer_half *in, float *out, int64_t m) {
    int64_t i = 0, whole = m & ~(int64_t)7;
#if defined(__AVX512F__)
    for (; i + 16 <= m; i += 16)
        _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(in + i))));
#endif
    for (; i < whole; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(in + i))));
    if (whole < m) {
        titer_half pad[8] = {0};
        float wide[8];
        memcpy(pad, in + whole, (size_t)(m - whole) * sizeof(titer_half));
        _mm256_storeu_ps(wide, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)pad)));
        memcpy(out + whole, wide, (size_t)(m - whole) * sizeof(float));
    }
}
static inline void titer_round_to_halves(const float *in, titer_half *out, int64_t m) {
    int64_t i = 0, whole = m & ~(int64_t)7;
    uint32_t rounds_up_to_normal = 0;
#if defined(__AVX512F__)
    /* sixteen a turn, checking for the underflow in the same pass */
    __mmask16 near = 0;
    for (; i + 16 <= m; i += 16)
        near |= titer_round_to_halves16(_mm512_loadu_ps(in + i), out + i);
    rounds_up_to_normal = near != 0;
#endif
    for (int64_t j = i; j < m; j++)
        rounds_up_to_normal |= titer_rounds_up_to_normal(in[j]);
    for (; i < whole; i += 8)
        _mm_storeu_si128((__m128i *)(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
    if (whole < m) {
        float pad[8] = {0};
        titer_half narrow[8];
        memcpy(pad, in + whole, (size_t)(m - whole) * sizeof(float));
        _mm_storeu_si128((__m128i *)narrow, _mm256_cvtps_ph(_mm256_loadu_ps(pad),
                                                            _MM_FROUND_TO_NEAREST_INT));
        memcpy(out + whole, narrow, (size_t)(m - whole) * sizeof(titer_half));
    }
    if (rounds_up_to_normal) titer_raise_half_underflow();
}
#else
static inline void titer_widen_halves(const titer_half *in, float *out, int64_t m) {
    TITER_IVDEP for (int64_t i = 0; i < m; i++) out[i] = titer_h2f(in[i]);
}
static inline void titer_round_to_halves(const float *in, titer_half *out, int64_t m) {
    TITER_IVDEP for (int64_t i = 0; i < m; i++) out[i] = titer_f2h(in[i]);
}
#endif

/* float16 ops whose float32 loop has a fast path (exp, sin, hypot, divmod,
 * ...): NumPy computes float16 in float and rounds once, so a block of
 * float16 operands is widened into float buffers (a stride-0 scalar stays
 * one float), the float32 loop runs on them (its vector fast path, libm for
 * the rest; the first output's buffer is the first input's, which that loop
 * allows; a second output has its own), and each result is rounded back
 * (NOTE [F16C blocks]).  data / strides: nout outputs, then nin inputs.
 * Returns 0, doing nothing, for operands neither contiguous nor scalar;
 * the caller then runs the one-element kernel. */
#define TITER_HALF_BLOCK 1024
static inline int titer_half_through_float(titer_loop1d float_loop, int nin, int nout,
                                           char **data, const int64_t *strides, int64_t n) {
    for (int k = 0; k < nout; k++)
        if (strides[k] != (int64_t)sizeof(titer_half)) return 0;
    for (int k = nout; k < nout + nin; k++)
        if (strides[k] != (int64_t)sizeof(titer_half) && strides[k] != 0) return 0;
    float wide[3][TITER_HALF_BLOCK], scalar[2];
    char *fdata[4];
    int64_t fstrides[4];
    fdata[0] = (char *)wide[0];                 /* the first input's buffer */
    fdata[1] = (char *)wide[2];                 /* a second output's */
    fstrides[0] = fstrides[1] = (int64_t)sizeof(float);
    for (int k = 0; k < nin; k++) {
        if (strides[nout + k] == 0) {
            scalar[k] = titer_h2f(*(const titer_half *)data[nout + k]);
            fdata[nout + k] = (char *)&scalar[k];
            fstrides[nout + k] = 0;
        } else {
            fdata[nout + k] = (char *)wide[k];
            fstrides[nout + k] = (int64_t)sizeof(float);
        }
    }
    for (int64_t start = 0; start < n; start += TITER_HALF_BLOCK) {
        int64_t m = n - start < TITER_HALF_BLOCK ? n - start : TITER_HALF_BLOCK;
        for (int k = 0; k < nin; k++)
            if (strides[nout + k] != 0)
                titer_widen_halves((const titer_half *)data[nout + k] + start, wide[k], m);
        float_loop(fdata, fstrides, m);
        for (int k = 0; k < nout; k++)
            titer_round_to_halves((const float *)fdata[k], (titer_half *)data[k] + start, m);
    }
    return 1;
}

/* NOTE [float16 in registers]: at AVX-512, a unary float16 op whose float32
 * loop runs a 16-lane form (TITER_VEC_LOOP_F16) can take contiguous calls
 * in registers: halves widened by vcvtph2ps, the form, rounded by
 * vcvtps2ph, two vectors a turn.  That runs where every lane is in the
 * form's half range (FORM16_half_ok): inside the form's own range, and
 * where the result's half is normal or overflows, so that vcvtps2ph raises
 * what NumPy's rounding raises with no underflow test (NOTE [F16C blocks];
 * the test cost a quarter of the loop).  A vector with a lane out of that
 * range, and the last few, go through titer_half_through_float with the
 * next 255 (one vector at a time, 2^20 float16 NaNs took 6.3 ms against
 * 0.5 in blocks).  Each element gets the float32 loop's bits and flags
 * rounded (the form is that loop's, lane by lane, and its twin's), as the
 * blocks through float give and the table memoizes, without the blocks'
 * passes over buffers or the table's gathers.  Where the form is cheap that
 * is the faster: _codegen._HALF_IN_REGISTERS says which (one thread, 2^20
 * float16 exp2 on Zen 4, where a gather costs 0.38 ns an element: 0.26 ms,
 * against 0.29-0.40 by the table; NumPy 0.20).  The loop that expands it
 * has the forms' FMA target (TITER_FAST_FMA) and returns 1 where it ran. */
#if defined(__AVX512F__) && defined(__F16C__)
#define TITER_HALVES16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define TITER_STORE_HALVES16(p, v) \
    _mm256_storeu_si256((__m256i *)(p), _mm512_cvtps_ph((__m512)(v), _MM_FROUND_TO_NEAREST_INT))
#define TITER_HALF_VEC_F16(HALF_OK16, VFAST16, FLOAT_LOOP)                       \
    if (strides[0] != (int64_t)sizeof(titer_half) || strides[1] != (int64_t)sizeof(titer_half)) \
        return 0;                                                                \
    titer_half *out = (titer_half *)data[0];                                     \
    const titer_half *in = (const titer_half *)data[1];                          \
    int64_t i = 0;                                                               \
    while (i < n) {                                                              \
        for (; i + 32 <= n; i += 32) {  /* both loaded first: out may be in */   \
            __m512 x = TITER_HALVES16(in + i), y = TITER_HALVES16(in + i + 16);  \
            if (__builtin_expect((HALF_OK16((titer_v16f)x) & HALF_OK16((titer_v16f)y)) \
                                 != 0xffff, 0)) break;                           \
            TITER_STORE_HALVES16(out + i, VFAST16((titer_v16f)x));               \
            TITER_STORE_HALVES16(out + i + 16, VFAST16((titer_v16f)y));          \
        }                                                                        \
        for (; i + 16 <= n; i += 16) {                                           \
            __m512 x = TITER_HALVES16(in + i);                                   \
            if (__builtin_expect(HALF_OK16((titer_v16f)x) != 0xffff, 0)) break;  \
            TITER_STORE_HALVES16(out + i, VFAST16((titer_v16f)x));               \
        }                                                                        \
        if (i == n) break;                                                       \
        /* a vector out of the form's half range, or the last few: the       \
           float32 loop's other paths over them and the next, in one block */ \
        int64_t m = n - i < TITER_HALF_BLOCK / 4 ? n - i : TITER_HALF_BLOCK / 4; \
        titer_half_through_float(FLOAT_LOOP, 1, 1, (char *[2]){(char *)(out + i), \
                                 (char *)(in + i)}, strides, m);                 \
        i += m;                                                                  \
    }                                                                            \
    return 1;

/* NOTE [float16 where gathers are slow]: the forms below cost about their
 * table's lookups where a gather is fast (Intel: 0.2 ns an element) and
 * less where a gather is microcoded (AMD Zen 4 and 5: 0.4 ns; one thread,
 * 2^20 float16 log on Zen 5: 0.40 ms by the table, NumPy 0.16), so their
 * loops run in registers only where titer_half_registers_first says (set
 * by the CPU's vendor: _core.pyx), and fill their tables elsewhere.  Both
 * give the float32 path's bits and flags rounded.  Their half ranges: the
 * form's own range where no result is below 2^-14 (log of a half is 0 or
 * at least 2^-11 in magnitude, cbrt at least 2^-8, arccos 2^-5); and for
 * the forms that are about x near 0 (arcsin, tanh, log1p, ...), |x| >=
 * 2^-13 as well, so that no result is near 2^-14. */
#define TITER_HALF_RANGE_IS_RANGE(FORM16)                                          \
    TITER_FAST_INLINE __mmask16 FORM16##_half_ok(titer_v16f x) { return FORM16##_ok(x); }
#define TITER_HALF_RANGE_ABOVE_TINY(FORM16)                                        \
    TITER_FAST_INLINE __mmask16 FORM16##_half_ok(titer_v16f x) {                    \
        return _mm512_mask_cmp_ps_mask(FORM16##_ok(x), _mm512_abs_ps((__m512)x),      \
                                       _mm512_set1_ps(0x1p-13f), _CMP_GE_OQ);        \
    }
#ifdef TITER_HAVE_VFAST_F16
TITER_HALF_RANGE_IS_RANGE(titer_vlogf16)
TITER_HALF_RANGE_IS_RANGE(titer_vlog2f16)
TITER_HALF_RANGE_IS_RANGE(titer_vlog10f16)
TITER_HALF_RANGE_IS_RANGE(titer_vcbrtf16)
TITER_HALF_RANGE_IS_RANGE(titer_vacosf16)
TITER_HALF_RANGE_ABOVE_TINY(titer_vlog1pf16)
TITER_HALF_RANGE_ABOVE_TINY(titer_vasinf16)
TITER_HALF_RANGE_ABOVE_TINY(titer_vatanf16)
TITER_HALF_RANGE_ABOVE_TINY(titer_vtanhf16)
TITER_HALF_RANGE_ABOVE_TINY(titer_vsinhf16)
#endif
#endif
extern int titer_half_registers_first;  /* NOTE [float16 where gathers are slow] */

/* NOTE [float16 tables]: a unary float16 op through float has 65536
 * inputs.  Once its contiguous loops have computed TITER_HALF_TABLE_AFTER
 * elements in this process, the op's loop fills a table of every input's
 * result and FP flags by running its own float32 path on all of them (the
 * same code, so the same bits and flags as computing them: a memo, not an
 * approximation), and contiguous calls from then on look results up:
 * ~0.2 ns an element on AVX-512 whatever the function, where NumPy's
 * native float16 kernels take 0.2-0.7 ns and titer's float32 ones more.
 * Filling takes 0.5-5 ms (the elements of a block that raised a flag are
 * redone one by one, to know whose flag it is), at most about what the op
 * has spent computing by then.  One table per op and instruction-set unit
 * (each unit's loops give their own bits), 256 KiB, filled once per process
 * by the first thread past the count (the others compute meanwhile; the
 * table is published with release/acquire).  A failed allocation leaves
 * the op computing. */
#define TITER_HALF_TABLE_AFTER ((int64_t)1 << 22)
#define TITER_HALF_TABLE_FLAGS (FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW)
enum { TITER_TABLE_EMPTY, TITER_TABLE_FILLING, TITER_TABLE_READY, TITER_TABLE_FAILED };
typedef struct {
    uint32_t *entries;      /* result bits | FP flags << 16, by input bits */
    int64_t computed;       /* elements computed before the table */
    int state;
} titer_half_table;
extern int titer_half_tables_filled;    /* how many, every unit: _core.pyx */

/* results and flags of `count` inputs from `first` on, through float_loop */
static void titer_half_table_fill_run(uint32_t *entries, titer_loop1d float_loop,
                                      uint32_t first, int count) {
    titer_half in[64], out[64];
    char *data[2] = {(char *)out, (char *)in};
    const int64_t strides[2] = {sizeof(titer_half), sizeof(titer_half)};
    for (int j = 0; j < count; j++) in[j] = (titer_half)(first + (uint32_t)j);
    titer_take_fp_flags(TITER_HALF_TABLE_FLAGS);
    titer_half_through_float(float_loop, 1, 1, data, strides, count);
    int raised = titer_take_fp_flags(TITER_HALF_TABLE_FLAGS);
    if (raised && count > 1) {          /* whose flag: each on its own */
        for (int j = 0; j < count; j++)
            titer_half_table_fill_run(entries, float_loop, first + (uint32_t)j, 1);
        return;
    }
    for (int j = 0; j < count; j++)
        entries[first + (uint32_t)j] = out[j] | (uint32_t)raised << 16;
}

static const uint32_t *titer_half_table_get(titer_half_table *table, titer_loop1d float_loop,
                                            int64_t n) {
    int state = __atomic_load_n(&table->state, __ATOMIC_ACQUIRE);
    if (state == TITER_TABLE_READY) return table->entries;
    int empty = TITER_TABLE_EMPTY;
    if (state != TITER_TABLE_EMPTY
            || __atomic_add_fetch(&table->computed, n, __ATOMIC_RELAXED) < TITER_HALF_TABLE_AFTER
            || !__atomic_compare_exchange_n(&table->state, &empty, TITER_TABLE_FILLING, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return NULL;
    uint32_t *entries = (uint32_t *)malloc(65536 * sizeof(uint32_t));
    if (entries == NULL) {
        __atomic_store_n(&table->state, TITER_TABLE_FAILED, __ATOMIC_RELEASE);
        return NULL;
    }
    fexcept_t caller_flags;             /* the call's own flags so far */
    fegetexceptflag(&caller_flags, FE_ALL_EXCEPT);
    for (uint32_t first = 0; first < 65536; first += 64)
        titer_half_table_fill_run(entries, float_loop, first, 64);
    fesetexceptflag(&caller_flags, FE_ALL_EXCEPT);
    table->entries = entries;
    __atomic_store_n(&table->state, TITER_TABLE_READY, __ATOMIC_RELEASE);
    __atomic_fetch_add(&titer_half_tables_filled, 1, __ATOMIC_RELAXED);
    return entries;
}

/* The op's results by lookup, for a contiguous output and input; returns
 * 0, doing nothing, where the table is not (yet) there */
static inline int titer_half_through_table(titer_half_table *table, titer_loop1d float_loop,
                                           char **data, const int64_t *strides, int64_t n) {
    if (strides[0] != (int64_t)sizeof(titer_half) || strides[1] != (int64_t)sizeof(titer_half))
        return 0;
    const uint32_t *entries = titer_half_table_get(table, float_loop, n);
    if (entries == NULL) return 0;
    titer_half *out = (titer_half *)data[0];
    const titer_half *in = (const titer_half *)data[1];
    uint32_t raised = 0;
    int64_t i = 0;
#if defined(__AVX512F__)
    /* 16 lookups a gather (GCC 12 does not vectorize the loop below with
     * gathers): 0.2 against 0.4 ns an element */
    __m512i raised16 = _mm512_setzero_si512();
    for (; i + 16 <= n; i += 16) {
        __m512i index = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(in + i)));
        __m512i entry = _mm512_i32gather_epi32(index, (const void *)entries, 4);
        raised16 = _mm512_or_si512(raised16, entry);
        _mm256_storeu_si256((__m256i *)(out + i), _mm512_cvtepi32_epi16(entry));
    }
    raised = (uint32_t)_mm512_reduce_or_epi32(raised16);
#endif
    for (; i < n; i++) {
        uint32_t entry = entries[in[i]];
        out[i] = (titer_half)entry;
        raised |= entry;
    }
    if (raised >> 16) titer_raise_fp((int)(raised >> 16));
    return 1;
}

/* NOTE [undefined conversions]: a float that is NaN, infinite or out of
 * an unsigned integer type's range converts to whatever the instructions
 * give (C leaves it undefined; NumPy warns).  NumPy's cast loops are its
 * compiler's SSE/AVX2 code: cvttss2si through int64 in the strided loop,
 * a vectorized signed conversion of x or x - 2^31 in the contiguous one.
 * titer's loops are the same C, so its baseline and avx2 builds give the
 * same answers; built for AVX-512, the compiler converts with vcvttps2udq /
 * vcvttss2usi instead (all ones for those).  So the avx512 unit builds the
 * float-to-unsigned casts without AVX-512 (float16's convert through int64,
 * as NumPy's float16 loop does, at every level: _codegen.cast_expr). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#define TITER_NO_AVX512_CONVERT __attribute__((target("no-avx512f")))
#else
#define TITER_NO_AVX512_CONVERT
#endif

/* A cast: contiguous path plus strided walk; CONVERT is one expression.
 * ALIGNED: the contiguous path starts at the output's 64-byte boundary
 * (_codegen._cast_aligned says which casts may).  The other contiguous
 * path is unrolled by four: where the target has no vector conversion
 * (float -> int64 below AVX-512) its one-element loop ran 0.75-0.8 ns an
 * element against NumPy's same instructions at 0.5 (the loop's placement
 * in the binary decided; four elements a turn, 0.48); vectorized casts
 * are unchanged by it. */
#define TITER_CAST_LOOP(TS, TD, CONVERT, ALIGNED)                            \
    if (src_stride == (int64_t)sizeof(TS) && dst_stride == (int64_t)sizeof(TD)) { \
        const TS *ps = (const TS *)src; TD *pd = (TD *)dst;                 \
        if (ALIGNED)                                                        \
            TITER_ALIGNED_RUN(, pd, { TS v = ps[i]; pd[i] = CONVERT; });    \
        else                                                                \
            TITER_UNROLL4                                                   \
            for (int64_t i = 0; i < n; i++) { TS v = ps[i]; pd[i] = CONVERT; } \
    } else if (src_stride == 0 && dst_stride == (int64_t)sizeof(TD) && n > 0) { \
        /* NOTE [broadcast fills] */                                        \
        TD *pd = (TD *)dst;                                                 \
        TS v = *(const TS *)src;                                            \
        const TD value_ = CONVERT;                                          \
        TITER_ALIGNED_RUN(, pd, pd[i] = value_);                            \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++) {                                   \
            TS v = *(const TS *)(src + i * src_stride);                     \
            *(TD *)(dst + i * dst_stride) = CONVERT;                        \
        }                                                                   \
    }

/* Moves elements of `itemsize` bytes between any addresses (unaligned
 * sources, byte-swapped sources when `swap_unit` > 1: each `swap_unit`-byte
 * word is reversed, so complex numbers swap their two halves separately). */
static inline void titer_copy_bytes(const char *src, int64_t src_stride,
                                    char *dst, int64_t dst_stride, int64_t n,
                                    int itemsize, int swap_unit) {
    for (int64_t i = 0; i < n; i++) {
        const char *s = src + i * src_stride;
        char *d = dst + i * dst_stride;
        if (swap_unit <= 1) {
            memcpy(d, s, (size_t)itemsize);
        } else {
            for (int w = 0; w < itemsize; w += swap_unit)
                for (int k = 0; k < swap_unit; k++)
                    d[w + k] = s[w + swap_unit - 1 - k];
        }
    }
}

#endif

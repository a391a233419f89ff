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

typedef void (*titer_loop1d)(char **data, const int64_t *strides, int64_t n);
typedef void (*titer_cast_fn)(const char *src, int64_t src_stride,
                              char *dst, int64_t dst_stride, int64_t n);

#if defined(__GNUC__) && !defined(__clang__)
#define TITER_IVDEP _Pragma("GCC ivdep")
#else
#define TITER_IVDEP
#endif

#define TITER_UNARY_LOOP(TI, TO, KERNEL)                                     \
    char *o = data[0], *x = data[1];                                        \
    const int64_t so = strides[0], sx = strides[1];                        \
    if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TI)) {           \
        TO *po = (TO *)o; const TI *px = (const TI *)x;                     \
        TITER_IVDEP for (int64_t i = 0; i < n; i++) po[i] = KERNEL(px[i]);  \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO *)(o + i * so) = KERNEL(*(const TI *)(x + i * sx));        \
    }

#define TITER_BINARY_LOOP(TA, TB, TO, KERNEL)                                \
    char *o = data[0], *x = data[1], *y = data[2];                          \
    const int64_t so = strides[0], sx = strides[1], sy = strides[2];       \
    if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)              \
            && sy == (int64_t)sizeof(TB)) {                                 \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB *py = (const TB *)y;                                       \
        TITER_IVDEP for (int64_t i = 0; i < n; i++)                         \
            po[i] = KERNEL(px[i], py[i]);                                   \
    } else if (so == (int64_t)sizeof(TO) && sx == (int64_t)sizeof(TA)       \
            && sy == 0) {                                                   \
        TO *po = (TO *)o; const TA *px = (const TA *)x;                     \
        const TB vy = *(const TB *)y;                                       \
        TITER_IVDEP for (int64_t i = 0; i < n; i++)                         \
            po[i] = KERNEL(px[i], vy);                                      \
    } else if (so == (int64_t)sizeof(TO) && sx == 0                         \
            && sy == (int64_t)sizeof(TB)) {                                 \
        TO *po = (TO *)o; const TA vx = *(const TA *)x;                     \
        const TB *py = (const TB *)y;                                       \
        TITER_IVDEP for (int64_t i = 0; i < n; i++)                         \
            po[i] = KERNEL(vx, py[i]);                                      \
    } else {                                                                \
        for (int64_t i = 0; i < n; i++)                                     \
            *(TO *)(o + i * so) = KERNEL(*(const TA *)(x + i * sx),         \
                                         *(const TB *)(y + i * sy));        \
    }

/* A cast: contiguous path plus strided walk; CONVERT is one expression. */
#define TITER_CAST_LOOP(TS, TD, CONVERT)                                     \
    if (src_stride == (int64_t)sizeof(TS) && dst_stride == (int64_t)sizeof(TD)) { \
        const TS *ps = (const TS *)src; TD *pd = (TD *)dst;                 \
        for (int64_t i = 0; i < n; i++) { TS v = ps[i]; pd[i] = CONVERT; }  \
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

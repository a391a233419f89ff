/* Tile transposes for cache-blocked iteration (titer/_tiled.pxi).
 *
 * titer_transpose(dst, dst_row_bytes, src, src_row_bytes, rows, cols, itemsize)
 * writes dst[c][r] = src[r][c] for a rows x cols block of `itemsize`-byte
 * elements.  Elements are moved as bits, so one routine per width serves
 * every dtype of that width.  4- and 8-byte widths use SSE2 register
 * transposes (x86-64 baseline); everything else moves whole elements. */
#ifndef TITER_TILE_H
#define TITER_TILE_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline void titer_transpose_scalar(char *dst, int64_t ds, const char *src, int64_t ss,
                                          int64_t rows, int64_t cols, int itemsize) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            memcpy(dst + c * ds + r * itemsize, src + r * ss + c * itemsize, (size_t)itemsize);
}

#if defined(__SSE2__)
static inline void titer_transpose4(char *dst, int64_t ds, const char *src, int64_t ss,
                                    int64_t rows, int64_t cols) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        int64_t c = 0;
        for (; c + 4 <= cols; c += 4) {
            __m128 r0 = _mm_loadu_ps((const float *)(src + (r + 0) * ss + c * 4));
            __m128 r1 = _mm_loadu_ps((const float *)(src + (r + 1) * ss + c * 4));
            __m128 r2 = _mm_loadu_ps((const float *)(src + (r + 2) * ss + c * 4));
            __m128 r3 = _mm_loadu_ps((const float *)(src + (r + 3) * ss + c * 4));
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps((float *)(dst + (c + 0) * ds + r * 4), r0);
            _mm_storeu_ps((float *)(dst + (c + 1) * ds + r * 4), r1);
            _mm_storeu_ps((float *)(dst + (c + 2) * ds + r * 4), r2);
            _mm_storeu_ps((float *)(dst + (c + 3) * ds + r * 4), r3);
        }
        if (c < cols)
            titer_transpose_scalar(dst + c * ds + r * 4, ds, src + r * ss + c * 4, ss,
                                   4, cols - c, 4);
    }
    if (r < rows)
        titer_transpose_scalar(dst + r * 4, ds, src + r * ss, ss, rows - r, cols, 4);
}

static inline void titer_transpose8(char *dst, int64_t ds, const char *src, int64_t ss,
                                    int64_t rows, int64_t cols) {
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2) {
        int64_t c = 0;
        for (; c + 2 <= cols; c += 2) {
            __m128d r0 = _mm_loadu_pd((const double *)(src + r * ss + c * 8));
            __m128d r1 = _mm_loadu_pd((const double *)(src + (r + 1) * ss + c * 8));
            _mm_storeu_pd((double *)(dst + c * ds + r * 8), _mm_unpacklo_pd(r0, r1));
            _mm_storeu_pd((double *)(dst + (c + 1) * ds + r * 8), _mm_unpackhi_pd(r0, r1));
        }
        if (c < cols)
            titer_transpose_scalar(dst + c * ds + r * 8, ds, src + r * ss + c * 8, ss,
                                   2, cols - c, 8);
    }
    if (r < rows)
        titer_transpose_scalar(dst + r * 8, ds, src + r * ss, ss, rows - r, cols, 8);
}
#endif

static inline void titer_transpose(char *dst, int64_t ds, const char *src, int64_t ss,
                                   int64_t rows, int64_t cols, int itemsize) {
#if defined(__SSE2__)
    if (itemsize == 4) { titer_transpose4(dst, ds, src, ss, rows, cols); return; }
    if (itemsize == 8) { titer_transpose8(dst, ds, src, ss, rows, cols); return; }
#endif
    titer_transpose_scalar(dst, ds, src, ss, rows, cols, itemsize);
}

#endif

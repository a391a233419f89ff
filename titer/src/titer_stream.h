/* Non-temporal (streaming) stores for outputs larger than the last-level
 * cache: the loop writes a block into an L1-resident buffer and the block
 * goes to memory with movntdq, skipping the read-for-ownership of the
 * destination lines (a third of the traffic of a = b + c).  Needs a store
 * fence before other threads read the output. */
#ifndef TITER_STREAM_H
#define TITER_STREAM_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline void titer_stream_copy(char *dst, const char *src, int64_t nbytes) {
#if defined(__SSE2__)
    int64_t head = (int64_t)((16 - ((uintptr_t)dst & 15)) & 15);
    if (head > nbytes) head = nbytes;
    memcpy(dst, src, (size_t)head);
    dst += head; src += head; nbytes -= head;
    int64_t body = nbytes & ~(int64_t)63;
    for (int64_t i = 0; i < body; i += 64) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), v0);
        _mm_stream_si128((__m128i *)(dst + i + 16), v1);
        _mm_stream_si128((__m128i *)(dst + i + 32), v2);
        _mm_stream_si128((__m128i *)(dst + i + 48), v3);
    }
    memcpy(dst + body, src + body, (size_t)(nbytes - body));
#else
    memcpy(dst, src, (size_t)nbytes);
#endif
}

/* Software prefetch of [p, p + nbytes) into L2 (prefetcht1), a line at a
 * time: for titer.evaluate's blocks, which leave memory idle while they
 * compute (NOTE: [evaluate prefetch] in titer/_evaluate.pxi).  On x86 an
 * asm statement: GCC's __builtin_prefetch has no side effects to its
 * analysis, so a function that only prefetches is found pure and its call,
 * whose result nobody reads, deleted (GCC 12 -O1 and up dropped every
 * prefetch of evaluate's pass that way). */
static inline void titer_prefetch_l2(const char *p, int64_t nbytes) {
    for (int64_t i = 0; i < nbytes; i += 64) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __asm__ volatile("prefetcht1 %0" : : "m"(p[i]));
#else
        __builtin_prefetch(p + i, 0, 2);
#endif
    }
}

static inline void titer_stream_fence(void) {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#endif

/* Every float32 of a range through one of titer_scalar.h's float32 fast
 * kernels, against double libm rounded to float32: the largest ULP distance,
 * where, and how many are off by 0, 1, 2, 3+ -- the "checked exhaustively"
 * of the kernels' comments.  Built like the loops (setup.py's flags), for
 * LEVEL 512 (the avx512 unit's target), 2 (avx2) or 0 (baseline); the
 * kernel runs in a loop GCC vectorizes, with FMA at the instruction-set
 * levels as titer's loops have it (TITER_FAST_FMA):
 *
 *   gcc -O3 -fno-math-errno -ffp-contract=off -DLEVEL=512 -DKERNEL=titer_fast_tanhf \
 *       -DREF=tanh -Ititer/src tools/fast_f32_ulps.c -o /tmp/ulps -lm
 *   /tmp/ulps 39800000 422c0000        # bit patterns [lo, hi), hex: 2^-12 <= x < 43
 *
 * (tanh, sinh and expm1 take the negative range too: a1800000 c2b00000 is
 * -2^-60 down to -88.)  A few seconds per 2^28 patterns. */
#if LEVEL == 512
#include "titer_target_avx512.h"
#elif LEVEL == 2
#include "titer_target_avx2.h"
#endif
#include "titer_scalar.h"
#include <stdio.h>
#include <stdlib.h>

#ifdef TITER_ISA
#define FMA_TARGET __attribute__((target("fma")))
#else
#define FMA_TARGET
#endif
#define BLOCK 4096

FMA_TARGET __attribute__((noinline)) static void run(float *out, const float *x) {
    for (int i = 0; i < BLOCK; i++) out[i] = KERNEL(x[i]);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s LO_BITS HI_BITS (hex)\n", argv[0]); return 2; }
    uint32_t lo = (uint32_t)strtoul(argv[1], 0, 16), hi = (uint32_t)strtoul(argv[2], 0, 16);
    static float x[BLOCK], out[BLOCK];
    long count[4] = {0}, worst = 0;
    uint32_t worst_at = lo;
    for (uint64_t u = lo; u < hi; u += BLOCK) {
        for (int i = 0; i < BLOCK; i++) x[i] = titer_bits2f((uint32_t)(u + i < hi ? u + i : lo));
        run(out, x);
        for (int i = 0; i < BLOCK && u + i < hi; i++) {
            float rounded = (float)REF((double)x[i]);
            long d = labs((long)(int32_t)titer_f2bits(out[i]) - (long)(int32_t)titer_f2bits(rounded));
            if (d > worst) { worst = d; worst_at = titer_f2bits(x[i]); }
            count[d > 3 ? 3 : d]++;
        }
    }
    printf("max %ld ULP at %a (0x%08x); off by 0: %ld, 1: %ld, 2: %ld, 3+: %ld\n", worst,
           titer_bits2f(worst_at), worst_at, count[0], count[1], count[2], count[3]);
    return worst > 1;
}

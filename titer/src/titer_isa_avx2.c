/* AVX2 (x86-64-v3 CPUs).  FMA is left out of the target on purpose: with it
 * GCC fuses complex-arithmetic patterns into vfmaddsub despite
 * -ffp-contract=off, and NumPy's results have unfused bits there; the
 * multiply-adds NumPy does fuse go through fmaf/fma (titer_muladd).
 * The target pragma must come before any include. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#pragma GCC target("avx2,bmi,bmi2,f16c,popcnt")
#define TITER_ISA avx2
#include "titer_isa_tables.h"
#endif

/* AVX2 (x86-64-v3 CPUs): the compiler target of the avx2 translation units
 * (titer_isa_avx2.c, titer_kits_avx2.c), included before anything else.
 * FMA is left out of the target on purpose: with it GCC fuses
 * complex-arithmetic patterns into vfmaddsub despite -ffp-contract=off, and
 * NumPy's results have unfused bits there; the multiply-adds NumPy does fuse
 * go through fmaf/fma (titer_muladd). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#pragma GCC target("avx2,bmi,bmi2,f16c,popcnt")
#define TITER_ISA avx2
#endif

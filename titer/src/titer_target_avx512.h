/* x86-64-v4: AVX-512 F/BW/DQ/VL (Skylake-X and later, Zen 4), the compiler
 * target of the avx512 translation units, included before anything else.
 * AVX-512F brings FMA, which GCC 12 fuses into some complex formulas even
 * with -ffp-contract=off: titer_scalar.h's NOTE [no fused complex lanes]. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi,bmi2,f16c,popcnt")
#define TITER_ISA avx512
/* beyond x86-64-v4 (Ice Lake and later, Zen 4): vector popcnt, for the
   bitwise_count loops' variants that run where titer_vpopcnt_enabled says
   the CPU has it (NumPy's AVX512_ICL loops use it; the v4 loops count bits
   by SWAR steps, 0.56x NumPy for uint32 there) */
#define TITER_VPOPCNT_TARGET __attribute__((target("avx512vpopcntdq,avx512bitalg")))
#endif

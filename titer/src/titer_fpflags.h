/* The FP status flags titer's loops read, take and raise: one place for
 * the element loops, the float16 tables and titer.evaluate's steps.
 *
 * On x86 the SSE status register (MXCSR) is what the loops' own
 * arithmetic sets, and its exception bits are the FE_* values: one
 * stmxcsr/ldmxcsr where fetestexcept/feclearexcept also read and rewrite
 * the x87 environment (~15 ns a call: a cost per block and step).  The
 * loops compute in SSE/AVX registers; an x87 flag (none of titer's loops
 * uses long double) is picked up by the full fetestexcept at the end of
 * each piece.  Elsewhere these are the C fenv calls. */
#ifndef TITER_FPFLAGS_H
#define TITER_FPFLAGS_H

#include <fenv.h>

#if defined(__SSE2__) && defined(__GNUC__)
#define TITER_MXCSR 1
#else
#define TITER_MXCSR 0
#endif

/* the exception flags raised so far (every FE_* bit; not cleared) */
static inline unsigned int titer_fp_flags(void) {
#if TITER_MXCSR
    return __builtin_ia32_stmxcsr() & (unsigned int)FE_ALL_EXCEPT;
#else
    return (unsigned int)fetestexcept(FE_ALL_EXCEPT);
#endif
}

/* the flags of `mask` raised since the last take, cleared */
static inline int titer_take_fp_flags(int mask) {
#if TITER_MXCSR
    unsigned int csr = __builtin_ia32_stmxcsr();
    unsigned int raised = csr & (unsigned int)mask;
    if (raised) __builtin_ia32_ldmxcsr(csr & ~raised);
    return (int)raised;
#else
    int raised = fetestexcept(mask);
    if (raised) feclearexcept(raised);
    return raised;
#endif
}

/* feclearexcept(mask) without its cost where nothing is set: glibc's stores
 * and reloads the whole x87 environment (fnstenv, fldenv: 90 ns a call on a
 * KVM guest, where fetestexcept took 3; every call of titer clears the
 * flags before its loops, so a tenth of a small call's time).  Both status
 * words are read first (stmxcsr, fnstsw: the FE_* bits are the same in
 * both) and only one holding a flag of `mask` is written; an x87 flag, rare
 * (a long double computation before the call), goes through feclearexcept,
 * which leaves the x87 flags outside `mask` as they were. */
static inline void titer_clear_fp_flags(int mask) {
#if TITER_MXCSR
    unsigned int csr = __builtin_ia32_stmxcsr();
    unsigned short x87_status;
    if (csr & (unsigned int)mask) __builtin_ia32_ldmxcsr(csr & ~(unsigned int)mask);
    __asm__ volatile("fnstsw %0" : "=am"(x87_status));
    if (x87_status & (unsigned int)mask & FE_ALL_EXCEPT) feclearexcept(mask);
#else
    feclearexcept(mask);
#endif
}

/* the exception flags become exactly `flags` (what titer_fp_flags read) */
static inline void titer_set_fp_flags(unsigned int flags) {
#if TITER_MXCSR
    __builtin_ia32_ldmxcsr((__builtin_ia32_stmxcsr() & ~(unsigned int)FE_ALL_EXCEPT)
                           | (flags & (unsigned int)FE_ALL_EXCEPT));
#else
    feclearexcept(FE_ALL_EXCEPT);
    feraiseexcept((int)flags);
#endif
}

/* NOTE [raising flags]: titer's scalar code raises FP flags in MXCSR on
 * x86, the status the loops' own arithmetic sets and an evaluate program
 * takes after each step.  glibc's feraiseexcept raises overflow,
 * underflow and inexact in the x87 status word instead, which only the
 * full fetestexcept at the end of a piece sees: an evaluate program then
 * blamed its last step for them. */
static inline void titer_raise_fp(int excepts) {
#if TITER_MXCSR
    __builtin_ia32_ldmxcsr(__builtin_ia32_stmxcsr() | ((unsigned int)excepts & FE_ALL_EXCEPT));
#else
    feraiseexcept(excepts);
#endif
}

/* An op that compares quietly (NOTE [quiet compares] in titer/_ops.py)
 * drops the invalid flag its own loop raised, keeping one raised before
 * it (`before`: titer_fp_flags() ahead of the loop). */
static inline void titer_drop_own_invalid(unsigned int before) {
    if (before & FE_INVALID) return;
#if TITER_MXCSR
    unsigned int now = __builtin_ia32_stmxcsr();
    if (now & FE_INVALID) __builtin_ia32_ldmxcsr(now & ~(unsigned int)FE_INVALID);
#else
    feclearexcept(FE_INVALID);
#endif
}

#endif

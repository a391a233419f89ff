/* float64 log by the power kernel's 16-piece table held in registers,
 * where AVX-512 is the target: eight lanes a vector (titer_vfast_log) and
 * a scalar twin doing the same operations (titer_vlog_twin) for a block's
 * last lanes, run by TITER_VEC_LOOP_D8 (_codegen._VECTOR_FORMS_D8).  The
 * other levels keep the vector math library's log, or titer_fast_log.
 *
 * As titer_vpow.h: x = 2^k z, z in [0.703125, 1.40625) with the piece that
 * holds 1 centered on it (invc = 1, log c = 0), z invc = zc + d exactly (an
 * FMA gives d), r = zc - 1 exact, |r| < 0.0313; log x = hi + lo with hi =
 * t1 + r rounded and its error kept (Fast2Sum: |t1| >= |r| wherever t1 is
 * not 0; t1 = k ln2_hi + head is exact), lo = (k ln2_lo + tail) + d (1 - r
 * + r^2) + r^2 (r P(r) - 1/2).  Rounded once at the end; no cancellation
 * near 1, where t1 = 0 and the result is r plus terms under r/60, nor
 * elsewhere, where |log x| > 0.0157 and |t1| is at least twice |r|.
 * Within 0.53 ULP of the correctly rounded log on 1e8 random positive
 * normals against long double (a C harness; tests/test_catalog.py holds
 * the dispatched loop to 1 ULP of the rounded result); +0 at 1, k ln 2
 * rounded once at 2^k.  One thread, 2^20 elements, Zen 4: 0.91 ms where
 * the vector math library's loop took 1.09 and NumPy's (SVML) 0.86; in
 * cache 0.76 ns an element, bound by the FMA pipes (16 of its 33
 * operations multiply).
 *
 * Range (titer_fast_log_ok, titer_vfast_log_ok): x a positive normal;
 * nothing here raises an FP flag but inexact.  Included by titer_scalar.h
 * after titer_fast_log. */
#ifndef TITER_VLOG_H
#define TITER_VLOG_H

#ifdef TITER_HAVE_VPOW          /* its tables, pickers and int64 conversion */
#define TITER_LOG16_KERNEL(V, VB, VI, FMA, C, TOBITS, FROMBITS, PICK, TO_DOUBLE, x, result) \
    TITER_LOG16_REDUCE(V, VB, VI, FMA, C, TOBITS, FROMBITS, PICK, TO_DOUBLE, x)          \
    V hi = t1 + r, lo_sum = (t1 - hi) + r;                                               \
    TITER_LOG16_POLY(V, FMA, C, r, r2, p)                                                \
    V lo = (lo1 + lo_sum) + (FMA(d, r2 - r, d) + r2 * FMA(r, p, C(-0.5)));               \
    V result = hi + lo;

TITER_FAST_INLINE double titer_vlog_twin(double x) {
    TITER_LOG16_KERNEL(double, uint64_t, int64_t, __builtin_fma, TITER_SCALAR_C, titer_d2bits,
                       titer_bits2d, TITER_POW_SCALAR_PICK, TITER_POW_SCALAR_DOUBLE, x, result)
    return result;
}
TITER_FAST_INLINE titer_v8d titer_vfast_log(titer_v8d x) {
    TITER_LOG16_KERNEL(titer_v8d, titer_v8u, titer_v8i, TITER_V8_FMA, TITER_V8_C,
                       TITER_V8_TOBITS, TITER_V8_FROMBITS, TITER_V8_PICK, TITER_V8_CVT_I64,
                       x, result)
    return result;
}
/* titer_fast_log_ok on eight lanes' bits: all ones for a positive normal */
#define titer_vfast_log_ok(b) \
    ((titer_v8u)((b) - 0x0010000000000000ull < 0x7ff0000000000000ull - 0x0010000000000000ull))
#define TITER_HAVE_VLOG 1
#endif
#endif

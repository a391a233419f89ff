/* float32 tanh in sixteen lanes where AVX-512 is the target, by
 * piecewise polynomials with their coefficients held in registers (each a
 * 32-entry table picked by vpermi2ps): no exp, no division, no branch
 * between a small and a large formula.  tanh |x| = a0 + t P(t), t = |x| -
 * c, P of degree 5, in the piece of |x|: a quarter octave of [2^-4, 16) by
 * |x|'s bits (>> 21), piece 0 also taking everything below (there c = a0 =
 * 0 and P is fitted to tanh(t) / t, so the result keeps its relative
 * precision down to 0); |x| from 16 on computes as 15.99 (1 either way).
 * Each other piece's center c has a tanh within about 2^-36 of a float,
 * which is a0, and t = |x| - c is exact (Sterbenz).  Fitted by Chebyshev
 * interpolation, relative error below 2^-28.4 in every piece with the
 * coefficients rounded to float (tools/tanhf_table.py).  The kernel is
 * written once for one float (titer_tanhf_twin, a block's remainder) and
 * sixteen (titer_vtanhf16), so a lane gets the same bits either way.
 * Within 1 ULP of the float64 tanh rounded to float32 on every float32 of
 * titer_fast_tanhf_ok's range (2^-12 <= |x| < 43), never above 1 in
 * magnitude, raising nothing (checked exhaustively in C with this header,
 * -ffp-contract=off).  0.24 against 0.40 ns an element in cache on one
 * thread (a C harness) for the split loop's exp-and-division form
 * (titer_fast_tanhf, which the other levels keep).
 * Included by titer_scalar.h after titer_vlog1pf.h. */
#ifndef TITER_VTANHF_H
#define TITER_VTANHF_H
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)

static const float titer_tanhf_c[32] = {
    0x0p+0f, 0x1.4d7a1cp-4f, 0x1.a160ep-4f, 0x1.d591c4p-4f,
    0x1.1bff5ep-3f, 0x1.63587ep-3f, 0x1.b10bap-3f, 0x1.e350eep-3f,
    0x1.32c9ap-2f, 0x1.5077e4p-2f, 0x1.a14ac8p-2f, 0x1.ee8b36p-2f,
    0x1.17a6p-1f, 0x1.5ab046p-1f, 0x1.b1db3cp-1f, 0x1.ea7a72p-1f,
    0x1.161dd2p+0f, 0x1.569074p+0f, 0x1.8fb162p+0f, 0x1.e6c1e6p+0f,
    0x1.238fccp+1f, 0x1.71b2fcp+1f, 0x1.b1c146p+1f, 0x1.d04db4p+1f,
    0x1.1d644ap+2f, 0x1.673c46p+2f, 0x1.9de532p+2f, 0x1.d1cb7ep+2f,
    0x1.154246p+3f, 0x1.733334p+3f, 0x1.b33334p+3f, 0x1.f33334p+3f};
static const float titer_tanhf_a0[32] = {
    0x0p+0f, 0x1.4cbdfcp-4f, 0x1.9ff096p-4f, 0x1.d385e6p-4f,
    0x1.1a30e8p-3f, 0x1.5fd27ap-3f, 0x1.aab476p-3f, 0x1.da8a04p-3f,
    0x1.29ed3ap-2f, 0x1.44dc3cp-2f, 0x1.8ba16cp-2f, 0x1.cb5f36p-2f,
    0x1.fd9a1p-2f, 0x1.2de654p-1f, 0x1.611fd6p-1f, 0x1.7c9abap-1f,
    0x1.975356p-1f, 0x1.be113ap-1f, 0x1.d4cd92p-1f, 0x1.e9a79ap-1f,
    0x1.f55a2p-1f, 0x1.fcd606p-1f, 0x1.fed5b4p-1f, 0x1.ff46d8p-1f,
    0x1.ffdce8p-1f, 0x1.fffc82p-1f, 0x1.ffff5ep-1f, 0x1.ffffep-1f,
    0x1.fffffep-1f, 0x1p+0f, 0x1p+0f, 0x1p+0f};
static const float titer_tanhf_a1[32] = {
    0x1p+0f, 0x1.fc9f06p-1f, 0x1.fab864p-1f, 0x1.f9545cp-1f,
    0x1.f64782p-1f, 0x1.f0e3eap-1f, 0x1.e9c618p-1f, 0x1.e482e4p-1f,
    0x1.d4a8f6p-1f, 0x1.cc783ap-1f, 0x1.b3928ep-1f, 0x1.98f62ep-1f,
    0x1.81324p-1f, 0x1.4dfc48p-1f, 0x1.0c7398p-1f, 0x1.ca244ap-2f,
    0x1.77e5eap-2f, 0x1.ed7ff2p-3f, 0x1.4aff7ap-3f, 0x1.5db92p-4f,
    0x1.5130f8p-5f, 0x1.93bca4p-7f, 0x1.29f516p-8f, 0x1.720d04p-9f,
    0x1.18b7ap-11f, 0x1.befe58p-15f, 0x1.44016p-17f, 0x1.fffdbap-20f,
    0x1.ffabb4p-24f, 0x1.7123c8p-32f, 0x1.b0b4bap-38f, 0x1.fb37e2p-44f};
static const float titer_tanhf_a2[32] = {
    -0x1.764008p-28f, -0x1.4a8bd8p-4f, -0x1.9ba69p-4f, -0x1.cd6e9ap-4f,
    -0x1.14d55cp-3f, -0x1.557082p-3f, -0x1.982e72p-3f, -0x1.c10fcap-3f,
    -0x1.10b528p-2f, -0x1.242a26p-2f, -0x1.5092e4p-2f, -0x1.6eeccp-2f,
    -0x1.7f645cp-2f, -0x1.89de1ep-2f, -0x1.724cc6p-2f, -0x1.549162p-2f,
    -0x1.2b0c74p-2f, -0x1.adf316p-3f, -0x1.2f1268p-3f, -0x1.4e75c6p-4f,
    -0x1.4a2db6p-5f, -0x1.913d96p-7f, -0x1.294716p-8f, -0x1.71876p-9f,
    -0x1.189dfap-11f, -0x1.bf123ep-15f, -0x1.43fa74p-17f, -0x1.ffff5ep-20f,
    -0x1.feaeb6p-24f, -0x1.68e2a4p-32f, -0x1.a707b2p-38f, -0x1.efe05p-44f};
static const float titer_tanhf_a3[32] = {
    -0x1.55551ep-2f, -0x1.4c5e24p-2f, -0x1.475cecp-2f, -0x1.43b82p-2f,
    -0x1.3bc7d8p-2f, -0x1.2deebcp-2f, -0x1.1bfe4p-2f, -0x1.0efb58p-2f,
    -0x1.d231d8p-3f, -0x1.ac9548p-3f, -0x1.40affap-3f, -0x1.b0258p-4f,
    -0x1.07ff5p-4f, 0x1.32c12p-7f, 0x1.31b538p-4f, 0x1.91d04cp-4f,
    0x1.c27162p-4f, 0x1.a429f4p-4f, 0x1.4e55b8p-4f, 0x1.9693f6p-5f,
    0x1.a5d57p-6f, 0x1.083318p-7f, 0x1.8a9a8ap-9f, 0x1.eb5926p-10f,
    0x1.75a7a4p-12f, 0x1.29f64ep-15f, 0x1.af95ccp-18f, 0x1.55accap-20f,
    0x1.579744p-24f, 0x1.01ba6ap-32f, 0x1.2e1bf4p-38f, 0x1.6221f8p-44f};
static const float titer_tanhf_a4[32] = {
    -0x1.752e98p-15f, 0x1.b45d86p-5f, 0x1.0e3056p-4f, 0x1.2d9c1ep-4f,
    0x1.6699a2p-4f, 0x1.b31982p-4f, 0x1.fccdacp-4f, 0x1.1343c4p-3f,
    0x1.3d714ap-3f, 0x1.4abe2cp-3f, 0x1.5c4874p-3f, 0x1.558ca2p-3f,
    0x1.41426cp-3f, 0x1.f68348p-4f, 0x1.1ade5ep-4f, 0x1.36cf68p-5f,
    0x1.4343acp-7f, -0x1.3d7234p-6f, -0x1.a057b8p-6f, -0x1.4bc6f6p-6f,
    -0x1.81effep-7f, -0x1.01b99ep-8f, -0x1.874242p-10f, -0x1.e8957ep-11f,
    -0x1.7694e4p-13f, -0x1.272688p-16f, -0x1.b0e7e4p-19f, -0x1.56705ap-21f,
    -0x1.63662ep-25f, -0x1.406854p-33f, -0x1.7794fep-39f, -0x1.b841eep-45f};
static const float titer_tanhf_a5[32] = {
    0x1.1351e8p-3f, 0x1.01f588p-3f, 0x1.f31c5ap-4f, 0x1.e70a84p-4f,
    0x1.ccde1p-4f, 0x1.a01e2ap-4f, 0x1.67d39cp-4f, 0x1.3fdaa8p-4f,
    0x1.a313f6p-5f, 0x1.3b4b2ep-5f, 0x1.63ab58p-8f, -0x1.67d578p-6f,
    -0x1.464b36p-5f, -0x1.f2733p-5f, -0x1.f4fb76p-5f, -0x1.a1963p-5f,
    -0x1.29893cp-5f, -0x1.873fdcp-7f, -0x1.743cf8p-13f, 0x1.3440fcp-8f,
    0x1.f97d22p-9f, 0x1.7f54b4p-10f, 0x1.29cad4p-11f, 0x1.7c9072p-12f,
    0x1.357f4ap-14f, 0x1.e376a2p-18f, 0x1.673f9cp-20f, 0x1.06d46cp-22f,
    0x1.0e8c46p-26f, -0x1.d6d7dcp-36f, -0x1.13f622p-41f, -0x1.437b74p-47f};
static const float titer_tanhf_a6[32] = {
    -0x1.9b955ep-7f, -0x1.008bcp-5f, -0x1.2ae2e6p-5f, -0x1.5327eep-5f,
    -0x1.8b0ecp-5f, -0x1.cc38eep-5f, -0x1.00a788p-4f, -0x1.14ae18p-4f,
    -0x1.25e5acp-4f, -0x1.260fap-4f, -0x1.0f2c56p-4f, -0x1.cdca02p-5f,
    -0x1.313da8p-5f, -0x1.7c5c18p-7f, 0x1.da08cap-8f, 0x1.162ebp-6f,
    0x1.2ed8eap-6f, 0x1.67766cp-7f, 0x1.0da2f4p-8f, 0x1.5399acp-11f,
    -0x1.79ac4p-11f, -0x1.1df85cp-11f, -0x1.fe41ap-13f, -0x1.90ae26p-14f,
    -0x1.787632p-16f, -0x1.9aa9fep-19f, -0x1.bd11eep-22f, -0x1.e1ef84p-25f,
    -0x1.a54f6ap-29f, -0x1.eddc64p-35f, -0x1.2173bcp-40f, -0x1.534bc8p-46f};

#define TITER_TANHF_FIRST (0x3d800000 >> 21)         /* 2^-4, in quarter octaves */
#define TITER_TANHF_TOP 0x417fd70a                    /* 15.99f */
/* for a type V (VI its int32 lanes): FMA, TOBITS / FROMBITS, MIN / MAX of
 * int32 lanes, PICK(i, table) the table's entries of the pieces i */
#define TITER_TANHF_KERNEL(V, VI, FMA, TOBITS, FROMBITS, MIN, MAX, PICK, x, result)     \
    VI bits_ = TOBITS(x), mag_ = MIN(bits_ & 0x7fffffff, TITER_TANHF_TOP);          \
    VI piece_ = MAX((mag_ >> 21) - TITER_TANHF_FIRST, 0);                           \
    V t_ = FROMBITS(mag_) - PICK(piece_, titer_tanhf_c);                            \
    V p_ = FMA(PICK(piece_, titer_tanhf_a6), t_, PICK(piece_, titer_tanhf_a5));     \
    p_ = FMA(p_, t_, PICK(piece_, titer_tanhf_a4));                                 \
    p_ = FMA(p_, t_, PICK(piece_, titer_tanhf_a3));                                 \
    p_ = FMA(p_, t_, PICK(piece_, titer_tanhf_a2));                                 \
    p_ = FMA(p_, t_, PICK(piece_, titer_tanhf_a1));                                 \
    V result = FROMBITS(TOBITS(FMA(p_, t_, PICK(piece_, titer_tanhf_a0)))           \
                        | (bits_ & ~0x7fffffff));

#define TITER_TANHF_F1_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TITER_TANHF_F1_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TITER_TANHF_F1_PICK(i, table) ((table)[(i) & 31])
TITER_FAST_INLINE float titer_tanhf_twin(float x) {
    TITER_TANHF_KERNEL(float, int32_t, __builtin_fmaf, TITER_F1_TOBITS, TITER_F1_FROMBITS,
                       TITER_TANHF_F1_MIN, TITER_TANHF_F1_MAX, TITER_TANHF_F1_PICK, x, result)
    return result;
}
#define TITER_TANHF_V16_MIN(a, b) ((titer_v16i)_mm512_min_epi32((__m512i)(a), _mm512_set1_epi32(b)))
#define TITER_TANHF_V16_MAX(a, b) ((titer_v16i)_mm512_max_epi32((__m512i)(a), _mm512_set1_epi32(b)))
#define TITER_TANHF_V16_PICK(i, table) ((titer_v16f)_mm512_permutex2var_ps(                \
    _mm512_loadu_ps(table), (__m512i)(i), _mm512_loadu_ps((table) + 16)))
TITER_FAST_INLINE titer_v16f titer_vtanhf16(titer_v16f x) {
    TITER_TANHF_KERNEL(titer_v16f, titer_v16i, TITER_V16_FMA, TITER_V16_TOBITS, TITER_V16_FROMBITS,
                       TITER_TANHF_V16_MIN, TITER_TANHF_V16_MAX, TITER_TANHF_V16_PICK, x, result)
    return result;
}
/* titer_fast_tanhf_ok's range; one form, so the lanes out of it keep their
 * inputs for the kernel (TITER_VEC_LOOP_F16 in titer_vtanf.h) */
TITER_FAST_INLINE __mmask16 titer_vtanhf16_ok(titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x39800000u, 0x422c0000u);
}
#define titer_vtanhf16_rest TITER_VEC_REST_INPUT
#define titer_vtanhf16_safe 0.5f

#endif
#endif

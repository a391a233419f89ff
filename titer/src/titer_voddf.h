/* float32 tanh and arctan in sixteen lanes where AVX-512 is the target,
 * by piecewise polynomials with their coefficients held in registers (each
 * a 32-entry table picked by vpermi2ps).  f |x| = a0 + t P(t), t = |x| - c,
 * P of degree 5, in the piece of |x|: a quarter octave of [2^-4, 16) by
 * |x|'s bits (>> 21), piece 0 also taking everything below (there c = a0 =
 * 0 and P is fitted to f(t) / t, so the result keeps its relative
 * precision down to 0).  Each other piece's center c has an f(c) within
 * about 2^-36 of a float, which is a0, and t = |x| - c is exact
 * (Sterbenz).  Fitted by Chebyshev interpolation, relative error below
 * 2^-28.4 in every piece with the coefficients rounded to float
 * (tools/oddf_table.py).  From |x| = 16 on, tanh computes as the float
 * below 16 (1 either way) and arctan is pi/2 - arctan(1/|x|) (pi/2 in two
 * floats, 1/|x| of |x| held in [16, 2^40] so that nothing overflows or
 * underflows in any lane, four terms of the series), in vectors that have
 * such a lane.  Each kernel is written once for one
 * float (the twin, a block's remainder) and sixteen, so a lane gets the
 * same bits either way.  Within 1 ULP of the float64 function rounded to
 * float32 on every float32 of titer_fast_<f>f_ok's range (tanh 2^-12 <=
 * |x| < 43, never above 1 in magnitude; arctan from 2^-60 on), raising
 * nothing (checked exhaustively in C with this header, -ffp-contract=off).
 * In cache on one thread (C harness): tanh 0.24 against 0.40 ns an element
 * for the split loop's exp-and-division form (titer_fast_tanhf, which the
 * other levels keep); arctan 0.33 against 0.585 for the vector math
 * library's _ZGVeN16v_atanf (which the other levels keep).  Included by titer_scalar.h after titer_vlog1pf.h. */
#ifndef TITER_VODDF_H
#define TITER_VODDF_H
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

static const float titer_atanf_c[32] = {
    0x0p+0f, 0x1.6de632p-4f, 0x1.9a43fep-4f, 0x1.cfcfdp-4f,
    0x1.1f0552p-3f, 0x1.6b0e46p-3f, 0x1.b12536p-3f, 0x1.d2511ep-3f,
    0x1.2a13b4p-2f, 0x1.69b176p-2f, 0x1.8f5bccp-2f, 0x1.cddd1p-2f,
    0x1.3122bep-1f, 0x1.6c6418p-1f, 0x1.93b50cp-1f, 0x1.e3fd96p-1f,
    0x1.130b9cp+0f, 0x1.53453ap+0f, 0x1.a5fabcp+0f, 0x1.ddf9f6p+0f,
    0x1.24aa88p+1f, 0x1.50020ap+1f, 0x1.ae7e04p+1f, 0x1.dd202cp+1f,
    0x1.0d735p+2f, 0x1.619c26p+2f, 0x1.972944p+2f, 0x1.e7267ap+2f,
    0x1.2224a6p+3f, 0x1.4e528p+3f, 0x1.aeea6ap+3f, 0x1.da276p+3f};
static const float titer_atanf_a0[32] = {
    0x0p+0f, 0x1.6cee38p-4f, 0x1.98e6dcp-4f, 0x1.cdd832p-4f,
    0x1.1d29dap-3f, 0x1.6752a2p-3f, 0x1.aadae2p-3f, 0x1.ca7ffep-3f,
    0x1.220fc6p-2f, 0x1.5baf96p-2f, 0x1.7cc786p-2f, 0x1.b1e2f2p-2f,
    0x1.132c9ap-1f, 0x1.3cb0cp-1f, 0x1.55da9ep-1f, 0x1.83baa6p-1f,
    0x1.a47a72p-1f, 0x1.d948bap-1f, 0x1.06869p+0f, 0x1.143ec4p+0f,
    0x1.2893c4p+0f, 0x1.34f28p+0f, 0x1.482334p+0f, 0x1.4f069ep+0f,
    0x1.566cc4p+0f, 0x1.64495ap+0f, 0x1.6a35fap+0f, 0x1.70aedcp+0f,
    0x1.7600dp+0f, 0x1.79b1eap+0f, 0x1.7f25e4p+0f, 0x1.80df78p+0f};
static const float titer_atanf_a1[32] = {
    0x1p+0f, 0x1.fbf254p-1f, 0x1.faea14p-1f, 0x1.f984a4p-1f,
    0x1.f6233p-1f, 0x1.f06674p-1f, 0x1.ea141p-1f, 0x1.e6c394p-1f,
    0x1.d80154p-1f, 0x1.c73524p-1f, 0x1.bc6802p-1f, 0x1.a972d2p-1f,
    0x1.79cf64p-1f, 0x1.53db3ep-1f, 0x1.3bb6f4p-1f, 0x1.0e631ep-1f,
    0x1.db5294p-2f, 0x1.738158p-2f, 0x1.137c26p-2f, 0x1.c886ep-3f,
    0x1.48d82p-3f, 0x1.0389acp-3f, 0x1.4cb428p-4f, 0x1.12ffcep-4f,
    0x1.b57a9ap-5f, 0x1.03d684p-5f, 0x1.8b0baep-6f, 0x1.15fc48p-6f,
    0x1.89cc8p-7f, 0x1.297b06p-7f, 0x1.676c82p-8f, 0x1.292502p-8f};
static const float titer_atanf_a2[32] = {
    -0x1.e90da2p-27f, -0x1.6820ecp-4f, -0x1.9227e6p-4f, -0x1.c4247ap-4f,
    -0x1.1411d4p-3f, -0x1.5544f6p-3f, -0x1.8cd93ap-3f, -0x1.a57b28p-3f,
    -0x1.faa796p-3f, -0x1.1de74ap-2f, -0x1.2cdf8ap-2f, -0x1.3ee8e6p-2f,
    -0x1.4c4ccap-2f, -0x1.411b3p-2f, -0x1.330166p-2f, -0x1.0df5b8p-2f,
    -0x1.da19f8p-3f, -0x1.653eb2p-3f, -0x1.e8a90cp-4f, -0x1.7c037ep-4f,
    -0x1.e2eaeep-5f, -0x1.595beep-5f, -0x1.6b8e36p-6f, -0x1.13497cp-6f,
    -0x1.897232p-7f, -0x1.6c4ad2p-8f, -0x1.e4c95ep-9f, -0x1.1f3566p-9f,
    -0x1.574874p-10f, -0x1.c3718ep-11f, -0x1.a8b6a8p-12f, -0x1.3f684p-12f};
static const float titer_atanf_a3[32] = {
    -0x1.5554c6p-2f, -0x1.454fcp-2f, -0x1.414ae6p-2f, -0x1.3be53cp-2f,
    -0x1.2f0364p-2f, -0x1.19bf54p-2f, -0x1.032bd2p-2f, -0x1.ef60bep-3f,
    -0x1.8ee596p-3f, -0x1.2c3204p-3f, -0x1.e56f54p-4f, -0x1.314674p-4f,
    0x1.1fa482p-7f, 0x1.9eef36p-5f, 0x1.14f3e6p-4f, 0x1.51fa6ep-4f,
    0x1.505248p-4f, 0x1.16549cp-4f, 0x1.7c3a84p-5f, 0x1.1e13dep-5f,
    0x1.4bfa86p-6f, 0x1.b55658p-7f, 0x1.819184p-8f, 0x1.0cf64ep-8f,
    0x1.5b381ap-9f, 0x1.f92354p-11f, 0x1.270264p-11f, 0x1.2707a8p-12f,
    0x1.29ffcep-13f, 0x1.558584p-14f, 0x1.f4f6e8p-16f, 0x1.56d08ap-16f};
static const float titer_atanf_a4[32] = {
    -0x1.e8619ep-14f, 0x1.5f9ecep-4f, 0x1.864074p-4f, 0x1.b31d7ap-4f,
    0x1.04523p-3f, 0x1.36b56cp-3f, 0x1.5b5462p-3f, 0x1.6934a8p-3f,
    0x1.8a1c2ap-3f, 0x1.8b9b0cp-3f, 0x1.8065e4p-3f, 0x1.5ed11ep-3f,
    0x1.d2a9e8p-4f, 0x1.174ba8p-4f, 0x1.61448ep-5f, 0x1.005292p-7f,
    -0x1.f73d6ep-8f, -0x1.1c5f4cp-6f, -0x1.e5ec28p-7f, -0x1.778bf6p-7f,
    -0x1.a50ea8p-8f, -0x1.056458p-8f, -0x1.8baaccp-10f, -0x1.000a72p-10f,
    -0x1.2be6c2p-11f, -0x1.5a3114p-13f, -0x1.6439ecp-14f, -0x1.2d28d8p-15f,
    -0x1.01761ep-16f, -0x1.0163bep-17f, -0x1.26dp-19f, -0x1.6f84ccp-20f};
static const float titer_atanf_a5[32] = {
    0x1.9f820ap-3f, 0x1.6a62b4p-3f, 0x1.5ebf3cp-3f, 0x1.4f668ep-3f,
    0x1.2b4c5cp-3f, 0x1.e4be0ap-4f, 0x1.72755cp-4f, 0x1.3aeef4p-4f,
    0x1.9b474p-6f, -0x1.3539aap-6f, -0x1.498a6p-5f, -0x1.0df7b6p-4f,
    -0x1.5b913ap-4f, -0x1.26229cp-4f, -0x1.dfa9b6p-5f, -0x1.09c3d2p-5f,
    -0x1.0ecbe8p-6f, -0x1.62bcf8p-10f, 0x1.8af60ap-9f, 0x1.8367ecp-9f,
    0x1.deff0ap-10f, 0x1.1f9106p-10f, 0x1.834c62p-12f, 0x1.db9b96p-13f,
    0x1.e851fap-14f, 0x1.dac016p-16f, 0x1.aa6c3p-17f, 0x1.32a63ap-18f,
    0x1.c45ebap-20f, 0x1.77bd72p-21f, 0x1.53b576p-23f, 0x1.8af27cp-24f};
static const float titer_atanf_a6[32] = {
    -0x1.0ea06ep-5f, -0x1.487dc8p-4f, -0x1.79b678p-4f, -0x1.a61414p-4f,
    -0x1.de6814p-4f, -0x1.0aa3f6p-3f, -0x1.19f6f6p-3f, -0x1.1d73bap-3f,
    -0x1.0ea11p-3f, -0x1.be702ep-4f, -0x1.3d7624p-4f, -0x1.709efap-5f,
    -0x1.50fb1ep-8f, 0x1.81e1e2p-6f, 0x1.e4e1e6p-6f, 0x1.93b42p-6f,
    0x1.baa09p-7f, 0x1.0de7ccp-8f, 0x1.392e04p-11f, -0x1.766e98p-12f,
    -0x1.cd40dcp-12f, -0x1.e47e1cp-13f, -0x1.bb80acp-14f, -0x1.9b0d2p-15f,
    -0x1.1e2b88p-16f, -0x1.46ef1ap-18f, -0x1.ba8f72p-20f, -0x1.56e9e4p-21f,
    -0x1.982c8ep-23f, -0x1.9db662p-25f, -0x1.05aceep-26f, -0x1.84c92ap-28f};

#define TITER_ODDF_FIRST (0x3d800000 >> 21)          /* 2^-4, in quarter octaves */
#define TITER_ODDF_TOP 0x417fffff                     /* the float below 16 */
/* f |x| from the tables T##_c, T##_a0.. for |x|'s bits mag (at most
 * 15.99's), for a type V (VI its int32 lanes): FMA, FROMBITS, MAX of int32
 * lanes, PICK(i, table) the table's entries of the pieces i */
#define TITER_ODDF_PIECES(V, VI, FMA, FROMBITS, MAX, PICK, T, mag, result)              \
    VI piece_ = MAX(((mag) >> 21) - TITER_ODDF_FIRST, 0);                           \
    V t_ = FROMBITS(mag) - PICK(piece_, T##_c);                                     \
    V p_ = FMA(PICK(piece_, T##_a6), t_, PICK(piece_, T##_a5));                     \
    p_ = FMA(p_, t_, PICK(piece_, T##_a4));                                         \
    p_ = FMA(p_, t_, PICK(piece_, T##_a3));                                         \
    p_ = FMA(p_, t_, PICK(piece_, T##_a2));                                         \
    p_ = FMA(p_, t_, PICK(piece_, T##_a1));                                         \
    V result = FMA(p_, t_, PICK(piece_, T##_a0));
/* the operations of a kernel: V, VI, FMA, C, TOBITS, FROMBITS, MIN and MAX
 * of int32 lanes and a constant, MASK (a comparison's all-ones mask), PICK,
 * and ANY_BIG(mask) (whether a lane of the mask is set: a vector's branch;
 * one float computes both sides) */
#define TITER_TANHF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, MIN, MAX, MASK, PICK, ANY_BIG, x, result) \
    VI bits_ = TOBITS(x), mag_ = MIN(bits_ & 0x7fffffff, TITER_ODDF_TOP);           \
    TITER_ODDF_PIECES(V, VI, FMA, FROMBITS, MAX, PICK, titer_tanhf, mag_, r_)       \
    V result = FROMBITS(TOBITS(r_) | (bits_ & ~0x7fffffff));
#define TITER_ATANF_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, MIN, MAX, MASK, PICK, ANY_BIG, x, result) \
    VI bits_ = TOBITS(x), mag_ = bits_ & 0x7fffffff;                                \
    TITER_ODDF_PIECES(V, VI, FMA, FROMBITS, MAX, PICK, titer_atanf,                  \
                      MIN(mag_, TITER_ODDF_TOP), r_)                                 \
    VI big_ = MASK(mag_ >= 0x41800000);                                             \
    if (ANY_BIG(big_)) {             /* pi/2 - atan(u), u = 1/|x| <= 1/16 */        \
        V u_ = C(1.0f) / FROMBITS(MAX(MIN(mag_, 0x53800000), 0x41800000)), z_ = u_ * u_; \
        V q_ = FMA(FMA(z_, C(-1.0f / 7), C(0.2f)), z_, C(-1.0f / 3));               \
        V far_ = C(0x1.921fb6p+0f) + (C(-0x1.777a5cp-25f) - FMA(u_ * z_, q_, u_));  \
        r_ = FROMBITS(TITER_PICK_BITS(big_, TOBITS(far_), TOBITS(r_)));             \
    }                                                                               \
    V result = FROMBITS(TOBITS(r_) | (bits_ & ~0x7fffffff));

#define TITER_ODDF_F1_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TITER_ODDF_F1_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TITER_ODDF_F1_PICK(i, table) ((table)[(i) & 31])
#define TITER_ODDF_F1_BIG(mask) 1
#define TITER_ODDF_F1_OPS float, int32_t, __builtin_fmaf, TITER_SCALAR_C, TITER_F1_TOBITS, \
    TITER_F1_FROMBITS, TITER_ODDF_F1_MIN, TITER_ODDF_F1_MAX, TITER_F1_MASK, TITER_ODDF_F1_PICK, \
    TITER_ODDF_F1_BIG
#define TITER_ODDF_V16_MIN(a, b) ((titer_v16i)_mm512_min_epi32((__m512i)(a), _mm512_set1_epi32(b)))
#define TITER_ODDF_V16_MAX(a, b) ((titer_v16i)_mm512_max_epi32((__m512i)(a), _mm512_set1_epi32(b)))
#define TITER_ODDF_V16_PICK(i, table) ((titer_v16f)_mm512_permutex2var_ps(                  \
    _mm512_loadu_ps(table), (__m512i)(i), _mm512_loadu_ps((table) + 16)))
#define TITER_ODDF_V16_BIG(mask) _mm512_test_epi32_mask((__m512i)(mask), (__m512i)(mask))
#define TITER_ODDF_V16_OPS titer_v16f, titer_v16i, TITER_V16_FMA, TITER_V16_C, TITER_V16_TOBITS, \
    TITER_V16_FROMBITS, TITER_ODDF_V16_MIN, TITER_ODDF_V16_MAX, TITER_V16_MASK, TITER_ODDF_V16_PICK, \
    TITER_ODDF_V16_BIG
/* the twins and 16-lane forms (TITER_F16_FORMS_OF: titer_vlog1pf.h) */
TITER_F16_FORMS_OF(titer_tanhf_twin, titer_vtanhf16, TITER_TANHF_KERNEL, TITER_ODDF_F1_OPS,
                   TITER_ODDF_V16_OPS)
TITER_F16_FORMS_OF(titer_atanf_twin, titer_vatanf16, TITER_ATANF_KERNEL, TITER_ODDF_F1_OPS,
                   TITER_ODDF_V16_OPS)

/* arctan2(y, x) in sixteen lanes: q = the smaller magnitude over the
 * larger, in [0, 1], atan q = q + q^3 P(q^2) with P of degree 8 (float
 * coefficients fitted to atan's relative error over [0, 1], 2^-28.5, each
 * rounded in turn and the later ones refitted; q^2 taken of q held at 2^-40
 * or above, where q^3 P is below half an ulp of q anyway, so that nothing
 * underflows), then atan2 = shift + s atan q by the quadrant: shift 0 and
 * s = 1 where x > 0 and |y| <= |x|; pi/2 and -1 where x > 0 and |y| > |x|
 * (steep); pi and -1 where x < 0, not steep; pi/2 and 1 where x < 0,
 * steep; pi and pi/2 in two floats (head + (tail + s atan q)), y's sign
 * put on last.  The quadrant's entries come from 32-entry tables like the
 * pieces' coefficients above, indexed by steep (bit 0) and x's sign (x's
 * bits shifted arithmetically by 30: 0 or 1 for x > 0, bits 1-4 clear; -1
 * or -2 for x < 0, bits 1-4 set): entries 0, 1, 30 and 31.  q is not a
 * division (a 16-lane vdivps took as long as the rest of the kernel): q0 =
 * num rcp14(den), then one correction by the exact residual num - q0 den,
 * which leaves q within about half an ulp (rcp14 is within 2^-14; its
 * scalar form vrcp14ss gives the twin the same bits).  For |x| and |y| in
 * [2^-45, 2^45), q is at least 2^-90 and no step underflows.  Within 1.5
 * ULP of the exact atan2 (1 of the float64 result rounded to float32) on
 * 4.1e7 random pairs over all quadrants, magnitudes and ratios (one in
 * seven within a few ulps of |y| = |x|), raising nothing; libmvec's
 * _ZGVeN16vv_atan2f is 3.4 ULP from it there.  In cache on one thread (C
 * harness, pairs in (0.1, 0.9), one run): 0.66-0.69 ns an element against
 * 0.93-0.97 for libmvec's, which the avx2 level keeps; a piecewise atan q
 * as arctan's above ran at about libmvec's speed, with vdivps 1.3 times
 * slower still. */
static const float titer_atan2f_head[32] = {
    [1] = 0x1.921fb6p+0f, [30] = 0x1.921fb6p+1f, [31] = 0x1.921fb6p+0f};
static const float titer_atan2f_tail[32] = {
    [1] = -0x1.777a5cp-25f, [30] = -0x1.777a5cp-24f, [31] = -0x1.777a5cp-25f};
static const float titer_atan2f_sign[32] = {
    1.0f, -1.0f, [30] = -1.0f, [31] = 1.0f};
#define TITER_ATAN2F_KERNEL(V, VI, FMA, C, TOBITS, FROMBITS, MIN, MAX, MASK, PICK, ANY_BIG, RCP, \
                            y, x, result)                                                    \
    VI ybits_ = TOBITS(y), xbits_ = TOBITS(x);                                               \
    VI ay_ = ybits_ & 0x7fffffff, ax_ = xbits_ & 0x7fffffff;                                  \
    VI steep_ = MASK(ay_ > ax_);                                                              \
    V num_ = FROMBITS(TITER_PICK_BITS(steep_, ax_, ay_));                                      \
    V den_ = FROMBITS(TITER_PICK_BITS(steep_, ay_, ax_));                                      \
    V rcp_ = RCP(den_), q0_ = num_ * rcp_;                                                    \
    V q_ = FMA(FMA(-q0_, den_, num_), rcp_, q0_);                                             \
    V clamped_ = FROMBITS(MAX(TOBITS(q_), 0x2b800000));               /* >= 2^-40 */        \
    V z_ = clamped_ * clamped_;                                                               \
    V p_ = FMA(C(-0x1.d557fap-10f), z_, C(0x1.652940p-7f));                                   \
    p_ = FMA(p_, z_, C(-0x1.fe581ap-6f));                                                     \
    p_ = FMA(p_, z_, C(0x1.da8a34p-5f));                                                      \
    p_ = FMA(p_, z_, C(-0x1.5820f8p-4f));                                                     \
    p_ = FMA(p_, z_, C(0x1.c092dep-4f));                                                      \
    p_ = FMA(p_, z_, C(-0x1.2420fap-3f));                                                     \
    p_ = FMA(p_, z_, C(0x1.9991eap-3f));                                                      \
    p_ = FMA(p_, z_, C(-0x1.55553ep-2f));                                                     \
    V r_ = FMA(clamped_ * z_, p_, q_);                                                        \
    VI quadrant_ = (steep_ & 1) | ((xbits_ >> 30) & ~1);                                      \
    V mag_ = PICK(quadrant_, titer_atan2f_head)                                               \
             + FMA(PICK(quadrant_, titer_atan2f_sign), r_, PICK(quadrant_, titer_atan2f_tail)); \
    V result = FROMBITS(TOBITS(mag_) | (ybits_ & ~0x7fffffff));
#define TITER_ODDF_F1_RCP(d) _mm_cvtss_f32(_mm_rcp14_ss(_mm_setzero_ps(), _mm_set_ss(d)))
#define TITER_ODDF_V16_RCP(d) ((titer_v16f)_mm512_rcp14_ps((__m512)(d)))
TITER_FAST_INLINE float titer_atan2f_twin(float y, float x) {
    TITER_KERNEL_OF(TITER_ATAN2F_KERNEL, TITER_ODDF_F1_OPS, TITER_ODDF_F1_RCP, y, x, result)
    return result;
}
TITER_FAST_INLINE titer_v16f titer_vatan2f16(titer_v16f y, titer_v16f x) {
    TITER_KERNEL_OF(TITER_ATAN2F_KERNEL, TITER_ODDF_V16_OPS, TITER_ODDF_V16_RCP, y, x, result)
    return result;
}
#define titer_vatan2f16_whole(dst, at, first, second, FIRST_AT, SECOND_AT)   \
    (*(titer_v16f_u *)(dst) = titer_vatan2f16(first, second))
/* titer_fast_arctan2f_ok's range: |x| and |y| in [2^-45, 2^45) */
TITER_FAST_INLINE __mmask16 titer_vatan2f16_ok(titer_v16f y, titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(y), 0x29000000u, 0x56000000u)
           & titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x29000000u, 0x56000000u);
}

/* titer_fast_tanhf_ok's and titer_fast_arctanf_ok's ranges; one form each,
 * so the lanes out of it keep their inputs for the kernel
 * (TITER_VEC_LOOP_F16 in titer_vtanf.h) */
TITER_FAST_INLINE __mmask16 titer_vtanhf16_ok(titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x39800000u, 0x422c0000u);
}
TITER_FAST_INLINE __mmask16 titer_vatanf16_ok(titer_v16f x) {
    return titer_vbits16_in(TITER_V16_MAGNITUDE(x), 0x21800000u, 0x7f800000u);
}
#define titer_vtanhf16_rest TITER_VEC_REST_INPUT
#define titer_vatanf16_rest TITER_VEC_REST_INPUT
#define titer_vtanhf16_safe 0.5f
#define titer_vatanf16_safe 0.5f

#endif
#endif

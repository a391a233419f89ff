"""Generate the C loops from the op table (run by setup.py at build time).

Output: ``titer/src/titer_generated.h`` (not committed).  It holds, for every
op-table signature, a one-line kernel and its 1-d loop, the table of loops
the Cython core reads at import, and the 14 x 14 cast table.
"""
import os
import sys

if __package__ in (None, ""):          # run as a script from setup.py
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _ops as ops                 # noqa: E402
else:
    from . import _ops as ops

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "src", "titer_generated.h")


def kernel_name(op, sig):
    return "titer_k_%s_%s" % (op.name, sig.replace("->", "_").replace("?", "B1"))


def loop_name(op, sig):
    return "titer_loop_%s_%s" % (op.name, sig.replace("->", "_").replace("?", "B1"))


# NumPy's loops that look at their strides before they compute: a stride-0
# exponent of -1, 0, 0.5, 1 or 2 is NumPy's reciprocal, one, sqrt, copy or
# square, not pow (its POWER_FAST_PATH, float32 and float64 only: its
# float16 loop has none).  The prelude runs first; the loop proper is the
# "core" one, which a float16 loop through float calls directly.
PRELUDES = {("power", "ff->f"): "titer_power_fast_ops_f",
            ("power", "dd->d"): "titer_power_fast_ops_d"}


def core_loop_name(op, sig):
    return loop_name(op, sig) + ("_core" if (op.name, sig) in PRELUDES else "")


def emit_prelude(op, sig):
    """The loop the tables point at, for a signature with a prelude."""
    if (op.name, sig) not in PRELUDES:
        return None
    return ("static void %s(char **data, const int64_t *strides, int64_t n) {\n"
            "    if (!%s(data, strides, n)) %s(data, strides, n);\n}"
            % (loop_name(op, sig), PRELUDES[op.name, sig], core_loop_name(op, sig)))


def own_loop_name(op, sig):
    """The loop of titer's own vectorized path (op.fast) for a signature:
    a loop of its own where the vector math library may take the signature
    (op.veclib), else the signature's loop itself."""
    if sig in (op.veclib or {}):
        return "titer_own_loop_%s_%s" % (op.name, sig.replace("->", "_"))
    return core_loop_name(op, sig)


def masked_loop_name(op, sig):
    return "titer_mloop_%s_%s" % (op.name, sig.replace("->", "_").replace("?", "B1"))


# GCC turns floor/ceil/trunc into vector roundps/roundpd only without
# -ftrapping-math (with it, one scalar roundss per element: 0.3x NumPy's
# speed); the vector forms raise nothing but 'inexact', which neither NumPy
# nor titer reports
_NO_TRAPPING_MATH = {"floor", "ceil", "trunc", "modf"}
# fast paths only where the unit's target has AVX-512DQ: the 64-bit integer
# division family's int64 <-> double conversions (scalar ones below it made
# the split loop 0.2-0.9x NumPy at the avx2 level; 2.5-3.5x at avx512)
_FAST_WITH_AVX512DQ = {(name, c) for name in ("floor_divide", "remainder", "fmod", "divmod")
                       for c in "lL"}


def no_trapping_math(op, sig):
    """Floating loops (float16 ones round in float; their conversion helpers
    are forced inline, so they inline into a function built with other
    options, and an integer-valued result raises no flag)."""
    return "TITER_NO_TRAPPING_MATH " if op.name in _NO_TRAPPING_MATH and sig[0] in "efd" else ""


def emit_kernel(op, sig):
    """One inline function per signature.  A second output (divmod, modf,
    frexp) is written through the pointer ``o1``; the first is returned."""
    ins, outs = ops.parse_signature(sig)
    key, expr = ops.lookup_expr(op, ins)
    out_c = ops.C_TYPE[outs[0]]
    args = "abcd"[:len(ins)]
    # NumPy computes float16 in float and rounds once at the end, unless the
    # op has a bit-level float16 expression.
    through_float = "e" in ins and key not in ("e", "half")
    params, prologue, epilogue = [], [], []
    for v, c in zip(args, ins):
        if through_float and c == "e":
            params.append("titer_half h%s" % v)
            prologue.append("float %s = titer_h2f(h%s);" % (v, v))
        else:
            params.append("%s %s" % (ops.C_TYPE[c], v))
    if len(outs) == 2:
        if through_float and outs[1] == "e":
            params.append("titer_half *ho1")
            prologue.append("float f1; float *o1 = &f1;")
            epilogue.append("*ho1 = titer_f2h(f1);")
        else:
            params.append("%s *o1" % ops.C_TYPE[outs[1]])
    if through_float:
        typedefs = "typedef float T; typedef float U;"
    else:
        first_c = ops.C_TYPE[ins[0]]
        typedefs = "typedef %s T; typedef %s U;" % (first_c, ops.UNSIGNED_TWIN.get(ins[0], first_c))
    if through_float and outs[0] == "e":
        result = "titer_f2h(%s)" % expr
    elif outs[0] in "FD":
        result = expr
    else:
        result = "(%s)(%s)" % (out_c, expr)
    # float16 kernels are forced inline: with the conversions in them GCC
    # would leave them out of line, a call per element
    inline = "TITER_FAST_INLINE" if "e" in ins + outs else "TITER_INLINE"
    lines = ["%s %s %s(%s) {" % (inline, out_c, kernel_name(op, sig), ", ".join(params)),
             "    %s (void)sizeof(T); (void)sizeof(U);" % typedefs]
    lines += ["    " + s for s in prologue]
    if epilogue:
        lines.append("    %s r = %s;" % (out_c, result))
        lines += ["    " + s for s in epilogue]
        lines.append("    return r;")
    else:
        lines.append("    return %s;" % result)
    lines.append("}")
    return "\n".join(lines)


_LOOP_SHAPES = {(1, 1): "TITER_UNARY_LOOP", (2, 1): "TITER_BINARY_LOOP",
                (3, 1): "TITER_TERNARY_LOOP", (1, 2): "TITER_UNARY2_LOOP",
                (2, 2): "TITER_BINARY2_LOOP"}
# int8 / uint8 products two to a 16-bit lane (NOTE [byte products] in titer_loops.h)
_BYTE_PRODUCT_LOOPS = {"multiply": "TITER_BYTE_PRODUCT_LOOP", "square": "TITER_BYTE_SQUARE_LOOP"}
# unary loops unrolled by four (titer_loops.h TITER_UNARY_LOOP_UNROLLED)
_UNROLLED = {"bitwise_count": "TITER_UNARY_LOOP_UNROLLED"}


# a fast-path loop's element type, its unsigned integer twin, the bit casts,
# and (binary loops) the bits of 1.0, what out-of-range pairs become
_SPLIT_BITS = {"f": ("float, uint32_t, titer_f2bits, titer_bits2f", "0x3f800000u"),
               "d": ("double, uint64_t, titer_d2bits, titer_bits2d", "0x3ff0000000000000ull")}
# (the integer fast paths: reciprocal, power, gcd, lcm; the unsigned twin
# of a type is its upper-case character)
_SPLIT_BITS.update({c: ("%s, %s, titer_same_bits, titer_same_bits"
                        % (ops.C_TYPE[c], ops.C_TYPE[c.upper()]), "1") for c in ops.INTS})


# expressions that fuse a multiply-add as NumPy's loops do (titer_muladd):
# their loops are built with FMA enabled, so it is one instruction
_FUSED_CALLS = ("titer_muladd(", "titer_cmul(", "titer_cabs(")
# fast functions that need a fused multiply-add in hardware to be fast
# (titer_scalar.h: exact a - n b; titer_poly_fma in the polynomials of the
# exp kernel and its users)
_FMA_FAST = {"titer_fast_fmod", "titer_fast_remainder", "titer_fast_floor_divide",
             "titer_fast_divmod", "titer_fast_exp", "titer_fast_exp2", "titer_fast_expm1f",
             "titer_fast_sinhf", "titer_fast_coshf", "titer_fast_powerf", "titer_fast_expf",
             "titer_fast_exp2f", "titer_fast_tanhf", "titer_fast_expm1", "titer_fast_arcsin",
             "titer_fast_arctan2", "titer_fast_tan", "titer_fast_logf", "titer_fast_tanf",
             "titer_fast_tanh"}


def float_fast_twin(op, sig):
    """For a float16 signature computed through float ('e->e', 'ee->e',
    'ee->ee') whose float32 twin has a fast or vector-libm path, or is a
    libm loop (an approximate op: logaddexp), that twin ('f->f'), else None.
    Such a loop runs in blocks converted with F16C (titer_half_through_float)
    rather than converting each element in software around the float call."""
    ins, outs = ops.parse_signature(sig)
    twin = sig.replace("e", "f")
    if set(ins + outs) != {"e"} or ops.lookup_expr(op, ins)[0] in ("e", "half"):
        return None
    if twin in (op.fast or {}) or twin in (op.veclib or {}) or (op.approx and twin in op.types):
        return twin
    return None


# float64 fast paths with an 8-lane form as well, run by TITER_VEC_LOOP_D8
# in the units whose target has them (AVX-512) and by the split loop in
# the others: fast function -> (the scalar twin a block's last lanes take,
# the 8-lane form with its range test <form>_ok, the units' guard).  In
# titer_vexp.h and titer_scalar.h, titer_vfast_<name> does the scalar
# titer_fast_<name>'s arithmetic (TITER_HAVE_VFAST_D); float64 log's form
# (titer_vlog.h) is another method than the split loop's titer_fast_log,
# whose GCC-vectorized callers (float32 log10, log2) keep it
_VECTOR_FORMS = {fast: (fast, fast.replace("titer_fast_", "titer_vfast_"), "TITER_HAVE_VFAST_D")
                 for fast in ("titer_fast_exp", "titer_fast_exp2", "titer_fast_expm1",
                              "titer_fast_arcsin", "titer_fast_tanh")}
_VECTOR_FORMS["titer_fast_log"] = ("titer_vlog_twin", "titer_vfast_log", "TITER_HAVE_VLOG")
# (their 8-lane forms are written with FMA: the loops are built to fuse)
_FMA_FAST |= set(_VECTOR_FORMS)
# float32 fast paths with a 16-lane form at AVX-512, run by
# TITER_VEC_LOOP_F16 (titer_vtanf.h): fast function -> (the forms' scalar
# twin, the 16-lane form <stem>16 with its range test <stem>16_ok, what
# takes the lanes out of its range <stem>16_rest, the input masked-off lanes
# compute on <stem>16_safe); tan has an 8-lane form for those lanes
# (titer_vtanf.h), log, log1p and its neighbours none (titer_vlog1pf.h), nor
# log2 and log10 (titer_vlog2f.h), nor tanh and arctan (titer_voddf.h),
# nor arcsin and arccos (titer_vasinf.h), nor sinh, exp2 and cbrt, whose scalar
# paths are their twins (titer_vsinhf.h, titer_vexp2f.h, titer_vcbrtf.h)
_VECTOR_FORMS_F16 = {"titer_fast_tanf": ("titer_tanf_twin", "titer_vtanf"),
                     "titer_fast_logf": ("titer_logf_twin", "titer_vlogf"),
                     "titer_fast_log1pf": ("titer_log1pf_twin", "titer_vlog1pf"),
                     "titer_fast_arccoshf": ("titer_acoshf_twin", "titer_vacoshf"),
                     "titer_fast_arcsinhf": ("titer_asinhf_twin", "titer_vasinhf"),
                     "titer_fast_arctanhf": ("titer_atanhf_twin", "titer_vatanhf"),
                     "titer_fast_tanhf": ("titer_tanhf_twin", "titer_vtanhf"),
                     "titer_fast_arctanf": ("titer_atanf_twin", "titer_vatanf"),
                     "titer_fast_sinhf": ("titer_fast_sinhf", "titer_vsinhf"),
                     "titer_fast_exp2f": ("titer_fast_exp2f", "titer_vexp2f"),
                     "titer_fast_cbrtf": ("titer_fast_cbrtf", "titer_vcbrtf"),
                     "titer_fast_log2f": ("titer_log2f_twin", "titer_vlog2f"),
                     "titer_fast_log10f": ("titer_log10f_twin", "titer_vlog10f"),
                     "titer_fast_arcsinf": ("titer_asinf_twin", "titer_vasinf"),
                     "titer_fast_arccosf": ("titer_acosf_twin", "titer_vacosf")}
# (their 16-lane forms are written with FMA: the loops are built to fuse)
_FMA_FAST |= set(_VECTOR_FORMS_F16)
# binary float32 fast paths with vector forms at AVX-512, run by
# TITER_VEC_LOOP2_F16 (titer_vpowf.h) where the unit defines the guard:
# fast function -> (its scalar twin, the forms' stem: <stem>16 on sixteen
# lanes, <stem>16_ok its range mask, <stem>16_whole storing a vector all in
# range, the guard); power in titer_vpowf.h, arctan2 in titer_voddf.h
_VECTOR_FORMS2 = {"titer_fast_powerf": ("titer_powf_table", "titer_vpowf", "TITER_HAVE_VPOWF"),
                  "titer_fast_arctan2f": ("titer_atan2f_twin", "titer_vatan2f",
                                          "TITER_HAVE_VFAST_F16")}
_FMA_FAST |= set(_VECTOR_FORMS2)
# binary float64 ops with an 8-lane form at AVX-512 and no own path below
# it, where the vector libm's loop runs (titer_vpow.h): (op, signature) ->
# the forms' stem: <stem>8 on eight lanes with its range mask <stem>8_ok,
# the scalar twin <stem>_twin with its range test <stem>_ok
_VECTOR_FORMS2_D8 = {("power", "dd->d"): "titer_vpow"}


# loops with a form in intrinsics where the unit's target has the
# instructions: (op, signature) -> (the guard its header defines there, the
# form), which takes the contiguous (and scalar-operand) calls and returns
# 1, else 0 for the plain loop.  At AVX-512: titer_vexponent.h (NOTE [ldexp
# by vscalef], NOTE [frexp by vgetexp]); at AVX2 and AVX-512: titer_vcmul.h
_INTRINSIC_FORMS = {("ldexp", sig): ("TITER_HAVE_VEXPONENT", "titer_vscalef_" + sig[:2])
                 for sig in ("fi->f", "fl->f", "di->d", "dl->d")}
_INTRINSIC_FORMS.update({("frexp", c + "->" + c + "i"): ("TITER_HAVE_VEXPONENT", "titer_vfrexp_" + c)
                      for c in "fd"})
# (titer_vcmul.h: NOTE [complex products in place])
_INTRINSIC_FORMS.update({("multiply", c + c + "->" + c): ("TITER_HAVE_VCMUL", "titer_vcmul_" + c)
                      for c in "FD"})
_INTRINSIC_FORMS.update({("square", c + "->" + c): ("TITER_HAVE_VCMUL", "titer_vcsquare_" + c)
                      for c in "FD"})
_INTRINSIC_FORMS.update({("conjugate", c + "->" + c): ("TITER_HAVE_VCMUL", "titer_vconj_" + c)
                         for c in "FD"})
# At AVX2 without AVX-512, the predicates and compares of 64-bit lanes into
# bools (titer_vbool.h: NOTE [bools from 64-bit lanes]): lane type -> the
# unary ops, the binary ones; casts into bool take nonzero_<c>.  The header
# has a predicate TITER_VP_<op>_<c> for each, instantiated by vbool_forms().
_COMPARES = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
_LOGICAL = ("logical_and", "logical_or", "logical_xor")
_VBOOL_OPS = {"d": (("isnan", "isinf", "isfinite", "signbit", "logical_not"), _COMPARES + _LOGICAL),
              "l": (("logical_not",), _COMPARES + _LOGICAL),
              "L": (("logical_not",), _COMPARES + _LOGICAL),
              "F": (("isnan", "isinf", "isfinite", "logical_not"), _LOGICAL)}
_VBOOL_CASTS = tuple(_VBOOL_OPS)
for _c, (_unary, _binary) in _VBOOL_OPS.items():
    _INTRINSIC_FORMS.update({(name, _c + "->?"): ("TITER_HAVE_VBOOL", "titer_vbool_%s_%s" % (name, _c))
                             for name in _unary})
    _INTRINSIC_FORMS.update({(name, _c + _c + "->?"): ("TITER_HAVE_VBOOL",
                                                       "titer_vbool_%s_%s" % (name, _c))
                             for name in _binary})


def vbool_forms():
    """The instantiations of titer_vbool.h's forms, for the unit that has them."""
    lines = ["#ifdef TITER_HAVE_VBOOL"]
    for c, (unary, binary) in _VBOOL_OPS.items():
        lines += ["TITER_VBOOL_UNARY(%s_%s, TITER_VP_%s_%s)" % (name, c, name, c)
                  for name in unary + ("nonzero",)]
        lines += ["TITER_VBOOL_BINARY(%s_%s, TITER_VP_%s_%s)" % (name, c, name, c)
                  for name in binary]
    return "\n".join(lines + ["#endif"])


# ops whose loops have a variant for vector popcnt (TITER_VPOPCNT_TARGET in
# titer_target_avx512.h, chosen at run time by titer_vpopcnt_enabled): op ->
# the kernel family the variant runs (titer_scalar.h, per type char)
_VPOPCNT_OPS = {"bitwise_count": "titer_popcount_insn"}


# float32 fast paths whose 16-lane form the float16 signature runs in
# registers at AVX-512 (titer_loops.h NOTE [float16 in registers]) rather
# than by its table: fast function -> where.  "always": the cheap form, the
# faster everywhere (one thread, 2^20 float16, Zen 4, interleaved with
# NumPy: exp2 0.26 ms, where tables take 0.29-0.40; Emerald Rapids, two
# vectors a turn with no underflow test: 1.12x NumPy's native float16
# kernel, 0.81x before).  "slow gathers": the forms that cost about the
# table's time where a gather is fast (Intel: 0.2 ns an element) and less
# where it is not (AMD Zen 4 and 5: 0.4 ns), so they run in registers only
# where titer_half_registers_first says (NOTE [float16 where gathers are
# slow]); each has a half range (titer_loops.h).  tan is not one: its
# results come within a subnormal half of zero at ordinary inputs (355);
# nor are arcsinh, arccosh and arctanh, whose forms (a division and a
# square root before log1p's) took their tables' time or more on Zen 5
# (benchmarks/float16_paths.py: 0.62, 0.45, 0.41 ms against 0.43).
_HALF_IN_REGISTERS = {"titer_fast_exp2f": "always"}
_HALF_IN_REGISTERS.update({fast: "slow gathers" for fast in (
    "titer_fast_logf", "titer_fast_log2f", "titer_fast_log10f", "titer_fast_log1pf",
    "titer_fast_cbrtf", "titer_fast_arcsinf", "titer_fast_arccosf", "titer_fast_arctanf",
    "titer_fast_tanhf", "titer_fast_sinhf")})


def half_register_form(op, twin, where=None):
    """The stem of the 16-lane form the float32 signature `twin`'s loop runs
    at AVX-512 (TITER_VEC_LOOP_F16), where its unary float16 signature runs
    it in registers (_HALF_IN_REGISTERS; `where`: only those that run there
    always, or only where gathers are slow); else None."""
    fast = (op.fast or {}).get(twin, (None, None))[1]
    if fast not in _HALF_IN_REGISTERS or where not in (None, _HALF_IN_REGISTERS[fast]):
        return None
    return _VECTOR_FORMS_F16[fast][1]


def half_register_loop_name(op, sig):
    """The loop that runs float16 signature `sig` in registers (built with
    the forms' FMA)."""
    return core_loop_name(op, sig) + "_in_registers"


def half_in_registers(where=None):
    """The ops whose float16 loop runs in registers at AVX-512 instead of
    filling its table (tests; `where` as in half_register_form)."""
    return sorted(op.name for op in ops.OPS
                  if "e->e" in op.types and float_fast_twin(op, "e->e") == "f->f"
                  and half_register_form(op, "f->f", where))


def vector_form_guard(op, sig):
    """The macro an instruction-set unit defines where the signature's own
    fast path has a vector form (AVX-512: TITER_HAVE_VFAST_D for the 8-lane
    float64 ones, TITER_HAVE_VFAST_F16 for the 16-lane float32 ones), which
    runs there instead of the vector libm; None without one."""
    fast = (op.fast or {}).get(sig, (None, None))[1]
    if fast in _VECTOR_FORMS:
        return _VECTOR_FORMS[fast][2]
    if fast in _VECTOR_FORMS_F16:
        return "TITER_HAVE_VFAST_F16"
    if (op.name, sig) in _VECTOR_FORMS2_D8:
        return "TITER_HAVE_VPOW"
    if fast in _VECTOR_FORMS2:
        return _VECTOR_FORMS2[fast][2]
    return None


def vector_form2_d8_body(op, sig, other):
    """The loop of a binary float64 8-lane form where the unit has it
    (TITER_VEC_LOOP2_D8), `other` where not."""
    stem = _VECTOR_FORMS2_D8[op.name, sig]
    return "\n#ifdef TITER_HAVE_VPOW\n    TITER_VEC_LOOP2_D8(%s, %s_ok, %s_twin, %s8_ok, %s8)\n" \
           "#else\n    %s\n#endif\n" % (kernel_name(op, sig), stem, stem, stem, stem, other)


def split_loop_body(op, sig, ins, outs):
    """The loop of an own vectorized path (titer_loops.h TITER_SPLIT_LOOP)."""
    fast = op.fast[sig]
    bits, one = _SPLIT_BITS[sig[0]]
    if len(ins) == 1:
        split = "TITER_SPLIT_LOOP(%s, %s, %s, %s)" % ((bits, kernel_name(op, sig)) + fast)
        if fast[1] in _VECTOR_FORMS_F16:
            twin, stem = _VECTOR_FORMS_F16[fast[1]]
            return "\n#ifdef TITER_HAVE_VFAST_F16\n    TITER_VEC_LOOP_F16(%s, %s, %s, %s16_ok, %s16, " \
                   "%s16_rest, %s16_safe)\n#else\n    %s\n#endif\n" % (
                       kernel_name(op, sig), fast[0], twin, stem, stem, stem, stem, split)
        if fast[1] not in _VECTOR_FORMS:
            return split
        twin, vfast, guard = _VECTOR_FORMS[fast[1]]
        return "\n#ifdef %s\n    TITER_VEC_LOOP_D8(%s, %s, %s, %s_ok, %s)\n" \
               "#else\n    %s\n#endif\n" % (guard, kernel_name(op, sig), fast[0], twin, vfast,
                                             vfast, split)
    split = "TITER_SPLIT_LOOP2(%s, %s, %s, %s, %s, %s)" % (
        bits, one, kernel_name(op, sig), *fast,
        "TITER_TWO_OUTPUTS" if len(outs) == 2 else "TITER_ONE_OUTPUT")
    if fast[1] not in _VECTOR_FORMS2:
        return split
    twin, vfast, guard = _VECTOR_FORMS2[fast[1]]
    return "\n#ifdef %s\n    TITER_VEC_LOOP2_F16(%s, %s, %s, %s16_ok, %s16, %s16_whole)\n" \
           "#else\n    %s\n#endif\n" % (guard, kernel_name(op, sig), fast[0], twin, vfast, vfast,
                                         vfast, split)


def veclib_loop_body(op, sig, ins):
    """The loop through glibc's vector math library (titer_veclib.h)."""
    fn, safe = op.veclib[sig]
    t = sig[0]
    bits, one = _SPLIT_BITS[t]
    type_, uint, tobits, frombits = [part.strip() for part in bits.split(",")]
    if len(ins) == 1:
        return "TITER_VL_LOOP(%s, %s, %s, %s, %s, %s, titer_vl_%s_ok, %s, %s)" % (
            type_, t, uint, tobits, frombits, kernel_name(op, sig), fn, fn, safe)
    return "TITER_VL_LOOP2(%s, %s, %s, %s, %s, %s, %s, titer_vl_%s_ok, %s)" % (
        type_, t, uint, tobits, frombits, one, kernel_name(op, sig), fn, fn)


def emit_loop(op, sig):
    ins, outs = ops.parse_signature(sig)
    types = [ops.C_TYPE[c] for c in ins] + [ops.C_TYPE[c] for c in outs]
    shape = _LOOP_SHAPES[len(ins), len(outs)]
    if op.name in _BYTE_PRODUCT_LOOPS and set(sig) <= set("bB->"):
        shape = _BYTE_PRODUCT_LOOPS[op.name]
    shape = _UNROLLED.get(op.name, shape)
    plain = "%s(%s, %s)" % (shape, ", ".join(types), kernel_name(op, sig))
    fast = (op.fast or {}).get(sig)
    veclib = (op.veclib or {}).get(sig)
    twin = float_fast_twin(op, sig)
    attrs = ""
    decls = ""              # file-scope state of the loop
    assert not ((fast or veclib or twin) and ops.quiet_invalid(op, sig)), (op.name, sig)
    if twin:                # float16 through the float32 fast loop, in blocks
        body = "if (titer_half_through_float(%s, %d, %d, data, strides, n)) return;\n    %s" % (
            core_loop_name(op, twin), len(ins), len(outs), plain)
        if len(ins) == 1 and len(outs) == 1:    # NOTE [float16 tables] (titer_loops.h)
            table = "titer_table_%s_%s" % (op.name, sig.replace("->", "_"))
            lookup = "if (titer_half_through_table(&%s, %s, data, strides, n)) return;" % (
                table, core_loop_name(op, twin))
            decls = "static titer_half_table %s;\n\n" % table
            stem = half_register_form(op, twin)
            if stem:        # NOTE [float16 in registers]
                in_registers = half_register_loop_name(op, sig)
                loop = ("TITER_FAST_FMA static int %s(char **data, const int64_t *strides, "
                        "int64_t n) {\n    TITER_HALF_VEC_F16(%s16_half_ok, %s16, %s)\n}\n" % (
                            in_registers, stem, stem, core_loop_name(op, twin)))
                if half_register_form(op, twin, "always"):      # no table where it runs
                    decls = "#ifdef TITER_HAVE_VFAST_F16\n%s#else\n%s#endif\n\n" % (loop, decls)
                    lookup = ("\n#ifdef TITER_HAVE_VFAST_F16\n    if (%s(data, strides, n)) "
                              "return;\n#else\n    %s\n#endif\n" % (in_registers, lookup))
                else:       # NOTE [float16 where gathers are slow]: the table elsewhere
                    decls = "#ifdef TITER_HAVE_VFAST_F16\n%s#endif\n%s" % (loop, decls)
                    lookup = ("\n#ifdef TITER_HAVE_VFAST_F16\n    if (titer_half_registers_first "
                              "&& %s(data, strides, n)) return;\n#endif\n    %s" % (
                                  in_registers, lookup))
            body = "%s\n    %s" % (lookup, body)
    elif fast or veclib:    # float32 / float64 loops with a vectorized path
        # each instruction-set unit builds its own, for its own target
        body = split_loop_body(op, sig, ins, outs) if fast else plain
        if fast and (op.name, sig[0]) in _FAST_WITH_AVX512DQ:
            body = "\n#if defined(__AVX512DQ__)\n    %s\n#else\n    %s\n#endif\n" % (body, plain)
        if fast and fast[1] in _FMA_FAST:
            attrs = "TITER_FAST_FMA "
        if (op.name, sig) in _VECTOR_FORMS2_D8:
            body = vector_form2_d8_body(op, sig, body)
        if veclib:
            own = ""
            if fast:        # titer's own path: the fallback, and tested as such
                own = "%sstatic void %s(char **data, const int64_t *strides, int64_t n) {\n" \
                      "    %s\n}\n\n" % (attrs, own_loop_name(op, sig), body)
                body = "%s(data, strides, n);" % own_loop_name(op, sig)
            # a vector form outruns the vector libm where the unit has it
            # (float64 exp2, float32 log1p at AVX-512), which is the faster below
            guard = vector_form_guard(op, sig)
            use_vl = "defined(TITER_VL)" + (" && !defined(%s)" % guard if guard else "")
            return own + ("static void %s(char **data, const int64_t *strides, int64_t n) {\n"
                          "#if %s\n    %s\n#else\n    %s\n#endif\n}"
                          % (core_loop_name(op, sig), use_vl, veclib_loop_body(op, sig, ins),
                             body))
    else:
        body = plain
        if (op.name, sig) in _INTRINSIC_FORMS:
            guard, form = _INTRINSIC_FORMS[op.name, sig]
            body = "\n#ifdef %s\n    if (!%s(data, strides, n))\n#endif\n    do { %s } while (0);" % (
                guard, form, plain)
        if ops.quiet_invalid(op, sig):      # NOTE [quiet compares] in titer/_ops.py
            body = "TITER_QUIET_INVALID_BEGIN %s\n    TITER_QUIET_INVALID_END" % body
        if op.name in _VPOPCNT_OPS:         # a variant where the unit's target allows it
            variant = core_loop_name(op, sig) + "_vpopcnt"
            decls = ("#ifdef TITER_VPOPCNT_TARGET\nTITER_VPOPCNT_TARGET static void "
                     "%s(char **data, const int64_t *strides, int64_t n) {\n    %s(%s, %s)\n}\n"
                     "#endif\n\n" % (variant, shape, ", ".join(types),
                                       _VPOPCNT_OPS[op.name] + "_" + sig[0]))
            body = ("\n#ifdef TITER_VPOPCNT_TARGET\n    if (titer_vpopcnt_enabled) {\n"
                    "        %s(data, strides, n);\n        return;\n    }\n#endif\n    %s"
                    % (variant, body))
        attrs = no_trapping_math(op, sig)
        if any(call in ops.lookup_expr(op, ins)[1] for call in _FUSED_CALLS):
            attrs += "TITER_SIMD_FMA_CLONES "
    return ("%s%sstatic void %s(char **data, const int64_t *strides, int64_t n) {\n"
            "    %s\n}" % (decls, attrs, core_loop_name(op, sig), body))


def cast_expr(src, dst):
    """C expression converting `v` of type char `src` to type char `dst`."""
    if dst == "?":
        if src in "FD":
            return "(npy_bool_t)(v.re != 0 || v.im != 0)"
        if src == "e":
            return "(npy_bool_t)((v & 0x7fffu) != 0)"
        return "(npy_bool_t)(v != 0)"
    # a real value expression for the source
    if src == "e":
        real = "titer_h2f(v)"
    elif src in "FD":
        real = "v.re"
    elif src in "lL" and dst in "edD":      # (to float: one rounding, not through double)
        real = "titer_%s64_to_d(v)" % ("i" if src == "l" else "u")
    else:
        real = "v"
    if dst == "e":
        if src == "e":
            return "v"
        if src in "fF" or src == "?":
            return "titer_f2h((float)(%s))" % real
        if src in "bBhH":       # NOTE [integers to float16] (titer_scalar.h)
            return "titer_f2h((float)v)"
        if src in "iIlL":
            return "titer_%s%d_to_h(v)" % ("u" if src in "IL" else "i", 32 if src in "iI" else 64)
        return "titer_d2h((double)(%s))" % real
    if dst in "FD":
        part = ops.C_TYPE[ops.COMPLEX_PART[dst]]
        if src in "FD":
            return "((%s){(%s)v.re, (%s)v.im})" % (ops.C_TYPE[dst], part, part)
        return "((%s){(%s)(%s), 0})" % (ops.C_TYPE[dst], part, real)
    # float16 to int64 / uint32 / uint64 as NumPy's float16 loop converts, at
    # every level (NOTE [undefined conversions] in titer_loops.h): a signed
    # 64-bit conversion (to uint32 its low 32 bits), so nan / inf / negatives
    # give what x86's cvttss2si gives (to uint64 +inf goes through x - 2^63
    # with the top bit flipped, as x86-64's baseline code does: 0).  A finite
    # float16 is within int32, so its conversion is a 32-bit one, which
    # vectorizes without AVX-512's 64-bit conversions (0.5x NumPy at avx2
    # through the scalar one), and nan / inf get the 64-bit answer by masks
    if src == "e" and dst == "I":                       # nan / inf: 0
        return ("({ float w_ = %s; (uint32_t)(int32_t)w_ "
                "& (0u - (uint32_t)((v & 0x7c00u) != 0x7c00u)); })" % real)
    if src == "e" and dst in "lL":                      # nan / inf: 2^63, +inf to uint64 0
        odd_answer = {"l": "0x8000000000000000ull & odd_",
                      "L": "0x8000000000000000ull & odd_ & (0ull - (uint64_t)(v != 0x7c00u))"}
        return ("({ float w_ = %s; uint64_t odd_ = 0ull - (uint64_t)((v & 0x7c00u) == 0x7c00u); "
                "(%s)(((uint64_t)(int64_t)(int32_t)w_ & ~odd_) | (%s)); })"
                % (real, ops.C_TYPE[dst], odd_answer[dst]))
    return "(%s)(%s)" % (ops.C_TYPE[dst], real)


def _cast_attrs(src, dst):
    """Floats to unsigned integers: built without AVX-512 (NOTE [undefined
    conversions] in titer_loops.h)."""
    if ops.kind_of(src) in ("float", "complex") and ops.kind_of(dst) == "uint":
        return "TITER_NO_AVX512_CONVERT "
    return ""


def _cast_aligned(src, dst):
    """Casts that may start at the output's 64-byte boundary (NOTE [aligned
    stores] in titer_loops.h): not floats to integers, whose undefined
    conversions (NaN, inf, out of range) the vector body and the scalar
    head give differently -- which elements the head takes depends on the
    address, and NumPy's contiguous loop gives the vector body's values."""
    return int(not (ops.kind_of(src) in ("float", "complex")
                    and ops.kind_of(dst) in ("sint", "uint")))


def emit_casts():
    out = []
    chars = ops.TYPECHARS
    for s in chars:
        for d in chars:
            form = ""
            if d == "?" and s in _VBOOL_CASTS:      # NOTE [bools from 64-bit lanes]
                form = ("#ifdef TITER_HAVE_VBOOL\n    char *data_[2] = {dst, (char *)src};\n"
                        "    const int64_t strides_[2] = {dst_stride, src_stride};\n"
                        "    if (titer_vbool_nonzero_%s(data_, strides_, n)) return;\n#endif\n"
                        % s)
            out.append("%sstatic void titer_cast_%s_%s(const char *src, int64_t src_stride,"
                       " char *dst, int64_t dst_stride, int64_t n) {\n%s"
                       "    TITER_CAST_LOOP(%s, %s, %s, %d)\n}"
                       % (_cast_attrs(s, d), _cname(s), _cname(d), form, ops.C_TYPE[s],
                          ops.C_TYPE[d], cast_expr(s, d), _cast_aligned(s, d)))
    rows = []
    for s in chars:
        rows.append("    {" + ", ".join("titer_cast_%s_%s" % (_cname(s), _cname(d))
                                        for d in chars) + "}")
    out.append("static const titer_cast_fn titer_cast_table[%d][%d] = {\n%s\n};"
               % (len(chars), len(chars), ",\n".join(rows)))
    # the casts as 1-d loops (out, in): a copy whose only conversion is its
    # source's runs one, writing the destination directly (copy_into)
    for s in chars:
        for d in chars:
            # (the same target as the cast: inlined, it takes the caller's)
            out.append("%sstatic void titer_castloop_%s_%s(char **data, const int64_t *strides, "
                       "int64_t n) {\n    titer_cast_%s_%s(data[1], strides[1], data[0], "
                       "strides[0], n);\n}" % (_cast_attrs(s, d), _cname(s), _cname(d),
                                               _cname(s), _cname(d)))
    rows = ["    {" + ", ".join("titer_castloop_%s_%s" % (_cname(s), _cname(d)) for d in chars)
            + "}" for s in chars]
    out.append("static const titer_loop1d titer_cast_loop_table[%d][%d] = {\n%s\n};"
               % (len(chars), len(chars), ",\n".join(rows)))
    return out


def emit_copies():
    """Same-dtype copy loops (the identity kernel), indexed by dtype code."""
    out = []
    for c in ops.TYPECHARS:
        t = ops.C_TYPE[c]
        out.append("static inline %s titer_k_copy_%s(%s v) { return v; }\n"
                   "static void titer_copy_%s(char **data, const int64_t *strides, int64_t n) {\n"
                   "    TITER_UNARY_LOOP(%s, %s, titer_k_copy_%s)\n}"
                   % (t, _cname(c), t, _cname(c), t, t, _cname(c)))
    for value, name in ((1, "true"), (0, "false")):
        # comparisons whose answer is fixed (an int beyond the dtype's range)
        out.append("static void titer_fill_%s(char **data, const int64_t *strides, int64_t n) {\n"
                   "    for (int64_t i = 0; i < n; i++) *(npy_bool_t *)(data[0] + i * strides[0]) = %d;\n}"
                   % (name, value))
        out.append("static void titer_fill_%s_masked(char **data, const int64_t *strides, "
                   "int64_t n) {\n    titer_masked_run(titer_fill_%s, 3, data, strides, n);\n}"
                   % (name, name))
    out.append("static const titer_loop1d titer_copy_table[%d] = {%s};"
               % (len(ops.TYPECHARS),
                  ", ".join("titer_copy_%s" % _cname(c) for c in ops.TYPECHARS)))
    return out


def _cname(char):
    return "B1" if char == "?" else char


def generate():
    parts = ["/* Generated by titer/_codegen.py from titer/_ops.py: do not edit. */",
             "#ifndef TITER_GENERATED_H", "#define TITER_GENERATED_H",
             '#include "titer_loops.h"', vbool_forms(), ""]
    entries = []
    masked = []
    for op in ops.OPS:
        # a float16 loop that runs its float32 twin's comes after the twin
        for sig in sorted(op.types, key=lambda sig: float_fast_twin(op, sig) is not None):
            # a kernel is inlined only into loops built with the same options
            # (the CUDA build reuses emit_kernel without them)
            parts.append(no_trapping_math(op, sig) + emit_kernel(op, sig))
            parts.append(emit_loop(op, sig))
            prelude = emit_prelude(op, sig)
            if prelude:
                parts.append(prelude)
            parts.append("static void %s(char **data, const int64_t *strides, int64_t n) {\n"
                         "    titer_masked_run(%s, %d, data, strides, n);\n}"
                         % (masked_loop_name(op, sig), loop_name(op, sig), op.nin + op.nout))
            masked.append("    " + masked_loop_name(op, sig))
            # "\\?" keeps "??-" from reading as a trigraph.
            entries.append('    {"%s", "%s", %s}'
                           % (op.name, sig.replace("?", "\\?"), loop_name(op, sig)))
    parts.append("typedef struct { const char *op; const char *sig; titer_loop1d fn; }"
                 " titer_loop_entry;")
    parts.append("static const titer_loop_entry titer_loop_table[] = {\n%s\n};"
                 % ",\n".join(entries))
    parts.append("static const int titer_loop_table_len = %d;" % len(entries))
    own = ['    {"%s", "%s", %s}' % (op.name, sig, own_loop_name(op, sig))
           for op in ops.OPS for sig in sorted(op.fast or {})]
    parts.append("/* titer's own vectorized paths, whichever loop the table above\n"
                 " * runs (tests hold them to their bounds: _core._own_fast_path) */")
    parts.append("static const titer_loop_entry titer_own_loop_table[] = {\n%s\n};"
                 % ",\n".join(own))
    parts.append("static const int titer_own_loop_table_len = %d;" % len(own))
    parts.append("/* the same loops under a where= mask, in the same order */")
    parts.append("static const titer_loop1d titer_masked_loop_table[] = {\n%s\n};"
                 % ",\n".join(masked))
    parts.extend(emit_casts())
    parts.extend(emit_copies())
    parts.append("#endif")
    return "\n\n".join(parts) + "\n"


def write_if_changed(target, text):
    """Write a generated file only when its text changed, so builds that
    track its timestamp do not recompile for nothing."""
    if os.path.exists(target):
        with open(target) as f:
            if f.read() == text:
                return target
    with open(target, "w") as f:
        f.write(text)
    return target


def write(target=TARGET):
    return write_if_changed(target, generate())


if __name__ == "__main__":
    print(write())

"""The op table: the one declarative source of truth for titer's operations.

Each entry names a NumPy ufunc, its arity, the loop signatures titer compiles
(NumPy type characters, ``"ff->f"``) and the scalar expression per dtype kind.
``_codegen.py`` turns this table into the C loops; the tests and benchmarks
iterate over it too.  Expressions are C, in terms of the inputs ``a``, ``b``
and the types ``T`` (the input type) and ``U`` (its unsigned twin, used so
that integer wrap-around is defined behaviour, as NumPy's results are).
"""
from collections import namedtuple

# Canonical type characters, one per (kind, itemsize) on LP64 platforms.
# Order is titer's dtype code (0..13); the C side uses the same numbering.
TYPECHARS = "?bBhHiIlLefdFD"
BOOL, INTS, HALF, FLOATS, COMPLEX = "?", "bBhHiIlL", "e", "fd", "FD"
REALS = INTS + HALF + FLOATS
NUMERIC = BOOL + INTS + HALF + FLOATS + COMPLEX

C_TYPE = {
    "?": "npy_bool_t", "b": "int8_t", "B": "uint8_t", "h": "int16_t",
    "H": "uint16_t", "i": "int32_t", "I": "uint32_t", "l": "int64_t",
    "L": "uint64_t", "e": "titer_half", "f": "float", "d": "double",
    "F": "titer_cfloat", "D": "titer_cdouble",
}
UNSIGNED_TWIN = {"b": "uint8_t", "B": "uint8_t", "h": "uint16_t",
                 "H": "uint16_t", "i": "uint32_t", "I": "uint32_t",
                 "l": "uint64_t", "L": "uint64_t"}
# The real type a complex type is made of (for "F->f" loops like absolute).
COMPLEX_PART = {"F": "f", "D": "d"}


def kind_of(char):
    """The expression key that covers a type character, most general last."""
    if char == "?":
        return "bool"
    if char in "bhil":
        return "sint"
    if char in "BHIL":
        return "uint"
    if char == "e":
        return "half"
    if char in FLOATS:
        return "float"
    return "complex"


Op = namedtuple("Op", "name nin nout types expr aliases doc identity approx fast veclib",
                defaults=(None, False, None, None))
# identity: the value a reduction over an empty axis starts from (NumPy's
# ufunc.identity), or None where the op has none (maximum, minimum).
# fast: {signature: (in-range test, fast function)} for contiguous loops
# with a vectorizable path (titer_scalar.h); libm redoes out-of-range inputs.
# veclib: {signature: (libm function, safe input)} run through glibc's
# vector math library where the build has it (titer_veclib.h), before fast.
# approx: the op calls libm's transcendental functions, which are not
# correctly rounded: its float results are held to ULP bounds against NumPy
# (4 for float32, 2 for float64, 1 for float16) instead of bit equality.


def same(chars, nin=2):
    """Signatures where every operand has the same type: 'ff->f'."""
    return [c * nin + "->" + c for c in chars]


def to_bool(chars, nin=2):
    """Signatures with a boolean result: 'ff->?'."""
    return [c * nin + "->?" for c in chars]


def complex_to_real(chars):
    return [c + "->" + COMPLEX_PART[c] for c in chars]


FLOATING = HALF + FLOATS           # "efd"
INEXACT = FLOATING + COMPLEX       # "efdFD"


# Expression lookup: an op's ``expr`` maps a type character or a kind
# (``bool``, ``sint``, ``uint``, ``int`` = sint+uint, ``half``, ``float``,
# ``real`` = everything but complex, ``complex``) to a C expression.  Half
# without its own entry is computed in float and rounded, as NumPy does.
OPS = [
    Op("add", 2, 1, same(NUMERIC), {
        "bool": "a || b", "int": "(T)((U)a + (U)b)", "float": "a + b",
        "complex": "titer_cmake(a.re + b.re, a.im + b.im)"}, (), "a + b", 0),
    Op("subtract", 2, 1, same(INTS + HALF + FLOATS + COMPLEX), {
        "int": "(T)((U)a - (U)b)", "float": "a - b",
        "complex": "titer_cmake(a.re - b.re, a.im - b.im)"}, (), "a - b"),
    Op("multiply", 2, 1, same(NUMERIC), {
        "bool": "a && b", "int": "(T)((U)a * (U)b)", "float": "a * b",
        "complex": "titer_cmul(a, b)"}, (), "a * b", 1),
    Op("divide", 2, 1, same(HALF + FLOATS + COMPLEX), {
        "float": "a / b", "complex": "titer_cdiv(a, b)"},
       ("true_divide",), "a / b"),
    Op("negative", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "int": "(T)(-(U)a)", "half": "(titer_half)(a ^ 0x8000u)",
        "float": "-a", "complex": "titer_cmake(-a.re, -a.im)"}, (), "-a"),
    Op("positive", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "real": "a", "half": "a", "complex": "a"}, (), "+a"),
    Op("absolute", 1, 1, same(BOOL + INTS + HALF + FLOATS, 1)
       + complex_to_real(COMPLEX), {
        "bool": "a", "uint": "a", "sint": "(T)(a < 0 ? -(U)a : (U)a)",
        "half": "(titer_half)(a & 0x7fffu)", "float": "titer_fabs(a)",
        "complex": "titer_cabs(a)"}, ("abs",), "|a|"),
    Op("square", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "int": "(T)((U)a * (U)a)", "float": "a * a",
        "complex": "titer_cmul(a, a)"}, (), "a * a"),
    Op("maximum", 2, 1, same(NUMERIC), {
        "bool": "a || b", "int": "(a >= b ? a : b)",
        "half": "((titer_half_ge(a, b) | titer_half_isnan(a)) ? a : b)",
        "float": "((a >= b || a != a) ? a : b)",
        "complex": "((titer_cge(a, b) || a.re != a.re || a.im != a.im)"
                   " ? a : b)"}, (), "max(a, b), NaN propagates"),
    Op("minimum", 2, 1, same(NUMERIC), {
        "bool": "a && b", "int": "(a <= b ? a : b)",
        "half": "((titer_half_le(a, b) | titer_half_isnan(a)) ? a : b)",
        "float": "((a <= b || a != a) ? a : b)",
        "complex": "((titer_cle(a, b) || a.re != a.re || a.im != a.im)"
                   " ? a : b)"}, (), "min(a, b), NaN propagates"),
]

# Comparisons share a shape: a C operator on reals, a helper on complex, and
# the mixed int64/uint64 loops NumPy has so that they compare exactly.
_COMPARISONS = [
    ("equal", "==", "titer_ceq", "a == b"),
    ("not_equal", "!=", "!titer_ceq", "a != b"),
    ("less", "<", "titer_clt", "a < b"),
    ("less_equal", "<=", "titer_cle", "a <= b"),
    ("greater", ">", "titer_cgt", "a > b"),
    ("greater_equal", ">=", "titer_cge", "a >= b"),
]
for _name, _cop, _cfun, _doc in _COMPARISONS:
    OPS.append(Op(_name, 2, 1, to_bool(NUMERIC) + ["lL->?", "Ll->?"], {
        "real": "(a %s b)" % _cop,
        "complex": "%s(a, b)" % _cfun,
        "lL": "titer_cmp_sl_%s(a, b)" % _name,
        "Ll": "titer_cmp_ls_%s(a, b)" % _name}, (), _doc))

# ---- the rest of NumPy's elementwise catalog ----------------------------------
# Helpers used here live in titer_scalar.h.  ``titer_m1(fn, x)`` /
# ``titer_m2(fn, x, y)`` call libm's float or double variant of ``fn``;
# ``titer_cfn(fn, z)`` / ``titer_cfn2(fn, z, w)`` the complex one.


# op -> {signature: C function suffix} of the vectorized fast paths in
# titer_scalar.h (titer_fast_<suffix>_ok, titer_fast_<suffix>)
_FAST_PATHS = {"exp": {"f->f": "expf", "d->d": "exp"}, "exp2": {"f->f": "exp2f"},
               "log": {"f->f": "logf", "d->d": "log"}, "log10": {"f->f": "log10f"},
               "log2": {"f->f": "log2f"},
               "tanh": {"f->f": "tanhf"},
               "sin": {"f->f": "sinf", "d->d": "sin"}, "cos": {"f->f": "cosf", "d->d": "cos"}}
# float32 through the double paths (formulas in double, rounded once)
_FAST_PATHS.update({name: {"f->f": name + "f"} for name in (
    "expm1", "log1p", "sinh", "cosh", "tan", "cbrt", "arcsinh", "arccosh", "arctanh",
    "arctan", "arcsin", "arccos")})
# (not logaddexp/logaddexp2: NumPy's float32 formula is off by thousands of
# ULP where the result nears zero, and a double one would not give its answers)
_FAST_PATHS.update({name: {"ff->f": name + "f"} for name in ("hypot", "arctan2", "power")})
_FAST_PATHS["hypot"]["dd->d"] = "hypot"
_FAST_PATHS["expm1"]["d->d"] = "expm1"
_FAST_PATHS["exp2"]["d->d"] = "exp2"
_FAST_PATHS["tanh"]["d->d"] = "tanh"
_FAST_PATHS["arcsin"]["d->d"] = "arcsin"
_FAST_PATHS["arctan2"]["dd->d"] = "arctan2"
_FAST_PATHS["tan"]["d->d"] = "tan"
# exact: NumPy's bits (fmod by a quotient in double, then npy_divmodf's steps)
_FAST_PATHS.update({name: {"ff->f": name + "f", "dd->d": name} for name in (
    "fmod", "remainder", "floor_divide")})
_FAST_PATHS["divmod"] = {"ff->ff": "divmodf", "dd->dd": "divmod"}
# integers: exact; the zeros of reciprocal (NumPy's flags) and the negative
# or large exponents of power (its error) go to the kernel
_FAST_PATHS["reciprocal"] = {c + "->" + c: "reciprocal_" + c for c in INTS}
_FAST_PATHS["power"].update({c + c + "->" + c: "power_" + c for c in INTS})
# the integer division family: one float division (titer_fast_floor_divide_<c>
# in titer_scalar.h); zero divisors, MIN / -1 and 64-bit magnitudes above
# 2^52 go to the kernels
_FAST_PATHS["floor_divide"].update({c + c + "->" + c: "floor_divide_" + c for c in INTS})
_FAST_PATHS["remainder"].update({c + c + "->" + c: "remainder_" + c for c in INTS})
_FAST_PATHS["fmod"].update({c + c + "->" + c: "fmod_" + c for c in INTS})
_FAST_PATHS["divmod"].update({c + c + "->" + c * 2: "divmod_" + c for c in INTS})
# (8-bit gcd and lcm vectorize whole: titer_gcd_u8)
_FAST_PATHS.update({name: {c + c + "->" + c: name + "_" + c for c in INTS[2:]}
                    for name in ("gcd", "lcm")})


# op -> its libm function, for the loops through glibc's vector math library
# (titer_veclib.h: NOTE [vector libm]); float32 uses the name + "f".  Left
# out: float32 exp and float64 sin/cos, whose own paths above are as fast;
# hypot, whose own paths give NumPy's bits; the float32 functions whose
# vector variants are 4 ULP from the correctly rounded result at some level
# (log, tan; the others are within 3: tools/veclib_ulps.py checks every
# float32), where titer's own paths are within 1; and the float64 ones 3 ULP
# from it (arctan2 in glibc's own tables; exp, expm1, tan and arcsin measured
# by tests/test_veclib.py), over float64's bound of 2.  Float64 exp2, tanh
# and log run titer's own paths at AVX-512, where their 8-lane forms are
# faster (titer_vexp.h, titer_vlog.h, _codegen._VECTOR_FORMS; tanh within
# 0.61 ULP of the exact value where _ZGVeN8v_tanh reaches 1.18, log within
# 0.53), the vector libm's below.
# Float32 power runs titer's own path too, within 1 ULP: at AVX-512 by
# tables in registers
# (titer_vpowf.h, _codegen._VECTOR_FORMS2; 1.10 ns an element in its loop,
# one thread, 2^20 elements, against 1.48 for _ZGVeN16vv_powf), below it
# titer_fast_powerf, 1.25x as fast as the vector libm's (1.18 against
# 1.48).  Float64 power at AVX-512 runs titer's 8-lane form instead of the
# vector libm's (titer_vpow.h, _codegen._VECTOR_FORMS2_D8: within 0.56 ULP
# on 1.2e7 random pairs, 1.85 ns an element in cache against 3.0 for
# _ZGVeN8vv_pow, one thread).  Float32 tanh, cosh and expm1 too (titer_fast_tanhf,
# titer_fast_coshf, titer_fast_expm1f: one float exp each, and one division
# for tanh and cosh), within 1 ULP where libmvec's are 3 from the rounded
# result, and as fast or faster at both levels (benchmarks/RESULTS.md).
# At AVX-512 float32 log1p, arcsinh, arccosh and arctanh run titer's own
# 16-lane forms instead (titer_vlog1pf.h, _codegen._VECTOR_FORMS_F16), within
# 1 and 2 ULP: 1.2-1.5x NumPy on one thread where libmvec's were 0.65-0.97x;
# float32 tanh and arctan too, by piecewise polynomials (titer_voddf.h),
# within 1 ULP: in cache 0.24 against titer_fast_tanhf's 0.40 ns an element,
# 0.33 against _ZGVeN16v_atanf's 0.585; float32 exp2 (titer_vexp2f.h: 2^r
# by one polynomial, 0.15-0.20 against _ZGVeN16v_exp2f's 0.21-0.23) and arctan2
# (titer_voddf.h: no division, one polynomial over [0, 1], 1.5 ULP from
# the exact value where libmvec's reaches 3.4) too.  Float32 cbrt runs titer's
# own path at every level (titer_vcbrtf.h: in float, one Halley step, within
# 1 ULP; its loops 0.30 against 0.37 ns an element for _ZGVeN16v_cbrtf's at
# AVX-512, 0.42 against 1.16 for _ZGVdN8v_cbrtf's at AVX2, in cache on a Zen 4).
# At AVX-512 float32 log2 and log10 run titer's own 16-lane forms too
# (titer_vlog2f.h: a 32-row table in registers, within 1 ULP where libmvec's
# reach 3; 0.22-0.24 ns an element in their loop, libmvec's 0.21-0.27).
_VECTOR_LIBM = {"exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
                "log10": "log10", "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan",
                "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh",
                "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
                "arctanh": "atanh", "cbrt": "cbrt", "arctan2": "atan2", "power": "pow"}
_VECTOR_LIBM_SKIP = {("exp", "f"), ("log", "f"), ("tan", "f"), ("power", "f"), ("cbrt", "f"),
                     ("tanh", "f"), ("cosh", "f"), ("expm1", "f"),
                     ("sin", "d"), ("cos", "d"), ("arctan2", "d"),
                     ("exp", "d"), ("expm1", "d"), ("tan", "d"), ("arcsin", "d")}
# the input a masked-off lane computes on (0.5; arccosh needs >= 1)
_VECTOR_LIBM_SAFE = {"acosh": "TWO"}


def _veclib(name, nin):
    """An op's vector-libm loops: {signature: (libm function, safe input)}."""
    base = _VECTOR_LIBM.get(name)
    if base is None:
        return None
    safe = _VECTOR_LIBM_SAFE.get(base, "HALF")
    return {c * nin + "->" + c: (base + ("f" if c == "f" else ""),
                                 "TITER_VL_%s_%s" % (safe, c.upper()))
            for c in "fd" if (name, c) not in _VECTOR_LIBM_SKIP}


def _fast(name):
    """An op's fast paths: {signature: (range test, fast function)}, or None."""
    return {sig: ("titer_fast_%s_ok" % fn, "titer_fast_%s" % fn)
            for sig, fn in _FAST_PATHS.get(name, {}).items()} or None


def _unary_math(name, cname=None, chars=INEXACT, aliases=(), approx=True, doc=None,
                real=None):
    """`real`: the real function the kernels call, where not libm's `cname`."""
    cname = cname or name
    expr = {"float": "titer_m1(%s, a)" % (real or cname)}
    if any(c in COMPLEX for c in chars):
        expr["complex"] = "titer_cfn(%s, a)" % cname
    return Op(name, 1, 1, same(chars, 1), expr, aliases, doc or "%s(a)" % cname,
              None, approx, _fast(name), _veclib(name, 1))


_ROUNDING = {"int": "a", "bool": "a"}
OPS += [
    # -- transcendental, libm (complex: C99 <complex.h> or NumPy's formulas) --
    _unary_math("arccos", "acos", aliases=("acos",)),
    _unary_math("arccosh", "acosh", aliases=("acosh",)),
    _unary_math("arcsin", "asin", aliases=("asin",)),
    _unary_math("arcsinh", "asinh", aliases=("asinh",)),
    _unary_math("arctan", "atan", aliases=("atan",)),
    _unary_math("arctanh", "atanh", aliases=("atanh",)),
    _unary_math("cos"), _unary_math("cosh"), _unary_math("sin"), _unary_math("sinh"),
    _unary_math("tan"), _unary_math("tanh"),
    _unary_math("exp"), _unary_math("exp2"), _unary_math("expm1"),
    # the log family's own error path (titer_scalar.h NOTE [libm error paths])
    *[_unary_math(name, real="titer_domain_" + name) for name in ("log", "log2", "log10", "log1p")],
    _unary_math("cbrt", chars=FLOATING),
    Op("sqrt", 1, 1, same(INEXACT, 1), {"float": "titer_m1(sqrt, a)",
                                         "complex": "titer_cfn(sqrt, a)"},
       (), "sqrt(a)", None, False),
    Op("arctan2", 2, 1, same(FLOATING), {"float": "titer_m2(atan2, a, b)"}, ("atan2",),
       "atan2(a, b)", None, True, _fast("arctan2"), _veclib("arctan2", 2)),
    Op("hypot", 2, 1, same(FLOATING), {"float": "titer_m2(hypot, a, b)"}, (),
       "hypot(a, b)", 0, True, _fast("hypot")),
    Op("logaddexp", 2, 1, same(FLOATING), {"float": "titer_logaddexp(a, b)"}, (),
       "log(exp(a) + exp(b))", None, True),
    Op("logaddexp2", 2, 1, same(FLOATING), {"float": "titer_logaddexp2(a, b)"}, (),
       "log2(2**a + 2**b)", None, True),
    Op("power", 2, 1, same(INTS + INEXACT), {
        "int": "titer_ipow(a, b)", "float": "titer_m2(pow, a, b)",
        "complex": "titer_cfn2(pow, a, b)"}, ("pow",), "a ** b", None, True,
       _fast("power"), _veclib("power", 2)),
    Op("float_power", 2, 1, same("dD"), {"float": "titer_m2(pow, a, b)",
                                         "complex": "titer_cfn2(pow, a, b)"},
       (), "a ** b in float64 / complex128", None, True),
    # -- exact float functions --
    Op("deg2rad", 1, 1, same(FLOATING, 1), {"float": "a * ((T)M_PI / (T)180)"},
       ("radians",), "a * pi / 180"),
    Op("rad2deg", 1, 1, same(FLOATING, 1), {"float": "a * ((T)180 / (T)M_PI)"},
       ("degrees",), "a * 180 / pi"),
    Op("fabs", 1, 1, same(FLOATING, 1), {"half": "(titer_half)(a & 0x7fffu)",
                                          "float": "titer_fabs(a)"}, (), "|a|"),
    Op("floor", 1, 1, same(BOOL + INTS + FLOATING, 1),
       dict(_ROUNDING, float="titer_m1(floor, a)"), (), "floor(a)"),
    Op("ceil", 1, 1, same(BOOL + INTS + FLOATING, 1),
       dict(_ROUNDING, float="titer_m1(ceil, a)"), (), "ceil(a)"),
    Op("trunc", 1, 1, same(BOOL + INTS + FLOATING, 1),
       dict(_ROUNDING, float="titer_m1(trunc, a)"), (), "trunc(a)"),
    Op("rint", 1, 1, same(INEXACT, 1), {
        "float": "titer_m1(rint, a)",
        "complex": "titer_cmake(titer_m1(rint, a.re), titer_m1(rint, a.im))"},
       (), "round half to even"),
    Op("copysign", 2, 1, same(FLOATING), {
        "half": "(titer_half)((a & 0x7fffu) | (b & 0x8000u))",
        "float": "titer_m2(copysign, a, b)"}, (), "|a| with the sign of b"),
    Op("nextafter", 2, 1, same(FLOATING), {"half": "titer_half_nextafter(a, b)",
                                           "float": "titer_nextafter(a, b)"},
       (), "next float after a towards b"),
    Op("spacing", 1, 1, same(FLOATING, 1), {"half": "titer_half_spacing(a)",
                                            "float": "titer_spacing(a)"},
       (), "distance to the next float away from zero"),
    Op("signbit", 1, 1, to_bool(FLOATING, 1), {"half": "(a & 0x8000u) != 0",
                                               "float": "titer_signbit(a)"}, (), "a < 0 or -0"),
    Op("heaviside", 2, 1, same(FLOATING), {
        "float": "(a != a ? (T)NAN : a == 0 ? b : a < 0 ? (T)0 : (T)1)"},
       (), "0 below 0, b at 0, 1 above"),
    Op("reciprocal", 1, 1, same(INTS + INEXACT, 1), {
        "int": "titer_ireciprocal(a)", "float": "(T)1 / a",
        "complex": "titer_cfn(reciprocal, a)"}, (), "1 / a", None, False,
       _fast("reciprocal")),
    Op("sign", 1, 1, same(INTS + INEXACT, 1), {
        "sint": "(T)((a > 0) - (a < 0))", "uint": "(T)(a > 0)",
        "float": "(a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a)",
        "half": "titer_half_sign(a)", "complex": "titer_cfn(sign, a)"},
       (), "-1, 0 or 1 (complex: a / |a|)"),
    Op("conjugate", 1, 1, same(INTS + INEXACT, 1), {
        "real": "a", "half": "a", "complex": "titer_cmake(a.re, -a.im)"}, ("conj",), "conj(a)"),
    Op("fmax", 2, 1, same(NUMERIC), {
        "bool": "a || b", "int": "(a >= b ? a : b)",
        "half": "((titer_half_ge(a, b) | titer_half_isnan(b)) ? a : b)",
        "float": "((a >= b || b != b) ? a : b)",
        "complex": "((titer_cge(a, b) || b.re != b.re || b.im != b.im) ? a : b)"},
       (), "max(a, b), NaN ignored"),
    Op("fmin", 2, 1, same(NUMERIC), {
        "bool": "a && b", "int": "(a <= b ? a : b)",
        "half": "((titer_half_le(a, b) | titer_half_isnan(b)) ? a : b)",
        "float": "((a <= b || b != b) ? a : b)",
        "complex": "((titer_cle(a, b) || b.re != b.re || b.im != b.im) ? a : b)"},
       (), "min(a, b), NaN ignored"),
    # -- division family: NumPy's integer rules, never a C trap --
    Op("floor_divide", 2, 1, same(INTS + FLOATING), {
        "int": "titer_ifloordiv(a, b)", "float": "titer_floordiv(a, b)"},
       (), "floor(a / b)", None, False, _fast("floor_divide")),
    Op("remainder", 2, 1, same(INTS + FLOATING), {
        "int": "titer_iremainder(a, b)", "float": "titer_remainder(a, b)"},
       ("mod",), "a - floor(a / b) * b", None, False, _fast("remainder")),
    Op("fmod", 2, 1, same(INTS + FLOATING), {
        "int": "titer_ifmod(a, b)", "float": "titer_m2(fmod, a, b)"},
       (), "C fmod: sign of a", None, False, _fast("fmod")),
    Op("divmod", 2, 2, [c * 2 + "->" + c * 2 for c in INTS + FLOATING], {
        "int": "titer_idivmod(a, b, o1)", "float": "titer_divmod(a, b, o1)"},
       (), "(a // b, a % b)", None, False, _fast("divmod")),
    Op("modf", 1, 2, [c + "->" + c * 2 for c in FLOATING], {
        "float": "titer_modf(a, o1)"}, (), "(fractional part, integral part)"),
    Op("frexp", 1, 2, [c + "->" + c + "i" for c in FLOATING], {
        "half": "titer_f2h(titer_frexp_libm(titer_h2f(a), o1))", "float": "titer_frexp(a, o1)"},
       (),
       "(mantissa, exponent)"),
    Op("ldexp", 2, 1, [c + e + "->" + c for c in FLOATING for e in "il"], {
        "float": "titer_ldexp(a, titer_clamp_int(b))"}, (), "a * 2**b"),
    # -- integers and bits --
    Op("gcd", 2, 1, same(INTS), {"int": "titer_igcd(a, b)"}, (), "greatest common divisor", 0,
       False, _fast("gcd")),
    Op("lcm", 2, 1, same(INTS), {"int": "titer_ilcm(a, b)"}, (), "least common multiple",
       None, False, _fast("lcm")),
    Op("bitwise_and", 2, 1, same(BOOL + INTS), {"bool": "a & b", "int": "(T)(a & b)"},
       (), "a & b", -1),
    Op("bitwise_or", 2, 1, same(BOOL + INTS), {"bool": "a | b", "int": "(T)(a | b)"},
       (), "a | b", 0),
    Op("bitwise_xor", 2, 1, same(BOOL + INTS), {"bool": "a ^ b", "int": "(T)(a ^ b)"},
       (), "a ^ b", 0),
    Op("invert", 1, 1, same(BOOL + INTS, 1), {"bool": "!a", "int": "(T)~a"},
       ("bitwise_not", "bitwise_invert"), "~a"),
    Op("left_shift", 2, 1, same(INTS), {"int": "titer_lshift(a, b)"},
       ("bitwise_left_shift",), "a << b (0 past the width)"),
    Op("right_shift", 2, 1, same(INTS), {"int": "titer_rshift(a, b)"},
       ("bitwise_right_shift",), "a >> b (sign fill past the width)"),
    Op("bitwise_count", 1, 1, [c + "->B" for c in INTS], {
        "int": "titer_popcount(a)"}, (), "1-bits of |a|"),
    # -- predicates --
    Op("isnan", 1, 1, to_bool(NUMERIC, 1), {
        "bool": "0", "int": "0", "half": "titer_half_isnan(a)", "float": "a != a",
        "complex": "(a.re != a.re || a.im != a.im)"}, (), "a is NaN"),
    Op("isinf", 1, 1, to_bool(NUMERIC, 1), {
        "bool": "0", "int": "0", "half": "(a & 0x7fffu) == 0x7c00u", "float": "isinf(a) != 0",
        "complex": "(isinf(a.re) || isinf(a.im))"}, (), "a is +-inf"),
    Op("isfinite", 1, 1, to_bool(NUMERIC, 1), {
        "bool": "1", "int": "1", "half": "(a & 0x7c00u) != 0x7c00u",
        "float": "isfinite(a) != 0",
        "complex": "(isfinite(a.re) && isfinite(a.im))"}, (), "a is finite"),
    Op("logical_not", 1, 1, to_bool(NUMERIC, 1), {
        "real": "!a", "half": "(a & 0x7fffu) == 0",
        "complex": "!(a.re != 0 || a.im != 0)"}, (), "not a"),
]
for _name, _cop, _identity in (("logical_and", "&&", True), ("logical_or", "||", False),
                               ("logical_xor", "!=", False)):
    OPS.append(Op(_name, 2, 1, to_bool(NUMERIC), {
        "real": "((a != 0) %s (b != 0))" % _cop,
        "half": "(((a & 0x7fffu) != 0) %s ((b & 0x7fffu) != 0))" % _cop,
        "complex": "((a.re != 0 || a.im != 0) %s (b.re != 0 || b.im != 0))" % _cop},
        (), "a %s b as truth values" % _cop, _identity))

# Ternary: np.where (not a ufunc; dtype by np.result_type of x and y) and
# np.clip (NumPy's clip ufunc: NaN in a propagates, bounds by max then min).
OPS += [
    Op("where", 3, 1, ["?" + c * 2 + "->" + c for c in NUMERIC], {
        "bool": "titer_select(a, b, c)", "?FF": "(a ? b : c)", "?DD": "(a ? b : c)"},
       (), "b where a else c"),
    Op("clip", 3, 1, [c * 3 + "->" + c for c in NUMERIC], {
        "bool": "titer_clip_int(a, b, c)", "int": "titer_clip_int(a, b, c)",
        "half": "titer_clip_half(a, b, c)", "float": "titer_clip_float(a, b, c)",
        "complex": "titer_clip_complex(a, b, c)"}, (), "min(max(a, b), c)"),
]


OPS_BY_NAME = {op.name: op for op in OPS}

# Binary ops whose reduction NumPy may run in any order and over several axes
# at once (a ufunc with an identity, or declared reorderable without one:
# NumPy's PyUFunc_ReorderableNone).  The rest reduce along one axis, in order.
REORDERABLE = frozenset([
    "add", "multiply", "maximum", "minimum", "hypot", "logaddexp", "logaddexp2", "fmax",
    "fmin", "gcd", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
    "logical_xor"])
# Reductions whose fold absorbs repeats of its start: a where= reduction
# of these may fill the masked-out slots with initial=.
ABSORBING = frozenset(["maximum", "minimum", "fmax", "fmin"])
ALIASES = {alias: op.name for op in OPS for alias in op.aliases}

# NOTE [quiet compares]: the ops whose NumPy loops compare quietly, by the
# type characters that do: a NaN operand is no error for them, so they never
# report 'invalid'.  C's relational operators are signaling compares, and
# GCC 12 vectorizes them (even isless and friends) to predicates that raise
# invalid on a quiet NaN; the loops of these signatures drop the invalid
# flag they raise themselves (titer_loops.h TITER_QUIET_INVALID_BEGIN / _END), so
# elementwise calls, evaluate programs and reductions report what NumPy
# does.  Complex less & co. are not here: NumPy's complex compares signal.
# A signalling NaN makes even C's quiet compares (!=) raise invalid, where
# NumPy's compare, logical and predicate loops clear the flags: isnan,
# equal, not_equal, logical_and and logical_or drop theirs too.
QUIET_INVALID = dict(
    {name: "efd" for name in ("less", "less_equal", "greater", "greater_equal", "heaviside",
                              "sign")},
    **{name: "efdFD" for name in ("maximum", "minimum", "fmax", "fmin", "clip", "isinf",
                                  "isfinite", "isnan")},
    **{name: "efd" for name in ("equal", "not_equal")},
    **{name: "fd" for name in ("logical_and", "logical_or")})


def quiet_invalid(op, sig):
    """Whether the loop of `sig` must drop the invalid flag it raises."""
    return sig[0] in QUIET_INVALID.get(op.name, "")


def canonical_name(name):
    """The op-table name for a NumPy name or alias, or None."""
    if name in OPS_BY_NAME:
        return name
    return ALIASES.get(name)


def parse_signature(sig):
    """'ff->?' -> ('ff', '?')."""
    ins, outs = sig.split("->")
    return ins, outs


def lookup_expr(op, in_chars):
    """The C expression an op uses for the given input type characters."""
    char = in_chars[0]
    kind = kind_of(char)
    for key in (in_chars, char, kind,
                "int" if kind in ("sint", "uint") else None,
                "real" if kind != "complex" else None,
                "float" if kind == "half" else None):
        if key is not None and key in op.expr:
            return key, op.expr[key]
    raise KeyError("op %s has no expression for %r" % (op.name, in_chars))

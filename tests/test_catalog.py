"""The full ufunc catalog beyond what the generic op-table tests cover:
the ufunc keywords (where=, order=, out tuples), NumPy's exact integer
rules, FP-error reporting for every op, NaN at loop tails and chunk
boundaries, the ternary ops, and the GPU hand-off."""
import itertools
import sys
import types
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import titer
from titer import _codegen, _core, _frontend, _ops
from oracle import DTYPES, ULP_BOUNDS, assert_same, special_values, value_grid
from test_elementwise import assert_like_numpy, numpy_call, same_as_numpy, titer_call

CATALOG = """absolute add arccos arccosh arcsin arcsinh arctan arctan2 arctanh bitwise_and
bitwise_count bitwise_or bitwise_xor cbrt ceil conjugate copysign cos cosh deg2rad degrees
divide divmod equal exp exp2 expm1 fabs float_power floor floor_divide fmax fmin fmod frexp gcd
greater greater_equal heaviside hypot invert isfinite isinf isnan lcm ldexp left_shift less
less_equal log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or
logical_xor maximum minimum modf multiply negative nextafter not_equal positive power rad2deg
radians reciprocal remainder right_shift rint sign signbit sin sinh spacing sqrt square subtract
tan tanh trunc""".split()
ALIASES = {"abs": "absolute", "mod": "remainder", "true_divide": "divide", "conj": "conjugate",
           "bitwise_not": "invert", "bitwise_invert": "invert",
           "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
           "acos": "arccos", "asin": "arcsin", "atan": "arctan", "atan2": "arctan2",
           "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh", "pow": "power"}


def test_every_catalog_name_and_alias_is_supported():
    listed = titer.ops()
    assert len(CATALOG) == 85
    for name in CATALOG + list(ALIASES) + ["where", "clip"]:
        assert name in listed, name
        assert listed[name], name
    for alias, target in ALIASES.items():
        assert listed[alias] == listed[target]
        assert _ops.canonical_name(alias) == _ops.canonical_name(target) or \
            listed[alias] == listed[target]


@pytest.mark.parametrize("bad", [np.array(["a"]), np.array([1], dtype=object),
                                 np.array(["2020-01-01"], dtype="datetime64[D]"),
                                 np.array([1], dtype="timedelta64[s]")], ids=str)
@pytest.mark.parametrize("name", ["sin", "floor_divide", "isnan", "clip"])
def test_unsupported_dtypes_are_type_errors(bad, name):
    op = _ops.OPS_BY_NAME[name]
    with pytest.raises(TypeError):
        titer.elementwise(name, None, *([bad] * op.nin))


# -- NumPy-exact integer rules -------------------------------------------------

INT_DTYPES = [np.dtype(c) for c in _ops.INTS]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "divmod", "gcd", "lcm",
                                  "left_shift", "right_shift", "power", "bitwise_count",
                                  "reciprocal", "sign", "absolute", "negative"])
def test_integer_edges_against_numpy(name, dtype):
    """Every pair of an integer type's edge values: zero divisors,
    INT_MIN // -1, shifts past the width and negative, gcd/lcm signs."""
    info = np.iinfo(dtype)
    edges = sorted({0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1}
                   | ({-1, -2, -7, -8} if dtype.kind == "i" else {8, 64, 63}))
    edges = np.array(edges, dtype=dtype)
    op = _ops.OPS_BY_NAME[name]
    if op.nin == 1:
        inputs = (edges,)
    else:
        a, b = np.meshgrid(edges, edges)
        if name == "power" and dtype.kind == "i":
            b = np.abs(b % 9).astype(dtype)           # negative exponents: see below
        inputs = (a, b)
    assert_like_numpy(name, inputs, "%s %s" % (name, dtype))
    # the FP flags too: divide by zero / overflow as NumPy reports them
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        titer.elementwise(name, None, *inputs)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        getattr(np, name)(*inputs)
    assert sorted({str(w.message) for w in ours}) == sorted({str(w.message) for w in theirs})


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_gcd_lcm_of_every_8bit_pair(name, dtype):
    """8-bit gcd runs a fixed count of Euclid's steps in float lanes
    (titer_gcd_u8): every pair, NumPy's answer, at three vector offsets."""
    v = np.arange(256, dtype=np.uint8).view(dtype)
    a, b = np.repeat(v, 256), np.tile(v, 256)
    for shift in (0, 1, 5):
        np.testing.assert_array_equal(titer.elementwise(name, None, a[shift:], b[shift:]),
                                      getattr(np, name)(a[shift:], b[shift:]))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_integer_reciprocal_in_vector_loops(dtype):
    """Integer reciprocal runs branch-free: NumPy's values (1, -1, 0, and
    x86's conversion of inf for 0) and its warnings (divide and invalid for
    a zero anywhere in a long array, nothing without one)."""
    for n, zero_at in ((1, 0), (100, 50), (100, 99), (37, 3), (1000, None)):
        x = np.arange(1, n + 1).astype(dtype)
        if dtype.kind == "i":
            x[::7] = -1
        if zero_at is not None:
            x[zero_at] = 0
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise("reciprocal", None, x), mode)
            theirs = _fp_outcome(lambda: np.reciprocal(x), mode)
            assert ours == theirs, (n, zero_at, mode, ours, theirs)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(titer.elementwise("reciprocal", None, x),
                                          np.reciprocal(x))


@pytest.mark.parametrize("name, quiet, loud", [
    ("exp", np.inf, 100.0), ("exp", np.nan, -200.0), ("log", np.inf, 0.0),
    ("log", np.nan, -1.0), ("tanh", np.inf, -np.inf), ("sin", -np.inf, np.inf)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_split_loop_blocks_out_of_range_keep_numpys_flags(name, quiet, loud, dtype):
    """NOTE [one-pass split loops]: a block with an element out of the fast
    path's range is computed once by the fast path, then redone; the flags
    of that first pass are dropped.  An out-of-range value NumPy computes
    quietly (`quiet`) raises nothing wherever it sits; one that raises
    (`loud`) raises NumPy's flag, kept past later redone blocks (tanh
    raises none: both are quiet); values, in place and out of place,
    NumPy's (within the op's ULP bound)."""
    n = 9000                                         # several 1024-element blocks
    x = np.linspace(0.5, 2.0, n).astype(dtype)
    for layout in ([(1500, quiet)], [(1024, loud), (5000, quiet), (8999, quiet)],
                   [(0, quiet), (3000, loud)]):
        y = x.copy()
        for at, value in layout:
            y[at] = value
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise(name, None, y), mode)
            theirs = _fp_outcome(lambda: getattr(np, name)(y), mode)
            assert ours == theirs, (layout, mode, ours, theirs)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(y)
            same_as_numpy(name, titer.elementwise(name, None, y), want, layout)
            inplace = y.copy()
            titer.elementwise(name, inplace, inplace)
        same_as_numpy(name, inplace, want, layout)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", INT_DTYPES[2:], ids=str)
def test_gcd_lcm_of_small_and_large_wide_integers(name, dtype):
    """16- to 64-bit gcd and lcm run the float Euclid where both magnitudes
    are below 256 and the kernel's elsewhere: every pair of -300..300 (both
    sides of 256, the signs), random pairs of the whole range with the
    minimum among them, and a scalar on either side; NumPy's answers."""
    info = np.iinfo(dtype)
    v = np.arange(max(info.min, -300), 301).astype(dtype)
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    with np.errstate(all="ignore"):
        minus12 = np.array([-12]).astype(dtype)[0]         # wraps where unsigned
        for x, y in ((a, b), (a[3:], b[3:]), (a, dtype.type(255)), (minus12, b)):
            np.testing.assert_array_equal(titer.elementwise(name, None, x, y),
                                          getattr(np, name)(x, y))
        rng = np.random.default_rng(11)
        x = rng.integers(info.min, info.max, 50000, dtype=dtype, endpoint=True)
        y = rng.integers(-255 if info.min else 0, 256, 50000).astype(dtype)
        x[::5] = rng.integers(0, 256, x[::5].size).astype(dtype)
        x[7] = info.min
        np.testing.assert_array_equal(titer.elementwise(name, None, x, y), getattr(np, name)(x, y))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_integer_reciprocal_fast_path_past_its_blocks(dtype):
    """Integer reciprocal's split loop (a nonzero a without the division,
    a zero through the kernel): NumPy's values and warnings with zeros in
    the second and last blocks, none at all, in place and offset."""
    n = 5000                                        # past TITER_SPLIT_BLOCK (1024)
    x = (np.arange(n) % 7 - 3).astype(dtype)        # -3..3, or their wraps
    x[x == 0] = 1
    for zeros in ((), (1500,), (1023, 1024, n - 1)):
        y = x.copy()
        y[list(zeros)] = 0
        for start in (0, 3):
            for mode in ("warn", "raise"):
                ours = _fp_outcome(lambda: titer.elementwise("reciprocal", None, y[start:]), mode)
                theirs = _fp_outcome(lambda: np.reciprocal(y[start:]), mode)
                assert ours == theirs, (zeros, start, mode)
            with np.errstate(all="ignore"):
                want = np.reciprocal(y[start:])
                np.testing.assert_array_equal(titer.elementwise("reciprocal", None, y[start:]),
                                              want)
                inplace = y[start:].copy()
                titer.elementwise("reciprocal", inplace, inplace)
            np.testing.assert_array_equal(inplace, want)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_integer_power_of_every_8bit_pair(dtype):
    """Integer power's fast path (six square-and-multiply steps on masks for
    exponents 0-63, the kernel for the rest): every 8-bit pair, NumPy's
    answers, at vector offsets, and with a scalar on either side."""
    v = np.arange(256, dtype=np.uint8).view(dtype)
    a, b = np.repeat(v, 256), np.tile(v, 256)
    if dtype == "int8":
        b = np.abs(b.astype(np.int16)).clip(0, 127).astype(dtype)    # no negative exponents
    for shift in (0, 1, 5):
        np.testing.assert_array_equal(titer.elementwise("power", None, a[shift:], b[shift:]),
                                      np.power(a[shift:], b[shift:]))
    for k in (0, 1, 7, 63, 64, 100):
        e = np.array(k, dtype)
        np.testing.assert_array_equal(titer.elementwise("power", None, a, e), np.power(a, e))
        np.testing.assert_array_equal(titer.elementwise("power", None, e, b), np.power(e, b))


@pytest.mark.parametrize("dtype", INT_DTYPES[2:], ids=str)
def test_integer_power_fast_path_wide(dtype):
    """Wider integers: random bases and exponents 0-69 (either side of the
    fast path's 64), NumPy's answers (wrapped modulo 2^bits), in place."""
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 20000, dtype=dtype, endpoint=True)
    a[::3] = rng.integers(-5, 6, a[::3].size).astype(dtype)
    b = rng.integers(0, 70, 20000).astype(dtype)
    want = np.power(a, b)
    np.testing.assert_array_equal(titer.elementwise("power", None, a, b), want)
    inplace = b.copy()
    titer.elementwise("power", inplace, a, inplace)
    np.testing.assert_array_equal(inplace, want)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_negative_integer_power_is_a_value_error_and_out_untouched(dtype):
    base = np.arange(-3, 5, dtype=dtype)
    exps = np.array([2, 1, 0, 3, -1, 2, 1, 0], dtype=dtype)
    out = np.zeros_like(base)
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(base, exps)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed."):
        titer.elementwise("power", out, base, exps)
    assert not out.any()
    with pytest.raises(ValueError):
        titer.elementwise("power", None, base, -1)
    # the error does not leak into the next call
    assert_same(titer.elementwise("power", None, base, 2), np.power(base, 2))
    big = np.full(100000, 2, dtype=dtype)
    big_exp = np.ones(100000, dtype=dtype)
    big_exp[77777] = -2                              # in the second thread's chunk
    with pytest.raises(ValueError):
        titer.elementwise("power", None, big, big_exp)
    out = np.zeros(100000, dtype=dtype)
    with pytest.raises(ValueError):                  # past the fast path's first blocks
        titer.elementwise("power", out, big, big_exp)
    assert not out.any()


def test_int_min_floor_divide_minus_one_never_crashes():
    for dtype in ("int8", "int16", "int32", "int64"):
        m = np.iinfo(dtype).min
        a = np.array([m, m, 5, -5, 0], dtype=dtype)
        b = np.array([-1, 0, 0, -1, 0], dtype=dtype)
        for name in ("floor_divide", "remainder", "fmod", "divmod"):
            assert_like_numpy(name, (a, b), "%s %s" % (name, dtype))


INT_DIVISION = ("floor_divide", "remainder", "fmod", "divmod")


def _int_division_pairs(dtype, rng):
    """(a, b) for the integer division fast paths: every pair of an 8-bit
    type; else a million random pairs over every magnitude, with the
    type's edges (MIN, MAX, -1, 0, 1, 2) against every divisor kind."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        values = np.arange(info.min, info.max + 1).astype(dtype)
        return np.repeat(values, values.size), np.tile(values, values.size)
    wide = rng.integers(info.min, info.max, 10 ** 6, endpoint=True, dtype=dtype)
    shifts = rng.integers(0, info.bits, (2, wide.size)).astype(dtype)
    a, b = wide >> shifts[0], rng.permutation(wide) >> shifts[1]
    edges = {info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2} | (
        {-1, -2} if info.min else set())
    if info.bits == 64:         # the fast path's bound: magnitudes up to 2^52
        edges |= {2 ** 52 - 1, 2 ** 52, 2 ** 52 + 1} | (
            {-2 ** 52 + 1, -2 ** 52, -2 ** 52 - 1} if info.min else set())
    edges = np.array(sorted(edges), dtype=dtype)
    grid_a, grid_b = np.repeat(edges, edges.size), np.tile(edges, edges.size)
    return np.concatenate([a, grid_a, b[:5000]]), np.concatenate([b, grid_b, edges.repeat(
        -(-5000 // edges.size))[:5000]])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_integer_division_fast_paths_give_numpys_bits_and_warnings(dtype):
    """floor_divide, remainder, fmod and divmod of integers through one
    float division (titer_scalar.h TITER_IDIV_FAST_DEFS): NumPy's bits on
    every 8-bit pair and a million wider ones over every magnitude with the
    edges (zero divisors, MIN / -1 and 64-bit magnitudes above 2^52 go to
    the kernels: NumPy's answers and warnings, also inside whole vectors of
    in-range pairs), contiguous, with a scalar on either side and strided.
    (64-bit: the fast path at the avx512 level, the kernels below it;
    test_dispatch reruns this at each level.)"""
    rng = np.random.default_rng(5)
    a, b = _int_division_pairs(dtype, rng)
    for name in INT_DIVISION:
        with np.errstate(all="ignore"):
            same_as_numpy(name, titer.elementwise(name, None, a, b), getattr(np, name)(a, b),
                          "%s %s pairs" % (name, dtype))
        in_range = a[b != 0][:20000], b[b != 0][:20000]
        if np.iinfo(dtype).min:
            keep = ~((in_range[0] == np.iinfo(dtype).min) & (in_range[1] == -1))
            in_range = in_range[0][keep], in_range[1][keep]
        assert _warned(lambda: titer.elementwise(name, None, *in_range)) == []
        for u, v, context in ((a[::3], b[::3], "strided"), (a, np.asarray(7, dtype), "scalar y"),
                              (np.asarray(-9 if np.iinfo(dtype).min else 9, dtype), b, "scalar x")):
            with np.errstate(all="ignore"):
                same_as_numpy(name, titer.elementwise(name, None, u, v), getattr(np, name)(u, v),
                              "%s %s %s" % (name, dtype, context))
        # a zero divisor (and MIN / -1) alone in a run of 40 in-range pairs
        for bad_a, bad_b in [(5, 0)] + ([(np.iinfo(dtype).min, -1)] if np.iinfo(dtype).min else []):
            u, v = np.full(40, 9, dtype), np.full(40, 4, dtype)
            u[17], v[17] = bad_a, bad_b
            assert _warned(lambda: titer.elementwise(name, None, u, v)) == \
                _warned(lambda: getattr(np, name)(u, v)), (name, dtype, bad_a, bad_b)
            with np.errstate(all="ignore"):
                same_as_numpy(name, titer.elementwise(name, None, u, v), getattr(np, name)(u, v),
                              "%s %s run" % (name, dtype))


# -- floats: signed zeros, NaN rules, branch cuts --------------------------------

def test_fmax_fmin_vs_maximum_minimum_nan_rules():
    a = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0])
    b = np.array([1.0, np.nan, np.nan, np.nan, -0.0])
    for name in ("maximum", "minimum", "fmax", "fmin"):
        for dt in ("e", "f", "d", "F", "D"):
            assert_like_numpy(name, (a.astype(dt), b.astype(dt)), "%s %s" % (name, dt))


@pytest.mark.parametrize("name", ["sqrt", "log", "log10", "log2", "log1p", "sign", "arcsin",
                                  "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "exp",
                                  "reciprocal", "power"])
def test_complex_branch_cuts_and_specials(name):
    parts = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, np.nan]
    z = np.array([complex(r, i) for r in parts for i in parts])
    # build with explicit parts: complex(r, i) loses -0.0 in the imaginary part
    z.real = np.repeat(parts, len(parts))
    z.imag = np.tile(parts, len(parts))
    for dt in ("F", "D"):
        inputs = (z.astype(dt),) if name != "power" else (z.astype(dt), z[::-1].astype(dt))
        assert_like_numpy(name, inputs, "%s %s" % (name, dt))


@pytest.mark.parametrize("name", [op.name for op in _ops.OPS
                                  if op.nin == 1 and "e->e" in op.types])
def test_float16_unary_exhaustively(name):
    allh = np.arange(65536, dtype=np.uint16).view(np.float16)
    same_as_numpy(name, titer_call(name, None, allh), numpy_call(name, allh), name)


@pytest.mark.parametrize("name", [op.name for op in _ops.OPS if op.nin == 2
                                  and "ee->e" in op.types and op.name != "power"]
                         + ["power"])
def test_float16_binary_exhaustively(name):
    allh = np.arange(65536, dtype=np.uint16).view(np.float16)
    other = np.roll(allh, 12345)
    same_as_numpy(name, titer_call(name, None, allh, other),
                  numpy_call(name, allh, other), name)


def test_float16_nextafter_every_x_toward_every_kind_of_y():
    """The branch-free float16 nextafter (integer selects, an overflowing
    product for NumPy's flag): every float16 x toward y = +-0, +-inf, nan,
    +-max, x's own bits, its neighbours' and x negated, NumPy's bits; the
    overflow warning where a finite x steps to inf and nowhere else."""
    bits = np.arange(65536, dtype=np.uint16)
    x = bits.view(np.float16)
    ys = [np.full(x.shape, np.float16(v)) for v in (0.0, -0.0, np.inf, -np.inf, np.nan,
                                                      65504.0, -65504.0)]
    ys += [(bits + d).view(np.float16) for d in (0, 1, 0xffff, 0x8000)]
    for y in ys:
        with np.errstate(all="ignore"):
            same_as_numpy("nextafter", titer_call("nextafter", None, x, y),
                          numpy_call("nextafter", x, y), "nextafter e")
    for k in (0x7bff, 0xfbff):                  # +-max toward its infinity, in a vector
        xs = np.repeat(bits[k:k + 1], 37).view(np.float16)
        toward = np.full(37, np.float16(np.inf if k < 0x8000 else -np.inf))
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError, match="overflow"):
                titer.elementwise("nextafter", None, xs, toward)
    with np.errstate(over="raise", invalid="ignore"):     # no overflow anywhere else
        numpy_call("nextafter", x, np.roll(x, 777))
        titer.elementwise("nextafter", None, x, np.roll(x, 777))



def _nextafter_edges(dtype):
    """Values where C's nextafter changes case: zeros, subnormal and normal
    ends, the largest finite, infinities, NaNs quiet and signaling with
    payloads of either sign, and ordinary values."""
    uint = np.dtype("u%d" % np.dtype(dtype).itemsize).type
    info = np.finfo(dtype)
    mant = info.nmant
    inf_bits, quiet = uint(((1 << info.nexp) - 1) << mant), uint(1 << (mant - 1))
    sign = uint(1 << (mant + info.nexp))
    magnitudes = [uint(0), uint(1), uint(2), quiet - uint(1), uint(1 << mant) - uint(1),
                  uint(1 << mant), uint(1 << mant) + uint(1),
                  np.array(1.0, dtype).view(uint)[()], inf_bits - uint(1), inf_bits,
                  inf_bits | quiet, inf_bits | quiet | uint(5), inf_bits | uint(1),
                  inf_bits | uint(7)]
    bits = np.array(magnitudes + [m | sign for m in magnitudes], uint)
    return bits.view(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter_on_the_bits_gives_libms_bits_and_flags(dtype):
    """float32 and float64 nextafter, branch-free on the bits: NumPy's bits
    (glibc's nextafter: NaN payloads too) on every pair of edge values and
    on random bit patterns, and NumPy's warnings for each edge pair, alone
    and inside a vector of quiet neighbours, at several positions."""
    uint = np.dtype("u%d" % np.dtype(dtype).itemsize)
    edges = _nextafter_edges(dtype)
    x, y = (v.ravel() for v in np.meshgrid(edges, edges))
    rng = np.random.default_rng(49)
    rx = rng.integers(0, np.iinfo(uint).max, 20000, dtype=uint, endpoint=True).view(dtype)
    ry = np.where(rng.random(20000) < 0.2, rx, rng.permutation(rx))
    for a, b in ((x, y), (rx, ry), (rx, np.roll(edges, 3).repeat(1 + 20000 // edges.size)[:20000])):
        with np.errstate(all="ignore"):
            want = np.nextafter(a, b)
            got = titer.elementwise("nextafter", None, a, b)
        np.testing.assert_array_equal(got.view(uint), want.view(uint))
    ones, twos = np.ones(37, dtype), np.full(37, 2.0, dtype)
    for i, (a, b) in enumerate(zip(x, y)):
        xs, ys = ones.copy(), twos.copy()
        xs[i % 37], ys[i % 37] = a, b
        for args in ((x[i:i + 1], y[i:i + 1]), (xs, ys)):
            assert _warned(lambda: titer.elementwise("nextafter", None, *args)) == \
                _warned(lambda: np.nextafter(*args)), (a, b)


@pytest.mark.parametrize("gives_y", [0, 1])
def test_float16_nextafter_of_equal_values_under_either_numpy_rule(gives_y):
    """titer follows the NumPy it runs with (_frontend.HALF_NEXTAFTER_GIVES_Y):
    equal x and y give x before NumPy 2.5 and y from it on -- only +-0
    toward -+0 tell them apart (numpy/numpy#31472).  Each rule on every
    float16 toward itself, its negation and +-0; the installed NumPy's rule
    is the one titer runs by default."""
    assert _core._set_half_nextafter_gives_y(gives_y) == _frontend.HALF_NEXTAFTER_GIVES_Y
    try:
        x = np.arange(65536, dtype=np.uint16).view(np.float16)
        for y in (x, -x, np.full(x.shape, np.float16(0.0)), np.full(x.shape, np.float16(-0.0))):
            with np.errstate(all="ignore"):
                stepped = np.nextafter(x, y)
                want = np.where(x == y, y if gives_y else x, stepped)
                got = titer.elementwise("nextafter", None, x, y)
            assert got.tobytes() == want.tobytes()
    finally:
        _core._set_half_nextafter_gives_y(int(_frontend.HALF_NEXTAFTER_GIVES_Y))


def _warned(fn):
    """The FP warnings fn() gives (their category's text), each once."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        fn()
    return sorted({str(w.message).split(" encountered")[0] for w in caught})


def test_float16_sign_keeps_numpys_bits():
    """NumPy's float16 sign works on the bits: a nan (a signaling one too)
    comes back unchanged and -0 as +0; titer's too, for every float16."""
    bits = np.arange(65536, dtype=np.uint16)
    got = titer.elementwise("sign", None, bits.view(np.float16))
    np.testing.assert_array_equal(got.view(np.uint16), np.sign(bits.view(np.float16)).view(np.uint16))
    assert _warned(lambda: titer.elementwise("sign", None, bits.view(np.float16))) == []


def test_float16_spacing_of_every_value():
    """float16 spacing (selects on the bits, flags from float operations):
    NumPy's bits for all 65536 inputs, in one vector-loop call."""
    x = np.arange(65536, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        got, want = titer.elementwise("spacing", None, x), np.spacing(x)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_spacing_bits_and_flags_at_every_exponent_edge(dtype):
    """The branch-free spacing: at both ends of every exponent (normal and
    subnormal, both signs), zeros, the largest float, inf and nan, NumPy's
    bits and, per input, NumPy's warnings (overflow at the largest float,
    underflow where the step lands on a subnormal, nothing else), each
    input a 37-element run so the vector loop meets it."""
    info = np.finfo(dtype)
    uint = np.dtype("u%d" % (info.bits // 8))
    mant = info.nmant
    exps = np.arange(0, 2 ** (info.bits - 1 - mant), dtype=np.uint64)
    tails = np.array([0, 1, 2, (1 << mant) - 2, (1 << mant) - 1], dtype=np.uint64)
    magnitudes = (exps[:, None] << np.uint64(mant)) | tails[None, :]
    signs = np.array([0, 1 << (info.bits - 1)], dtype=np.uint64)
    x = (magnitudes.ravel()[None, :] | signs[:, None]).ravel().astype(uint).view(dtype)
    with np.errstate(all="ignore"):
        got, want = titer.elementwise("spacing", None, x), np.spacing(x)
    np.testing.assert_array_equal(got.view(uint), want.view(uint))
    for v in x[::7].tolist() + [info.max, -info.max, info.tiny, 0.0, -0.0]:
        run = np.full(37, v, dtype=dtype)
        assert _warned(lambda: titer.elementwise("spacing", None, run)) == \
            _warned(lambda: np.spacing(run)), v



@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_order_on_every_special_pair(name, dtype):
    """The branch-free lexicographic compares: NumPy's answer for every pair
    of special complex values (signed zeros, infinities, nans in either
    part), at every offset of a vector; and, where the real parts are
    numbers that differ, no warning (NumPy's short-circuit never compares
    the imaginary parts there, so a nan in them signals nothing)."""
    parts = np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf, np.nan])
    z = np.empty(len(parts) ** 2, dtype=dtype)
    z.real, z.imag = np.repeat(parts, len(parts)), np.tile(parts, len(parts))
    a, b = np.repeat(z, len(z)), np.tile(z, len(z))
    for shift in (0, 1, 3):
        np.testing.assert_array_equal(titer.elementwise(name, None, a[shift:], b[shift:]),
                                      getattr(np, name)(a[shift:], b[shift:]))
    differ = ~np.isnan(a.real) & ~np.isnan(b.real) & (a.real != b.real)
    assert _warned(lambda: titer.elementwise(name, None, a[differ], b[differ])) == []


# -- NaN at loop tails and chunk boundaries ------------------------------------

@pytest.mark.parametrize("name", ["exp", "log", "sin", "sqrt", "floor_divide", "power", "fmax",
                                  "maximum", "clip", "where", "isnan", "divmod", "nextafter"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_at_tails_and_chunk_boundaries(name, dtype):
    """NaN placed at the end of SIMD-width tails, 512-element buffer blocks
    and the 64-aligned OpenMP chunk edges of a 70001-element array."""
    n = 70001
    x = value_grid(dtype, (n,), seed=21)
    x = np.abs(x) + 1 if name in ("log", "sqrt") else x
    nan_at = [0, 7, 15, 31, 511, 512, 1023, 32767, 32768, 35001, 35008, 35072, n - 2, n - 1]
    x[nan_at] = np.nan
    y = value_grid(dtype, (n,), seed=22)
    y[[1, 16, 513, 35009, n - 1]] = np.nan
    op = _ops.OPS_BY_NAME[name]
    if name == "where":
        inputs = (x > 0, x, y)
    elif name == "clip":
        inputs = (x, np.float64(-1.0).astype(dtype), y)
    else:
        inputs = (x, y)[:op.nin]
    with titer.num_threads(2):
        same_as_numpy(name, titer_call(name, None, *inputs), numpy_call(name, *inputs), name)
        # strided too: the generic path
        strided = tuple(v[::3] if isinstance(v, np.ndarray) and v.ndim else v for v in inputs)
        same_as_numpy(name, titer_call(name, None, *strided), numpy_call(name, *strided), name)


# -- where= ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "sin", "floor_divide", "divmod", "frexp", "clip",
                                  "isnan", "power", "ldexp"])
def test_where_mask_leaves_unselected_out_untouched(name):
    op = _ops.OPS_BY_NAME[name]
    rng = np.random.default_rng(5)
    shape = (7, 9)
    ins = {"ldexp": [value_grid("float32", shape, 1), rng.integers(-5, 5, shape).astype("i")],
           "power": [value_grid("float64", shape, 1), value_grid("float64", shape, 2)]}.get(
        name, [value_grid("float32", shape, seed=i) for i in range(op.nin)])
    mask = rng.integers(0, 2, shape).astype(bool)
    expected = numpy_call(name, *ins)
    expected = expected if isinstance(expected, tuple) else (expected,)
    outs = tuple(np.full(shape, 7, dtype=e.dtype) for e in expected)
    ref = tuple(o.copy() for o in outs)
    with np.errstate(all="ignore"):
        getattr(np, name)(*ins, out=ref, where=mask) if name != "clip" else \
            np._core.umath.clip(*ins, out=ref, where=mask)
    got = titer_call(name, outs if op.nout > 1 else outs[0], *ins, where=mask)
    got = got if isinstance(got, tuple) else (got,)
    for g, o, r in zip(got, outs, ref):
        assert g is o
        same_as_numpy(name, o, r, "%s where=" % name)


def test_where_mask_broadcasts_casts_and_allocates():
    a = value_grid("float64", (4, 5), seed=1)
    mask = np.array([True, False, True, True, False])
    # out of another dtype: computed in float64, cast under the mask
    out = np.full((4, 5), -1, dtype=np.float32)
    ref = out.copy()
    np.sqrt(np.abs(a), out=ref, where=mask)
    titer.elementwise("sqrt", out, np.abs(a), where=mask)
    assert_same(out, ref)
    # byte-swapped out: staged, still only selected elements change
    out = np.full((4, 5), -1.0).astype(">f8")
    ref = out.copy()
    np.add(a, 1.0, out=ref, where=mask)
    titer.elementwise("add", out, a, 1.0, where=mask)
    assert_same(out.astype("=f8"), ref.astype("=f8"))
    # out=None: only selected elements are defined
    got = titer.elementwise("exp", None, a, where=mask)
    sel = np.broadcast_to(mask, a.shape)
    same_as_numpy("exp", got[sel], np.exp(a)[sel], "exp where= out=None")
    # FP errors come only from selected elements
    z = np.array([0.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        titer.elementwise("log", np.zeros(3), z, where=np.array([False, True, False]))
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        titer.elementwise("log", np.zeros(3), z, where=np.array([True, True, False]))


def test_repeated_where_calls_as_numpy():
    """A repeated where= call reuses its resolution and plan (_resolve_general,
    the op's plan cache): each call that changes one thing after the last
    (the mask's values, out's data, a Python int beyond the kept loop's
    range, a byte-swapped or misaligned operand, out's dtype) is NumPy's,
    values and errors alike, twice in a row."""
    rng = np.random.default_rng(9)
    a = np.arange(12, dtype=np.int8).reshape(3, 4)
    b = np.arange(12.0).reshape(3, 4)
    unaligned = np.zeros(12 * 8 + 1, np.uint8)[1:].view(np.float64).reshape(3, 4)
    unaligned[...] = b
    calls = [("add", a, 3, np.int8), ("add", a, 3, np.int8), ("add", a, 300, np.int8),
             ("add", a, -129, np.int8), ("add", a, 3, np.int8),
             ("multiply", b, b, np.float64), ("multiply", b.astype(">f8"), b, np.float64),
             ("multiply", unaligned, b, np.float64), ("multiply", b, b, np.float32),
             ("multiply", b, b, np.int64), ("multiply", b, b, np.float64)]
    for name, x, y, out_dtype in calls:
        for _ in range(2):
            mask = rng.random((3, 4)) < 0.5
            got, want = np.full((3, 4), 7, out_dtype), np.full((3, 4), 7, out_dtype)
            outcome = []
            for call, out in ((titer.elementwise, got), (None, want)):
                try:
                    if call is None:
                        getattr(np, name)(x, y, out=out, where=mask)
                    else:
                        call(name, out, x, y, where=mask)
                    outcome.append(None)
                except Exception as exc:        # noqa: BLE001 (the class is compared)
                    outcome.append(type(exc))
            assert outcome[0] == outcome[1], (name, x.dtype, y, out_dtype)
            assert_same(got, want, "%s %s %r %s" % (name, x.dtype, y, out_dtype))


# -- order= ----------------------------------------------------------------------

@pytest.mark.parametrize("order", ["K", "C", "F", "A"])
def test_order_allocates_like_numpy(order):
    base = value_grid("float32", (6, 5), seed=3)
    for a in (base, np.asfortranarray(base), base.T, base[::-1]):
        b = value_grid("float32", a.shape, seed=4)
        expected = np.add(a, b, order=order)
        got = titer.elementwise("add", None, a, b, order=order)
        assert_same(got, expected)
        if order in "CF":
            assert got.flags["%s_CONTIGUOUS" % order]
        if order == "A":
            assert got.flags.c_contiguous == expected.flags.c_contiguous
    with pytest.raises(ValueError):
        titer.elementwise("add", None, base, base, order="X")


# -- multi-output --------------------------------------------------------------

@pytest.mark.parametrize("name", ["divmod", "modf", "frexp"])
def test_multi_output_tuples(name):
    op = _ops.OPS_BY_NAME[name]
    ins = [value_grid("float64", (3, 4), seed=i) for i in range(op.nin)]
    expected = numpy_call(name, *ins)
    got = titer_call(name, None, *ins)
    assert isinstance(got, tuple) and len(got) == 2
    same_as_numpy(name, got, expected, name)
    outs = tuple(np.empty_like(e) for e in expected)
    assert titer_call(name, outs, *ins) == outs or all(
        g is o for g, o in zip(titer_call(name, outs, *ins), outs))
    same_as_numpy(name, outs, expected, name + " out=")
    partial = (None, np.empty_like(expected[1]))
    got = titer_call(name, partial, *ins)
    assert got[1] is partial[1]
    same_as_numpy(name, got, expected, name + " out=(None, arr)")
    with pytest.raises((TypeError, ValueError)):
        titer.elementwise(name, np.empty_like(expected[0]), *ins)
    with pytest.raises(ValueError):
        titer.elementwise(name, (outs[0],), *ins)


# -- errstate for every op -------------------------------------------------------

def _fp_outcome(call, mode):
    with np.errstate(all=mode):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                call()
            except FloatingPointError as exc:
                return ("raise", str(exc).split(" encountered")[0])
    return tuple(sorted({str(w.message).split(" encountered")[0] for w in caught
                         if issubclass(w.category, RuntimeWarning)}))


def _special_operands(ins, seed):
    """Every special value of the type (unary), every pair or triple of
    them, then a random grid of them and ordinary values."""
    specials = [np.array(special_values(c), dtype=c) for c in ins]
    grids = np.meshgrid(*specials, indexing="ij")
    return [np.concatenate([g.ravel(), value_grid(c, (40,), seed=seed + i)])
            for i, (g, c) in enumerate(zip(grids, ins))]


@pytest.mark.parametrize("op", [op for op in _ops.OPS if op.name not in ("where",)],
                         ids=lambda op: op.name)
def test_errstate_flags_like_numpy(op):
    """Warn mode: the same set of FP warnings as the ufunc, for every
    special value (pair, triple) of every float signature; complex ones for
    the ops that compare quietly (NOTE [quiet compares]: NumPy reports
    nothing for them on any CPU path; other complex flags vary by path)."""
    for sig in op.types:
        ins, _ = _ops.parse_signature(sig)
        if ins[0] not in "efdFD" or (ins[0] in "FD" and not _ops.quiet_invalid(op, sig)):
            continue                    # NumPy's complex/int flags vary by CPU path
        inputs = _special_operands(ins, seed=0)
        theirs = _fp_outcome(lambda: numpy_call_raw(op.name, *inputs), "warn")
        ours = _fp_outcome(lambda: titer.elementwise(op.name, None, *inputs), "warn")
        if op.approx:                   # libm vs NumPy's SIMD: underflow may differ
            theirs = tuple(t for t in theirs if t != "underflow")
            ours = tuple(t for t in ours if t != "underflow")
        assert ours == theirs, "%s %s: %s vs NumPy %s" % (op.name, sig, ours, theirs)


def test_quiet_compares_raise_nothing_in_programs_and_reductions():
    """A NaN is no error for comparisons and max/min: not inside an
    evaluate program (whose other steps keep their own flags), not in the
    reductions, and an invalid flag raised before the quiet loop is kept."""
    x = np.linspace(-2.0, 2.0, 1001)
    x[[3, 500, 999]] = np.nan
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(titer.evaluate("where(x < 1, x, 0)", {"x": x}),
                                      np.where(x < 1, x, 0))
        titer.evaluate("maximum(x, 0.5) + (x >= 0)", {"x": x})
        for name in ("maximum", "minimum", "fmax", "fmin"):
            titer.reduce(name, x)
            titer.accumulate(name, x)
        with pytest.raises(FloatingPointError, match="invalid"):
            titer.evaluate("sqrt(x) + (x > 0)", {"x": x})          # sqrt's own flag stays
        with pytest.raises(FloatingPointError, match="invalid"):
            np.sqrt(x)


def _float16_edges():
    """Values around float16's range: exact and inexact subnormals, values
    that round to zero, to the largest half and past it; both signs."""
    tiny = 2.0 ** -24
    edges = [0.0, tiny, 3 * tiny, 1023 * tiny, 2.0 ** -14, 1.5 * tiny, 0.3 * tiny,
             0.5 * tiny, 0.51 * tiny, 2.0 ** -26, 1e-9, 1e-30, 1e-300, 5e-324,
             65504.0, 65519.0, 65520.0, 7e4, 1e10, 1.0, 1.0 + 2.0 ** -11, 1e-5, 6.1e-5]
    return edges + [-v for v in edges]


@pytest.mark.parametrize("source", ["float32", "float64"])
def test_float16_rounding_flags_like_numpy(source):
    """Rounding to float16 (a cast, or float16 arithmetic's last step):
    NumPy's bits and NumPy's flags value by value: overflow past the range,
    underflow where the result is a subnormal or zero that is not exact."""
    for value in _float16_edges():
        src = np.array([value], dtype=source)
        if source == "float32" and src[0] != value and value != 0 and abs(value) < 1e-38:
            continue                    # not a float32 (flushed); the float64 run has it
        for mode in ("warn", "raise"):
            dst, theirs_dst = np.empty(1, np.float16), np.empty(1, np.float16)
            ours = _fp_outcome(lambda: titer.copy(dst, src), mode)
            theirs = _fp_outcome(lambda: np.copyto(theirs_dst, src), mode)
            assert ours == theirs, (source, value, mode, ours, theirs)
            if mode == "warn":
                np.testing.assert_array_equal(dst.view(np.uint16), theirs_dst.view(np.uint16))
    halves = np.array([v for v in _float16_edges() if abs(v) < 7e4], dtype=np.float16)
    scales = np.array([0.5, 2.0 ** -10, 1e-3, 3.0, 1024.0], dtype=np.float16)
    for h in halves:
        for k in scales:
            x, y = np.array([h]), np.array([k])
            for name in ("multiply", "add", "divide"):
                ours = _fp_outcome(lambda: titer.elementwise(name, None, x, y), "raise")
                theirs = _fp_outcome(lambda: getattr(np, name)(x, y), "raise")
                assert ours == theirs, (name, h, k, ours, theirs)


@pytest.mark.parametrize("source", ["float32", "float64"])
def test_float16_rounding_in_vector_loops(source):
    """The rounding to float16 runs branch-free in vectorized loops: NumPy's
    bits over a spread of bit patterns (NaN payloads, subnormals, ties,
    overflow) on contiguous and strided arrays, and NumPy's flags when one
    overflowing or inexact-tiny element sits anywhere in a long array (the
    vector body, its tail), as a cast and as float16 arithmetic."""
    width = np.dtype(source).itemsize * 8
    uint = np.dtype("uint%d" % width)
    if width == 32:
        bits = np.arange(0, 2 ** 32, 4093, dtype=np.uint64).astype(uint)
    else:
        rng = np.random.default_rng(7)
        bits = rng.integers(0, 2 ** 63, 2 ** 20, dtype=np.uint64)
        exps = rng.integers(990, 1050, bits.size).astype(np.uint64)   # near float16's range
        bits[::2] = (bits[::2] & np.uint64(0x800fffffffffffff)) | (exps[::2] << np.uint64(52))
        bits = bits.astype(uint)
    values = bits.view(source)
    with np.errstate(all="ignore"):
        for src in (values, values[::3]):
            ours, theirs = np.empty(src.shape, np.float16), np.empty(src.shape, np.float16)
            titer.copy(ours, src)
            np.copyto(theirs, src)
            np.testing.assert_array_equal(ours.view(np.uint16), theirs.view(np.uint16))
    base = np.linspace(0.5, 2.0, 203).astype(source)
    for planted in (65520.0, -7e4, 1e-9, 0.3 * 2.0 ** -24, 2.0 ** -24):
        for at in (0, 5, 37, 64, 200, 202):
            src = base.copy()
            src[at] = planted
            for mode in ("warn", "raise"):
                dst, theirs_dst = np.empty(src.shape, np.float16), np.empty(src.shape, np.float16)
                ours = _fp_outcome(lambda: titer.copy(dst, src), mode)
                theirs = _fp_outcome(lambda: np.copyto(theirs_dst, src), mode)
                assert ours == theirs, (planted, at, mode, ours, theirs)
    # float16 arithmetic: x * y or x / y with one element overflowing, one
    # rounding to an inexact subnormal, or one exact subnormal (no flag)
    halves = base.astype(np.float16)
    for planted, name, by in ((40000.0, "multiply", 2.0), (-40000.0, "divide", 0.5),
                              (3 * 2.0 ** -24, "multiply", 0.5), (3 * 2.0 ** -24, "divide", 2.0),
                              (2 * 2.0 ** -24, "multiply", 0.5)):
        for at in (0, 5, 37, 64, 200, 202):
            x = halves.copy()
            x[at] = planted
            y = np.full(x.shape, by, np.float16)
            for mode in ("warn", "raise"):
                ours = _fp_outcome(lambda: titer.elementwise(name, None, x, y), mode)
                theirs = _fp_outcome(lambda: getattr(np, name)(x, y), mode)
                assert ours == theirs, (name, planted, at, mode, ours, theirs)


HALF_THROUGH_FAST = sorted(op.name for op in _ops.OPS
                           if any(_codegen.float_fast_twin(op, sig) for sig in op.types))


def test_float16_fast_loops_cover_every_float32_fast_path():
    """Every op with a float32 fast path, and the approximate ones whose
    float32 loop is libm's (logaddexp), runs float16 through float32 blocks."""
    assert set(HALF_THROUGH_FAST) == {op.name for op in _ops.OPS
                                      if {"f->f", "ff->f", "ff->ff"} & set(op.fast or {})
                                      or (op.approx and "ee->e" in op.types
                                          and not op.fast and not op.veclib)}
    assert {"logaddexp", "logaddexp2", "divmod"} <= set(HALF_THROUGH_FAST)


@pytest.mark.parametrize("name", HALF_THROUGH_FAST)
def test_float16_through_float32_fast_loops(name):
    """float16 ops whose float32 loop has a fast path run it on widened
    blocks: NumPy's values (within float16's ULP bound) and warnings past
    the block edges, with a scalar on either side, in place, under where=,
    and strided (the one-element kernel)."""
    nin = _ops.OPS_BY_NAME[name].nin
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    x = halves[np.isfinite(halves)][::9][:3001]              # one block, another, a tail
    y = np.roll(x, 17)
    cases = [(x,), (x[::2],)] if nin == 1 else [
        (x, y), (x, np.float16(1.5)), (np.float16(0.75), y), (x[::2], y[::2])]
    for inputs in cases:
        theirs = _fp_outcome(lambda: numpy_call(name, *inputs), "warn")
        ours = _fp_outcome(lambda: titer_call(name, None, *inputs), "warn")
        drop = {"underflow"}                     # libm vs NumPy's SIMD (see the errstate test)
        assert set(ours) - drop == set(theirs) - drop, (name, ours, theirs)
        with np.errstate(all="ignore"):
            same_as_numpy(name, titer_call(name, None, *inputs), numpy_call(name, *inputs), name)
    nout = _ops.OPS_BY_NAME[name].nout
    with np.errstate(all="ignore"):
        want = numpy_call(name, *((x,) if nin == 1 else (x, y)))
        inplace = x.copy()
        outs = (inplace,) + tuple(np.empty_like(x) for _ in range(nout - 1))
        got = titer.elementwise(name, outs if nout > 1 else inplace,
                                *((inplace,) if nin == 1 else (inplace, y)))
        assert (got[0] if nout > 1 else got) is inplace
        same_as_numpy(name, got, want, name + " in place")
        mask = np.arange(x.size) % 3 != 0
        outs = tuple(np.full(x.size, np.float16(7)) for _ in range(nout))
        titer.elementwise(name, outs if nout > 1 else outs[0], *((x,) if nin == 1 else (x, y)),
                          where=mask)
        for out, expected in zip(outs, want if nout > 1 else (want,)):
            same_as_numpy(name, out[mask], expected[mask], name + " where=")
            assert np.all(out[~mask] == 7)


@pytest.mark.parametrize("name", HALF_THROUGH_FAST)
def test_float16_fast_path_rounds_as_numpys_cast(name):
    """A float16 op through its float32 loop is that loop's result rounded
    as NumPy's float32 -> float16 cast rounds it, every finite float16 (or
    pairs of them), in blocks and a tail: the same bits, and where the cast
    warns of underflow or overflow (a result that rounds up to the smallest
    normal float16 included: titer_loops.h NOTE [F16C blocks]) so does
    the op."""
    op = _ops.OPS_BY_NAME[name]
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    x = halves[np.isfinite(halves)]
    args = (x,) if op.nin == 1 else (x, np.roll(x, 4321))
    with np.errstate(all="ignore"):
        wides = titer.elementwise(name, None, *[a.astype(np.float32) for a in args])
        gots = titer.elementwise(name, None, *args)
    if op.nout == 1:
        wides, gots = (wides,), (gots,)
    for wide, got in zip(wides, gots):
        with np.errstate(all="ignore"):
            want = wide.astype(np.float16)
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=name)
        bits = wide.view(np.uint32) & 0x7fffffff
        tiny = (bits >= 0x387ff000) & (bits < 0x38800000)          # rounds up to 2^-14
        big = np.isfinite(wide) & ~np.isfinite(want)
        for kind, picked in (("underflow", tiny), ("overflow", big)):
            for k in np.flatnonzero(picked)[:3]:
                block = [np.repeat(a[k:k + 1], 37) for a in args]   # a vector and a tail
                with np.errstate(all="raise"):
                    with pytest.raises(FloatingPointError, match=kind):
                        np.repeat(wide[k:k + 1], 37).astype(np.float16)
                    with pytest.raises(FloatingPointError, match=kind):
                        titer.elementwise(name, None, *block)


HALF_TABLES = [name for name in HALF_THROUGH_FAST
               if (_ops.OPS_BY_NAME[name].nin, _ops.OPS_BY_NAME[name].nout) == (1, 1)]


def test_float16_tables_are_the_computed_path():
    """NOTE [float16 tables]: once a unary op has computed 2^22 elements its
    table fills (counted by the core); from then on every float16 input
    (NaNs, infinities, subnormals, both zeros) gives the bits of the float32
    path rounded, in a big call and in small ones, and each run of 256
    inputs raises the flags that path and the rounding raise (whose flag it
    is survives the table)."""
    old = _core._set_half_registers_first(0)    # where gathers are slow too
    try:
        _check_float16_tables()
    finally:
        _core._set_half_registers_first(old)


def _check_float16_tables():
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    many = np.tile(halves, 64)                              # 2^22 elements
    for name in HALF_TABLES:
        with np.errstate(all="ignore"):
            computed = titer.elementwise(name, None, many)  # fills the table
            wide = titer.elementwise(name, None, halves.astype(np.float32))
            want = wide.astype(np.float16)
            got = titer.elementwise(name, None, halves)
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=name)
        np.testing.assert_array_equal(computed[-65536:].view(np.uint16), want.view(np.uint16),
                                      err_msg=name)
        for start in range(0, 65536, 256):
            run = halves[start:start + 256]
            ours = _fp_outcome(lambda: titer.elementwise(name, None, run), "warn")
            theirs = set(_fp_outcome(lambda: titer.elementwise(
                name, None, run.astype(np.float32)), "warn"))
            theirs |= set(_fp_outcome(lambda: wide[start:start + 256].astype(np.float16), "warn"))
            assert set(ours) == theirs, (name, start, ours, theirs)
            if start % 4096 == 0:       # a call below the filling size reads it too
                with np.errstate(all="ignore"):
                    small = titer.elementwise(name, None, run[5:9])
                np.testing.assert_array_equal(small.view(np.uint16),
                                              want[start + 5:start + 9].view(np.uint16))
    # at AVX-512 the cheap forms run in registers, not by their tables
    in_registers = (_codegen.half_in_registers("always")
                    if _core.isa_levels()[1] == "avx512" else [])
    assert _core._half_tables_filled() >= len(HALF_TABLES) - len(in_registers)


@pytest.mark.parametrize("name", _codegen.half_in_registers())
def test_float16_in_registers_is_the_computed_path(name):
    """NOTE [float16 in registers] (the avx512 level; the others' blocks
    through float): shuffled float16 bit patterns, so that most vectors
    have a lane out of the form's range next to vectors all in it, at every
    offset and length around a vector's: the bits of the float32 path
    rounded, and in place; its flags on runs of a finite range and of every
    pattern.  The forms that run there only where gathers are slow (NOTE
    [float16 where gathers are slow]) are made to."""
    old = _core._set_half_registers_first(1)
    try:
        _check_float16_in_registers(name)
    finally:
        _core._set_half_registers_first(old)


def _check_float16_in_registers(name):
    rng = np.random.default_rng(24)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    mixed = halves[rng.permutation(65536)]
    finite = np.linspace(-20, 20, 4099).astype(np.float16)
    for x in (mixed, finite, np.concatenate([finite[:1000], mixed[:7], finite[1000:]])):
        with np.errstate(all="ignore"):
            want = titer.elementwise(name, None, x.astype(np.float32)).astype(np.float16)
            for start, length in [(0, x.size)] + [(s, n) for s in range(17) for n in (15, 16, 33)]:
                got = titer.elementwise(name, None, x[start:start + length])
                np.testing.assert_array_equal(got.view(np.uint16),
                                              want[start:start + length].view(np.uint16),
                                              err_msg="%s %d %d" % (name, start, length))
            inplace = x.copy()
            titer.elementwise(name, inplace, inplace)
            np.testing.assert_array_equal(inplace.view(np.uint16), want.view(np.uint16))
        wide = x.astype(np.float32)
        for start in range(0, min(x.size, 4096), 512):
            ours = _fp_outcome(lambda: titer.elementwise(name, None, x[start:start + 512]), "warn")
            theirs = set(_fp_outcome(lambda: titer.elementwise(
                name, None, wide[start:start + 512]), "warn"))
            with np.errstate(all="ignore"):
                rounded = titer.elementwise(name, None, wide[start:start + 512])
            theirs |= set(_fp_outcome(lambda: rounded.astype(np.float16), "warn"))
            assert set(ours) == theirs, (name, start, ours, theirs)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_and_modf_on_the_bits_are_numpys(dtype):
    """The branch-free frexp and modf (titer_scalar.h) against NumPy's (libm's)
    on float bit patterns (every float16; every 251st float32; float64 ones
    with every exponent, subnormals, zeros, inf, NaN): the same bits in both
    outputs, contiguous, strided, in place."""
    if dtype == "float16":
        x = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    elif dtype == "float32":
        x = np.arange(0, 2 ** 32, 251, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        rng = np.random.default_rng(8)
        x = rng.integers(0, 2 ** 64, 2 ** 20, dtype=np.uint64, endpoint=False).view(np.float64)
        x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.5,
                                -3.0, 2.0 ** 52 + 0.5, -(2.0 ** 53)]])
    for name in ("frexp", "modf"):
        for sample in (x, x[::3]):
            same_as_numpy(name, titer_call(name, None, sample), numpy_call(name, sample),
                          "%s %s" % (name, dtype))
        first = sample.copy()
        titer.elementwise(name, (first, np.empty(first.shape, numpy_call(name, first)[1].dtype)),
                          first)
        same_as_numpy(name, first, numpy_call(name, sample)[0], name + " in place")
    # frexp's AVX-512 form (NOTE [frexp by vgetexp]): outputs off the
    # 64-byte boundary by 0-15 elements, lengths around a vector's
    for shift in range(16):
        part = x[shift * 53:shift * 53 + 37 + shift]
        mantissa = np.empty(part.size + 32, dtype)[shift:shift + part.size]
        exponent = np.empty(part.size, np.int32)
        titer.elementwise("frexp", (mantissa, exponent), part)
        same_as_numpy("frexp", (mantissa, exponent), numpy_call("frexp", part),
                      "frexp %s shift %d" % (dtype, shift))


def _numpy_runs_avx512():
    from numpy._core._multiarray_umath import __cpu_features__
    return bool(__cpu_features__.get("AVX512_SKX"))


def _signalling_nans(char):
    """Twenty elements of the type, quiet 0.5 but a signalling NaN of each
    sign (a complex one in either part)."""
    dtype = np.dtype(char)
    if dtype.kind == "c":
        part = _signalling_nans("f" if dtype.itemsize == 8 else "d")
        a = np.ones(20, dtype)
        a.real[7], a.imag[11] = part[7], part[13]
        return a
    uint = np.dtype("u%d" % dtype.itemsize)
    a = np.full(20, 0.5, dtype)
    a.view(uint)[7] = {2: 0x7c01, 4: 0x7f800001, 8: 0x7ff4000000000000}[dtype.itemsize]
    a.view(uint)[13] = a.view(uint)[7] | (1 << (8 * dtype.itemsize - 1))
    return a


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "not_equal", "equal", "less",
                                  "logical_and", "logical_or", "frexp"])
def test_a_signalling_nan_warns_as_numpy_does(name):
    """NumPy's compare, logical and predicate loops clear the flags even for
    a signalling NaN, which C's quiet compares raise invalid on (_ops.
    QUIET_INVALID); its frexp is quiet in its AVX-512 loop and raises in
    libm's (titer_scalar.h TITER_FREXP_QUIET): checked where titer's level
    and NumPy's agree on AVX-512, the operand in either place."""
    op = _ops.OPS_BY_NAME[name]
    if name == "frexp" and (_core.isa_levels()[1] == "avx512") != _numpy_runs_avx512():
        pytest.skip("titer's and NumPy's instruction-set levels differ on AVX-512")
    for sig in op.types:
        ins, _ = _ops.parse_signature(sig)
        if len(set(ins)) > 1 or ins[0] not in "efdFD":
            continue
        for where in range(len(ins)):
            args = [_signalling_nans(c) if k == where else np.full(20, 0.75, c)
                    for k, c in enumerate(ins)]
            for mode in ("ignore", "warn", "raise"):
                theirs = _fp_outcome(lambda: getattr(np, name)(*args), mode)
                ours = _fp_outcome(lambda: titer.elementwise(name, None, *args), mode)
                assert ours == theirs, (sig, where, mode, ours, theirs)


@pytest.mark.parametrize("sig", ["fi->f", "fl->f", "di->d", "dl->d", "ei->e"])
def test_ldexp_in_steps_is_numpys(sig):
    """ldexp scaled in musl's steps (titer_scalar.h) against NumPy's, bits and
    warnings: mantissas over the type's bit patterns (zeros, subnormals, huge,
    inf, NaN) against every exponent where a step or the rounding changes,
    and the integer type's extremes."""
    x_char, n_char = sig[0], sig[1]
    dtype, itype = np.dtype(x_char), np.dtype(n_char)
    bits = {"e": 16, "f": 32, "d": 64}[x_char]
    rng = np.random.default_rng(9)
    x = rng.integers(0, 2 ** bits, 4096, dtype=np.uint64).astype(
        np.dtype("u%d" % (bits // 8))).view(dtype)
    x = np.concatenate([x, np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan], dtype),
                        np.array([np.finfo(dtype).smallest_subnormal, np.finfo(dtype).max,
                                  np.finfo(dtype).tiny], dtype)])
    info = np.iinfo(itype)
    edges = [0, 1, -1, 2, 24, 25, 53, 54, 100, 102, 126, 127, 128, 149, 150, 254, 255, 256,
             969, 1022, 1023, 1024, 1074, 1075, 1076, 2046, 2047, 2098, 2099, 5000,
             info.max, info.max - 1]
    ns = np.array(sorted({v for e in edges for v in (e, -e)} | {info.min}), dtype=np.int64)
    ns = ns[(ns >= info.min) & (ns <= info.max)].astype(itype)
    a, n = np.repeat(x, ns.size), np.tile(ns, x.size)
    for mode in ("ignore", "warn"):
        theirs = _fp_outcome(lambda: np.ldexp(a, n), mode)
        ours = _fp_outcome(lambda: titer.elementwise("ldexp", None, a, n), mode)
        assert ours == theirs, (sig, ours, theirs)
    same_as_numpy("ldexp", titer_call("ldexp", None, a, n), numpy_call("ldexp", a, n), sig)
    same_as_numpy("ldexp", titer_call("ldexp", None, a[::7], n[::7]),
                  numpy_call("ldexp", a[::7], n[::7]), sig + " strided")
    # the vector forms' other paths (NOTE [ldexp by vscalef]): a stride-0
    # operand either side, and outputs off the 64-byte boundary by 0-15
    # elements with lengths around a vector's
    for shift in range(16):
        length = 37 + shift
        out = np.empty(length + 16, dtype)[shift:shift + length]
        for x_part, n_part in ((a[:length], n[-length:]), (x[5], ns[:length]),
                               (x[:length], np.array(ns[3], itype))):
            for mode in ("ignore", "warn"):
                theirs = _fp_outcome(lambda: np.ldexp(x_part, n_part), mode)
                ours = _fp_outcome(lambda: titer.elementwise("ldexp", out, x_part, n_part), mode)
                assert ours == theirs, (sig, shift, ours, theirs)
            same_as_numpy("ldexp", out, numpy_call("ldexp", x_part, n_part),
                          "%s shift %d" % (sig, shift))


@pytest.mark.parametrize("name", ["multiply", "square", "conjugate"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_in_lanes_are_the_kernels(name, dtype):
    """NOTE [complex products in place] (titer_vcmul.h, the avx2 and avx512
    levels; the kernel at baseline): contiguous calls, a stride-0 operand either
    side, in place and every length around a vector's give the bits and the
    flags of the kernel (strided operands, which the lanes do not take),
    and NumPy's values, on parts with every special value."""
    z = value_grid(dtype, (40, 40), seed=7).ravel()
    parts = np.array(special_values(np.dtype(dtype).char.lower()), dtype=z.real.dtype)
    z.real[: parts.size * 3 : 3] = parts
    z.imag[1 : parts.size * 3 + 1 : 3] = parts
    w = z[::-1].copy()
    nin = 2 if name == "multiply" else 1

    def strided(a):
        b = np.empty(a.shape + (2,), a.dtype)[..., 0]
        b[...] = a
        return b

    buffer = np.empty(z.size + 8, dtype)

    def check(args, label, offset=None):
        with np.errstate(all="ignore"):
            out = None
            if offset is not None:      # the output at `offset` elements from a 64-byte boundary
                first = (-buffer.ctypes.data % 64) // buffer.itemsize + offset
                out = buffer[first:first + max(a.size for a in args)]
            got = titer.elementwise(name, out, *args)
            want = titer.elementwise(name, None, *[strided(a) if a.ndim else a for a in args])
        np.testing.assert_array_equal(got.view(z.real.dtype), want.view(z.real.dtype),
                                      err_msg=label)
        for mode in ("warn", "raise"):
            assert (_fp_outcome(lambda: titer.elementwise(name, None, *args), mode)
                    == _fp_outcome(lambda: titer.elementwise(
                        name, None, *[strided(a) if a.ndim else a for a in args]), mode)), label
        return got

    got = check((z, w)[:nin], "whole")
    with np.errstate(all="ignore"):
        same_as_numpy(name, got, getattr(np, name)(*(z, w)[:nin]), dtype)
    for length in range(0, 20):
        for start in (0, 1, 3):
            check((z[start:start + length], w[:length])[:nin], "%d %d" % (start, length))
            check((z[start:start + length], w[:length])[:nin], "out at %d: %d %d" % (
                start, start, length), offset=start)
            if nin == 2 and length:
                check((z[start], w[:length]), "scalar x %d %d" % (start, length))
                check((z[start:start + length], w[5]), "scalar y %d %d" % (start, length))
    inplace = z.copy()
    with np.errstate(all="ignore"):
        titer.elementwise(name, inplace, *(inplace, w)[:nin])
    np.testing.assert_array_equal(inplace.view(z.real.dtype), got.view(z.real.dtype))


_VBOOL_SIGS = sorted(key for key, (guard, _) in _codegen._INTRINSIC_FORMS.items()
                     if guard == "TITER_HAVE_VBOOL")


def _with_signalling_nan(values):
    """`values` with a signalling NaN (float64, or complex64 parts) last."""
    values = values.copy()
    if values.dtype.kind in "fc":
        bits = values.view(np.uint64 if values.dtype.itemsize == 8 else np.uint32)
        bits[-1] = 0x7FF0000000000001 if values.dtype == np.float64 else 0x7F800001
    return values


def _on_own_line(a):
    """`a` strided, which the forms do not take (the kernel runs)."""
    b = np.empty(a.shape + (2,), a.dtype)[..., 0]
    b[...] = a
    return b


@pytest.mark.parametrize("name,sig", _VBOOL_SIGS, ids=["%s-%s" % key for key in _VBOOL_SIGS])
def test_bools_from_64bit_lanes_are_the_kernels(name, sig):
    """NOTE [bools from 64-bit lanes] (titer_vbool.h, the avx2 level; the
    kernel at the others): contiguous calls into outputs at every offset
    from a 32-byte boundary, every length around a block's, a stride-0
    operand either side, give the kernel's bools and flags (strided
    operands, which the forms do not take) and NumPy's, on every special
    value and pair of them and a signalling NaN."""
    ins, _ = _ops.parse_signature(sig)
    args = [_with_signalling_nan(a) for a in _special_operands(ins, seed=11)]
    size = args[0].size
    buffer = np.zeros(size + 64, np.bool_)

    def check(call_args, offset, label):
        out = buffer[offset:offset + call_args[0].size if call_args[0].ndim else
                     offset + call_args[1].size]
        out[...] = True
        with np.errstate(all="ignore"):
            titer.elementwise(name, out, *call_args)
            want = titer.elementwise(name, None, *[_on_own_line(a) if a.ndim else a
                                                   for a in call_args])
            numpy_values = getattr(np, name)(*call_args)
        np.testing.assert_array_equal(out, want, err_msg=label)
        np.testing.assert_array_equal(out, numpy_values, err_msg=label)
        for mode in ("warn", "raise"):
            assert (_fp_outcome(lambda: titer.elementwise(name, out, *call_args), mode)
                    == _fp_outcome(lambda: titer.elementwise(
                        name, None, *[_on_own_line(a) if a.ndim else a for a in call_args]),
                        mode)), label

    base = (buffer.ctypes.data + 31) // 32 * 32 - buffer.ctypes.data
    check(args, base, "whole")
    for length in (0, 1, 2, 31, 32, 33, 63, 64, 65, 100):
        for offset in (0, 1, 7, 31):
            for start in (0, 1):
                part = [a[start:start + length] for a in args]
                check(part, base + offset, "%d %d %d" % (offset, start, length))
                if len(ins) == 2 and length:
                    check([args[0][size - 1 - start], part[1]], base + offset,
                          "scalar x %d %d %d" % (offset, start, length))
                    check([part[0], args[1][start]], base + offset,
                          "scalar y %d %d %d" % (offset, start, length))


@pytest.mark.parametrize("char", _codegen._VBOOL_CASTS)
def test_casts_of_64bit_lanes_into_bools_are_the_kernels(char):
    """The casts into bool of NOTE [bools from 64-bit lanes]: titer.copy of
    every special value and a signalling NaN, at every length around a block
    and every output offset, gives the strided copy's bools and flags and
    np.copyto's bools."""
    src = _with_signalling_nan(np.tile(_special_operands(char, seed=5)[0], 3))
    buffer = np.zeros(src.size + 64, np.bool_)
    base = (buffer.ctypes.data + 31) // 32 * 32 - buffer.ctypes.data
    for length in (0, 1, 31, 32, 33, 65, src.size):
        for offset in (0, 1, 31):
            part, dst = src[:length], buffer[base + offset:base + offset + length]
            want = np.zeros(length, np.bool_)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                titer.copy(dst, part, casting="unsafe")
                titer.copy(want, _on_own_line(part), casting="unsafe")
                numpy_values = np.zeros(length, np.bool_)
                np.copyto(numpy_values, part, casting="unsafe")
            label = "%d %d" % (offset, length)
            np.testing.assert_array_equal(dst, want, err_msg=label)
            np.testing.assert_array_equal(dst, numpy_values, err_msg=label)
            for mode in ("warn", "raise"):
                assert (_fp_outcome(lambda: titer.copy(dst, part, casting="unsafe"), mode)
                        == _fp_outcome(lambda: titer.copy(want, _on_own_line(part),
                                                          casting="unsafe"), mode)), label


def test_complex_abs_values_and_no_flag_from_inf_nan():
    """|z| on complex64/complex128 with every special value (inf and nan
    parts, zeros, huge and tiny parts): NumPy's values, and inf and nan parts
    raise nothing (the branch-free loop computes on masked lanes).  Overflow
    and underflow of huge / tiny finite parts are not compared: NumPy's
    SIMD loop raises none there (its complex flags vary by CPU path)."""
    for dtype in ("complex64", "complex128"):
        z = value_grid(dtype, (60, 60), seed=5)
        parts = np.array(special_values(np.dtype(dtype).char.lower()), dtype=z.real.dtype)
        z.real[:, : len(parts)] = parts
        z.imag[: len(parts), :] = parts[:, None]
        inf_nan = z[~np.isfinite(z.real) | ~np.isfinite(z.imag)]
        assert _fp_outcome(lambda: titer.elementwise("absolute", None, inf_nan), "raise") == ()
        with np.errstate(all="ignore"):
            got = titer.elementwise("absolute", None, z)
        same_as_numpy("absolute", got, np.abs(z), dtype)
        same_as_numpy("absolute", titer.elementwise("absolute", None, z[::3, ::2]),
                      np.abs(z[::3, ::2]), dtype + " strided")


def numpy_call_raw(name, *inputs):
    if name == "clip":
        return np._core.umath.clip(*inputs)
    return getattr(np, name)(*inputs)


def test_errstate_raise_and_call_for_new_ops():
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            titer.elementwise("log", None, np.zeros(3))
        with pytest.raises(FloatingPointError):
            titer.elementwise("floor_divide", None, np.arange(3), 0)
    seen = []
    with np.errstate(invalid="call"):
        np.seterrcall(lambda kind, flag: seen.append(kind))
        titer.elementwise("sqrt", None, np.array([-1.0]))
    assert seen == ["invalid value"]
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            titer.elementwise("arccos", None, np.array([2.0] * 100000))


# -- where(), clip() -----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_where_and_clip_every_dtype(dtype):
    x = value_grid(dtype, (6, 5), seed=1)
    y = value_grid(dtype, (5,), seed=2)
    cond = value_grid("float32", (6, 1), seed=3)         # any dtype, read as truth
    assert_like_numpy("where", (cond, x, y), "where %s" % dtype)
    assert_like_numpy("where", (x > y, x, 0), "where %s, 0" % dtype)
    lo = value_grid(dtype, (6, 5), seed=4)
    hi = value_grid(dtype, (5,), seed=5)
    assert_like_numpy("clip", (x, lo, hi), "clip %s" % dtype)
    for other in (np.float32, np.int8, np.complex128):
        assert_like_numpy("where", (cond, x, value_grid(other, (5,), seed=6)),
                          "where %s %s" % (dtype, np.dtype(other)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_clip_in_lexicographic_order_on_long_rows(dtype):
    """Complex clip (every compare runs, picks on the bits): NumPy's bits
    on rows long enough for the vector loop, with ties in the real parts so
    the imaginary parts decide, NaNs in either part of value or bound, and
    bounds crossed (lo > hi)."""
    rng = np.random.default_rng(26)
    n = 4099
    def draw():
        return (rng.integers(-3, 4, n) + 1j * rng.integers(-3, 4, n)).astype(dtype) / 2
    x, lo, hi = draw(), draw(), draw()
    for v in (x, lo, hi):
        v.real[rng.random(n) < 0.03] = np.nan
        v.imag[rng.random(n) < 0.03] = np.nan
    for args in ((x, lo, hi), (x, hi, lo), (x, lo[5], hi), (x[::3], lo[::3], hi[::-3])):
        with np.errstate(invalid="ignore"):
            want = np._core.umath.clip(*args)
        got = titer.elementwise("clip", None, *args)
        bits = np.uint32 if dtype == "complex64" else np.uint64
        np.testing.assert_array_equal(got.view(bits), want.view(bits))
        assert _warned(lambda: titer.elementwise("clip", None, *args)) == \
            _warned(lambda: np._core.umath.clip(*args))


def test_clip_with_scalar_bounds_and_none():
    a = value_grid("float32", (1000,), seed=9)
    assert_like_numpy("clip", (a, -1.0, 1.0), "clip scalars")
    assert_like_numpy("clip", (a.astype("int16"), -3, 250), "clip int scalars")


# -- hypothesis over the new ops -------------------------------------------------

NEW_BINARY = [op.name for op in _ops.OPS if op.nin == 2 and op.name in CATALOG]
NEW_UNARY = [op.name for op in _ops.OPS if op.nin == 1 and op.name in CATALOG]
python_scalars = st.one_of(st.integers(-(2 ** 70), 2 ** 70), st.floats(), st.booleans(),
                           st.complex_numbers())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(NEW_BINARY),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5),
       dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)))
def test_catalog_binary_hypothesis(data, name, shapes, dtypes):
    a = data.draw(hnp.arrays(dtypes[0], shapes.input_shapes[0]))
    if data.draw(st.booleans()):
        b = data.draw(hnp.arrays(dtypes[1], shapes.input_shapes[1]))
    else:
        b = data.draw(python_scalars)
    inputs = (a, b) if data.draw(st.booleans()) else (b, a)
    assert_like_numpy(name, inputs, "%s %r" % (name, [getattr(x, "dtype", x) for x in inputs]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(NEW_UNARY + ["where", "clip"]),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
       dtype=st.sampled_from(DTYPES))
def test_catalog_unary_and_ternary_hypothesis(data, name, shape, dtype):
    a = data.draw(hnp.arrays(dtype, shape))
    op = _ops.OPS_BY_NAME[name]
    extra = [data.draw(hnp.arrays(data.draw(st.sampled_from(DTYPES)), shape))
             for _ in range(op.nin - 1)]
    assert_like_numpy(name, (a, *extra), "%s %s" % (name, dtype))


# -- GPU arrays go to titer.cuda ---------------------------------------------------

class FakeGpuArray:
    __cuda_array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (0, False),
                                "version": 3}


def test_gpu_arrays_are_handed_to_titer_cuda(monkeypatch):
    calls = []
    fake = types.ModuleType("titer.cuda.dispatch")
    fake.elementwise = lambda name, out, *inputs, **kw: calls.append((name, out, inputs, kw)) or "gpu"
    monkeypatch.setitem(sys.modules, "titer.cuda.dispatch", fake)
    monkeypatch.setattr(titer._core, "_CUDA_ENTRIES", {})            # not imported yet
    x = FakeGpuArray()
    assert titer.elementwise("exp", None, x) == "gpu"
    assert titer.elementwise("add", None, x, 1.0, casting="unsafe") == "gpu"
    assert calls[1][0] == "add" and calls[1][3]["casting"] == "unsafe"


def test_gpu_array_without_cuda_side_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "titer.cuda.dispatch", None)    # import fails
    monkeypatch.setattr(titer._core, "_CUDA_ENTRIES", {})            # not imported yet
    with pytest.raises(ImportError, match="CUDA"):
        titer.elementwise("exp", None, FakeGpuArray())


def test_importing_titer_does_not_import_cupy():
    import subprocess
    code = "import sys, titer; print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=__import__("os").path.dirname(__import__("os").path.dirname(
                             titer.__file__)))
    assert out.stdout.strip() == "False", out.stderr


# -- float32 fast paths -----------------------------------------------------------

# op -> (an in-range magnitude interval, an out-of-range value and the warning
# libm raises for it, or None where it raises none)
FAST_PATH_RANGES = {"exp": ((1e-30, 80), (100, "overflow")),
                    "exp2": ((0, 126), (200, "overflow")),
                    "log": ((1e-30, 80), (0, "divide")),
                    "log10": ((1e-30, 3e38), (0, "divide")),
                    "log2": ((1e-30, 3e38), (0, "divide")),
                    "tanh": ((2.0 ** -12, 43), None),
                    "sin": ((2.0 ** -126, 2.0 ** 20), (np.inf, "invalid")),
                    "cos": ((2.0 ** -126, 2.0 ** 20), (np.inf, "invalid")),
                    "tan": ((2.0 ** -126, 2.0 ** 20), (np.inf, "invalid")),
                    "expm1": ((2.0 ** -60, 88), (100, "overflow")),
                    "log1p": ((2.0 ** -60, np.inf), (-1, "divide")),
                    "sinh": ((2.0 ** -30, 87.5), (100, "overflow")),
                    "cosh": ((0, 89), (-100, "overflow")),
                    "cbrt": ((2.0 ** -126, np.inf), None),
                    "arcsinh": ((2.0 ** -60, np.inf), None),
                    "arccosh": ((1, np.inf), (0.5, "invalid")),
                    "arctanh": ((2.0 ** -60, 1), (2, "invalid")),
                    "arctan": ((2.0 ** -60, np.inf), None),
                    "arcsin": ((2.0 ** -60, 1), (-2, "invalid")),
                    "arccos": ((0, 1), (2, "invalid"))}
# the signed inputs of a fast path's range, where its magnitudes are not all
FAST_PATH_DOMAINS = {"log": lambda x: x > 0, "log10": lambda x: x > 0, "log2": lambda x: x > 0,
                     "log1p": lambda x: x > -1, "arccosh": lambda x: x >= 1}


def fast_path_inputs(name, x):
    """The finite elements of float32 `x` in the fast path's range."""
    (lo, hi), _ = FAST_PATH_RANGES[name]
    x = x[np.isfinite(x)]
    x = x[(np.abs(x) >= lo) & (np.abs(x) < hi)]
    return x[FAST_PATH_DOMAINS.get(name, np.isfinite)(x)]


# float64 fast paths: op -> (in-range magnitude interval, negative inputs in
# range too, an out-of-range value and the warning libm raises for it)
FAST64_RANGES = {"exp": ((2.0 ** -28, 704), True, (710.0, "overflow")),
                 "exp2": ((2.0 ** -28, 1015), True, (1100.0, "overflow")),
                 "expm1": ((2.0 ** -28, 704), True, (710.0, "overflow")),
                 "arcsin": ((2.0 ** -26, 1.0), True, (2.0, "invalid")),
                 "log": ((np.finfo(np.float64).tiny, np.finfo(np.float64).max), False,
                         (0.0, "divide")),
                 "sin": ((2.0 ** -26, 2.0 ** 19), True, (np.inf, "invalid")),
                 "cos": ((2.0 ** -26, 2.0 ** 19), True, (np.inf, "invalid")),
                 "tan": ((2.0 ** -26, 2.0 ** 20), True, (np.inf, "invalid"))}


# the float64 fast paths' bounds from the correctly rounded result (expm1:
# s - 1 rounds where s >= 2^53, 1.03 ULP at worst;
# arcsin: pi/2 - 2s rounds near |x| = 0.84, 1.6 ULP at worst; tan: within
# 0.99 ULP of the exact result, 1.11 without FMA)
FAST64_ULPS = {"exp": 1, "exp2": 1, "log": 1, "sin": 1, "cos": 1, "expm1": 2, "arcsin": 2, "tan": 1}


def _exponent(v):
    return (v.view(np.uint32) >> 23) & 0xff


def _in_power_range(x, y):
    """titer_fast_powerf_ok: x normal, positive, finite; |y| < 2^24 and
    |y| (|exponent of x| + 1) < 120."""
    e = np.abs(_exponent(x).astype(np.int64) - 127)
    with np.errstate(all="ignore"):
        bound = np.abs(y).astype(np.float64) * (e + 1)
    return (x > 0) & (_exponent(x) >= 1) & (_exponent(x) <= 254) & (np.abs(y) < 2.0 ** 24) \
        & (bound < 120)


# float32 arctan2's fast path: |y| and |x| in [2^-45, 2^45)
# (titer_fast_arctan2f_ok, titer_vatan2f16_ok)
ARCTAN2_32_RANGE = (2.0 ** -45, 2.0 ** 45)


def _arctan2f_range(y, x):
    return _within(y, ARCTAN2_32_RANGE) & _within(x, ARCTAN2_32_RANGE)


def _divisor_normal_quotient_below_2_27(x, y):
    """titer_fast_fmodf_ok: y normal, x finite, exponent(x) - exponent(y) < 27."""
    ex, ey = _exponent(x).astype(np.int64), _exponent(y).astype(np.int64)
    return (ey >= 1) & (ey <= 254) & (ex <= 254) & (ex - ey < 27)


def _floor_divide_range(x, y):
    """titer_fast_floor_dividef_ok: also x zero or x / y not below 2^-100."""
    ex, ey = _exponent(x).astype(np.int64), _exponent(y).astype(np.int64)
    return _divisor_normal_quotient_below_2_27(x, y) & ((ex - ey > -100) | (x == 0))


# binary float32 fast paths: op -> (which (x, y) pairs are in range, a pair
# libm raises a warning for and the warning, or None)
FAST2_RANGES = {"fmod": (_divisor_normal_quotient_below_2_27, ((1.0, 0.0), "invalid")),
                "remainder": (_divisor_normal_quotient_below_2_27, ((1.0, 0.0), "invalid")),
                "floor_divide": (_floor_divide_range, ((1.0, 0.0), "divide")),
                "hypot": (lambda x, y: np.isfinite(x) & np.isfinite(y),
                          ((3e38, 3e38), "overflow")),
                "arctan2": (_arctan2f_range, None),
                "power": (_in_power_range, ((10.0, 50.0), "overflow"))}


# signatures the vector math library may run instead of the own fast path
VECTOR_LIBM = {(op.name, sig) for op in _ops.OPS for sig in (op.veclib or {})}
# fast paths that give NumPy's bits (glibc's hypotf formula; fmod exact)
EXACT_FAST2 = {"hypot", "fmod", "remainder", "floor_divide"}


def fast2_pairs(name):
    """In-range float32 pairs: magnitudes log-uniform over the float32 range
    and uniform in (0, 4), both signs, exact multiples and their neighbours,
    then filtered by the op's range."""
    rng = np.random.default_rng(11)
    n = 400000
    logu = np.exp(rng.uniform(-87, 88, (2, n))) * rng.choice([-1, 1], (2, n))
    near = rng.uniform(-4, 4, (2, n))
    power_like = np.stack([rng.uniform(0, 4, n), rng.uniform(-30, 30, n)])
    # exact multiples of y and their neighbours (zero and tiny moduli, the
    # quotients next to an integer that fmod must not round)
    y = (rng.integers(1, 64, n) / 8 * rng.choice([-1, 1], n)).astype(np.float32)
    mult = (rng.integers(-2 ** 17, 2 ** 17, n) * y).astype(np.float32)
    side = rng.choice([-1, 0, 1], n)
    toward = np.where(side > 0, np.float32(np.inf), np.float32(-np.inf))
    mult = np.where(side == 0, mult, np.nextafter(mult, toward))
    multiples = np.stack([mult, y])
    x, y = np.concatenate([logu, near, power_like, multiples], axis=1).astype(np.float32)
    keep = FAST2_RANGES[name][0](x, y)
    return x[keep], y[keep]


def own_fast_path(name, *args):
    """titer's own vectorized path for float32 / float64 `args` (contiguous,
    or one of length 1 for a scalar): its loop whether or not the tables run
    the vector math library's for the signature (titer_veclib.h)."""
    char = args[0].dtype.char
    out = np.empty(max(a.size for a in args), args[0].dtype)
    return _core._own_fast_path(name, char * len(args) + "->" + char, out, *args)


def test_own_fast_path_hook_runs_the_own_loop_and_checks_its_operands():
    x = np.linspace(0.5, 2.0, 1001, dtype=np.float32)
    rounded = np.log(x.astype(np.float64)).astype(np.float32)
    assert np.abs(own_fast_path("log2", x).view(np.int32)
                  - np.log2(x.astype(np.float64)).astype(np.float32).view(np.int32)).max() <= 1
    assert np.abs(own_fast_path("log", x).view(np.int32) - rounded.view(np.int32)).max() <= 1
    with pytest.raises(ValueError, match="no own fast path"):
        _core._own_fast_path("add", "ff->f", x, x, x)
    with pytest.raises(ValueError, match="operand 1"):
        _core._own_fast_path("log", "f->f", x, x[::2])
    with pytest.raises(ValueError, match="operand 0"):
        _core._own_fast_path("log", "f->f", x.astype(np.float64), x)


def test_every_fast_path_is_covered():
    assert set(FAST_PATH_RANGES) == {op.name for op in _ops.OPS if "f->f" in (op.fast or {})}
    assert set(FAST2_RANGES) == {op.name for op in _ops.OPS if "ff->f" in (op.fast or {})}
    # float64 binary: test_float64_hypot_fast_path, test_float64_fmod_family_fast_paths,
    # test_float64_arctan2_fast_path
    assert {op.name for op in _ops.OPS if "dd->d" in (op.fast or {})} == {
        "hypot", "fmod", "remainder", "floor_divide", "arctan2"}
    # two outputs: test_divmod_fast_paths
    assert {op.name for op in _ops.OPS if {"ff->ff", "dd->dd"} & set(op.fast or {})} == {"divmod"}
    # tanh: test_float64_tanh_fast_path_dispatched_and_its_twin (no input
    # out of its range warns, as FAST64_RANGES' tests need)
    assert set(FAST64_RANGES) | {"tanh"} == {op.name for op in _ops.OPS
                                             if "d->d" in (op.fast or {})}


@pytest.mark.parametrize("name", sorted(FAST64_RANGES))
def test_float64_fast_paths(name):
    """In range: within FAST64_ULPS of the correctly rounded result (long
    double's, rounded) on 3e6 values, uniform and log-uniform in magnitude,
    raising nothing; special values, the edges of the range and strided
    input (libm's loop) are NumPy's bits, with NumPy's warnings."""
    (lo, hi), signed, (provoke, warning) = FAST64_RANGES[name]
    rng = np.random.default_rng(5)
    mags = np.concatenate([rng.uniform(lo, hi, 10 ** 6), rng.uniform(0.5, 2.0, 10 ** 6),
                           np.exp(rng.uniform(np.log(lo), np.log(hi), 10 ** 6))])
    x = np.where(signed & (rng.random(mags.size) < 0.5), -mags, mags)
    x = x[(np.abs(x) >= lo) & (np.abs(x) < hi)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        titer.elementwise(name, None, x)
    want = getattr(np, name)(x.astype(np.longdouble)).astype(np.float64)
    ulps = np.abs(own_fast_path(name, x).view(np.int64) - want.view(np.int64))
    assert ulps.max() <= FAST64_ULPS[name], x[np.argmax(ulps)]
    tiny = np.nextafter(lo, 0)
    edges = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-300, tiny,
                      lo, -lo, np.nextafter(hi, 0), -np.nextafter(hi, 0), hi, -hi,
                      -745.2, -1000.0, 709.7, 1.0, np.finfo(np.float64).max, provoke,
                      -provoke])
    with np.errstate(all="ignore"):
        same_as_numpy(name, titer.elementwise(name, None, edges), getattr(np, name)(edges), name)
        strided = x[::3]
        same_as_numpy(name, titer.elementwise(name, None, strided), getattr(np, name)(strided),
                      name + " strided")
    with pytest.warns(RuntimeWarning, match=warning):
        titer.elementwise(name, None, np.concatenate([x[:100], [provoke]]))


# own fast paths that libm warns outside of: (name, type char)
OWN_FAST_PROVOKED = sorted([(name, "f") for name, r in FAST_PATH_RANGES.items() if r[1]]
                           + [(name, "d") for name in FAST64_RANGES])


@pytest.mark.parametrize("name,char", OWN_FAST_PROVOKED, ids=lambda v: str(v))
def test_own_fast_path_out_of_range_anywhere_in_a_block(name, char):
    """TITER_SPLIT_LOOP runs FAST alone on a block all in range, the masked
    pass on one with an element out of range: one such element at a
    block's first or last place, the next block's or the call's last, gives
    the other elements the all-in-range call's bits and itself libm's value
    (NumPy's), with NumPy's warning; in place too (the masked pass leaves
    the input there for libm).  The hook's loop (the baseline's) and the
    dispatched level's."""
    dtype = np.dtype(char)
    if char == "f":
        (lo, hi), (value, warning) = FAST_PATH_RANGES[name]
    else:
        (lo, hi), signed, (value, warning) = FAST64_RANGES[name]
    rng = np.random.default_rng(23)
    n = 2 * 1024 + 21
    mags = np.exp(rng.uniform(np.log(max(lo, 1e-30)), np.log(min(hi, 1e30)), 4 * n))
    x = np.where(rng.random(mags.size) < 0.5, -mags, mags).astype(dtype)
    if char == "f":
        x = fast_path_inputs(name, x)
    else:
        x = x[(np.abs(x) >= lo) & (np.abs(x) < hi) & (signed | (x > 0))]
    x = x[:n]
    assert x.size == n
    sig = char + "->" + char
    hooked, dispatched = own_fast_path(name, x), titer.elementwise(name, None, x)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(np.array([value], dtype))
    bits = np.uint32 if char == "f" else np.uint64
    for p in (0, 1, 1023, 1024, 1025, 2047, 2048, n - 1):
        y = x.copy()
        y[p] = value
        for whole, run in ((hooked, lambda out, y: _core._own_fast_path(name, sig, out, y)),
                           (dispatched, lambda out, y: titer.elementwise(name, out, y))):
            with pytest.warns(RuntimeWarning, match=warning):
                out = np.empty_like(y)
                run(out, y)
                titer.elementwise(name, None, y)        # the warning (the hook drops flags)
            inplace = y.copy()
            with np.errstate(all="ignore"):
                run(inplace, inplace)
            for got, what in ((out, "contiguous"), (inplace, "in place")):
                what = "%s %s at %d" % (sig, what, p)
                same_as_numpy(name, got[p:p + 1], want, what)
                np.testing.assert_array_equal(np.delete(got, p).view(bits),
                                              np.delete(whole, p).view(bits), what)


# the doubles closest to a multiple q pi/2 of all with q < 2^20 / (pi/2)
# (an exhaustive search over q in big-integer arithmetic): |x - q pi/2|
# down to 2^-60.5 (q = 29 and its doublings), where tan(x) = -1 / r needs
# pi/2 to 113 bits beyond x's last one
def _same_bits_by_twin_and_shuffled(name, x, got, rng):
    """A float64 8-lane form's bits `got` for `x` again through its scalar
    twin (rows of 7 elements: each a loop's remainder) and shuffled
    (vectors mixing the kernel's branches)."""
    rows = x[: x.size // 7 * 7].reshape(-1, 7)
    padded = np.full((rows.shape[0], 8), 0.25)
    padded[:, :7] = rows
    twin = titer.elementwise(name, None, padded[:, :7])
    np.testing.assert_array_equal(twin.ravel().view(np.uint64), got[: rows.size].view(np.uint64))
    order = rng.permutation(x.size)
    shuffled = titer.elementwise(name, None, x[order])
    np.testing.assert_array_equal(shuffled.view(np.uint64), got[order].view(np.uint64))


def test_float64_arcsin_fast_path_dispatched_and_its_twin():
    """float64 arcsin runs titer's own path at every level (8 lanes at
    AVX-512, titer_vfast_arcsin; the split loop below): the dispatched
    level's values within FAST64_ULPS["arcsin"] of long double's result
    around |x| = 1/2 (the switch to the sqrt branch), near 1 and over the
    range, raising nothing, and the same bits through the vector loop,
    through its scalar twin (rows of 7 elements: each a loop's remainder)
    and shuffled (vectors mixing the branches)."""
    assert ("arcsin", "d") in _ops._VECTOR_LIBM_SKIP
    rng = np.random.default_rng(11)
    half = (np.float64(0.5).view(np.int64) + np.arange(-3000, 3000)).view(np.float64)
    near_one = (np.float64(1.0).view(np.int64) - np.arange(1, 3000)).view(np.float64)
    x = np.concatenate([half, near_one, rng.uniform(2.0 ** -26, 1, 300000),
                        np.exp2(rng.uniform(-26, 0, 100000))])
    x = np.where(rng.random(x.size) < 0.5, -x, x)
    x = x[(np.abs(x) >= 2.0 ** -26) & (np.abs(x) < 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = titer.elementwise("arcsin", None, x)
    want = np.arcsin(x.astype(np.longdouble)).astype(np.float64)
    ulps = np.abs(got.view(np.int64) - want.view(np.int64))
    assert ulps.max() <= FAST64_ULPS["arcsin"], x[np.argmax(ulps)]
    _same_bits_by_twin_and_shuffled("arcsin", x, got, rng)


def test_float64_tanh_fast_path_dispatched_and_its_twin():
    """float64 tanh by titer's own path (titer_vexp.h: m / (m + 2) with
    m = e^(2|x|) - 1 and the quotient corrected in twice double precision,
    no division; tanh's series below 1/16 and x itself below 2^-27), 8
    lanes at AVX-512 and the split loop where no vector libm takes it:
    within 1 ULP of long double's result with FMA (0.61 of the exact value
    measured; 2 in the baseline's loop, without) over the range, at the
    switches to the series and to x, where m + 2 crosses 4 and where tanh
    rounds to 1, raising nothing; the same bits through the vector loop,
    through its scalar twin (rows of 7 elements: each a loop's remainder)
    and shuffled (vectors mixing the branches); edge values NumPy's, and at
    AVX-512 NumPy's warnings too (no underflow for a subnormal x, where
    glibc's tanh raises one)."""
    avx512 = _core.isa_levels()[1] == "avx512"
    own = avx512 or not _core.has_vector_libm()
    rng = np.random.default_rng(24)
    def around(v, k):
        return (np.float64(v).view(np.int64) + np.arange(-k, k)).view(np.float64)
    x = np.concatenate([around(1 / 16, 3000), around(2.0 ** -27, 3000),
                        around(np.log(3) / 2, 3000), around(19.06, 3000), around(20.0, 100),
                        rng.uniform(0, 1.5, 300000), np.exp2(rng.uniform(-40, 4.7, 300000))])
    x = np.where(rng.random(x.size) < 0.5, -x, x)
    with np.errstate(all="raise"):
        got = titer.elementwise("tanh", None, x)
    want = np.tanh(x.astype(np.longdouble)).astype(np.float64)
    bound = 1 if avx512 or _core.isa_levels()[1] == "avx2" else 2
    for result, limit in (((got, bound),) if own else ()) + ((own_fast_path("tanh", x), 2),):
        ulps = np.abs(result.view(np.int64) - want.view(np.int64))
        assert ulps.max() <= limit, x[np.argmax(ulps)]
    _same_bits_by_twin_and_shuffled("tanh", x, got, rng)
    edges = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-310, 1e-300,
                      2.0 ** -27, 1.0, 25.0, -710.0, np.finfo(np.float64).max] * 3)
    with np.errstate(all="ignore"):
        same_as_numpy("tanh", titer.elementwise("tanh", None, edges), np.tanh(edges), "tanh edges")
    if avx512:
        assert _warned(lambda: titer.elementwise("tanh", None, edges)) == \
            _warned(lambda: np.tanh(edges))


@pytest.mark.parametrize("name", ["exp", "exp2"])
def test_float64_exp_near_table_boundaries(name):
    """exp's and exp2's reduction x = (16m + j) ln2/16 + r (titer_vexp.h;
    exp2: x = (16m + j)/16 + r/ln2) where it is closest to its limits: x near
    the odd multiples of ln2/32 (1/32; k rounds either way, |r| is largest)
    and near the multiples of ln2/16 (r near 0, j changing), a few ULP
    either side, over the whole range: within FAST64_ULPS of long double's
    result, both the baseline build's (the hook's, without FMA) and the
    dispatched level's where it runs them (exp2 below AVX-512: the vector
    libm's); and the dispatched level's bits the same through the 8-lane
    loop and through its scalar twin (rows of 7 elements: each a loop's
    remainder)."""
    (lo, hi), _, _ = FAST64_RANGES[name]
    step = np.log(np.longdouble(2)) / 32 if name == "exp" else np.longdouble(1) / 32
    k = np.arange(-int(hi / step), int(hi / step) + 1)
    near = (k * step).astype(np.float64)
    x = (near.view(np.int64)[:, None] + np.arange(-4, 5)).ravel().view(np.float64)
    x = x[(np.abs(x) >= lo) & (np.abs(x) < hi)]
    want = getattr(np, name)(x.astype(np.longdouble)).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dispatched = titer.elementwise(name, None, x)
    # exp2 below AVX-512 runs the vector libm's loop (test_veclib.py's)
    own = name == "exp" or _core.isa_levels()[1] == "avx512" or not _core.has_vector_libm()
    for got in (own_fast_path(name, x),) + ((dispatched,) if own else ()):
        ulps = np.abs(got.view(np.int64) - want.view(np.int64))
        assert ulps.max() <= FAST64_ULPS[name], x[np.argmax(ulps)]
    rows = x[: x.size // 7 * 7].reshape(-1, 7)
    padded = np.zeros((rows.shape[0], 8))
    padded[:, :7] = rows
    twin = titer.elementwise(name, None, padded[:, :7])
    np.testing.assert_array_equal(twin.view(np.int64).ravel(),
                                  dispatched[: rows.size].view(np.int64))


def test_float32_power_by_tables():
    """float32 power (titer_vpowf.h at AVX-512, titer_fast_powerf below):
    every 4099th float32 x in range for exponents at the range's edges
    (|y log2 x| near 120) and inside it, within 1 ULP of the float64 power
    rounded to float32, a scalar exponent and pairs giving the same bits;
    the same bits through the 16-lane loop and through its scalar twin
    (rows of 15 elements: each a loop's remainder), and at AVX-512 strided
    (its blocks gathered); out-of-range elements
    inside whole vectors getting libm's answers and NumPy's warnings, in
    place too."""
    x = np.arange(0x00800000, 0x7f800000, 4099, dtype=np.uint32).view(np.float32)
    for yv in (119.9, -119.9, 64.5, 7.77, -3.7, 2.5, 0.3333333, 1e-3):
        y = np.float32(yv)
        xs = x[_in_power_range(x, y)]
        assert xs.size > 1000
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = titer.elementwise("power", None, xs, y)
            pairs = titer.elementwise("power", None, xs, np.full(xs.size, y))
        rounded = np.power(xs.astype(np.float64), np.float64(y)).astype(np.float32)
        ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
        assert ulps.max() <= 1, (yv, xs[np.argmax(ulps)])
        np.testing.assert_array_equal(pairs.view(np.uint32), got.view(np.uint32))
        rows = xs[: xs.size // 15 * 15].reshape(-1, 15)
        padded = np.ones((rows.shape[0], 16), np.float32)
        padded[:, :15] = rows
        twin = titer.elementwise("power", None, padded[:, :15], y)
        np.testing.assert_array_equal(twin.ravel().view(np.uint32),
                                      got[: rows.size].view(np.uint32))
        if _core.isa_levels()[1] == "avx512":       # (the split loop's go to libm)
            strided = titer.elementwise("power", None, np.repeat(xs, 2)[::2], y)
            np.testing.assert_array_equal(strided.view(np.uint32), got.view(np.uint32))
    xs = x[_in_power_range(x, np.float32(2.5))][:4000].copy()
    odd = np.array([-1.5, 0.0, np.inf, np.nan, 1e-40, -0.0, 3e38], np.float32)
    xs[5::37] = np.resize(odd, xs[5::37].size)
    ys = np.where(np.arange(xs.size) % 53 == 7, np.float32(300.0), np.float32(2.5))
    for y in (np.float32(2.5), ys):
        _power_like_numpy_with_odd_lanes(xs, y)


def _power_like_numpy_with_odd_lanes(xs, y):
    """power of xs (out-of-range values among them) and y, apart and in
    place: NumPy's values and its invalid warning."""
    with np.errstate(all="ignore"):
        want = np.power(xs, y)
    for inplace in (False, True):
        work = xs.copy()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = titer.elementwise("power", work if inplace else None, work, y)
        same_as_numpy("power", got, want, "in place" if inplace else "apart")
        messages = {str(w.message) for w in caught}
        assert "invalid value encountered in power" in messages, messages


def _float64_power_cases(rng, n):
    """Pairs over titer_vpow_ok's range: x log-uniform over the normals and
    near 1, y taking y log x anywhere in (-690, 690) (its ends included,
    where the log's error is multiplied most), small y, and integer y."""
    x = np.concatenate([2.0 ** rng.uniform(-1000, 1000, n), 1 + rng.uniform(-0.05, 0.05, n),
                        1 + rng.uniform(-2.0 ** -30, 2.0 ** -30, n), rng.uniform(0.1, 0.9, n)])
    logx = np.log(x)
    logx[logx == 0] = 1.0
    reach = rng.choice([690.0, 600.0, 30.0, 1.0], x.size) * rng.uniform(-1, 1, x.size)
    y = reach / logx
    y[::5] = rng.uniform(0.1, 0.9, y[::5].size)
    y[1::7] = 2.0 ** rng.uniform(-400, -20, y[1::7].size)
    y[2::11] = rng.integers(-9, 10, y[2::11].size)
    keep = _in_float64_power_range(x, y)
    return x[keep], y[keep]


def _in_float64_power_range(x, y):
    """titer_vpow_ok for normal positive x: y 0 or 2^-400 <= |y|, and
    |y| (|exponent of x| + 1) < 1000."""
    e = np.abs(np.frexp(x)[1].astype(np.int64) - 1)
    return (np.abs(y) * (e + 1) < 1000) & ((np.abs(y) >= 2.0 ** -400) | (y == 0))


def test_float64_power_by_tables():
    """float64 power (titer_vpow.h at AVX-512: the log in double-double from
    a 16-piece table, e^(y log x) from titer_vexp.h's; the vector math
    library's pow below): within 1 ULP of long double's power at AVX-512
    (NumPy's bound of 2 at the other levels) on random pairs across the range,
    y log x near +-690 included, raising nothing; exact powers exact; a
    scalar exponent and pairs giving the same bits; the scalar twin's bits
    (rows of 7 elements: each a loop's remainder) the same as the vector's;
    out-of-range elements inside whole vectors getting libm's answers and
    NumPy's warnings, in place too."""
    x, y = _float64_power_cases(np.random.default_rng(64), 40000)
    assert x.size > 100000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = titer.elementwise("power", None, x, y)
    want = np.power(x.astype(np.longdouble), y.astype(np.longdouble))
    unit = np.spacing(np.abs(want.astype(np.float64)))
    ulps = np.abs((got.astype(np.longdouble) - want) / unit.astype(np.longdouble))
    bound = 1 if _core.isa_levels()[1] == "avx512" else ULP_BOUNDS[8]
    assert ulps.max() <= bound, (x[np.argmax(ulps)], y[np.argmax(ulps)], ulps.max())
    rows = x[: x.size // 7 * 7].reshape(-1, 7)
    twin = titer.elementwise("power", None, rows, y[: rows.size].reshape(-1, 7))
    np.testing.assert_array_equal(twin.ravel().view(np.int64), got[: rows.size].view(np.int64))
    for yv in (2.5, -0.37, 1e-3, 31.0):
        xs = x[_in_float64_power_range(x, yv)]
        scalar = titer.elementwise("power", None, xs, yv)
        pairs = titer.elementwise("power", None, xs, np.full(xs.size, yv))
        np.testing.assert_array_equal(scalar.view(np.int64), pairs.view(np.int64))
    base = np.concatenate([np.tile(np.arange(1.0, 20.0), 10), 2.0 ** np.arange(-9, 10)])
    exps = np.concatenate([np.repeat(np.arange(0.0, 10.0), 19), np.arange(-9.0, 10.0)])
    np.testing.assert_array_equal(titer.elementwise("power", None, base, exps),
                                  np.power(base, exps))
    xs = np.resize(x, 4000)
    ys = np.resize(y, 4000)
    odd = np.array([-1.5, 0.0, np.inf, np.nan, 1e-310, -0.0, 1e308, 1.0], np.float64)
    xs[5::37] = np.resize(odd, xs[5::37].size)
    ys[9::53] = np.resize([1e5, -np.inf, np.nan, 1e-320, 0.0], ys[9::53].size)
    _power_like_numpy_with_odd_lanes(xs, ys)


def test_float32_tan_fast_path_in_its_vector_forms_and_their_twin():
    """float32 tan (titer_vtanf.h's 16-lane float and 8-lane double forms at
    AVX-512, titer_fast_tanf below): every float32 near the multiples of
    pi/4 up to 2^20 (the poles, the zeros, the quadrant switch) and every
    1021st bit pattern in range, within 1 ULP of the float64 tan rounded to
    float32, raising nothing; the same bits through the vector loop,
    through the scalar twin (rows of 7 elements: each a loop's remainder),
    in place, shuffled (vectors mixing the forms' ranges) and strided; out-of-range
    elements inside whole vectors getting libm's answers and NumPy's
    warning."""
    k = np.concatenate([np.arange(1, 3000), np.geomspace(3000, 1.3e6, 3000).astype(np.int64)])
    centers = (k.astype(np.longdouble) * np.longdouble(np.pi) / 4).astype(np.float32)
    steps = np.arange(-40, 41)
    near = (centers.view(np.int32).astype(np.int64)[:, None] + steps).ravel()
    wide = np.arange(0x00800000, 0x49800000, 1021, dtype=np.int64)
    # the float form's range ends (2^-39, 2^17) and the fast range's
    ends = (np.array([0x2c000000, 0x48000000, 0x00800000, 0x49800000])[:, None]
            + np.arange(-3, 4)).ravel()
    x = np.concatenate([near, wide, ends]).astype(np.int32).view(np.float32)
    x = np.concatenate([x, -x])
    x = x[(np.abs(x) >= 2.0 ** -126) & (np.abs(x) < 2.0 ** 20)]
    rounded = np.tan(x.astype(np.float64)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = titer.elementwise("tan", None, x)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert ulps.max() <= 1, x[np.argmax(ulps)]
    rows = x[: x.size // 7 * 7].reshape(-1, 7)
    padded = np.ones((rows.shape[0], 8), np.float32)
    padded[:, :7] = rows
    twin = titer.elementwise("tan", None, padded[:, :7])
    np.testing.assert_array_equal(twin.ravel().view(np.uint32), got[: rows.size].view(np.uint32))
    inplace = x.copy()
    titer.elementwise("tan", inplace, inplace)
    np.testing.assert_array_equal(inplace.view(np.uint32), got.view(np.uint32))
    order = np.random.default_rng(5).permutation(x.size)
    shuffled = titer.elementwise("tan", None, x[order])
    np.testing.assert_array_equal(shuffled.view(np.uint32), got[order].view(np.uint32))
    if _gathers_strided_blocks("tan"):
        strided = titer.elementwise("tan", None, np.repeat(x, 2)[::2])
        np.testing.assert_array_equal(strided.view(np.uint32), got.view(np.uint32))
    mixed = x[:5000].copy()
    mixed[3::41] = np.resize(np.array([np.inf, -np.inf, np.nan, 2.0 ** 21, 1e-40, 0.0, -0.0],
                                      np.float32), mixed[3::41].size)
    with np.errstate(all="ignore"):
        want = np.tan(mixed)
    for work in (mixed.copy(), None):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = titer.elementwise("tan", work, mixed if work is None else work)
        same_as_numpy("tan", result, want, "in place" if work is not None else "apart")
        assert {str(w.message) for w in caught} == {"invalid value encountered in tan"}


def _gathers_strided_blocks(name):
    """Whether the float32 loop of `name` computes a strided call's elements
    as it does a contiguous call's: the vector forms (at AVX-512) and the
    vector math library's loops gather strided blocks; the split loops send
    strided elements to libm."""
    op = next(op for op in _ops.OPS if op.name == name)
    if _codegen.vector_form_guard(op, "f->f") and _core.isa_levels()[1] == "avx512":
        return True
    return (name, "f->f") in VECTOR_LIBM and _core.has_vector_libm()


# float32 log, log1p and the functions reduced to it (titer_vlog1pf.h's
# 16-lane forms at AVX-512): the ULP bound there from the float64 result
# rounded to float32, the in-range inputs near their seams (the exponent
# steps at sqrt(2) 2^e, and 2^e - 1 for log1p, arccosh's and arcsinh's
# switch to log(2x), the range ends) and an out-of-range value with NumPy's
# warning for it
_LOG1P_FAMILY = {
    "log": (1, [2.0 ** -126, 1.0, 3e38] + [np.sqrt(2) * 2.0 ** k for k in range(-126, 127, 5)],
            (0.0, "divide")),
    "log1p": (1, [2.0 ** -60, 2.0 ** -42, 2.0 ** -24, -0.5, -1 + 2.0 ** -24, 3e38]
              + [np.sqrt(2) * 2.0 ** k - 1 for k in range(-20, 127, 3)], (-1.0, "divide")),
    "arccosh": (2, [1.0, 1.0 + 2.0 ** -10, 8192.0, 2.0 ** 24, 3e38], (0.5, "invalid")),
    "arcsinh": (2, [2.0 ** -60, 2.0 ** -12, 1.0, 4096.0, 2.0 ** 24, 3e38], None),
    "arctanh": (2, [2.0 ** -60, 2.0 ** -12, 0.5, 1.0 - 2.0 ** -24], (2.0, "invalid")),
    # tanh's and arctan's pieces (titer_voddf.h): quarter octaves from 2^-4,
    # tanh 1 from 9.01, arctan's second formula from 16 (its 1/|x| held at 2^40)
    "tanh": (1, [2.0 ** -12, 9.01, 15.99, 16.0, 43.0] + [2.0 ** (k / 4 - 4) for k in range(33)],
             None),
    "arctan": (1, [2.0 ** -60, 16.0, 2.0 ** 40, 3e38] + [2.0 ** (k / 4 - 4) for k in range(33)],
               None),
    # sinh's reduction (titer_vsinhf.h): n = rint(|x| / ln2) steps at (k + 1/2) ln2
    "sinh": (1, [2.0 ** -30, 87.5] + [(k + 0.5) * np.log(2) for k in range(126)],
             (100.0, "overflow")),
    # exp2's (titer_vexp2f.h): n = rint(x) steps at k + 1/2, |x| < 126
    "exp2": (1, [2.0 ** -149, 126.0, -126.0] + [k + 0.5 for k in range(-126, 126)],
             (200.0, "overflow")),
    # log2's and log10's rows (titer_vlog2f.h): m = 0.75 2^e steps, rows
    # 1/32 wide above 1 and 1/64 below, exact powers of 2 and of 10
    **{name: (1, [2.0 ** -126, 3e38] + [0.75 * 2.0 ** k for k in range(-126, 127, 5)]
              + [1 + j / 32 for j in range(17)] + [0.75 + j / 64 for j in range(17)]
              + [10.0 ** k for k in range(11)], (0.0, "divide"))
       for name in ("log2", "log10")},
    # arcsin's and arccos's (titer_vasinf.h): the switch to sqrt((1 - a)/2)
    # at 1/2, the square's floor at 2^-12, acos's at 2^-60 (and zero), the
    # range's end at 1, and 0.84, where pi/2 - 2s rounds
    **{name: (bound, [0.0, 2.0 ** -60, 2.0 ** -12, 0.5, 0.84, 1 - 2.0 ** -24], (2.0, "invalid"))
       for name, bound in (("arcsin", 2), ("arccos", 1))}}


def _log1p_family_inputs(name, x):
    """The fast path's inputs among float32 `x` (log: every positive normal
    one, wider than FAST_PATH_RANGES' sample range)."""
    if name == "log":
        return x[(x >= np.finfo(np.float32).tiny) & (x < np.inf)]
    return fast_path_inputs(name, x)


@pytest.mark.parametrize("name", sorted(_LOG1P_FAMILY))
def test_float32_log1p_family_fast_path_in_its_vector_form_and_its_twin(name):
    """float32 log, log1p, arccosh, arcsinh, arctanh, tanh, arctan, sinh,
    exp2, log2, log10, arcsin and arccos (the 16-lane forms of titer_vlog1pf.h,
    titer_voddf.h, titer_vsinhf.h, titer_vexp2f.h, titer_vlog2f.h and
    titer_vasinf.h at AVX-512; below, titer_fast_logf,
    titer_fast_tanhf, titer_fast_sinhf and the vector math library's or the
    double formulas): every float32 near each seam and every 2039th bit
    pattern of the range within the form's bound of the float64 result
    rounded to float32 (NumPy's bound at the other levels), raising nothing;
    the same bits through the scalar twin (rows of 7 elements: each a loop's
    remainder), in place, shuffled, strided and reversed; out-of-range
    elements inside whole vectors, and half the elements negated, getting
    libm's answers and NumPy's warnings (but underflow's)."""
    bound, seams, provoke = _LOG1P_FAMILY[name]
    if _core.isa_levels()[1] != "avx512":
        bound = ULP_BOUNDS[4]
    x = np.concatenate([_float32_windows(seams, 300),
                        np.arange(0, 2 ** 32, 2039, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32)])
    x = _log1p_family_inputs(name, x)
    rounded = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = titer.elementwise(name, None, x)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert ulps.max() <= bound, x[np.argmax(ulps)]
    rows = x[: x.size // 7 * 7].reshape(-1, 7)
    padded = np.ones((rows.shape[0], 8), np.float32)
    padded[:, :7] = rows
    twin = titer.elementwise(name, None, padded[:, :7])
    np.testing.assert_array_equal(twin.ravel().view(np.uint32), got[: rows.size].view(np.uint32))
    inplace = x.copy()
    titer.elementwise(name, inplace, inplace)
    np.testing.assert_array_equal(inplace.view(np.uint32), got.view(np.uint32))
    order = np.random.default_rng(6).permutation(x.size)
    shuffled = titer.elementwise(name, None, x[order])
    np.testing.assert_array_equal(shuffled.view(np.uint32), got[order].view(np.uint32))
    if _gathers_strided_blocks(name):
        strided = titer.elementwise(name, None, np.repeat(x, 2)[::2])
        np.testing.assert_array_equal(strided.view(np.uint32), got.view(np.uint32))
        backwards = titer.elementwise(name, None, x[::-1])
        np.testing.assert_array_equal(backwards[::-1].view(np.uint32), got.view(np.uint32))
    mixed = x[:5000].copy()
    bad = [np.inf, -np.inf, np.nan, 1e-40, 0.0, -0.0, -2.0, -3e38]
    bad += [provoke[0]] if provoke else []
    mixed[3::41] = np.resize(np.array(bad, np.float32), mixed[3::41].size)
    # and half the elements negated at random (log under where(x > 0, ...))
    halves = np.where(np.random.default_rng(7).random(x.size) < 0.5, x, -x)
    for sample in (mixed, halves):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(sample)
        # (underflow aside: libm and NumPy's SIMD loops raise it for other
        # subnormal results, exp2(-130.0) or exp2(-126.5))
        for work in (sample.copy(), None):
            with np.errstate(all="warn", under="ignore"), \
                    warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = titer.elementwise(name, work, sample if work is None else work)
            same_as_numpy(name, result, want, "in place" if work is not None else "apart")
            with np.errstate(all="warn", under="ignore"), \
                    warnings.catch_warnings(record=True) as theirs:
                warnings.simplefilter("always")
                getattr(np, name)(sample)
            assert {str(w.message) for w in caught} == {str(w.message) for w in theirs}


_TAN_HARD = ["0x1.6c6cbc45dc8dep+5", "0x1.6c6cbc45dc8dep+6", "0x1.6c6cbc45dc8dep+9",
             "0x1.6c6cbc45dc8dep+12", "0x1.39c6fd67805a7p+18", "0x1.39c6fd67805a7p+19",
             "0x1.921fb54442d18p+0", "0x1.921fb54442d18p+1"]


def test_float64_tan_near_multiples_of_half_pi_and_quarter_pi():
    """The reduction keeps r's relative precision where x nears a multiple
    of pi/2 (tan near 0 and near its poles) and the quotient where it nears
    an odd multiple of pi/4 (|tan| near 1, where the polynomial's part is
    largest): within FAST64_ULPS["tan"] of long double's result, both the
    baseline build's (the hook's, without FMA) and the dispatched level's,
    which raises nothing."""
    rng = np.random.default_rng(17)
    q = np.concatenate([np.arange(1, 200), rng.integers(1, 667000, 20000)])
    half_pi = (q.astype(np.longdouble) * np.longdouble(np.pi) / 2
               + q * np.longdouble(1.2246467991473532e-16) / 2).astype(np.float64)
    quarter = ((2 * q + 1).astype(np.longdouble) * np.longdouble(np.pi) / 4).astype(np.float64)
    hard = np.array([float.fromhex(h) for h in _TAN_HARD])
    steps = np.arange(-20, 21)
    x = np.concatenate([v.view(np.int64)[:, None] + steps for v in (half_pi, quarter, hard)]
                       ).ravel().view(np.float64)
    x = np.concatenate([x, -x])
    x = x[np.abs(x) < 2.0 ** 20]
    want = np.tan(x.astype(np.longdouble)).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dispatched = titer.elementwise("tan", None, x)
    for got in (own_fast_path("tan", x), dispatched):
        ulps = np.abs(got.view(np.int64) - want.view(np.int64))
        assert ulps.max() <= FAST64_ULPS["tan"], x[np.argmax(ulps)]


@pytest.mark.parametrize("name", sorted(FAST_PATH_RANGES))
def test_fast_paths_within_one_ulp_of_the_rounded_result(name):
    """In its range a fast path is within 1 ULP of the float64 result rounded
    to float32 (NumPy's own float32 exp and log are off by up to 3 and 4),
    on every 97th float32 bit pattern there."""
    x = np.arange(0, 2 ** 32, 97, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = fast_path_inputs(name, x)
    got = own_fast_path(name, x)
    rounded = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert ulps.max() <= 1, x[np.argmax(ulps)]


@pytest.mark.parametrize("name", sorted(FAST_PATH_RANGES))
def test_fast_paths_over_float32_bit_patterns(name):
    """The vectorized float32 paths against NumPy on every 251st float32
    bit pattern (all signs, subnormals, inf, NaN payloads), contiguous and in
    place, with the FP flags of libm for the out-of-range elements."""
    x = np.arange(0, 2 ** 32, 251, dtype=np.uint64).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x)
    same_as_numpy(name, titer_call(name, None, x), expected, name)
    for step in (1, 5000):               # whole (threads, chunks), one loop call
        inplace = x[::step].copy()
        titer_call(name, inplace, inplace)
        same_as_numpy(name, inplace, expected[::step], "%s in place, step %d" % (name, step))
    ok = fast_path_inputs(name, x)
    for sample in (ok, ok[::-1][:1000]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # the fast path raises nothing
            titer.elementwise(name, None, sample)
    provoke = FAST_PATH_RANGES[name][1]
    if provoke is not None:
        value, warning = provoke
        with pytest.warns(RuntimeWarning, match=warning):
            titer.elementwise(name, None, np.concatenate([ok, [np.float32(value)]]))


def _float32_windows(centers, half_width=2048):
    """Every float32 within half_width bit patterns of each center, both signs."""
    bits = np.array(centers, np.float32).view(np.int32).astype(np.int64)
    steps = np.arange(-half_width, half_width + 1)
    x = (bits[:, None] + steps).ravel().astype(np.int32).view(np.float32)
    return np.concatenate([x, -x])


# float32 ops whose own fast path runs at every level instead of the vector
# math library's (titer/_ops.py _VECTOR_LIBM_SKIP), and the seams of their
# kernels (titer_scalar.h): tanh's switch from the odd polynomial to the
# exp form at 0.625, where its exp's n steps (multiples of ln2 / 2), where
# the result reaches 1 (9.1) and the range ends; cosh's n steps (multiples of
# ln 2), its 2^-30 floor and its capped divisor (h = 2^100 near 70.0);
# expm1's n steps (its 2^n - 1 is exact to n = -24) and range ends
OWN_OVER_VECTOR_LIBM = {
    "tanh": [0.625, 2.0 ** -12, 9.1, 43.0 - 2.0 ** -18] + [k * np.log(2) / 2 for k in range(1, 30)],
    "cosh": [2.0 ** -30, 70.0, 89.0 - 2.0 ** -17] + [(k + 0.5) * np.log(2) for k in range(0, 128, 7)],
    "expm1": [2.0 ** -60, 2.0 ** -20, 88.0 - 2.0 ** -17, -87.0] + [(k + 0.5) * np.log(2) for k in range(-30, 128, 3)]}


@pytest.mark.parametrize("name", sorted(OWN_OVER_VECTOR_LIBM))
def test_float32_fast_paths_that_replace_the_vector_libm(name):
    """Float32 tanh, cosh and expm1 run titer's own path at every level (the tables
    leave out libmvec's, 3 ULP from the rounded result): what titer returns
    is within 1 ULP of the float64 result rounded to float32 around every
    seam of the kernels (the own path's loop, built at the baseline level
    without FMA, too); cosh of zero, the subnormals and up to 2^-30 is 1
    without an underflow."""
    assert (name, "f->f") not in VECTOR_LIBM
    x = fast_path_inputs(name, _float32_windows(OWN_OVER_VECTOR_LIBM[name]))
    rounded = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    for got in (titer.elementwise(name, None, x), own_fast_path(name, x)):
        ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
        assert ulps.max() <= 1, x[np.argmax(ulps)]
    if name == "cosh":
        tiny = np.concatenate([np.arange(0, 2 ** 23, 97, dtype=np.uint32).view(np.float32),
                               np.geomspace(2.0 ** -126, 2.0 ** -30, 1000, dtype=np.float32)])
        with np.errstate(all="raise"):
            assert (titer.elementwise("cosh", None, np.concatenate([tiny, -tiny])) == 1).all()


@pytest.mark.parametrize("name", sorted(FAST2_RANGES))
def test_binary_fast_paths_within_one_ulp_of_the_rounded_result(name):
    """In range: within 1 ULP of the float64 result rounded to float32
    (EXACT_FAST2: NumPy's bits), raising nothing, for contiguous pairs and a
    repeated scalar on either side."""
    x, y = fast2_pairs(name)
    assert x.size > 100000
    fn = getattr(np, name)
    for a, b, context in ((x, y, "pairs"), (x, np.float32([2.5]), "scalar second"),
                          (np.float32([1.5]), y, "scalar first")):
        keep = FAST2_RANGES[name][0](*np.broadcast_arrays(a, b))
        assert keep.sum() > 1000, context
        a, b = (v[keep] if v.size > 1 else v for v in (a, b))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = titer.elementwise(name, None, a, b)
        if (name, "ff->f") in VECTOR_LIBM:      # its loop: tests/test_veclib.py
            got = own_fast_path(name, a, b)
        rounded = fn(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
        if name in EXACT_FAST2:             # the bits: zeros keep their sign
            np.testing.assert_array_equal(got.view(np.uint32), fn(a, b).view(np.uint32),
                                          err_msg=context)
            continue
        ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
        assert ulps.max() <= 1, (context, np.argmax(ulps))


def test_power_fast_path_near_one():
    """float32 power's own path (titer_fast_powerf: ln x sized for float32
    results, then exp) for x within 2^-24 to 1/2 of 1 and the exponents its
    range allows (|y| < 120 there): within 1 ULP of the float64 result
    rounded to float32."""
    rng = np.random.default_rng(23)
    n = 400000
    x = (1.0 + rng.uniform(-1, 1, n) * np.exp2(-rng.integers(1, 25, n))).astype(np.float32)
    y = (rng.uniform(-1, 1, n) * np.exp2(rng.integers(-10, 7, n))).astype(np.float32)
    keep = _in_power_range(x, y)
    x, y = x[keep], y[keep]
    assert x.size > 100000
    got = own_fast_path("power", x, y)
    rounded = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert ulps.max() <= 1, (x[np.argmax(ulps)], y[np.argmax(ulps)])


@pytest.mark.parametrize("name", sorted(FAST2_RANGES))
def test_binary_fast_paths_over_float32_bit_patterns(name):
    """Pairs of float32 bit patterns (every 997th against a shuffle: signs,
    zeros, subnormals, inf, NaN, in range and out of it in one block)
    against NumPy: contiguous, a repeated scalar on either side, in place
    into either input, strided; warnings as libm raises them."""
    x = np.arange(0, 2 ** 32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
    y = np.random.default_rng(3).permutation(x)
    with np.errstate(all="ignore"):
        for a, b, context in ((x, y, "pairs"), (x, np.float32(2.5), "scalar second"),
                              (np.float32(-1.75), y, "scalar first"),
                              (np.abs(x), y[:1], "in-range scalar")):
            a, b = (np.asarray(v, dtype=np.float32) for v in (a, b))
            same_as_numpy(name, titer.elementwise(name, None, a, b), getattr(np, name)(a, b),
                          "%s %s" % (name, context))
        # in place, whole (threads, chunks) and a small sample (one loop call
        # over the output that is the input)
        for step in (1, 1500):
            expected = getattr(np, name)(x[::step], y[::step])
            for into in (0, 1):
                pair = [x[::step].copy(), y[::step].copy()]
                titer.elementwise(name, pair[into], *pair)
                same_as_numpy(name, pair[into], expected,
                              "%s in place into input %d, step %d" % (name, into, step))
        same_as_numpy(name, titer.elementwise(name, None, x[::3], y[::3]),
                      getattr(np, name)(x[::3], y[::3]), name + " strided")
    provoke = FAST2_RANGES[name][1]
    if provoke is not None:
        (px, py), warning = provoke
        sx, sy = fast2_pairs(name)
        with pytest.warns(RuntimeWarning, match=warning):
            titer.elementwise(name, None, np.append(sx, np.float32(px)),
                              np.append(sy, np.float32(py)))


def test_float64_hypot_fast_path():
    """float64 hypot (exact squares, one sqrt): within 1 ULP of NumPy's
    (glibc's) on 3e6 pairs in range, raising nothing, contiguous and with a
    scalar operand; the range's edges, zeros, subnormals, huge values, inf
    and NaN, strided input and a small sample in place are NumPy's bits."""
    rng = np.random.default_rng(17)
    n = 10 ** 6
    x = np.concatenate([rng.uniform(-2, 2, n), np.exp(rng.uniform(-300, 300, n)),
                        np.exp(rng.uniform(-30, 30, n))])
    y = np.concatenate([rng.uniform(-2, 2, n), -np.exp(rng.uniform(-300, 300, n)),
                        x[2 * n:] * np.exp(rng.uniform(-40, 40, n))])
    for a, b, context in ((x, y, "pairs"), (x, np.float64(0.75), "scalar second"),
                          (np.float64(-3.5), y, "scalar first")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = titer.elementwise("hypot", None, a, b)
        want = np.hypot(a, b)
        ulps = np.abs(got.view(np.int64) - want.view(np.int64))
        assert ulps.max() <= 1, context
    lo, hi = 2.0 ** -450, 2.0 ** 450
    edges = np.array([0.0, -0.0, lo, np.nextafter(lo, 0), -lo, hi, np.nextafter(hi, 0), -hi,
                      5e-324, 1e-310, 1e-300, 1e300, np.finfo(np.float64).max, np.inf,
                      -np.inf, np.nan, 1.0, -3.0])
    ex, ey = (e.ravel() for e in np.meshgrid(edges, edges))
    with np.errstate(all="ignore"):
        same_as_numpy("hypot", titer.elementwise("hypot", None, ex, ey), np.hypot(ex, ey),
                      "hypot edges")
        same_as_numpy("hypot", titer.elementwise("hypot", None, x[::3], y[::3]),
                      np.hypot(x[::3], y[::3]), "hypot strided")
        small = [np.concatenate([x[::5000], ex]), np.concatenate([y[::5000], ey])]
        expected = np.hypot(*small)
        titer.elementwise("hypot", small[0], *small)
        same_as_numpy("hypot", small[0], expected, "hypot in place")
    with pytest.warns(RuntimeWarning, match="overflow"):
        titer.elementwise("hypot", None, np.append(x[:100], 1.5e308), np.append(y[:100], 1.5e308))


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_fmod_family_fast_paths_raise_what_numpy_raises(name):
    """Pairs at the edges of the fast range among in-range ones: a same-signed
    modulus next to FLT_MAX (mod + b would overflow if added), a zero
    quotient whose a / b underflows (NumPy computes it for the sign), a
    subnormal and a zero dividend, quotients next to 2^27: the FP warnings
    of NumPy, every one enabled, and NumPy's bits."""
    big = np.finfo(np.float32).max
    pairs = [(big * 0.9, big), (-big * 0.9, -big), (big * 0.9, -big), (1e-40, 1e30),
             (-1e-40, 3.0), (0.0, -7.0), (-0.0, 5.0), (2.0 ** 26 * 1.5, 1.0),
             (2.0 ** 27 * 1.5, 1.0), (-(2.0 ** 26) * 1.9, 0.75), (1e-30, 1e30)]
    filler = fast2_pairs(name)
    for x, y in pairs:
        a = np.concatenate([filler[0][:3000], np.float32([x])])
        b = np.concatenate([filler[1][:3000], np.float32([y])])
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise(name, None, a, b), mode)
            theirs = _fp_outcome(lambda: getattr(np, name)(a, b), mode)
            assert ours == theirs, (x, y, mode)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(titer.elementwise(name, None, a, b),
                                          getattr(np, name)(a, b), err_msg=str((x, y)))


def _in_fmod64_range(x, y):
    """titer_fast_fmod_ok: y normal, x finite with exponent(x) - exponent(y)
    in (-1000, 51) and x normal, or x zero."""
    ex, ey = ((v.view(np.uint64) >> 52 & 0x7ff).astype(np.int64) for v in (x, y))
    return (ey >= 1) & (ey <= 2046) & (ex - ey < 51) & (
        ((ex >= 1) & (ex <= 2046) & (ex - ey > -1000)) | (x == 0))


def fmod64_pairs():
    """float64 pairs: random bit patterns, log-uniform magnitudes over the
    range, divisors at its edges, exact multiples of short divisors and their
    neighbours (quotients that round up onto the next integer)."""
    rng = np.random.default_rng(23)
    n = 300000
    bits = rng.integers(0, 2 ** 63, (2, n), dtype=np.uint64)
    bits |= rng.integers(0, 2, (2, n), dtype=np.uint64) << np.uint64(63)
    random_bits = bits.view(np.float64)
    sign = rng.choice([-1.0, 1.0], (4, n))
    y = np.exp(rng.uniform(-660, 660, n)) * sign[0]
    logu = np.stack([y * np.exp(rng.uniform(-40, 36, n)) * sign[1], y])
    edge_y = np.ldexp(rng.uniform(1, 2, n), rng.choice([-1022, 970], n)) * sign[2]
    edges = np.stack([edge_y * np.ldexp(rng.uniform(0, 1, n), rng.integers(0, 51, n)), edge_y])
    short = rng.integers(1, 1000, n) / 64 * sign[3]
    mult = rng.integers(-2 ** 39, 2 ** 39, n) * short
    side = rng.choice([-np.inf, 0.0, np.inf], n)
    mult = np.where(side == 0, mult, np.nextafter(mult, side))
    x, y = np.concatenate([random_bits, logu, edges, np.stack([mult, short])], axis=1)
    return x, y


# float64 arctan2's fast path: |y| and |x| in [2^-125, 2^125)
# (titer_fast_arctan2_ok), its bound from the correctly rounded result
# (0.76 ULP from the exact value at worst: NOTE [float64 arctan2 error])
ARCTAN2_64_RANGE = (2.0 ** -125, 2.0 ** 125)
ARCTAN2_64_ULPS = 1


def arctan2_64_pairs(n=500000, bounds=ARCTAN2_64_RANGE):
    """(y, x) pairs in the fast path's range (bounds), both signs, all four
    quadrants: magnitudes log-uniform over the range and uniform in (0, 1),
    y / x near 0, 1, tan(pi/8) (where the reduction switches) and huge, and
    x near -|y| (results near 3 pi / 4) or -|y| tiny (near pi)."""
    rng = np.random.default_rng(23)
    lo, hi = np.log(bounds[0]), np.log(bounds[1])

    def signs(v):
        return np.where(rng.random(v.size) < 0.5, -v, v)

    def mags(scale):
        return np.exp(rng.uniform(-scale, scale, n))

    wide = (signs(np.exp(rng.uniform(lo, hi, n))), signs(np.exp(rng.uniform(lo, hi, n))))
    unit = (signs(rng.random(n)), signs(rng.random(n)))
    x = signs(mags(40))
    near_one = (x * (1 + signs(2.0 ** -rng.uniform(1, 53, n))), x)
    near_pi8 = (x * 0.41421356237309503 * (1 + signs(2.0 ** -rng.uniform(1, 53, n))), x)
    y = signs(mags(40))
    near_3pi4 = (y, -np.abs(y) * (1 + signs(2.0 ** -rng.uniform(1, 60, n))))
    gap = 2.0 ** -rng.uniform(0, 200, n)
    near_zero = (x * signs(gap), x)
    near_pi = (y * gap, -np.abs(y))
    steep = (y, y * signs(gap))
    y, x = (np.concatenate(part) for part in zip(wide, unit, near_one, near_pi8, near_3pi4,
                                                  near_zero, near_pi, steep))
    keep = _within(y, bounds) & _within(x, bounds)
    return y[keep], x[keep]


def _within(v, bounds):
    return (np.abs(v) >= bounds[0]) & (np.abs(v) < bounds[1])


def test_float32_arctan2_fast_path_in_sixteen_lanes_and_its_twin():
    """float32 arctan2's own path (at AVX-512 titer_voddf.h's 16-lane form
    without a division, which the loop runs; below, a division in double,
    the vector math library's loop's fallback):
    within 1 ULP of the float64 result rounded to float32 on pairs over the
    quadrants and ratios of its range, its edges included, raising nothing;
    rows of 15 (each a loop's tail: the scalar twin) give the bits of whole
    vectors, a scalar on either side those of pairs, a strided operand
    those of contiguous ones (its blocks gathered, as the vector math
    library's loops gather theirs); lanes out of range
    inside whole vectors (zeros, subnormals, the range's edges, inf, NaN)
    get NumPy's values, apart and in place."""
    y, x = (v.astype(np.float32) for v in arctan2_64_pairs(200000, ARCTAN2_32_RANGE))
    lo, hi = np.float32(ARCTAN2_32_RANGE[0]), np.float32(ARCTAN2_32_RANGE[1])
    ends = np.array([lo, np.nextafter(lo, hi), np.nextafter(hi, lo), 1.0], np.float32)
    ey, ex = (e.ravel() for e in np.meshgrid(np.concatenate([ends, -ends]),
                                             np.concatenate([ends, -ends])))
    y, x = np.concatenate([y, ey]), np.concatenate([x, ex])
    keep = _arctan2f_range(y, x)
    y, x = y[keep], x[keep]
    assert y.size > 900000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        whole = titer.elementwise("arctan2", None, y, x)
    # the 16-lane form is the loop at AVX-512; the hook runs the baseline's
    got = whole if _core.isa_levels()[1] == "avx512" else own_fast_path("arctan2", y, x)
    rounded = np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert ulps.max() <= 1, (y[np.argmax(ulps)], x[np.argmax(ulps)])
    rows = [v[: v.size // 15 * 15].reshape(-1, 15) for v in (y, x)]
    padded = [np.ones((r.shape[0], 16), np.float32) for r in rows]
    for pad, r in zip(padded, rows):
        pad[:, :15] = r
    tails = titer.elementwise("arctan2", None, padded[0][:, :15], padded[1][:, :15])
    np.testing.assert_array_equal(tails.ravel().view(np.uint32),
                                  whole[: rows[0].size].view(np.uint32))
    for a, b in ((y[:50000], np.float32(-0.3)), (np.float32(7.5), x[:50000])):
        pairs = titer.elementwise("arctan2", None, *np.broadcast_arrays(a, b))
        np.testing.assert_array_equal(titer.elementwise("arctan2", None, a, b).view(np.uint32),
                                      pairs.view(np.uint32))
    if _core.isa_levels()[1] == "avx512" or _core.has_vector_libm():   # (libm's else)
        strided = titer.elementwise("arctan2", None, np.repeat(y, 2)[::2], x)
        np.testing.assert_array_equal(strided.view(np.uint32), whole.view(np.uint32))
    odd = np.array([0.0, -0.0, 1e-40, -1e-45, np.nextafter(lo, 0), hi, -3e38, np.inf, -np.inf,
                    np.nan], np.float32)
    ys, xs = y[:6000].copy(), x[:6000].copy()
    ys[5::37] = np.resize(odd, ys[5::37].size)
    xs[11::41] = np.resize(odd[::-1], xs[11::41].size)
    with np.errstate(all="ignore"):
        want = np.arctan2(ys, xs)
        same_as_numpy("arctan2", titer.elementwise("arctan2", None, ys, xs), want, "odd lanes")
        inplace = ys.copy()
        titer.elementwise("arctan2", inplace, inplace, xs)
        same_as_numpy("arctan2", inplace, want, "odd lanes in place")


def test_float64_arctan2_fast_path():
    """float64 arctan2 (one division, a reduction at tan(pi/8), the quotient's
    error carried on): within ARCTAN2_64_ULPS of the correctly rounded result
    (long double's, rounded) on 3.4e6 pairs in range, raising nothing, also
    with a scalar on either side; out of range (zeros, subnormals, inf, NaN,
    the range's edges) NumPy's bits and NumPy's warnings, each enabled;
    strided input and a small sample in place are NumPy's bits."""
    y, x = arctan2_64_pairs()
    assert y.size > 3000000
    for a, b, context in ((y, x, "pairs"), (y, np.float64(-0.625), "scalar second"),
                          (np.float64(3.25), x, "scalar first")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            titer.elementwise("arctan2", None, a, b)
        want = np.arctan2(np.asarray(a, np.longdouble), np.asarray(b, np.longdouble))
        got = own_fast_path("arctan2", *(np.atleast_1d(v) for v in (a, b)))
        ulps = np.abs(got.view(np.int64) - want.astype(np.float64).view(np.int64))
        assert ulps.max() <= ARCTAN2_64_ULPS, (context, np.argmax(ulps))
    lo, hi = ARCTAN2_64_RANGE
    tiny, big = np.finfo(np.float64).tiny, np.finfo(np.float64).max
    edges = np.array([0.0, -0.0, lo, np.nextafter(lo, 0), -lo, hi, np.nextafter(hi, 0), -hi,
                      5e-324, -1e-310, tiny, 1e-300, 1e300, big, -big, np.inf, -np.inf, np.nan,
                      1.0, -3.0])
    ey, ex = (e.ravel() for e in np.meshgrid(edges, edges))
    with np.errstate(all="ignore"):
        same_as_numpy("arctan2", titer.elementwise("arctan2", None, ey, ex),
                      np.arctan2(ey, ex), "arctan2 edges")
        same_as_numpy("arctan2", titer.elementwise("arctan2", None, y[::3], x[::3]),
                      np.arctan2(y[::3], x[::3]), "arctan2 strided")
        small = [np.concatenate([y[::5000], ey]), np.concatenate([x[::5000], ex])]
        expected = np.arctan2(*small)
        titer.elementwise("arctan2", small[0], *small)
        same_as_numpy("arctan2", small[0], expected, "arctan2 in place")
    # (glibc's atan2 raises underflow for a subnormal result NumPy's SVML
    # loop returns silently, e.g. (-1e-300, 1e10): not a pair to compare)
    for py, px in ((1e-300, 1e300), (5e-324, 1.0), (1e-310, -1.0), (-1e-300, 1e-5),
                   (0.0, -0.0), (np.nan, 1.0), (np.inf, -np.inf), (1e300, 1e-300)):
        a, b = np.append(y[:3000], py), np.append(x[:3000], px)
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise("arctan2", None, a, b), mode)
            theirs = _fp_outcome(lambda: np.arctan2(a, b), mode)
            assert ours == theirs, (py, px, mode)


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_float64_fmod_family_fast_paths(name):
    """float64 fmod / remainder / floor_divide (a quotient-corrected exact
    a - n b by a fused multiply-add): NumPy's bits on 1.2e6 pairs (most in range, random bit patterns out),
    contiguous, a scalar on either side, strided and a small sample in place,
    raising nothing in range; pairs at the range's edges give NumPy's bits and
    NumPy's warnings, each of them enabled."""
    x, y = fmod64_pairs()
    keep = _in_fmod64_range(x, y)
    assert 0.5 < keep.mean() < 0.95
    fn = getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(titer.elementwise(name, None, x[keep], y[keep]).view(np.uint64),
                                      fn(x[keep], y[keep]).view(np.uint64))
    with np.errstate(all="ignore"):
        for a, b, context in ((x, y, "pairs"), (x, np.float64(2.75), "scalar second"),
                              (np.float64(-1e6 - 0.5), y, "scalar first"),
                              (x[::3], y[::3], "strided")):
            same_as_numpy(name, titer.elementwise(name, None, a, b), fn(a, b),
                          "%s %s" % (name, context))
        small = [x[::1000].copy(), y[::1000].copy()]
        expected = fn(*small)
        titer.elementwise(name, small[1], *small)
        same_as_numpy(name, small[1], expected, name + " in place")
    tiny, big = np.finfo(np.float64).tiny, np.finfo(np.float64).max
    edge_pairs = [(1e-300, tiny), (3.0 * tiny, -tiny), (1e-300, np.nextafter(tiny, 0)),
                  (big, big * 0.75), (big, big / 3), (big * 0.9, -big), (5e-324, 1.0),
                  (1e-300, 1e10), (-1e-300, 1e3), (0.0, -7.0), (-0.0, 5.0),
                  (2.0 ** 50 * 1.5, 1.0), (2.0 ** 51 * 1.5, 1.0), (-(2.0 ** 50) * 1.9, 0.75),
                  (1.0, 0.0), (np.inf, 2.0), (np.nan, 2.0), (3.0, np.inf)]
    keep_x, keep_y = x[keep][:3000], y[keep][:3000]
    for px, py in edge_pairs:
        a, b = np.append(keep_x, px), np.append(keep_y, py)
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise(name, None, a, b), mode)
            theirs = _fp_outcome(lambda: fn(a, b), mode)
            assert ours == theirs, (px, py, mode)
        with np.errstate(all="ignore"):
            same_as_numpy(name, titer.elementwise(name, None, a, b), fn(a, b), str((px, py)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_divmod_fast_paths(dtype):
    """divmod's fast loop (floor_divide's and remainder's fast paths, two
    outputs): NumPy's bits for both outputs on in-range pairs, raising
    nothing, also with a scalar on either side; with out-of-range pairs
    mixed in, a scalar operand, strided, either output in place into either
    input, and at the range's edges: NumPy's bits and warnings."""
    if dtype == "float32":
        x, y = fast2_pairs("floor_divide")
        keep = np.ones(x.size, dtype=bool)
        patterns = np.arange(0, 2 ** 32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
        mixed = (patterns, np.random.default_rng(3).permutation(patterns))
        edges = [(1.0, 0.0), (1e-40, 1e30), (1e-30, 1e30), (3e38, 3.4e38), (-0.0, 5.0)]
    else:
        x, y = fmod64_pairs()
        keep = _in_fmod64_range(x, y)
        mixed = (x, y)
        edges = [(1.0, 0.0), (1e-300, 1e300), (5e-324, 1.0), (1.7e308, -1.75e308), (-0.0, 5.0)]
    bits = "u%d" % np.dtype(dtype).itemsize
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a scalar on one side: the other's moderate values keep the pairs in range
        moderate = [w[keep][(np.abs(w[keep]) > 1e-3) & (np.abs(w[keep]) < 1e6)] for w in (x, y)]
        for u, v in ((x[keep], y[keep]), (moderate[0], np.asarray(0.75, dtype)),
                     (np.asarray(-42.5, dtype), moderate[1])):
            got = titer.elementwise("divmod", None, u, v)
            for ours, theirs in zip(got, np.divmod(u, v)):
                np.testing.assert_array_equal(ours.view(bits), theirs.view(bits))
    a, b = mixed
    with np.errstate(all="ignore"):
        for u, v, context in ((a, b, "mixed"), (a, np.asarray(2.5, dtype), "scalar y"),
                              (np.asarray(-7.25, dtype), b, "scalar x"),
                              (a[::3], b[::3], "strided")):
            same_as_numpy("divmod", titer.elementwise("divmod", None, u, v), np.divmod(u, v),
                          "divmod %s %s" % (dtype, context))
        for into, output in itertools.product((0, 1), (0, 1)):
            pair = [a[::1500].copy(), b[::1500].copy()]
            expected = np.divmod(*pair)
            outs = [np.empty_like(pair[0]), np.empty_like(pair[0])]
            outs[output] = pair[into]
            titer.elementwise("divmod", tuple(outs), *pair)
            same_as_numpy("divmod", tuple(outs), expected,
                          "divmod %s output %d in place into input %d" % (dtype, output, into))
    for px, py in edges:
        u = np.append(x[keep][:3000], np.asarray(px, dtype))
        v = np.append(y[keep][:3000], np.asarray(py, dtype))
        for mode in ("warn", "raise"):
            ours = _fp_outcome(lambda: titer.elementwise("divmod", None, u, v), mode)
            theirs = _fp_outcome(lambda: np.divmod(u, v), mode)
            assert ours == theirs, (px, py, mode)

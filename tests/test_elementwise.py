"""titer.elementwise against NumPy: every op of the op table, every loop
signature, every layout, every dtype pair, Python scalars, out= casting,
in-place and overlapping operands.  Values must be bit-equal."""
import itertools
import warnings

import numpy as np
import pytest

import titer
from titer import _core, _ops
from oracle import DTYPES, assert_same, layouts, value_grid

SIGNATURES = [(op, sig) for op in _ops.OPS for sig in op.types]


# NumPy's maximum/minimum return either zero for max(+0, -0): its SIMD body
# and its scalar tail disagree.  titer follows the documented
# np.where(x1 >= x2, x1, x2); the sign of such zeros is not compared.  clip
# is a max and a min: NumPy's scalar loop gives clip(0, -0, 1) = -0 as titer
# does, its AVX-512 loop +0.
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin", "clip"}
APPROX = {op.name for op in _ops.OPS if op.approx}


# NumPy's complex64 multiply/square/absolute run fused multiply-adds in their
# SIMD loops but not on negative strides, so NumPy gives different last bits
# for the same values reversed; on AVX-512 CPUs its complex128 absolute does
# too (its SIMD |z| contiguous, hypot reversed).  titer gives the same bits in
# every layout: those of NumPy's SIMD loop, i.e. NumPy's answer on contiguous
# copies (where NumPy is layout-independent, both answers are the same).
NUMPY_LAYOUT_DEPENDENT = {("multiply", "FF->F"), ("square", "F->F"), ("absolute", "F->f"),
                          ("absolute", "D->d")}


def numpy_oracle_inputs(name, inputs):
    """The inputs NumPy's answer is taken on: C-ordered array copies of the
    arrays and NumPy scalars for the ops above (a reversed view anywhere in a
    broadcast, or a NumPy scalar, which NumPy computes without its SIMD loop,
    gets NumPy's unfused bits), as given for the rest."""
    if name not in {op_name for op_name, _ in NUMPY_LAYOUT_DEPENDENT}:
        return inputs
    return tuple(np.array(x, order="C") if isinstance(x, (np.ndarray, np.generic)) else x
                 for x in inputs)


def correctly_rounded(name, inputs, expected):
    """An approximate op's result from long double inputs, rounded to the
    float32/float64 `expected`'s dtype (the reference titer's ULP bounds are
    from), or None where there is none to compute."""
    if (name not in APPROX or not isinstance(expected, np.ndarray)
            or expected.dtype.char not in "fd" or not hasattr(np, name)
            or any(np.asarray(x).dtype.char not in "fd" for x in inputs)):
        return None
    with np.errstate(all="ignore"):
        wide = getattr(np, name)(*[np.asarray(x, np.longdouble) for x in inputs])
    return wide.astype(expected.dtype)


def same_as_numpy(name, actual, expected, context, inputs=None):
    name = _ops.canonical_name(name) or name
    if isinstance(expected, tuple):             # divmod, modf, frexp
        assert isinstance(actual, tuple) and len(actual) == len(expected), context
        for i, (a, e) in enumerate(zip(actual, expected)):
            same_as_numpy(name, a, e, "%s [output %d]" % (context, i))
        return
    reference = None if inputs is None else correctly_rounded(name, inputs, expected)
    assert_same(actual, expected, context, zero_sign=name not in ZERO_SIGN_FREE,
                ulps=name in APPROX, reference=reference)


def numpy_where(cond, x, y, out=None, dtype=None, casting="same_kind"):
    """np.where with the ufunc keywords titer's `where` takes: the
    reference for titer.elementwise("where", ...)."""
    result = np.where(cond, x, y)
    if dtype is not None:
        x, y = (np.asarray(v, dtype=dtype) if type(v) not in (int, float, complex) else v
                for v in (x, y))
        for v in (x, y):
            if isinstance(v, np.ndarray) and not np.can_cast(v.dtype, dtype, casting):
                raise TypeError("cannot cast %s to %s" % (v.dtype, dtype))
        result = np.where(cond, x, y).astype(dtype)
    if out is None:
        return result
    if not np.can_cast(result.dtype, out.dtype, casting):
        raise TypeError("cannot cast %s to %s" % (result.dtype, out.dtype))
    np.copyto(out, result, casting="unsafe")
    return out


def numpy_call(name, *inputs, **kwargs):
    with np.errstate(all="ignore"):
        if name == "where":
            return numpy_where(*inputs, **kwargs)
        if name == "clip":
            return np._core.umath.clip(*inputs, **kwargs)
        return getattr(np, name)(*inputs, **kwargs)


def titer_call(name, out, *inputs, **kwargs):
    with np.errstate(all="ignore"):
        return titer.elementwise(name, out, *inputs, **kwargs)


def builtin_base(exc_type):
    """The builtin exception class a NumPy exception is (TypeError for
    numpy's _UFuncOutputCastingError, and so on)."""
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def outcome(call, warned=None):
    """(result, exception); warning categories other than RuntimeWarning
    (FP errors are compared in test_errors) go to `warned`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(), None
        except Exception as exc:  # noqa: BLE001 - we compare whatever NumPy raises
            result = None, exc
    if warned is not None:
        warned.extend(sorted({w.category.__name__ for w in caught
                              if not issubclass(w.category, RuntimeWarning)}))
    return result


def assert_like_numpy(name, inputs, context, **kwargs):
    """Same result, or the same kind of exception, as numpy.<name>."""
    np_warned, titer_warned = [], []
    expected, np_exc = outcome(lambda: numpy_call(name, *numpy_oracle_inputs(name, inputs),
                                                  **kwargs), np_warned)
    out = kwargs.pop("out", None)
    actual, titer_exc = outcome(lambda: titer_call(name, out, *inputs, **kwargs), titer_warned)
    if np_exc is not None:
        assert titer_exc is not None, "%s: NumPy raised %r, titer returned" % (context, np_exc)
        assert isinstance(titer_exc, builtin_base(type(np_exc))), (
            "%s: NumPy raised %r, titer raised %r" % (context, np_exc, titer_exc))
        return
    assert titer_exc is None, "%s: titer raised %r, NumPy returned" % (context, titer_exc)
    assert titer_warned == np_warned, "%s: warnings %s, NumPy's %s" % (context, titer_warned,
                                                                      np_warned)
    same_as_numpy(name, actual, expected, context)


def test_op_table_covers_numpy_loops():
    """Every numeric loop NumPy has for these ufuncs has a titer loop."""
    canon = {np.dtype(c).char: c for c in _ops.TYPECHARS}
    canon.update({"q": "l", "Q": "L"})
    for op in _ops.OPS:
        if op.name == "where":
            continue                    # not a ufunc: '?xx->x' for every dtype x
        ufunc = np._core.umath.clip if op.name == "clip" else getattr(np, op.name)
        for sig in ufunc.types:
            ins, outs = sig.split("->")
            if any(c not in canon for c in ins + outs):
                continue                # object, datetime, long double
            mapped = "".join(canon[c] for c in ins) + "->" + "".join(canon[c] for c in outs)
            assert mapped in op.types, "%s: NumPy loop %s missing" % (op.name, sig)


@pytest.mark.parametrize("op, sig", SIGNATURES, ids=["%s-%s" % (op.name, sig) for op, sig in SIGNATURES])
def test_signature_in_every_layout(op, sig):
    ins, _ = _ops.parse_signature(sig)
    dtypes = [np.dtype(c) for c in ins]
    for name, operands in layouts(value_grid, dtypes):
        expected, np_exc = outcome(lambda: numpy_call(
            op.name, *numpy_oracle_inputs(op.name, operands)))
        if np_exc is not None:          # integer power with a negative exponent
            _, titer_exc = outcome(lambda: titer_call(op.name, None, *operands))
            assert isinstance(titer_exc, builtin_base(type(np_exc))), (op.name, sig, name)
            continue
        actual = titer_call(op.name, None, *operands)
        same_as_numpy(op.name, actual, expected, "%s %s %s" % (op.name, sig, name), operands)


@pytest.mark.parametrize("op", [op for op in _ops.OPS if op.nin == 2], ids=lambda op: op.name)
@pytest.mark.parametrize("dtype1", DTYPES, ids=str)
def test_every_dtype_pair(op, dtype1):
    for dtype2 in DTYPES:
        a = value_grid(dtype1, (4, 7), seed=1)
        b = value_grid(dtype2, (4, 7), seed=2)
        assert_like_numpy(op.name, (a, b), "%s %s,%s" % (op.name, dtype1, dtype2))


@pytest.mark.parametrize("op", [op for op in _ops.OPS if op.nin == 1], ids=lambda op: op.name)
def test_every_dtype_unary(op):
    for dtype in DTYPES:
        assert_like_numpy(op.name, (value_grid(dtype, (3, 9)),), "%s %s" % (op.name, dtype))


PY_SCALARS = [0, 1, -1, 7, 255, 300, -129, 2 ** 40, 2 ** 63, 2 ** 70, -(2 ** 64),
              1.5, -0.0, float("nan"), float("inf"), 1e300, 2 + 3j, complex(0, float("nan")),
              True, False, np.float32(1.25), np.int8(-3), np.uint64(2 ** 63), np.complex64(1j)]


@pytest.mark.parametrize("op", [op for op in _ops.OPS if op.nin == 2], ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_python_and_numpy_scalars(op, dtype):
    """NEP 50: Python scalars are weak, NumPy scalars are strong; out-of-range
    Python ints raise OverflowError except in comparisons."""
    a = value_grid(dtype, (11,), seed=3)
    for scalar in PY_SCALARS:
        assert_like_numpy(op.name, (a, scalar), "%s %s, %r" % (op.name, dtype, scalar))
        assert_like_numpy(op.name, (scalar, a), "%s %r, %s" % (op.name, scalar, dtype))


@pytest.mark.parametrize("op", _ops.OPS, ids=lambda op: op.name)
def test_out_of_every_dtype(op):
    """Casting into out follows the casting rule; values as NumPy's."""
    inputs = [value_grid(np.float32 if op.nin == 1 else np.int16, (5, 4), seed=i)
              for i in range(op.nin)]
    for out_dtype in DTYPES:
        for casting in ("same_kind", "unsafe"):
            out = np.zeros((5, 4), dtype=out_dtype)
            expected_out = np.zeros((5, 4), dtype=out_dtype)
            if op.nout == 2:        # the second output keeps NumPy's dtype
                second = numpy_call(op.name, *inputs)[1].dtype
                out = (out, np.zeros((5, 4), dtype=second))
                expected_out = (expected_out, np.zeros((5, 4), dtype=second))
            expected, np_exc = outcome(lambda: numpy_call(op.name, *inputs, out=expected_out,
                                                          casting=casting))
            actual, titer_exc = outcome(lambda: titer_call(op.name, out, *inputs,
                                                           casting=casting))
            context = "%s out=%s casting=%s" % (op.name, out_dtype, casting)
            if np_exc is not None:
                assert isinstance(titer_exc, builtin_base(type(np_exc))), context
                assert not np.any(out), context + ": out was written"
                continue
            assert titer_exc is None, "%s: %r" % (context, titer_exc)
            if op.nout == 2:
                assert all(a is o for a, o in zip(actual, out))
            else:
                assert actual is out
            if op.approx:
                # ULP-close in the loop dtype, then cast as NumPy casts: an
                # int out may round a 1-ULP difference either way.
                ours = titer_call(op.name, None, *inputs)
                same_as_numpy(op.name, ours, numpy_call(op.name, *inputs), context)
                with np.errstate(all="ignore"):
                    expected_out = ours.astype(out_dtype)
            same_as_numpy(op.name, out, expected_out, context)


def test_repeated_calls_keep_each_casting_rule_apart():
    """The kept resolutions and plans are keyed by the casting rule too: one
    operand layout called under each rule in turn, twice, is NumPy's every
    time (a rule that refuses after one that allowed, and back)."""
    a, b = np.arange(6.0), np.ones(6)
    for casting in ("unsafe", "safe", "same_kind", "no", "equiv", "unsafe", "no"):
        for _ in range(2):
            out, want = np.zeros(6, np.float32), np.zeros(6, np.float32)
            got, titer_exc = outcome(lambda: titer.elementwise("add", out, a, b,
                                                               casting=casting))
            _, np_exc = outcome(lambda: np.add(a, b, out=want, casting=casting))
            assert type(titer_exc) is type(np_exc), casting
            assert_same(out, want, casting)


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64", "complex64"])
def test_dtype_keyword(dtype):
    a = value_grid(np.int16, (9,), seed=4)
    b = value_grid(np.float32, (9,), seed=5)
    for name in ("add", "multiply", "maximum", "less"):
        for casting in ("same_kind", "unsafe"):
            assert_like_numpy(name, (a, b), "%s dtype=%s" % (name, dtype), dtype=dtype,
                              casting=casting)


def test_out_tuple_and_return_value():
    a, b = np.arange(6.0), np.ones(6)
    out = np.empty(6)
    assert titer.elementwise("add", (out,), a, b) is out
    assert_same(out, a + b)


def test_out_broadcasts_inputs_up():
    """Inputs broadcast to a larger out, as in NumPy; out is never broadcast."""
    a, b = value_grid(np.float64, (3,)), value_grid(np.float64, (2, 3), seed=2)
    out, expected = np.empty((4, 2, 3)), np.empty((4, 2, 3))
    titer.elementwise("subtract", out, a, b)
    np.subtract(a, b, out=expected)
    assert_same(out, expected)


def test_array_likes_are_converted_as_numpy_does():
    assert_like_numpy("add", ([1, 2, 3], (4.5, 5, 6)), "lists")
    assert_like_numpy("multiply", ([[1], [2]], np.arange(3, dtype=np.uint8)), "nested list")


def test_exact_alias_in_place():
    for dtype in DTYPES:
        a = value_grid(dtype, (50,), seed=6)
        expected = numpy_call("add", a, a) if dtype != np.bool_ else numpy_call("add", a, a)
        titer_call("add", a, a, a)
        assert_same(a, expected, "in place %s" % dtype)


@pytest.mark.parametrize("case", ["shifted", "reversed", "transposed", "interleaved"])
def test_overlapping_input_is_as_if_copied(case):
    """NumPy's rule: the result is as if inputs had been copied first."""
    base = value_grid(np.float64, (8, 8), seed=7)
    ours, theirs = base.copy(), base.copy()

    def views(x):
        if case == "shifted":
            return x[1:], x[:-1], 2.0
        if case == "reversed":
            return x, x[::-1], x
        if case == "transposed":
            return x, x.T, x
        return x[:, ::2], x[:, 1::2], x[:, ::2]

    out_t, in1_t, in2_t = views(ours)
    out_n, in1_n, in2_n = views(theirs)
    titer_call("subtract", out_t, in1_t, in2_t)
    numpy_call("subtract", in1_n, in2_n, out=out_n)
    assert_same(ours, theirs, case)


def test_mixed_dtypes_are_cast_in_blocks_not_copied():
    """float32 + float64 over several 512-element blocks and a tail."""
    a = value_grid(np.float32, (3, 1000), seed=8)
    b = value_grid(np.float64, (3, 1000), seed=9)
    assert_same(titer.elementwise("add", None, a, b), np.add(a, b))
    it = titer.IterConfig().add_output(None).add_input(a).add_input(b).promote_inputs_to_common_dtype().check_all_same_dtype(False).build()
    assert "cast to float64" in it.explain()


def test_large_arrays_across_chunks_and_blocks():
    """Above the grain size: threads, blocks and loop tails all line up."""
    for dtype in (np.uint8, np.int64, np.float16, np.float32, np.complex128):
        a = value_grid(dtype, (70001,), seed=10)
        b = value_grid(dtype, (70001,), seed=11)
        for name in ("add", "maximum", "less_equal"):
            same_as_numpy(name, titer_call(name, None, a, b), numpy_call(name, a, b), name)
        assert_same(titer_call("multiply", None, a[::3], b[1::3]),
                    numpy_call("multiply", a[::3], b[1::3]), "strided")


def test_float16_rounding_matches_numpy_exhaustively():
    """Every float16 bit pattern through the float16 loops."""
    allh = np.arange(65536, dtype=np.uint16).view(np.float16)
    other = np.roll(allh, 12345)
    for name in ("add", "subtract", "multiply", "divide", "square", "absolute", "negative",
                 "maximum", "minimum", "less", "equal"):
        inputs = (allh,) if getattr(np, name).nin == 1 else (allh, other)
        same_as_numpy(name, titer_call(name, None, *inputs), numpy_call(name, *inputs), name)


def test_casts_between_every_dtype_pair():
    """The cast loops (used for mixed operands and out=) equal NumPy's astype
    on in-range values, through `positive`/`add` with an out of another dtype."""
    for src, dst in itertools.product(DTYPES, DTYPES):
        if src.kind == "c" and dst.kind != "c":
            continue                    # discards the imaginary part: not a ufunc cast
        if src.kind == "b":
            x = np.array([True, False, True])
        elif src.kind in "iu":
            x = np.array([0, 1, 5, 100], dtype=src)
        else:
            x = np.array([0, 1, 2.5, -0.0, 100], dtype=src)
            if dst.kind == "u":
                x = np.abs(x)
        out = np.empty(x.shape, dtype=dst)
        expected = np.empty(x.shape, dtype=dst)
        np.add(x, np.zeros((), dtype=src), out=expected, casting="unsafe")
        titer.elementwise("add", out, x, np.zeros((), dtype=src), casting="unsafe")
        assert_same(out, expected, "%s -> %s" % (src, dst))


@pytest.mark.parametrize("char", ["e", "f", "d"])
@pytest.mark.parametrize("exponent", [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
def test_power_with_a_stride0_exponent_is_numpys_fast_op(char, exponent):
    """NumPy's float32/float64 power loops compute a stride-0 exponent of -1,
    0, 0.5, 1 or 2 as 1/x, 1, sqrt, x, x*x (so sqrt's NaN at -inf and -0 at
    -0, where pow gives inf and +0); its float16 loop does not."""
    x = np.array([-np.inf, np.inf, -0.0, 0.0, np.nan, -2.0, 1e-310, 1e30, 3.0, 7.5]
                 + list(np.linspace(-40, 40, 54)), char)
    mask = np.arange(x.size) % 3 != 0
    exponents = [exponent, np.dtype(char).type(exponent), np.array(exponent, char),
                 np.broadcast_to(np.array(exponent, char), x.shape)]
    with np.errstate(all="ignore"):
        for y in exponents:
            want, got = np.power(x, y), titer.elementwise("power", None, x, y)
            assert got.dtype == want.dtype
            if char != "e" and exponent in (3.0,):
                continue                # pow itself: within the ULP bounds, tested elsewhere
            assert got.tobytes() == want.tobytes(), (y, x[got.view("u%d" % x.itemsize)
                                                        != want.view("u%d" % x.itemsize)])
            out_n, out_t = np.zeros_like(x), np.zeros_like(x)
            np.power(x, y, out=out_n, where=mask)
            titer.elementwise("power", out_t, x, y, where=mask)
            assert out_t.tobytes() == out_n.tobytes()


@pytest.mark.parametrize("char", list(_ops.INTS))
def test_bitwise_count_with_and_without_vector_popcnt(char):
    """bitwise_count at the avx512 level runs a variant built for vector
    popcnt (AVX512-VPOPCNTDQ, BITALG) where the CPU has it, else SWAR
    steps: both give NumPy's counts (of |x|) on every 8- and 16-bit value,
    the 32- and 64-bit extremes and random values, contiguous, strided and
    in runs of every length up to 70 (the vector loops' tails).  (Where the
    CPU lacks vector popcnt, _set_vpopcnt(1) leaves the switch off.)"""
    dt = np.dtype(char)
    info = np.iinfo(dt)
    if dt.itemsize <= 2:
        x = np.arange(info.min, info.max + 1).astype(dt)
    else:
        rng = np.random.default_rng(5)
        edges = np.array([0, 1, -1, info.min, info.max, info.min + 1, info.max - 1]).astype(dt)
        x = np.concatenate([edges, rng.integers(info.min, info.max, 50000, dtype=dt,
                                                endpoint=True)])
    want = np.bitwise_count(x)
    old = _core._set_vpopcnt(1)
    try:
        for enabled in (1, 0):
            _core._set_vpopcnt(enabled)
            np.testing.assert_array_equal(titer.elementwise("bitwise_count", None, x), want)
            np.testing.assert_array_equal(titer.elementwise("bitwise_count", None, x[::3]),
                                          want[::3])
            for n in range(71):
                np.testing.assert_array_equal(
                    titer.elementwise("bitwise_count", None, x[5:5 + n]), want[5:5 + n])
    finally:
        _core._set_vpopcnt(old)


@pytest.mark.parametrize("char", ["b", "B"])
def test_byte_products_two_to_a_lane(char):
    """int8 / uint8 multiply and square multiply two bytes in a 16-bit lane
    (NOTE [byte products] in titer_loops.h): every pair of byte values, at
    every offset of the output from its 64-byte boundary and odd and even
    lengths (the head and the last byte one at a time), a stride-0 operand
    of every value on either side, in place, and the strided loop --
    NumPy's bits throughout."""
    values = np.arange(256, dtype=np.uint8).view(char)
    x, y = np.repeat(values, 256), np.tile(values, 256)
    assert_same(titer.elementwise("multiply", None, x, y), np.multiply(x, y), "all pairs")
    assert_same(titer.elementwise("square", None, x), np.square(x), "all squares")
    buffer = np.zeros(4096 + 64, np.uint8)
    for offset in range(0, 64, 7):
        for n in (1, 2, 63, 64, 65, 130, 1001):
            out = buffer[offset:offset + n].view(char)
            a, b = x[3 * offset:3 * offset + n], y[offset + 1:offset + 1 + n]
            assert_same(titer.elementwise("multiply", out, a, b), np.multiply(a, b),
                        (offset, n))
            assert_same(titer.elementwise("square", out, b), np.square(b), (offset, n))
    for s in values:
        for args in ((y[:301], s), (s, y[:301]), (y[:301], np.array(s))):
            assert_same(titer.elementwise("multiply", None, *args), np.multiply(*args), s)
    inplace = x.copy()
    titer.elementwise("multiply", inplace, inplace, y)
    assert_same(inplace, np.multiply(x, y), "in place")
    inplace = y.copy()
    titer.elementwise("square", inplace, inplace)
    assert_same(inplace, np.square(y), "square in place")
    a, b = x[::3][:9000], y[::-5][:9000]
    assert_same(titer.elementwise("multiply", None, a, b), np.multiply(a, b), "strided")
    assert_same(titer.elementwise("square", None, x[::-3]), np.square(x[::-3]), "strided")

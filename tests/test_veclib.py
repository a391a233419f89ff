"""The transcendental loops through glibc's vector math library
(titer/src/titer_veclib.h, NOTE [vector libm]): every signature the op table
routes there, at the level this run dispatches to (tests/test_dispatch.py
reruns this file under each other level).

In its trusted range a vector function is within NumPy's ULP bound of the
correctly rounded result (4 ULP float32, 2 ULP float64; the reference is
computed in float64 / x87 long double and rounded) and raises nothing; out
of range, libm gives NumPy's special values and flags.  Every element comes
from the same vector code whatever the layout, block boundary or thread
count, so those give identical bits.  Without libmvec in the build (an
older glibc, TITER_NO_LIBMVEC=1) the same tests hold the fallback paths to
the same rules."""
import platform
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import titer
from titer import _codegen, _core, _ops
from oracle import ULP_BOUNDS
from test_elementwise import same_as_numpy

VECLIB = [(op, sig) for op in _ops.OPS for sig in sorted(op.veclib or {})]
IDS = ["%s-%s" % (op.name, sig) for op, sig in VECLIB]
INF = np.inf


def _ranges(base, char):
    """titer_vl_<fn>_ok as (sign, lo, hi): x of that sign with |x| in
    [lo, hi) (the C bit tests)."""
    f = char == "f"
    tiny = float(np.finfo(np.float32 if f else np.float64).tiny)
    both = lambda lo, hi: [(1, lo, hi), (-1, lo, hi)]      # noqa: E731
    return {
        "exp2": both(0.0, 126.0 if f else 1022.0),
        "expm1": both(2.0 ** -60, 88.0 if f else 708.0),
        "log": [(1, tiny, INF)], "log2": [(1, tiny, INF)], "log10": [(1, tiny, INF)],
        "log1p": [(1, 2.0 ** -60, INF), (-1, 2.0 ** -60, 1.0)],
        "sin": both(2.0 ** -60, 2.0 ** 20), "cos": both(2.0 ** -60, 2.0 ** 20),
        "tan": both(2.0 ** -60, 2.0 ** 20),
        "asin": both(2.0 ** -60, 1.0), "atanh": both(2.0 ** -60, 1.0),
        "acos": both(2.0 ** -60, 1.0),
        "atan": both(2.0 ** -60, INF), "tanh": both(2.0 ** -60, INF),
        "asinh": both(2.0 ** -60, 2.0 ** (60 if f else 500)),
        "acosh": [(1, 1.0, 2.0 ** (60 if f else 500))],
        "sinh": both(2.0 ** -60, 88.0 if f else 709.0),
        "cosh": both(0.0, 88.0 if f else 709.0),
        "cbrt": both(tiny, INF),
    }[base]


def _base(op, sig):
    fn = op.veclib[sig][0]
    return fn[:-1] if sig[0] == "f" else fn


def _in_ranges(x, intervals):
    inside = np.zeros(x.shape, bool)
    for sign, lo, hi in intervals:
        inside |= (np.signbit(x) == (sign < 0)) & (np.abs(x) >= lo) & (np.abs(x) < hi)
    return inside


def _samples(dtype, intervals, n, rng):
    """Log-uniform magnitudes over each interval (and uniform ones), kept
    inside it once rounded to dtype."""
    info = np.finfo(dtype)
    parts = []
    for sign, lo, hi in intervals:
        a_log = np.log2(max(lo, float(info.smallest_subnormal)))
        b_log = np.log2(min(hi, float(info.max)))
        parts.append(sign * np.concatenate([np.exp2(rng.uniform(a_log, b_log, n)),
                                            rng.uniform(lo, min(hi, float(info.max)), n)]))
    x = np.concatenate(parts).astype(dtype)
    return x[_in_ranges(x, intervals)]


def _powf_ok(x, y):
    """titer_vl_powf_ok / titer_vl_pow_ok."""
    f = x.dtype == np.float32
    e = np.frexp(x)[1].astype(np.int64) - 1
    limit = 120.0 if f else 1000.0
    tiny = np.finfo(x.dtype).tiny
    with np.errstate(all="ignore"):
        return ((x >= tiny) & np.isfinite(x) & (np.abs(y) < 2.0 ** 24)
                & (np.abs(y).astype(np.float64) * (np.abs(e) + 1) < limit))


def _binary_ok(name, x, y):
    if name == "power":
        return _powf_ok(x, y)
    m = lambda v: (np.abs(v) >= 2.0 ** -60) & (np.abs(v) < 2.0 ** 60)   # noqa: E731
    return m(x) & m(y)


def _inputs(op, sig, rng, n=20000):
    dtype = np.dtype(sig[0])
    if op.nin == 1:
        return (_samples(dtype, _ranges(_base(op, sig), sig[0]), n, rng),)
    if op.name == "power":
        x = np.exp2(rng.uniform(-126 if sig[0] == "f" else -1000, 127, 8 * n)).astype(dtype)
        y = rng.uniform(-40, 40, 8 * n).astype(dtype)
        y[: n] = np.round(y[: n])                       # integral exponents too
    else:
        mags = lambda: np.exp2(rng.uniform(-60, 60, 8 * n)) * rng.choice([-1, 1], 8 * n)  # noqa
        x, y = mags().astype(dtype), mags().astype(dtype)
    keep = _binary_ok(op.name, x, y)
    return x[keep][: 2 * n], y[keep][: 2 * n]


def _reference(op, args):
    """The correctly rounded result (up to a double rounding)."""
    wide = np.float64 if args[0].dtype == np.float32 else np.longdouble
    with np.errstate(all="ignore"):
        return getattr(np, op.name)(*[a.astype(wide) for a in args]).astype(args[0].dtype)


def _ulp_distance(got, want):
    """|got - want| in units in the last place of want's format (integers:
    ordered bit patterns)."""
    ints = np.int32 if got.dtype == np.float32 else np.int64
    lowest = np.int64(np.iinfo(ints).min)
    g, w = got.view(ints).astype(np.int64), want.view(ints).astype(np.int64)
    g, w = np.where(g < 0, lowest - g, g), np.where(w < 0, lowest - w, w)
    return np.abs(g - w)


@pytest.mark.parametrize("op,sig", VECLIB, ids=IDS)
def test_in_range_within_the_ulp_bound_and_raising_nothing(op, sig):
    rng = np.random.default_rng(11)
    args = _inputs(op, sig, rng)
    assert args[0].size > 1000
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        got = titer.elementwise(op.name, None, *args)
    want = _reference(op, args)
    normal = np.isfinite(want) & (np.abs(want) >= np.finfo(want.dtype).tiny)
    dist = _ulp_distance(got[normal], want[normal])
    worst = int(np.argmax(dist))
    assert dist[worst] <= ULP_BOUNDS[want.dtype.itemsize], [a[normal][worst] for a in args]
    # a result the reference rounds to a subnormal or zero: the same one
    np.testing.assert_array_equal(got[~normal], want[~normal])


@pytest.mark.parametrize("op,sig", VECLIB, ids=IDS)
def test_same_bits_in_every_layout_block_and_thread_count(op, sig):
    """No lane computed another way: a strided, reversed, in-place,
    scalar-operand or oddly sized call, on 1 or 2 threads, gives the
    contiguous call's bits (the vector math library's loops, and the own
    vector forms that run instead at AVX-512, gather strided blocks; the
    latter's remainders go through their scalar twins)."""
    rng = np.random.default_rng(12)
    args = [a[:40000] for a in _inputs(op, sig, rng)]
    with titer.num_threads(1):
        whole = titer.elementwise(op.name, None, *args)
    size = whole.size
    for threads in (1, 2):
        with titer.num_threads(threads):
            for cut in (1, 15, 17, 1023, 1025, size - 3):
                part = titer.elementwise(op.name, None, *[a[:cut] for a in args])
                np.testing.assert_array_equal(part, whole[:cut])
            strided = [np.repeat(a, 2)[::2] for a in args]
            np.testing.assert_array_equal(titer.elementwise(op.name, None, *strided), whole)
            backwards = [a[::-1] for a in args]
            np.testing.assert_array_equal(titer.elementwise(op.name, None, *backwards),
                                          whole[::-1])
            inplace = args[0].copy()
            titer.elementwise(op.name, inplace, inplace, *args[1:])
            np.testing.assert_array_equal(inplace, whole)
            if op.nin == 2:                 # one operand a stride-0 scalar
                for k in (0, 1):
                    fixed = [a.copy() for a in args]
                    fixed[k][:] = args[k][7]
                    expected = titer.elementwise(op.name, None, *fixed)
                    scalar = list(args)
                    scalar[k] = np.broadcast_to(args[k][7], args[k].shape)
                    np.testing.assert_array_equal(
                        titer.elementwise(op.name, None, *scalar), expected)


def _edges(op, sig):
    """The ends of the trusted ranges, one float step either side, and the
    special values."""
    dtype = np.dtype(sig[0])
    values = [0.0, -0.0, np.nan, INF, -INF, 1.0, -1.0, 0.5, 2.0,
              float(np.finfo(dtype).tiny), float(np.finfo(dtype).smallest_subnormal),
              float(np.finfo(dtype).max), 1e-30, 1e30, 100.0, -100.0, 1000.0]
    if op.nin == 1:
        for sign, lo, hi in _ranges(_base(op, sig), sig[0]):
            for end in (lo, hi):
                if np.isfinite(end):
                    e = dtype.type(sign * end)
                    values += [e, np.nextafter(e, dtype.type(INF)),
                               np.nextafter(e, dtype.type(-INF))]
    x = np.array(values, dtype=dtype)
    return x[np.isfinite(x) | np.isnan(x) | np.isinf(x)]


@pytest.mark.parametrize("op,sig", VECLIB, ids=IDS)
def test_range_ends_and_special_values_are_numpys(op, sig):
    x = _edges(op, sig)
    with np.errstate(all="ignore"):
        if op.nin == 1:
            args = (np.tile(x, 3),)
        else:
            a, b = np.meshgrid(x, x)
            args = (a.ravel(), b.ravel())
        same_as_numpy(op.name, titer.elementwise(op.name, None, *args),
                      getattr(np, op.name)(*args), "%s %s" % (op.name, sig))


def _undefined_vector_symbols():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) to list the extension's symbols")
    listing = subprocess.run([nm, "-D", "--undefined-only", _core.__file__],
                             capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in listing.splitlines()
            if "_ZGV" in line}


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64")
                    or not sys.platform.startswith("linux"),
                    reason="glibc's libmvec: x86-64 Linux")
def test_each_level_calls_its_own_vector_variant():
    """Each instruction-set unit builds its own loops for its own target:
    the baseline calls the SSE2 variants (b), the avx2 unit the AVX2 ones (d),
    the avx512 unit the AVX-512 ones (e) but where an own path's vector form
    runs instead; a build without libmvec none."""
    symbols = _undefined_vector_symbols()
    if not titer._core.has_vector_libm():
        assert symbols == set()
        return
    levels, _ = _core.isa_levels()
    for op, sig in VECLIB:
        fn = op.veclib[sig][0]
        item = np.dtype(sig[0]).itemsize
        args = "v" * op.nin
        # an own path with a vector form runs instead at AVX-512 (float64
        # exp2, float32 log1p, arcsinh, arccosh, arctanh)
        own_at_avx512 = _codegen.vector_form_guard(op, sig) is not None
        for level, isa, width in (("baseline", "b", 16), ("avx2", "d", 32), ("avx512", "e", 64)):
            name = "_ZGV%sN%d%s_%s" % (isa, width // item, args, fn)
            expected = levels[level][0] and not (own_at_avx512 and level == "avx512")
            assert (name in symbols) == expected, (level, name)


# an out-of-range element at each lane of the first and last whole vectors of
# a block, of the next block's first and of the partial vector that ends the
# call (widest lanes: 16 float32 in a zmm register; titer_loops.h's block of
# 1024 elements)
_LANES, _BLOCK = 16, 1024
_SIZE = 2 * _BLOCK + 21
_POSITIONS = sorted({p for first in (0, _BLOCK - _LANES, _BLOCK, _SIZE - _LANES)
                     for p in range(first, first + _LANES)})
_BAD = [np.inf, -np.inf, -2.0, 1e30, -1e30, 1000.0, -1000.0, 0.0, -0.0, 2.0 ** -70, np.nan]


def _fp_error(call):
    """The FloatingPointError the call raises under errstate(all="raise")
    (its kind: overflow, invalid, ...), or None."""
    with np.errstate(all="raise"):
        try:
            call()
        except FloatingPointError as exc:
            return str(exc).split(" encountered")[0]
    return None


def _bad_input(op, sig, args):
    """An input out of the trusted range (a pair's first operand: its second
    kept), the one NumPy warns for where there is one."""
    dtype = np.dtype(sig[0])
    bad = np.array(_BAD, dtype)
    if op.nin == 1:
        bad = bad[~_in_ranges(bad, _ranges(_base(op, sig), sig[0]))]
    else:
        with np.errstate(all="ignore"):
            bad = bad[~_binary_ok(op.name, bad, np.full_like(bad, args[1][0]))]
    assert bad.size
    ufunc = getattr(np, op.name)
    warns = [v for v in bad if _fp_error(lambda: ufunc(v, *[a[:1] for a in args[1:]]))]
    return dtype.type((warns or list(bad))[0])


@pytest.mark.parametrize("op,sig", VECLIB, ids=IDS)
def test_out_of_range_lane_anywhere_in_a_block(op, sig):
    """One out-of-range element at every lane of a block's first and last
    vectors, the next block's first and the padded last one: the other
    elements keep the all-in-range call's bits (no lane of another vector
    code), the element gets libm's value (its single-element call's, NumPy's)
    and NumPy's FP error; contiguous, in place, strided and (binary) with a
    stride-0 second operand, on 1 and 2 threads."""
    rng = np.random.default_rng(13)
    args = [a[:_SIZE] for a in _inputs(op, sig, rng)]
    assert args[0].size == _SIZE
    with titer.num_threads(1):
        whole = titer.elementwise(op.name, None, *args)
    bad = _bad_input(op, sig, args)
    ufunc = getattr(np, op.name)
    for p in _POSITIONS:
        x = args[0].copy()
        x[p] = bad
        rest = [a[p:p + 1] for a in args[1:]]
        with np.errstate(all="ignore"):
            alone = titer.elementwise(op.name, None, x[p:p + 1], *rest)
            same_as_numpy(op.name, alone, ufunc(x[p:p + 1], *rest), "%s at %d" % (sig, p))
        error = _fp_error(lambda: ufunc(x[p:p + 1], *rest))
        expected = whole.copy()
        expected[p] = alone[0]

        def check(call, what, expected=expected, error=error):
            assert _fp_error(call) == error, (what, p)
            with np.errstate(all="ignore"):
                got = call()
            np.testing.assert_array_equal(got, expected, err_msg="%s at %d" % (what, p))

        for threads in (1, 2):
            with titer.num_threads(threads):
                check(lambda: titer.elementwise(op.name, None, x, *args[1:]),
                      "contiguous, %d threads" % threads)

        def in_place():
            y = x.copy()
            titer.elementwise(op.name, y, y, *args[1:])
            return y
        check(in_place, "in place")
        strided = [np.repeat(a, 2)[::2] for a in [x] + args[1:]]
        check(lambda: titer.elementwise(op.name, None, *strided), "strided")
        if op.nin == 2 and args[1][p] not in (-1, 0, 0.5, 1, 2):   # (power's own ops)
            # the second operand a stride-0 scalar: as its contiguous copy
            # (whose other pairs may be out of range too)
            fixed = np.full_like(x, args[1][p])
            fixed_error = _fp_error(lambda: titer.elementwise(op.name, None, x, fixed))
            with np.errstate(all="ignore"):
                ref = titer.elementwise(op.name, None, x, fixed)
            check(lambda: titer.elementwise(op.name, None, x, np.broadcast_to(fixed[0], x.shape)),
                  "stride-0 operand", ref, fixed_error)

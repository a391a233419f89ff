"""titer.accumulate against np.<op>.accumulate: every reducible op x dtype x
axis x layout, exact (each step is the op's own kernel, in NumPy's order;
ops with a vectorized fast path within 1 ULP of libm per step),
thread-count invariance, out= and dtype=."""
import warnings

import numpy as np
import pytest

import titer
from oracle import ULP_BOUNDS
from test_reduce import LAYOUTS, REDUCIBLE, sample
from titer import _ops

# float binary loops with a fast path (the integer ones are exact): rows
# scanned side by side run it, 1 ULP from NumPy's libm result at most in
# each step; through the vector math library (titer_veclib.h), within the
# op's ULP bound of the rounded result
FAST_BINARY = {(op.name, sig[0]) for op in _ops.OPS for sig in (op.fast or {})
               if len(sig.split("->")[0]) == 2 and sig[0] in _ops.FLOATING}
VECTOR_BINARY = {(op.name, sig[0]) for op in _ops.OPS for sig in (op.veclib or {})
                 if len(sig.split("->")[0]) == 2}
# float32 power left the vector math library for its own path (1 ULP from
# the rounded result per step, where _ZGVeN16vv_powf is 3), but each step's
# exponent multiplies the relative difference of the step before (5 eps
# after a few steps on this sample): it keeps the vector library's bound
VECTOR_BINARY.add(("power", "f"))

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.mark.parametrize("name,char", REDUCIBLE, ids=lambda v: str(v))
def test_every_op_dtype_axis_layout(name, char):
    rng = np.random.default_rng(11)
    base = sample((6, 7, 9), char, rng, name)
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for layout in LAYOUTS.values():
            x = layout(base.copy())
            for axis in (0, 1, 2, -1):
                want = ufunc.accumulate(x, axis=axis)
                got = titer.accumulate(name, x, axis=axis)
                assert got.dtype == want.dtype
                if np.dtype(char).kind == "c" and name not in ("add", "subtract"):
                    # NumPy's strided complex loops skip the FMA its contiguous ones use
                    np.testing.assert_allclose(got, want, rtol=1e-6 if char == "F" else 1e-14)
                elif (name, char) in VECTOR_BINARY:
                    # each step within the bound of the rounded result, as
                    # NumPy's within its own: twice the bound between them
                    np.testing.assert_allclose(
                        got, want, rtol=2 * ULP_BOUNDS[np.dtype(char).itemsize]
                        * np.finfo(char).eps)
                elif (name, char) in FAST_BINARY:
                    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(char).eps)
                else:
                    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(1,), (7,), (1235,), (33000,), (40000, 3), (3, 40000),
                                   (300, 301), (0, 5), (5, 0)])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum"])
def test_sizes_and_threads(name, shape, teams):
    rng = np.random.default_rng(12)
    x = rng.uniform(0.999, 1.001, shape)
    ufunc = getattr(np, name)
    for axis in range(len(shape)):
        want = ufunc.accumulate(x, axis=axis)
        for n in (1, 2, 3):
            with titer.num_threads(n):
                np.testing.assert_array_equal(titer.accumulate(name, x, axis=axis), want)
            with titer.num_threads(n):
                np.testing.assert_array_equal(
                    titer.accumulate(name, np.asfortranarray(x), axis=axis), want)


def test_dtype_out_and_errors():
    x = np.arange(30, dtype=np.int8).reshape(5, 6) * 7
    np.testing.assert_array_equal(titer.accumulate("add", x), np.add.accumulate(x))
    assert titer.accumulate("add", x).dtype == np.add.accumulate(x).dtype
    np.testing.assert_array_equal(titer.accumulate("add", x, dtype=np.int8),
                                  np.add.accumulate(x, dtype=np.int8))
    np.testing.assert_array_equal(titer.accumulate("add", x, axis=1, dtype=np.float32),
                                  np.add.accumulate(x, axis=1, dtype=np.float32))
    out = np.zeros((5, 6))
    assert titer.accumulate("add", x, out=out) is out
    np.testing.assert_array_equal(out, np.add.accumulate(x, out=np.zeros((5, 6))))
    y = np.arange(10.0)
    titer.accumulate("add", y, out=y)            # in place, exact alias
    np.testing.assert_array_equal(y, np.cumsum(np.arange(10.0)))
    z = np.arange(11.0)
    titer.accumulate("add", z[:-1], out=z[1:])   # partial overlap: as if copied first
    np.testing.assert_array_equal(z[1:], np.cumsum(np.arange(10.0)))
    swapped = np.arange(12, dtype=">i4").reshape(3, 4)
    np.testing.assert_array_equal(titer.accumulate("add", swapped, axis=1),
                                  np.add.accumulate(swapped, axis=1))
    with pytest.raises(TypeError):
        titer.accumulate("add", np.float64(1.0))
    with pytest.raises(np.exceptions.AxisError):
        titer.accumulate("add", x, axis=2)
    with pytest.raises(ValueError):
        titer.accumulate("add", x, out=np.zeros((6, 5)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        titer.accumulate("add", np.array([1e308, 1e308]))
    assert any("overflow encountered in accumulate" in str(m.message) for m in w)


def _same_scan(got, want, text):
    assert got.dtype == want.dtype and type(got) is type(want), text
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8),
                                  err_msg=text)


def test_repeated_1d_scans_reuse_their_loop():
    """A 1-d scan with no dtype= or out= reuses the loop the front end found
    for its op and dtype (NOTE [1-d scans], titer/_accumulate.pxi): called
    twice, each call NumPy's bits and warnings, through layouts the kept
    entry must not take (byte-swapped, unaligned, strided, reversed),
    inputs the kit widens (bool, int8 to the int64 of add) or converts,
    the axis spelled 0, -1 and None, empty, NaNs for maximum (quiet) and
    an overflow (its warning)."""
    rng = np.random.default_rng(12)
    raw = np.zeros(8 * 40 + 1, np.uint8)
    unaligned = raw[1:].view(np.float64)
    unaligned[...] = rng.standard_normal(40)
    cases = [("add", rng.standard_normal(40)), ("add", unaligned),
             ("add", rng.standard_normal(40).astype(">f8")),
             ("add", rng.standard_normal(80)[::2]), ("add", rng.standard_normal(40)[::-1]),
             ("add", rng.random(40) < 0.5), ("add", rng.integers(-100, 100, 40).astype(np.int8)),
             ("multiply", rng.integers(1, 4, 40).astype(np.int16)),
             ("maximum", np.array([1.0, np.nan, 3.0, 2.0] * 5)), ("add", np.zeros(0, np.float32)),
             ("multiply", np.array([1e300, 1e300, 1e10])), ("add", np.arange(7, dtype=np.uint64))]
    for name, x in cases:
        for axis in (0, -1, None, 0):
            text = "%s %s %s axis=%s" % (name, x.dtype, x.strides, axis)
            with warnings.catch_warnings(record=True) as ours:
                warnings.simplefilter("always")
                got = titer.accumulate(name, x, axis=axis)
            with warnings.catch_warnings(record=True) as theirs:
                warnings.simplefilter("always")
                want = getattr(np, name).accumulate(x, axis=axis)
            _same_scan(got, want, text)
            assert [str(w.message) for w in ours] == [str(w.message) for w in theirs], text

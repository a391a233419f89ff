"""titer.reduce and friends against np.<op>.reduce: every reducible op of the
op table x dtype x axes x keepdims x layouts, sizes around the pairwise block,
the leaf and the grain, NaN positions, empty reductions, where= / initial=,
dtype defaults, thread-count bit-invariance and accuracy against math.fsum."""
import math
import warnings

import numpy as np
import pytest

import titer
from oracle import numpy_reduce, reorderable_ufunc
from titer import _ops

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ORDER_FREE = {"maximum", "minimum", "fmax", "fmin"}   # exact whatever the order


def reducible():
    """(op name, type char) pairs titer reduces: binary ops, 'XX->X' loops
    that NumPy's reduce resolves to the same loop."""
    pairs = []
    for op in _ops.OPS:
        if op.nin != 2 or op.nout != 1:
            continue
        for sig in op.types:
            ins, outs = _ops.parse_signature(sig)
            if not (ins[0] == ins[1] == outs):
                continue
            ufunc = getattr(np, op.name, None)
            if not isinstance(ufunc, np.ufunc):
                continue
            try:
                got = ufunc.resolve_dtypes((None, np.dtype(outs), None), reduction=True)
            except Exception:
                continue
            if got[2] == np.dtype(outs):
                pairs.append((op.name, outs))
    return pairs


REDUCIBLE = reducible()


def sample(shape, char, rng, name=""):
    dt = np.dtype(char)
    if dt.kind == "b":
        return rng.random(shape) < 0.7
    if dt.kind in "iu":
        hi = 4 if name in ("multiply", "power", "left_shift", "right_shift", "lcm") else 100
        lo = 1 if name in ("floor_divide", "remainder", "fmod", "divide", "true_divide",
                           "gcd", "lcm") else 0
        return rng.integers(lo, hi, size=shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(0.5, 1.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dt)
    return rng.uniform(0.5, 1.5, shape).astype(dt)


def reference(ufunc, x, **kw):
    """NumPy's answer (oracle.numpy_reduce); for float16 sums and products, NumPy's float64 answer
    rounded to float16: titer accumulates them in float on every layout,
    NumPy only on contiguous runs (strided half sums saturate at 2048+)."""
    if x.dtype == np.float16 and ufunc.__name__ in ("add", "multiply"):
        kw = dict(kw)
        if "initial" in kw:
            kw["initial"] = float(kw["initial"])
        want = ufunc.reduce(x.astype(np.float64), **kw)
        return want.astype(np.float16) if isinstance(want, np.ndarray) else np.float16(want)
    return numpy_reduce(ufunc, x, **kw)


def assert_same(got, want, name, char):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    kind = np.dtype(char).kind
    if kind in "biu" or name in ORDER_FREE:
        np.testing.assert_array_equal(got, want)
    else:
        rtol = {2: 2e-2, 4: 2e-5, 8: 1e-12, 16: 1e-12}[np.dtype(char).itemsize
                                                          if kind != "c" else
                                                          np.dtype(char).itemsize // 2]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


LAYOUTS = {
    "C": lambda a: a,
    "F": lambda a: np.asfortranarray(a),
    "transposed": lambda a: np.ascontiguousarray(a.transpose(2, 0, 1)).transpose(1, 2, 0),
    "reversed": lambda a: np.ascontiguousarray(a[::-1, :, ::-1])[::-1, :, ::-1],
    "strided": lambda a: np.repeat(a, 2, axis=1)[:, ::2],
}
AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), ()]


@pytest.mark.parametrize("name,char", REDUCIBLE, ids=lambda v: str(v))
def test_every_op_dtype_axis_layout(name, char):
    rng = np.random.default_rng(1)
    base = sample((6, 7, 9), char, rng, name)
    ufunc = getattr(np, name)
    free = reorderable_ufunc(ufunc, char)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lname, layout in LAYOUTS.items():
            x = layout(base.copy())
            np.testing.assert_array_equal(x, base)
            for axis in AXES:
                if not free and (axis is None or isinstance(axis, tuple)) and axis != ():
                    if axis is None or len(axis) > 1:
                        with pytest.raises(ValueError):
                            ufunc.reduce(x, axis=axis)
                        with pytest.raises(ValueError):
                            titer.reduce(name, x, axis=axis)
                        continue
                for keepdims in (False, True):
                    want = reference(ufunc, x, axis=axis, keepdims=keepdims)
                    got = titer.reduce(name, x, axis=axis, keepdims=keepdims)
                    assert type(got) is type(want), (lname, axis, type(got), type(want))
                    assert_same(got, want, name, char)


SIZES = [0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 1235, 32767, 32768, 32769, 65537]


# (add on int32/bool accumulates in int64: covered by the dtype-default tests)
@pytest.mark.parametrize("name, char", [(n, c) for n in ("add", "maximum") for c in "fdieF?"
                                        if (n, c) in REDUCIBLE])
def test_sizes_around_blocks_and_grain(name, char):
    rng = np.random.default_rng(2)
    ufunc = getattr(np, name)
    for n in SIZES:
        x = sample((n,), char, rng)
        if n == 0 and ufunc.identity is None:
            with pytest.raises(ValueError):
                titer.reduce(name, x)
            continue
        assert_same(titer.reduce(name, x), reference(ufunc, x), name, char)
        if n:
            two = sample((n, 3), char, rng)
            for axis in (0, 1):
                assert_same(titer.reduce(name, two, axis=axis), reference(ufunc, two, axis=axis),
                            name, char)
                assert_same(titer.reduce(name, two.T, axis=axis), reference(ufunc, two.T, axis=axis),
                            name, char)


@pytest.mark.parametrize("threads", [1, 2])
def test_outer_rows_are_numpys_elementwise_loop(threads):
    """Kept dim fastest: NumPy multiplies each row in with the op's
    elementwise loop (out= its first input), which fuses a complex
    product's multiply-adds where its reduce loop does not; the bits are
    NumPy's (they were within an ULP before)."""
    rng = np.random.default_rng(31)
    z = (rng.standard_normal((200, 70)) + 1j * rng.standard_normal((200, 70))) / 1.2
    cases = [("multiply", z.astype(np.complex64)), ("multiply", z), ("add", z)]
    with titer.num_threads(threads):
        for name, x in cases:
            for view in (x, x[::2, ::3], x[:, 5:]):
                got = titer.reduce(name, view, 0)
                want = getattr(np, name).reduce(view, axis=0)
                assert got.dtype == want.dtype
                assert got.tobytes() == want.tobytes(), (name, x.dtype, view.strides)


def test_outer_layout_sizes():
    """Kept dim fastest: tiles of outputs and chunks of rows at their edges."""
    rng = np.random.default_rng(3)
    for rows in (1, 7, 8, 9, 16383, 16384, 16385):
        for cols in (4, 255, 256, 257):
            x = rng.random((rows, cols)).astype(np.float32)
            np.testing.assert_allclose(titer.sum(x, axis=0), np.sum(x, axis=0), rtol=2e-5)
            np.testing.assert_array_equal(titer.max(x, axis=0), np.max(x, axis=0))
            xi = rng.integers(-100, 100, (rows, cols), dtype=np.int32)
            np.testing.assert_array_equal(titer.sum(xi, axis=0), np.sum(xi, axis=0))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("char", ["e", "f", "d", "F", "D"])
def test_nan_at_every_position(name, char):
    if (name, char) not in REDUCIBLE:
        pytest.skip("no loop")
    ufunc = getattr(np, name)
    rng = np.random.default_rng(4)
    base = sample((37,), char, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # NumPy warns nothing here either
        for i in range(37):
            x = base.copy()
            x[i] = np.nan
            assert_same(titer.reduce(name, x), reference(ufunc, x), name, char)
        grid = sample((9, 11), char, rng)
        for i in range(0, grid.size, 5):
            x = grid.copy()
            x.flat[i] = np.nan
            for axis in (0, 1, None):
                assert_same(titer.reduce(name, x, axis=axis), ufunc.reduce(x, axis=axis),
                            name, char)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("char", ["f", "d"])
def test_nan_in_long_rows(name, char):
    """NaN at lane, vector and leaf boundaries of the contiguous vector leaves
    (64 float32 / 32 float64 accumulators, leaves of 16 blocks), in rows and
    over everything, and rows of NaN only."""
    ufunc = getattr(np, name)
    rng = np.random.default_rng(5)
    base = sample((3, 2100), char, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in (0, 1, 7, 8, 31, 32, 63, 64, 65, 511, 1023, 1024, 2047, 2099):
            x = base.copy()
            x[1, i] = np.nan
            x[2, ::97] = np.nan
            assert_same(titer.reduce(name, x, axis=1), ufunc.reduce(x, axis=1), name, char)
            assert_same(titer.reduce(name, x[1]), ufunc.reduce(x[1]), name, char)
            assert_same(titer.reduce(name, x[0]), ufunc.reduce(x[0]), name, char)
        x = np.full(1000, np.nan, char)
        assert_same(titer.reduce(name, x), ufunc.reduce(x), name, char)


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0,), 0), ((0, 3), 0), ((0, 3), 1),
                                        ((3, 0), 0), ((3, 0), 1), ((0, 0), 0), ((2, 0, 3), (0, 1))])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum"])
def test_empty_reductions(name, shape, axis):
    x = np.ones(shape, np.float64)
    ufunc = getattr(np, name)
    try:
        want = ufunc.reduce(x, axis=axis)
    except ValueError as e:
        with pytest.raises(ValueError, match="identity"):
            titer.reduce(name, x, axis=axis)
        assert "identity" in str(e)
    else:
        assert_same(titer.reduce(name, x, axis=axis), want, name, "d")
    want = ufunc.reduce(x, axis=axis, initial=5.0)
    assert_same(titer.reduce(name, x, axis=axis, initial=5.0), want, name, "d")


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum"])
@pytest.mark.parametrize("char", ["d", "i", "f"])
def test_where_and_initial(name, char):
    rng = np.random.default_rng(5)
    x = sample((5, 6, 7), char, rng)
    ufunc = getattr(np, name)
    mask = rng.random((6, 7)) < 0.5
    mask[0] = False
    for axis in (None, 0, 1, (0, 2)):
        for keepdims in (False, True):
            want = ufunc.reduce(x, axis=axis, keepdims=keepdims, initial=3, where=mask)
            got = titer.reduce(name, x, axis=axis, keepdims=keepdims, initial=3, where=mask)
            assert_same(got, want, name, char)
            want = ufunc.reduce(x, axis=axis, initial=2)
            assert_same(titer.reduce(name, x, axis=axis, initial=2), want, name, char)
    if ufunc.identity is None:
        with pytest.raises(ValueError, match="initial"):
            titer.reduce(name, x, where=mask)
    else:
        assert_same(titer.reduce(name, x, axis=1, where=mask),
                    ufunc.reduce(x, axis=1, where=mask), name, char)


@pytest.mark.parametrize("char", list("?bBhHiIlLefdFD"))
def test_dtype_defaults_and_conveniences(char):
    rng = np.random.default_rng(6)
    x = sample((4, 5), char, rng)
    for fn, ref in ((titer.sum, np.sum), (titer.prod, np.prod), (titer.max, np.max),
                    (titer.min, np.min), (titer.any, np.any), (titer.all, np.all),
                    (titer.mean, np.mean)):
        for axis in (None, 0, 1):
            if char in "FD" and ref in (np.max, np.min):
                continue
            want = ref(x, axis=axis)
            got = fn(x, axis=axis)
            assert type(got) is type(want), (fn, axis)
            assert np.asarray(got).dtype == np.asarray(want).dtype, (fn, axis)
            np.testing.assert_allclose(np.asarray(got, dtype=np.complex128),
                                       np.asarray(want, dtype=np.complex128),
                                       rtol=2e-3 if char == "e" else 1e-5)


def test_dtype_and_out():
    x = np.arange(24, dtype=np.int8).reshape(4, 6) * 9
    np.testing.assert_array_equal(titer.sum(x, axis=0, dtype=np.int8),
                                  np.sum(x, axis=0, dtype=np.int8))
    np.testing.assert_array_equal(titer.sum(x, dtype=np.float32), np.sum(x, dtype=np.float32))
    out = np.zeros(6, np.float64)
    assert titer.sum(x, axis=0, out=out) is out
    np.testing.assert_array_equal(out, np.sum(x, axis=0))
    out8 = np.zeros(6, np.int8)
    titer.sum(x, axis=0, out=out8)
    np.testing.assert_array_equal(out8, np.sum(x, axis=0, out=np.zeros(6, np.int8)))
    strided = np.zeros(12)[::2]
    titer.max(x, axis=0, out=strided)
    np.testing.assert_array_equal(strided, np.max(x, axis=0))
    with pytest.raises(ValueError):
        titer.sum(x, axis=0, out=np.zeros(5))
    outk = np.zeros((1, 6))
    titer.sum(x, axis=0, keepdims=True, out=outk)
    np.testing.assert_array_equal(outk, np.sum(x, axis=0, keepdims=True))
    # mean with where=
    mask = np.array([True, False, True, True, False, True])
    np.testing.assert_allclose(titer.mean(x, axis=1, where=mask), np.mean(x, axis=1, where=mask))


def test_swapped_unaligned_and_errors():
    x = np.arange(100, dtype=">f8").reshape(10, 10)
    assert titer.sum(x) == np.sum(x)
    np.testing.assert_array_equal(titer.max(x, axis=1), np.max(x, axis=1))
    buf = np.zeros(8 * 100 + 1, np.uint8)
    u = buf[1:].view(np.float64)
    u[:] = np.arange(100)
    assert not u.flags.aligned
    assert titer.sum(u) == np.sum(u)
    with pytest.raises(np.exceptions.AxisError):
        titer.sum(x, axis=2)
    with pytest.raises(ValueError):
        titer.sum(x, axis=(0, 0))
    with pytest.raises(ValueError):
        titer.reduce("nonexistent", x)
    with pytest.raises(TypeError):
        titer.sum(np.array(["a", "b"]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert titer.sum(np.array([1e308, 1e308])) == np.inf
    assert any("overflow encountered in reduce" in str(m.message) for m in w)


def test_in_place_out_overlapping_input():
    x = np.arange(12.0).reshape(3, 4)
    want = np.sum(x, axis=0)
    titer.sum(x, axis=0, out=x[0])
    np.testing.assert_array_equal(x[0], want)


THREAD_CASES = [
    ("f", (1 << 20) + 3, None),
    ("f", (3000, 517), 0),
    ("f", (3000, 517), 1),
    ("d", (5, 200001), 1),
    ("d", (200001, 5), 0),
    ("d", (64, 64, 64), (0, 2)),
    ("F", (300, 301), None),
    ("e", (70000,), None),
]


@pytest.mark.parametrize("char,shape,axis", THREAD_CASES)
def test_bit_identical_for_any_thread_count(char, shape, axis, teams):
    rng = np.random.default_rng(7)
    x = sample(shape, char, rng) * 3 - 1
    results = {}
    for n in (1, 2, 3):
        with titer.num_threads(n):
            results[n] = (np.asarray(titer.sum(x, axis=axis)).tobytes(),
                          np.asarray(titer.prod(x[..., :1] if x.ndim > 1 else x[:64],
                                                axis=0)).tobytes())
    assert results[1] == results[2] == results[3]
    grain = titer.get_grain_size()
    try:
        titer.set_grain_size(1)          # force the parallel paths on small data too
        small = sample((9, 300), char, rng)
        got = []
        for n in (1, 2, 3):
            with titer.num_threads(n):
                got.append(b"".join(np.asarray(titer.sum(small, axis=a)).tobytes()
                                    for a in (None, 0, 1)))
        assert got[0] == got[1] == got[2]
    finally:
        titer.set_grain_size(grain)


def fsum_error(got, column):
    exact = math.fsum(column.tolist())
    scale = math.fsum(abs(v) for v in column.tolist())
    return abs(float(got) - exact) / scale


@pytest.mark.parametrize("axis", [0, 1])
def test_sums_in_numpys_order_on_every_axis(axis):
    """NumPy's order, hence its bits: pairwise along the fast axis (within a
    few log2(n) ulps of the exact sum), rows added in order along an outer
    axis (NumPy's elementwise row loop: it drifts, and so must titer)."""
    rng = np.random.default_rng(8)
    n = 1 << 17
    x = (rng.random((n, 8)) if axis == 0 else rng.random((8, n))).astype(np.float32)
    x += np.float32(1000)          # a large common offset: sequential sums drift
    got = titer.sum(x, axis=axis)
    np.testing.assert_array_equal(got, np.sum(x, axis=axis))
    eps = np.finfo(np.float32).eps
    bound = 4 * math.log2(n) * eps
    if axis == 1:
        for k in range(8):
            assert fsum_error(got[k], x[k].astype(np.float64)) <= bound
    assert fsum_error(titer.sum(x), x.ravel().astype(np.float64)) <= bound


PIECE = 32768      # TITER_RED_PIECE (titer_reduce.h): the largest leaf partial


def pairwise_model(x, op):
    """NumPy's pairwise tree (8 accumulators up to blocks of 128, halved at
    multiples of 8 above; complex: 4 and 64), in NumPy arithmetic, one
    rounding per step."""
    nacc = 4 if x.dtype.kind == "c" else 8
    n = len(x)
    if n < nacc:
        r = x[0]
        for v in x[1:]:
            r = op(r, v)
        return r
    if n <= 16 * nacc:
        end = n - n % nacc
        r = x[:nacc].copy()
        for i in range(nacc, end, nacc):
            r = op(r, x[i:i + nacc])
        while len(r) > 1:                  # ((r0 r1) (r2 r3)) ((r4 r5) (r6 r7))
            r = op(r[0::2], r[1::2])
        r = r[0]
        for v in x[end:]:
            r = op(r, v)
        return r
    half = n // 2 - (n // 2) % nacc
    return op(pairwise_model(x[:half], op), pairwise_model(x[half:], op))


@pytest.mark.parametrize("char", "fdFD")
@pytest.mark.parametrize("n", [7, 9, 100, 129, 136, 257, 1000, 4097, PIECE, PIECE + 1, 100003])
def test_fast_axis_sums_are_numpys_bit_for_bit(char, n):
    """The order of every rounding is NumPy's pairwise tree (the model), at
    any length and whatever the loop does inside (vector leaves, interleaved
    sibling leaves, pieces cut from NumPy's tree for threads): contiguous,
    unaligned and strided rows, along axis 1 and over everything.  Products
    are NumPy's left fold (NumPy multiplies in order), so NumPy's bits."""
    rng = np.random.default_rng(n)

    def values(scale):
        v = rng.random(2 * n + 1) * scale
        if char in "FD":
            v = v + 1j * rng.random(2 * n + 1) * scale
        return v.astype(char)

    big = values(1000)
    near_one = (1 + (values(1) - 0.5) / 256).astype(char)
    for x in (big[:n], big[1:n + 1], big[::2][:n]):
        want = pairwise_model(x, np.add)
        assert np.sum(x).tobytes() == want.tobytes(), "the model is not NumPy's tree"
        for threads in (1, 2):
            with titer.num_threads(threads):
                got = titer.sum(x)
            assert got.tobytes() == want.tobytes(), (x.strides, threads)
    y = near_one[1:n + 1]
    for threads in (1, 2):             # products: NumPy's left fold, its bits
        with titer.num_threads(threads):
            assert titer.prod(y).tobytes() == np.prod(y).tobytes(), threads
    rows = big[:3 * (n // 3)].reshape(3, -1)
    want = np.array([pairwise_model(row, np.add) for row in rows])
    assert titer.sum(rows, axis=1).tobytes() == want.tobytes()
    assert titer.sum(rows, axis=1).tobytes() == np.sum(rows, axis=1).tobytes()


def _left_fold(ufunc, x, axis, initial, mask):
    """NumPy's definition of a where= reduction of an op without an
    identity: from initial=, the selected elements in order, one scalar
    call of the ufunc each."""
    xs, ms = np.moveaxis(x, axis, -1), np.moveaxis(np.broadcast_to(mask, x.shape), axis, -1)
    want = np.empty(xs.shape[:-1], x.dtype)
    for idx in np.ndindex(*xs.shape[:-1]):
        acc = x.dtype.type(initial)
        for v, keep in zip(xs[idx], ms[idx]):
            if keep:
                acc = ufunc(acc, v)
        want[idx] = acc
    return want


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name,char", [("left_shift", "i"), ("subtract", "d"), ("divide", "d"),
                                       ("power", "l"), ("fmod", "d"), ("right_shift", "B"),
                                       ("subtract", "F")])
def test_masked_fold_of_an_op_without_identity(name, char, threads):
    """titer folds the selected elements from initial= in C (the where=
    mask read as it goes), bit for bit NumPy's left fold, in any layout
    and on any thread count; 2 x 3000 crosses the threads' grain."""
    rng = np.random.default_rng(5)
    ufunc = getattr(np, name)
    with titer.num_threads(threads), np.errstate(all="ignore"):
        for shape in [(5,), (4, 5), (3, 4, 5), (6, 1), (0, 3), (2, 3000)]:
            x = (rng.integers(0, 4, shape) if char in "ilB" else
                 rng.standard_normal(shape)).astype(char)
            for axis in range(len(shape)):
                for mask in (rng.integers(0, 2, shape).astype(bool),
                             rng.integers(0, 2, shape[-1:]).astype(bool)):
                    for view, ax, m in ((x, axis, mask),
                                        (x.T, x.ndim - 1 - axis,
                                         np.broadcast_to(mask, x.shape).T)):
                        got = titer.reduce(name, view, axis=ax, initial=1, where=m)
                        want = _left_fold(ufunc, view, ax, 1, m)
                        assert got.dtype == want.dtype
                        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("char", ["f", "F", "d", "D", "e", "i"])
def test_mean_divides_by_numpys_intp_count(char):
    """numpy.mean divides the sum by its count as an intp, not a weak Python
    int: a complex64 mean is divided in complex128 and rounded back (its own
    complex64 division differs in the last bit), for 0-d results and along
    an axis."""
    rng = np.random.default_rng(9)
    for n in (7, 10, 33, 100, 257):
        x = (np.abs(rng.standard_normal((3, n))) * 3 + 1j * (char in "FD")).astype(char)
        want, got = np.mean(x[0]), titer.mean(x[0])
        assert type(got) is type(want) and got.tobytes() == want.tobytes(), (n, want, got)
        want, got = np.mean(x, axis=1), titer.mean(x, axis=1)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (n, want, got)

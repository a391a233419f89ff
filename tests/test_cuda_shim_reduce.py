"""titer's CUDA reduction, scan and copy kernels compiled as host C++ and run
on the CPU (host_shim.h: every block's threads are fibers, __syncthreads is a
real barrier), through the real device entry points (titer.cuda.reduce /
titer.cuda.copy) and through titer.sum / titer.copy / ... with the default
backend swapped for the host one.  Checked against NumPy: exact for
integers, bools, max/min and scans; float sums and products to a few ULP
(the GPU combines in a fixed tree, NumPy pairwise)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import titer
from oracle import (NEAR_ONE_OPS, ORDER_FREE, assert_reduction, host_backend,
                    numpy_reduce, small_values as values)
from titer import _ops
from titer.cuda import host, launcher, plan
from titer.cuda import copy as dcopy
from titer.cuda import reduce as dreduce

pytestmark = pytest.mark.skipif(host.find_cxx() is None, reason="no C++ compiler (g++)")

# every op with reduction kernels (the reducible signatures of the op table)
REDUCE_OPS = sorted({op.name for op in _ops.OPS for sig in op.types
                     if op.nin == 2 and op.nout == 1 and len(sig) == 5
                     and sig[0] == sig[1] == sig[-1]})


@pytest.fixture(scope="module")
def be():
    return host_backend()


@pytest.fixture
def routed(be, monkeypatch):
    """titer's public entry points, with the host backend as 'the GPU'."""
    monkeypatch.setattr(launcher, "default_backend", lambda: be)
    return be


def H(a):
    return host.HostArray(a)


def layouts(a):
    """The same values in other memory layouts (views of other arrays)."""
    yield "contiguous", a
    t = np.ascontiguousarray(np.moveaxis(a, 0, -1))
    yield "transposed", np.moveaxis(t, -1, 0)
    big = np.empty(tuple(2 * s for s in a.shape), a.dtype)
    view = big[tuple(slice(None, None, -2) for _ in a.shape)]
    view[...] = a
    yield "reversed-strided", view


def reducible(name):
    op = _ops.OPS_BY_NAME[name]
    return [s for s in op.types if s[0] == s[1] == s[-1] and len(s) == 5]


def test_rparams_layout(be):
    got = be.rparams_layout()
    f = plan.RPARAMS_DTYPE.fields
    assert got[0] == plan.RPARAMS_DTYPE.itemsize
    assert got[1:] == [f[k][1] for k in plan.RPARAMS_DTYPE.names]


@pytest.mark.parametrize("name", REDUCE_OPS)
def test_every_reduction_signature(be, name):
    """Every loop dtype, every axis choice, three layouts, against NumPy
    (oracle.assert_reduction says how close)."""
    rng = np.random.default_rng(len(name))
    ufunc = getattr(np, name)
    ordered = name not in _ops.REORDERABLE
    checked = 0
    for sig in reducible(name):
        char = sig[0]
        if sig not in be.manifest["ops"][name]["kernels"]:
            continue
        a = values(char, (6, 35, 4), rng, near_one=name in NEAR_ONE_OPS)
        if char in "efdFD" and name in ORDER_FREE:
            a.flat[7] = np.nan
        if name == "power" and char in "bhil":
            a = np.abs(a) % 3                   # negative exponents raise (below)
        for label, x in layouts(a):
            for axis in (0, 1, 2) if ordered else (None, 0, 1, 2, (0, 2)):
                with np.errstate(all="ignore"):
                    want = np.asarray(numpy_reduce(ufunc, x, axis=axis, dtype=char))
                got = dreduce.reduce(name, H(x), axis, dtype=char, backend=be).a
                assert_reduction(name, got, want, x.astype(char), axis, ordered,
                                 _ops.OPS_BY_NAME[name].approx)
                checked += 1
    assert checked > 0
    if ordered:
        with pytest.raises(ValueError, match="not reorderable"):
            dreduce.reduce(name, H(a), (0, 1), backend=be)


@pytest.mark.parametrize("shape,axis", [((1 << 16,), None), ((4096, 3), 0), ((3, 1 << 14), 1),
                                        ((64, 3, 512), (0, 2))])
def test_split_over_blocks_is_exact(be, shape, axis):
    """Big reductions on few outputs split over gridDim.y blocks and combine
    the partials in order (reduce_final): integers stay exact."""
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    be.launched.clear()
    be.launches.clear()
    got = dreduce.reduce("add", H(x), axis, backend=be).a
    np.testing.assert_array_equal(got, np.add.reduce(x, axis=axis))
    assert any(k.endswith("_reduce_final") for k in be.launched), be.launched
    assert be.launches[0].grid[1] > 1
    got = dreduce.reduce("maximum", H(x), axis, backend=be).a
    np.testing.assert_array_equal(got, np.maximum.reduce(x, axis=axis))


def test_float_sum_accuracy(be):
    """The tree sum of 2^16 float32 is as close to the exact sum as NumPy's."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(1 << 16) + 3).astype(np.float32)
    exact = float(np.sum(x.astype(np.float64)))
    got = float(dreduce.reduce("add", H(x), None, backend=be).a)
    assert abs(got - exact) <= 4 * abs(float(np.sum(x)) - exact) + 1e-6 * abs(exact)


@pytest.mark.parametrize("char,dtype", [("?", None), ("b", None), ("B", None), ("h", None),
                                        ("e", "f"), ("f", "d"), ("i", "d"), ("?", "i")])
def test_converting_input_loads_with_cast(be, char, dtype):
    """bool/int8 sums run in the platform int, float16 with dtype=float32:
    the input is converted while loaded (reduce_cast), never copied."""
    rng = np.random.default_rng(3)
    x = values(char, (40, 9), rng)
    for axis in (None, 0, 1):
        be.launched.clear()
        got = dreduce.reduce("add", H(x.T), axis, dtype=dtype, backend=be).a
        want = np.add.reduce(x.T, axis=axis, dtype=dtype)
        assert_reduction("add", got, want, x.T.astype(want.dtype), axis, False, False)
        assert be.launched[0].endswith("_reduce_cast")
        assert not any("copy" in k for k in be.launched)


def test_ordered_ops_fold_in_order(be):
    rng = np.random.default_rng(4)
    x = values("d", (9, 13), rng) + 20
    for name in ("subtract", "divide"):
        for axis in (0, 1):
            for initial in (np._NoValue, 3.5):
                got = dreduce.reduce(name, H(x), axis, initial=initial, backend=be).a
                want = getattr(np, name).reduce(x, axis=axis, initial=initial)
                np.testing.assert_array_equal(got, want)
        with pytest.raises(ValueError, match="not reorderable"):
            dreduce.reduce(name, H(x), (0, 1), backend=be)
    xi = values("i", (30, 7), rng)
    got = dreduce.reduce("subtract", H(xi), 0, backend=be).a
    np.testing.assert_array_equal(got, np.subtract.reduce(xi, axis=0))


def test_keepdims_initial_where_out(be):
    rng = np.random.default_rng(5)
    x = values("i", (5, 6, 7), rng)
    for axis in (None, 1, (0, 2)):
        got = dreduce.reduce("add", H(x), axis, keepdims=True, initial=10, backend=be).a
        np.testing.assert_array_equal(got, np.add.reduce(x, axis=axis, keepdims=True,
                                                         initial=10))
    mask = rng.integers(0, 2, (6, 7)).astype(bool)
    for name, initial in (("add", np._NoValue), ("maximum", -100), ("multiply", 2)):
        got = dreduce.reduce(name, H(x), 1, initial=initial, where=H(mask), backend=be).a
        want = getattr(np, name).reduce(x, axis=1, initial=initial, where=mask)
        np.testing.assert_array_equal(got, want)
    got = dreduce.reduce("add", H(x), 0, where=False, backend=be).a
    np.testing.assert_array_equal(got, np.add.reduce(x, axis=0, where=False))
    # out= in the loop dtype (written directly), of another dtype, and 0-d
    out = np.full((5, 7), -1, np.int64)
    assert dreduce.reduce("add", H(x), 1, out=H(out), backend=be).a is out
    np.testing.assert_array_equal(out, np.add.reduce(x, axis=1))
    out = np.full((5, 7), -1, np.float32)
    dreduce.reduce("add", H(x), 1, out=H(out), backend=be)
    np.testing.assert_array_equal(out, np.add.reduce(x, axis=1, out=np.empty((5, 7),
                                                                             np.float32)))
    out0 = np.zeros((), np.int64)
    dreduce.reduce("maximum", H(x), None, out=(H(out0),), backend=be)
    assert out0 == x.max()


def test_output_layout_follows_input(be):
    """out=None: the input's dim order (NumPy's order='K'), as on the CPU."""
    x = np.ascontiguousarray(np.ones((4, 5, 6), np.float32).transpose(2, 0, 1)).transpose(1, 2, 0)
    for axis, keepdims in ((1, False), (1, True), ((0,), False)):
        got = dreduce.reduce("add", H(x), axis, keepdims=keepdims, backend=be).a
        want = titer.reduce("add", x, axis, keepdims=keepdims)
        assert got.strides == want.strides, (axis, keepdims)


def test_empty_reductions(be):
    x = np.zeros((0, 4), np.float64)
    np.testing.assert_array_equal(dreduce.reduce("add", H(x), 0, backend=be).a, np.zeros(4))
    np.testing.assert_array_equal(dreduce.reduce("multiply", H(x), 0, backend=be).a, np.ones(4))
    assert dreduce.reduce("add", H(x), 1, backend=be).a.shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        dreduce.reduce("maximum", H(x), 0, backend=be)
    got = dreduce.reduce("maximum", H(x), 0, initial=-1.5, backend=be).a
    np.testing.assert_array_equal(got, np.maximum.reduce(x, axis=0, initial=-1.5))


def test_reduce_errors(be):
    x = H(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="wrong shape"):
        dreduce.reduce("add", x, 0, out=H(np.zeros(3, np.float32)), backend=be)
    with pytest.raises(ValueError, match="does not have an identity"):
        dreduce.reduce("maximum", x, 0, where=H(np.ones((3, 4), bool)), backend=be)
    with pytest.raises(np.exceptions.AxisError):
        dreduce.reduce("add", x, 2, backend=be)
    with pytest.raises(ValueError, match="reduce only supported for binary"):
        dreduce.reduce("sqrt", x, 0, backend=be)
    with pytest.raises(ValueError, match="has no operation"):
        dreduce.reduce("nope", x, 0, backend=be)
    with pytest.raises(TypeError, match="device array"):
        dreduce.reduce("add", x, 0, out=np.zeros(4, np.float32), backend=be)
    with pytest.raises(TypeError, match="where= must be a device array"):
        dreduce.reduce("add", x, 0, where=np.ones((3, 4), bool), backend=be)


def _raised(call):
    try:
        call()
    except Exception as exc:
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda r, x: r("add", x, [0]),                  # a list is no axis (NumPy's TypeError)
    lambda r, x: r("add", x, 1.0),
    lambda r, x: r("add", x, (0, 0)),
    lambda r, x: r("add", x, 2),
    lambda r, x: r("subtract", x, (0, 1)),
    lambda r, x: r("subtract", x, None),
    lambda r, x: r("hypot", x, None, dtype=np.int8),
])
def test_reduction_arguments_as_numpy(be, call):
    """The front end's axis and loop rules: NumPy's exception classes (and
    messages but for AxisError's wording)."""
    x = np.ones((2, 3))
    want = _raised(lambda: call(lambda n, a, axis, **kw: getattr(np, n).reduce(a, axis, **kw),
                                x))
    got = _raised(lambda: call(lambda n, a, axis, **kw: dreduce.reduce(n, H(a), axis,
                                                                        backend=be, **kw), x))
    assert want is not None and got is not None and got[0] is want[0], (got, want)
    if want[0] is not np.exceptions.AxisError:
        assert got[1] == want[1]


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "logical_or"])
def test_accumulate(be, name):
    rng = np.random.default_rng(6)
    ufunc = getattr(np, name)
    for char in "?bilfdF":
        sigs = be.manifest["ops"][name]["kernels"]
        x = values(char, (5, 8, 3), rng, near_one=name == "multiply")
        for label, v in layouts(x):
            for axis in (0, 1, 2):
                with np.errstate(all="ignore"):
                    try:
                        want = ufunc.accumulate(v, axis=axis)
                    except TypeError:
                        continue
                sig = "%s%s->%s" % ((want.dtype.char,) * 3)
                if sig not in sigs:
                    continue
                got = dreduce.accumulate(name, H(v), axis, backend=be).a
                assert got.dtype == want.dtype
                if char == "F" and name == "multiply":
                    # NumPy's complex64 multiply rounds like FMA in its SIMD
                    # loop; titer's kernel is the plain formula (README)
                    np.testing.assert_allclose(got, want, rtol=1e-6)
                else:
                    np.testing.assert_array_equal(got, want)


def test_accumulate_out_and_in_place(be):
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    out = np.zeros((4, 6), np.float64)
    dreduce.accumulate("add", H(x), 1, out=H(out), backend=be)
    np.testing.assert_array_equal(out, np.add.accumulate(x, axis=1, dtype=np.float64))
    y = x.astype(np.int64)
    want = np.add.accumulate(y, axis=0)
    dreduce.accumulate("add", H(y), 0, out=H(y), backend=be)
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match="does not match the input shape"):
        dreduce.accumulate("add", H(x), 0, out=H(np.zeros((4, 5))), backend=be)
    with pytest.raises(ValueError, match="does not allow multiple axes"):    # NumPy's
        dreduce.accumulate("add", H(x), None, backend=be)


def test_mean(be):
    rng = np.random.default_rng(7)
    for char in "ifed":
        x = values(char, (6, 10), rng)
        for axis in (None, 0, 1):
            got = dreduce.mean(H(x), axis, backend=be).a
            want = np.mean(x, axis=axis)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol={"e": 2e-3, "f": 1e-5}.get(char, 1e-12))
    mask = rng.integers(0, 2, (6, 10)).astype(bool)
    mask[:, 0] = True
    x = values("d", (6, 10), rng)
    np.testing.assert_allclose(dreduce.mean(H(x), 0, where=H(mask), backend=be).a,
                               np.mean(x, axis=0, where=mask), rtol=1e-12)


# ---- copies ------------------------------------------------------------------

CHARS = "?bBhHiIlLefdFD"


def test_copy_every_dtype_pair(be):
    """copy.cu's cast kernel for all 196 pairs, from a transposed source."""
    rng = np.random.default_rng(8)
    for s in CHARS:
        src = values(s, (6, 5), rng).T
        if np.dtype(s).kind in "fc":
            src = np.abs(src)                 # in range for every integer dtype
        for d in CHARS:
            dst = np.zeros((5, 6), d)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                dcopy.copy(H(dst), H(src), casting="unsafe", backend=be)
                want = np.zeros((5, 6), d)
                np.copyto(want, src, casting="unsafe")
            np.testing.assert_array_equal(dst, want, err_msg="%s -> %s" % (s, d))


def test_copy_of_complex_into_real_warns_as_numpy_even_when_empty(be):
    """NumPy warns of the discarded imaginary part before it looks at the
    size; the host's titer.copy does the same (tests/test_copy.py)."""
    for shape in [(0,), (3, 0), (4,)]:
        for src in [np.ones(shape[-1:], np.complex64), np.complex128(1 + 2j)]:
            dst, want = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
            with warnings.catch_warnings(record=True) as ours:
                warnings.simplefilter("always")
                dcopy.copy(H(dst), H(src) if isinstance(src, np.ndarray) else src,
                           casting="unsafe", backend=be)
            with warnings.catch_warnings(record=True) as theirs:
                warnings.simplefilter("always")
                np.copyto(want, src, casting="unsafe")
            assert [w.category for w in ours] == [w.category for w in theirs], (shape, src)
            np.testing.assert_array_equal(dst, want)


def test_copy_broadcast_scalar_overlap(be):
    dst = np.zeros((4, 6), np.float32)
    dcopy.copy(H(dst), H(np.arange(6, dtype=np.int16)), backend=be)
    np.testing.assert_array_equal(dst, np.broadcast_to(np.arange(6), (4, 6)))
    dcopy.copy(H(dst), 2.5, backend=be)
    assert (dst == 2.5).all()
    dcopy.copy(H(dst), np.float64(-1.0), backend=be)
    assert (dst == -1).all()
    a = np.arange(20, dtype=np.int64)
    want = a.copy()
    want[2:] = a[:-2].copy()
    dcopy.copy(H(a[2:]), H(a[:-2]), backend=be)     # overlapping: as if src were copied
    np.testing.assert_array_equal(a, want)
    with pytest.warns(np.exceptions.ComplexWarning):
        dcopy.copy(H(dst), H(np.ones(6, np.complex64)), casting="unsafe", backend=be)


def test_copy_errors(be):
    dst = H(np.zeros((3, 4), np.int32))
    with pytest.raises(TypeError, match="Cannot cast array data"):
        dcopy.copy(dst, H(np.ones((3, 4))), backend=be)
    with pytest.raises(TypeError, match="Cannot cast scalar"):
        dcopy.copy(dst, 1.5, backend=be)
    with pytest.raises(ValueError, match="could not broadcast"):
        dcopy.copy(dst, H(np.ones(3, np.int32)), backend=be)
    with pytest.raises(TypeError, match="cannot mix NumPy arrays"):
        dcopy.copy(dst, np.ones((3, 4), np.int32), backend=be)
    with pytest.raises(OverflowError):
        dcopy.copy(dst, 2**40, backend=be)
    with pytest.raises(ValueError, match="internal overlap"):
        dcopy.copy(H(np.broadcast_to(np.zeros(4, np.int32), (3, 4))), 1, backend=be)


@pytest.mark.parametrize("fmt", ["contiguous", "channels_last", "preserve"])
def test_ascontiguous_and_empty_like_match_cpu(be, fmt):
    rng = np.random.default_rng(9)
    base = values("f", (2, 3, 4, 5), rng)
    for x in (base, base.transpose(0, 2, 3, 1), base[:, ::-1, ::2], base.transpose(3, 2, 1, 0)):
        got = dcopy.ascontiguous(H(x), fmt, backend=be)
        want = titer.ascontiguous(x, fmt)
        assert (got.a is x) == (want is x)
        assert got.a.strides == want.strides
        np.testing.assert_array_equal(got.a, x)
        e = dcopy.empty_like(H(x), fmt, dtype=np.int16, backend=be)
        assert e.a.strides == titer.empty_like(x, fmt, dtype=np.int16).strides


def test_public_entry_points_route_device_arrays(routed):
    """titer.elementwise (device out=, out tuples, where=), sum / max / any /
    mean / reduce / accumulate / copy / ascontiguous / empty_like take
    device arrays to titer.cuda."""
    rng = np.random.default_rng(10)
    x = values("i", (8, 9), rng)
    np.testing.assert_array_equal(titer.sum(H(x), axis=0).a, x.sum(axis=0))
    np.testing.assert_array_equal(titer.prod(H(x % 3 + 1), axis=1).a, (x % 3 + 1).prod(axis=1))
    np.testing.assert_array_equal(titer.max(H(x)).a, x.max())
    np.testing.assert_array_equal(titer.min(H(x), axis=1).a, x.min(axis=1))
    np.testing.assert_array_equal(titer.any(H(x > 5), axis=0).a, (x > 5).any(axis=0))
    np.testing.assert_array_equal(titer.all(H(x > -30), axis=1).a, (x > -30).all(axis=1))
    np.testing.assert_allclose(titer.mean(H(x), axis=1).a, x.mean(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(titer.accumulate("add", H(x), 1).a, np.cumsum(x, axis=1))
    dst = np.zeros((9, 8), np.float64)
    titer.copy(H(dst), H(x.T))
    np.testing.assert_array_equal(dst, x.T)
    c = titer.ascontiguous(H(x.T))
    assert c.a.flags.c_contiguous and np.array_equal(c.a, x.T)
    assert titer.empty_like(H(x.T)).a.strides == x.T.strides
    out = np.zeros((8, 9), np.float64)
    assert titer.elementwise("add", H(out), H(x), 0.5).a is out      # a device out=
    np.testing.assert_array_equal(out, x + 0.5)
    q, r = np.zeros((8, 9), np.int32), np.zeros((8, 9), np.int32)
    titer.elementwise("divmod", (H(q), H(r)), H(x), 4)
    np.testing.assert_array_equal(q, x // 4)
    np.testing.assert_array_equal(r, x % 4)
    mask = x > 0
    titer.elementwise("multiply", H(out), H(x), 2.0, where=H(mask))
    np.testing.assert_array_equal(out, np.where(mask, x * 2.0, x + 0.5))
    routed.launched.clear()
    titer.sum(H(x))
    assert routed.launched and all(k.startswith("titer_add_ll_l") for k in routed.launched)


def test_reduce_config_bounds():
    """Host-side config: power-of-two lanes, <= RBLOCK threads, every split
    block has work, grid.y within limits, ordered ops one lane in order."""
    cases = [((1 << 20,), (4,), (), (), ()), ((7,), (4,), (1000,), (28,), (4,)),
             ((1000,), (4000,), (7,), (4,), (4,)), ((1 << 31,), (1,), (), (), ()),
             ((3, 5), (4, 12), (1 << 20,), (60,), (4,))]
    for rshape, rst, kshape, kst, kout in cases:
        rp = plan.ReducePlan(rshape, rst, kshape, kst, kout)
        nred = plan.numel(rshape)
        for ordered in (False, True):
            for sms in (1, 132):
                c = plan.reduce_config(rp, ordered, sms)
                bx, by, _ = c.block
                assert bx * by <= plan.RBLOCK and bx & (bx - 1) == 0 and by & (by - 1) == 0
                lanes = by if c.out_on_x else bx
                assert c.grid[1] == c.nsplit <= plan.MAX_GRID_Y
                assert (c.nsplit - 1) * lanes < nred
                if ordered:
                    assert lanes == 1 and c.nsplit == 1
    inner = plan.reduce_config(plan.ReducePlan((4096,), (4,), (64,), (16384,), (4,)), False)
    outer = plan.reduce_config(plan.ReducePlan((4096,), (256,), (64,), (4,), (4,)), False)
    assert inner.out_on_x == 0 and outer.out_on_x == 1
    # 16-byte loads only for one contiguous reduced dim read as it is, rows
    # that keep 16-byte alignment, and a whole vector for every thread
    contiguous = plan.ReducePlan((4096,), (4,), (64,), (16384,), (4,))
    assert plan.reduce_config(contiguous, False, 132, 4).vec == 4
    assert plan.reduce_config(contiguous, False, 132, None).vec == 1       # a cast
    assert plan.reduce_config(contiguous, True, 132, 4).vec == 1           # ordered
    assert plan.reduce_config(plan.ReducePlan((4096,), (4,), (64,), (16388,), (4,)),
                              False, 132, 4).vec == 1                      # rows misaligned
    assert plan.reduce_config(plan.ReducePlan((300,), (4,), (64,), (1200,), (4,)),
                              False, 132, 4).vec == 1                      # too short
    assert plan.reduce_config(plan.ReducePlan((1 << 20,), (8,), (), (), ()),
                              False, 132, 8).vec == 2
    for nout, nsplit in ((1, 528), (5, 3), (4096, 5), (1, 1 << 12)):
        grid, block = plan.final_config(nout, nsplit)
        assert block[0] * block[1] <= plan.RBLOCK and block[0] & (block[0] - 1) == 0
        assert grid[0] * block[1] >= nout and block[0] >= min(nsplit, plan.RBLOCK)


@pytest.mark.parametrize("char", "?bhifdD")
@pytest.mark.parametrize("n", [(1 << 16) + 7, 1 << 17])
def test_vector_loads_and_tails(be, char, n):
    """Sums and maxima over one contiguous run: 16-byte loads (every
    itemsize), a tail past the last whole vector, a misaligned start (the
    kernel falls back to element loads), many blocks per output and rows."""
    rng = np.random.default_rng(n)
    x = values(char, (n + 1,), rng)
    if char in "bhi":
        x = x % 5
    for aligned, view in ((True, x[:n]), (False, x[1:])):
        got = dreduce.reduce("add", H(view), None, backend=be).a
        assert_reduction("add", np.asarray(got), np.add.reduce(view),
                         view.astype(np.add.reduce(view[:1]).dtype), None, False, False)
        if char != "D":         # (16-byte items: no vectors of two)
            be.launches.clear()
            got = dreduce.reduce("maximum", H(view), None, backend=be).a
            np.testing.assert_array_equal(got, np.maximum.reduce(view))
            assert be.launches[0].params[0]["vec"] == 16 // view.itemsize
    rows = x[:n - n % 64].reshape(64, -1)
    got = dreduce.reduce("add", H(rows), 1, backend=be).a
    assert_reduction("add", np.asarray(got), np.add.reduce(rows, axis=1), rows, 1, False, False)


def test_reduction_plan_cache(be, monkeypatch):
    """titer.sum on a layout seen before re-addresses the recorded launches
    (input, output, partials, initial value) without planning."""
    monkeypatch.setattr(be, "plan_cache", {})
    rng = np.random.default_rng(11)
    x = rng.integers(-50, 50, (3, 1 << 14)).astype(np.int32)
    dreduce.reduce("add", H(x), 1, backend=be)
    monkeypatch.setattr(dreduce._plan, "plan_reduction",
                        lambda *a, **k: pytest.fail("planned again"))
    for initial in (np._NoValue, 7, -3):
        y = rng.integers(-50, 50, (3, 1 << 14)).astype(np.int32)
        kw = {} if initial is np._NoValue else {"initial": initial}
        if kw:
            monkeypatch.undo()
            dreduce.reduce("add", H(y), 1, backend=be, **kw)
            monkeypatch.setattr(dreduce._plan, "plan_reduction",
                                lambda *a, **k: pytest.fail("planned again"))
        got = dreduce.reduce("add", H(y), 1, backend=be, **kw).a
        np.testing.assert_array_equal(got, np.add.reduce(y, axis=1, **kw))


def test_integer_power_reduction_checks_exponents(be):
    """np.power.reduce raises for a negative exponent -- every element after
    the first along the axis (all of them after an initial value) -- and a
    negative first element is fine."""
    x = np.array([[-2, 3, 2], [3, 1, 2]], np.int64)
    for axis in (0, 1):
        np.testing.assert_array_equal(dreduce.reduce("power", H(x), axis, backend=be).a,
                                      np.power.reduce(x, axis=axis))
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power.reduce(x, axis=1, initial=2)
    with pytest.raises(ValueError, match="negative integer powers"):
        dreduce.reduce("power", H(x), 1, initial=2, backend=be)
    y = x.copy()
    y[1, 2] = -1
    with pytest.raises(ValueError, match="negative integer powers"):
        dreduce.reduce("power", H(y), 1, backend=be)


def test_full_reductions_of_new_shapes_skip_the_iterator(be, monkeypatch):
    """axis=None over a C-contiguous input of a new shape: the plan cache
    replans only the reduction config (no iterator), with NumPy's answers,
    keepdims shapes, initial values, casts and splits over blocks."""
    monkeypatch.setattr(be, "plan_cache", {})          # counts start from nothing
    rng = np.random.default_rng(12)
    built = []
    real = launcher.run_reduction
    monkeypatch.setattr(launcher, "run_reduction",
                        lambda *a, **k: built.append(1) or real(*a, **k))
    cases = [("add", "i", {}), ("maximum", "f", {}), ("multiply", "d", {"initial": 2.0}),
             ("logical_or", "?", {"keepdims": True}), ("add", "b", {"dtype": np.int64}),
             ("subtract", "d", {})]
    for name, char, kw in cases:
        built.clear()
        for n in (1000, 3, 1, 77, 1 << 14, 5000):
            x = values(char, (n,), rng)
            if name == "multiply":
                x = np.where(x > 0, 1.0, -1.0)          # exact products
            got = dreduce.reduce(name, H(x), None, backend=be, **kw).a
            want = getattr(np, name).reduce(x, axis=None, **kw)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)    # exact: ints, bools, max, in-order
        assert len(built) == 1, (name, len(built))        # only the first length planned
    built.clear()
    for shape in [(6, 7), (40, 3), (1, 9), (2, 1)]:       # one rank, one plan
        x = values("h", shape, rng)
        got = dreduce.reduce("add", H(x), None, backend=be, keepdims=True).a
        want = np.add.reduce(x, axis=None, keepdims=True)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert len(built) == 1
    with pytest.raises(ValueError, match="not reorderable"):   # the rank rule still holds
        dreduce.reduce("subtract", H(values("d", (4, 5), rng)), None, backend=be)
    x = np.arange(40, dtype=np.int32)                  # ("add", int32, rank 1) is cached
    built.clear()
    got = dreduce.reduce("add", H(x[::2]), None, backend=be).a      # not C-contiguous: planned
    assert len(built) == 1 and got == x[::2].sum()


def test_ucontext_fibers_where_there_is_no_x86_64_switch(tmp_path):
    """The portable fiber switch (ucontext: what the shim uses off x86-64)
    runs a block-synchronizing reduction as the x86-64 one does."""
    code = """if True:
        import numpy as np
        from titer import _ops
        from titer.cuda import host, reduce
        be = host.HostBackend([_ops.OPS_BY_NAME["add"]], cache_dir=%r, sm_count=2)
        x = np.arange(3 * 5000, dtype=np.int64).reshape(3, 5000)
        got = reduce.reduce("add", host.HostArray(x), 1, backend=be).a
        assert (got == x.sum(1)).all(), got
        assert len(be.launched) == 2                # split over blocks: partials, final
        print("ok")
    """ % str(tmp_path)
    env = dict(os.environ, TITER_SHIM_CXXFLAGS="-DTITER_SHIM_UCONTEXT")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr

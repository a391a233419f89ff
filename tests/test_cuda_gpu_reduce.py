"""Reductions, scans and copies on CuPy arrays with titer's kernels, against
the CPU path / NumPy.  Skips cleanly without a CUDA GPU / CuPy; the same
kernels run on the CPU in test_cuda_shim_reduce.py."""
import warnings

import numpy as np
import pytest

import titer
from oracle import (NEAR_ONE_OPS, assert_reduction, gpu_available, gpu_free_bytes,
                    numpy_reduce, small_values as values)
from titer import _ops

pytestmark = pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU / CuPy")

if gpu_available():
    import cupy as cp
    from titer.cuda import device

CHARS = "?bBhHiIlLefdFD"


def reduce_ops():
    if not gpu_available():
        return ["add"]
    m = device.manifest()
    return sorted(n for n, e in m["ops"].items()
                  if any("reduce_acc" in k for k in e["kernels"].values()))


@pytest.mark.parametrize("name", reduce_ops())
def test_every_reduction_kernel(name):
    """Every reduction kernel, every axis choice, three layouts, against
    NumPy (oracle.assert_reduction says how close)."""
    op = _ops.OPS_BY_NAME[name]
    ordered = name not in _ops.REORDERABLE
    rng = np.random.default_rng(0)
    for sig, k in device.manifest()["ops"][name]["kernels"].items():
        if "reduce_acc" not in k:
            continue
        char = sig[0]
        x = values(char, (7, 300, 5), rng, near_one=name in NEAR_ONE_OPS)
        if name == "power" and char in "bhil":
            x = np.abs(x) % 3                   # negative exponents raise
        gx = cp.asarray(x)
        # the same views of host and device memory (cp.asarray of a strided
        # NumPy view would hand the GPU a contiguous copy)
        for view, gview in ((x, gx), (x.transpose(2, 0, 1), gx.transpose(2, 0, 1)),
                            (x[::-1, ::3], gx[::-1, ::3])):
            for axis in (0, 1, 2) if ordered else (None, 0, 1, 2, (0, 2)):
                with np.errstate(all="ignore"):
                    want = numpy_reduce(getattr(np, name), view, axis=axis, dtype=char)
                got = titer.reduce(name, gview, axis, dtype=char)
                assert_reduction(name, cp.asnumpy(got), want, view.astype(char), axis, ordered,
                                 op.approx)
        if ordered:
            with pytest.raises(ValueError, match="not reorderable"):
                titer.reduce(name, cp.asarray(x), (0, 1))


@pytest.mark.parametrize("shape,axis", [((1 << 24,), None), ((1 << 14, 3), 0),
                                        ((3, 1 << 20), 1), ((4096, 4096), 0),
                                        ((4096, 4096), 1)])
def test_big_reductions_exact_and_reproducible(shape, axis):
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    gx = cp.asarray(x)
    np.testing.assert_array_equal(cp.asnumpy(titer.sum(gx, axis)), x.sum(axis))
    np.testing.assert_array_equal(cp.asnumpy(titer.max(gx, axis)), x.max(axis))
    f = cp.asarray(x.astype(np.float32) / 7)
    first = cp.asnumpy(titer.sum(f, axis))
    for _ in range(3):
        np.testing.assert_array_equal(cp.asnumpy(titer.sum(f, axis)), first)
    assert_reduction("add", first, (x.astype(np.float32) / 7).sum(axis),
                     x.astype(np.float32) / 7, axis, False, False)


def test_options_match_cpu():
    rng = np.random.default_rng(2)
    x = values("i", (6, 7, 8), rng)
    gx = cp.asarray(x)
    mask = rng.integers(0, 2, (7, 8)).astype(bool)
    for kw in ({"keepdims": True}, {"initial": 5}, {"where": mask, "initial": 0}):
        for axis in (None, 1, (0, 2)):
            want = titer.reduce("add", x, axis, **kw)
            gkw = dict(kw, where=cp.asarray(kw["where"])) if "where" in kw else kw
            got = titer.reduce("add", gx, axis, **gkw)
            np.testing.assert_array_equal(cp.asnumpy(got), want)
            assert got.strides == np.asarray(want).strides
    out = cp.zeros((6, 8), np.float32)
    titer.sum(gx, 1, out=out)
    np.testing.assert_array_equal(cp.asnumpy(out), x.sum(1).astype(np.float32))
    np.testing.assert_allclose(cp.asnumpy(titer.mean(gx, 0)), x.mean(0), rtol=1e-12)
    assert bool(titer.any(titer.elementwise("greater", None, gx, 15))) == bool((x > 15).any())
    assert bool(titer.all(titer.elementwise("greater", None, gx, -30))) == bool((x > -30).all())
    with pytest.raises(ValueError, match="zero-size array"):
        titer.max(cp.zeros((0, 3)), 0)
    with pytest.raises(TypeError):
        titer.sum(gx, 0, out=np.zeros((7, 8)))


def test_full_reductions_of_new_lengths():
    """titer.sum / max / any over every element of ever-new lengths (the
    plan cache replans only the reduction config), against NumPy."""
    rng = np.random.default_rng(4)
    for n in (1000, 3, 1, 77, 1 << 14, 1 << 20, 5000):
        x = values("i", (n,), rng)
        gx = cp.asarray(x)
        assert int(titer.sum(gx)) == int(x.sum())
        assert int(titer.max(gx)) == int(x.max())
        big = titer.elementwise("greater", None, gx, 40)
        assert bool(titer.any(big)) == bool((x > 40).any())
        assert titer.sum(gx, keepdims=True).shape == (1,)


def test_accumulate():
    rng = np.random.default_rng(3)
    for char in "?ilfd":
        x = values(char, (50, 40), rng)
        for axis in (0, 1):
            for name in ("add", "maximum", "multiply"):
                want = titer.accumulate(name, x.T, axis)
                got = titer.accumulate(name, cp.asarray(x).T, axis)     # the same view
                np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_copy_every_pair_and_layouts():
    rng = np.random.default_rng(4)
    for s in CHARS:
        src = np.abs(values(s, (40, 30), rng)).T if np.dtype(s).kind in "fc" \
            else values(s, (40, 30), rng).T
        gsrc = cp.asarray(src)
        for d in CHARS:
            want = np.zeros((30, 40), d)
            got = cp.zeros((30, 40), d)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                titer.copy(want, src, casting="unsafe")
                titer.copy(got, gsrc, casting="unsafe")
            np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg="%s->%s" % (s, d))
    base = values("f", (2, 3, 4, 5), rng)
    host, x = base.transpose(0, 2, 3, 1), cp.asarray(base).transpose(0, 2, 3, 1)
    assert host.strides == x.strides
    for fmt in ("contiguous", "channels_last", "preserve"):
        c = titer.ascontiguous(x, fmt)
        assert c.strides == titer.ascontiguous(host, fmt).strides
        np.testing.assert_array_equal(cp.asnumpy(c), host)
        assert titer.empty_like(x, fmt).strides == titer.empty_like(host, fmt).strides


def test_copy_drops_the_sources_leading_ones_as_numpy():
    """np.copyto strips a source's leading ones beyond dst's dims; the
    device copy takes the same front-end verdict as the CPU's."""
    for src_shape, dst_shape in (((1, 3), (3,)), ((1, 1), ()), ((1, 1, 2, 1), (2, 4))):
        src = np.arange(np.prod(src_shape), dtype=np.int16).reshape(src_shape) + 1
        want = np.zeros(dst_shape, np.float32)
        np.copyto(want, src)
        got = cp.zeros(dst_shape, np.float32)
        titer.copy(got, cp.asarray(src))
        np.testing.assert_array_equal(cp.asnumpy(got), want)
    with pytest.raises(ValueError, match=r"from shape \(2,3\) into shape \(3,\)"):
        titer.copy(cp.zeros(3), cp.ones((2, 3)))


def test_huge_reductions_64bit_indices():
    n = 2**31 + 2**20
    if gpu_free_bytes() < n + 2**20:
        pytest.skip("needs %.1f GiB of free GPU memory" % (n / 2**30))
    a = cp.ones(n, np.int8)
    assert int(titer.sum(a)) == n
    b = a.reshape(2, n // 2)
    np.testing.assert_array_equal(cp.asnumpy(titer.sum(b, 1)), [n // 2, n // 2])
    np.testing.assert_array_equal(cp.asnumpy(titer.sum(b, 0))[:5], [2] * 5)


def test_mean_with_where_as_on_the_cpu():
    """One mean for both executors (the front end's): the same values,
    warnings and exception classes on the device as on the CPU."""
    x = np.arange(24.0).reshape(4, 6)
    gx = cp.asarray(x)
    mask = np.array([True, False, True, True, False, True])
    for where, axis in ((mask, 0), (mask, 1), (mask, None), (True, (0, 1))):
        gwhere = cp.asarray(where) if isinstance(where, np.ndarray) else where
        want = titer.mean(x, axis, where=where)
        np.testing.assert_array_equal(cp.asnumpy(titer.mean(gx, axis, where=gwhere)), want)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice") as caught:
        got = titer.mean(gx, 1, where=False)
    assert {w.filename for w in caught if "Mean of empty" in str(w.message)} == {__file__}
    assert np.isnan(cp.asnumpy(got)).all() and got.shape == (4,)
    with pytest.raises(ValueError):
        titer.mean(gx, [0, 1], where=cp.ones(2, bool))       # where= before axis=
    with pytest.raises(TypeError):
        titer.mean(gx, [0, 1])
    h = cp.asarray(np.arange(6, dtype=np.float16))
    got = titer.mean(h)
    assert got.dtype == np.float16 and float(got) == float(np.mean(np.arange(6, dtype=np.float16)))


def test_integer_power_checks_only_the_exponents_it_computes_with():
    """As NumPy and the CPU path: a negative exponent under a False mask, or
    in an empty broadcast, raises nothing."""
    a = cp.asarray(np.arange(1, 7, dtype=np.int64))
    b = cp.asarray(np.array([2, -1, 3, -2, 1, 0], dtype=np.int64))
    mask = cp.asarray(np.array([True, False, True, False, True, True]))
    out = cp.zeros(6, np.int64)
    titer.elementwise("power", out, a, b, where=mask)
    want = np.zeros(6, np.int64)
    titer.elementwise("power", want, cp.asnumpy(a), cp.asnumpy(b), where=cp.asnumpy(mask))
    np.testing.assert_array_equal(cp.asnumpy(out), want)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.elementwise("power", out, a, b, where=cp.ones(6, bool))
    empty = cp.zeros((6, 0), np.int64)
    assert titer.elementwise("power", empty, a.reshape(6, 1), b.reshape(6, 1)) is empty


@pytest.mark.parametrize("name,char", [("subtract", "d"), ("left_shift", "l"), ("fmod", "d"),
                                       ("arctan2", "d"), ("divide", "f")])
def test_masked_fold_of_an_op_without_identity_as_on_the_cpu(name, char):
    """where= with initial= for an op without an identity: NumPy's left fold
    over the selected elements, as the CPU computes it (not a fill with
    initial=, which only max/min-like ops absorb)."""
    rng = np.random.default_rng(3)
    x = (rng.integers(0, 4, (3, 4, 5)) if char == "l" else
         rng.standard_normal((3, 4, 5))).astype(char)
    for mask in (rng.integers(0, 2, x.shape).astype(bool), rng.integers(0, 2, 5).astype(bool)):
        for axis in range(3):
            for keepdims in (False, True):
                want = titer.reduce(name, x, axis, initial=1, where=mask, keepdims=keepdims)
                got = titer.reduce(name, cp.asarray(x), axis, initial=1, where=cp.asarray(mask),
                                   keepdims=keepdims)
                np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-6)
                assert got.shape == want.shape and got.dtype == want.dtype

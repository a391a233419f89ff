"""Widening kits (titer/_codegen_reduce.py WIDENING): a reduction whose loop
type is wider than its input's (np.sum of bool or int8 -> int64, uint16 ->
uint64, np.mean's float64 sum of integers) reads the input as it is,
converting element by element.  Every generated pair against NumPy, in the
layouts the drivers tell apart, with initial values only the wide type holds,
and a check that no converted copy of the input is made.  Scans
(titer.accumulate) use the same kits: a whole line at a time, or a tile of
rows converted into a small buffer."""
import tracemalloc

import numpy as np
import pytest

import titer
from titer import _codegen_reduce, _ops

PAIRS = [(op.name, c, out) for op in _ops.OPS
         for c, out in _codegen_reduce.widening_signatures(op)]


def test_the_pairs_cover_numpys_default_sums():
    """What np.sum / np.prod / np.mean pick for every narrow integer input."""
    for c in "?bhiBHI":
        x = np.ones(3, c)
        assert ("add", c, np.sum(x).dtype.char) in PAIRS
        assert ("multiply", c, np.prod(x).dtype.char) in PAIRS
        assert ("add", c, "d") in PAIRS


def values(c, shape, rng, name):
    if c == "?":
        return rng.random(shape) < 0.6
    hi = 3 if name == "multiply" else min(100, np.iinfo(c).max)
    lo = 0 if np.dtype(c).kind == "u" else -hi
    return rng.integers(lo, hi + 1, size=shape).astype(c)


@pytest.mark.parametrize("name,c,out", PAIRS)
def test_every_widening_pair_in_every_layout(name, c, out):
    ufunc = getattr(np, name)
    rng = np.random.default_rng(len(PAIRS))
    base = values(c, (37, 300), rng, name)
    cases = [(base, None), (base[0], None), (base, 1), (base, 0), (base[:, ::3], 1),
             (base[::2, 5:], 0), (base.T, 1), (base.reshape(37, 20, 15), (0, 2)),
             (base[:, ::-1], None)]
    for x, axis in cases:
        got = titer.reduce(name, x, axis=axis, dtype=out)
        want = ufunc.reduce(x, axis=axis, dtype=out)
        assert np.asarray(got).dtype == np.dtype(out)
        np.testing.assert_array_equal(got, want, err_msg="%s %s" % (x.strides, axis))
    # an initial value only the output type holds, keepdims, an out array
    big = 2 ** 40 if out != "d" else 2.0 ** 60
    got = titer.reduce(name, base, axis=1, dtype=out, initial=big, keepdims=True)
    np.testing.assert_array_equal(got, ufunc.reduce(base, axis=1, dtype=out, initial=big,
                                                    keepdims=True))
    dest = np.empty(300, out)
    assert titer.reduce(name, base, axis=0, dtype=out, out=dest) is dest
    np.testing.assert_array_equal(dest, ufunc.reduce(base, axis=0, dtype=out))


def test_int64_products_wrap_as_numpys():
    x = np.full(70, 3, np.int32)
    np.testing.assert_array_equal(titer.prod(x), np.prod(x))      # 3**70 mod 2**64


def test_fallbacks_where_the_kit_cannot_read_the_input():
    """A masked, byte-swapped or unaligned input takes the converted copy."""
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, 1000).astype(np.int16)
    mask = rng.random(1000) < 0.5
    assert titer.sum(x, where=mask) == np.sum(x, where=mask)
    swapped = x.astype(">i2")
    assert titer.sum(swapped) == np.sum(swapped)
    buf = np.zeros(2 * 1000 + 1, np.uint8)
    unaligned = buf[1:].view(np.int16)
    unaligned[...] = x
    assert not unaligned.flags.aligned
    assert titer.sum(unaligned) == np.sum(x)


def test_mean_of_integers():
    rng = np.random.default_rng(4)
    for c in "?bBhHiIlL":
        x = values(c, (50, 64), rng, "add")
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(titer.mean(x, axis=axis), np.mean(x, axis=axis))


def test_no_converted_copy_of_the_input():
    """Summing 4 Mi int8 elements into int64 allocates next to nothing (the
    converted copy the kits once needed was 32 MiB)."""
    x = np.ones(1 << 22, np.int8)
    titer.sum(x)                              # plans and caches first
    tracemalloc.start()
    try:
        assert titer.sum(x) == 1 << 22
        assert titer.sum(x.reshape(1024, -1), axis=0).sum() == 1 << 22
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


ACCUMULATE_CASES = [lambda b: (b, 0), lambda b: (b, 1), lambda b: (b.T, 0), lambda b: (b.T, 1),
                    lambda b: (b[::2, ::-3], 0), lambda b: (b[3:, 1:], 1),
                    lambda b: (b[0], 0), lambda b: (b.reshape(37, 60, 50), 1),
                    lambda b: (np.asfortranarray(b), 0), lambda b: (b[:, :2], 0)]


@pytest.mark.parametrize("name,c,out", PAIRS)
def test_every_widening_pair_accumulates(name, c, out):
    """Rows scanned along a slow axis (tiles converted into a buffer) and
    along the fast axis (the kit's scan), with 1 and 2 threads, into out."""
    ufunc = getattr(np, name)
    rng = np.random.default_rng(7)
    base = values(c, (37, 3000), rng, name)
    for case in ACCUMULATE_CASES:
        x, axis = case(base)
        want = ufunc.accumulate(x, axis=axis, dtype=out)
        for n in (1, 2):
            with titer.num_threads(n):
                got = titer.accumulate(name, x, axis=axis, dtype=out)
            assert got.dtype == np.dtype(out)
            np.testing.assert_array_equal(got, want, err_msg="%s %s" % (x.strides, axis))
    dest = np.empty(base.shape, out)
    assert titer.accumulate(name, base, axis=0, dtype=out, out=dest) is dest
    np.testing.assert_array_equal(dest, ufunc.accumulate(base, axis=0, dtype=out))


def test_accumulate_fallbacks_and_defaults():
    """np.cumsum's default types; byte-swapped and unaligned inputs convert."""
    rng = np.random.default_rng(8)
    for c in "?bBhHiI":
        x = values(c, (40, 50), rng, "add")
        for axis in (0, 1):
            got = titer.accumulate("add", x, axis=axis)
            want = np.add.accumulate(x, axis=axis)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    x = rng.integers(-100, 100, (30, 40)).astype(np.int16)
    swapped = x.astype(">i2")
    np.testing.assert_array_equal(titer.accumulate("add", swapped, axis=0, dtype=np.int64),
                                  np.cumsum(x, axis=0, dtype=np.int64))
    buf = np.zeros(2 * x.size + 1, np.uint8)
    unaligned = buf[1:].view(np.int16).reshape(x.shape)
    unaligned[...] = x
    np.testing.assert_array_equal(titer.accumulate("add", unaligned, axis=0, dtype=np.int64),
                                  np.cumsum(x, axis=0, dtype=np.int64))


def test_accumulate_makes_no_converted_copy():
    """A cumulative sum of 2 Mi int8 into int64 allocates its 16 MiB output
    and nothing the size of the input converted (another 16 MiB)."""
    x = np.ones((1024, 2048), np.int8)
    for axis in (0, 1):
        tracemalloc.start()
        try:
            got = titer.accumulate("add", x, axis=axis)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert got.dtype == np.int64 and got[-1, -1] == x.shape[axis]
        assert peak < got.nbytes + (1 << 20), (axis, peak)

"""The reduction plan cache (titer/_reduce_cache.pxi): a repeated reduction
reuses the last plan of its op only when everything the plan depends on is
the same, and every call that differs in one respect still gets NumPy's
answer (or NumPy's error) after a cached call.  The data are small
integers, whose float sums are exact in any order, so NumPy is the oracle
bit for bit."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import titer


def assert_same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def warm(fn, *args, **kwargs):
    """Call twice: the first call stores the plan, the second runs from it."""
    fn(*args, **kwargs)
    return fn(*args, **kwargs)


def test_repeated_calls_read_each_calls_data_and_allocate_a_new_result():
    rng = np.random.default_rng(0)
    m = rng.integers(-99, 99, (6, 40)).astype(float)
    first = warm(titer.sum, m, axis=1)
    for _ in range(3):
        m2 = rng.integers(-99, 99, (6, 40)).astype(float)
        r = titer.sum(m2, axis=1)
        assert r is not first
        assert_same(r, np.sum(m2, axis=1))
    assert_same(first, np.sum(m, axis=1))          # not overwritten by later calls
    assert_same(warm(titer.sum, m), np.sum(m))     # a NumPy scalar for the full reduction
    assert isinstance(titer.sum(m), np.float64)


def test_reverse_strided_input_and_out():
    base = np.arange(60.0).reshape(6, 10)
    warm(titer.sum, base[::-1, ::-2], axis=0)
    other = np.linspace(-3, 7, 60).reshape(6, 10)
    assert_same(titer.sum(other[::-1, ::-2], axis=0), np.sum(other[::-1, ::-2], axis=0))
    assert_same(titer.max(other[::-1, ::-2], axis=1), np.max(other[::-1, ::-2], axis=1))
    out = np.zeros(20)
    for shift in range(3):
        warm(titer.sum, base[:, ::-1] + shift, axis=0, out=out[::-2])
        assert_same(out[::-2], np.sum(base[:, ::-1] + shift, axis=0))
        assert_same(out[0::2], np.zeros(10))


@pytest.mark.parametrize("change", ["shape", "strides", "axis", "axis_tuple", "keepdims",
                                    "dtype_arg", "input_dtype", "byte_order", "unaligned"])
def test_a_call_differing_in_one_respect_gets_numpys_answer(change):
    x = np.arange(1, 49, dtype=np.int32).reshape(6, 8)
    kwargs = {"axis": 0}
    warm(titer.sum, x, **kwargs)
    if change == "shape":
        x = np.arange(1, 57, dtype=np.int32).reshape(7, 8)
    elif change == "strides":
        x = np.arange(1, 97, dtype=np.int32).reshape(6, 16)[:, ::2]
    elif change == "axis":
        kwargs = {"axis": 1}
    elif change == "axis_tuple":
        kwargs = {"axis": (0, 1)}
    elif change == "keepdims":
        kwargs = {"axis": 0, "keepdims": True}
    elif change == "dtype_arg":
        x = np.full((6, 8), 2 ** 30, dtype=np.int32)      # wraps in int32, not in int64
        kwargs = {"axis": 0, "dtype": np.int32}
    elif change == "input_dtype":
        x = x.astype(np.uint32)
    elif change == "byte_order":
        x = x.astype(">i4")
    elif change == "unaligned":
        buf = np.zeros(x.nbytes + 1, np.uint8)
        x2 = buf[1:].view(np.int32).reshape(6, 8)
        x2[...] = x + 5
        assert not x2.flags.aligned
        x = x2
    assert_same(titer.sum(x, **kwargs), np.sum(x, **kwargs))
    assert_same(titer.sum(x, **kwargs), np.sum(x, **kwargs))    # and again, from its cache


def test_out_of_another_dtype_layout_or_overlapping_the_input():
    x = np.arange(40.0).reshape(5, 8)
    out = np.empty(8)
    warm(titer.sum, x, axis=0, out=out)
    assert_same(out, np.sum(x, axis=0))
    # same layout, other dtype: a cast through the loop dtype
    out32 = np.empty(8, np.float32)
    assert titer.sum(x, axis=0, out=out32) is out32
    assert_same(out32, np.sum(x, axis=0, out=np.empty(8, np.float32)))
    # same layout as the cached out, but out is a row of x itself
    y = x.copy()
    titer.sum(y, axis=0, out=y[0])
    z = x.copy()
    np.sum(z, axis=0, out=z[0])
    assert_same(y, z)
    # out one row ahead of the input rows: reduced in place, row i's sum
    # would land in row i + 1 before that row is read
    rows = np.empty((5, 8))[:, 0]
    warm(titer.sum, x, axis=1, out=rows)
    y = np.arange(48.0).reshape(6, 8)
    titer.sum(y[:5], axis=1, out=y[1:, 0])
    z = np.arange(48.0).reshape(6, 8)
    np.sum(z[:5], axis=1, out=z[1:, 0])
    assert_same(y, z)
    # a strided out
    wide = np.zeros(16)
    titer.sum(x, axis=0, out=wide[::2])
    assert_same(wide[::2], np.sum(x, axis=0))
    assert_same(wide[1::2], np.zeros(8))
    # out given after a call that allocated, and the other way round
    assert_same(warm(titer.sum, x, axis=0), np.sum(x, axis=0))
    out2 = np.empty(8)
    titer.sum(x, axis=0, out=out2)
    assert_same(out2, np.sum(x, axis=0))


def test_read_only_or_misshaped_out_after_a_cached_call_is_refused_untouched():
    x = np.arange(40.0).reshape(5, 8)
    warm(titer.sum, x, axis=0, out=np.empty(8))
    frozen = np.full(8, -1.0)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        titer.sum(x, axis=0, out=frozen)
    assert_same(frozen, np.full(8, -1.0))
    with pytest.raises(ValueError, match="wrong shape"):
        titer.sum(x, axis=0, out=np.empty(5))


def test_where_and_initial_after_a_cached_call():
    x = np.arange(24.0).reshape(4, 6)
    mask = (np.arange(24) % 3 == 0).reshape(4, 6)
    warm(titer.sum, x, axis=1)
    assert_same(titer.sum(x, axis=1, where=mask), np.sum(x, axis=1, where=mask))
    assert_same(titer.sum(x, axis=1, initial=100.0), np.sum(x, axis=1, initial=100.0))
    assert_same(titer.max(x, axis=1, initial=30.0), np.max(x, axis=1, initial=30.0))
    assert_same(titer.sum(x, axis=1), np.sum(x, axis=1))


def test_floating_point_flags_are_reported_on_every_cached_call():
    big = np.full(8, 3e38, np.float32)
    with np.errstate(over="ignore"):
        warm(titer.sum, big)
    for _ in range(2):
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError, match="overflow"):
                titer.sum(big)
    nan_rows = np.array([[1.0, np.nan], [2.0, 3.0]])
    with np.errstate(all="raise"):          # max of a NaN raises no "invalid", cached or not
        for _ in range(3):
            assert_same(titer.max(nan_rows, axis=1), np.max(nan_rows, axis=1))


def test_threads_reducing_different_layouts_at_once():
    rng = np.random.default_rng(1)
    jobs = []
    for i in range(64):
        shape = (3 + i % 4, 50 + i % 3)
        jobs.append((rng.integers(-99, 99, shape).astype(float), i % 2))

    def run(job):
        a, axis = job
        return titer.sum(a, axis=axis)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, jobs))
    for (a, axis), r in zip(jobs, results):
        assert_same(r, np.sum(a, axis=axis))

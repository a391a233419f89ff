"""Streaming (non-temporal) stores: with the threshold moved to 0 every
unit-stride output goes through the L1 block + movntdq path; the results
must not change, whatever the size, alignment or aliasing."""
import numpy as np
import pytest

import titer
from titer import _core
from oracle import assert_same, value_grid


@pytest.fixture
def stream_everything():
    old = _core._set_stream_min_bytes(0)
    yield
    _core._set_stream_min_bytes(old)


@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 511, 512, 513, 4099, 70001])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64, np.complex128])
def test_streamed_output_equals_numpy(stream_everything, n, dtype):
    a = value_grid(dtype, (n,), seed=1)
    b = value_grid(dtype, (n,), seed=2)
    with np.errstate(all="ignore"):
        assert_same(titer.elementwise("multiply", None, a, b), a * b)
        out = np.zeros(n + 1, dtype)[1:]    # element-aligned, off the 16-byte grid
        titer.elementwise("add", out, a, b)
        assert_same(out, a + b)


def test_streamed_in_place(stream_everything):
    a = value_grid(np.float32, (100_003,), seed=3)
    expected = a - 1.5
    with titer.num_threads(2):
        titer.elementwise("subtract", a, a, 1.5)
    assert_same(a, expected)


@pytest.mark.parametrize("threads", [1, 2])
def test_evaluate_streams_on_any_thread_count(stream_everything, threads):
    """NOTE: [evaluate streams]: a program's output is streamed on one
    thread too; the bits are the composed calls', unaligned, in place."""
    for n in (17, 4099, 100_003):
        a = value_grid(np.float64, (n,), seed=4)
        b = value_grid(np.float32, (n,), seed=5)
        with np.errstate(all="ignore"), titer.num_threads(threads):
            want = titer.elementwise("add", None, titer.elementwise("multiply", None, a, 2.0), b)
            out = np.zeros(n + 1)[1:]
            titer.evaluate("a * 2.0 + b", out=out)
            assert_same(out, want)
            titer.evaluate("a * 2.0 + b", out=a)
        assert_same(a, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_buffered_rows_prefetching_their_inputs(stream_everything, threads):
    """NOTE: [buffered prefetch]: with the threshold at 0 every buffered row
    prefetches its contiguous inputs ahead, past its row's end and beside
    strided and stride-0 ones; the bits stay NumPy's, and exp's those of the
    rows without prefetches (casts in, a cast out, a byte-swapped input, a
    2-d plan of short rows)."""
    rng = np.random.default_rng(6)
    for n in (1, 511, 512, 1025, 4099, 100_003):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(2 * n)[::2]
        c = rng.integers(-9, 9, n).astype(">i4")
        with np.errstate(all="ignore"), titer.num_threads(threads):
            assert_same(titer.elementwise("add", None, a, b), np.add(a, b))
            assert_same(titer.elementwise("multiply", None, c, a[::-1]), np.multiply(c, a[::-1]))
            exp = titer.elementwise("exp", None, a, dtype=np.float64)
            old = _core._set_buffered_prefetch_blocks(0)
            try:                            # (exp's bits are titer's own: no prefetch)
                assert_same(exp, titer.elementwise("exp", None, a, dtype=np.float64))
            finally:
                _core._set_buffered_prefetch_blocks(old)
            out = np.empty(n, np.float16)
            titer.elementwise("subtract", out, a, 0.5, casting="unsafe")
            assert_same(out, np.subtract(a, 0.5, out=np.empty(n, np.float16), casting="unsafe"))
    grid = rng.standard_normal((300, 7)).astype(np.float32)
    with titer.num_threads(threads):
        assert_same(titer.elementwise("add", None, grid, grid.T.copy().T.astype(np.float64)),
                    np.add(grid, grid.astype(np.float64)))


def test_streaming_threshold_is_the_cache_share_of_the_usable_cores(monkeypatch):
    """NOTE: [cache share]: half the last-level cache, but no more than
    8 MiB per usable core (a VM sees its host's whole L3)."""
    monkeypatch.setattr(_core, "_last_level_cache_bytes", lambda: 480 * 2**20)
    monkeypatch.setattr(_core, "_usable_cores", lambda: 2)
    assert _core._stream_threshold_bytes() == 16 * 2**20
    monkeypatch.setattr(_core, "_last_level_cache_bytes", lambda: 32 * 2**20)
    monkeypatch.setattr(_core, "_usable_cores", lambda: 16)
    assert _core._stream_threshold_bytes() == 16 * 2**20
    monkeypatch.setattr(_core, "_usable_cores", lambda: 1)
    assert _core._stream_threshold_bytes() == 8 * 2**20

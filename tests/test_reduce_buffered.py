"""Sums whose input NumPy converts on the way (dtype=, an out= of another
dtype, byte-swapped or unaligned input), or whose dims do not coalesce where
NumPy's cost model prefers a buffer (a[:, :100] over everything), run in
NumPy's iterator buffers, each buffer summed pairwise and added to the
result in turn: titer cuts them as NumPy 2.4 does (NOTE [buffered
reductions] in titer_reduce_buffered.h), so the bits are NumPy's at any
length and layout.

The randomized part is seeded and runs in a child process (a crash is
reported with its reproducer):

    python tests/test_reduce_buffered.py SEED START COUNT
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import titer
from oracle import random_axis, random_shape, random_view, report_cases, same_bits as _same

# (input dtype, loop dtype) pairs NumPy converts between (a float16 loop's
# columns are titer's documented difference, folded in float32 and rounded
# once: tests/test_reduce.py; its rows are below)
PAIRS = [("f8", "f4"), ("f4", "f8"), ("f2", "f4"), ("i8", "f8"), ("c8", "c16"), (">f8", "f8"),
         (">c8", "c8"), ("i4", "f4"), ("f8", "f8"), ("f4", "f4"), ("c8", "c8")]
SIZES = [1, 2, 3, 5, 7, 40, 300, 1000, 3000, 9000, 20000]


def _values(rng, shape, dtype):
    x = rng.standard_normal(shape) * 50
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if dtype.kind == "i":
        x = x * 1e6
    return x.astype(dtype)


def _case(seed, index):
    """One call from np.random.default_rng([seed, index]): (x, kwargs of
    np.sum -- out= as the dtype of a new array for each side --, the buffer
    size), x sliced, transposed, broadcast or unaligned."""
    rng = np.random.default_rng([seed, index])
    nd = int(rng.integers(1, 5))
    shape = random_shape(rng, nd, SIZES)
    src, loop = (np.dtype(c) for c in PAIRS[int(rng.integers(len(PAIRS)))])
    base = _values(rng, [2 * n for n in shape], src)
    x = random_view(rng, base, shape)
    if rng.random() < 0.3:
        x = x.transpose(rng.permutation(nd))
    if rng.random() < 0.1:
        x = np.broadcast_to(x[..., :1], x.shape)
    if rng.random() < 0.1 and x.dtype.isnative:
        raw = np.empty(x.size * x.itemsize + 1, np.uint8)[1:]
        moved = np.frombuffer(raw, dtype=x.dtype).reshape(x.shape)
        moved[...] = x
        x = moved
    axis = random_axis(rng, nd)
    kwargs = {"axis": axis, "keepdims": bool(rng.random() < 0.2)}
    if rng.random() < 0.15:
        kwargs["initial"] = float(rng.standard_normal() * 10)
    wide = np.dtype("c16" if loop.kind == "c" else "f8")
    if rng.random() < 0.15 and x.dtype != wide:      # the loop dtype from out=
        kwargs["out"] = wide
    else:
        kwargs["dtype"] = loop
    bufsize = int(rng.choice([8192] * 7 + [1024, 4096, 16384]))
    return x, kwargs, bufsize


def _check(seed, index):
    """None where titer's bits, dtype and shape are NumPy's, else what differs."""
    x, kwargs, bufsize = _case(seed, index)
    old = np.getbufsize()
    np.setbufsize(bufsize)
    try:
        with np.errstate(all="ignore"):
            if "out" in kwargs:     # laid out as NumPy lays out its result
                like = np.sum(x, axis=kwargs["axis"], keepdims=kwargs["keepdims"])
                want = np.sum(x, **dict(kwargs, out=np.empty_like(like, kwargs["out"])))
                got = titer.sum(x, **dict(kwargs, out=np.empty_like(like, kwargs["out"])))
            else:
                want = np.sum(x, **kwargs)
                got = titer.sum(x, **kwargs)
    finally:
        np.setbufsize(old)
    if _same(want, got):
        return None
    return "%s %s %s %s bufsize %d: numpy %r titer %r" % (
        x.dtype.str, x.shape, x.strides, kwargs, bufsize, want, got)


def test_randomized_against_numpy_in_a_child():
    """300 seeded cases against NumPy's bits, in a child process."""
    run = subprocess.run([sys.executable, __file__, "7", "0", "300"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, "crashed (rerun: python tests/test_reduce_buffered.py 7 " \
                                "0 300)\n" + run.stdout[-2000:] + run.stderr[-2000:]
    assert run.stdout.strip().endswith("0 differ"), run.stdout[-3000:]


@pytest.mark.parametrize("n", [8191, 8192, 8193, 20000, 100003])
@pytest.mark.parametrize("pair", [("f4", "f8"), ("f8", "f4"), ("f2", "f4"), ("i8", "f8"),
                                  ("c8", "c16"), (">f4", "f4")])
def test_long_rows_in_buffers_of_8192(n, pair):
    """One row over everything, and rows of 2-d arrays (axis=1), in 8192-
    element buffers: positive values, so every cut changes the bits."""
    rng = np.random.default_rng(n)
    src, loop = np.dtype(pair[0]), np.dtype(pair[1])
    x = (np.abs(_values(rng, n, src.newbyteorder("="))) * 3).astype(src)
    assert _same(np.sum(x, dtype=loop), titer.sum(x, dtype=loop))
    rows = np.stack([x, x[::-1]])
    assert _same(np.sum(rows, axis=1, dtype=loop), titer.sum(rows, axis=1, dtype=loop))


def test_float16_loop_rows():
    """A float16 loop (dtype=float16) sums each buffer in float and rounds
    the result to float16 after each (NumPy's half loop)."""
    x = np.abs(np.random.default_rng(2).standard_normal((3, 30000))) * 2
    assert _same(np.sum(x, dtype=np.float16), titer.sum(x, dtype=np.float16))
    assert _same(np.sum(x, axis=1, dtype=np.float16), titer.sum(x, axis=1, dtype=np.float16))


def test_rows_grouped_and_reductions_split_by_a_kept_axis():
    """Rows that do not coalesce share buffers of whole rows; reduced axes on
    both sides of a kept one are summed row by row; negative strides keep
    NumPy's order."""
    rng = np.random.default_rng(3)
    base = np.abs(rng.standard_normal((300, 4000))) * 7
    for x in (base[::2, :2000], base[:, :300], base[:40, ::-2], base[::-3, 100:3100]):
        assert _same(np.sum(x, dtype=np.float32), titer.sum(x, dtype=np.float32))
        assert _same(np.sum(x, axis=1, dtype=np.float32), titer.sum(x, axis=1, dtype=np.float32))
    cube = np.abs(rng.standard_normal((6, 3, 5000)))
    for x in (cube, cube[:, :, :300], cube[::-1, :, ::-1]):
        assert _same(np.sum(x, axis=(0, 2), dtype=np.float32),
                     titer.sum(x, axis=(0, 2), dtype=np.float32))


def test_slices_that_do_not_coalesce():
    """NumPy copies the rows of a slice into buffers where its rows are short
    (under half a buffer) and sums each row in place where they are long."""
    rng = np.random.default_rng(8)
    a = np.abs(rng.standard_normal((400, 10000))) * 3
    for x in (a[:, :100], a[:, 3:4099], a[:, :5000], a[::3, ::2], a[:50, :-7].T,
              a.reshape(400, 100, 100)[:, :, :30]):
        for y in (x, x.astype(np.float32), x.astype(np.complex64)):
            assert _same(np.sum(y), titer.sum(y))
            assert _same(np.mean(y), titer.mean(y))
            assert _same(np.sum(y, axis=-1), titer.sum(y, axis=-1))


def test_out_of_another_dtype_mean_and_initial():
    rng = np.random.default_rng(4)
    x = np.abs(rng.standard_normal(50000)).astype(np.float32) ** 3
    out = np.empty((), np.float64)
    assert titer.sum(x, out=out) is out
    assert _same(np.sum(x, out=np.empty((), np.float64)), out)
    h = rng.standard_normal(30000).astype(np.float16)
    assert _same(np.mean(h), titer.mean(h))
    big = rng.integers(-2 ** 62, 2 ** 62, 30000)
    assert _same(np.mean(big), titer.mean(big))
    assert _same(np.sum(x, dtype=np.float64, initial=0.5),
                 titer.sum(x, dtype=np.float64, initial=0.5))


def test_buffer_size_follows_numpy_setbufsize():
    x = np.abs(np.random.default_rng(5).standard_normal(40000)) * 3
    old = np.getbufsize()
    try:
        for size in (1024, 4096, 16384):
            np.setbufsize(size)
            assert _same(np.sum(x, dtype=np.float32), titer.sum(x, dtype=np.float32))
    finally:
        np.setbufsize(old)


def test_signed_zeros_and_the_same_bits_on_any_thread_count():
    assert _same(np.sum(np.full(20000, -0.0), dtype=np.float32),
                 titer.sum(np.full(20000, -0.0), dtype=np.float32))
    x = np.abs(np.random.default_rng(6).standard_normal((3, 70000)))
    results = []
    for threads in (1, 2):
        with titer.num_threads(threads):
            results.append((titer.sum(x, dtype=np.float32),
                            titer.sum(x, axis=1, dtype=np.float32),
                            titer.sum(x[:, :5000], dtype=np.float32)))
    for one, two in zip(*results):
        assert _same(one, two)
    assert _same(results[0][0], np.sum(x, dtype=np.float32))


def test_a_conversion_overflow_warns_as_numpy_does():
    """The buffers' conversions raise inside the reduction: NumPy reports
    them as the reduction's ("overflow encountered in reduce")."""
    x = np.array([1e300, 1e300, -1e300] * 5000)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = np.sum(x, dtype=np.float32)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = titer.sum(x, dtype=np.float32)
    assert _same(want, got)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    outs = [np.full((), 7.0, np.float32) for _ in range(2)]
    for fn, out in zip((np.sum, titer.sum), outs):      # both leave the sum in out=
        with np.errstate(over="raise"), pytest.raises(FloatingPointError):
            fn(x, dtype=np.float32, out=out)
    assert _same(outs[0], outs[1])


if __name__ == "__main__":
    report_cases(_check, *(int(a) for a in sys.argv[1:4]))


def test_rows_in_order_start_from_initial():
    """A sum whose reduced dims a kept one splits (axes 0 and 2 of
    x[:, :2, :3000]) with initial=: NumPy's output holds initial before it
    adds the first row's sum, (init + s0) + s1 (titer added it last, init +
    (s0 + s1), in the plain reduction of an input it need not convert),
    converted or not, on one thread and two."""
    base = np.random.default_rng(5).standard_normal((2, 4, 6000)) * 100
    for dt in ("<f8", ">f8"):
        x = base.astype(dt)[:, :2, :3000]
        want = np.add.reduce(x, axis=(0, 2), initial=11.54791103612904, dtype=np.float64)
        for threads in (1, 2):
            with titer.num_threads(threads):
                got = titer.reduce("add", x, axis=(0, 2), initial=11.54791103612904,
                                   dtype=np.float64)
            assert _same(want, got), (dt, threads)

"""Reductions into an out= of another dtype than the loop's (float64 values
summed into a float32 out=): NumPy's iterator buffers that output too and
writes it back after each inner-loop call, so the running value is rounded
to out='s dtype between calls, and the write-back's flags are the
reduction's (NOTE [held outputs] in titer_reduce_buffered.h).

The randomized part is seeded and runs in a child process (a crash is
reported with its reproducer):

    python tests/test_reduce_held.py SEED START COUNT
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import titer
from oracle import random_axis, random_shape, random_view, report_cases, same_bits as _same

# (op, loop dtype, out= dtype): the loop is the input's, out= narrower
CASES = [("add", "f8", "f4"), ("add", "f8", "f2"), ("add", "f4", "f2"), ("add", "c16", "c8"),
         ("multiply", "f8", "f4"), ("logaddexp", "f8", "f4"), ("hypot", "f4", "f2"),
         ("maximum", "f8", "f4"), ("maximum", "c16", "c8"), ("add", "f4", "f2")]
SIZES = [1, 2, 3, 7, 40, 300, 1000, 3000, 9000, 20000]


def _values(rng, shape, op, dtype):
    """Values whose running result stays in out='s range, so every rounding
    between calls shows: near 1 for products, positive otherwise."""
    if op == "multiply":
        x = 1 + (rng.random(shape) - 0.5) * 1e-3
    else:
        x = rng.random(shape) * 1.1 + 0.05
    if dtype.kind == "c":
        x = x + 1j * rng.random(shape)
    return x.astype(dtype)


def _case(seed, index):
    """One call from np.random.default_rng([seed, index]): (op, x, axis,
    out= dtype, initial or None, buffer size), x sliced or transposed."""
    rng = np.random.default_rng([seed, index])
    op, loop, held = CASES[int(rng.integers(len(CASES)))]
    nd = int(rng.integers(1, 4))
    shape = random_shape(rng, nd, SIZES)
    base = _values(rng, [2 * n for n in shape], op, np.dtype(loop))
    x = random_view(rng, base, shape)
    if rng.random() < 0.4:
        x = x.transpose(rng.permutation(nd))
    axis = random_axis(rng, nd)
    initial = float(rng.random() * 3) if rng.random() < 0.15 and op != "maximum" else None
    bufsize = int(rng.choice([8192] * 6 + [1024, 4096, 16384]))
    return op, x, axis, np.dtype(held), initial, bufsize


def _reduce_both(op, x, axis, held, initial, out_layout=None):
    """(NumPy's, titer's) np.<op>.reduce into a new out= of dtype `held`,
    laid out as NumPy lays out its own result, with their warnings."""
    ufunc = getattr(np, op)
    kwargs = {} if initial is None else {"initial": initial}
    like = out_layout if out_layout is not None else ufunc.reduce(x, axis, **kwargs)
    results = []
    for fn in (lambda out: ufunc.reduce(x, axis, out=out, **kwargs),
               lambda out: titer.reduce(op, x, axis, None, out, False,
                                        np._NoValue if initial is None else initial)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = np.empty_like(like, held)
            got = fn(out)
        assert got is out
        results.append((out, [str(w.message) for w in caught]))
    return results


def _check(seed, index):
    """None where titer's bits and warnings are NumPy's, else what differs."""
    op, x, axis, held, initial, bufsize = _case(seed, index)
    old = np.getbufsize()
    np.setbufsize(bufsize)
    try:
        (want, theirs), (got, ours) = _reduce_both(op, x, axis, held, initial)
    finally:
        np.setbufsize(old)
    if _same(want, got) and theirs == ours:
        return None
    return "%s %s %s %s axis %r -> %s initial %r bufsize %d: numpy %r %r titer %r %r" % (
        op, x.dtype.str, x.shape, x.strides, axis, held.str, initial, bufsize, want, theirs,
        got, ours)


def test_randomized_against_numpy_in_a_child():
    """300 seeded cases against NumPy's bits and warnings, in a child."""
    run = subprocess.run([sys.executable, __file__, "11", "0", "300"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, "crashed (rerun: python tests/test_reduce_held.py 11 0 " \
                                "300)\n" + run.stdout[-2000:] + run.stderr[-2000:]
    assert run.stdout.strip().endswith("0 differ"), run.stdout[-3000:]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op, loop, held", [("add", "f8", "f4"), ("add", "f8", "f2"),
                                            ("multiply", "f8", "f4"), ("add", "c16", "c8")])
def test_long_rows_round_between_calls(threads, op, loop, held):
    """Over everything and along rows longer than a buffer (the running
    value rounded after each call of 8192), and along columns of a kept
    axis longer than a buffer (rounded after every reduced index)."""
    rng = np.random.default_rng(1)
    x = _values(rng, (3, 30011), op, np.dtype(loop))
    with titer.num_threads(threads):
        for a, axis in ((x[0], None), (x, None), (x, 1), (x, 0), (x.T, 1), (x[:, :9000], 0)):
            (want, theirs), (got, ours) = _reduce_both(op, a, axis, np.dtype(held), None)
            assert _same(want, got) and theirs == ours, (a.shape, axis)


def test_short_kept_rows_round_once():
    """Kept dims fastest that fit in a buffer: NumPy's output buffer stays
    in the loop dtype across the reduced rows, rounded once at the end."""
    x = _values(np.random.default_rng(2), (2000, 30), "add", np.dtype("f8"))
    (want, theirs), (got, ours) = _reduce_both("add", x, 0, np.dtype("f4"), None)
    assert _same(want, got) and theirs == ours == []
    assert _same(got, x.sum(axis=0).astype(np.float32))     # (NumPy's, not titer's)


def test_overflow_into_out_is_warned_as_numpy_warns():
    """A held output's write-back overflow is the reduction's: 'overflow
    encountered in reduce' (titer said 'cast'), and a running value that
    overflows out= partway stays infinite, as NumPy's does.  max/min, which
    NumPy starts by copying the first values into out=, warn of that cast."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(50000) * 1e37 * 3.0
    (want, theirs), (got, ours) = _reduce_both("add", x, None, np.dtype("f4"), None)
    assert _same(want, got) and theirs == ours == ["overflow encountered in reduce"]
    big = np.full((4, 3), 1e300)
    (want, theirs), (got, ours) = _reduce_both("maximum", big, 0, np.dtype("f4"), None)
    assert _same(want, got) and theirs == ours == ["overflow encountered in cast"]


if __name__ == "__main__":
    report_cases(_check, *(int(a) for a in sys.argv[1:4]))

"""The benchmark cases and the titer-vs-NumPy table behind ``python -m titer``.

``CASES`` is shared with ``benchmarks/`` so the quick table and the
pytest-benchmark suites time exactly the same calls.  Every case is an
``add``; what varies is the layout the iterator has to handle.

NumPy is only the comparison here: titer's results come from
``elementwise`` alone and are checked against ``numpy.add``.
"""
import sys
import time
from collections import namedtuple

import numpy as np

from . import elementwise, get_num_threads, num_threads

# make(rng, small) -> (inputs, out): out is a preallocated array, or None when
# the case is about the layout titer chooses for the result.
Case = namedtuple("Case", "id title make")


def _uniform(rng, shape, dtype):
    return rng.random(shape, dtype=dtype)


def _contiguous(dtype):
    def make(rng, small):
        n = 2**20 if small else 2**24
        a, b = _uniform(rng, n, dtype), _uniform(rng, n, dtype)
        return (a, b), np.empty(n, dtype)
    return make


def _broadcast(b_shape_of):
    def make(rng, small):
        side = 1024 if small else 4096
        a = _uniform(rng, (side, side), np.float32)
        b = _uniform(rng, b_shape_of(side), np.float32)
        return (a, b), np.empty((side, side), np.float32)
    return make


def _strided(rng, small):
    n = 2**21 if small else 2**25
    a, b = _uniform(rng, n, np.float32), _uniform(rng, n, np.float32)
    return (a[::2], b[::2]), np.empty(n // 2, np.float32)


def _mixed(rng, small):
    n = 2**20 if small else 2**24
    a, b = _uniform(rng, n, np.float32), _uniform(rng, n, np.float64)
    return (a, b), np.empty(n, np.float64)


def _transposed(rng, small):
    side = 1024 if small else 4096
    a = _uniform(rng, (side, side), np.float32)
    b = _uniform(rng, (side, side), np.float32)
    return (a.T, b), np.empty((side, side), np.float32)


def _channels_last(rng, small):
    n, c, h, w = (2 if small else 32), 64, 56, 56
    # NHWC memory seen as an NCHW array: the layout PyTorch calls channels_last.
    a = _uniform(rng, (n, h, w, c), np.float32).transpose(0, 3, 1, 2)
    b = _uniform(rng, (c, h, w), np.float32)
    return (a, b), None


def _tiny(rng, small):
    a, b = _uniform(rng, 1, np.float32), _uniform(rng, 1, np.float32)
    return (a, b), np.empty(1, np.float32)


CASES = [
    Case("contiguous-f32", "add f32 2^24 contiguous", _contiguous(np.float32)),
    Case("contiguous-f64", "add f64 2^24 contiguous", _contiguous(np.float64)),
    Case("broadcast-row", "(4096,4096)+(4096,) f32", _broadcast(lambda s: (s,))),
    Case("broadcast-col", "(4096,4096)+(4096,1) f32", _broadcast(lambda s: (s, 1))),
    Case("strided", "a[::2]+b[::2] 2^25 f32", _strided),
    Case("mixed-dtype", "f32+f64->f64 2^24", _mixed),
    Case("transposed", "a.T+b 4096x4096 f32", _transposed),
    Case("channels-last", "channels-last (32,64,56,56)+(64,56,56) out=None", _channels_last),
    Case("tiny", "1-element add (per call)", _tiny),
]


def moved_bytes(inputs, result):
    """Bytes read + written, counting each operand's own elements once
    (a broadcast operand is read from cache, not from memory, per use)."""
    return sum(x.size * x.itemsize for x in (*inputs, result))


def best_seconds(call, repeat, min_seconds=0.02):
    """Best per-call time over ``repeat`` rounds; each round runs enough calls
    to last ``min_seconds`` so that tiny calls are not lost in timer noise."""
    start = time.perf_counter()
    call()  # warm-up: page faults, caches, lazily built tables
    first = time.perf_counter() - start
    calls_per_round = max(1, int(min_seconds / max(first, 1e-9)))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls_per_round):
            call()
        best = min(best, (time.perf_counter() - start) / calls_per_round)
    return best


Row = namedtuple("Row", "title titer_s numpy_s nbytes threads problem")


def run_case(case, rng, small, repeat):
    """Check titer once against NumPy, then time both. Arrays live only here."""
    inputs, out = case.make(rng, small)
    numpy_out = None if out is None else np.empty_like(out)
    titer_out = out
    expected = np.add(*inputs, out=numpy_out)

    if titer_out is not None:
        titer_out.fill(np.nan)  # poison, so a skipped write cannot look correct
    try:
        result = elementwise("add", titer_out, *inputs)
    except Exception as error:  # report it in the table, keep going
        return Row(case.title, None, None, 0, get_num_threads(),
                   f"ERROR {type(error).__name__}: {error}")
    problem = None
    if result.dtype != expected.dtype or not np.array_equal(result, expected):
        problem = "MISMATCH titer's result differs from numpy.add"

    titer_s = best_seconds(lambda: elementwise("add", titer_out, *inputs), repeat)
    numpy_s = best_seconds(lambda: np.add(*inputs, out=numpy_out), repeat)
    return Row(case.title, titer_s, numpy_s, moved_bytes(inputs, expected),
               get_num_threads(), problem)


def _format_time(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"


def _format_rate(nbytes, seconds):
    return "-" if seconds is None else f"{nbytes / seconds / 1e9:.2f}"


def format_table(rows, reference="numpy", threads=True):
    """The table; `reference` names the library in the numpy_s column."""
    header = ("case", "titer", reference, "titer GB/s", f"{reference} GB/s",
              "speed-up") + (("threads",) if threads else ()) + ("check",)
    lines = [header]
    for row in rows:
        speedup = "-" if row.titer_s is None else f"{row.numpy_s / row.titer_s:.2f}x"
        lines.append((row.title, _format_time(row.titer_s), _format_time(row.numpy_s),
                      _format_rate(row.nbytes, row.titer_s),
                      _format_rate(row.nbytes, row.numpy_s), speedup)
                     + ((str(row.threads),) if threads else ())
                     + (row.problem.split()[0] if row.problem else "ok",))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = []
    for line in lines:
        cells = [line[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(line[1:], widths[1:])]
        text.append("  ".join(cells))
    text.insert(1, "-" * len(text[0]))
    return "\n".join(text)


def main(threads=None, small=False, repeat=5, cases=CASES, progress=sys.stderr):
    """Print the titer-vs-NumPy table; return 1 if any case failed, else 0."""
    rng = np.random.default_rng(0)
    rows = []
    with num_threads(threads or get_num_threads()):
        for index, case in enumerate(cases, start=1):
            print(f"[{index}/{len(cases)}] {case.title} ...", file=progress, flush=True)
            rows.append(run_case(case, rng, small, repeat))

    print(f"titer vs NumPy {np.__version__}: add, best of {repeat} rounds;"
          " speed-up = numpy time / titer time; GB/s = bytes read + written / time")
    if small:
        print("--quick: arrays are 16x smaller than the case names say")
    print(format_table(rows))
    failures = [row for row in rows if row.problem]
    for row in failures:
        print(f"!!! {row.title}: {row.problem}")
    return 1 if failures else 0

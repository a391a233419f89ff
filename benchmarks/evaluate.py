"""titer.evaluate side by side with NumPy and numexpr (issue 26).

    python benchmarks/evaluate.py [--quick] [--markdown] [--rounds R] [--out]

Each case first checks titer's result against NumPy's (dtype; values bit
for bit, or within the ULP bounds of titer's transcendental loops), then
times NumPy (one temporary per operation), numexpr (if installed) and
titer.evaluate on 1 and 2 threads (numexpr with as many threads), each the
best of several calls, and prints the times and the ratios x NumPy (above
1: faster than NumPy).  The "stream" column is the time of reading the
array operands once and writing the result once at this machine's copy
bandwidth (a 2^24-element float32 array copied by titer.copy on 2 threads,
non-temporal stores, measured in the same run), and "%bw" that time as a
fraction of titer's 2-thread time (100%: at the copy bandwidth).  Besides
the issue's cases, two reductions that keep an axis of a square float32
array (axis 0: titer's fused columns, axis 1: its fused rows), a complex64
sum over everything (a quarter of the elements) and a float16 one along columns
(numexpr has no float16).  A last row
times a repeated 1-element evaluate, with local_dict and with the caller's
names.
"""
import argparse
import functools
import math
import sys
import timeit

import numpy as np

import titer

try:
    import numexpr
except ImportError:             # the table is printed without its columns
    numexpr = None

N = 1 << 24


def best(fn, repeat):
    fn()
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def cases(n):
    rng = np.random.default_rng(0)
    data = {}
    for dt in (np.float32, np.float64):
        tag = np.dtype(dt).name
        a, b, c, d = (rng.standard_normal(n).astype(dt) for _ in range(4))
        x, y = a, b
        data[tag] = dict(a=a, b=b, c=c, d=d, x=x, y=y, pi=math.pi)
    f32, f64 = data["float32"], data["float64"]
    mixed = dict(a=f32["a"], b=f64["b"])
    side = int(math.isqrt(n))
    bcast = dict(a=rng.standard_normal((side, side)).astype(np.float32),
                 b=rng.standard_normal(side).astype(np.float32))
    out = []
    for tag, env in (("f32", f32), ("f64", f64)):
        for expr, np_fn in [
            ("2*a + 3*b", lambda e, o=None: np.add(2 * e["a"], 3 * e["b"], out=o)),
            ("a*b + c*d", lambda e, o=None: np.add(e["a"] * e["b"], e["c"] * e["d"], out=o)),
            ("sqrt(x**2 + y**2)", lambda e, o=None: np.sqrt(e["x"] ** 2 + e["y"] ** 2, out=o)),
            ("where(x > 0, log(x), 0)",     # np.where has no out=: a copy into it
             lambda e, o=None: _into(o, np.where(e["x"] > 0, np.log(e["x"]), 0))),
            ("exp(-x**2/2) / sqrt(2*pi)",
             lambda e, o=None: np.divide(np.exp(-e["x"] ** 2 / 2), np.sqrt(2 * e["pi"]), out=o)),
            ("sum(a*b)", lambda e, o=None: np.sum(e["a"] * e["b"])),
        ]:
            out.append((tag, expr, env, np_fn))
    out.append(("f32+f64", "2*a + 3*b", mixed,
                lambda e, o=None: np.add(2 * e["a"], 3 * e["b"], out=o)))
    out.append(("f32 bcast", "a*b + 1", bcast, lambda e, o=None: np.add(e["a"] * e["b"], 1, out=o)))
    grid = dict(a=bcast["a"], b=rng.standard_normal((side, side)).astype(np.float32))
    for axis in (0, 1):         # reductions keeping an axis: fused columns, fused rows
        out.append(("f32 2-d", "sum(a*b, axis=%d)" % axis, grid,
                    lambda e, o=None, axis=axis: np.sum(e["a"] * e["b"], axis=axis, out=o)))
    # a complex sum over everything, a float16 one along columns (in float)
    half = n // 4
    c64 = {k: (rng.standard_normal(half) + 1j * rng.standard_normal(half)).astype(np.complex64)
           for k in "ab"}
    out.append(("c64", "sum(a*b)", c64, lambda e, o=None: np.sum(e["a"] * e["b"])))
    f16 = {k: rng.standard_normal((side, side)).astype(np.float16) for k in "ab"}
    out.append(("f16 2-d", "sum(a*b, axis=0)", f16,
                lambda e, o=None: np.sum(e["a"] * e["b"], axis=0, out=o)))
    return out


def _into(o, x):
    if o is None:
        return x
    np.copyto(o, x)
    return o


def bytes_moved(expr, env, result):
    """Bytes of the arrays the expression reads (each once) and of the result."""
    from titer._evaluate_parse import parse
    total = np.asarray(result).nbytes
    seen = set()
    for name in parse(expr)[1]:
        v = env[name]
        if isinstance(v, np.ndarray) and id(v) not in seen:
            seen.add(id(v))
            total += v.nbytes
    return total


def check(got, want, expr, env):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (expr, got.dtype, want.dtype)
    if got.dtype.kind == "f" and not np.array_equal(got, want, equal_nan=True):
        # the ULP bounds of the narrowest float operand's transcendental loops
        narrowest = min((v.dtype.itemsize for v in env.values() if isinstance(v, np.ndarray)))
        rtol = 4 * np.finfo(np.float32).eps if narrowest == 4 else 2 * np.finfo(np.float64).eps
        close = np.isclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        if "sum" in expr:       # one NumPy sum vs one titer sum of the same terms
            close = np.isclose(got, want, rtol=1e-4)
        if got.dtype == np.float16:     # NumPy rounds a column's every step to float16
            close = np.isclose(got, want, rtol=0, atol=0.05 * np.abs(want).max())
        assert close.all(), expr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="2^20 elements, fewer repeats")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    parser.add_argument("--out", action="store_true",
                        help="every contestant writes into a preallocated out= array")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time every case this many times, keep each cell's best")
    args = parser.parse_args()
    n = (1 << 20) if args.quick else N
    repeat = 3 if args.quick else 7
    copy_src = np.ones(N, np.float32)
    copy_dst = np.empty_like(copy_src)
    with titer.num_threads(2):      # STREAM's copy: titer's with non-temporal stores
        copy_time = best(lambda: titer.copy(copy_dst, copy_src), repeat)
    bandwidth = 2 * copy_src.nbytes / copy_time       # bytes/s read + written
    np.seterr(all="ignore")     # log of the negative half, in every contestant
    all_cases = cases(n)
    for tag, expr, env, np_fn in all_cases:
        with titer.num_threads(2):
            check(titer.evaluate(expr, env), np_fn(env), expr, env)
    # rounds over every case, each cell the best over all rounds: a
    # neighbour's burst on a shared machine hits all contestants alike
    times, outs = {}, {}
    for tag, expr, env, np_fn in all_cases:
        result = np_fn(env)
        # --out: every contestant writes into one preallocated array (no
        # page faults of a fresh result: the memory traffic alone)
        outs[tag, expr] = np.ones_like(result) if args.out and np.ndim(result) else None
    for _ in range(args.rounds):
        for tag, expr, env, np_fn in all_cases:
            cell = times.setdefault((tag, expr), {})
            o = outs[tag, expr]
            contestants = [("numpy", None, lambda: np_fn(env, o))]
            if numexpr is not None and not any(getattr(v, "dtype", None) == np.float16
                                               for v in env.values()):     # (no float16)
                contestants += [("numexpr", k, lambda: numexpr.evaluate(expr, env, out=o))
                                for k in (1, 2)]
            contestants += [("titer", k, lambda: titer.evaluate(expr, env, out=o)) for k in (1, 2)]
            for who, threads, fn in contestants:
                if who == "numexpr":
                    numexpr.set_num_threads(threads)
                with titer.num_threads(threads or 2):
                    t = best(fn, repeat)
                cell[who, threads] = min(t, cell.get((who, threads), t))
    rows = []
    for tag, expr, env, np_fn in all_cases:
        cell = times[tag, expr]
        t_ne = {k: cell["numexpr", k] for k in (1, 2) if ("numexpr", k) in cell}
        t_ti = {k: cell["titer", k] for k in (1, 2)}
        rows.append((tag, expr, cell["numpy", None], t_ne, t_ti,
                     bytes_moved(expr, env, np_fn(env)) / bandwidth))
    report(rows, tiny_call_times(), bandwidth, n, args.markdown, args.out)


def tiny_call_times():
    """Seconds a repeated 1-element titer.evaluate("a*b + 1") takes: with
    local_dict, and with the names taken from the caller's locals."""
    tiny = dict(a=np.ones(1), b=np.ones(1))
    calls = (lambda: titer.evaluate("a*b + 1", tiny),
             functools.partial(_tiny_from_callers_names, tiny["a"], tiny["b"]))
    times = []
    for call in calls:
        call()
        times.append(min(timeit.repeat(call, number=2000, repeat=5)) / 2000)
    return times


def _tiny_from_callers_names(a, b):
    return titer.evaluate("a*b + 1")


def report(rows, tiny_calls, bandwidth, n, markdown, into_out):
    head = ["dtype", "expression", "NumPy ms", "numexpr 1T", "numexpr 2T", "titer 1T", "titer 2T",
            "titer 2T / ne 2T", "titer 1T / ne 1T", "stream ms", "%bw"]
    lines = []
    for tag, expr, t_np, t_ne, t_ti, stream in rows:
        def ratio(t):
            return "%.2fx" % (t_np / t) if t else "-"
        cells = [tag, "`%s`" % expr if markdown else expr, "%.2f" % (t_np * 1e3),
                 ratio(t_ne.get(1)), ratio(t_ne.get(2)), ratio(t_ti[1]), ratio(t_ti[2]),
                 "%.2f" % (t_ne[2] / t_ti[2]) if t_ne else "-",
                 "%.2f" % (t_ne[1] / t_ti[1]) if t_ne else "-",
                 "%.2f" % (stream * 1e3), "%.0f%%" % (100 * stream / t_ti[2])]
        lines.append(cells)
    print("n = %d elements; copy bandwidth %.1f GB/s; ratios are x NumPy (time NumPy / time); %s"
          % (n, bandwidth / 1e9, "results into a preallocated out=" if into_out
             else "results allocated by each call"))
    print("numexpr %s, NumPy %s, titer %s" % (
        numexpr.__version__ if numexpr else "not installed", np.__version__, titer.__version__))
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("| " + " | ".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + " |")
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
    else:
        widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for cells in lines:
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
    print("repeated 1-element titer.evaluate('a*b + 1'): %.2f us per call with local_dict, "
          "%.2f us with the caller's names" % (tiny_calls[0] * 1e6, tiny_calls[1] * 1e6))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

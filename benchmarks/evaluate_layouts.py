"""titer.evaluate on layouts whose rows are short or whose operands disagree
on the fastest dim (issue 26, NOTE: [packed rows] in titer/_evaluate.pxi):
`a*b + 1` over column slices of wide float32 arrays and with `a`
transposed (square arrays: sides of powers of two, whose column gathers
alias, 3000 float64, whose columns cross more pages than the TLB holds,
both run in tiles, and 1500 float64, which is not), against NumPy, with
rows packed into blocks and tiles (titer's choice: where tiles pay, tiles
whose rows run in place, NOTE: [tile rows in place]), with those tiles
packed (`_core._set_evaluate_tiles_in_place(0)`, the transposed cases)
and with every row run on its own (`_core._set_evaluate_pack_ratio(0)`),
interleaved in one process, each the best of --rounds rounds of 2 calls, 1
and 2 threads:

    python benchmarks/evaluate_layouts.py [--rounds R] [--markdown]
"""
import timeit

import numpy as np

import titer
from table import print_table, run_with_rounds
from titer import _core


def cases(rng):
    """(label, expression, env, NumPy's call): about 2^22-2^24 elements each."""
    out = []
    for cols, width in ((8, 2), (8, 4), (64, 16), (1024, 128)):
        wide = {k: rng.random(((1 << 24) // cols, cols), np.float32) for k in "ab"}
        env = {k: v[:, :width] for k, v in wide.items()}
        out.append(("float32 %d of %d columns" % (width, cols), "a*b + 1", env,
                    lambda e: e["a"] * e["b"] + 1))
    for n, dtype in ((4096, np.float32), (2500, np.float32), (2048, np.float64),
                     (3000, np.float64), (1500, np.float64)):
        env = {"a": rng.random((n, n)).astype(dtype).T, "b": rng.random((n, n)).astype(dtype)}
        out.append(("%s %d^2, a transposed" % (np.dtype(dtype).name, n), "a*b + 1", env,
                    lambda e: e["a"] * e["b"] + 1))
    return out


def best(call, rounds):
    call()
    return min(min(timeit.repeat(call, number=1, repeat=2)) for _ in range(rounds))


def main(rounds, markdown):
    rng = np.random.default_rng(0)
    rows = []
    for label, expr, env, numpy_call in cases(rng):
        want = numpy_call(env)
        assert np.allclose(titer.evaluate(expr, env), want, rtol=1e-5)
        for threads in (1, 2):
            times = {}
            with titer.num_threads(threads):
                for _ in range(rounds):
                    # (pack ratio, tile mode): rows one by one, packed tiles, titer's
                    for variant in ((0, None), (None, 0), (None, None)):
                        old_ratio = _core._set_evaluate_pack_ratio(0)
                        old_mode = _core._set_evaluate_tiles_in_place(0)
                        _core._set_evaluate_pack_ratio(
                            old_ratio if variant[0] is None else variant[0])
                        _core._set_evaluate_tiles_in_place(
                            *(old_mode if variant[1] is None else (variant[1], old_mode[1])))
                        try:
                            t = best(lambda: titer.evaluate(expr, env), 1)
                        finally:
                            _core._set_evaluate_pack_ratio(old_ratio)
                            _core._set_evaluate_tiles_in_place(*old_mode)
                        times[variant] = min(times.get(variant, t), t)
                    t = best(lambda: numpy_call(env), 1)
                    times["numpy"] = min(times.get("numpy", t), t)
            rows.append((label, "`%s`" % expr, threads, times[0, None] * 1e3,
                         times[None, 0] * 1e3, times[None, None] * 1e3, times["numpy"] * 1e3))
    head = ["case", "expression", "threads", "rows one by one ms", "packed tiles ms",
            "titer ms", "NumPy ms", "titer x NumPy"]
    lines = [[label, expr, str(th), "%.2f" % a, "%.2f" % b, "%.2f" % c, "%.2f" % d,
              "%.2f" % (d / c)] for label, expr, th, a, b, c, d in rows]
    print_table(head, lines, markdown)


if __name__ == "__main__":
    run_with_rounds(main, __doc__, 3)

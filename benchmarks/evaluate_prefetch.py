"""titer.evaluate's prefetches (issue 26, NOTE: [evaluate prefetch] in
titer/_evaluate.pxi): the issue's memory-bound expressions on 2^24
elements with the leaves prefetched 0 (none), 1, 2 (titer's choice) and 4
blocks ahead, into a preallocated out=, one process, every setting
interleaved with the others, each the best of --rounds rounds of 2 calls,
on 1 and 2 threads:

    python benchmarks/evaluate_prefetch.py [--rounds R] [--markdown]

One-step programs (a*b) and the fused reductions do not prefetch; a*b is
timed as the control (its rows should not move).
"""
import timeit

import numpy as np

import titer
from table import print_table, run_with_rounds
from titer import _core

EXPRESSIONS = ["2*a + 3*b", "a*b + c*d", "sqrt(a**2 + b**2)", "exp(-a**2/2) / sqrt(2*pi)",
               "a*b"]
DISTANCES = [0, 1, 2, 4]


def main(rounds, markdown, n=1 << 24):
    rng = np.random.default_rng(0)
    rows = []
    for dtype in (np.float32, np.float64):
        env = {k: rng.standard_normal(n).astype(dtype) for k in "abcd"}
        env["pi"] = np.pi
        out = np.empty(n, dtype)
        for threads in (1, 2):
            best = {}
            for _ in range(rounds):
                for expr in EXPRESSIONS:
                    for blocks in DISTANCES:
                        old = _core._set_evaluate_prefetch_blocks(blocks)
                        try:
                            with titer.num_threads(threads):
                                call = lambda: titer.evaluate(expr, env, out=out)  # noqa: E731
                                call()
                                t = min(timeit.repeat(call, number=1, repeat=2))
                        finally:
                            _core._set_evaluate_prefetch_blocks(old)
                        best[expr, blocks] = min(best.get((expr, blocks), t), t)
            for expr in EXPRESSIONS:
                times = [best[expr, d] * 1e3 for d in DISTANCES]
                rows.append((np.dtype(dtype).name, threads, expr, times))
    head = ["dtype", "threads", "expression"] + ["%d ahead ms" % d for d in DISTANCES] + [
        "none / 2 ahead"]
    lines = []
    for dtype, threads, expr, times in rows:
        lines.append([dtype, str(threads), "`%s`" % expr] + ["%.2f" % t for t in times]
                     + ["%.2f" % (times[0] / times[2])])
    print_table(head, lines, markdown)


if __name__ == "__main__":
    run_with_rounds(main, __doc__, 5)

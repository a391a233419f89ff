"""float16 transcendentals by their tables and in registers against NumPy
(NOTE [float16 where gathers are slow] in titer/src/titer_loops.h): each
unary float16 op whose float32 form runs in registers only where gathers
are slow (AMD's default), 2^20 elements of
[0.05, 0.95) into out=, one and two threads, the two paths
(`_core._set_half_registers_first`) and NumPy interleaved, each the best of
--rounds rounds of 20 calls:
    python benchmarks/float16_paths.py [--rounds R] [--markdown]
"""
import timeit

import numpy as np

import titer
from titer import _codegen, _core
from table import print_table, run_with_rounds

N = 1 << 20


def best_of(call, rounds):
    return min(min(timeit.repeat(call, number=1, repeat=20)) for _ in range(rounds))


def main(rounds, markdown):
    x = (np.random.default_rng(0).random(N) * 0.9 + 0.05).astype(np.float16)
    # arccosh's range starts at 1
    inputs = {"arccosh": x + np.float16(1)}
    out = np.empty_like(x)
    big = np.tile(np.arange(65536, dtype=np.uint16).view(np.float16), 64)
    rows = []
    old = _core._set_half_registers_first(0)
    try:
        for name in _codegen.half_in_registers("slow gathers"):
            xs = inputs.get(name, x)
            with np.errstate(all="ignore"):     # fill the table first (2^22 elements)
                titer.elementwise(name, None, big)
            for threads in (1, 2):
                with titer.num_threads(threads):
                    best = {}
                    for _ in range(rounds):
                        for mode in (0, 1):
                            _core._set_half_registers_first(mode)
                            t = best_of(lambda: titer.elementwise(name, out, xs), 1)
                            best[mode] = min(best.get(mode, t), t)
                        t = best_of(lambda: getattr(np, name)(xs, out=out), 1)
                        best["numpy"] = min(best.get("numpy", t), t)
                rows.append([name, str(threads), "%.3f" % (best[0] * 1e3), "%.3f" % (best[1] * 1e3),
                             "%.3f" % (best["numpy"] * 1e3),
                             "%.2f" % (best["numpy"] / best[0]),
                             "%.2f" % (best["numpy"] / best[1])])
    finally:
        _core._set_half_registers_first(old)
    print_table(["op", "threads", "table ms", "registers ms", "NumPy ms", "table x NumPy",
                 "registers x NumPy"], rows, markdown, text_columns=2)


if __name__ == "__main__":
    run_with_rounds(main, __doc__, 5)

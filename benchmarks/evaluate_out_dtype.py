"""titer.evaluate's sum into an out= of a wider dtype (issue 26): float32
`sum(a*b)` summed in a float64 out=, fused in the pass (cut as NumPy's
buffers cut it), against the path it replaced (the expression computed in
full, then titer.reduce into out=) and NumPy, one process, interleaved,
best of 7, on 1 and 2 threads:

    python benchmarks/evaluate_out_dtype.py [n]
"""
import sys
import time

import numpy as np

import titer


def main(n):
    rng = np.random.default_rng(0)
    env = {"a": rng.standard_normal(n).astype(np.float32),
           "b": rng.standard_normal(n).astype(np.float32)}
    out = np.empty((), np.float64)
    contestants = {
        "fused": lambda: titer.evaluate("sum(a*b)", env, out=out),
        "in full": lambda: titer.reduce("add", titer.evaluate("a*b", env), None, None, out),
        "numpy": lambda: np.add.reduce(np.multiply(env["a"], env["b"]), out=out),
    }
    for threads in (1, 2):
        with titer.num_threads(threads):
            best = dict.fromkeys(contestants, float("inf"))
            for _ in range(7):
                for name, fn in contestants.items():
                    start = time.perf_counter()
                    fn()
                    best[name] = min(best[name], time.perf_counter() - start)
        print("%d thread(s): %s; fused %.2fx in full, %.2fx NumPy" % (
            threads, ", ".join("%s %.2f ms" % (k, v * 1e3) for k, v in best.items()),
            best["in full"] / best["fused"], best["numpy"] / best["fused"]))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 24)

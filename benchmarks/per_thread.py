"""One thread, titer against NumPy in the same process, op by op:
``PYTHONPATH=. python3 benchmarks/per_thread.py multiply:F abs:D equal:e``
(name:typechar; 2^20 elements, uniform in (0.1, 0.9), integers in [1, 60),
min of 7 calls).  The op-table benchmarks use both threads; this isolates
the loop itself."""
import sys
import time

import numpy as np

import titer
from titer import _frontend


def best_of(call, repeat=7):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def main(specs, n=2 ** 20):
    titer.set_num_threads(1)
    rng = np.random.default_rng(0)
    for spec in specs:
        name, code = spec.split(":")
        ufunc, dtype = _frontend.ufunc_for(name), np.dtype(code)    # clip: NumPy's ufunc
        if dtype.kind == "c":
            args = [(rng.uniform(0.1, 0.9, n) + 1j * rng.uniform(-0.9, 0.9, n)).astype(dtype)
                    for _ in range(ufunc.nin)]
        elif dtype.kind == "f":
            args = [rng.uniform(0.1, 0.9, n).astype(dtype) for _ in range(ufunc.nin)]
        else:
            args = [rng.integers(1, 60, n).astype(dtype) for _ in range(ufunc.nin)]
        theirs = best_of(lambda: ufunc(*args))
        ours = best_of(lambda: titer.elementwise(name, None, *args))
        print("%-20s numpy %.3f ms  titer %.3f ms  %.2fx" % (spec, theirs * 1e3, ours * 1e3,
                                                            theirs / ours))


if __name__ == "__main__":
    main(sys.argv[1:])

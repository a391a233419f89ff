"""Fills from one value against NumPy (NOTE [broadcast fills] in
titer/src/titer_loops.h): `titer.copy(dst, scalar)` against
`np.copyto(dst, scalar)`, the same from a float32 scalar of another dtype
(a cast), and a unary op of a scalar into out= (`negative`) against NumPy's,
2^20 elements, one thread, the calls interleaved, each the best of --rounds
rounds of 20 calls:
    python benchmarks/fills.py [--rounds R] [--markdown]
"""
import timeit

import numpy as np

import titer
from table import print_table, run_with_rounds

N = 1 << 20


def cases():
    """(dtype, label, titer's call, NumPy's call)."""
    out = []
    for dtype in (np.bool_, np.int8, np.int32, np.float16, np.float32, np.float64,
                  np.complex128):
        dst = np.empty(N, dtype)
        zero = np.zeros((), dtype)[()]
        half = np.float32(1.5)
        out.append((dtype, "copy(dst, scalar)", lambda d=dst, z=zero: titer.copy(d, z),
                    lambda d=dst, z=zero: np.copyto(d, z)))
        out.append((dtype, "copy(dst, float32 scalar)",
                    lambda d=dst, h=half: titer.copy(d, h, casting="unsafe"),
                    lambda d=dst, h=half: np.copyto(d, h, casting="unsafe")))
        if dtype is not np.bool_:
            out.append((dtype, "negative(scalar, out=dst)",
                        lambda d=dst, z=zero: titer.elementwise("negative", d, z),
                        lambda d=dst, z=zero: np.negative(z, out=d)))
    return out


def main(rounds, markdown):
    rows = []
    with titer.num_threads(1):
        for dtype, label, ours, numpy_call in cases():
            best = {"titer": float("inf"), "numpy": float("inf")}
            for _ in range(rounds):
                for key, call in (("titer", ours), ("numpy", numpy_call)):
                    best[key] = min(best[key], min(timeit.repeat(call, number=1, repeat=20)))
            rows.append([np.dtype(dtype).name, "`%s`" % label, "1",
                         "%.1f" % (best["titer"] * 1e6), "%.1f" % (best["numpy"] * 1e6),
                         "%.2f" % (best["numpy"] / best["titer"])])
    print_table(["dtype", "call", "threads", "titer us", "NumPy us", "titer x NumPy"], rows,
                markdown)


if __name__ == "__main__":
    run_with_rounds(main, __doc__, 5)

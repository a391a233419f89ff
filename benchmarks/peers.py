"""titer against its peers on the cases of issue 24's peer table, 2 threads
each (NumPy has one), as x NumPy in one run:

    python benchmarks/peers.py [--rounds 9] [--markdown]

exp float32, an int8 -> float32 copy, sqrt float64 (2^24 elements, out=
given to every contestant that takes one), float32 + float64 into float64,
the sum over axis 0 of a 4096 x 4096 float32 array and a.T + b (4096 x 4096
float32): NumPy, titer, PyTorch (when installed; its CPU build), and for the
last three a plain C OpenMP loop (gcc -O3 -march=native -fopenmp, compiled
here: the loop a C programmer writes, the tiled one for a.T + b) as the
machine's ceiling.  Every result is checked against NumPy first (to the
last bit but for exp, the sum's order and PyTorch's sqrt, 1 ULP off NumPy's
for 0.7% of the inputs here)."""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import titer

THREADS = 2
C_SOURCE = r"""
#include <stdint.h>
void add_f32_f64(const float *a, const double *b, double *o, int64_t n) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) o[i] = (double)a[i] + b[i];
}
void sum_axis0(const float *a, float *o, int64_t rows, int64_t cols) {
    #pragma omp parallel for schedule(static)
    for (int64_t c0 = 0; c0 < cols; c0 += 256) {
        int64_t c1 = c0 + 256 < cols ? c0 + 256 : cols;
        for (int64_t c = c0; c < c1; c++) o[c] = a[c];
        for (int64_t r = 1; r < rows; r++)
            for (int64_t c = c0; c < c1; c++) o[c] += a[r * cols + c];
    }
}
void transposed_add(const float *a, const float *b, float *o, int64_t n) {
    /* o[i][j] = a[j][i] + b[i][j], 64 x 64 tiles */
    #pragma omp parallel for schedule(static)
    for (int64_t i0 = 0; i0 < n; i0 += 64)
        for (int64_t j0 = 0; j0 < n; j0 += 64)
            for (int64_t i = i0; i < i0 + 64 && i < n; i++)
                for (int64_t j = j0; j < j0 + 64 && j < n; j++)
                    o[i * n + j] = a[j * n + i] + b[i * n + j];
}
"""


def c_library():
    """The C loops, or None without gcc."""
    folder = tempfile.mkdtemp(prefix="titer_peers_")
    src, lib = os.path.join(folder, "peers.c"), os.path.join(folder, "peers.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    try:
        subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", src,
                        "-o", lib], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return ctypes.CDLL(lib)


def pointer(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def cases(torch, clib):
    rng = np.random.default_rng(0)
    n, side = 2 ** 24, 4096
    x32 = rng.random(n, dtype=np.float32)
    x64 = rng.random(n)
    i8 = rng.integers(-100, 100, n).astype(np.int8)
    m = rng.random((side, side), dtype=np.float32)
    m2 = rng.random((side, side), dtype=np.float32)
    out32, out64 = np.empty(n, np.float32), np.empty(n)
    row, square = np.empty(side, np.float32), np.empty((side, side), np.float32)
    t = (lambda a: torch.from_numpy(a)) if torch is not None else None

    yield ("exp float32 2^24", out32, lambda: np.exp(x32, out=out32),
           {"titer": lambda: titer.elementwise("exp", out32, x32),
            "torch": t and (lambda: torch.exp(t(x32), out=t(out32)))}, 4)
    yield ("int8 -> float32 copy 2^24", out32, lambda: np.copyto(out32, i8),
           {"titer": lambda: titer.copy(out32, i8),
            "torch": t and (lambda: t(out32).copy_(t(i8)))}, 0)
    yield ("sqrt float64 2^24", out64, lambda: np.sqrt(x64, out=out64),
           {"titer": lambda: titer.elementwise("sqrt", out64, x64),
            "torch": t and (lambda: torch.sqrt(t(x64), out=t(out64)))}, 4e-16)
    yield ("float32 + float64 2^24", out64, lambda: np.add(x32, x64, out=out64),
           {"titer": lambda: titer.elementwise("add", out64, x32, x64),
            "torch": t and (lambda: torch.add(t(x32), t(x64), out=t(out64))),
            "C loop": clib and (lambda: clib.add_f32_f64(pointer(x32), pointer(x64),
                                                         pointer(out64), ctypes.c_int64(n)))}, 0)
    yield ("sum axis 0, 4096^2 float32", row, lambda: np.sum(m, axis=0, out=row),
           {"titer": lambda: titer.sum(m, axis=0, out=row),
            "torch": t and (lambda: torch.sum(t(m), dim=0, out=t(row))),
            "C loop": clib and (lambda: clib.sum_axis0(pointer(m), pointer(row),
                                                       ctypes.c_int64(side),
                                                       ctypes.c_int64(side)))}, 1e-5)
    yield ("a.T + b, 4096^2 float32", square, lambda: np.add(m.T, m2, out=square),
           {"titer": lambda: titer.elementwise("add", square, m.T, m2),
            "torch": t and (lambda: torch.add(t(m).T, t(m2), out=t(square))),
            "C loop": clib and (lambda: clib.transposed_add(pointer(m), pointer(m2),
                                                            pointer(square),
                                                            ctypes.c_int64(side)))}, 0)


def best_of_rounds(calls, rounds):
    best = {name: float("inf") for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
    try:
        import torch
        torch.set_num_threads(THREADS)
    except ImportError:
        torch = None
    clib = c_library()
    titer.set_num_threads(THREADS)
    names = ["titer", "torch", "C loop"]
    rows = []
    for title, out, numpy_call, others, rtol in cases(torch, clib):
        numpy_call()
        want = out.copy()
        calls = {"numpy": numpy_call}
        for name in names:
            if others.get(name):
                out[...] = 0
                others[name]()
                np.testing.assert_allclose(out, want, rtol=rtol, err_msg="%s %s" % (title, name))
                calls[name] = others[name]
        best = best_of_rounds(calls, args.rounds)
        rows.append((title, best))
    header = "| case | NumPy ms | " + " | ".join("%s x NumPy" % n for n in names) + " |"
    print(header)
    print("| --- | ---: |" + " ---: |" * len(names))
    for title, best in rows:
        print("| %s | %.2f | %s |" % (title, best["numpy"] * 1e3, " | ".join(
            "%.2f" % (best["numpy"] / best[n]) if n in best else "-" for n in names)))
    if not args.markdown:
        print("\n(titer, torch and the C loop on %d threads; NumPy on one; %s)"
              % (THREADS, "PyTorch %s" % torch.__version__ if torch else "no PyTorch"))


if __name__ == "__main__":
    sys.exit(main())

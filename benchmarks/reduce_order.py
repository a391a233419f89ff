"""Reductions in NumPy's evaluation order (issue 22), side by side with NumPy.

    python benchmarks/reduce_order.py

Each case first checks that titer's result is NumPy's, bit for bit (pairwise
sums along the fast axis, rows added in order along an outer one, products
as NumPy's left fold), then times NumPy, titer on 2 threads and on 1 (min of
7 calls) and prints the ratios (above 1: titer is faster)."""
import numpy as np, titer, timeit
rng = np.random.default_rng(0)
def t(f, n=7):
    return min(timeit.repeat(f, number=1, repeat=n))
cases = {
 "sum axis0 4096x4096 f32": (lambda x: np.sum(x, axis=0), lambda x: titer.sum(x, axis=0), rng.random((4096, 4096), dtype=np.float32)),
 "sum axis1 4096x4096 f32": (lambda x: np.sum(x, axis=1), lambda x: titer.sum(x, axis=1), rng.random((4096, 4096), dtype=np.float32)),
 "sum all 2^24 f32": (np.sum, titer.sum, rng.random(2**24, dtype=np.float32)),
 "prod 2^22 f64": (np.prod, titer.prod, 1 + rng.random(2**22) * 1e-9),
 "prod axis0 2048x2048 f64": (lambda x: np.prod(x, axis=0), lambda x: titer.prod(x, axis=0), 1 + rng.random((2048, 2048)) * 1e-9),
 "sum axis0 100000x3 f64": (lambda x: np.sum(x, axis=0), lambda x: titer.sum(x, axis=0), rng.random((100000, 3))),
 "max 2^24 f32": (np.max, titer.max, rng.random(2**24, dtype=np.float32)),
}
for name, (nf, tf, x) in cases.items():
    assert np.array_equal(nf(x), tf(x)), name
    a, b = t(lambda: nf(x)), t(lambda: tf(x))
    with titer.num_threads(1): c = t(lambda: tf(x))
    print("%-28s numpy %7.2f ms  titer 2T %7.2f ms (%.2fx)  1T %7.2f ms (%.2fx)" % (name, a*1e3, b*1e3, a/b, c*1e3, a/c))

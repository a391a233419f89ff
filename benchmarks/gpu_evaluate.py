"""titer.evaluate on the GPU: the fused kernel against the composed calls,
CuPy's ufuncs and cupy.fuse, in one run (issue 26's cases on CuPy arrays).

    python benchmarks/gpu_evaluate.py            # 2^24 elements, best of 20
    python benchmarks/gpu_evaluate.py --small    # a quick pass: 2^12 elements, 2 calls

Each implementation's time is the best of `repeat` synchronized calls (wall
time of finished work); ratios are CuPy's ufunc time over the
implementation's (> 1: faster than CuPy), GB/s counts each leaf read once
and the result written once, against a device-to-device copy's rate in the
same run.  Every fused result is checked bit for bit against the composed
calls, and against CuPy's within float tolerance.
"""
import argparse
import math
import sys
import time

import numpy as np

import titer
from titer import _evaluate
from titer._demo_gpu import gpu

CASES = [
    ("2*a + 3*b", "f"), ("2*a + 3*b", "d"),
    ("a*b + c*d", "f"), ("a*b + c*d", "d"),
    ("sqrt(a**2 + b**2)", "f"), ("sqrt(a**2 + b**2)", "d"),
    ("where(x > 0, log(x), 0)", "f"), ("where(x > 0, log(x), 0)", "d"),
    ("exp(-x**2/2) / sqrt(2*pi)", "f"), ("exp(-x**2/2) / sqrt(2*pi)", "d"),
    ("sum(a*b)", "f"), ("sum(a*b)", "d"),
    ("a * d64 + 1", "mixed"), ("m + r", "broadcast"),
]


def operands(cp, n, kind, rng):
    if kind == "mixed":
        return {"a": rng.random(n, dtype=np.float32), "d64": rng.random(n)}
    if kind == "broadcast":
        side = int(math.isqrt(n))
        return {"m": rng.random((side, side), dtype=np.float32),
                "r": rng.random(side, dtype=np.float32)}
    dt = np.dtype(kind)
    return {k: (rng.standard_normal(n) if k == "x" else rng.random(n)).astype(dt)
            for k in "abcdx"}


def best(cp, fn, repeat):
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t0)
    return min(times)


def cupy_namespace(cp, env):
    ns = {"where": cp.where, "log": cp.log, "exp": cp.exp, "sqrt": cp.sqrt, "sum": cp.sum,
          "pi": math.pi}
    ns.update(env)
    return ns


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    cp = gpu()
    if cp is None:
        print("gpu_evaluate.py: no CUDA GPU / CuPy here; nothing to time")
        return 0
    n = 1 << (12 if args.small else 24)
    repeat = 2 if args.small else args.repeat
    rng = np.random.default_rng(0)
    src, dst = cp.empty(n * 8, np.uint8), cp.empty(n * 8, np.uint8)
    t_copy = best(cp, lambda: dst.data.copy_from_device(src.data, n * 8), repeat)
    copy_rate = 2 * n * 8 / t_copy / 1e9
    print("device: %s; %d elements; d2d copy %.0f GB/s" % (
        cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), n, copy_rate))
    print("| expression | dtype | titer fused | composed | CuPy ufuncs | cupy.fuse "
          "| fused GB/s (of copy) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    failures = 0
    for expr, kind in CASES:
        host = operands(cp, n, kind, rng)
        env = {k: cp.asarray(v) for k, v in host.items()}
        env["pi"] = math.pi
        tree = _evaluate._parsed(expr)[0]
        fused = lambda: titer.evaluate(expr, env)                       # noqa: E731
        composed = lambda: _evaluate._compose_call(tree, env, None, "same_kind", "K")  # noqa
        ns = cupy_namespace(cp, env)
        ufuncs = lambda: eval(expr, ns)                                 # noqa: E731
        got, want = fused(), composed()
        same = np.asarray(cp.asnumpy(got)).tobytes() == np.asarray(cp.asnumpy(want)).tobytes()
        close = np.allclose(cp.asnumpy(got), cp.asnumpy(ufuncs()), rtol=1e-5, equal_nan=True)
        failures += not (same and close)
        t_fused, t_comp, t_cupy = (best(cp, f, repeat) for f in (fused, composed, ufuncs))
        t_fuse = None
        if hasattr(cp, "fuse"):
            names = sorted(k for k in env if k != "pi")
            try:
                fn = cp.fuse(eval("lambda %s: %s" % (", ".join(names), expr),
                                  cupy_namespace(cp, {"pi": math.pi})))
                call = lambda: fn(*[env[k] for k in names])             # noqa: E731
                call()
                t_fuse = best(cp, call, repeat)
            except Exception:
                t_fuse = None
        used = _evaluate._parsed(expr)[1]
        moved = sum(host[k].nbytes for k in used if k in host) + np.asarray(cp.asnumpy(got)).nbytes
        rate = moved / t_fused / 1e9
        print("| `%s` | %s | %.3f ms (%.2fx) | %.2fx | %.3f ms | %s | %.0f (%.0f%%) |%s" % (
            expr, kind, 1e3 * t_fused, t_cupy / t_fused, t_cupy / t_comp, 1e3 * t_cupy,
            "%.2fx" % (t_cupy / t_fuse) if t_fuse else "n/a", rate, 100 * rate / copy_rate,
            "" if same and close else "  MISMATCH"))
    # host time: a repeated call on one element (the launches' host cost)
    one = {"a": cp.ones(1, np.float32), "b": cp.ones(1, np.float32)}
    expr = "2*a + 3*b"
    tree = _evaluate._parsed(expr)[0]
    ns = cupy_namespace(cp, one)
    calls = 50 if args.small else 1000
    times = [best(cp, lambda: [f() for _ in range(calls)], 3 if not args.small else 1) / calls
             for f in (lambda: titer.evaluate(expr, one),
                       lambda: _evaluate._compose_call(tree, one, None, "same_kind", "K"),
                       lambda: eval(expr, ns))]
    print("\n1-element `%s`, a call: titer fused %.1f us, composed %.1f us, CuPy ufuncs %.1f us"
          % ((expr,) + tuple(1e6 * t for t in times)))
    if failures:
        print("%d cases did not match" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

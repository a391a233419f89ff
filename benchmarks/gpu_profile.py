"""Where titer's host time goes on a real GPU: per-call timings of the
pieces of a cached elementwise call and a cProfile of the host-time cases
of test_bench_gpu.py (1000 tiny calls each), next to CuPy's own calls.

    python benchmarks/gpu_profile.py            # needs CuPy and a GPU
"""
import cProfile
import os
import pstats
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_bench_gpu as bench  # noqa: E402


def per_call_us(fn, number=2000):
    fn()
    return 1e6 * min(timeit.repeat(fn, number=number, repeat=7)) / number


def main():
    import cupy as cp
    import titer
    from titer.cuda import _cupy
    from cupy.cuda.function import CPointer

    d = bench.make_data()
    one, out, ragged = d["one"], d["one_out"], d["ragged"]
    titer.elementwise("add", out, one, one)
    be = _cupy.CupyBackend.get()
    (key, fn), = [(k, f) for k, f in be._functions.items()]
    params = be._args[key][0]
    launch_grid, launch_block = (1, 1, 1), (128, 1, 1)
    numpy_arg = _cupy._opaque(params)           # CuPy reads its __array_interface__
    cptr = CPointer(params.__array_interface__["data"][0])     # what titer passes
    sync = cp.cuda.Device().synchronize
    rows = [            # (label, call, calls per call)
        ("titer.elementwise add, 1 element, out=",
         lambda: titer.elementwise("add", out, one, one), 1),
        ("cp.add, 1 element, out=", lambda: cp.add(one, one, out=out), 1),
        ("cupy Function call, NumPy argument",
         lambda: fn(launch_grid, launch_block, (numpy_arg,)), 1),
        ("cupy Function call, CPointer argument",
         lambda: fn(launch_grid, launch_block, (cptr,)), 1),
        ("cupy.cuda.runtime.getDevice()", cp.cuda.runtime.getDevice, 1),
        ("array_key(one)", lambda: be.array_key(one), 1),
        ("cp.cuda.alloc(4)", lambda: cp.cuda.alloc(4), 1),
        ("cp.empty(1, float32)", lambda: cp.empty(1, np.float32), 1),
        ("titer.elementwise add, out=None, a new length",
         lambda: [titer.elementwise("add", None, x, x) for x in ragged], len(ragged)),
        ("cp.add, out=None, a new length", lambda: [cp.add(x, x) for x in ragged], len(ragged)),
        ("titer.sum, a new length", lambda: [titer.sum(x) for x in ragged], len(ragged)),
        ("cp.sum, a new length", lambda: [cp.sum(x) for x in ragged], len(ragged)),
    ]
    print("| piece | us per call |\n| --- | ---: |")
    for label, f, calls in rows:
        t = per_call_us(f, number=max(2, 2000 // calls)) / calls
        sync()
        print("| %s | %.2f |" % (label, t))
    sys.stdout.flush()
    for label, case in bench.CASES.items():
        if not label.startswith("host time"):
            continue
        f = case(d, "titer")
        f()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            f()
        prof.disable()
        sync()
        print("\n## cProfile, titer: %s (5 runs)" % label)
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()

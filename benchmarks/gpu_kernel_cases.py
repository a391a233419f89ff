"""Each device-time case of test_bench_gpu.py once, titer then CuPy, between
cudaProfilerStart/Stop, for a kernel profiler: every kernel's own duration,
titer's reduction and its final pass apart.

    ncu --profile-from-start off --csv --metrics gpu__time_duration.sum \\
        python benchmarks/gpu_kernel_cases.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_bench_gpu as bench  # noqa: E402


def main():
    cp = bench.cp
    if cp is None:
        sys.exit("gpu_kernel_cases.py: no CUDA GPU / CuPy")
    d = bench.make_data()
    sync = cp.cuda.Device().synchronize
    for label, case in bench.CASES.items():
        if label.startswith("host time"):
            continue
        for impl in ("titer", "cupy"):
            call = case(d, impl)
            call()                  # loads the kernels, fills the caches
            sync()
            print("== %s: %s" % (impl, label), flush=True)
            cp.cuda.profiler.start()
            call()
            sync()
            cp.cuda.profiler.stop()


if __name__ == "__main__":
    main()

"""``python -m titer gpu``: the same cases as ``python -m titer`` on CuPy
arrays, titer's CUDA kernels against CuPy's own ``cupy.add``.

Every titer result is checked once against ``numpy.add`` on the host copies
(the oracle); timings end with a device synchronize.  Without CuPy or a GPU
it says so and exits 0.
"""
import numpy as np

from . import elementwise
from ._demo import CASES, Row, best_seconds, format_table, moved_bytes


def gpu():
    """cupy when a CUDA GPU is usable, else None."""
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:            # ImportError, CUDARuntimeError: no driver / device
        return None


def device_like(cp, x):
    """x's values on the device in x's memory layout: cp.asarray of a
    strided or transposed NumPy view would hand the GPU a contiguous copy,
    and the case would no longer be about its layout."""
    base = x
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base is x or not base.flags.c_contiguous or base.dtype != x.dtype:
        return cp.asarray(x)
    device_base = cp.asarray(base)
    offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return cp.ndarray(x.shape, x.dtype, memptr=device_base.data + offset, strides=x.strides)


def run_case(cp, case, rng, small, repeat):
    host_inputs, host_out = case.make(rng, small)
    expected = np.add(*host_inputs)
    inputs = [device_like(cp, x) for x in host_inputs]
    out = None if host_out is None else cp.full(host_out.shape, np.nan, host_out.dtype)
    cupy_out = None if host_out is None else cp.empty(host_out.shape, host_out.dtype)
    sync = cp.cuda.Device().synchronize
    try:
        result = elementwise("add", out, *inputs)
        sync()
    except Exception as error:  # report it in the table, keep going
        return Row(case.title, None, None, 0, 1, f"ERROR {type(error).__name__}: {error}")
    got = cp.asnumpy(result)
    problem = None
    if got.dtype != expected.dtype or not np.array_equal(got, expected):
        problem = "MISMATCH titer's result differs from numpy.add"

    def timed(call):
        def run():
            call()
            sync()
        return best_seconds(run, repeat)

    titer_s = timed(lambda: elementwise("add", out, *inputs))
    cupy_s = timed(lambda: cp.add(*inputs, out=cupy_out))
    return Row(case.title, titer_s, cupy_s, moved_bytes(host_inputs, expected), 1, problem)


def main(small=False, repeat=5, cases=CASES, progress=None):
    cp = gpu()
    if cp is None:
        print("python -m titer gpu: no CUDA GPU / CuPy here; nothing to run")
        return 0
    rng = np.random.default_rng(0)
    rows = []
    for index, case in enumerate(cases, start=1):
        if progress is not None:
            print(f"[{index}/{len(cases)}] {case.title} ...", file=progress, flush=True)
        rows.append(run_case(cp, case, rng, small, repeat))
    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    print(f"titer vs CuPy {cp.__version__} on {name}: add, best of {repeat} rounds, each "
          "ending with a synchronize; speed-up = cupy time / titer time")
    print(format_table(rows, reference="cupy", threads=False))
    failures = [row for row in rows if row.problem]
    for row in failures:
        print(f"!!! {row.title}: {row.problem}")
    return 1 if failures else 0

"""GPU: titer's kernels vs CuPy's own ufuncs/reductions vs PyTorch CUDA (issue 5).

One group per case; ``impl`` = titer, cupy, torch, and ``d2d-copy`` (a
cudaMemcpy of the same bytes) in the bandwidth case.  Every timed call ends
with a device synchronize, so the medians are wall times of finished work;
the "host time" cases time 1000 calls on tiny arrays (one 1-element array,
or 1000 arrays of lengths 1..1000) and synchronize once.  Skips without a CUDA GPU / CuPy.

    pytest benchmarks/test_bench_gpu.py --benchmark-only --benchmark-json=gpu.json
    python benchmarks/report.py gpu.json --reference cupy
"""
import numpy as np
import pytest

import titer
from conftest import torch


def _gpu():
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:
        return None


cp = _gpu()
pytestmark = pytest.mark.skipif(cp is None, reason="no CUDA GPU / CuPy")
torch_cuda = torch is not None and torch.cuda.is_available()
N = 4096
BIG = 1 << 26


def make_data():
    """Every case's arrays (also gpu_kernel_cases.py's and gpu_profile.py's)."""
    rng = np.random.default_rng(0)
    return {
        "a": cp.asarray(rng.random(BIG, dtype=np.float32)),
        "b": cp.asarray(rng.random(BIG, dtype=np.float32)),
        "out": cp.empty(BIG, np.float32),
        "sq": cp.asarray(rng.random((N, N), dtype=np.float32)),
        "sq2": cp.asarray(rng.random((N, N), dtype=np.float32)),
        "row": cp.asarray(rng.random(N, dtype=np.float32)),
        "sqd": cp.asarray(rng.random((N, N))),
        "sqout": cp.empty((N, N), np.float32),
        "sqoutd": cp.empty((N, N), np.float64),
        "vec": cp.empty(N, np.float32),
        "one": cp.ones(1, np.float32),
        "one_out": cp.empty(1, np.float32),
        "ragged": [cp.ones(n, np.float32) for n in range(1, 1001)],
    }


@pytest.fixture(scope="module")
def data():
    return make_data()


def _t(x):
    return torch.as_tensor(x, device="cuda")


def _binary(a_key, b_key, out_key, view=lambda x: x):
    def case(d, impl):
        a, b, out = view(d[a_key]), view(d[b_key]), d[out_key]
        if out.shape != np.broadcast_shapes(a.shape, b.shape):
            out = cp.empty(np.broadcast_shapes(a.shape, b.shape), out.dtype)
        if impl == "titer":
            return lambda: titer.elementwise("add", out, a, b)
        if impl == "cupy":
            return lambda: cp.add(a, b, out=out)
        ta, tb, to = _t(a), _t(b), _t(out)
        return lambda: torch.add(ta, tb, out=to)
    return case


def case_d2d_reference(d, impl):
    """The bandwidth bar: one device-to-device cudaMemcpy of `a` into `out`
    (256 MiB read + 256 MiB written; the add moves 3 x 256 MiB: it reads b
    too).  report.py compares bytes per second (extra_info["bytes"])."""
    a, out = d["a"], d["out"]
    return lambda: out.data.copy_from_device(a.data, a.nbytes)


BANDWIDTH_CASE = "add f32 2^26 contiguous"


def bytes_moved(case, impl):
    """Bytes read + written by one call of the bandwidth case, else None."""
    if case != BANDWIDTH_CASE:
        return None
    return (2 if impl == "d2d-copy" else 3) * BIG * 4


def _reduction(kind, axis):
    def case(d, impl):
        x = d["a"] if axis is None else d["sq"]
        if impl == "titer":
            f = getattr(titer, kind)
            return lambda: f(x, axis)
        if impl == "cupy":
            f = getattr(cp, kind)
            return lambda: f(x, axis)
        t = _t(x)
        if kind == "max":
            return (lambda: torch.amax(t)) if axis is None else (lambda: torch.amax(t, dim=axis))
        return (lambda: torch.sum(t)) if axis is None else (lambda: torch.sum(t, dim=axis))
    return case


def _many_calls(operands, titer_call, cupy_call, torch_call):
    """A host-time case: 1000 calls on tiny arrays; operands(d) lists each
    call's arrays."""
    def case(d, impl):
        calls = operands(d)
        if impl == "torch":
            calls = [tuple(_t(x) for x in args) for args in calls]
        call = {"titer": titer_call, "cupy": cupy_call, "torch": torch_call}[impl]

        def run():
            for args in calls:
                call(*args)
        return run
    return case


# one 1-element array again and again: titer's plan cache replays its launch
case_tiny = _many_calls(lambda d: [(d["one"], d["one_out"])] * 1000,
                        lambda a, o: titer.elementwise("add", o, a, a),
                        lambda a, o: cp.add(a, a, out=o),
                        lambda a, o: torch.add(a, a, out=o))
# a new length every call: titer's plan cache serves them from one dense
# plan, CuPy from its per-dtype kernel cache
case_tiny_new_lengths = _many_calls(lambda d: [(x,) for x in d["ragged"]],
                                    lambda x: titer.elementwise("add", None, x, x),
                                    lambda x: cp.add(x, x),
                                    lambda x: torch.add(x, x))
case_tiny_sums = _many_calls(lambda d: [(x,) for x in d["ragged"]],
                             titer.sum, lambda x: cp.sum(x), lambda x: torch.sum(x))


CASES = {
    "add f32 2^26 contiguous": _binary("a", "b", "out"),
    "add f32 (4096,4096).T + (4096,4096)": lambda d, impl: _binary(
        "sq", "sq2", "sqout")(dict(d, sq=d["sq"].T), impl),
    "add f32 (4096,4096) + (4096,)": _binary("sq", "row", "sqout"),
    "add f32 a[::2] + b[::2]": _binary("a", "b", "out", view=lambda x: x[::2]),
    "add f32 + f64 -> f64 (4096,4096)": _binary("sq", "sqd", "sqoutd"),
    "sum f32 2^26": _reduction("sum", None),
    "sum axis0 f32 4096^2": _reduction("sum", 0),
    "sum axis1 f32 4096^2": _reduction("sum", 1),
    "max axis1 f32 4096^2": _reduction("max", 1),
    "host time: 1000 x add on 1 element": case_tiny,
    "host time: 1000 x add, out=None, lengths 1..1000": case_tiny_new_lengths,
    "host time: 1000 x sum, lengths 1..1000": case_tiny_sums,
}


@pytest.mark.parametrize("impl", ["titer", "cupy", "torch", "d2d-copy"])
@pytest.mark.parametrize("case", list(CASES))
def test_gpu(benchmark, data, case, impl):
    if impl == "torch" and not torch_cuda:
        pytest.skip("PyTorch without CUDA")
    if impl == "d2d-copy" and case != BANDWIDTH_CASE:
        pytest.skip("the copy bar belongs to the bandwidth case")
    call = case_d2d_reference(data, impl) if impl == "d2d-copy" else CASES[case](data, impl)
    sync = cp.cuda.Device().synchronize
    call()
    sync()

    def timed():
        r = call()
        sync()
        return r

    benchmark.group = case
    if bytes_moved(case, impl):
        benchmark.extra_info["bytes"] = bytes_moved(case, impl)
    result = benchmark(timed)
    if impl == "titer" and result is not None:      # the same answer as CuPy's
        want = CASES[case](data, "cupy")()
        np.testing.assert_allclose(cp.asnumpy(result), cp.asnumpy(want), rtol=1e-4)

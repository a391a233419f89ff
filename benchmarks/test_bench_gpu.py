"""GPU: titer's kernels vs CuPy's own ufuncs/reductions vs PyTorch CUDA (issue 5).

One group per case; ``impl`` = titer, cupy, torch, and ``d2d-copy`` (a
cudaMemcpy of the same bytes) in the bandwidth case.  Every timed call ends
with a device synchronize, so the medians are wall times of finished work;
the "host time" cases time 1000 launches on 1-element arrays and synchronize
once.  Skips without a CUDA GPU / CuPy.

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


@pytest.fixture(scope="module")
def data():
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
    }


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


def case_tiny(d, impl):
    one, out = d["one"], d["one_out"]
    if impl == "titer":
        def run():
            for _ in range(1000):
                titer.elementwise("add", out, one, one)
    elif impl == "cupy":
        def run():
            for _ in range(1000):
                cp.add(one, one, out=out)
    else:
        t, o = _t(one), _t(out)

        def run():
            for _ in range(1000):
                torch.add(t, t, out=o)
    return run


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

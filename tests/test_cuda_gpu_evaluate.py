"""titer.evaluate on CuPy arrays: the composed calls on the device, against
the same expression on the host arrays (the fused CPU path, which equals
composed titer.elementwise calls).  Skips cleanly without a CUDA GPU / CuPy;
tests/test_cuda_sim_gpu.py runs this file on a simulated GPU in CI."""
import numpy as np
import pytest

import titer
from titer._demo_gpu import device_like
from oracle import assert_ulp, gpu_available as _gpu_available
from test_evaluate import APPROX, has_op, outcome, random_case, render

pytestmark = pytest.mark.skipif(not _gpu_available(), reason="no CUDA GPU / CuPy")

if _gpu_available():
    import cupy as cp

# the GPU's transcendental functions are libdevice's, the CPU's glibc's
# (tests/test_cuda_gpu.py: a few ULP each, composed)
GPU_APPROX = APPROX | {"/"}


def on_device(env):
    """The arrays of env on the device (NumPy scalars stay scalars)."""
    return {k: device_like(cp, v) if isinstance(v, np.ndarray) else v for k, v in env.items()}


def names_of(tree):
    if tree[0] == "name":
        return {tree[1]}
    return set().union(*[names_of(t) for t in tree[1:] if isinstance(t, tuple)])


def check(tree, got, want):
    got = cp.asnumpy(got) if isinstance(got, cp.ndarray) else got
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if has_op(tree, GPU_APPROX) and want.dtype.kind in "fc":
        assert_ulp(got, want, 64)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(120))
def test_random_expressions_match_the_cpu(seed):
    tree, env = random_case(seed, max_depth=4)
    expr = render(tree)
    want, _, want_exc = outcome(lambda: titer.evaluate(expr, env))
    got, _, got_exc = outcome(lambda: titer.evaluate(expr, on_device(env)))
    assert got_exc == want_exc, expr
    if want_exc is None:
        # on the device whenever an operand it uses is there
        assert isinstance(got, cp.ndarray) == any(isinstance(env[name], np.ndarray)
                                                  for name in names_of(tree)), expr
        check(tree, got, want)


def test_out_casting_order_and_a_single_name():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 5)).astype(np.float32)
    b = rng.integers(-9, 9, (5,)).astype(np.int16)
    da, db = device_like(cp, a), device_like(cp, b)
    out = cp.zeros((6, 5), np.float64)
    assert titer.evaluate("a * b + 2", {"a": da, "b": db}, out=out) is out
    np.testing.assert_array_equal(cp.asnumpy(out), titer.evaluate("a * b + 2", {"a": a, "b": b}))
    f = titer.evaluate("a - b", {"a": da, "b": db}, order="F")
    assert f.strides == (4, 24)           # float32 in Fortran order
    np.testing.assert_array_equal(cp.asnumpy(f), a - b)
    copied = titer.evaluate("a", {"a": da})
    assert isinstance(copied, cp.ndarray) and copied.data.ptr != da.data.ptr
    np.testing.assert_array_equal(cp.asnumpy(copied), a)
    # NumPy's casting error, out= untouched
    small = cp.zeros((6, 5), np.int16)
    with pytest.raises(TypeError):
        titer.evaluate("a * 2", {"a": da}, out=small)
    assert not cp.asnumpy(small).any()


@pytest.mark.parametrize("kind,axis", [("sum", None), ("sum", 0), ("max", 1), ("prod", (0, 1))])
def test_reductions_match_the_cpu(kind, axis):
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (7, 9)).astype(np.int32)
    b = rng.integers(1, 3, (9,)).astype(np.int64)
    expr = "%s(a * b - 1, axis=%r)" % (kind, axis)
    want = titer.evaluate(expr, {"a": a, "b": b})
    got = titer.evaluate(expr, {"a": device_like(cp, a), "b": device_like(cp, b)})
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    assert cp.asnumpy(got).dtype == np.asarray(want).dtype


def test_mixed_host_and_device_operands_get_elementwises_error():
    a = np.arange(4.0)
    da = cp.asarray(a)
    want = outcome(lambda: titer.elementwise("add", None, da, a))
    got = outcome(lambda: titer.evaluate("x + y", {"x": da, "y": a}))
    assert got[2] is not None and got[2] == want[2]
    assert "GPU" in titer.explain_evaluate("x + 1", {"x": da})

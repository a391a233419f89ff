"""The differential suite on CuPy arrays: titer.elementwise on the GPU against
the CPU path (which equals NumPy).  Skips cleanly without a CUDA GPU / CuPy;
the same machinery is checked on the CPU by test_cuda_shim.py."""
import os

import numpy as np
import pytest

import titer
from titer._demo_gpu import device_like
from oracle import assert_ulp, gpu_available as _gpu_available, gpu_free_bytes, small_values

pytestmark = pytest.mark.skipif(not _gpu_available(), reason="no CUDA GPU / CuPy")

if _gpu_available():
    import cupy as cp
    from titer.cuda import device, dispatch

# Transcendental functions: CUDA's libdevice vs the CPU's libm, a few ULP.
EXACT_KINDS = set("?bBhHiIlL")
APPROX_OPS = {"arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cos", "cosh",
              "sin", "sinh", "tan", "tanh", "exp", "exp2", "expm1", "log", "log2", "log10",
              "log1p", "cbrt", "arctan2", "hypot", "logaddexp", "logaddexp2", "power",
              "float_power", "sqrt", "absolute", "divide", "reciprocal"}
# complex sign is z / |z|: |z| is hypot, libdevice's and glibc's differ by an ULP
APPROX_COMPLEX_OPS = {"sign"}


def values(char, shape, rng):
    return small_values(char, shape, rng, bound=50)


def check(name, got, want):
    got = cp.asnumpy(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    if (name in APPROX_OPS and want.dtype.kind in "fc"
            or name in APPROX_COMPLEX_OPS and want.dtype.kind == "c"):
        assert_ulp(got, want, 64)       # libdevice vs glibc: a few ULP each, composed
    else:
        np.testing.assert_array_equal(got, want)


def _manifest_ops():
    m = device.manifest() if _gpu_available() else {"ops": {}}
    return sorted(n for n, e in m["ops"].items() if e["kernels"])


@pytest.mark.parametrize("name", _manifest_ops() or ["add"])
def test_every_kernel_signature(name):
    rng = np.random.default_rng(0)
    for sig in device.manifest()["ops"][name]["kernels"]:
        ins = sig.split("->")[0]
        host = [values(c, (33, 17), rng) for c in ins]
        if name in ("left_shift", "right_shift", "ldexp", "power"):
            host[-1] = np.abs(host[-1]) % 7
        for layout in (lambda x: x, lambda x: x.T, lambda x: x[::-2]):
            hx = [layout(x) for x in host]
            with np.errstate(all="ignore"):
                want = titer.elementwise(name, None, *hx)
            got = titer.elementwise(name, None, *[device_like(cp, x) for x in hx])
            pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]  # divmod, ...
            for g, w in pairs:
                check(name, g, w)
                assert g.strides == w.strides


def test_mixed_dtypes_and_scalars():
    rng = np.random.default_rng(1)
    a, b = values("i", (100, 3), rng), values("f", (3,), rng)
    check("add", titer.elementwise("add", None, cp.asarray(a), cp.asarray(b)),
          titer.elementwise("add", None, a, b))
    out = cp.zeros((100, 3), np.float16)
    titer.elementwise("add", out, cp.asarray(a), 2.5, casting="unsafe")
    check("add", out, titer.elementwise("add", np.zeros((100, 3), np.float16), a, 2.5,
                                        casting="unsafe"))


def test_vector_tails_and_misaligned():
    rng = np.random.default_rng(2)
    for n in (1, 3, 7, 9, 511, 513, 4097):
        a, b = values("f", (n + 1,), rng), values("f", (n + 1,), rng)
        ga, gb = cp.asarray(a), cp.asarray(b)
        check("add", titer.elementwise("add", None, ga[:n], gb[:n]), a[:n] + b[:n])
        check("add", titer.elementwise("add", None, ga[1:], gb[1:]), a[1:] + b[1:])


def test_new_shapes_replay_the_dense_plan():
    """C-contiguous operands of ever-new shapes: one plan, replayed with each
    element count (the plan cache's dense key), same values and layout."""
    rng = np.random.default_rng(3)
    for shape in [(37,), (5, 7), (1000,), (2, 3, 4), (9, 1), (4, 1), (1,), ()]:
        a, b = values("e", shape, rng), values("d", shape, rng)
        want = titer.elementwise("multiply", None, a, b)
        got = titer.elementwise("multiply", None, cp.asarray(a), cp.asarray(b))
        check("multiply", got, want)
        assert got.strides == want.strides
        pair = titer.elementwise("divmod", None, cp.asarray(a), 3.0)
        for g, w in zip(pair, titer.elementwise("divmod", None, a, 3.0)):
            check("divmod", g, w)


def test_zero_size_and_errors():
    z = cp.zeros((0, 4), np.float32)
    assert titer.elementwise("add", None, z, z).shape == (0, 4)
    with pytest.raises(TypeError):
        titer.elementwise("add", None, cp.ones(3), np.ones(3))
    a = cp.arange(6, dtype=np.int32)
    check("floor_divide", titer.elementwise("floor_divide", None, a, cp.zeros(6, np.int32)),
          np.zeros(6, np.int32))


def test_fallback_to_nvrtc_source(monkeypatch):
    """No fatbin for this device: the shipped .cu is compiled by NVRTC."""
    from titer.cuda import _cupy
    be = _cupy.CupyBackend()
    monkeypatch.setattr(_cupy, "KERNEL_DIR", _cupy.KERNEL_DIR)
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists",
                        lambda p: False if str(p).endswith(".fatbin") else real_exists(p))
    a = cp.arange(10, dtype=np.float32)
    out = dispatch.elementwise("add", None, a, a, backend=be)
    check("add", out, np.arange(10, dtype=np.float32) * 2)


def test_huge_arrays_split_path():
    """Past 2**31 elements: the with_32bit_indexing split, checked by titer's
    own reduction (which indexes in 64 bits)."""
    n = 2**31 + 2**20
    if gpu_free_bytes() < 3 * n:
        pytest.skip("needs %.1f GiB of free GPU memory" % (3 * n / 2**30))
    a = cp.ones(n, np.int8)
    out = titer.elementwise("add", None, a, a)
    assert int(out[-1]) == 2 and int(out[0]) == 2
    assert int(titer.sum(out, dtype=np.int64)) == 2 * n
    assert int(titer.max(out)) == 2 and int(titer.min(out)) == 2


def test_power_with_a_scalar_exponent_is_numpys_fast_op():
    """As NumPy and the CPU path: a scalar exponent of -1, 0.5 or 2 in a
    float32/float64 loop is reciprocal, sqrt, square (sqrt(-inf) is NaN,
    whose sign is the hardware's default NaN: negative from x86's SSE,
    positive on an NVIDIA GPU, as CuPy's own sqrt gives)."""
    x = np.array([-np.inf, -0.0, 0.0, 2.0, 9.0, 1e-3])
    for char in "fd":
        xc = x.astype(char)
        for y in (-1.0, 0.5, 2.0, np.float32(0.5), 2):
            with np.errstate(all="ignore"):
                want = np.power(xc, y)
            got = cp.asnumpy(titer.elementwise("power", None, cp.asarray(xc), y))
            assert got.dtype == want.dtype
            nan = np.isnan(want)
            np.testing.assert_array_equal(np.isnan(got), nan)
            np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))
            np.testing.assert_allclose(got, want, rtol=2e-7)


def test_float16_nextafter_of_equal_values_follows_numpys_version():
    """NumPy 2.5 made float16 nextafter(+-0, -+0) give y, not x
    (numpy/numpy#31472); the kernels follow the NumPy they run with through
    the front end's flag (_frontend.KERNEL_FLAGS), which the backend writes
    into each module it loads, as the CPU loop does: every pair of zeros,
    equal values and their neighbours, against NumPy's bits."""
    x = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -2.0, 0.0, -0.0], np.float16)
    y = np.array([-0.0, 0.0, 0.0, -0.0, 1.0, -2.0, 1.0, -1.0], np.float16)
    want = np.nextafter(x, y)
    got = cp.asnumpy(titer.elementwise("nextafter", None, cp.asarray(x), cp.asarray(y)))
    assert got.tobytes() == want.tobytes(), (got, want)

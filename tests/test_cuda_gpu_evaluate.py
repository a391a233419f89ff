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


# -- the fused kernel: the composed device calls' bits, one launch -------------

@pytest.fixture
def fused_launches(monkeypatch):
    """The fused kernels launched during a test (kernel names, in order)."""
    from titer.cuda import _cupy
    launched = []
    original = _cupy.CupyBackend.launch_fused

    def counting(self, source, launch, device=None):
        launched.append(launch.kernel)
        return original(self, source, launch, device)

    monkeypatch.setattr(_cupy.CupyBackend, "launch_fused", counting)
    return launched


def composed(expr, env, out=None, order="K"):
    """The expression as its definition: titer.elementwise calls, one per node."""
    from titer import _evaluate
    tree = _evaluate._parsed(expr)[0]
    return _evaluate._compose_call(tree, env, out, "same_kind", order)


def same_bits(got, want):
    got, want = cp.asnumpy(got), cp.asnumpy(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


FUSED_SEEDS = range(120)


def fused_like_composed(expr, denv):
    """titer.evaluate on device operands: the composed calls' error, or
    their bits."""
    want, _, want_exc = outcome(lambda: composed(expr, denv))
    got, _, got_exc = outcome(lambda: titer.evaluate(expr, denv))
    assert got_exc == want_exc, expr
    if want_exc is None and isinstance(want, cp.ndarray):
        same_bits(got, want)


@pytest.mark.parametrize("seed", FUSED_SEEDS)
def test_random_expressions_fused_give_the_composed_device_bits(seed, fused_launches):
    """Every step of the fused kernel is the device function the op's own
    kernel calls, compiled with the same numerics (no FMA contraction across
    steps): bit for bit what the composed calls give, transcendentals too."""
    tree, env = random_case(seed, max_depth=4)
    expr = render(tree)
    denv = on_device(env)
    fused_like_composed(expr, denv)
    if fused_launches:
        assert "fused kernel" in titer.explain_evaluate(expr, denv), expr


def test_most_random_expressions_run_fused(fused_launches):
    fused = 0
    for seed in FUSED_SEEDS[:60]:
        tree, env = random_case(seed, max_depth=4)
        before = len(fused_launches)
        outcome(lambda: titer.evaluate(render(tree), on_device(env)))
        fused += len(fused_launches) > before
    # the others: a single name (16 of 60), errors (11), all-scalar, empty results
    assert fused >= 20, fused


@pytest.mark.parametrize("expr", [
    "2*a + 3*b", "a*b + c*d", "sqrt(a**2 + b**2)", "where(a > 0, log(a), 0)",
    "exp(-a**2/2) / sqrt(2*3.141592653589793)", "a ** 2.0 + b ** -1 + c ** 0.5 + d ** 3.0",
    "clip(a, b, 0.5) * (c >= d)", "arctan2(a, b) - hypot(c, d) // 0.25",
])
def test_benchmark_expressions_run_as_one_kernel(expr, fused_launches):
    rng = np.random.default_rng(3)
    env = {k: rng.standard_normal(1000).astype(np.float32 if k in "ac" else np.float64)
           for k in "abcd"}
    denv = on_device(env)
    got = titer.evaluate(expr, denv)
    assert fused_launches == ["titer_fused_1d"]
    same_bits(got, composed(expr, denv))
    # and the CPU's values (a float32 intermediate's ULP, libdevice against glibc)
    np.testing.assert_allclose(cp.asnumpy(got), titer.evaluate(expr, env), rtol=4e-6)


def test_fused_layouts_out_order_and_dims(fused_launches, monkeypatch):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((8, 6)).astype(np.float32)
    b = rng.integers(-5, 5, (6,)).astype(np.int16)
    da, db = device_like(cp, a), device_like(cp, b)
    env = {"a": da[::2, ::-1], "b": db}                 # strided, reversed, broadcast
    same_bits(titer.evaluate("a * b - 1", env), composed("a * b - 1", env))
    assert fused_launches[-1] == "titer_fused_offset"
    # out= of another dtype (the store casts), strided
    big = cp.zeros((4, 12), np.float64)
    view = big[:, ::2]
    assert titer.evaluate("a * b - 1", env, out=view) is view
    same_bits(view, composed("a * b - 1", env, out=cp.zeros((4, 6), np.float64)))
    assert not cp.asnumpy(big)[:, 1::2].any()
    # order
    f = titer.evaluate("a + b", env, order="F")
    assert f.strides == (4, 16)
    same_bits(f, composed("a + b", env))
    # more dims than one launch takes: the host loops over the slowest
    c = rng.standard_normal((2,) * 14)
    env = {"c": device_like(cp, c), "d": device_like(cp, c.T)}   # no two dims coalesce
    before = len(fused_launches)
    same_bits(titer.evaluate("c * 2 + d", env), composed("c * 2 + d", env))
    assert len(fused_launches) - before == 4
    # pieces with 32-bit offsets
    from titer.cuda import plan
    monkeypatch.setattr(plan, "SPLIT_LIMIT", 257)
    x = device_like(cp, rng.standard_normal((40, 30)))
    before = len(fused_launches)
    same_bits(titer.evaluate("x * x - x", {"x": x}), composed("x * x - x", {"x": x}))
    assert len(fused_launches) - before > 1


def test_fused_errors_leave_out_untouched(fused_launches):
    a = device_like(cp, np.arange(-3, 9, dtype=np.int32).reshape(3, 4))
    e = device_like(cp, np.array([1, 2, -1, 0], np.int32))
    out = cp.full((3, 4), 7, np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("a ** e + 1", {"a": a, "e": e}, out=out)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("(a + 1) ** -2", {"a": a}, out=out)
    assert (cp.asnumpy(out) == 7).all() and fused_launches == []
    # an exponent computed inside the program: the composed calls check it
    same_bits(titer.evaluate("a ** (e * e)", {"a": a, "e": e}),
              composed("a ** (e * e)", {"a": a, "e": e}))
    # out= overlapping a leaf other than as itself: NumPy's rule, composed
    x = cp.asarray(np.arange(10.0))
    want = composed("y * 2 + 1", {"y": cp.asarray(np.arange(9.0))})
    titer.evaluate("y * 2 + 1", {"y": x[:-1]}, out=x[1:])
    same_bits(x[1:], want)
    # in place on the same view: fused
    before = len(fused_launches)
    y = cp.asarray(np.arange(6.0))
    titer.evaluate("y * y + y", {"y": y}, out=y)
    same_bits(y, cp.asarray(np.arange(6.0) * np.arange(6.0) + np.arange(6.0)))
    assert len(fused_launches) == before + 1


def test_fused_0d_scalars_and_explain(fused_launches):
    z = cp.asarray(np.array(2.5, np.float32))
    a = device_like(cp, np.arange(5, dtype=np.float16))
    env = {"z": z, "a": a, "s": np.float64(0.1), "k": 3}
    for expr in ["a * z + s", "z * k - s", "(a + k) * s ** 2"]:
        same_bits(titer.evaluate(expr, env), composed(expr, env))
    text = titer.explain_evaluate("a * z + s", env)
    assert "one fused kernel on the GPU" in text and "multiply[" in text
    assert "gathered" not in text


def test_repeated_calls_replay_the_recorded_launches(fused_launches):
    """A repeated call with the same layouts reuses the recorded launches,
    re-addressed, with this call's constants: each result is the composed
    calls' still."""
    rng = np.random.default_rng(5)
    host = [rng.standard_normal((6, 40)) for _ in range(3)]
    xs = [device_like(cp, h) for h in host]
    for i, k in enumerate([2.0, -0.0, 7, np.float32(0.5), np.float64(2.0), np.float64(3.0)]):
        env = {"x": xs[i % 3], "y": xs[(i + 1) % 3][:, ::-1], "k": k}
        same_bits(titer.evaluate("x * k + y ** k", env), composed("x * k + y ** k", env))
    # out=: a fresh array, the same view as a leaf (in place), then a shifted one
    x = device_like(cp, host[0])
    out = cp.empty((6, 40), np.float64)
    for target in (out, x):
        want = composed("x * 2 + 1", {"x": device_like(cp, host[0])})
        assert titer.evaluate("x * 2 + 1", {"x": x}, out=target) is target
        same_bits(target, want)
    flat = cp.asarray(np.arange(50.0))
    for shift in (0, 1):
        y = cp.asarray(np.arange(50.0))
        titer.evaluate("x * 2 + 1", {"x": y[:49] if shift else y[1:]}, out=y[1:])
        same_bits(y[1:], composed("x * 2 + 1", {"x": flat[:49] if shift else flat[1:]}))
    assert fused_launches


def test_replay_maps_each_leaf_by_name(fused_launches):
    """Names bound to scalars between the arrays, an operand used twice: the
    replayed launch reads each leaf at its own new address."""
    rng = np.random.default_rng(6)
    for _ in range(3):
        env = {"k": 1.5, "b": device_like(cp, rng.standard_normal(33)), "s": np.float32(2),
               "a": device_like(cp, rng.standard_normal(33).astype(np.float32))}
        expr = "b * k - a / s + b * a"
        same_bits(titer.evaluate(expr, env), composed(expr, env))
    assert len(fused_launches) == 3


def test_programs_past_the_tables_empty_results_and_reductions_into_out(fused_launches):
    rng = np.random.default_rng(7)
    host = {"v%d" % i: rng.standard_normal((3, 4)) for i in range(9)}
    env = on_device(host)
    expr = " + ".join(sorted(host))                 # 9 array operands: composed calls
    same_bits(titer.evaluate(expr, env), composed(expr, env))
    assert fused_launches == []
    e = {"a": cp.asarray(np.zeros((0, 4))), "b": cp.asarray(np.ones(4))}
    got = titer.evaluate("a * b + 1", e)
    assert got.shape == (0, 4) and fused_launches == []
    out = cp.zeros(4)
    assert titer.evaluate("sum(v0 * v1 - 1, axis=0)", env, out=out) is out
    same_bits(out, composed("sum(v0 * v1 - 1, axis=0)", env))
    # the CPU's values (a device reduction adds in its own order)
    np.testing.assert_allclose(cp.asnumpy(out), titer.evaluate("sum(v0 * v1 - 1, axis=0)", host),
                               rtol=1e-14)
    assert fused_launches == ["titer_fused_reduce_1d"]        # no temporary


# -- a top-level reduction computed inside titer.reduce's kernel -------------------

def _reduction_env(rng):
    f32 = rng.standard_normal(1 << 16).astype(np.float32)
    m = rng.standard_normal((300, 257))
    return {
        "f": f32, "g": rng.standard_normal(1 << 16).astype(np.float32),
        "m": m, "mt": m.T, "row": rng.standard_normal(257),
        "ff": np.asfortranarray(rng.standard_normal((70, 90)).astype(np.float32)),
        "i": rng.integers(-100, 100, (64, 130)).astype(np.int8),
        "h": (rng.standard_normal((40, 300)) / 4 + 1).astype(np.float16),
        "z": (rng.standard_normal((50, 40)) + 1j * rng.standard_normal((50, 40))).astype(
            np.complex64),
        "t": rng.standard_normal((6, 20, 30)).transpose(2, 0, 1)[::2],
        "k": np.float32(1.25),
    }


# (inner expression, axes, the reduction beside sum): over everything
# (vectors, split over blocks with the partials' final kernel), inner and
# outer rows, casts into the loop (int8 and bool sums in int64), float16 in
# float, complex, transposed, strided and broadcast leaves, a NumPy scalar
FUSED_REDUCTIONS = [
    ("f * g", [None], "prod"), ("f * k - g", [None, 0], "max"),
    ("m * row + 1", [None, 0, 1], "min"), ("mt - 2.5", [0, 1], "max"),
    ("ff * ff", [None, 0, 1], "min"), ("i * i", [None, 0, 1], "prod"),
    ("i > 3", [None, 1], "max"), ("h * h", [None, 0, 1], "prod"),
    ("z * z + 1", [None, 0, 1], "prod"), ("t * 2 + 1", [None, 0, (0, 2), (1, 2)], "min"),
    ("sqrt(abs(m)) * row", [1], "max"),
]


@pytest.mark.parametrize("inner,axes,other", FUSED_REDUCTIONS)
def test_fused_reductions_give_the_composed_device_bits(inner, axes, other, fused_launches):
    """NOTE: [fused device reduction]: titer.reduce's plan and kernel with the
    program computing each element where the kernel would have read it --
    the composed reduction's bits (its lanes, vectors, trees and splits),
    one fused launch and no temporary."""
    from titer.cuda import fuse
    env = on_device(_reduction_env(np.random.default_rng(8)))
    for kind in ("sum", other):         # (each kind is another program to compile)
        for axis in axes:
            expr = "%s(%s, axis=%r)" % (kind, inner, axis)
            del fused_launches[:]
            got, _, got_exc = outcome(lambda: titer.evaluate(expr, env))
            want, _, want_exc = outcome(lambda: composed(expr, env))
            assert got_exc == want_exc, expr
            if want_exc is None:
                same_bits(got, want)
                assert isinstance(got, cp.ndarray) and got.shape == want.shape, expr
                assert len(fused_launches) == 1 and fused_launches[0] in fuse.REDUCE_KERNELS, \
                    (expr, fused_launches)


def test_fused_reductions_into_out_and_what_reduces_the_fused_result(fused_launches):
    """out= of the loop dtype and of another (NumPy's loop for it), the CPU's
    values; out= overlapping a leaf, empty and 0-d leaves reduce the fused
    result (or compose) instead."""
    host = _reduction_env(np.random.default_rng(9))
    env = on_device(host)
    for out_dtype in (np.float64, np.float32):
        out = cp.zeros(257, out_dtype)
        assert titer.evaluate("sum(m * row + 1, axis=0)", env, out=out) is out
        want = cp.zeros(257, out_dtype)
        composed("sum(m * row + 1, axis=0)", env, out=want)
        same_bits(out, want)
        np.testing.assert_allclose(cp.asnumpy(out), titer.evaluate("sum(m * row + 1, axis=0)",
                                                                   host), rtol=1e-6)
    total = cp.zeros((), np.float64)          # over everything into a 0-d out=, another dtype
    assert titer.evaluate("sum(f * g)", env, out=total) is total
    want = cp.zeros((), np.float64)
    composed("sum(f * g)", env, out=want)
    same_bits(total, want)
    del fused_launches[:]
    row = device_like(cp, host["row"])
    want = composed("max(m * row, axis=0)", {"m": env["m"], "row": device_like(cp, host["row"])})
    titer.evaluate("max(m * row, axis=0)", {"m": env["m"], "row": row}, out=row)
    same_bits(row, want)
    assert fused_launches == ["titer_fused_offset"]       # the fused result, then titer.reduce
    del fused_launches[:]
    e = {"a": cp.asarray(np.zeros((0, 4))), "b": cp.asarray(np.ones(4))}
    same_bits(titer.evaluate("sum(a * b + 1, axis=0)", e), composed("sum(a * b + 1, axis=0)", e))
    assert fused_launches == []


@pytest.mark.parametrize("seed", range(24))
def test_random_fused_reductions_give_the_composed_device_bits(seed):
    tree, env = random_case(seed, max_depth=3)
    kind = ("sum", "prod", "max", "min")[seed % 4]
    fused_like_composed("%s(%s)" % (kind, render(tree)), on_device(env))


def test_repeated_fused_reductions_replay_the_recorded_launches(fused_launches, monkeypatch):
    """A repeated reduction with the same layouts replays its launches: a
    new result and partials (split over blocks), the leaves at their new
    addresses by name, this call's constants -- the composed bits each
    time, and no planning after the first call of each layout."""
    from titer.cuda import evaluate as device_evaluate, fuse
    rng = np.random.default_rng(10)
    host = [rng.standard_normal(1 << 15).astype(np.float32) for _ in range(3)]
    xs = [device_like(cp, h) for h in host]
    m = [device_like(cp, rng.standard_normal((40, 70))) for _ in range(2)]
    cases = []
    for i, k in enumerate([2.0, -0.0, 7, np.float32(0.5), np.float64(1.5), 3]):
        cases.append(("sum(x * k - y)", {"k": k, "y": xs[i % 3], "x": xs[(i + 1) % 3]}))
        cases.append(("max(a * k + b, axis=0)", {"a": m[i % 2], "b": m[(i + 1) % 2], "k": k}))
    planned = []
    original = device_evaluate._prepare
    monkeypatch.setattr(device_evaluate, "_prepare",
                        lambda *a, **kw: planned.append(1) or original(*a, **kw))
    for expr, env in cases:
        want = composed(expr, env)
        same_bits(titer.evaluate(expr, env), want)
    # planned once per layout and scalar type: float, int (7, 3), float32, float64
    assert len(planned) == 8, len(planned)
    assert set(fused_launches) <= set(fuse.REDUCE_KERNELS) and len(fused_launches) == 12

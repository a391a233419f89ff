"""titer's CUDA kernels compiled as host C++ (g++ + titer/cuda/host_shim.h)
and run on the CPU through the real dispatcher (titer.cuda.dispatch): every
signature of every op (so every helper of titer_scalar.cuh, the device twin
of the CPU header), the index math, the offset calculator's fast divmod,
vectorized kernels and their tails, LoadWithCast/StoreWithCast, 32-bit
splitting and the output layout rule are checked against the CPU path and
NumPy, with no GPU.  Transcendental functions run on the host's libm here
(a GPU uses libdevice): within a few ULP of the CPU path, the rest exact."""
import warnings
import zlib

import numpy as np
import pytest

import titer
from oracle import assert_ulp, host_backend
from titer import _ops
from titer.cuda import dispatch, host, plan

pytestmark = pytest.mark.skipif(host.find_cxx() is None, reason="no C++ compiler (g++)")

OPS = [op.name for op in _ops.OPS]


@pytest.fixture(scope="module")
def be():
    return host_backend()


def H(a):
    return host.HostArray(a)


def run(be, name, out, *inputs, **kw):
    wrap = [H(x) if isinstance(x, np.ndarray) else x for x in inputs]
    if isinstance(out, tuple):
        out = tuple(H(o) if isinstance(o, np.ndarray) else o for o in out)
    elif isinstance(out, np.ndarray):
        out = H(out)
    res = dispatch.elementwise(name, out, *wrap, backend=be, **kw)
    return tuple(r.a for r in res) if isinstance(res, tuple) else res.a


def values(char, shape, rng):
    dt = np.dtype(char)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -100), min(info.max, 100) + 1, n).astype(dt)
        special = np.array([0, 1, info.max, info.min, 2, 3], dtype=dt)
        v[:min(n, 6)] = special[:min(n, 6)]
        if dt.kind == "i" and n > 6:
            v[6] = -1
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 10).astype(dt)
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5], dtype=dt)
        v[:min(n, 7)] = special[:min(n, 7)]
    else:
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
        v[:1] = 0
    return v.reshape(shape)


def cpu(name, out, *inputs, **kw):
    with np.errstate(all="ignore"):
        return titer.elementwise(name, out, *inputs, **kw)


def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "fc":
        np.testing.assert_array_equal(got, want)     # NaN == NaN here; bits below
        both = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got.real[both]), np.signbit(want.real[both]))
    else:
        np.testing.assert_array_equal(got, want)


def test_params_layout(be):
    size, data, scalar, code, ndim, numel, size_off, stride = be.params_layout()
    f = plan.PARAMS_DTYPE.fields
    assert size == plan.PARAMS_DTYPE.itemsize
    assert (data, scalar, code, ndim, numel, size_off, stride) == tuple(
        f[k][1] for k in ("data", "scalar", "code", "ndim", "numel", "divider", "stride"))


def test_device_division_matches(be):
    rng = np.random.default_rng(3)
    for d in list(rng.integers(1, 2**31, 200)) + [1, 2, 3, 7, 2**31 - 1, 2**31]:
        magic, shift = plan.int_divider(int(d))
        for n in [0, 1, int(d) - 1, int(d), 2**31 - 1] + list(rng.integers(0, 2**31, 20)):
            n = min(max(int(n), 0), 2**31 - 1)
            assert be.lib.titer_host_div(int(d) & 0xFFFFFFFF, magic, shift, n) == n // int(d)


def compare(op, got, want, inputs):
    if not op.approx:
        assert_same(got, want)
        return
    ulps = 8                                # libm here vs the CPU path's (SIMD) libm
    if op.name == "power" and want.dtype.kind == "c":
        # a ** b = exp(b log a): both sides' errors grow with |b log a|
        a, b = (x.astype(np.complex128) for x in inputs)
        with np.errstate(all="ignore"):
            gain = np.abs(b * np.log(a))
        ulps *= max(1.0, float(np.max(gain, where=np.isfinite(gain), initial=0.0)))
    assert_ulp(got, want, ulps)


@pytest.mark.parametrize("name", OPS)
def test_every_signature_contiguous_and_strided(be, name):
    """Each signature: contiguous (vectorized), transposed + broadcast
    (offset calculator), against the CPU path."""
    op = _ops.OPS_BY_NAME[name]
    kernels = be.manifest["ops"][name]["kernels"]
    rng = np.random.default_rng(zlib.crc32(name.encode()))   # the same values every run
    checked = 0
    for sig in op.types:
        if sig not in kernels:
            continue
        ins = sig.split("->")[0]
        flat = [values(c, (37, 5), rng) for c in ins]
        if name in ("left_shift", "right_shift", "ldexp") or (name == "power"
                                                              and ins[0] in "bhil"):
            flat[1] = np.abs(flat[1]) % 9
        with np.errstate(all="ignore"):
            want = cpu(name, None, *flat)
            got = run(be, name, None, *flat)
        compare(op, got, want, flat)
        # strided: a transposed first input, a broadcast row for the others
        strided = [flat[0].T.copy().T] + [x[:1] for x in flat[1:]]
        strided[0] = np.asfortranarray(flat[0])
        want = cpu(name, None, *strided)
        got = run(be, name, None, *strided)
        compare(op, got, want, strided)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.strides == w.strides
        checked += 1
    assert checked > 0 or not kernels


LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1, ::-2],
    "offset_view": lambda a: a.reshape(-1)[1:].reshape(-1)[: a.size - 1],
    "strided_slice": lambda a: a[::2, 1:],
    "broadcast_row": lambda a: a[:1],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("char", ["b", "H", "f", "d", "e", "D"])
def test_layouts(be, layout, char):
    rng = np.random.default_rng(7)
    a = values(char, (24, 18), rng)
    b = values(char, (24, 18), rng)
    x = LAYOUTS[layout](a)
    y = LAYOUTS[layout](b) if layout != "broadcast_row" else b
    for name in ("add", "maximum"):
        assert_same(run(be, name, None, x, y), cpu(name, None, x, y))
    assert run(be, "add", None, x, y).strides == cpu("add", None, x, y).strides


def test_vector_tails(be):
    """Sizes around the vector width and the block size: every tail path."""
    rng = np.random.default_rng(11)
    for char, kind in (("f", "vec4"), ("b", "vec8"), ("d", "vec2"), ("D", "vec1")):
        for n in (1, 2, 3, 5, 7, 8, 9, 15, 17, 511, 512, 513, 2047, 2048, 2049, 4099):
            a, b = values(char, (n,), rng), values(char, (n,), rng)
            be.launched.clear()
            assert_same(run(be, "add", None, a, b), cpu("add", None, a, b))
            assert be.launched == ["titer_add_%s%s_%s_%s" % (char, char, char, kind)]


def test_vector_width_follows_alignment(be):
    """can_vectorize_up_to: operands 8 bytes off a 16-byte boundary take vec2
    (float32) / vec4 (int16) / vec8 (int8), 4 bytes off float32: the offset
    kernel (its contiguous case is vec1)."""
    rng = np.random.default_rng(13)
    for char, off_bytes, kind in (("f", 8, "vec2"), ("h", 8, "vec4"), ("b", 8, "vec8"),
                                  ("b", 4, "vec4"), ("b", 2, "vec2"), ("f", 4, "offset")):
        def view(buf):
            first = (-buf.__array_interface__["data"][0] % 16 + off_bytes) // buf.itemsize
            return buf[first:first + 1000]
        a, b = view(values(char, (1040,), rng)), view(values(char, (1040,), rng))
        out = view(np.empty(1040, char))
        be.launched.clear()
        run(be, "add", out, a, b)
        with np.errstate(all="ignore"):
            assert_same(out, cpu("add", None, a, b))
        assert be.launched == ["titer_add_%s%s_%s_%s" % (char, char, char, kind)], be.launched


def test_misaligned_contiguous_uses_offset_kernel(be):
    a = np.arange(1001, dtype=np.float32)[1:]
    b = np.ones(1000, np.float32)
    be.launched.clear()
    assert_same(run(be, "add", None, a, b), a + b)
    assert be.launched == ["titer_add_ff_f_offset"]


def test_scalars_are_kernel_arguments(be):
    rng = np.random.default_rng(5)
    a = values("f", (100,), rng)
    for s in (2.5, 3, True, np.float64(1.25), np.int8(-3), np.float16(0.5)):
        be.launched.clear()
        assert_same(run(be, "multiply", None, a, s), cpu("multiply", None, a, s))
        assert_same(run(be, "subtract", None, s, a), cpu("subtract", None, s, a))
    i8 = values("b", (50,), rng)
    assert_same(run(be, "add", None, i8, 3), cpu("add", None, i8, 3))
    with pytest.raises(OverflowError):
        run(be, "add", None, i8, 1000)
    # comparisons with an int the dtype cannot hold: one answer everywhere
    assert_same(run(be, "less", None, i8, 1000), cpu("less", None, i8, 1000))
    assert_same(run(be, "less", None, 1000, i8), cpu("less", None, 1000, i8))


def test_mixed_dtypes_cast_per_element(be):
    """LoadWithCast / StoreWithCast: operands read and written in their own dtype."""
    rng = np.random.default_rng(9)
    chars = _ops.TYPECHARS
    for src in chars:
        a = values(src, (30,), rng)
        b = values(src, (30,), rng)
        for dst in chars:
            out = np.zeros(30, dst)
            want = np.zeros(30, dst)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                cpu("add", want, a, b, casting="unsafe")
                be.launched.clear()
                run(be, "add", out, a, b, casting="unsafe")
            if dst != src:
                assert be.launched[0].endswith("_cast")
            if want.dtype.kind in "iub" and src in "efdFD":
                finite = np.isfinite(a.real.astype(np.float64) + b.real.astype(np.float64))
                np.testing.assert_array_equal(out[finite & (np.abs(a.real) < 50)],
                                              want[finite & (np.abs(a.real) < 50)])
            else:
                assert_same(out, want)
    # inputs of different dtypes promoted by the loop (int32 + float32 -> float64)
    a = values("i", (6, 7), rng)
    b = values("f", (7,), rng)
    assert_same(run(be, "add", None, a, b), cpu("add", None, a, b))
    assert_same(run(be, "add", None, a.T, b[:6]), cpu("add", None, a.T, b[:6]))


def test_ternary_and_mixed_signature_ops(be):
    rng = np.random.default_rng(13)
    if "clip" in _ops.OPS_BY_NAME:
        x = values("f", (40, 3), rng)
        assert_same(run(be, "clip", None, x, -1.0, np.float32(2)), cpu("clip", None, x, -1.0,
                                                                           np.float32(2)))
    if "where" in _ops.OPS_BY_NAME:
        c = values("?", (40, 3), rng)
        x, y = values("d", (40, 3), rng), values("d", (3,), rng)
        assert_same(run(be, "where", None, c, x, y), cpu("where", None, c, x, y))


def test_integer_division_by_zero_is_zero(be):
    a = np.array([7, -7, 0, np.iinfo(np.int32).min, 5], np.int32)
    b = np.array([0, 0, 0, -1, 2], np.int32)
    for name in ("floor_divide", "remainder", "fmod"):
        assert_same(run(be, name, None, a, b), cpu(name, None, a, b))
    got = run(be, "floor_divide", None, a, b)
    assert list(got[:3]) == [0, 0, 0]


def test_two_outputs(be):
    """divmod / modf / frexp: the second output through the kernel's pointer,
    given outputs of another dtype (StoreWithCast), strided."""
    rng = np.random.default_rng(29)
    a, b = values("i", (20, 6), rng), values("i", (6,), rng)
    assert_same(run(be, "divmod", None, a, b), cpu("divmod", None, a, b))
    x = values("d", (20, 6), rng)
    outs = (np.zeros((6, 20), np.float32).T, np.zeros((20, 6), np.float64))
    want = (np.zeros((6, 20), np.float32).T, np.zeros((20, 6), np.float64))
    be.launched.clear()
    run(be, "modf", outs, x, casting="unsafe")
    cpu("modf", want, x, casting="unsafe")
    assert_same(outs, want)
    assert be.launched[-1].endswith("_cast")
    assert_same(run(be, "frexp", None, x[::2]), cpu("frexp", None, x[::2]))


def test_zero_size_and_0d(be):
    a = np.zeros((0, 5), np.float32)
    assert run(be, "add", None, a, a).shape == (0, 5)
    z = np.array(3.0)
    assert_same(run(be, "add", None, z, z), cpu("add", None, z, z))


def test_many_dims_loop_on_host(be):
    rng = np.random.default_rng(17)
    a = values("f", (2,) * 15, rng)
    b = values("f", (2,) * 15, rng)
    x = a.transpose(list(range(15))[::-1])[..., ::1]
    y = np.moveaxis(b, 0, 7)
    be.launched.clear()
    assert_same(run(be, "add", None, x, y), cpu("add", None, x, y))
    assert len(be.launched) >= 2


def test_32bit_split_path(be, monkeypatch):
    """with_32bit_indexing with a lowered limit: many pieces, same answer."""
    monkeypatch.setattr(plan, "SPLIT_LIMIT", 257)
    rng = np.random.default_rng(19)
    a = values("f", (40, 33), rng)
    b = values("f", (33,), rng)
    for x, y in ((a, b), (a.T, a[:, :1].T), (a[::-1], b)):
        be.launched.clear()
        assert_same(run(be, "add", None, x, y), cpu("add", None, x, y))
        assert len(be.launched) > 4


def test_out_given_and_overlap(be):
    rng = np.random.default_rng(23)
    a = values("d", (50,), rng)
    with np.errstate(all="ignore"):
        want = a[1:] + a[:-1]
    x = a.copy()
    run(be, "add", x[:-1], x[1:], x[:-1])     # inputs overlap out: as if copied first
    assert_same(x[:-1], want)
    y = a.copy()
    run(be, "negative", y, y)                  # exact alias: in place
    assert_same(y, -a)
    z = np.zeros(4)
    with pytest.raises(ValueError, match="internal overlap"):     # a ValueError, as on the CPU
        run(be, "add", np.broadcast_to(z, (3, 4)), a[:12].reshape(3, 4), 1.0)
    assert_same(z, np.zeros(4))
    w = np.zeros((4, 3))
    run(be, "add", w.T, a[:12].reshape(3, 4), 1.0)               # strided, no overlap
    assert_same(w.T, a[:12].reshape(3, 4) + 1.0)


def test_errors_match_cpu(be):
    a = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="mix NumPy"):
        dispatch.elementwise("add", None, H(a), a, backend=be)
    with pytest.raises(ValueError, match="no operation"):
        dispatch.elementwise("frobnicate", None, H(a), H(a), backend=be)
    with pytest.raises(TypeError, match="Cannot cast"):
        run(be, "add", np.zeros(4, np.int32), a, a)
    with pytest.raises(ValueError):
        run(be, "add", None, np.ones(3), np.ones(4))
    out = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (4,), (0,))
    with pytest.raises(ValueError):
        run(be, "add", out, a, a)
    with pytest.raises(TypeError, match="input"):
        dispatch.elementwise("add", None, H(a), backend=be)


def _outcome(call):
    """What a call does: ("raises", class, message), or ("returns", the
    values, the warnings' classes)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            res = call()
        except Exception as exc:
            return "raises", type(exc), str(exc)
    res = res if isinstance(res, tuple) else (res,)
    values = [np.asarray(r.a if isinstance(r, host.HostArray) else r) for r in res]
    return "returns", [(v.dtype, v.tolist()) for v in values], [w.category for w in caught]


# (name, out, inputs, keywords): the front end's cases, where NumPy's answer
# depends on a Python scalar's value or on the keywords
_FRONT_END_CASES = [
    ("add", None, (np.arange(3, dtype=np.int8), 300), {}),
    ("add", None, (np.arange(3, dtype=np.uint8), -1), {}),
    ("add", None, (np.arange(3, dtype=np.int8), 300), {"casting": "unsafe"}),
    ("add", None, (np.arange(3, dtype=np.int8), 300), {"casting": "equiv"}),
    ("add", None, (np.arange(3.0), 1), {"casting": "equiv"}),
    ("add", None, (np.arange(3.0), 1.5), {"casting": "no"}),
    ("less", None, (np.arange(3, dtype=np.int8), 300), {}),
    ("greater_equal", None, (-2 ** 70, np.arange(3, dtype=np.uint16)), {}),
    ("equal", None, (np.arange(3, dtype=np.int8), 2 ** 70), {"casting": "equiv"}),
    ("less", None, (np.arange(3.0), 2 ** 70), {}),
    ("logical_and", None, (np.arange(3.0), 2 ** 70), {}),
    ("add", np.zeros(3, np.int32), (np.arange(3, dtype=np.int32), 1.5), {}),
    ("add", np.zeros(3, np.float32), (np.arange(3.0), 1j), {"casting": "unsafe"}),
    ("add", None, (np.arange(3, dtype=np.complex64), 1), {"dtype": np.float32,
                                                         "casting": "unsafe"}),
    ("add", np.zeros(3, np.complex64), (np.arange(3.0), 1.0),
     {"where": np.array([True, False, True])}),
    ("add", np.zeros(3), (np.arange(3, dtype=np.complex128), 1), {
        "where": np.array([True, False, True]), "casting": "unsafe"}),
    ("add", np.zeros(3), (np.arange(3.0), 1.0), {"where": np.True_, "order": "F"}),
    ("add", np.zeros(3), (np.arange(3.0), 1.0), {"where": False}),
    ("add", np.zeros(3), (np.arange(4.0), 1.0), {"where": False}),
    ("negative", np.zeros(3, np.int16), (300,), {"casting": "unsafe"}),
    ("negative", np.zeros(3), (2 ** 64,), {}),
    ("sqrt", np.zeros(3, np.float32), (4,), {}),
    ("add", None, (np.arange(3.0), 1.0), {"order": "Z"}),
    ("add", None, (np.arange(3.0), 1.0), {"order": 5}),
    ("add", None, (np.arange(3.0), 1.0), {"casting": "sometimes"}),
    ("divmod", np.zeros(3), (np.arange(3.0), 2.0), {}),
    ("divmod", (np.zeros(3),), (np.arange(3.0), 2.0), {}),
    ("power", None, (np.arange(3), -1), {}),
    ("add", None, (np.arange(3.0), np.float32(2.5)), {}),
]


@pytest.mark.parametrize("case", range(len(_FRONT_END_CASES)))
def test_front_end_cases_match_cpu(be, case):
    """The same exception (class and message) or the same values and
    warnings on both sides: both take them from titer/_frontend.py."""
    name, out, inputs, kw = _FRONT_END_CASES[case]

    def fresh(x):
        return tuple(fresh(o) for o in x) if isinstance(x, tuple) else (
            x.copy() if isinstance(x, np.ndarray) else x)

    def device(x):
        return tuple(device(o) for o in x) if isinstance(x, tuple) else (
            H(x) if isinstance(x, np.ndarray) else x)

    want = _outcome(lambda: titer.elementwise(name, fresh(out), *inputs, **kw))
    gpu_kw = dict(kw, where=device(kw["where"])) if "where" in kw else kw
    got = _outcome(lambda: dispatch.elementwise(name, device(fresh(out)),
                                                *[device(x) for x in inputs], backend=be,
                                                **gpu_kw))
    assert got == want


def test_complex_views_at_natural_alignment(be):
    """complex128 needs only 8-byte alignment: a view 8 bytes off a 16-byte
    boundary must not take a 16-byte vector access."""
    rng = np.random.default_rng(31)
    buf = rng.standard_normal(83)
    start = 1 if buf.__array_interface__["data"][0] % 16 == 0 else 0
    z = buf[start:start + 80].view(np.complex128)
    assert z.__array_interface__["data"][0] % 16 == 8
    be.launched.clear()
    assert_same(run(be, "add", None, z, z), cpu("add", None, z, z))
    assert be.launched == ["titer_add_DD_D_offset"]


def test_where_and_order_match_cpu(be):
    """where= keeps unselected output elements; order= lays out out=None."""
    rng = np.random.default_rng(32)
    a, b = values("f", (6, 7), rng), values("d", (7,), rng)
    mask = rng.integers(0, 2, (6, 7)).astype(bool)
    for out_dtype in ("d", "f"):
        got = np.full((6, 7), 9, out_dtype)
        want = got.copy()
        run(be, "add", got, a, b, where=H(mask), casting="unsafe")
        cpu("add", want, a, b, where=mask, casting="unsafe")
        assert_same(got, want)
    q, r = np.zeros((6, 7), np.int32), np.zeros((6, 7), np.int32)
    ia = values("i", (6, 7), rng)
    run(be, "divmod", (q, r), ia, 3, where=H(mask))
    wq, wr = np.zeros((6, 7), np.int32), np.zeros((6, 7), np.int32)
    cpu("divmod", (wq, wr), ia, 3, where=mask)
    assert_same((q, r), (wq, wr))
    got = np.full(4, 5.0)
    run(be, "add", got, np.ones(4), np.ones(4), where=False)
    assert (got == 5).all()
    for order in ("C", "F", "A", "K"):
        for x in (a, np.asfortranarray(a), a.T.copy().T):
            res = run(be, "multiply", None, x, 2.0, order=order)
            want = cpu("multiply", None, x, 2.0, order=order)
            assert_same(res, want)
            assert res.strides == want.strides, (order, x.strides)
    res = run(be, "add", None, a.T, 1.0, where=H(mask.T))
    want = cpu("add", None, a.T, 1.0, where=mask.T)
    assert res.strides == want.strides
    np.testing.assert_array_equal(res[mask.T], want[mask.T])
    with pytest.raises(ValueError, match="order must be one of"):
        run(be, "add", None, a, a, order="Z")
    with pytest.raises(TypeError, match="where= must be a device array"):
        run(be, "add", None, a, a, where=mask)
    with pytest.raises(TypeError, match="boolean"):
        run(be, "add", None, a, a, where=H(mask.astype(np.int8)))


def test_plan_cache_replays_with_new_addresses_and_scalars(be, monkeypatch):
    """A repeated layout skips planning: new pointers, new scalar values,
    freshly allocated outputs; a new alignment or a partial overlap plans
    again (and still follows NumPy's rule)."""
    monkeypatch.setattr(be, "plan_cache", {})
    rng = np.random.default_rng(33)
    a = values("f", (40, 9), rng)
    run(be, "add", None, a.T, 1.5)                     # plan and remember
    calls = []
    real = dispatch._plan.plan_launches
    monkeypatch.setattr(dispatch._plan, "plan_launches",
                        lambda *args, **kw: calls.append(1) or real(*args, **kw))
    for k in range(3):
        b = values("f", (40, 9), rng)
        assert_same(run(be, "add", None, b.T, 0.25 * k), cpu("add", None, b.T, 0.25 * k))
        out = np.empty((9, 40), np.float32)
        assert_same(run(be, "add", out, b.T, -1.0), cpu("add", None, b.T, -1.0))
    assert len(calls) == 1                             # only the out= layout was new
    buf = values("f", (41 * 9 + 1,), rng)
    shifted = buf[1:1 + 360].reshape(40, 9)            # 4 bytes off: another vector width
    calls.clear()
    assert_same(run(be, "add", None, shifted.T, 2.0), cpu("add", None, shifted.T, 2.0))
    assert len(calls) == 1
    x = np.arange(20, dtype=np.float32)
    run(be, "add", x[1:], x[1:], 1.0)                  # exact alias: cached
    z, w = np.arange(20, dtype=np.float32), np.arange(20, dtype=np.float32)
    run(be, "add", z[1:], w[:-1], 1.0)                 # this layout without overlap: cached
    y = np.arange(20, dtype=np.float32) ** 2
    want = y.copy()
    want[1:] = y[:-1] + 1.0
    run(be, "add", y[1:], y[:-1], 1.0)                 # partial overlap: the copy rule
    assert_same(y, want)
    y = np.arange(20, dtype=np.float32) ** 2
    run(be, "add", y[1:], y[:-1], 1.0)                 # again: not replayed blindly
    assert_same(y, want)



def test_dense_layouts_replay_one_plan_for_every_shape(be, monkeypatch):
    """Operands of one shape with exactly C-contiguous strides plan once per
    op, dtypes, alignment and size-1 pattern: a new shape or length replays
    that plan with its own element count (grid, count and divider patched),
    with the CPU path's values and out=None layout; two outputs, casts, a
    given out and scalars too."""
    monkeypatch.setattr(be, "plan_cache", {})          # counts start from nothing
    rng = np.random.default_rng(35)
    calls = []
    real = dispatch._plan.plan_launches
    monkeypatch.setattr(dispatch._plan, "plan_launches",
                        lambda *args, **kw: calls.append(1) or real(*args, **kw))
    cases = [("add", ("f", "f"), None), ("multiply", ("e", "d"), None),
             ("less", ("b", "b"), None), ("divmod", ("i", "i"), None),
             ("add", ("h", 3), None), ("subtract", ("D", "D"), "D")]
    for name, chars, given in cases:
        calls.clear()
        for shape in [(37,), (5, 7), (2, 3, 4), (1000,), (3,), (1,), (9, 1), (4, 1), ()]:
            inputs = [values(c, shape, rng) if isinstance(c, str) else c for c in chars]
            out = None if given is None else np.empty(shape, given)
            got = run(be, name, out, *inputs)
            want = cpu(name, None if out is None else np.empty(shape, given), *inputs)
            assert_same(got, want)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert g.strides == w.strides, (name, shape, g.strides, w.strides)
        # planned: (37,), then one per new place of size-1 dims: (1,), (9, 1)
        assert len(calls) == 3, (name, len(calls))


def test_dense_replay_keeps_the_copy_rule_and_32bit_splits(be, monkeypatch):
    """A dense replay still copies a partially overlapping input (NumPy's
    rule) and plans again past 32-bit indexing."""
    monkeypatch.setattr(be, "plan_cache", {})
    z, w = np.arange(64, dtype=np.float64), np.arange(64, dtype=np.float64)
    run(be, "add", z[2:34], w[0:32], 1.0)              # plan: a dense layout, no overlap
    for n in (20, 31, 32):
        y = np.arange(64, dtype=np.float64)
        want = y.copy()
        want[2:2 + n] = y[:n] + 1.0
        run(be, "add", y[2:2 + n], y[:n], 1.0)         # partial overlap, same dense key
        assert_same(y, want)
    rng = np.random.default_rng(36)
    a = values("f", (300,), rng)
    run(be, "add", None, a, a)
    monkeypatch.setattr(plan, "SPLIT_LIMIT", 257 * 4)
    b = values("f", (40, 33), rng)
    be.launched.clear()
    assert_same(run(be, "add", None, b, b), cpu("add", None, b, b))
    assert len(be.launched) > 4


def test_plan_cache_scalars_keep_their_signs_and_types(be):
    """Replayed scalars are converted once and remembered, keyed as exactly
    as their bytes: -0.0 after 0.0 (equal in Python) stays negative, a
    complex's signed-zero imaginary part too, NumPy scalars by value."""
    a = np.ones(8, np.float64)
    for s in (0.0, -0.0, 0.0, -0.0):
        assert_same(run(be, "copysign", None, a, s), np.copysign(a, s))
    c = np.full(8, complex(1, -0.0))
    for s in (complex(1, 0.0), complex(1, -0.0), complex(1, 0.0)):
        got = np.asarray(run(be, "add", None, c, s))
        assert (np.signbit(got.imag) == np.signbit(np.add(c, s).imag)).all()
    for s in (np.float32(0.5), np.float32(-0.0), np.float64(0.5), 3, True):
        assert_same(run(be, "multiply", None, a, s), np.multiply(a, s))

def test_negative_integer_power_raises_before_writing(be):
    """NumPy's ValueError, checked on the host (titer's minimum reduction for
    an array exponent), with out untouched; cached layouts check too."""
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    ok = np.abs(a) % 3
    for _ in range(2):                                   # planned, then replayed
        assert_same(run(be, "power", None, a, ok), cpu("power", None, a, ok))
    out = np.full((3, 4), 7, np.int32)
    bad = ok.copy()
    bad[2, 3] = -1
    for exponent in (bad, -2, np.int64(-1)):
        with pytest.raises(ValueError, match="negative integer powers"):
            run(be, "power", out, a, exponent)
        with pytest.raises(ValueError, match="negative integer powers"):
            cpu("power", np.empty((3, 4), np.int32), a, exponent)
        assert (out == 7).all()
    assert_same(run(be, "power", None, a, 3), cpu("power", None, a, 3))
    u = a.astype(np.uint16)
    assert_same(run(be, "power", None, u, u % 4), cpu("power", None, u, u % 4))


COMPLEX_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5, 1e-30, 700.0, -800.0]


@pytest.mark.parametrize("char", ["F", "D"])
def test_complex_functions_special_values(be, char):
    """C99 Annex G's special values (zeros, infinities, NaN, overflow of the
    real part) of every complex function with a kernel, against glibc's
    (the CPU path)."""
    re, im = np.meshgrid(COMPLEX_SPECIALS, COMPLEX_SPECIALS)
    z = np.empty(re.size, char)
    z.real, z.imag = re.ravel(), im.ravel()
    checked = 0
    for op in _ops.OPS:
        sig = "%s->%s" % (char, char)
        if op.nin != 1 or sig not in be.manifest["ops"][op.name]["kernels"]:
            continue
        if not op.approx and op.name not in ("sqrt",):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = cpu(op.name, None, z)
            got = run(be, op.name, None, z)
        try:
            assert_ulp(got, want, 8)
        except AssertionError as e:               # name the op and the inputs
            differ = [(complex(a), complex(b), complex(c)) for a, b, c in zip(z, got, want)
                      if not np.array_equal(np.array([b]), np.array([c]), equal_nan=True)]
            raise AssertionError("%s: %s\n(z, got, want) that differ: %s"
                                 % (op.name, e, differ[:6])) from None
        checked += 1
    assert checked >= 13


@pytest.mark.parametrize("char", ["F", "D"])
def test_complex_functions_wide_range(be, char):
    """Every complex function with a kernel over magnitudes 1e-8..1e8, on
    and near the branch cuts (zero imaginary parts of both signs) and near
    |z| = 1 (where log|z| and atanh lose digits to naive formulas): within
    8 ULP of glibc (the CPU path), measured against the modulus."""
    rng = np.random.default_rng(12)
    n = 1500
    re = rng.standard_normal(n) * 10 ** rng.uniform(-8, 8, n)
    im = rng.standard_normal(n) * 10 ** rng.uniform(-8, 8, n)
    im[:300] = rng.choice([0.0, -0.0, 1e-12, -1e-12], 300)
    angle = rng.uniform(0, 2 * np.pi, 300)
    radius = 1 + rng.standard_normal(300) * 1e-6
    re[300:600], im[300:600] = radius * np.cos(angle), radius * np.sin(angle)
    z = np.empty(n, char)
    z.real, z.imag = re, im
    checked = 0
    for op in _ops.OPS:
        if op.nin != 1 or "%s->%s" % (char, char) not in be.manifest["ops"][op.name]["kernels"]:
            continue
        if not op.approx:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = cpu(op.name, None, z)
            got = run(be, op.name, None, z)
        assert_ulp(got, want, 8)
        checked += 1
    assert checked >= 19

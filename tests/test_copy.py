"""titer.copy (= np.copyto) over all 196 dtype pairs x layouts (byte-swapped
and unaligned sources included) with NumPy's values and warnings;
titer.ascontiguous and titer.empty_like with ATen's memory formats."""
import math
import warnings

import numpy as np
import pytest

import titer

CHARS = "?bBhHiIlLefdFD"


def special_values(char):
    dt = np.dtype(char)
    if dt.kind == "b":
        return np.array([True, False, True, True, False, True, False, True, True, False, True,
                         False])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([0, 1, 2, info.max, info.min, info.max - 1, 7, 100, 3, 5, 1, 0],
                        dtype=dt)
    vals = [0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -1e30, 65504.0, 3e-8, 300.7]
    if dt.kind == "c":
        return np.array([complex(v, -v / 2 if v == v else 1.0) for v in vals], dtype=dt)
    with np.errstate(all="ignore"):
        return np.array(vals).astype(dt)


def layouts(src):
    """(label, array) pairs holding src's values in different layouts."""
    out = [("C", src.reshape(3, 4))]
    two = src.reshape(3, 4)
    out.append(("transposed", np.ascontiguousarray(two.T).T))
    out.append(("strided", np.repeat(two, 2, axis=1)[:, ::2]))
    out.append(("byte-swapped", two.astype(two.dtype.newbyteorder())))
    if two.dtype.itemsize > 1:
        buf = np.zeros(two.nbytes + 1, np.uint8)
        un = buf[1:].view(two.dtype).reshape(3, 4)
        un[...] = two
        assert not un.flags.aligned
        out.append(("unaligned", un))
    out.append(("broadcast row", two[:1]))
    return out


def run_recording(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return sorted({(m.category.__name__, str(m.message)) for m in w})


@pytest.mark.parametrize("src_char", list(CHARS))
def test_all_dtype_pairs_and_layouts(src_char):
    values = special_values(src_char)
    for dst_char in CHARS:
        for label, src in layouts(values):
            want = np.zeros((3, 4), dst_char)
            got = np.zeros((3, 4), dst_char)
            want_w = run_recording(lambda: np.copyto(want, src, casting="unsafe"))
            got_w = run_recording(lambda: titer.copy(got, src, casting="unsafe"))
            if label == "unaligned" and src.dtype.kind in "fc" and want.dtype.kind in "iu":
                # NaN/inf/out of range to an integer is undefined in C; NumPy's own
                # unaligned loops give other values than its aligned ones there
                real = np.broadcast_to(src.real.astype(np.float64), want.shape)
                info = np.iinfo(want.dtype)
                keep = np.isfinite(real) & (real >= info.min) & (real <= info.max)
                got, want = got[keep], want[keep]
            np.testing.assert_array_equal(got, want, err_msg="%s->%s %s" % (src_char, dst_char,
                                                                             label))
            assert got_w == want_w, (src_char, dst_char, label)
        # a byte-swapped destination
        dst = np.zeros((3, 4), np.dtype(dst_char).newbyteorder())
        ref = np.zeros((3, 4), np.dtype(dst_char).newbyteorder())
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.copyto(ref, values.reshape(3, 4), casting="unsafe")
            titer.copy(dst, values.reshape(3, 4), casting="unsafe")
        np.testing.assert_array_equal(dst, ref)


def test_casting_rules_scalars_and_errors():
    dst = np.zeros(4, np.int8)
    with pytest.raises(TypeError):
        titer.copy(dst, np.ones(4))                    # same_kind: float -> int refused
    with pytest.raises(TypeError):
        titer.copy(dst, np.ones(4, np.int16), casting="safe")
    titer.copy(dst, np.arange(4, dtype=np.int16))
    np.testing.assert_array_equal(dst, np.arange(4))
    titer.copy(dst, 7)
    np.testing.assert_array_equal(dst, 7)
    with pytest.raises(OverflowError):
        titer.copy(dst, 1000)
    with pytest.raises(TypeError):
        titer.copy(dst, 1.5)
    with pytest.raises(ValueError):
        titer.copy(dst, np.ones(3, np.int8))
    ro = np.zeros(4)
    ro.setflags(write=False)
    with pytest.raises(ValueError):
        titer.copy(ro, np.ones(4))
    with pytest.raises(TypeError):
        titer.copy(np.zeros(2, "U3"), np.zeros(2))
    titer.copy(dst, [1, 2, 3, 4])
    np.testing.assert_array_equal(dst, [1, 2, 3, 4])


def _copy_outcome(dst, src, casting, copier):
    """(exception class or None, warning classes, dst after) of one copy."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            copier(dst, src, casting=casting)
            error = None
        except Exception as exc:                # noqa: BLE001 (compared with NumPy's)
            error = type(exc)
    return error, [w.category for w in caught], dst


def test_repeated_copies_check_every_call_as_numpy():
    """A repeated copy skips the checks it has passed before (NOTE [copy
    verdicts]): every call that varies one thing after an allowed one (the
    rule, a dtype, the shape, dst's flags, byte order, src's type) gets
    NumPy's error, warnings and dst, each twice in a row."""
    def calls():
        f8, f4, i1, c16 = (np.arange(6.0).reshape(2, 3).astype(t) + 1.5
                           for t in ("f8", "f4", "i1", "c16"))
        yield np.zeros((2, 3), "f4"), f8, "same_kind"            # allowed: remembered
        yield np.zeros((2, 3), "f4"), f8, "safe"                 # the same pair refused
        yield np.zeros((2, 3), "f4"), f8, "no"
        yield np.zeros((2, 3), "i1"), f8, "same_kind"            # another dst dtype
        yield np.zeros((2, 3), "f4"), i1, "same_kind"            # another src dtype
        yield np.zeros((2, 3), "f4"), f8, "sideways"             # not a rule
        yield np.zeros((2, 3), "f4"), f8, b"same_kind"           # not a str
        yield np.zeros((2, 3), "f4"), f8[0], "same_kind"         # broadcast
        yield np.zeros((2, 3), "f4"), f8[:, :2], "same_kind"     # does not broadcast
        yield np.zeros((2, 3), "f4"), f8.T.copy().T, "same_kind"  # strides
        yield np.zeros((2, 3), "f4"), f8.astype(">f8"), "same_kind"
        yield np.zeros((2, 3), "f4").astype(">f4"), f8, "no"
        readonly = np.zeros((2, 3), "f4")
        readonly.setflags(write=False)
        yield readonly, f8, "same_kind"
        yield np.zeros((2, 3), "f4"), f8.tolist(), "same_kind"
        yield np.zeros((2, 3), "f4"), 1.5, "same_kind"             # Python scalars
        yield np.zeros((2, 3), "i1"), 1.5, "same_kind"
        yield np.zeros((2, 3), "f8"), 1j, "unsafe"
        yield np.zeros((2, 3), "f8"), 1j, "same_kind"
        yield np.zeros((2, 3), "?"), True, "same_kind"
        yield np.zeros((2, 3), "i1"), 3, "same_kind"
        yield np.zeros((2, 3), "i1"), 300, "same_kind"
        yield np.zeros((2, 3), "f4"), np.float64(1.5), "same_kind"
        yield readonly, 1.5, "same_kind"
        yield np.zeros((2, 3), "f8"), c16, "unsafe"              # the warning, every time
        yield np.zeros((2, 3), "f8"), c16, "same_kind"
        yield np.zeros((2, 3), "c8"), c16, "same_kind"
        yield np.zeros((2, 3), "f4"), f8, "same_kind"
    for (dst, src, casting), (want_dst, want_src, _) in zip(calls(), calls()):
        for _ in range(2):
            got = _copy_outcome(dst.copy(), src, casting, titer.copy)
            want = _copy_outcome(want_dst.copy(), want_src, casting, np.copyto)
            context = (dst.dtype, type(src), np.asarray(src).dtype, np.shape(src), casting)
            assert got[:2] == want[:2], context
            np.testing.assert_array_equal(got[2], want[2], err_msg=str(context))
            assert got[2].dtype == want[2].dtype


@pytest.mark.parametrize("dst_shape", [(), (0,), (1,), (3,), (2, 3), (2, 1), (0, 3), (1, 0, 2)])
def test_broadcast_of_src_into_dst_is_numpys(dst_shape):
    """Every source shape of up to 3 dims of sizes 0-3 copies into dst as in
    np.copyto: the same shapes accepted, a ValueError for the others."""
    import itertools
    shapes = [()] + [s for k in (1, 2, 3) for s in itertools.product(range(4), repeat=k)]
    for src_shape in shapes:
        src = np.arange(math.prod(src_shape), dtype=np.int16).reshape(src_shape)
        want, got = np.zeros(dst_shape, np.int32), np.zeros(dst_shape, np.int32)
        try:
            np.copyto(want, src)
        except ValueError:
            with pytest.raises(ValueError, match="could not broadcast"):
                titer.copy(got, src)
        else:
            titer.copy(got, src)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src_char", list(CHARS))
def test_fills_from_one_value_are_numpys(src_char):
    """NOTE [broadcast fills]: a 0-d source, a NumPy scalar and a column
    broadcast along the fastest dim fill dst with NumPy's value and
    warnings, for every dtype pair and special value, the vector body and
    the misaligned head both; an empty dst warns of nothing."""
    for value in special_values(src_char)[:12:]:
        for dst_char in CHARS:
            finite_to_int = True
            if np.dtype(dst_char).kind in "iub" and np.dtype(src_char).kind in "fc":
                real = np.float64(np.real(value))
                info = np.iinfo(dst_char) if np.dtype(dst_char).kind != "b" else None
                # NaN, inf and out of range to an integer: undefined in C
                finite_to_int = bool(np.isfinite(real)) and (
                    info is None or info.min <= real <= info.max)
            column = np.full((3, 1), value, src_char)
            for label, src, shape in [("0-d", np.array(value, src_char), (1003,)),
                                      ("scalar", np.array(value, src_char)[()], (5, 77)),
                                      ("column", column, (3, 301)),
                                      ("empty", np.array(value, src_char), (0,))]:
                buf_want = np.zeros(math.prod(shape) + 3, dst_char)
                buf_got = np.zeros(math.prod(shape) + 3, dst_char)
                want = buf_want[3:].reshape(shape)      # a head before the vectors
                got = buf_got[3:].reshape(shape)
                want_w = run_recording(lambda: np.copyto(want, src, casting="unsafe"))
                got_w = run_recording(lambda: titer.copy(got, src, casting="unsafe"))
                context = (src_char, dst_char, repr(value), label)
                assert got_w == want_w, context
                if finite_to_int:
                    np.testing.assert_array_equal(buf_got, buf_want, err_msg=str(context))
                else:       # one value throughout, whatever the conversion gives
                    assert (got == got.flat[0]).all() if got.size else True, context


@pytest.mark.parametrize("name", ["negative", "sqrt", "exp", "square", "logical_not", "sign",
                                  "isnan", "floor", "reciprocal", "absolute", "cbrt"])
def test_unary_ops_of_one_value_into_an_array_are_numpys(name):
    """NOTE [broadcast fills]: a unary op of a scalar into a big out= computes
    the one value once: the value the op gives on an array of it, NumPy's
    warnings, and for the exact ops NumPy's value (exp and cbrt: within
    their ULP bounds, as everywhere), for every dtype it takes."""
    ufunc = getattr(np, name)
    for char in CHARS:
        if not any(t.startswith(char) for t in ufunc.types):
            continue
        for value in special_values(char)[:12]:
            x = np.array(value, char)
            try:
                with np.errstate(all="ignore"):
                    want = ufunc(x, out=np.zeros(2000, ufunc(x).dtype))
            except TypeError:
                continue
            got = np.zeros_like(want)
            want_w = run_recording(lambda: ufunc(x, out=np.zeros_like(want)))
            got_w = run_recording(lambda: titer.elementwise(name, got, x))
            assert got_w == want_w, (name, char, repr(value))
            with np.errstate(all="ignore"):
                own = titer.elementwise(name, None, np.full(2000, value, char))
            np.testing.assert_array_equal(got, own, err_msg="%s %s %r" % (name, char, value))
            if name not in ("exp", "cbrt"):
                np.testing.assert_array_equal(got, want, err_msg="%s %s %r" % (name, char, value))


@pytest.mark.parametrize("src_char", list("efdFD"))
def test_float_to_integer_casts_at_every_output_offset(src_char):
    """NaN, inf and out-of-range values convert to whatever the
    instructions give (C leaves it undefined): the contiguous cast gives
    NumPy's contiguous values wherever the output starts, since which
    elements a loop starting at a 64-byte boundary would run apart depends
    on the address (NOTE [aligned stores])."""
    src = np.resize(np.array(special_values(src_char), src_char), 40)
    for dst_char in "bBhHiIlL":
        item = np.dtype(dst_char).itemsize
        want = np.zeros(40, dst_char)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.copyto(want, src, casting="unsafe")
            for offset in range(0, 64, item):
                buf = np.zeros(40 * item + 128, np.uint8)
                start = (-buf.ctypes.data) % 64 + offset
                got = buf[start:start + 40 * item].view(dst_char)
                titer.copy(got, src, casting="unsafe")
                np.testing.assert_array_equal(got, want, err_msg="%s->%s at +%d" % (
                    src_char, dst_char, offset))


@pytest.mark.parametrize("dst_char", list("bBhHiIlL"))
def test_every_float16_to_every_integer(dst_char):
    """Every float16 bit pattern (NaN payloads, infinities, subnormals,
    negatives) cast to each integer type, contiguous and strided: NumPy's
    values and its warning (to int64 / uint32 / uint64 a 32-bit conversion
    with NaN / inf set by masks: titer/_codegen.py cast_expr)."""
    src = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for x in (src, src[::3]):
        want = np.zeros(x.size, dst_char)
        got = np.zeros(x.size, dst_char)
        want_w = run_recording(lambda: np.copyto(want, x, casting="unsafe"))
        got_w = run_recording(lambda: titer.copy(got, x, casting="unsafe"))
        np.testing.assert_array_equal(got, want, err_msg=dst_char)
        assert got_w == want_w, dst_char


def _casts_to_float16_as_numpy(x, label):
    """x cast to float16 by titer.copy: NumPy's bits and warnings, whole,
    strided and a short piece."""
    for src in (x, x[::3], x[x.size // 2:x.size // 2 + 7]):
        want = np.zeros(src.size, np.float16)
        got = np.zeros(src.size, np.float16)
        want_w = run_recording(lambda: np.copyto(want, src, casting="unsafe"))
        got_w = run_recording(lambda: titer.copy(got, src, casting="unsafe"))
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=label)
        assert got_w == want_w, label


@pytest.mark.parametrize("src_char", list("bBhHiIlL"))
def test_every_integer_to_float16_through_float(src_char):
    """NOTE [integers to float16]: each integer type to float16 through
    float (32- and 64-bit ones clamped to +-2^16 first): every value of the
    8- and 16-bit types, and of the wider ones the values around float16's
    largest (65504-65536: ties to even, then infinity), around 2^16, 2^24,
    2^31, 2^32, 2^63, the ends and random ones; NumPy's bits and its overflow
    warning, contiguous and strided."""
    info = np.iinfo(src_char)
    if info.bits <= 16:
        x = np.arange(info.min, info.max + 1).astype(src_char)
    else:
        rng = np.random.default_rng(26)
        near = [p + d for p in [2048, 4096, 65504, 65520, 65536, 2 ** 24, 2 ** 31, 2 ** 32,
                                2 ** 63] for d in range(-20, 21)]
        near += [-v for v in near] + [info.min, info.max, 0, 1, -1, 2049, 2051, 4097, 4099]
        x = np.concatenate([
            rng.integers(info.min, info.max, 4000, dtype=src_char, endpoint=True),
            rng.integers(max(info.min, -70000), 70000, 4000, dtype=src_char),
            np.array([v for v in near if info.min <= v <= info.max], src_char)])
    _casts_to_float16_as_numpy(x, src_char)


def _doubles_around_float16():
    """float64 bit patterns for float16 rounding: every exponent with
    significands at and next to the float16 rounding bit, the low word
    alone, random bits, midpoints between float16 values +-4 ulps."""
    rng = np.random.default_rng(64)
    significands = np.array([0, 1, 2, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 41 - 1, 2 ** 41,
                             2 ** 41 + 1, 2 ** 42 - 1, 2 ** 42, 2 ** 42 + 1, 3 * 2 ** 41,
                             3 * 2 ** 41 + 1, 2 ** 52 - 1, 2 ** 51], np.uint64)
    exponents = np.arange(2048, dtype=np.uint64) << np.uint64(52)
    grid = (exponents[:, None] | significands[None, :]).ravel()
    halves = np.arange(0x7c00, dtype=np.uint16).view(np.float16).astype(np.float64)
    above = np.append(halves[1:], 65536.0)      # past 65504: 2^16, as if a float16
    mids = ((halves + above) / 2).view(np.uint64)
    near = (mids[:, None].astype(np.int64) + np.arange(-4, 5)[None, :]).ravel().view(np.uint64)
    bits = np.concatenate([grid, near, rng.integers(0, 2 ** 64, 200000, dtype=np.uint64)])
    return np.concatenate([bits, bits | np.uint64(2 ** 63)]).view(np.float64)


@pytest.mark.parametrize("src_char", ["d", "D"])
def test_float64_to_float16_in_32_bit_lanes(src_char):
    """NOTE [float64 to float16 in 32-bit lanes]: NumPy's float16 bits and
    warnings for every exponent around the rounding bit, subnormal and
    overflow edges, NaN payloads in either word, midpoints between float16
    values and random bits, contiguous and strided (complex128: the real
    part)."""
    x = _doubles_around_float16()
    if src_char == "D":
        x = x.astype(np.complex128)
        x.imag = x.real[::-1]
    _casts_to_float16_as_numpy(x, src_char)


@pytest.mark.parametrize("src_char", ["l", "L"])
def test_int64_to_double_half_complex_round_as_numpy(src_char):
    """int64 / uint64 to float64, float16 and complex128 without AVX-512's
    64-bit conversion: two exact 32-bit halves and one rounding
    (titer_i64_to_d); NumPy's bits for random values of the whole range,
    the ends, and values next to 2^53 multiples where the rounding ties,
    contiguous and strided, at every level."""
    info = np.iinfo(src_char)
    rng = np.random.default_rng(8)
    x = rng.integers(info.min, info.max, 20000, dtype=src_char, endpoint=True)
    near = [p + d for p in [2 ** k for k in range(50, 64)] for d in range(-4, 5)]
    near += [-v for v in near] + [info.min, info.max, 0, 1, -1, 2 ** 32 - 1, 2 ** 32, -2 ** 31]
    x = np.concatenate([x, np.array([v for v in near if info.min <= v <= info.max], src_char)])
    for dst_char in "edD":
        for src in (x, x[::3]):
            want = np.zeros(src.size, dst_char)
            got = np.zeros(src.size, dst_char)
            with np.errstate(all="ignore"):
                np.copyto(want, src, casting="unsafe")
                titer.copy(got, src, casting="unsafe")
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8),
                                          err_msg="%s->%s" % (src_char, dst_char))


def test_early_exit_and_overlap():
    a = np.arange(10.0)
    assert titer.copy(a, a) is a
    assert titer.copy(a, a[:]) is a
    b = np.arange(10.0)
    titer.copy(b[1:], b[:-1])                    # overlapping: as if copied first
    np.testing.assert_array_equal(b, [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    c = np.arange(10.0)
    titer.copy(c[::-1], c)
    np.testing.assert_array_equal(c, np.arange(10.0)[::-1])


def test_views_of_one_buffer_copy_as_numpy():
    """Random pairs of views of one buffer (offsets, steps, reversals,
    transposes), one copied into the other: NumPy's result, the source
    read as if copied first wherever the two can overlap."""
    rng = np.random.default_rng(11)
    for _ in range(300):
        base = np.arange(240.0)
        views = []
        for _ in range(2):
            start, step = int(rng.integers(0, 40)), int(rng.choice([1, 2, 3, -1, -2]))
            flat = base[start:] if step > 0 else base[::-1][start:]
            flat = flat[::abs(step)][:48]
            view = flat[:48].reshape(6, 8)
            views.append(view.T if rng.random() < 0.3 else view)
        dst, src = views
        if dst.shape != src.shape:
            src = src.T
        want_base = base.copy()
        want_views = [np.lib.stride_tricks.as_strided(
            want_base[(v.__array_interface__["data"][0] - base.ctypes.data) // 8:],
            v.shape, v.strides) for v in (dst, src)]
        np.copyto(want_views[0], want_views[1])
        titer.copy(dst, src)
        np.testing.assert_array_equal(base, want_base)


def test_large_copies_threads(teams):
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 127, (700, 900), dtype=np.int8)
    for n in (1, 2, 3):
        with titer.num_threads(n):
            out = np.empty((900, 700), np.float32)
            titer.copy(out, x.T)
            np.testing.assert_array_equal(out, x.T.astype(np.float32))


def test_ascontiguous():
    x = np.arange(24.0).reshape(2, 3, 4)
    assert titer.ascontiguous(x) is x
    t = x.transpose(2, 0, 1)
    c = titer.ascontiguous(t)
    assert c.flags.c_contiguous and c is not t
    np.testing.assert_array_equal(c, t)
    nchw = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    cl = titer.ascontiguous(nchw, "channels_last")
    np.testing.assert_array_equal(cl, nchw)
    assert titer.is_contiguous(cl, "channels_last")
    assert cl.strides == (240, 4, 60, 12)
    assert titer.ascontiguous(cl, "channels_last") is cl
    back = titer.ascontiguous(cl)
    assert back.flags.c_contiguous
    np.testing.assert_array_equal(back, nchw)
    assert titer.ascontiguous(cl, "preserve") is cl
    strided = nchw[:, :, ::2]
    p = titer.ascontiguous(strided, "preserve")
    assert p.flags.c_contiguous
    np.testing.assert_array_equal(p, strided)
    with pytest.raises(ValueError):
        titer.ascontiguous(x, "channels_last")
    with pytest.raises(ValueError):
        titer.ascontiguous(x, "bogus")
    swapped = np.arange(6, dtype=">f4").reshape(2, 3).T
    s = titer.ascontiguous(swapped)
    assert s.dtype == swapped.dtype and s.flags.c_contiguous
    np.testing.assert_array_equal(s, swapped)


def test_empty_like():
    x = np.zeros((2, 3, 4, 5), np.float32)
    assert titer.empty_like(x).strides == x.strides
    perm = x.transpose(0, 2, 3, 1)
    assert titer.empty_like(perm).strides == perm.strides
    assert titer.empty_like(x, "channels_last").strides == (240, 4, 60, 12)
    assert titer.empty_like(perm, "contiguous").flags.c_contiguous
    sliced = np.zeros((2, 8, 5, 3), np.float32).transpose(0, 3, 1, 2)[:, :, ::2]
    e = titer.empty_like(sliced)                 # not dense: suggested format
    assert titer.is_contiguous(e, "channels_last")
    assert e.shape == sliced.shape and e.dtype == sliced.dtype
    assert titer.empty_like(np.float64(1.0)).shape == ()


def test_empty_like_preserves_dense_strides_in_their_order():
    """'preserve' on a non-overlapping dense array: the strides of an array
    packed in the order of x's strides (ties by dim), whether that order is
    C's (np.empty's own strides) or not; size-1 and size-0 dims included."""
    def packed_in_stride_order(x, dtype):
        order = sorted(range(x.ndim), key=lambda d: (-x.strides[d], d))
        base = np.empty([x.shape[d] for d in order], dtype)
        strides = [0] * x.ndim
        for k, d in enumerate(order):
            strides[d] = base.strides[k]
        return tuple(strides)
    grid = np.zeros((3, 4, 5))
    for x in [grid, grid[:, None], grid[:, :, None], grid.transpose(2, 0, 1), np.zeros((4, 1)),
              np.zeros((0, 3)), grid[:, :0], np.zeros((1, 1, 1)),
              np.zeros((2, 3), np.int8).T, grid[:1]]:
        for dtype in (None, np.int16):
            got = titer.empty_like(x, dtype=dtype)
            want_dtype = x.dtype if dtype is None else np.dtype(dtype)
            assert got.shape == x.shape and got.dtype == want_dtype
            assert got.strides == packed_in_stride_order(x, want_dtype), (x.shape, x.strides)


def test_torch_contiguous_strides_match():
    torch = pytest.importorskip("torch")
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    for view in (x, x.transpose(0, 2, 3, 1), x[:, :, ::2], x.transpose(3, 1, 2, 0)):
        t = torch.from_numpy(x).as_strided(view.shape, [s // 4 for s in view.strides],
                                           (view.__array_interface__["data"][0]
                                            - x.__array_interface__["data"][0]) // 4)
        for fmt, tfmt in (("contiguous", torch.contiguous_format),
                          ("channels_last", torch.channels_last)):
            got = titer.ascontiguous(view, fmt)
            want = t.contiguous(memory_format=tfmt)
            assert tuple(s // 4 for s in got.strides) == tuple(want.stride()), (fmt, view.strides)
            np.testing.assert_array_equal(got, want.numpy())
        assert tuple(s // 4 for s in titer.empty_like(view).strides) == \
            tuple(torch.empty_like(t).stride())

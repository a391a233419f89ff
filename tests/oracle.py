"""Shared helpers for the differential tests: value grids with the special
values of each dtype, the layouts a NumPy user hands titer, and an exact
comparison (NaN positions equal, signed zeros equal)."""
import numpy as np

from titer import _ops

DTYPES = [np.dtype(c) for c in _ops.TYPECHARS]


def special_values(dtype):
    """Values every loop must get right for this dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min]
        if dtype.kind == "i":
            vals += [-1, -2, -7, info.min + 1]
        return vals
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan,
                float(info.max), -float(info.max), float(info.tiny), float(info.smallest_subnormal),
                -float(info.smallest_subnormal), 1e-3, 65504.0 if dtype.itemsize == 2 else 1e30]
    part = special_values(np.float32 if dtype.itemsize == 8 else np.float64)
    return [complex(r, i) for r in part[:10] for i in (0.0, -0.0, 1.0, -2.5, np.nan, np.inf)]


def value_grid(dtype, shape, seed=0):
    """An array of `shape` drawing from the special values plus random ones,
    so every special value meets every other somewhere in a binary op."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    specials = np.array(special_values(dtype), dtype=dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        randoms = rng.integers(0, 2, size=n).astype(dtype)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        randoms = rng.integers(max(info.min, -100), min(info.max, 100), size=n,
                               endpoint=True).astype(dtype)
    elif dtype.kind == "f":
        randoms = (rng.standard_normal(n) * 10).astype(dtype)
    else:
        randoms = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    picks = rng.integers(0, 3, size=n)
    flat = np.where(picks == 0, specials[rng.integers(0, len(specials), size=n)], randoms)
    return flat.astype(dtype).reshape(shape)


# ULP bounds for the transcendental ops (op.approx), by float itemsize:
# NumPy's own accuracy tables' convention.
ULP_BOUNDS = {2: 1, 4: 4, 8: 2}


def assert_same(actual, expected, context="", zero_sign=True, ulps=False, scale=None,
                ulp_factor=1, reference=None):
    """Exact equality: dtype, shape, every value; NaNs where NumPy has NaNs;
    the sign of zero too unless zero_sign is False (maximum/minimum of +0
    and -0, where NumPy's own answer depends on its SIMD path).  With
    `ulps`, finite float values may differ by ULP_BOUNDS ULPs of `scale`
    (default: the expected value; complex parts use the larger part), or
    lie within ULP_BOUNDS of `reference` (real values only), the correctly
    rounded result where the caller has it: the bound titer promises is
    from that, and NumPy's own value may be further from it (glibc's scalar
    float64 cbrt, which NumPy runs below AVX-512, is 3.3 ULP off)."""
    if isinstance(actual, np.generic) or isinstance(expected, np.generic):
        # NumPy returns a scalar for a 0-d result it allocated: so must titer
        assert isinstance(actual, np.generic) and isinstance(expected, np.generic), (
            "%s: titer returned %s, NumPy %s" % (context, type(actual).__name__,
                                                 type(expected).__name__))
        actual, expected = np.asarray(actual), np.asarray(expected)
    assert isinstance(actual, np.ndarray), "%s: got %r" % (context, type(actual))
    assert actual.dtype == expected.dtype, "%s: dtype %s != %s" % (context, actual.dtype,
                                                                  expected.dtype)
    assert actual.shape == expected.shape, "%s: shape %s != %s" % (context, actual.shape,
                                                                  expected.shape)
    if expected.dtype.kind == "c":
        part_scale = None
        if ulps:
            part_scale = np.maximum(np.abs(expected.real), np.abs(expected.imag))
            part_scale = np.where(np.isfinite(part_scale), part_scale, 0).astype(expected.real.dtype)
        assert_same(actual.real.copy(), expected.real.copy(), context + " (real)", zero_sign,
                    ulps, part_scale, ulp_factor)
        assert_same(actual.imag.copy(), expected.imag.copy(), context + " (imag)", zero_sign,
                    ulps, part_scale, ulp_factor)
        return
    if expected.dtype.kind == "f":
        nan_a, nan_e = np.isnan(actual), np.isnan(expected)
        sign_differs = np.signbit(actual) != np.signbit(expected)
        if not zero_sign:
            sign_differs &= expected != 0
        differs = (actual != expected) | sign_differs
        if ulps:
            ref = np.abs(expected if scale is None else np.maximum(scale, np.abs(expected)))
            with np.errstate(all="ignore"):
                tol = (ulp_factor * ULP_BOUNDS[expected.dtype.itemsize]
                       * np.spacing(ref).astype(np.float64))
                err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
            close = np.isfinite(expected) & np.isfinite(actual) & (err <= tol)
            if reference is not None:
                with np.errstate(all="ignore"):
                    tol = (ulp_factor * ULP_BOUNDS[expected.dtype.itemsize]
                           * np.spacing(np.abs(reference)).astype(np.float64))
                    err = np.abs(actual.astype(np.float64) - reference.astype(np.float64))
                close |= np.isfinite(reference) & np.isfinite(actual) & (err <= tol)
            differs &= ~close
        bad = (nan_a != nan_e) | (~nan_e & differs)
    else:
        bad = actual != expected
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise AssertionError("%s: %d mismatches, first at %s: titer %r, numpy %r"
                             % (context, int(bad.sum()), idx, actual[idx], expected[idx]))


def unaligned(arr):
    """A copy of arr whose data pointer is off by one byte from alignment."""
    raw = np.empty(arr.nbytes + 1, dtype=np.uint8)
    view = raw[1:].view(arr.dtype).reshape(arr.shape)
    view[...] = arr
    return view


def byteswapped(arr):
    """The same values stored in the other byte order."""
    return arr.astype(arr.dtype.newbyteorder())


def channels_last(arr4d):
    """The same values laid out NHWC (strides of a channels-last tensor)."""
    return np.ascontiguousarray(arr4d.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


def layouts(make, dtypes):
    """(name, operands) pairs: the same logical inputs in many layouts.
    `make(dtype, shape, seed)` creates a value grid."""
    n = len(dtypes)
    base = [make(dt, (6, 5), seed=i) for i, dt in enumerate(dtypes)]
    yield "contiguous", base
    yield "fortran", [np.asfortranarray(x) for x in base]
    yield "transposed", [make(dt, (5, 6), seed=i).T for i, dt in enumerate(dtypes)]
    yield "mixed C/F", [x if i % 2 == 0 else np.asfortranarray(x) for i, x in enumerate(base)]
    yield "reversed", [x[::-1, ::-1] for x in base]
    yield "step slices", [make(dt, (12, 15), seed=i)[::2, ::3] for i, dt in enumerate(dtypes)]
    if n >= 2:
        yield "broadcast row", [base[0]] + [make(dt, (5,), seed=9 + i)
                                            for i, dt in enumerate(dtypes[1:])]
        yield "broadcast column", [base[0]] + [make(dt, (6, 1), seed=9 + i)
                                               for i, dt in enumerate(dtypes[1:])]
        yield "outer broadcast", [make(dtypes[0], (6, 1), seed=3)] + [
            make(dt, (1, 5), seed=4 + i) for i, dt in enumerate(dtypes[1:])]
        yield "broadcast_to view", [base[0]] + [
            np.broadcast_to(make(dt, (5,), seed=5 + i), (6, 5)) for i, dt in enumerate(dtypes[1:])]
        yield "0-d operand", [base[0]] + [make(dt, (), seed=7 + i)
                                          for i, dt in enumerate(dtypes[1:])]
    yield "channels-last", [channels_last(make(dt, (2, 3, 4, 5), seed=i))
                            for i, dt in enumerate(dtypes)]
    yield "channels-last + contiguous", [channels_last(make(dtypes[0], (2, 3, 4, 5), seed=0))] + [
        make(dt, (2, 3, 4, 5), seed=1 + i) for i, dt in enumerate(dtypes[1:])]
    yield "0-size", [make(dt, (0, 5), seed=i) for i, dt in enumerate(dtypes)]
    yield "0-d", [make(dt, (), seed=i) for i, dt in enumerate(dtypes)]
    yield "size-1 dims", [make(dt, (1, 5, 1), seed=i) for i, dt in enumerate(dtypes)]
    yield "unaligned", [unaligned(x) if x.dtype.itemsize > 1 else x for x in base]
    yield "byte-swapped", [byteswapped(x) for x in base]
    yield "long 1-d (several blocks)", [make(dt, (2100,), seed=i) for i, dt in enumerate(dtypes)]


def gpu_available():
    """A CUDA GPU that CuPy can use (GPU tests skip without one)."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:            # ImportError, CUDARuntimeError: no driver / device
        return False


def gpu_free_bytes():
    import cupy
    return cupy.cuda.Device().mem_info[0]


# reductions whose repeated steps overflow unless the values are near 1
NEAR_ONE_OPS = ("multiply", "power", "float_power", "divide")


def small_values(char, shape, rng, bound=20, near_one=False):
    """Values every dtype holds exactly and sums without overflow: integers
    in [-bound, bound], floats ~N(0, 4) (or 1 + 0.01 N(0, 1) for products),
    complex with a small imaginary part."""
    dt = np.dtype(char)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -bound), min(info.max, bound) + 1, n)
    elif near_one:
        v = 1 + 0.01 * rng.standard_normal(n)
    else:
        v = rng.standard_normal(n) * 4
    if dt.kind == "c":
        v = v + 0.01j * rng.standard_normal(n)
    return np.asarray(v).astype(dt).reshape(shape)


_HOST_BACKEND = []


def host_backend():
    """Every op's CUDA kernels compiled once with g++ for the CPU (the host
    shim), shared by the test modules; a small "device" (2 SMs) so that
    reductions split over blocks at test sizes."""
    if not _HOST_BACKEND:
        from titer import _ops
        from titer.cuda import host
        _HOST_BACKEND.append(host.HostBackend(_ops.OPS, sm_count=2))
    return _HOST_BACKEND[0]


ORDER_FREE = ("maximum", "minimum", "fmax", "fmin")


def reorderable_ufunc(ufunc, char):
    """Whether NumPy reduces `ufunc` over several axes at once (its own test
    of an associative, commutative op)."""
    try:
        ufunc.reduce(np.ones((1, 1), char), axis=(0, 1))
        return True
    except ValueError:
        return False


def numpy_reduce(ufunc, x, axis=0, dtype=None, keepdims=False):
    """NumPy's answer for `ufunc.reduce(x, axis, dtype, keepdims)`.  An op
    that is not reorderable (subtract, power, arctan2, ...) is reduced by its
    definition: a left fold of NumPy's own elementwise ufunc along the axis.
    NumPy's reduce loop is not always that fold: on AVX-512 CPUs NumPy 2.4's
    power and arctan2 reductions along a contiguous axis give other numbers
    (its SIMD loops do not handle the reduction's aliased operands), so
    there NumPy's elementwise function, not its reduce, is the oracle."""
    x = np.asarray(x)
    char = np.dtype(dtype or x.dtype).char
    if (not isinstance(axis, (int, np.integer)) or reorderable_ufunc(ufunc, char)
            or x.shape[axis] == 0):
        return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)
    folded = np.moveaxis(x.astype(char, copy=False), axis, 0)
    acc = np.array(folded[0], copy=True)
    for k in range(1, folded.shape[0]):
        acc = ufunc(acc, folded[k], dtype=char)
    if keepdims:
        acc = np.expand_dims(acc, axis)
    return acc if acc.ndim else acc[()]


def assert_reduction(name, got, want, x, axis, ordered, approx):
    """A GPU-kernel reduction of x (already in the loop dtype) against
    NumPy's: exact for integers, bools, max/min and in-order folds; float
    sums and products within a few roundings of the float64 value (NumPy's
    pairwise order rounds differently); other reorderable float ops combine
    in another order than NumPy (a few roundings per combine); float16
    subtract/divide: NumPy itself folds in float or float16 by layout."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    inexact = want.dtype.kind in "fc"
    nred = x.size // max(want.size, 1)
    if inexact and name in ("add", "multiply"):
        eps = np.finfo(want.dtype).eps
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        exact = getattr(np, name).reduce(x.astype(wide), axis=axis)
        if name == "add":
            scale = 8 * np.add.reduce(np.abs(x).astype(np.float64), axis=axis)
        else:                                   # one rounding per factor (and part)
            scale = 4 * nred * np.abs(exact)
        err = np.abs(got.astype(wide) - exact)
        assert np.all(err <= eps * scale + 1e-300), (got, want)
        return
    if inexact and (not ordered and name not in ORDER_FREE
                    or ordered and want.dtype == np.float16):
        tol = 4 * nred * float(np.finfo(want.dtype).eps)
    elif inexact and ordered and approx:
        # libm vs NumPy's: each step of the fold may differ by both sides' ULP
        # bounds (NumPy's own SIMD power / arctan2 on AVX-512 CPUs, glibc's
        # elsewhere); complex power amplifies them by |b log a| at every step
        if want.dtype.kind == "c":
            tol = float(np.finfo(want.dtype).eps) * 256 * nred
        else:
            tol = float(np.finfo(want.dtype).eps) * 2 * ULP_BOUNDS[want.dtype.itemsize] * nred
    else:
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_allclose(got, want, rtol=tol, equal_nan=True,
                               atol=tol * float(np.abs(x).max()))


def assert_ulp(got, want, ulps):
    """Within `ulps` units in the last place, with the same NaN positions, the
    same infinities and the same signed zeros.  Complex values: each finite
    component within `ulps` of the modulus (the usual complex error measure;
    a component much smaller than the modulus carries the modulus' error)."""
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert_ulp(g, w, ulps)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    real = want.real.dtype
    scale = np.abs(want) if want.dtype.kind == "c" else None
    parts = (lambda z: (z.real, z.imag)) if want.dtype.kind == "c" else (lambda z: (z,))
    for g, w in zip(parts(got), parts(want)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        special = ~np.isfinite(w) & ~np.isnan(w) | (w == 0)
        np.testing.assert_array_equal(g[special], w[special])
        np.testing.assert_array_equal(np.signbit(g[special]), np.signbit(w[special]))
        finite = np.isfinite(w) & (w != 0)
        size = np.abs(w) if scale is None else np.where(np.isfinite(scale), scale, np.abs(w))
        unit = np.spacing(size[finite].astype(real)).astype(np.float64)
        err = np.abs(g[finite].astype(np.float64) - w[finite].astype(np.float64))
        assert np.all(err <= ulps * unit), np.max(err / unit)


def same_bits(want, got):
    """Shape, dtype and every byte equal (NaN payloads and signed zeros too)."""
    want, got = np.asarray(want), np.asarray(got)
    return want.shape == got.shape and want.dtype == got.dtype and np.array_equal(
        np.ascontiguousarray(want).reshape(-1).view(np.uint8),
        np.ascontiguousarray(got).reshape(-1).view(np.uint8))


def report_cases(check, seed, start, count):
    """The child's side of a seeded, crash-isolated differential run: each
    disagreeing case's verdict (check(seed, index) is None where titer
    agrees), then 'N cases, M differ'."""
    differ = 0
    for index in range(start, start + count):
        verdict = check(seed, index)
        if verdict is not None:
            differ += 1
            print("case %d %d: %s" % (seed, index, verdict), flush=True)
    print("%d cases, %d differ" % (count, differ))


def random_shape(rng, nd, sizes, limit=60000):
    """nd sizes drawn from `sizes`, cut down (one dim at a time, by 7) to at
    most `limit` elements."""
    shape = [int(rng.choice(sizes)) for _ in range(nd)]
    while np.prod(shape) > limit:
        i = int(rng.integers(nd))
        shape[i] = max(1, shape[i] // 7)
    return shape


def random_view(rng, base, shape):
    """A view of `shape` into base (twice its size per dim): each dim its
    first half, every other element, or every other one reversed."""
    return base[tuple(rng.choice([slice(None, n), slice(None, None, 2), slice(None, None, -2)])
                      for n in shape)]


def random_axis(rng, nd):
    """A reduction's axis: None, one (negative too) or a sorted tuple of up
    to two."""
    draw = rng.random()
    if draw < 0.35:
        return None
    if draw < 0.75:
        return int(rng.integers(-nd, nd))
    return tuple(sorted(set(int(a) for a in rng.integers(0, nd, 2))))

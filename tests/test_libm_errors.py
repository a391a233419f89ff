"""The log family's own error path (titer_scalar.h NOTE [libm error paths]):
on zeros, negatives, infinities and nans the CPU loops give glibc's bits and
NumPy's warnings without calling glibc's slow error path."""
import ctypes
import ctypes.util
import warnings

import numpy as np
import pytest

import titer

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
FUNCTIONS = ("log", "log2", "log10", "log1p")
UINT = {np.float32: np.uint32, np.float64: np.uint64}


def _libm(name, dtype):
    fn = getattr(LIBM, name + ("f" if dtype == np.float32 else ""))
    ctype = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    fn.restype, fn.argtypes = ctype, [ctype]
    return fn


def _specials(dtype, n=4096, seed=0):
    """Mostly special inputs, mixed with ordinary ones, in random order: the
    vector loops' blocks see both."""
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    fixed = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, -info.tiny,
                      -info.smallest_subnormal, info.smallest_subnormal, -info.max,
                      np.nextafter(-1.0, 0.0), np.nextafter(-1.0, -2.0), 1.0, 0.5], dtype)
    ordinary = rng.standard_normal(n).astype(dtype) * 10
    picks = rng.integers(0, 3, n)
    x = np.where(picks == 0, fixed[rng.integers(0, len(fixed), n)], ordinary).astype(dtype)
    x[:len(fixed)] = fixed
    # a nan with a payload: quieted with its payload kept
    x[len(fixed)] = np.array(UINT[dtype](0x7fc01234 if dtype == np.float32
                                         else 0x7ff8000000001234)).view(dtype)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f", "d"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_special_inputs_give_glibcs_bits(name, dtype):
    """Every special element is what glibc's function returns, bit for bit
    (nan signs and payloads included); the ordinary ones are within the
    fast paths' tested bounds of it (test_catalog.py), here checked only
    as finite where glibc's is."""
    x = _specials(dtype)
    with np.errstate(all="ignore"):
        got = titer.elementwise(name, None, x)
    fn = _libm(name, dtype)
    special = ~np.isfinite(x) | (x <= (-1 if name == "log1p" else 0))
    want = np.array([fn(float(v)) for v in x[special]], dtype)
    np.testing.assert_array_equal(got[special].view(UINT[dtype]), want.view(UINT[dtype]))
    assert np.isfinite(got[~special]).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=["e", "f", "d"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_special_inputs_warn_as_numpy(name, dtype):
    """Divide-by-zero at the pole, invalid below it, nothing for a nan or
    +inf: the same warnings as the ufunc, for each kind alone and mixed."""
    pole = -1.0 if name == "log1p" else 0.0
    cases = {"pole": [pole], "below": [pole - 1.0, -np.inf], "nan": [np.nan, np.inf],
             "mixed": [pole, pole - 2.0, np.nan, 3.0]}
    for label, values in cases.items():
        x = np.resize(np.array(values, dtype), 3000)
        outcomes = []
        for call in (lambda: getattr(np, name)(x), lambda: titer.elementwise(name, None, x)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with np.errstate(all="warn"):
                    result = call()
            outcomes.append((sorted({str(w.message).split(" encountered")[0] for w in caught}),
                             np.isnan(result), np.isneginf(result)))
        (theirs, nan_np, ninf_np), (ours, nan_ti, ninf_ti) = outcomes
        assert ours == theirs, (label, ours, theirs)
        np.testing.assert_array_equal(nan_ti, nan_np, err_msg=label)
        np.testing.assert_array_equal(ninf_ti, ninf_np, err_msg=label)

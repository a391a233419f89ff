"""Catalog ops on large contiguous arrays, side by side: titer, NumPy, and
(when installed) PyTorch and numexpr, all into a preallocated output where
the library allows it.  One benchmark group per (op, dtype)."""
import numpy as np
import pytest

import titer
from conftest import numexpr, torch

SIZE = 2**22
CASES = ["exp", "log", "sin", "sqrt", "power", "floor_divide", "where", "clip",
         "expm1", "arctan", "arctan2", "hypot", "fmod", "remainder", "log2"]
BINARY = ("power", "floor_divide", "arctan2", "hypot", "fmod", "remainder")
DTYPES = ["float32", "float64"]


def make_inputs(name, dtype):
    rng = np.random.default_rng(0)
    a = (0.25 + 2.0 * rng.random(SIZE)).astype(dtype)
    b = (0.25 + 2.0 * rng.random(SIZE)).astype(dtype)
    if name == "where":
        return [a > 1.0, a, b]
    if name == "clip":
        return [a, np.array(0.5, dtype=dtype), np.array(1.5, dtype=dtype)]
    return [a, b][:2 if name in BINARY else 1]


def numpy_fn(name, inputs, out):
    if name == "where":
        return lambda: np.where(*inputs)          # np.where has no out=
    if name == "clip":
        return lambda: np.clip(*inputs, out=out)
    ufunc = getattr(np, name)
    return lambda: ufunc(*inputs, out=out)


def torch_fn(name, inputs, out):
    t_in = [torch.from_numpy(x) for x in inputs]
    t_out = torch.from_numpy(out)
    if name == "where":
        return lambda: torch.where(*t_in, out=t_out)
    if name == "clip":
        return lambda: torch.clamp(t_in[0], t_in[1], t_in[2], out=t_out)
    fn = {"power": torch.pow, "floor_divide": torch.floor_divide}.get(name) or getattr(torch, name)
    return lambda: fn(*t_in, out=t_out)


NUMEXPR = {"exp": "exp(a)", "log": "log(a)", "sin": "sin(a)", "sqrt": "sqrt(a)",
           "power": "a ** b", "where": "where(a, b, c)", "expm1": "expm1(a)",
           "arctan": "arctan(a)", "arctan2": "arctan2(a, b)",
           "clip": "where(a < b, b, where(a > c, c, a))"}


def numexpr_fn(name, inputs, out):
    if name not in NUMEXPR:
        pytest.skip("numexpr has no %s" % name)
    names = dict(zip("abc", inputs))
    return lambda: numexpr.evaluate(NUMEXPR[name], local_dict=names, out=out)


@pytest.mark.parametrize("impl", ["titer", "numpy", "torch", "numexpr"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", CASES)
def test_catalog(benchmark, name, dtype, impl):
    inputs = make_inputs(name, dtype)
    out = np.empty(SIZE, dtype=dtype)
    benchmark.group = "%s %s 2^22" % (name, dtype)
    if impl == "titer":
        call = lambda: titer.elementwise(name, out, *inputs)  # noqa: E731
    elif impl == "numpy":
        call = numpy_fn(name, inputs, out)
    elif impl == "torch":
        if torch is None:
            pytest.skip("torch not installed")
        call = torch_fn(name, inputs, out)
    else:
        if numexpr is None:
            pytest.skip("numexpr not installed")
        call = numexpr_fn(name, inputs, out)
    benchmark(call)

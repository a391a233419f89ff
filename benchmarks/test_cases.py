"""titer, NumPy, PyTorch and numexpr side by side on the cases of ``python -m titer``.

One benchmark group per case; inside it one benchmark per library.  Each
library writes into its own output, and its result is checked against
``numpy.add`` after timing.
"""
import numpy as np
import pytest

import titer
from titer._demo import CASES

try:
    import torch
except ImportError:
    torch = None
try:
    import numexpr
except ImportError:
    numexpr = None

CASES_BY_ID = {case.id: case for case in CASES}


def titer_add(a, b, out):
    return lambda: titer.elementwise("add", out, a, b)


def numpy_add(a, b, out):
    return lambda: np.add(a, b, out=out)


def torch_add(a, b, out):
    # from_numpy shares memory, so torch sees the same strides as the others.
    a, b = torch.from_numpy(a), torch.from_numpy(b)
    if out is None:
        return lambda: torch.add(a, b)
    out = torch.from_numpy(out)
    return lambda: torch.add(a, b, out=out)


def numexpr_add(a, b, out):
    # every case is an add, so numexpr always has an expression for it
    return lambda: numexpr.evaluate("a + b", local_dict={"a": a, "b": b}, out=out)


IMPLS = {"titer": titer_add, "numpy": numpy_add, "torch": torch_add, "numexpr": numexpr_add}
NOT_INSTALLED = {name for name, module in [("torch", torch), ("numexpr", numexpr)]
                 if module is None}


@pytest.fixture(scope="module", params=list(CASES_BY_ID))
def prepared_case(request):
    """The case's arrays, built once and shared by all libraries (pytest runs
    the tests grouped by this module-scoped parameter, so one case's arrays
    are alive at a time)."""
    case = CASES_BY_ID[request.param]
    inputs, out = case.make(np.random.default_rng(0), False)
    yield case, inputs, out, np.add(*inputs)


@pytest.mark.parametrize("impl", list(IMPLS))
def test_add(benchmark, prepared_case, impl):
    case, (a, b), out, expected = prepared_case
    if impl in NOT_INSTALLED:
        pytest.skip(f"{impl} is not installed")
    benchmark.group = case.title
    own_out = None if out is None else np.empty_like(out)
    result = benchmark(IMPLS[impl](a, b, own_out))
    assert np.array_equal(np.asarray(result), expected), f"{impl} result differs from numpy.add"

"""Every op of titer's op table that has an all-float32 loop, on 2^22
contiguous float32 inputs, titer vs NumPy.  One benchmark group per op."""
import numpy as np
import pytest

import titer
from titer._ops import OPS

SIZE = 2**22

# Inputs are drawn uniformly from (low, high): by default a range inside every
# op's domain (arccos, arctanh, log, sqrt are finite there, divide never meets
# zero), so the loops time ordinary numbers rather than NaN paths.
DEFAULT_DOMAIN = (0.25, 0.75)
DOMAIN = {"arccosh": (1.25, 3.0)}


def float32_result_chars(op):
    """The result type characters of the op's all-float32 loop, or None."""
    for signature in op.types:
        inputs, outputs = signature.split("->")
        if inputs == "f" * op.nin:
            return outputs
    return None


OPS_BY_NAME = {op.name: op for op in OPS if float32_result_chars(op)}


def make_inputs(op):
    low, high = DOMAIN.get(op.name, DEFAULT_DOMAIN)
    rng = np.random.default_rng(0)
    return [(low + (high - low) * rng.random(SIZE, dtype=np.float32))
            for _ in range(op.nin)]


def same_values(op, result, expected):
    """Exact equality, except for ops whose libm results are only ULP-close."""
    if op.nout == 1:
        result, expected = (result,), (expected,)
    if getattr(op, "approx", False):
        return all(np.allclose(r, e, rtol=1e-5, atol=0, equal_nan=True)
                   for r, e in zip(result, expected))
    return all(np.array_equal(r, e, equal_nan=True) for r, e in zip(result, expected))


# ~70 ops x 2 libraries: a short time budget per benchmark keeps the suite
# within a few minutes; every op still gets at least 5 rounds.
@pytest.mark.benchmark(max_time=0.2, min_rounds=5)
@pytest.mark.parametrize("impl", ["titer", "numpy"])
@pytest.mark.parametrize("op_name", list(OPS_BY_NAME))
def test_op(benchmark, op_name, impl):
    op = OPS_BY_NAME[op_name]
    inputs = make_inputs(op)
    outs = tuple(np.empty(SIZE, dtype=char) for char in float32_result_chars(op))
    out = outs[0] if op.nout == 1 else outs
    ufunc = getattr(np, op.name)
    if impl == "titer":
        def call():
            return titer.elementwise(op.name, out, *inputs)
    else:
        def call():
            return ufunc(*inputs, out=out)
    benchmark.group = f"{op.name} f32 2^22"
    result = benchmark(call)
    assert same_values(op, result, ufunc(*inputs)), f"{impl} {op.name} differs from numpy"

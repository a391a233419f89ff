"""Every op of titer's op table on 2^22 contiguous float32, titer vs NumPy."""
import numpy as np
import pytest

import titer
from titer._ops import OPS

SIZE = 2**22


def float32_result_char(op):
    """The result type of the op's all-float32 loop, or None if it has none."""
    for signature in op.types:
        inputs, outputs = signature.split("->")
        if inputs == "f" * op.nin:
            return outputs
    return None


OPS_BY_NAME = {op.name: op for op in OPS if float32_result_char(op)}


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(0)
    # a takes both signs so absolute/negative/comparisons do real work;
    # b stays in [0.5, 1.5) so divide gives finite, well-scaled results.
    a = (rng.random(SIZE, dtype=np.float32) * 2 - 1)
    b = rng.random(SIZE, dtype=np.float32) + np.float32(0.5)
    return a, b


@pytest.mark.parametrize("impl", ["titer", "numpy"])
@pytest.mark.parametrize("op_name", list(OPS_BY_NAME))
def test_op(benchmark, operands, op_name, impl):
    op = OPS_BY_NAME[op_name]
    inputs = operands[:op.nin]
    out = np.empty(SIZE, dtype=float32_result_char(op))
    ufunc = getattr(np, op.name)
    if impl == "titer":
        def call():
            return titer.elementwise(op.name, out, *inputs)
    else:
        def call():
            return ufunc(*inputs, out=out)
    benchmark.group = f"{op.name} f32 2^22"
    result = benchmark(call)
    assert np.array_equal(result, ufunc(*inputs)), f"{impl} {op.name} differs from numpy"

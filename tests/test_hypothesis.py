"""Property tests: any mutually broadcastable shapes, dtypes, views and
Python scalars give NumPy's result."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import titer
from titer import _ops
from oracle import DTYPES
from test_elementwise import assert_like_numpy

BINARY = [op.name for op in _ops.OPS if op.nin == 2]
UNARY = [op.name for op in _ops.OPS if op.nin == 1]


def elements_for(dtype):
    if dtype.kind == "f" and dtype.itemsize == 2:
        return st.floats(width=16, allow_nan=True, allow_infinity=True)
    return None


@st.composite
def operand(draw, shape):
    """An array of `shape`, maybe a transposed, reversed or strided view."""
    dtype = draw(st.sampled_from(DTYPES))
    view = draw(st.sampled_from(["plain", "transposed", "reversed", "strided"]))
    if view == "strided" and shape:
        big = tuple(s * 2 for s in shape)
        arr = draw(hnp.arrays(dtype, big, elements=elements_for(dtype)))
        return arr[tuple(slice(None, None, 2) for _ in shape)]
    if view == "transposed" and len(shape) > 1:
        arr = draw(hnp.arrays(dtype, shape[::-1], elements=elements_for(dtype)))
        return arr.T
    arr = draw(hnp.arrays(dtype, shape, elements=elements_for(dtype)))
    return arr[tuple(slice(None, None, -1) for _ in shape)] if view == "reversed" else arr


python_scalars = st.one_of(st.integers(-(2 ** 70), 2 ** 70), st.floats(), st.complex_numbers(),
                           st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(BINARY),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=5))
def test_binary_ops_match_numpy(data, name, shapes):
    a = data.draw(operand(shapes.input_shapes[0]))
    if data.draw(st.booleans()):
        b = data.draw(operand(shapes.input_shapes[1]))
    else:
        b = data.draw(python_scalars)
    inputs = (a, b) if data.draw(st.booleans()) else (b, a)
    assert_like_numpy(name, inputs, "%s %r" % (name, [getattr(x, "dtype", x) for x in inputs]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(UNARY),
       shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6))
def test_unary_ops_match_numpy(data, name, shape):
    a = data.draw(operand(shape))
    assert_like_numpy(name, (a,), "%s %s" % (name, a.dtype))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3,
                                                                 max_side=4))
def test_out_of_the_broadcast_shape(data, shapes):
    a = data.draw(operand(shapes.input_shapes[0]))
    b = data.draw(operand(shapes.input_shapes[1]))
    out_dtype = data.draw(st.sampled_from(DTYPES))
    out = np.zeros(shapes.result_shape, dtype=out_dtype)
    assert_like_numpy("add", (a, b), "add into %s" % out_dtype, out=out, casting="unsafe")

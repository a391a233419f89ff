"""Cache-blocked iteration: operands that disagree on the fastest dim are
walked in tiles through transposed buffers; results equal NumPy's for every
dtype width, ragged tile edges, transposed outputs, extra outer dims and any
thread count."""
import numpy as np
import pytest

import titer
from oracle import DTYPES, assert_same, value_grid


def plan_of(*operands, out=None):
    cfg = titer.IterConfig().add_output(out).check_all_same_dtype(False)
    for x in operands:
        cfg.add_input(x)
    return cfg.build()


def test_transposed_operand_is_tiled():
    a = np.ones((300, 400), np.float32)
    b = np.ones((400, 300), np.float32)
    assert plan_of(a.T, b).loop_variant().startswith("cache-blocked")
    assert not plan_of(a, a).loop_variant().startswith("cache-blocked")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_width(dtype):
    a = value_grid(dtype, (333, 259), seed=1)
    b = value_grid(dtype, (259, 333), seed=2)
    name = "subtract" if dtype != np.bool_ else "add"
    with np.errstate(all="ignore"):
        assert_same(titer.elementwise(name, None, a.T, b), getattr(np, name)(a.T, b), str(dtype))
        out = np.empty((259, 333), dtype)
        titer.elementwise(name, out, a.T, b)
        assert_same(out, getattr(np, name)(a.T, b), str(dtype) + " into C out")
        out_t = np.empty((333, 259), dtype).T          # transposed output
        titer.elementwise(name, out_t, b, b)
        assert_same(out_t, getattr(np, name)(b, b), str(dtype) + " into transposed out")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_channels_last_with_nchw_and_threads(threads, teams):
    x = value_grid(np.float32, (4, 16, 30, 30), seed=3)
    cl = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    y = value_grid(np.float32, (4, 16, 30, 30), seed=4)
    with titer.num_threads(threads), np.errstate(over="ignore"):
        got = titer.elementwise("multiply", None, cl, y)
        got_out = np.empty_like(y)
        titer.elementwise("multiply", got_out, cl, y)
    with np.errstate(over="ignore"):
        expected = cl * y
    assert_same(got, expected)
    assert_same(got_out, expected)
    assert got.strides == cl.strides      # the seed's rule: left operand's layout


def test_strided_views_in_tiles():
    a = value_grid(np.float64, (700, 600), seed=5)[::2, 1::2]
    b = value_grid(np.float64, (600, 700), seed=6)[::2, ::2]
    assert_same(titer.elementwise("add", None, a.T, b), a.T + b)

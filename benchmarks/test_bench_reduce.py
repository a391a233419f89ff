"""Reductions, scans and copies: titer vs NumPy vs PyTorch (2 threads).

One group per case; ``impl`` = titer, numpy, torch.  Cases of issue 4: sum of
2^24 float32, axis 0 and axis 1 of 4096x4096 float32, max over an axis,
cumsum along each axis (float32, and int8 summed in int64), int8 -> float32
copy, float32 transposed -> contiguous, channels-last ascontiguous; 4 MiB
sums and max that stay in the last-level cache (the reduction loops' own
speed); a count (the int64 sum of a bool mask, read as bools); and sums of a
few thousand elements, where the per-call set-up is what is measured."""
import numpy as np
import pytest

import titer
from conftest import torch

N = 4096


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return {
        "flat": rng.random(1 << 24, dtype=np.float32),
        "square": rng.random((N, N), dtype=np.float32),
        # 4 MiB each: resident in the last-level cache, where the loops and
        # not the memory bus set the pace
        "flat_l3": rng.random(1 << 20, dtype=np.float32),
        "flat_l3_f64": rng.random(1 << 19),
        "square_l3": rng.random((1024, 1024), dtype=np.float32),
        # small enough that the per-call set-up, not the loop, is the cost
        "small_f64": rng.random(1000),
        "square_small": rng.random((64, 64), dtype=np.float32),
        "int8": rng.integers(-128, 127, (N, N), dtype=np.int8),
        "mask": rng.random(1 << 24) < 0.5,
        "nchw": rng.random((32, 64, 56, 56), dtype=np.float32),
    }


def _torch(x):
    return torch.from_numpy(x)


# name -> (titer call, numpy call, torch call or None); each takes the data dict
# and returns a prepared zero-argument callable (outputs preallocated where the
# API allows, so every impl does the same work).
def _sum_all(key):
    def case(d, impl):
        x = d[key]
        if impl == "titer":
            return lambda: titer.sum(x)
        if impl == "numpy":
            return lambda: np.sum(x)
        t = _torch(x)
        return lambda: torch.sum(t)
    return case


def _axis_reduction(titer_fn, numpy_fn, torch_name, axis, key="square"):
    """One reduction along `axis` of a square, into a preallocated out."""
    def case(d, impl):
        x = d[key]
        out = np.empty(x.shape[1 - axis], np.float32)
        if impl == "titer":
            return lambda: titer_fn(x, axis=axis, out=out)
        if impl == "numpy":
            return lambda: numpy_fn(x, axis=axis, out=out)
        t, o, fn = _torch(x), _torch(out), getattr(torch, torch_name)
        return lambda: fn(t, dim=axis, out=o)
    return case


def _cumsum(axis, key="square", out_dtype=np.float32):
    def case(d, impl):
        x = d[key]
        out = np.empty((N, N), out_dtype)
        if impl == "titer":
            return lambda: titer.accumulate("add", x, axis=axis, out=out)
        if impl == "numpy":
            return lambda: np.cumsum(x, axis=axis, out=out)
        t, o = _torch(x), _torch(out)
        return lambda: torch.cumsum(t, dim=axis, out=o)
    return case


def case_copy_int8_float32(d, impl):
    x = d["int8"]
    out = np.empty((N, N), np.float32)
    if impl == "titer":
        return lambda: titer.copy(out, x)
    if impl == "numpy":
        return lambda: (np.copyto(out, x), out)[1]
    t, o = _torch(x), _torch(out)
    return lambda: o.copy_(t)


def case_transposed_to_contiguous(d, impl):
    x = d["square"].T
    out = np.empty((N, N), np.float32)
    if impl == "titer":
        return lambda: titer.copy(out, x)
    if impl == "numpy":
        return lambda: (np.copyto(out, x), out)[1]
    t, o = _torch(x), _torch(out)
    return lambda: o.copy_(t)


def case_channels_last(d, impl):
    x = d["nchw"]
    if impl == "titer":
        return lambda: titer.ascontiguous(x, "channels_last")
    if impl == "numpy":
        return lambda: np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    t = _torch(x)
    return lambda: t.contiguous(memory_format=torch.channels_last)


CASES = {
    "sum f32 2^24": _sum_all("flat"),
    "sum f32 2^20 (in cache)": _sum_all("flat_l3"),
    "sum f64 2^19 (in cache)": _sum_all("flat_l3_f64"),
    "max axis1 f32 1024^2 (in cache)": _axis_reduction(titer.max, np.max, "amax", 1, "square_l3"),
    "sum bool 2^24 (count, into int64)": _sum_all("mask"),
    "sum f64 1000 (per call)": _sum_all("small_f64"),
    "sum axis1 f32 64^2 (per call)": _axis_reduction(titer.sum, np.sum, "sum", 1, "square_small"),
    "sum axis0 f32 4096^2": _axis_reduction(titer.sum, np.sum, "sum", 0),
    "sum axis1 f32 4096^2": _axis_reduction(titer.sum, np.sum, "sum", 1),
    "max axis0 f32 4096^2": _axis_reduction(titer.max, np.max, "amax", 0),
    "max axis1 f32 4096^2": _axis_reduction(titer.max, np.max, "amax", 1),
    "cumsum axis0 f32 4096^2": _cumsum(0),
    "cumsum axis1 f32 4096^2": _cumsum(1),
    # NumPy's default for narrow integers: the sum is int64, the input read as int8
    "cumsum axis0 int8->int64 4096^2": _cumsum(0, "int8", np.int64),
    "cumsum axis1 int8->int64 4096^2": _cumsum(1, "int8", np.int64),
    "copy int8->f32 4096^2": case_copy_int8_float32,
    "copy f32 T->C 4096^2": case_transposed_to_contiguous,
    "ascontiguous channels_last (32,64,56,56)": case_channels_last,
}


@pytest.mark.parametrize("impl", ["titer", "numpy", "torch"])
@pytest.mark.parametrize("case", list(CASES))
def test_reduce_copy(benchmark, data, case, impl):
    if impl == "torch" and torch is None:
        pytest.skip("torch not installed")
    call = CASES[case](data, impl)
    benchmark.group = case
    result = benchmark(call)
    if impl == "titer":
        reference = CASES[case](data, "numpy")()
        got = np.asarray(result)
        if case.startswith("sum") or case.startswith("cumsum"):
            np.testing.assert_allclose(got, reference, rtol=1e-3)
        else:
            np.testing.assert_array_equal(got, reference)

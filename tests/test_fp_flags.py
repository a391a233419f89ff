"""Floating-point flags left set before a titer call -- in the SSE status
register or in the x87 status word, where glibc's feraiseexcept puts
overflow and underflow -- are not reported by it, as a NumPy ufunc clears
them before its loop; the flags the call's own loops raise are
(titer_clear_fp_flags in titer_fpflags.h: feclearexcept's work done only
where a status word holds a flag)."""
import ctypes
import ctypes.util
import platform
import warnings

import numpy as np
import pytest

import titer

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                                reason="the FE_* values below are x86's")

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
FLAGS = {"invalid": 0x01, "divide": 0x04, "overflow": 0x08, "underflow": 0x10}


def _call(kind, n):
    """A titer call of this kind on n ordinary elements"""
    a = np.linspace(1.0, 2.0, n)
    b = a[::-1].copy()
    out = np.empty(n)
    return {
        "elementwise": lambda: titer.elementwise("add", out, a, b),
        "math": lambda: titer.elementwise("log", out, a),
        "reduce": lambda: titer.sum(a),
        "copy": lambda: titer.copy(out, a.astype(np.float32)),
        "evaluate": lambda: titer.evaluate("a * b + 1", {"a": a, "b": b}),
        "evaluate sum": lambda: titer.evaluate("sum(a * b)", {"a": a, "b": b}),
    }[kind]


@pytest.mark.parametrize("kind", ["elementwise", "math", "reduce", "copy", "evaluate",
                                  "evaluate sum"])
@pytest.mark.parametrize("flag", sorted(FLAGS))
@pytest.mark.parametrize("n", [7, 1 << 17])             # serial, threaded
def test_flags_set_before_a_call_are_not_its_own(kind, flag, n):
    call = _call(kind, n)
    assert LIBM.feraiseexcept(FLAGS[flag]) == 0
    with np.errstate(all="warn"), warnings.catch_warnings():
        warnings.simplefilter("error")
        call()


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_a_calls_own_flag_still_warns_after_a_stale_one(flag):
    big = np.full(5, 1e308)
    assert LIBM.feraiseexcept(FLAGS[flag]) == 0
    with np.errstate(all="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        titer.elementwise("multiply", None, big, big)
    assert [str(w.message) for w in caught] == ["overflow encountered in multiply"]

"""Repeated calls drawn at random from a small pool of layouts, dtypes and
keywords, so that the kept resolutions and plans (_RESOLVED, the ops' plan
caches, the copy cache and its verdicts) are hit, missed and replaced in
every order: each call is NumPy's (values bit for bit, dtype, result type,
out= after it, the exception class).  Seeded; each sequence runs in a
child process, so a crash fails its test and names the seed (a failure
names its call: `python tests/test_plan_reuse.py SEED` replays it)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import titer
from oracle import assert_same

SHAPE = (6, 5)


def layouts(rng, dtype):
    """The same values of `dtype` as C, transposed, strided, reversed and
    broadcast arrays (fresh buffers every call: the data pointers change)."""
    base = (rng.integers(-4, 9, SHAPE) + rng.integers(0, 2, SHAPE) * 0.5).astype(dtype)
    wide = np.zeros((SHAPE[0], SHAPE[1] * 2), dtype)
    wide[:, ::2] = base
    return {"C": base, "F": np.asfortranarray(base), "strided": wide[:, ::2],
            "reversed": base[::-1].copy()[::-1], "row": base[:1].copy()}


def run(call):
    """(result, out= after the call, exception class or None) of one side."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                result, out = call()
            except Exception as exc:        # noqa: BLE001 (the class is compared)
                return None, None, type(exc)
    return result, out, None


def random_call(rng):
    """(description, titer's call, NumPy's call, op name, whether masked):
    each call makes its own operands and out= (alike) and returns (result,
    out=)."""
    kind = rng.choice(["binary", "unary", "divmod", "copy"])
    dtypes = ["float64", "float32", "int16", "int64", "complex64", "bool"]
    a_dtype, b_dtype = rng.choice(dtypes), rng.choice(dtypes)
    a_layout, b_layout = rng.choice(list("CF") + ["strided", "reversed", "row"], 2)
    out_dtype = rng.choice([None, None, "float64", "float32", "int64", "complex128", "bool"])
    casting = rng.choice(["same_kind", "same_kind", "unsafe", "safe", "no"])
    masked = rng.random() < 0.25
    # (70000: past int16, an OverflowError, or a comparison's constant)
    scalar = rng.choice([None, None, None, 2, -3.5, 300, np.float32(1.5), 70000, True, 0.5j])
    name = {"binary": rng.choice(["add", "multiply", "less", "maximum", "true_divide"]),
            "unary": rng.choice(["negative", "sqrt", "absolute", "square"]),
            "divmod": "divmod", "copy": "copy"}[kind]
    seed = int(rng.integers(1 << 30))

    def make():
        r = np.random.default_rng(seed)
        a = layouts(r, a_dtype)[a_layout]
        b = layouts(r, b_dtype)[b_layout] if scalar is None else scalar
        out = None if out_dtype is None else np.full(SHAPE, 7, out_dtype)
        mask = (np.arange(30).reshape(SHAPE) % 3 == 0) if masked else True
        return a, b, out, mask

    def titer_call():
        a, b, out, mask = make()
        if kind == "copy":
            dst = out if out is not None else np.zeros(SHAPE)
            return titer.copy(dst, b if scalar is not None else a, casting=casting), dst
        inputs = (a,) if kind == "unary" else (a, b)
        outs = (out, None) if kind == "divmod" and out is not None else out
        return titer.elementwise(name, outs, *inputs, casting=casting, where=mask), out

    def numpy_call():
        a, b, out, mask = make()
        if kind == "copy":
            dst = out if out is not None else np.zeros(SHAPE)
            np.copyto(dst, b if scalar is not None else a, casting=casting)
            return dst, dst
        inputs = (a,) if kind == "unary" else (a, b)
        # (titer's out=None is NumPy's out= not given: NumPy refuses an
        # explicit out=None for a two-output ufunc)
        given = {} if out is None else {"out": (out, None) if kind == "divmod" else out}
        return getattr(np, name)(*inputs, casting=casting, where=mask, **given), out

    text = "%s(%s %s, %s %s, scalar=%r) out=%s casting=%s masked=%s" % (
        name, a_dtype, a_layout, b_dtype, b_layout, scalar, out_dtype, casting, masked)
    return text, titer_call, numpy_call, name, masked


def sequence(seed):
    """One seed's 240 calls over a pool of 24, each checked."""
    rng = np.random.default_rng(900 + seed)
    pool = [random_call(rng) for _ in range(24)]
    for k in rng.integers(0, len(pool), 240):
        text, titer_call, numpy_call, name, masked = pool[k]
        zero_sign = name != "maximum"   # NumPy's max of +0 and -0: its SIMD path's
        got, got_out, got_exc = run(titer_call)
        want, want_out, want_exc = run(numpy_call)
        assert got_exc == want_exc or (want_exc and got_exc and issubclass(got_exc, TypeError)
                                       and issubclass(want_exc, TypeError)), text
        if want_exc:
            continue
        if want_out is not None:
            assert_same(got_out, want_out, text, zero_sign=zero_sign)
        elif masked:
            continue                    # unselected elements of an allocated result: undefined
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert_same(g, w, text, zero_sign=zero_sign)


def test_python_scalars_change_between_cached_calls():
    """A repeated call with a Python scalar reuses its plan, the scalar
    converted into the plan cache's buffer each call: each value is this
    call's, an int past the array's range still raises (or makes a
    comparison constant, which builds), and a Python bool and a bool array
    in the same place (one key code) do not take each other's plan."""
    x = np.arange(12.0).reshape(3, 4)[:, ::-1]
    out = np.empty((3, 4))
    for value in (1.5, -2.0, 7, True, 1e308, 0.25):
        for got, want in ((titer.elementwise("multiply", out, x, value), np.multiply(x, value)),
                          (titer.elementwise("multiply", None, value, x), np.multiply(value, x))):
            assert_same(got, want, repr(value))
    small = np.arange(-6, 6, dtype=np.int16)
    for value in (5, -3, 300, 70000, 5, -70000, 2):
        for name in ("add", "less", "equal"):
            got = run(lambda: (titer.elementwise(name, None, small, value), None))
            want = run(lambda: (getattr(np, name)(small, value), None))
            assert got[2] is want[2], (name, value, got[2], want[2])
            if want[2] is None:
                assert_same(got[0], want[0], "%s %r" % (name, value))
    flags = np.array([True, False, True, False])
    other = np.array([True, True, False, False])
    for second in (True, other, False, other, True):
        assert_same(titer.elementwise("logical_and", None, flags, second),
                    np.logical_and(flags, second), repr(second))


@pytest.mark.parametrize("seed", range(6))
def test_random_repeated_calls_are_numpys(seed):
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(seed)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, "seed %d: exit %d (negative: the signal that killed it)\n%s" % (
        seed, proc.returncode, proc.stderr[-3000:])


if __name__ == "__main__":
    sequence(int(sys.argv[1]))

"""Bad input: the exception NumPy raises for the same call (or a clear one
where NumPy has no equivalent), and `out` left untouched."""
import numpy as np
import pytest

import titer


def check(exc_type, out, *args, numpy_name=None, **kwargs):
    """titer raises exc_type and leaves out as it was; NumPy raises it too."""
    name, inputs = args[0], args[1:]
    before = None if out is None else out.copy()
    with pytest.raises(exc_type):
        titer.elementwise(name, out, *inputs, **kwargs)
    if out is not None:
        np.testing.assert_array_equal(out, before)
    if numpy_name is not False:
        with pytest.raises(exc_type):
            getattr(np, numpy_name or name)(*inputs, out=out, **kwargs)


def test_unknown_operation():
    with pytest.raises(ValueError, match="no operation 'frobnicate'"):
        titer.elementwise("frobnicate", None, np.ones(2))


def test_wrong_number_of_inputs():
    with pytest.raises(TypeError):
        titer.elementwise("add", None, np.ones(2))
    with pytest.raises(TypeError):
        titer.elementwise("negative", None, np.ones(2), np.ones(2))


def test_not_broadcastable():
    out = np.zeros((2, 3))
    check(ValueError, None, "add", np.ones((2, 3)), np.ones(4))
    check(ValueError, out, "add", np.ones((2, 3)), np.ones((3, 3)))


def test_out_of_the_wrong_shape():
    check(ValueError, np.zeros((1, 3)), "add", np.ones((2, 3)), np.ones(3))
    check(ValueError, np.zeros(3), "multiply", np.ones((2, 3)), 2.0)


def test_read_only_out():
    out = np.zeros(3)
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        titer.elementwise("add", out, np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        np.add(np.ones(3), np.ones(3), out=out)


def test_out_with_internal_overlap():
    """A writable stride-0 out would be written many times per element."""
    base = np.zeros(4)
    out = np.lib.stride_tricks.as_strided(base, shape=(3, 4), strides=(0, 8))
    with pytest.raises(ValueError, match="internal overlap"):
        titer.elementwise("add", out, np.ones((3, 4)), np.arange(12.0).reshape(3, 4))
    assert not base.any()


def test_output_casting_error():
    check(TypeError, np.zeros(3, dtype=np.int32), "add", np.ones(3), np.ones(3))
    check(TypeError, np.zeros(3, dtype=np.float32), "add", np.ones(3), np.ones(3),
          casting="safe")
    check(TypeError, np.zeros(3), "add", np.ones(3, np.complex64), 1.0)


def test_input_casting_error_with_dtype():
    check(TypeError, None, "add", np.ones(3), np.ones(3), dtype=np.int32)


def test_bool_subtract_and_negative():
    check(TypeError, None, "subtract", np.ones(3, bool), np.ones(3, bool))
    check(TypeError, None, "negative", np.ones(3, bool))


@pytest.mark.parametrize("bad", [np.array(["a", "b"]), np.array([1, 2], dtype=object),
                                 np.array(["2020-01-01"], dtype="datetime64[D]"),
                                 np.ones(2, dtype=np.longdouble),
                                 np.ones(2, dtype=np.clongdouble)],
                         ids=["str", "object", "datetime", "longdouble", "clongdouble"])
def test_unsupported_dtypes_name_the_dtype(bad):
    out = np.zeros(2)
    with pytest.raises(TypeError, match="dtype"):
        titer.elementwise("add", out, bad, bad)
    assert not out.any()


def test_python_int_out_of_range():
    check(OverflowError, None, "add", np.arange(3, dtype=np.uint8), 300)
    check(OverflowError, None, "add", np.arange(3, dtype=np.uint8), -1)
    check(OverflowError, None, "multiply", np.arange(3, dtype=np.int64), 2 ** 64)


def test_bad_out_argument():
    with pytest.raises(TypeError):
        titer.elementwise("add", [0.0, 0.0], np.ones(2), np.ones(2))
    with pytest.raises(ValueError):
        titer.elementwise("add", (np.zeros(2), np.zeros(2)), np.ones(2), np.ones(2))


def test_nothing_written_when_a_late_check_fails():
    """Shape and dtype errors come from build(), before any loop runs."""
    out = np.full((2, 3), 7.0)
    for bad_call in (lambda: titer.elementwise("add", out, np.ones((2, 3)), np.ones(5)),
                     lambda: titer.elementwise("add", out, np.ones((2, 3)), np.ones((2, 3)),
                                               dtype=np.int8)):
        with pytest.raises((ValueError, TypeError)):
            bad_call()
        assert (out == 7.0).all()


def test_bad_thread_and_grain_settings():
    with pytest.raises(ValueError):
        titer.set_num_threads(0)
    with pytest.raises(ValueError):
        titer.set_grain_size(0)


def test_integer_division_never_crashes():
    """divide on integers runs in float64 (NumPy's 'dd->d'): 0/0 is nan,
    INT_MIN/-1 is exact, nothing traps."""
    info = np.iinfo(np.int64)
    a = np.array([0, 1, -1, info.min, info.max], dtype=np.int64)
    b = np.array([0, 0, 0, -1, -1], dtype=np.int64)
    with np.errstate(all="ignore"):
        expected = np.divide(a, b)
        actual = titer.elementwise("divide", None, a, b)
    np.testing.assert_array_equal(actual, expected)


class TestFloatingPointErrors:
    """np.errstate / np.seterr govern titer's loops like NumPy's."""

    a = np.array([1.0, 0.0, -1.0])
    b = np.array([0.0, 0.0, 0.0])

    def test_warns_by_default(self):
        with np.errstate(divide="warn", invalid="ignore"):
            with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
                titer.elementwise("divide", None, self.a, self.b)

    def test_raise(self):
        out = np.zeros(3)
        with np.errstate(divide="raise", invalid="ignore"):
            with pytest.raises(FloatingPointError, match="divide by zero"):
                titer.elementwise("divide", out, self.a, self.b)
            with pytest.raises(FloatingPointError):
                np.divide(self.a, self.b)

    def test_ignore(self, recwarn):
        with np.errstate(all="ignore"):
            titer.elementwise("divide", None, self.a, self.b)
        assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]

    def test_call(self):
        calls = []
        with np.errstate(all="call", call=lambda kind, flag: calls.append((kind, flag))):
            titer.elementwise("divide", None, self.a, self.b)
            ours = list(calls)
            calls.clear()
            np.divide(self.a, self.b)
        assert ours == calls and ours

    def test_overflow_in_float16_rounding(self):
        big = np.array([60000.0, 1.0], dtype=np.float16)
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError, match="overflow"):
                titer.elementwise("add", None, big, big)

    def test_flags_gathered_from_every_thread(self):
        a = np.ones(200_000)
        b = np.ones(200_000)
        b[-1] = 0.0                     # only the last chunk divides by zero
        with titer.num_threads(2), np.errstate(divide="raise"):
            with pytest.raises(FloatingPointError):
                titer.elementwise("divide", None, a, b)


# -- issue 22: no crash, NumPy's exception classes, nothing written ----------

def guarded(shape, dtype, fill=7):
    """A view into a larger buffer (guard bytes before, gaps between rows,
    guard bytes after) and the buffer, to see that nothing around it moved."""
    dtype = np.dtype(dtype)
    raw = np.full(2 * int(np.prod(shape)) * dtype.itemsize + 64, 0xA5, np.uint8)
    view = np.ndarray((shape[0] * 2,) + tuple(shape[1:]), dtype, buffer=raw, offset=32)[::2]
    view[...] = fill
    return view, raw


@pytest.mark.parametrize("threads", [1, 2])
def test_negative_integer_power_leaves_out_and_its_neighbours(threads):
    out, raw = guarded((64, 3), np.int64)
    before = raw.copy()
    base = np.arange(64 * 3, dtype=np.int64).reshape(64, 3)
    exponent = np.full((64, 3), 2, np.int64)
    exponent[50, 1] = -1
    with titer.num_threads(threads), pytest.raises(ValueError, match="negative integer powers"):
        titer.elementwise("power", out, base, exponent)
    assert (raw == before).all()
    acc_out, acc_raw = guarded((64, 3), np.int64)
    acc_before = acc_raw.copy()
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.accumulate("power", exponent, axis=0, out=acc_out)
    assert (acc_raw == acc_before).all()
    titer.elementwise("add", None, 1, 2)        # the next call is not hit by a stale flag


@pytest.mark.parametrize("call", [
    lambda o: titer.elementwise("add", o, np.ones((64, 3)), np.ones(4)),            # shape
    lambda o: titer.elementwise("add", o, np.ones((64, 3)), 1j),                    # casting
    lambda o: titer.elementwise("add", o, np.ones((64, 3), np.int8), 300),          # overflow
    lambda o: titer.elementwise("add", o, np.ones((64, 3)), 1, casting="bogus"),
    lambda o: titer.reduce("add", np.ones((64, 3, 2)), axis=2, out=o, initial=[1, 2]),
    lambda o: titer.reduce("subtract", np.ones((64, 3, 2)), axis=(0, 2), out=o),
])
def test_rejected_calls_write_nothing(call):
    out, raw = guarded((64, 3), np.float64)
    before = raw.copy()
    with pytest.raises((TypeError, ValueError, OverflowError)):
        call(out)
    assert (raw == before).all()


CRASHED = [   # calls that killed the interpreter (NumPy's resolve_dtypes under 'equiv')
    ('"add", None, np.arange(3.), 1', ', casting="equiv"'),
    ('"sqrt", None, 2', ', casting="equiv"'),
    ('"add", None, 1.5, 2', ', casting="equiv"'),
    ('"equal", None, 2 ** 70, 1', ''),
    ('"absolute", None, 2 ** 70', ''),
]


@pytest.mark.parametrize("args,kwargs", CRASHED)
def test_calls_that_crashed_now_do_what_numpy_does(args, kwargs):
    """In a child process first (a crash fails the test, not the session),
    then compared with NumPy: the same result or exception class (NumPy's
    object loop: titer's TypeError saying so)."""
    import subprocess
    import sys
    code = "import numpy as np, titer\ntry:\n    titer.elementwise(%s%s)\nexcept Exception:\n" \
           "    pass\n" % (args, kwargs)
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    name, rest = args.split(", None, ", 1)
    inputs = eval("(%s,)" % rest)
    extra = eval("dict(%s)" % kwargs.lstrip(", "))
    try:
        want = getattr(np, eval(name))(*inputs, **extra)
    except Exception as exc:    # noqa: BLE001 -- NumPy's class is the expectation
        with pytest.raises(type(exc)):
            titer.elementwise(eval(name), None, *inputs, **extra)
        return
    if isinstance(want, np.ndarray) and want.dtype == object or not isinstance(
            want, (np.ndarray, np.generic)):
        with pytest.raises(TypeError, match="object"):
            titer.elementwise(eval(name), None, *inputs, **extra)
        return
    got = titer.elementwise(eval(name), None, *inputs, **extra)
    assert type(got) is type(want) and np.array_equal(got, want)


def test_zero_d_results_are_numpy_scalars():
    for got, want in [(titer.elementwise("add", None, 1.0, 2.0), np.add(1.0, 2.0)),
                      (titer.elementwise("sin", None, np.asarray(0.5)), np.sin(np.asarray(0.5))),
                      (titer.elementwise("frexp", None, np.float32(3))[1],
                       np.frexp(np.float32(3))[1]),
                      (titer.sum(np.ones(3)), np.sum(np.ones(3)))]:
        assert type(got) is type(want) and got == want
    out = np.zeros(())
    assert titer.elementwise("add", out, 1.0, 2.0) is out       # out= given: the array


def test_numpy_exception_classes():
    with pytest.raises(np._core._exceptions._UFuncOutputCastingError):
        titer.elementwise("add", np.zeros(3, np.int8), np.ones(3), 1)
    with pytest.raises(np._core._exceptions._UFuncInputCastingError):
        titer.elementwise("add", None, np.ones(3, np.int64), 1.0, casting="no")
    with pytest.raises(np.exceptions.AxisError):
        titer.sum(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError):
        titer.sum(np.ones((2, 3)), axis=[0, 1])                  # a list is not an axis
    with pytest.raises(TypeError):
        titer.elementwise("add", None, np.ones(3), 1, order=1)
    with pytest.raises(TypeError):
        titer.elementwise("add", None, np.ones(3), 1, casting=None)


@pytest.mark.parametrize("casting", [b"same_kind", b"unsafe", b"safe", b"no", b"sideways",
                                     bytearray(b"safe"), 1])
def test_casting_given_as_bytes_as_numpy(casting):
    """NumPy's casting converter takes bytes as well as str (b'safe'): the
    same error class or result from elementwise, copy and evaluate."""
    x = np.arange(1.5, 4.5)
    calls = [
        (lambda o: titer.elementwise("add", o, x, 1, casting=casting),
         lambda o: np.add(x, 1, out=o, casting=casting)),
        (lambda o: titer.copy(o, x, casting=casting),
         lambda o: np.copyto(o, x, casting=casting)),
        (lambda o: titer.evaluate("x + 1", {"x": x}, out=o, casting=casting),
         lambda o: np.add(x, 1, out=o, casting=casting)),
    ]
    for titer_call, numpy_call in calls:
        got, want = np.zeros(3, np.float32), np.zeros(3, np.float32)
        assert _outcome(lambda: titer_call(got)) == _outcome(lambda: numpy_call(want)), casting
        np.testing.assert_array_equal(got, want)


def _outcome(fn):
    try:
        fn()
    except Exception as exc:    # noqa: BLE001 -- the class is what is compared
        return type(exc)
    return None


SCALARS = [3, -3, 300, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 70, 1.5, 2 + 1j]


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
@pytest.mark.parametrize("dtype", [None, "?", "b", "L", "e", "F"])
def test_python_scalar_checks_in_numpys_order(casting, dtype):
    """A Python scalar meets its loop before the casts are checked (NEP 50:
    converted into the promotion of the loop dtype with it, 'equiv' allowing
    only its default dtype, an int only in range, beyond a C long
    NumPy's OverflowError), then the casts in input order, then out=:
    whichever NumPy finds first, titer raises, with NumPy's class."""
    kwargs = {"casting": casting} if dtype is None else {"casting": casting, "dtype": dtype}
    for value in SCALARS:
        for other in (np.ones(3, "?"), np.ones(3, "e"), np.ones(3, "B"), np.ones(3, "l")):
            for out in (None, np.zeros(3, "?"), np.zeros(3, "b"), np.zeros(3, "f")):
                for name, inputs in (("add", (value, other)), ("minimum", (other, value))):
                    want = _outcome(lambda: getattr(np, name)(*inputs, out=out, **kwargs))
                    got = _outcome(lambda: titer.elementwise(name, out, *inputs, **kwargs))
                    assert got is want, (name, inputs, out, kwargs)


def test_a_cached_loop_still_checks_the_value_of_a_python_int():
    """The loop of add(int, bool array, dtype=bool) is cached after a small
    int; an int beyond a C long then raises NumPy's OverflowError all the same."""
    b = np.ones(3, bool)
    titer.elementwise("add", None, 3, b, dtype="?", casting="unsafe")
    with pytest.raises(OverflowError, match="C long"):
        titer.elementwise("add", None, 2 ** 63, b, dtype="?", casting="unsafe")
    titer.elementwise("add", None, np.ones(3, np.int8), 3)
    with pytest.raises(OverflowError, match="out of bounds"):
        titer.elementwise("add", None, np.ones(3, np.int8), 300)


@pytest.mark.parametrize("kwargs", [
    {"axis": [0, 1], "where": np.ones(2, bool)},        # where= broadcasts before axis= is read
    {"axis": [0, 1], "where": [True, False]},
    {"axis": 5, "where": np.ones(2, bool)},
    {"axis": (0, 0), "where": np.ones(2, bool)},
    {"axis": [0, 1]},
    {"axis": 0, "dtype": "foo", "where": np.ones(2, bool)},
])
def test_mean_checks_in_numpys_order(kwargs):
    x = np.ones((4, 4))
    want = _outcome(lambda: np.mean(x, **kwargs))
    assert want is not None
    with pytest.raises(want):
        titer.mean(x, **kwargs)


def test_mean_where_false_is_numpys_nan_with_a_warning():
    x = np.arange(6.0).reshape(2, 3)
    for where in (False, np.zeros(3, bool)):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            want = np.mean(x, axis=1, where=where)
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = titer.mean(x, axis=1, where=where)
        np.testing.assert_array_equal(got, want)


def test_mean_of_nothing_warns_at_the_callers_line():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        titer.mean(np.ones((0, 2)), axis=0)
    assert [w.filename for w in caught if "Mean of empty" in str(w.message)] == [__file__]


def _guarded(shape, dtype):
    """A zeroed view into a larger buffer: (view, the whole buffer)."""
    whole = np.zeros(int(np.prod(shape)) + 64, dtype)
    return whole[32:-32].reshape(shape), whole


WORKSPACE_CALLS = {   # each takes memory for its threads' buffers before it writes
    "buffered casts": lambda out: titer.elementwise(
        "add", out, np.ones((300, 300), np.float32), np.ones((300, 300)).T),
    "transposed tiles": lambda out: titer.elementwise(
        "add", out, np.ones((300, 300)).T, np.ones((300, 300))),
    "outer reduction tiles": lambda out: titer.sum(np.ones((4096, 300)), axis=0,
                                                   out=out[0]),
    "inner reduction leaves": lambda out: titer.sum(np.ones((3, 2 ** 16)), axis=1,
                                                    out=out[0, :3]),
    "evaluate's blocks": lambda out: titer.evaluate(
        "2 * a + b", {"a": np.ones((300, 300)), "b": np.ones(300)}, out=out),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(WORKSPACE_CALLS))
def test_out_of_memory_is_a_memory_error_with_nothing_written(name, threads):
    """titer._core._fail_workspaces(1): the next workspace allocation fails,
    as malloc would.  Every thread's memory is taken before the first
    write, so the MemoryError leaves out and its neighbours as they were;
    the next call runs."""
    out, whole = _guarded((300, 300), np.float64)
    with titer.num_threads(threads):
        titer._core._fail_workspaces(1)
        try:
            with pytest.raises(MemoryError):
                WORKSPACE_CALLS[name](out)
        finally:
            titer._core._fail_workspaces(0)
        assert not whole.any()
        WORKSPACE_CALLS[name](out)
    assert out.any()


@pytest.mark.parametrize("dtype", ["l", "L", "e", "f", "d", "F", "D"])
@pytest.mark.parametrize("value", [2 ** 70, -2 ** 70, 2 ** 1100])
def test_unary_op_of_a_huge_python_int_under_dtype(dtype, value):
    """NumPy holds the int as an object; under dtype= it converts it as
    Python does (a C long, float(), complex())."""
    import warnings
    kwargs = {"dtype": dtype, "casting": "unsafe"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = _outcome(lambda: np.negative(value, **kwargs))
        got = _outcome(lambda: titer.elementwise("negative", None, value, **kwargs))
        assert got is want
        if want is None:
            a, b = np.negative(value, **kwargs), titer.elementwise("negative", None, value, **kwargs)
            assert type(a) is type(b) and a.tobytes() == b.tobytes()


def test_integer_power_into_an_empty_broadcast_checks_nothing():
    """NumPy raises for a negative exponent it computes with: none here."""
    a, b = np.arange(7).reshape(7, 1), -np.ones((7, 1), np.int64)
    out = np.empty((7, 0), np.int64)
    assert titer.elementwise("power", out, a, b) is out
    assert np.power(a, b, out=out) is out

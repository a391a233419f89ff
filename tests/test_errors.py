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

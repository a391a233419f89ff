"""Duck arrays as NumPy treats them (NEP 13 overrides, ndarray subclasses'
output wrapping, np.sum & co.'s method look-up), with NumPy as the oracle:
the same call through np.<ufunc> and through titer must give the same type,
values, mask, recorded override call, or exception class."""
import warnings

import numpy as np
import pytest

import titer


def _same(actual, expected):
    """Type, dtype, values and (for masked arrays) mask of NumPy's answer."""
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, np.ma.MaskedArray):
        np.testing.assert_array_equal(np.ma.getmaskarray(actual), np.ma.getmaskarray(expected))
        np.testing.assert_array_equal(actual.data, expected.data)
        assert actual.dtype == expected.dtype
        return
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    assert np.shape(actual) == np.shape(expected)
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


class Recorder:
    """A duck that records the __array_ufunc__ call it receives."""
    def __init__(self, answer="handled"):
        self.answer = answer
        self.calls = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.calls.append((ufunc, method, inputs, kwargs))
        return self.answer


class RecorderChild(Recorder):
    pass


class Refuses:
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NotImplemented


class Opaque:
    __array_ufunc__ = None


class Sub(np.ndarray):
    """A user subclass that keeps ndarray's __array_ufunc__ and methods."""


class Tagged(np.ndarray):
    """A subclass with its own __array_wrap__ and priority: records the
    context NumPy passes."""
    __array_priority__ = 20.0

    def __array_wrap__(self, array, context=None, return_scalar=False):
        result = array.view(Tagged)
        result.context = (None if context is None else
                          (context[0], tuple(type(a).__name__ for a in context[1]), context[2]))
        result.return_scalar = return_scalar
        return result


def _masked():
    return np.ma.array([1.0, 2.0, 3.0, -4.0], mask=[0, 1, 0, 0])


# -- ndarray subclasses -------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: (np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]), 1.0),     # the example
    lambda: (_masked(), np.arange(4.0)),
    lambda: (np.arange(4.0), _masked()),
    lambda: (np.matrix([[1.0, 2.0], [3.0, 4.0]]), np.float32(2)),
    lambda: (np.arange(6.0).reshape(2, 3).view(Sub), np.ones(3)),
    lambda: (np.arange(3.0).view(Sub), np.arange(3.0).view(Tagged)),
    lambda: (np.array(2.0).view(Sub), 1),                              # 0-d subclass
])
def test_binary_subclasses_match_numpy(make):
    a, b = make()
    _same(titer.elementwise("add", None, a, b), np.add(*make()))
    _same(titer.elementwise("multiply", None, b, a), np.multiply(*make()[::-1]))


def test_masked_domain_and_unary():
    x = np.ma.array([-1.0, 4.0, 9.0], mask=[0, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.sqrt(x)
        actual = titer.elementwise("sqrt", None, x)
    _same(actual, expected)
    _same(titer.elementwise("divide", None, _masked(), 0.0 * _masked() + [1, 0, 2, 3]),
          np.divide(_masked(), 0.0 * _masked() + [1, 0, 2, 3]))


def test_masked_scalar_result_is_numpys():
    for mask in (False, True):
        x = np.ma.array(1.0, mask=mask)
        _same(titer.elementwise("add", None, x, 1), np.add(x, 1))


def test_wrap_context_and_priority():
    a = np.arange(3.0).view(Sub)
    t = np.arange(3.0).view(Tagged)
    got, want = titer.elementwise("add", None, a, t), np.add(a, t)
    assert type(got) is Tagged
    assert got.context == want.context == (np.add, ("Sub", "Tagged"), 0)
    assert got.return_scalar == want.return_scalar


def test_multi_output_subclass():
    m = np.matrix([[1.5, -2.5]])
    got, want = titer.elementwise("divmod", None, m, 2.0), np.divmod(m, 2.0)
    assert len(got) == 2
    for g, w in zip(got, want):
        _same(g, w)


def test_out_subclass_is_returned_and_wrapped():
    out_t, out_n = np.ma.array(np.zeros(4), mask=[1, 0, 0, 0]), np.ma.array(np.zeros(4),
                                                                              mask=[1, 0, 0, 0])
    got = titer.elementwise("add", out_t, _masked(), 1.0)
    want = np.add(_masked(), 1.0, out=out_n)
    assert got is out_t and want is out_n
    _same(out_t, out_n)
    out_t, out_n = np.zeros(4), np.zeros(4)          # plain out, masked input
    assert titer.elementwise("add", out_t, _masked(), 1.0) is out_t
    np.add(_masked(), 1.0, out=out_n)
    _same(out_t, out_n)


def test_where_and_order_with_subclass():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    out_t, out_n = np.zeros((2, 2)), np.zeros((2, 2))
    mask = np.array([[True, False], [False, True]])
    got = titer.elementwise("add", out_t, m, 1.0, where=mask)
    assert got is out_t
    np.add(m, 1.0, out=out_n, where=mask)
    _same(out_t, out_n)
    _same(titer.elementwise("add", None, m, 1.0, order="F"), np.add(m, 1.0, order="F"))


@pytest.mark.parametrize("make", [
    lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]]),
    lambda: _masked(),
    lambda: np.arange(6).reshape(2, 3).view(Sub),
    lambda: np.arange(6.0).reshape(2, 3).view(Tagged),
])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_reductions_of_subclasses_match_numpy(make, axis):
    _same(titer.reduce("add", make(), axis=axis), np.add.reduce(make(), axis=axis))
    _same(titer.reduce("maximum", make(), axis=axis, keepdims=True),
          np.maximum.reduce(make(), axis=axis, keepdims=True))
    for name in ("sum", "prod", "max", "min", "mean", "any", "all"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _same(getattr(titer, name)(make(), axis=axis), getattr(np, name)(make(), axis=axis))
    _same_outcome(lambda: titer.sum(make(), axis=axis, keepdims=True, dtype=np.float32),
                  lambda: np.sum(make(), axis=axis, keepdims=True, dtype=np.float32))


def _same_outcome(titer_call, numpy_call):
    """NumPy's result, or NumPy's exception class (np.matrix.sum takes no
    keepdims=, so np.sum raises TypeError for it)."""
    try:
        expected = numpy_call()
    except Exception as exc:
        with pytest.raises(type(exc)):
            titer_call()
        return
    _same(titer_call(), expected)


@pytest.mark.parametrize("make", [lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]]), _masked,
                                  lambda: np.arange(6).reshape(2, 3).view(Sub)])
def test_accumulate_of_subclasses_matches_numpy(make):
    _same(titer.accumulate("add", make(), axis=0), np.add.accumulate(make(), axis=0))
    _same(titer.accumulate("multiply", make(), axis=-1, dtype=np.float32),
          np.multiply.accumulate(make(), axis=-1, dtype=np.float32))


def test_reduce_into_subclass_out():
    out_t, out_n = np.zeros(3).view(Sub), np.zeros(3).view(Sub)
    x = np.arange(6.0).reshape(2, 3)
    assert titer.reduce("add", x, axis=0, out=out_t) is out_t
    np.add.reduce(x, axis=0, out=out_n)
    _same(out_t, out_n)


def test_subclass_computed_by_titer_not_numpy(monkeypatch):
    """A subclass without overrides runs titer's loops: NumPy's add is never
    called (it would be, were the values handed to NumPy)."""
    calls = []

    class Spy(np.ndarray):
        def __array_wrap__(self, array, context=None, return_scalar=False):
            calls.append(context)
            return array.view(Spy)
    x = np.arange(4.0).view(Spy)
    with np.errstate(all="raise"):
        result = titer.elementwise("add", None, x, 1.0)
    assert type(result) is Spy and calls[0][0] is np.add
    np.testing.assert_array_equal(result.view(np.ndarray), [1.0, 2.0, 3.0, 4.0])


# -- NEP 13 overrides ------------------------------------------------------------------

def _recorded(call):
    d = Recorder()
    call(d)
    (ufunc, method, inputs, kwargs), = d.calls
    return ufunc, method, tuple(d if x is d else x for x in inputs), kwargs


def _same_call(titer_call, numpy_call):
    got, want = _recorded(titer_call), _recorded(numpy_call)
    assert got[0] is want[0] and got[1] == want[1]
    assert len(got[2]) == len(want[2])
    for g, w in zip(got[2], want[2]):
        assert type(g) is type(w)
        if isinstance(w, np.ndarray):
            assert g is not None and np.array_equal(g, w)
        elif not isinstance(w, Recorder):
            assert g == w
    assert got[3].keys() == want[3].keys()
    for key in want[3]:
        g, w = got[3][key], want[3][key]
        if key == "out":
            assert isinstance(g, tuple) and len(g) == len(w)
            assert all(type(a) is type(b) for a, b in zip(g, w))
        elif isinstance(w, np.ndarray):
            assert np.array_equal(g, w)
        elif isinstance(w, Recorder):         # where=duck: a fresh duck per call
            assert type(g) is type(w)
        else:
            assert g == w


A = np.arange(3.0)


@pytest.mark.parametrize("titer_call, numpy_call", [
    (lambda d: titer.elementwise("add", None, d, 1), lambda d: np.add(d, 1)),
    (lambda d: titer.elementwise("add", None, A, d), lambda d: np.add(A, d)),
    (lambda d: titer.elementwise("absolute", None, d), lambda d: np.absolute(d)),
    (lambda d: titer.elementwise("add", d, A, 2.0), lambda d: np.add(A, 2.0, out=d)),
    (lambda d: titer.elementwise("add", (d,), A, 2.0), lambda d: np.add(A, 2.0, out=(d,))),
    (lambda d: titer.elementwise("add", None, A, d, dtype=np.float32, casting="unsafe"),
     lambda d: np.add(A, d, dtype=np.float32, casting="unsafe")),
    (lambda d: titer.elementwise("add", np.zeros(3), A, 1.0, where=d),
     lambda d: np.add(A, 1.0, out=np.zeros(3), where=d)),
    (lambda d: titer.elementwise("divmod", (np.zeros(3), None), d, 2),
     lambda d: np.divmod(d, 2, out=(np.zeros(3), None))),
    (lambda d: titer.reduce("add", d), lambda d: np.add.reduce(d, axis=None)),
    (lambda d: titer.reduce("multiply", d, axis=1, keepdims=True, initial=2.0),
     lambda d: np.multiply.reduce(d, axis=1, keepdims=True, initial=2.0)),
    (lambda d: titer.reduce("add", A, out=d, axis=0), lambda d: np.add.reduce(A, axis=0, out=d)),
    (lambda d: titer.accumulate("add", d), lambda d: np.add.accumulate(d, axis=0)),
    (lambda d: titer.accumulate("add", d, axis=1, dtype=np.int64),
     lambda d: np.add.accumulate(d, axis=1, dtype=np.int64)),
    (lambda d: titer.sum(d), lambda d: np.sum(d)),
    (lambda d: titer.sum(d, axis=1, keepdims=True), lambda d: np.sum(d, axis=1, keepdims=True)),
    (lambda d: titer.sum(A, out=d), lambda d: np.sum(A, out=d)),
    (lambda d: titer.prod(d, dtype=np.int8), lambda d: np.prod(d, dtype=np.int8)),
    (lambda d: titer.max(d, initial=3), lambda d: np.max(d, initial=3)),
    (lambda d: titer.min(d, axis=0), lambda d: np.min(d, axis=0)),
    (lambda d: titer.any(d), lambda d: np.any(d)),
    (lambda d: titer.all(d, keepdims=True), lambda d: np.all(d, keepdims=True)),
])
def test_override_receives_numpys_call(titer_call, numpy_call):
    _same_call(titer_call, numpy_call)


def test_override_result_is_returned():
    assert titer.elementwise("add", None, A, Recorder(answer=42)) == 42
    assert titer.sum(Recorder(answer="s")) == "s"


def test_override_order_subclass_first_then_left_to_right():
    order = []

    class Logged(Recorder):
        def __array_ufunc__(self, *args, **kwargs):
            order.append(self.tag)
            return NotImplemented

    class LoggedChild(Logged):
        pass
    for call in (titer.elementwise, lambda name, out, *xs: getattr(np, name)(*xs, out=out)):
        for tags in (("parent", "child"), ("child", "parent")):
            order.clear()
            objs = []
            for tag in tags:
                o = (LoggedChild if tag == "child" else Logged)()
                o.tag = tag
                objs.append(o)
            with pytest.raises(TypeError):
                call("add", None, *objs)
            assert order == ["child", "parent"]


def test_not_implemented_everywhere_is_numpys_type_error():
    refuses = Refuses()
    with pytest.raises(TypeError) as got:
        titer.elementwise("add", None, A, refuses)
    with pytest.raises(TypeError) as want:
        np.add(A, refuses)
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError):
        titer.reduce("add", Refuses())


@pytest.mark.parametrize("call", [
    lambda f: f.elementwise("add", None, A, Opaque()) if f is titer else np.add(A, Opaque()),
    lambda f: f.reduce("add", Opaque()) if f is titer else np.add.reduce(Opaque()),
    lambda f: f.sum(Opaque()),
    lambda f: f.accumulate("add", Opaque()) if f is titer else np.add.accumulate(Opaque()),
])
def test_array_ufunc_none_raises_numpys_type_error(call):
    with pytest.raises(TypeError) as want:
        call(np)
    with pytest.raises(TypeError) as got:
        call(titer)
    assert str(got.value) == str(want.value)


def test_own_methods_get_the_call_like_np_sum():
    class WithSum:
        def __array_ufunc__(self, *args, **kwargs):
            raise AssertionError("np.sum uses the method first")

        def sum(self, **kwargs):
            return ("sum", kwargs)

        def mean(self, **kwargs):
            return ("mean", kwargs)
    for kwargs in ({}, {"axis": 1, "keepdims": True}, {"dtype": np.float32, "initial": 0}):
        assert titer.sum(WithSum(), **kwargs) == np.sum(WithSum(), **kwargs)
    assert titer.mean(WithSum(), axis=0) == np.mean(WithSum(), axis=0)


# -- xarray ----------------------------------------------------------------------------

def test_xarray_keeps_coordinates():
    xr = pytest.importorskip("xarray")
    data = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("t", "x"),
                        coords={"t": [10, 20], "x": [1.0, 2.0, 3.0]}, name="v")
    got, want = titer.elementwise("add", None, data, 1.0), np.add(data, 1.0)
    assert type(got) is xr.DataArray
    xr.testing.assert_identical(got, want)
    xr.testing.assert_identical(titer.sum(data, axis=1), np.sum(data, axis=1))
    xr.testing.assert_identical(titer.elementwise("sqrt", None, data), np.sqrt(data))


def test_xarray_dask_backed_stays_lazy():
    xr = pytest.importorskip("xarray")
    da = pytest.importorskip("dask.array")
    data = xr.DataArray(da.arange(12.0, chunks=4).reshape(3, 4), dims=("t", "x"),
                        coords={"t": [1, 2, 3]})
    got = titer.elementwise("multiply", None, data, 2.0)
    assert type(got) is xr.DataArray and type(got.data).__module__.startswith("dask.")
    assert list(got.coords) == ["t"]
    xr.testing.assert_identical(got.compute(), np.multiply(data, 2.0).compute())


# -- the plain path stays titer's -------------------------------------------------------

def test_array_likes_and_numpy_scalars_still_computed():
    _same(titer.elementwise("add", None, [1.0, 2.0], np.float32(1)),
          np.add(np.asarray([1.0, 2.0]), np.float32(1)))
    assert titer.sum([1, 2, 3]) == 6
    assert titer.sum(np.float64(2.5)) == 2.5


def test_old_style_array_wrap_gets_numpys_deprecation():
    class Old(np.ndarray):
        def __array_wrap__(self, array):
            return array.view(Old)
    for call in (lambda x: np.add(x, 1.0), lambda x: titer.elementwise("add", None, x, 1.0)):
        with pytest.warns(DeprecationWarning, match="must accept context"):
            result = call(np.arange(3.0).view(Old))
        assert type(result) is Old

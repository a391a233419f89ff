"""Dask arrays through titer: lazy results, NumPy's answers once computed,
and graphs whose blocks titer computes."""
import os
import sys

import numpy as np
import pytest

import titer

da = pytest.importorskip("dask.array")
import dask  # noqa: E402


def _graph_functions(x):
    """Every callable the graph's tasks call (partials unwrapped)."""
    found = []

    def visit(obj):
        if hasattr(obj, "func") and callable(getattr(obj, "func")):
            found.append(obj.func)
            visit(obj.func)
            for value in getattr(obj, "keywords", {}).values():
                visit(value)
            for value in getattr(obj, "args", ()):
                visit(value)
        elif isinstance(obj, (tuple, list)):
            for value in obj:
                visit(value)
        elif isinstance(obj, dict):
            for value in obj.values():
                visit(value)
        elif callable(obj):
            found.append(obj)
        for attr in ("args", "kwargs", "dsk"):
            if attr in ("args",) and hasattr(obj, "func"):
                continue
            value = getattr(obj, attr, None)
            if isinstance(value, (tuple, list, dict)):
                visit(value)
    for task in dict(x.__dask_graph__()).values():
        visit(task)
    return found


def _calls_titer(x):
    mods = {getattr(f, "__module__", "") or "" for f in _graph_functions(x)}
    return any(m.startswith("titer") for m in mods)


def _lazy(x):
    assert type(x).__module__.startswith("dask."), type(x)
    return x


def _same(lazy, expected, exact=True):
    got = _lazy(lazy).compute()
    expected = np.asarray(expected)
    assert np.asarray(got).dtype == expected.dtype
    assert np.shape(got) == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.fixture
def count_titer_calls(monkeypatch):
    """Count the block calls that reach titer (the graph's functions call
    titer._core through titer._dask's module global)."""
    from titer import _dask
    calls = {"n": 0}
    real = _dask._core

    class Counting:
        def __getattr__(self, name):
            fn = getattr(real, name)

            def counted(*args, **kwargs):
                calls["n"] += 1
                return fn(*args, **kwargs)
            return counted
    monkeypatch.setattr(_dask, "_core", Counting())
    return calls


X = np.arange(24.0).reshape(4, 6) - 7.5
Y = np.linspace(-3, 3, 6)


def test_elementwise_is_lazy_and_computed_by_titer(count_titer_calls):
    x = da.from_array(X, chunks=(2, 3))
    r = titer.elementwise("add", None, x, 1.0)
    assert r.dtype == np.float64 and r.chunks == x.chunks and _calls_titer(r)
    before = count_titer_calls["n"]
    _same(r, np.add(X, 1.0))
    assert count_titer_calls["n"] - before == 4          # one titer call per block


@pytest.mark.parametrize("name, make_args", [
    ("add", lambda: (da.from_array(X, chunks=(2, 3)), da.from_array(Y, chunks=2))),   # broadcast,
    ("multiply", lambda: (da.from_array(X, chunks=(3, 4)), da.from_array(X, chunks=(2, 5)))),
    ("subtract", lambda: (X, da.from_array(Y, chunks=4))),                             # mixed
    ("power", lambda: (da.from_array(X, chunks=2), 2)),                               # scalar
    ("less", lambda: (np.float32(1.5), da.from_array(X.astype(np.float32), chunks=3))),
    ("add", lambda: (da.from_array(np.arange(6, dtype=np.int8), chunks=4), 3)),         # NEP 50
    ("fmax", lambda: (da.from_array(Y.reshape(6, 1), chunks=3), Y)),
    ("where", lambda: (da.from_array(X > 0, chunks=2), X, 0.0)),
    ("sqrt", lambda: (da.from_array(np.abs(X), chunks=(4, 2)),)),
])
def test_elementwise_matches_numpy(name, make_args):
    args = make_args()
    plain = [a.compute() if hasattr(a, "compute") else a for a in args]
    expected = np.where(*plain) if name == "where" else getattr(np, name)(*plain)
    result = titer.elementwise(name, None, *args)
    assert _calls_titer(result)
    _same(result, expected)


def test_elementwise_dtype_and_casting_resolved_eagerly():
    x = da.from_array(np.arange(6, dtype=np.int16), chunks=4)
    _same(titer.elementwise("add", None, x, 1, dtype=np.float32),
          np.add(np.arange(6, dtype=np.int16), 1, dtype=np.float32))
    with pytest.raises(TypeError):                     # NumPy: _UFuncInputCastingError
        titer.elementwise("add", None, x, 1.5, casting="no")
    with pytest.raises(OverflowError):
        titer.elementwise("add", None, da.from_array(np.arange(3, dtype=np.int8)), 1000)


def test_multi_output():
    x = da.from_array(X, chunks=(2, 3))
    q, r = titer.elementwise("divmod", None, x, 4.0)
    eq, er = np.divmod(X, 4.0)
    _same(q, eq)
    _same(r, er)


def test_out_follows_dask():
    x = da.from_array(X, chunks=(2, 3))
    out = da.zeros(X.shape, chunks=3, dtype=np.float32)
    result = titer.elementwise("add", out, x, 1.0)
    assert result is out and _calls_titer(out)
    expected = np.zeros(X.shape, np.float32)
    np.add(X, 1.0, out=expected)
    _same(out, expected)
    with pytest.raises(NotImplementedError):           # dask's answer for np.add(x, 1, out=ndarray)
        np.add(x, 1.0, out=np.zeros(X.shape))
    with pytest.raises(NotImplementedError):
        titer.elementwise("add", np.zeros(X.shape), x, 1.0)


def test_where_with_dask_out():
    x = da.from_array(X, chunks=(2, 3))
    out = da.full(X.shape, -1.0, chunks=2)
    mask = X > 0
    result = titer.elementwise("add", out, x, 1.0, where=da.from_array(mask, chunks=3))
    expected = np.full(X.shape, -1.0)
    np.add(X, 1.0, out=expected, where=mask)
    _same(result, expected)


R = np.random.default_rng(0).standard_normal((6, 10))
RI = np.random.default_rng(1).integers(-50, 50, size=(6, 10)).astype(np.int32)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(name, axis, keepdims):
    for data in (RI, R):
        x = da.from_array(data, chunks=(2, 3))
        result = getattr(titer, name)(x, axis=axis, keepdims=keepdims)
        expected = getattr(np, name)(data, axis=axis, keepdims=keepdims)
        # pairwise sums of blocks round differently from NumPy's single pass
        exact = data.dtype.kind != "f" or name not in ("sum", "prod", "mean")
        _same(result, expected, exact=exact)


def test_reductions_with_dtype_initial_and_graph(count_titer_calls):
    x = da.from_array(RI.astype(np.int8), chunks=(2, 2))
    result = titer.sum(x, axis=1, dtype=np.float32)
    assert _calls_titer(result) and result.dtype == np.float32
    before = count_titer_calls["n"]
    _same(result, np.sum(RI.astype(np.int8), axis=1, dtype=np.float32))
    assert count_titer_calls["n"] - before >= x.npartitions   # every block, then the tree
    _same(titer.sum(x), np.sum(RI.astype(np.int8)))                 # int8 -> int64 as NumPy
    _same(titer.max(x, axis=0, initial=40), np.max(RI.astype(np.int8), axis=0, initial=40))
    _same(titer.reduce("add", x, axis=0, initial=5), np.add.reduce(RI.astype(np.int8), axis=0,
                                                                   initial=5))
    _same(titer.mean(x, axis=0, dtype=np.float32), np.mean(RI.astype(np.int8), axis=0,
                                                           dtype=np.float32), exact=False)
    _same(titer.mean(da.from_array(R.astype(np.float16), chunks=3)),
          np.mean(R.astype(np.float16)), exact=False)
    _same(titer.reduce("subtract", da.from_array(R, chunks=(2, 3)), axis=1),
          np.subtract.reduce(R, axis=1))                    # one chunk along the axis


def test_reduction_errors_are_eager():
    with pytest.raises(np.exceptions.AxisError):
        titer.sum(da.ones((2, 3), chunks=1), axis=2)
    with pytest.raises(ValueError):
        titer.reduce("subtract", da.ones((2, 3), chunks=1), axis=(0, 1))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_accumulate_matches_numpy(name, axis):
    x = da.from_array(RI, chunks=(2, 3))
    result = titer.accumulate(name, x, axis=axis)
    assert _calls_titer(result)
    with np.errstate(over="ignore"):
        _same(result, getattr(np, name).accumulate(RI, axis=axis))
    xf = da.from_array(R, chunks=(4, 3))
    _same(titer.accumulate(name, xf, axis=axis, dtype=np.float64),
          getattr(np, name).accumulate(R, axis=axis), exact=name in ("maximum", "subtract"))


def test_accumulate_dtype():
    x = da.from_array(np.arange(1, 9, dtype=np.int8), chunks=3)
    _same(titer.accumulate("add", x), np.add.accumulate(np.arange(1, 9, dtype=np.int8)))
    _same(titer.accumulate("add", x, dtype=np.int64),
          np.add.accumulate(np.arange(1, 9, dtype=np.int8), dtype=np.int64))


def test_dask_not_imported_for_plain_calls():
    import subprocess
    code = ("import sys, numpy as np, titer; titer.elementwise('add', None, np.ones(3), 1.0);"
            "titer.sum(np.ma.array([1.0])); print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@pytest.fixture
def restored_environment():
    """distributed's nanny sets OMP_NUM_THREADS & co. in this process for its
    workers; the tests after this one see the environment they started with."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_distributed_local_cluster(restored_environment):
    distributed = pytest.importorskip("distributed")
    try:
        cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                           dashboard_address=None, silence_logs=40)
    except Exception as exc:        # no process spawning here: say why and move on
        pytest.skip("distributed.LocalCluster could not start: %r" % (exc,))
    with cluster, distributed.Client(cluster) as client:
        x = da.from_array(R, chunks=(3, 5))
        lazy = titer.sum(titer.elementwise("multiply", None, x, 2.0), axis=0)
        got = client.compute(lazy).result()
        workers = client.run(lambda: "titer" in sys.modules)
    assert len(workers) == 2
    np.testing.assert_allclose(got, np.sum(R * 2.0, axis=0), rtol=1e-12)
    assert any(workers.values())            # titer ran in the worker processes

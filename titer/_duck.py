"""Duck arrays as NumPy treats them, for every titer entry point.

titer's Cython entry points compute exact ``numpy.ndarray`` operands (and
Python/NumPy scalars, CuPy arrays) themselves.  Anything else that could
change NumPy's answer comes here, once per call:

- a Dask array (by module name, so Dask is never imported otherwise): a lazy
  Dask graph whose blocks titer computes (``_dask.py``);
- an object overriding ``__array_ufunc__`` (NEP 13: masked-array libraries,
  xarray, pint, user classes; ``__array_ufunc__ = None`` included): the call
  is handed to it exactly as ``np.<ufunc>`` would hand it;
- an ndarray subclass that keeps ndarray's ``__array_ufunc__`` (``np.matrix``,
  ``np.ma.MaskedArray``, user subclasses): titer computes on the base-class
  data, then applies NumPy's output wrapping (``__array_wrap__``).

Nothing here computes values of plain ndarrays with NumPy: what is handed
over is the duck's business, the rest goes back to titer's loops.
"""
import warnings

import numpy as np

_NDARRAY_UFUNC = np.ndarray.__array_ufunc__
_NO_VALUE = np._NoValue
_UNSET = object()
# What titer's elementwise keywords mean when left at their defaults; NEP 13
# hands an override only the keywords the caller gave, and titer cannot tell
# "given as the default" from "not given", so defaults are left out.
_ELEMENTWISE_DEFAULTS = (("dtype", None), ("casting", "same_kind"), ("where", True),
                         ("order", "K"))


def is_dask(x):
    """A Dask collection, told by its type's module: no import of Dask."""
    return type(x).__module__.startswith("dask.")


def _dask():
    from . import _dask
    return _dask


# -- NEP 13 ---------------------------------------------------------------------

def _overriders(objects):
    """[(object, its type's __array_ufunc__)] for the objects NumPy would ask,
    one per type, in the order NumPy finds them; NumPy's TypeError for an
    ``__array_ufunc__ = None``."""
    found = []
    for x in objects:
        t = type(x)
        if t is np.ndarray or x is None or any(type(y) is t for y, _ in found):
            continue
        method = getattr(t, "__array_ufunc__", _NDARRAY_UFUNC)
        if method is _NDARRAY_UFUNC:
            continue
        if method is None:
            raise TypeError("operand '%s' does not support ufuncs (__array_ufunc__=None)"
                            % t.__name__)
        found.append((x, method))
    return found


def _call_overrides(found, ufunc, method, inputs, kwargs):
    """NumPy's dispatch: a subclass before its superclasses, otherwise left to
    right; the first result that is not NotImplemented wins."""
    pending = list(found)
    while pending:
        for i, (x, override) in enumerate(pending):
            t = type(x)
            if not any(type(y) is not t and isinstance(y, t) for y, _ in pending[i + 1:]):
                break
        del pending[i]
        result = override(x, ufunc, method, *inputs, **kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(_not_implemented_message(ufunc, method, inputs, kwargs))


def _not_implemented_message(ufunc, method, inputs, kwargs):
    """NumPy's own wording (its formatter when it has one)."""
    formatter = getattr(getattr(np, "_core", None), "_internal", None)
    formatter = getattr(formatter, "array_ufunc_errmsg_formatter", None)
    if formatter is not None:
        return formatter(None, ufunc, method, *inputs, **kwargs)
    return "operand type(s) all returned NotImplemented from __array_ufunc__(%r, %r, ...)" % (
        ufunc, method)


def _out_tuple(out, nout):
    """NumPy's normalised ``out``: a tuple of nout entries, or None when no
    output is given (out=None and all-None tuples alike)."""
    if out is None:
        return None
    if not isinstance(out, tuple):
        if nout != 1:
            raise TypeError("'out' must be a tuple of arrays")
        out = (out,)
    elif len(out) != nout:
        raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
    return None if all(o is None for o in out) else out


# -- ndarray subclasses: NumPy's __array_wrap__ -----------------------------------

def _base(x):
    """x as titer's loops take it: ndarray subclasses as base-class views
    (no copy), other array-likes converted, scalars and None as they are."""
    if x is None or type(x) in (int, float, complex, bool):
        return x
    return np.asarray(x)


def _find_wrap(inputs):
    """(wrap, wrap type) NumPy picks from the inputs: the __array_wrap__ of
    the input with the highest __array_priority__, a subclass's preferred to
    ndarray's at equal priority; (None, ndarray) when only plain arrays or
    scalars come in."""
    wrap, wrap_type, priority = _UNSET, np.ndarray, -np.inf
    for x in inputs:
        if type(x) is np.ndarray:
            if priority < 0.0:
                wrap, priority = None, 0.0
        elif isinstance(x, (np.generic, int, float, complex, bool)):
            if priority < -1000000.0:
                wrap, priority = None, -1000000.0
        else:
            new_wrap = getattr(x, "__array_wrap__", None)
            if new_wrap is None:
                continue
            current = float(getattr(x, "__array_priority__", 0.0))
            if wrap is _UNSET or priority < current or (current == 0.0 and wrap is None):
                wrap, wrap_type, priority = new_wrap, type(x), current
    if wrap is _UNSET:
        wrap = None
    return wrap, wrap_type


def _apply_wrap(result, given_out, wrap, wrap_type, context, return_scalar, force):
    """NumPy's npy_apply_wrap: an out= object is wrapped by its own
    __array_wrap__ (never into a scalar); otherwise the chosen wrap, called
    with (array, context, return_scalar), falling back to the older
    signatures with NumPy's deprecation warning."""
    if given_out is not None:
        result, return_scalar = given_out, False
        if type(given_out) is np.ndarray:
            wrap, wrap_type = None, np.ndarray
        else:
            own = getattr(given_out, "__array_wrap__", None)
            if own is not None:
                wrap, wrap_type = own, type(given_out)
    if not return_scalar and not force and type(result) is wrap_type:
        return result
    if wrap is None:
        return result            # titer's own convention for plain results
    array = result if isinstance(result, np.ndarray) else np.asarray(result)
    scalar = bool(return_scalar and array.ndim == 0)
    try:
        return wrap(array, context, scalar)
    except TypeError:
        pass
    attempts = ((array, context),) if context is not None else ()
    for args in attempts + ((array,),):
        try:
            wrapped = wrap(*args)
        except TypeError:
            continue
        warnings.warn("__array_wrap__ must accept context and return_scalar arguments "
                      "(positionally) in the future. (Deprecated NumPy 2.0)",
                      DeprecationWarning, stacklevel=4)
        return wrapped
    return wrap(array)           # raise the TypeError of the oldest signature


# -- entry points (called by titer's Cython front doors) -------------------------

def elementwise(compute, name, ufunc, nout, out, inputs, kwargs):
    """``titer.elementwise(name, out, *inputs, **kwargs)`` when an operand
    (or out, or where=) is not a plain ndarray or scalar.  `compute` is
    titer.elementwise itself; `ufunc` the NumPy ufunc the name stands for."""
    outs = _out_tuple(out, nout)
    where = kwargs.get("where", True)
    operands = inputs + (outs or ()) + ((where,) if where is not True else ())
    if any(is_dask(x) for x in operands):
        return _dask().elementwise(compute, name, nout, out, inputs, kwargs)
    if not isinstance(ufunc, np.ufunc):
        # titer's `where` op is np.where, not a ufunc: no NEP 13, no wrapping
        return compute(name, _base_out(out), *[_base(x) for x in inputs], **kwargs)
    found = _overriders(operands)
    if found:
        given = {k: kwargs[k] for k, default in _ELEMENTWISE_DEFAULTS
                 if k in kwargs and not _is_default(kwargs[k], default)}
        if outs is not None:
            given["out"] = outs
        return _call_overrides(found, ufunc, "__call__", inputs, given)
    base_out = None if outs is None else tuple(_base(o) for o in outs)
    if base_out is not None and nout == 1:
        base_out = base_out[0]
    result = compute(name, base_out, *[_base(x) for x in inputs], **kwargs)
    results = result if nout > 1 else (result,)
    wrap, wrap_type = _find_wrap(inputs)
    args = inputs + (outs or ())
    wrapped = tuple(
        _apply_wrap(results[i], outs[i] if outs is not None else None, wrap, wrap_type,
                    (ufunc, args, i), np.ndim(results[i]) == 0, True)
        for i in range(nout))
    return wrapped if nout > 1 else wrapped[0]


def _is_default(value, default):
    return value is default or (type(value) is type(default) and value == default)


def _base_out(out):
    return tuple(_base(o) for o in out) if isinstance(out, tuple) else _base(out)


def reduce(compute, name, ufunc, x, axis, dtype, out, keepdims, initial, where):
    """``titer.reduce`` = ``np.<ufunc>.reduce(x, axis=axis, ...)`` for a
    non-plain x or out.  The override gets axis always (titer's default, None,
    is not NumPy's) and the other keywords where they differ from the defaults."""
    outs = _out_tuple(out, 1)
    if is_dask(x) or is_dask(out):
        return _dask().reduce(name, x, axis, dtype, out, keepdims, initial, where)
    found = _overriders((x,) + (outs or ()) + ((where,) if where is not True else ()))
    if found:
        given = {"axis": axis}
        for key, value, default in (("dtype", dtype, None), ("keepdims", keepdims, False),
                                    ("initial", initial, _NO_VALUE), ("where", where, True)):
            if value is not default:
                given[key] = value
        if outs is not None:
            given["out"] = outs
        return _call_overrides(found, ufunc, "reduce", (x,), given)
    given_out = outs[0] if outs is not None else None
    result = compute(name, _base(x), axis, dtype, _base(given_out), keepdims, initial,
                     _base(where) if where is not True else True)
    return _wrap_reduction(result, x, given_out, return_scalar=True)


def accumulate(compute, name, ufunc, x, axis, dtype, out):
    """``titer.accumulate`` = ``np.<ufunc>.accumulate(x, axis=axis, ...)``
    for a non-plain x or out (overrides get axis always, dtype/out if given)."""
    outs = _out_tuple(out, 1)
    if is_dask(x) or is_dask(out):
        return _dask().accumulate(name, x, axis, dtype, out)
    found = _overriders((x,) + (outs or ()))
    if found:
        given = {"axis": axis}
        if dtype is not None:
            given["dtype"] = dtype
        if outs is not None:
            given["out"] = outs
        return _call_overrides(found, ufunc, "accumulate", (x,), given)
    given_out = outs[0] if outs is not None else None
    result = compute(name, _base(x), axis, dtype, _base(given_out))
    return _wrap_reduction(result, x, given_out, return_scalar=False)


def _wrap_reduction(result, x, given_out, return_scalar):
    """NumPy wraps a reduce/accumulate result with the input's __array_wrap__,
    no context, no forced call (an out= of the wrap's type comes back as is)."""
    wrap, wrap_type = _find_wrap((x,))
    scalar = return_scalar and given_out is None and np.ndim(result) == 0
    return _apply_wrap(result, given_out, wrap, wrap_type, None, scalar, False)


# np.<name>'s fallback when the object has no method of that name:
# np.<ufunc>.reduce(x, axis, dtype, out, ...), with the dtype NumPy passes.
_NP_FALLBACK = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
                "any": "logical_or", "all": "logical_and"}


def reduction_method(compute, method, x, axis, dtype, out, kwargs):
    """``titer.sum`` & co. (`method` is NumPy's name) as ``np.sum`` & co. treat
    anything but an exact ndarray: an object's own method, if it has one,
    gets the call (``np.sum`` does so: np.ma, np.matrix, xarray ...), with
    axis, out, the dtype where np.<method> passes it, and the keywords given;
    else ``np.<ufunc>.reduce``'s rules (``reduce`` above).  An ndarray
    subclass whose method is ndarray's, a list or a NumPy scalar is computed
    by titer (`compute`, the titer function itself) and wrapped as NumPy
    wraps a reduction.  `kwargs` holds np._NoValue for what was not given."""
    given = {k: v for k, v in kwargs.items() if v is not _NO_VALUE}
    if is_dask(x) or is_dask(out):
        return _dask().reduction_method(method, x, axis, dtype, out, given)
    own = _own_method(x, method)
    if own is not None:
        if method == "mean" or (dtype is not None and method in ("sum", "prod")):
            given["dtype"] = dtype
        return own(axis=axis, out=out, **given)
    outs = _out_tuple(out, 1)
    found = _overriders((x,) + (outs or ()))
    if found:
        if method == "mean":      # NumPy's _methods._mean works through the ufuncs
            return np.mean(x, axis=axis, dtype=dtype, out=out, **given)
        ufunc = getattr(np, _NP_FALLBACK[method])
        fixed = {"axis": axis, "dtype": bool if method in ("any", "all") else dtype}
        if outs is not None:
            fixed["out"] = outs
        return _call_overrides(found, ufunc, "reduce", (x,), dict(given, **fixed))
    args = {"axis": axis, "out": _base(out)}
    if method in ("sum", "prod", "mean"):
        args["dtype"] = dtype
    result = compute(_base(x), **args, **{k: _base(v) if k == "where" else v
                                          for k, v in given.items()})
    return _wrap_reduction(result, x, out, return_scalar=True)


def _own_method(x, method):
    """The bound method np.<method> would call, or None where NumPy's
    behaviour is ndarray's own (titer computes it): an ndarray subclass that
    inherits the method, NumPy and Python scalars, sequences."""
    if isinstance(x, (np.generic, list, tuple, int, float, complex, bool)):
        return None
    if isinstance(x, np.ndarray) and getattr(type(x), method, None) is getattr(np.ndarray,
                                                                               method):
        return None
    return getattr(x, method, None)

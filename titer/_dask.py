"""Dask arrays through titer: lazy graphs whose every block titer computes.

Imported by ``_duck.py`` only when a Dask array arrives (``titer[dask]``).
Elementwise ops are a ``blockwise`` over the operands, chunks aligned and
broadcast as ``dask.array`` does for ufuncs; reductions a Dask tree
reduction with titer as chunk, combine and aggregate step; scans Dask's
cumulative reduction with titer per block.  Result dtypes come from titer's
own resolution, run on empty stand-ins of the operands (no element of the
data is computed while the graph is built); a bad call raises then, as
``np.<ufunc>`` raises at once.
"""
import functools
import operator

import numpy as np
import dask.array as da
from dask.array.core import _concatenate2, blockwise, handle_out
from dask.array.reductions import cumreduction, reduction
from dask.base import tokenize
from dask.utils import deepmap

from . import _core
from ._duck import is_dask


def _stand_in(x):
    """An operand for type resolution only: arrays become empty arrays of
    their dtype and rank (one element for a 0-d one), scalars stay as they
    are (NEP 50 needs them)."""
    if is_dask(x) or isinstance(x, np.ndarray):
        return np.empty((0,) * x.ndim, x.dtype)
    return x


def _as_operand(x):
    """Lists become arrays, as in dask.array's elemwise."""
    return np.asarray(x) if isinstance(x, (list, tuple)) else x


def _is_array(x):
    return is_dask(x) or isinstance(x, np.ndarray)


# -- elementwise ------------------------------------------------------------------

def _block_elementwise(*blocks, name, options, out_dtype, masked):
    """One block of titer.elementwise.  With where=, the last two blocks are
    the mask and the out block (written in a copy: blocks are shared); with
    an out= dtype, the block is computed into that dtype (NumPy's out=
    casting) instead of the loop's."""
    if masked:
        *inputs, where, out = blocks
        out = None if out is None else out.copy()
        return _core.elementwise(name, out, *inputs, where=where, **options)
    out = None
    if out_dtype is not None:
        out = np.empty(np.broadcast_shapes(*[np.shape(b) for b in blocks]), out_dtype)
    return _core.elementwise(name, out, *blocks, **options)


def elementwise(compute, name, nout, out, inputs, kwargs):
    """A lazy titer.elementwise.  out= follows dask's __array_ufunc__ (what
    np.<ufunc> does with Dask arrays): a Dask array is rebound to the result
    (its blocks in out's dtype, cast as NumPy casts into out=), anything else
    is refused with dask's NotImplementedError."""
    if isinstance(out, tuple):
        out = out[0] if len(out) == 1 else (None if all(o is None for o in out) else out)
    if out is not None and not (nout == 1 and is_dask(out)):
        raise NotImplementedError("The out parameter is not fully supported. Received type "
                                  "%s, expected Dask Array" % type(out).__name__)
    inputs = [_as_operand(x) for x in inputs]
    where = kwargs.get("where", True)
    options = {k: v for k, v in kwargs.items() if k != "where"}
    masked = where is not True and _is_array(_as_operand(where))
    # titer's own type resolution on empty stand-ins: the result dtypes, and
    # the errors NumPy raises at once (casting, no loop, out of range ints)
    probe_out = None if out is None else _stand_in(out)
    probe = compute(name, probe_out, *[_stand_in(x) for x in inputs], **options)
    dtypes = [p.dtype for p in (probe if nout > 1 else (probe,))]
    args = list(inputs)
    if masked:
        args += [_as_operand(where), out]
    elif where is not True:
        options["where"] = where
    shapes = [x.shape for x in args if _is_array(x)]
    ndim = len(np.broadcast_shapes(*shapes))       # NumPy's broadcasting error
    pairs = []
    for x in args:
        pairs += [x, tuple(range(x.ndim))[::-1] if _is_array(x) else None]
    fn = functools.partial(_block_elementwise, name=name, options=options,
                           out_dtype=None if out is None or masked else out.dtype,
                           masked=masked)
    key = "titer-%s-%s" % (name, tokenize(name, options, masked, dtypes, *args))
    out_inds = tuple(range(ndim))[::-1]
    if nout == 1:
        result = blockwise(fn, out_inds, *pairs, name=key, dtype=dtypes[0],
                           meta=np.empty((0,) * ndim, dtypes[0]))
        return handle_out(out, result)
    tuples = blockwise(fn, out_inds, *pairs, name=key, dtype=object,
                       meta=np.empty((0,) * ndim, object))
    return tuple(tuples.map_blocks(operator.getitem, i, dtype=dt,
                                   meta=np.empty((0,) * ndim, dt))
                 for i, dt in enumerate(dtypes))


# -- reductions ---------------------------------------------------------------------

def _block_reduce(x, axis=None, keepdims=False, *, op, dtype, initial):
    """titer.reduce of one block or of the stacked partial results."""
    return _core.reduce(op, x, axis, dtype, None, keepdims, initial)


def _probe_reduce(op, x, axis, dtype, initial):
    """(result dtype, has identity, reorderable) from titer's own checks on
    empty stand-ins; raises what titer (NumPy) raises for the call."""
    stand_in = np.empty((0,) * max(x.ndim, 1), x.dtype)
    kept = np.empty((1,) * x.ndim, x.dtype)
    result = _core.reduce(op, kept, axis, dtype, None, False, initial)
    try:
        _core.reduce(op, stand_in, None, dtype)
        has_identity = True
    except ValueError:
        has_identity = False
    try:
        _core.reduce(op, np.empty((0, 0), x.dtype), (0, 1), dtype, None, False, initial
                     if initial is not np._NoValue else 0)
        reorderable = True
    except ValueError as exc:
        reorderable = "reorderable" not in str(exc)
    return np.asarray(result).dtype, has_identity, reorderable


def reduce(op, x, axis, dtype, out, keepdims, initial, where):
    """titer.reduce as a Dask tree reduction: titer reduces every block
    (keepdims), then the stacked partial results, as often as the tree is
    deep; the initial value enters once, in the last step (in every step for
    ops without an identity, max/min-like ops where repeats do not matter).
    Ops that may not be reordered (NumPy allows one axis) get the axis in
    one chunk first."""
    if where is not True:
        raise NotImplementedError("titer's Dask reductions take no where= mask")
    x = da.asarray(x)
    result_dtype, has_identity, reorderable = _probe_reduce(op, x, axis, dtype, initial)
    if not reorderable:
        x = x.rechunk({a % x.ndim: -1 for a in (axis if isinstance(axis, tuple) else (axis,))}
                      if axis is not None else -1)
    chunk_initial = np._NoValue if has_identity else initial
    chunk = functools.partial(_block_reduce, op=op, dtype=dtype, initial=chunk_initial)
    last = functools.partial(_block_reduce, op=op, dtype=dtype, initial=initial)
    axes = _normalize_axis(axis, x.ndim)
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    return reduction(x, chunk, last, axis=axes, keepdims=keepdims, dtype=result_dtype,
                     combine=chunk, out=out, name="titer-" + op,
                     meta=np.empty((0,) * ndim, result_dtype))


def _normalize_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(out)


# titer.sum & co. for Dask arrays: (op, dtype it reduces in; None: dtype=)
_METHODS = {"sum": ("add", None), "prod": ("multiply", None), "max": ("maximum", None),
            "min": ("minimum", None), "any": ("logical_or", np.bool_),
            "all": ("logical_and", np.bool_)}


def reduction_method(method, x, axis, dtype, out, given):
    keepdims = given.get("keepdims", False)
    where = given.get("where", True)
    if method == "mean":
        return mean(x, axis, dtype, out, keepdims, where)
    op, fixed_dtype = _METHODS[method]
    return reduce(op, x, axis, fixed_dtype or dtype, out, keepdims,
                  given.get("initial", np._NoValue), where)


# -- mean: a sum and a count per block, as dask.array.mean does --------------------

def _mean_dtypes(x_dtype, dtype):
    """(dtype the sums run in, dtype of the result): NumPy's mean sums
    integers in float64 and float16 in float32 (returning float16)."""
    if dtype is not None:
        return np.dtype(dtype), np.dtype(dtype)
    if x_dtype.kind in "biu":
        return np.dtype(np.float64), np.dtype(np.float64)
    if x_dtype == np.float16:
        return np.dtype(np.float32), np.dtype(np.float16)
    return None, x_dtype


def _mean_chunk(x, axis=None, keepdims=False, *, sum_dtype, computing_meta=False):
    if computing_meta:              # dask asks for a meta: the pairs are no array
        return x
    total = _core.reduce("add", x, axis, sum_dtype, None, True)
    count = 1
    for a in axis:
        count *= x.shape[a]
    return {"n": np.full(total.shape, count, np.int64), "total": total}


def _mean_combine(pairs, axis=None, keepdims=False, *, sum_dtype, computing_meta=False):
    if computing_meta:
        return pairs
    n = _concatenate2(deepmap(lambda p: p["n"], pairs), axes=axis)
    total = _concatenate2(deepmap(lambda p: p["total"], pairs), axes=axis)
    return {"n": _core.reduce("add", n, axis, None, None, keepdims),
            "total": _core.reduce("add", total, axis, sum_dtype, None, keepdims)}


def _mean_aggregate(pairs, axis=None, keepdims=False, *, sum_dtype, result_dtype,
                    computing_meta=False):
    if computing_meta:
        return pairs
    merged = _mean_combine(pairs, axis, keepdims, sum_dtype=sum_dtype)
    total = np.asarray(merged["total"])
    out = np.empty(total.shape, result_dtype)
    return _core.elementwise("divide", out, total, merged["n"],
                             dtype=total.dtype, casting="unsafe")


def mean(x, axis, dtype, out, keepdims, where):
    if where is not True:
        raise NotImplementedError("titer's Dask reductions take no where= mask")
    x = da.asarray(x)
    sum_dtype, result_dtype = _mean_dtypes(x.dtype, dtype)
    axes = _normalize_axis(axis, x.ndim)
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    step = functools.partial(_mean_combine, sum_dtype=sum_dtype)
    return reduction(x, functools.partial(_mean_chunk, sum_dtype=sum_dtype),
                     functools.partial(_mean_aggregate, sum_dtype=sum_dtype,
                                       result_dtype=result_dtype),
                     axis=axes, keepdims=keepdims, dtype=result_dtype, combine=step,
                     out=out, concatenate=False, name="titer-mean",
                     meta=np.empty((0,) * ndim, result_dtype))


# -- accumulate -----------------------------------------------------------------------

def _block_accumulate(x, axis, dtype=None, *, op):
    return _core.accumulate(op, x, axis, dtype)


def _block_combine(carry, block, *, op):
    return _core.elementwise(op, None, carry, block)


def accumulate(op, x, axis, dtype, out):
    """titer.accumulate through Dask's sequential cumulative reduction:
    titer scans every block, and titer's op adds the carry of the blocks
    before.  Ops without an identity or that may not be reordered scan the
    axis in one chunk instead (the carry needs both)."""
    x = da.asarray(x)
    stand_in = np.empty((0,) * x.ndim, x.dtype)
    result_dtype = _core.accumulate(op, stand_in, axis, dtype).dtype
    axis = _normalize_axis(axis, x.ndim)[0]
    ident = _identity(op, result_dtype)
    scan = functools.partial(_block_accumulate, op=op)
    if ident is None:
        one_chunk = x.rechunk({axis: -1})
        result = one_chunk.map_blocks(scan, axis, dtype, dtype=result_dtype,
                                      name="titer-accumulate-%s-%s" % (
                                          op, tokenize(one_chunk, axis, dtype)),
                                      meta=np.empty((0,) * x.ndim, result_dtype))
        return handle_out(out, result)
    scan.__name__ = "titer_accumulate_" + op       # cumreduction names its keys by it
    return cumreduction(scan, functools.partial(_block_combine, op=op), ident, x, axis,
                        result_dtype, out=out)


def _identity(op, dtype):
    """The op's identity in `dtype` (titer's reduction of nothing), or None
    when it has none or may not be reordered."""
    try:
        _core.reduce(op, np.empty((0, 0), dtype), (0, 1))
        return _core.reduce(op, np.empty((0,), dtype), 0, dtype)
    except ValueError:
        return None

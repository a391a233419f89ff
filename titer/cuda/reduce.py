"""``titer.reduce`` (sum, prod, max, min, any, all, mean) and
``titer.accumulate`` for CuPy arrays, with titer's reduction kernels.

The semantics are the CPU path's (``titer/_reduce.pxi``): NumPy's loop dtype,
identity / ``initial=`` / ``where=``, ``keepdims``, ``out=`` of any dtype,
the output laid out in the input's dim order.  The plan is the CPU
iterator's reduction plan over stand-ins (reduced dims have output stride 0),
split into reduced and kept dims for ``titer_reduce.cuh``.  An input of
another dtype is converted while it is loaded (no converted copy); an output
of another dtype, or one overlapping the input, is written through a
temporary in the loop dtype and copied by ``copy.cu``.

Reorderable reductions combine in a fixed tree (bit-identical run to run,
but floating-point sums round differently from NumPy's pairwise order:
within a few ULP of the exact sum); integer, bool, max/min results equal
NumPy's.  Non-reorderable ops (subtract, divide, ...) fold in order.
"""
import numpy as np

from .. import _core
from . import dispatch, plan as _plan, plan_cache
from .copy import allocate, backend_manifest, copy_view
from .plan import contiguous_strides
from .dispatch import (DeviceInfo, dtype_code, is_device_array, stand_in)

try:
    from .. import _ops
except ImportError:            # vendored without the package around it
    import _ops  # type: ignore

_REORDERABLE = {}


def _entry(name):
    canonical = _ops.canonical_name(name) if isinstance(name, str) else None
    op = _ops.OPS_BY_NAME.get(canonical) if canonical else None
    if op is None:
        raise ValueError("titer has no operation %r; titer.ops() lists the supported ones"
                         % (name,))
    ufunc = getattr(np, op.name, None)
    if op.nin != 2 or op.nout != 1 or not isinstance(ufunc, np.ufunc):
        raise ValueError("reduce only supported for binary functions (%s has %d inputs, "
                         "%d outputs)" % (op.name, op.nin, op.nout))
    return op, ufunc


def _reorderable(op, ufunc):
    """NumPy's verdict on a one-element probe (the CPU path's rule)."""
    if op.name not in _REORDERABLE:
        try:
            ufunc.reduce(np.ones((1, 1), op.types[0][0]), axis=(0, 1))
            _REORDERABLE[op.name] = True
        except ValueError:
            _REORDERABLE[op.name] = False
        except Exception:
            _REORDERABLE[op.name] = True
    return _REORDERABLE[op.name]


def _loop_dtype(op, ufunc, x_dtype, dtype, out_dtype, kernels):
    if dtype is not None:
        resolved = ufunc.resolve_dtypes((None, x_dtype, None), signature=(np.dtype(dtype), None,
                                                                           None),
                                        reduction=True, casting="unsafe")
    else:
        resolved = ufunc.resolve_dtypes((out_dtype, x_dtype, None), reduction=True,
                                        casting="unsafe")
    T = np.dtype(resolved[2])
    dtype_code(T)
    sig = "%s%s->%s" % (T.char, T.char, T.char)
    entry = kernels["ops"].get(op.name, {}).get("kernels", {}).get(sig)
    if entry is None or "reduce_acc" not in entry:
        raise TypeError("titer has no CUDA %s reduction kernel for %s" % (op.name, T))
    return T, entry


def keep_order_strides(shape, x_strides, itemsize):
    """Packed strides for `shape` in the input's dim order (NumPy's order='K'
    for reductions, the CPU path's _keep_order_empty)."""
    order = sorted(range(len(shape)), key=lambda d: -abs(x_strides[d]))
    return contiguous_strides(shape, itemsize, order)


def _operands(what, name, x, out, backend):
    """The checks reduce and accumulate share: (op, ufunc, out, backend,
    kernel manifest, x's DeviceInfo, out's DeviceInfo or None)."""
    op, ufunc = _entry(name)
    if isinstance(x, np.ndarray) or not is_device_array(x):
        raise TypeError("titer.%s: expected a device array, got %s" % (what, type(x).__name__))
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    if out is not None and not is_device_array(out):
        raise TypeError("output must be a device array here, got %s" % type(out).__name__)
    backend = backend or dispatch.default_backend()
    xi = DeviceInfo(x)
    dtype_code(xi.dtype)
    oi = DeviceInfo(out) if out is not None else None
    if oi is not None:
        dtype_code(oi.dtype)
    return op, ufunc, out, backend, backend_manifest(backend), xi, oi


def _sm_count(backend):
    get = getattr(backend, "sm_count", None)
    return get() if get is not None else 132


def reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
           where=True, backend=None):
    """``numpy.<name>.reduce`` on a device array (a 0-d device array when the
    result is a scalar, as CuPy returns)."""
    backend = backend or dispatch.default_backend()
    key = None
    if out is None and where is True:
        done, key = plan_cache.replay_reduction(backend, name, x, axis, dtype, keepdims, initial,
                                                launch_reduction)
        if done is not None:
            return done
    op, ufunc, out, backend, kernels, xi, oi = _operands("reduce", name, x, out, backend)
    from .._core import _normalize_axes
    ndim = len(xi.shape)
    axes = _normalize_axes(axis, ndim)
    ordered = not _reorderable(op, ufunc)
    if ordered and len(axes) > 1:
        raise ValueError("reduction operation '%s' is not reorderable, so at most one axis "
                         "may be specified" % op.name)
    T, entry = _loop_dtype(op, ufunc, xi.dtype, dtype, oi.dtype if oi else None, kernels)
    keep_shape = tuple(1 if d in axes else xi.shape[d] for d in range(ndim))
    result_shape = keep_shape if keepdims else tuple(xi.shape[d] for d in range(ndim)
                                                     if d not in axes)
    if oi is not None:
        if oi.shape != result_shape:
            raise ValueError("output parameter for reduction operation %s has the wrong shape:"
                             " found %s but expected %s" % (op.name, oi.shape, result_shape))
        if getattr(getattr(out, "flags", None), "writeable", True) is False:
            raise ValueError("output array is read-only")
    nred = _plan.numel([xi.shape[d] for d in axes])
    nout = _plan.numel(result_shape)
    identity = op.identity if op.identity is not None else ufunc.identity
    init_value = initial if initial is not np._NoValue else identity
    if initial is None:
        init_value = None
    masked = where is not True
    if masked and init_value is None:
        raise ValueError("reduction operation '%s' does not have an identity, so to use a "
                         "where mask one has to specify 'initial'" % op.name)
    if nred == 0 and init_value is None:
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % op.name)
    if masked:
        mask = _device_mask(where, xi, backend)
    devices = {backend.device_of(x)} | ({backend.device_of(out)} if out is not None else set())
    if masked and mask is not None:
        devices.add(backend.device_of(mask.array))
    if len(devices) > 1:
        raise ValueError("titer.reduce: operands are on different devices %s" % sorted(devices))
    init = _core._scalar_bytes(init_value, T) if init_value is not None else None

    _check_integer_power(op, T, xi, axes, init, backend, devices)

    # the result in the loop dtype, as (array, its keepdims view's metadata)
    direct = oi is not None and oi.dtype == T and not oi.overlaps(xi)
    if direct:
        res_arr, res = out, oi
    else:
        res_arr, res = allocate(backend, result_shape, T,
                                _squeeze(keep_order_strides(keep_shape, xi.strides, T.itemsize),
                                         axes, keepdims), devices)
    keep_strides = _unsqueeze(res.strides, axes, ndim, keepdims)
    resk = DeviceInfo.of(res.ptr, keep_shape, keep_strides, T)

    if nout > 0 and nred == 0:
        copy_view(backend, resk, init, devices)
    elif nout > 0:
        src = xi
        if masked:
            # masked-out slots hold the identity (or, for ops without one, the
            # initial value: max/min-like ops absorb repeats of it); titer's
            # where kernel writes them into a loop-dtype copy of x
            from .dispatch import elementwise
            tmp_arr, src = allocate(backend, xi.shape, T,
                                    keep_order_strides(xi.shape, xi.strides, T.itemsize),
                                    devices)
            copy_view(backend, src, xi, devices)
            fill = init if identity is None else _core._scalar_bytes(identity, T)
            elementwise("where", tmp_arr, mask.array if mask is not None else bool(where),
                        tmp_arr, fill[()], backend=backend)
        launches, scratch = _run_reduction(backend, op.name, entry, T, resk, src, init, ordered,
                                           devices)
        if key is not None and not masked and not (op.name == "power" and T.kind == "i"):
            plan_cache.remember_reduction(
                backend, key, op.name, T, identity, res, launches, scratch,
                (entry["stem"], entry["reduce_acc"], dtype_code(xi.dtype), dtype_code(T), ordered))
    if oi is not None and not direct:
        copy_view(backend, oi, res, devices)
        return out
    return res_arr


def lowest(backend, info, devices):
    """The smallest element of a device view (titer's minimum reduction over
    every dim), read back to the host; None when empty."""
    if _plan.numel(info.shape) == 0:
        return None
    T = info.dtype
    sig = "%s%s->%s" % (T.char, T.char, T.char)
    entry = backend_manifest(backend)["ops"]["minimum"]["kernels"][sig]
    arr, res = allocate(backend, (), T, (), devices)
    resk = DeviceInfo.of(res.ptr, (1,) * len(info.shape), (0,) * len(info.shape), T)
    _run_reduction(backend, "minimum", entry, T, resk, info, None, False, devices)
    get = getattr(arr, "get", None)
    return (get() if get is not None else np.asarray(arr))[()]


def _check_integer_power(op, T, xi, axes, init, backend, devices):
    """np.power.reduce raises for a negative exponent (every element after
    the first along the axis, or every one after an initial value); a
    kernel cannot raise, so the exponents are checked first."""
    if op.name != "power" or T.kind != "i" or not axes:
        return
    ax = axes[0]
    exps = xi
    if init is None:
        shape = list(xi.shape)
        shape[ax] = max(shape[ax] - 1, 0)
        exps = DeviceInfo.of(xi.ptr + xi.strides[ax], shape, xi.strides, xi.dtype)
    low = lowest(backend, exps, devices)
    if low is not None and low < 0:
        raise ValueError(dispatch._NEGATIVE_POWER)


def _device_mask(where, xi, backend):
    """where= as a DeviceInfo broadcast to x (None for a Python/NumPy bool)."""
    if isinstance(where, (bool, np.bool_)):
        return None
    if isinstance(where, np.ndarray) or not is_device_array(where):
        raise TypeError("titer.reduce: where= must be a device array (or a bool) with device "
                        "arrays, got %s" % type(where).__name__)
    info = DeviceInfo(where)
    if info.dtype != np.bool_:
        raise TypeError("where= must be a boolean array, got dtype %s" % info.dtype)
    try:
        fits = np.broadcast_shapes(info.shape, xi.shape) == xi.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError("where= of shape %s does not broadcast to the input's shape %s"
                         % (info.shape, xi.shape))
    return info


def _squeeze(strides, axes, keepdims):
    if keepdims:
        return strides
    return tuple(s for d, s in enumerate(strides) if d not in axes)


def _unsqueeze(strides, axes, ndim, keepdims):
    if keepdims:
        return tuple(0 if d in axes else s for d, s in enumerate(strides))
    it = iter(strides)
    return tuple(0 if d in axes else next(it) for d in range(ndim))


def _run_reduction(backend, module, entry, T, resk, src, init, ordered, devices):
    """Plan and launch one reduction of src (any dtype) into resk (T,
    keepdims shape, reduced dims stride 0)."""
    from .._core import IterConfig
    cfg = (IterConfig().is_reduction(True).resize_outputs(False).check_all_same_dtype(False)
           .check_mem_overlap(False))
    cfg.add_output(stand_in(resk.shape, resk.strides, T))
    cfg.add_input(stand_in(src.shape, src.strides, src.dtype))
    it = cfg.build()
    rp = _plan.split_reduction(tuple(it.shape), tuple(it.strides(0)), tuple(it.strides(1)))
    return launch_reduction(backend, module, entry["stem"], entry["reduce_acc"], rp, src.ptr,
                            resk.ptr, dtype_code(src.dtype), dtype_code(T),
                            init.tobytes() if init is not None else None, ordered, devices)


def launch_reduction(backend, module, stem, acc_size, rp, in_addr, out_addr, in_code,
                     loop_code, init_bytes, ordered, devices):
    """Plan one reduction plan's launches (and scratch) and launch them;
    (launches, scratch bytes)."""
    scratch, launches = _plan.plan_reduction(stem, rp, in_addr, out_addr, in_code, loop_code,
                                             init_bytes, ordered, acc_size, _sm_count(backend))
    keep = None
    if scratch:
        keep, part = allocate(backend, (scratch,), np.uint8, (1,), devices)
        _plan.set_partial(launches, part.ptr)
    device = next(iter(devices)) if devices else None
    for launch in launches:
        backend.launch(module, launch, device)
    del keep          # freed after the launches are queued: stream order keeps it valid
    return launches, scratch


def accumulate(name, x, axis=0, dtype=None, out=None, backend=None):
    """``numpy.<name>.accumulate`` on a device array: a sequential scan per
    line (NumPy's order and bits), lines in parallel."""
    op, ufunc, out, backend, kernels, xi, oi = _operands("accumulate", name, x, out, backend)
    if len(xi.shape) == 0:
        raise TypeError("cannot accumulate on a scalar")
    if axis is None or isinstance(axis, (tuple, list)):
        raise TypeError("accumulate takes one integer axis, got %r" % (axis,))
    from .._core import _normalize_axes
    ax = _normalize_axes(axis, len(xi.shape))[0]
    if oi is not None:
        if oi.shape != xi.shape:
            raise ValueError("accumulate output shape %s does not match the input shape %s"
                             % (oi.shape, xi.shape))
        if getattr(getattr(out, "flags", None), "writeable", True) is False:
            raise ValueError("output array is read-only")
    T, entry = _loop_dtype(op, ufunc, xi.dtype, dtype, oi.dtype if oi else None, kernels)
    devices = {backend.device_of(x)} | ({backend.device_of(out)} if out is not None else set())
    if len(devices) > 1:
        raise ValueError("titer.accumulate: operands are on different devices %s"
                         % sorted(devices))
    direct = oi is not None and oi.dtype == T and (oi.same_view(xi) or not oi.overlaps(xi))
    if direct:
        res_arr, res = out, oi
    else:
        res_arr, res = allocate(backend, xi.shape, T,
                                keep_order_strides(xi.shape, xi.strides, T.itemsize), devices)
    if _plan.numel(xi.shape) > 0:
        from .._core import IterConfig
        squash = tuple(1 if d == ax else n for d, n in enumerate(xi.shape))
        cfg = (IterConfig().resize_outputs(False).check_all_same_dtype(False)
               .check_mem_overlap(False).declare_static_shape(squash))
        cfg.add_output(stand_in(squash, res.strides, T))
        cfg.add_input(stand_in(squash, xi.strides, xi.dtype))
        it = cfg.build()
        kshape, kin, kout = [], [], []
        for n, so, si in zip(it.shape, it.strides(0), it.strides(1)):
            if n != 1:
                kshape.append(n)
                kin.append(si)
                kout.append(so)
        rp = _plan.ReducePlan((xi.shape[ax],), (xi.strides[ax],), tuple(kshape), tuple(kin),
                              tuple(kout))
        launch = _plan.plan_scan(entry["stem"], rp, xi.ptr, res.ptr, dtype_code(xi.dtype),
                                 dtype_code(T), res.strides[ax])
        backend.launch(op.name, launch, next(iter(devices)))
    if oi is not None and not direct:
        copy_view(backend, oi, res, devices)
        return out
    return res_arr


def mean(x, axis=None, dtype=None, out=None, keepdims=False, where=True, backend=None):
    """``numpy.mean`` on a device array: titer's sum, then titer's divide by
    the count (float64 sums for integers, float32 for float16, as NumPy)."""
    import warnings
    from .dispatch import elementwise
    backend = backend or dispatch.default_backend()
    xi = DeviceInfo(x)
    from .._core import _normalize_axes
    axes = _normalize_axes(axis, len(xi.shape))
    half_result = False
    if dtype is None:
        if xi.dtype.kind in "biu":
            dtype = np.float64
        elif xi.dtype.kind == "f" and xi.dtype.itemsize == 2:
            dtype = np.float32
            half_result = out is None
    if where is True:
        count = _plan.numel([xi.shape[d] for d in axes])
        empty = count == 0
    else:
        mask = _device_mask(where, xi, backend)
        if mask is None:
            raise TypeError("titer.mean: where=False selects nothing")
        ones = backend.empty(xi.shape, np.dtype(np.intp),
                             contiguous_strides(xi.shape, np.dtype(np.intp).itemsize), set())
        # the count per output: titer's sum of the broadcast mask
        copy_view(backend, DeviceInfo(ones), mask, None)
        count = reduce("add", ones, axes, np.intp, None, keepdims, backend=backend)
        empty = bool((np.asarray(_host_of(count)) == 0).any())
    if empty:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    total = reduce("add", x, axes, dtype, out, keepdims, where=where, backend=backend)
    elementwise("divide", total, total, count, casting="unsafe", backend=backend)
    if half_result:
        ti = DeviceInfo(total)
        half = backend.empty(ti.shape, xi.dtype, contiguous_strides(ti.shape, 2), set())
        copy_view(backend, DeviceInfo(half), ti, None)
        total = half
    return total


def _host_of(arr):
    get = getattr(arr, "get", None)
    return get() if get is not None else np.asarray(arr)

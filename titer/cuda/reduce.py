"""``titer.reduce`` (sum, prod, max, min, any, all, mean) and
``titer.accumulate`` for CuPy arrays, with titer's reduction kernels.

The semantics are NumPy's, from the front end the CPU path shares
(``titer/_frontend.py``: the axes, the reorder rule, the loop dtype,
identity / ``initial=``, ``out=``'s checks, mean's dtypes, the output laid
out in the input's dim order), with ``where=``, ``keepdims`` and ``out=`` of
any dtype.  The plan is the CPU
iterator's reduction plan over stand-ins (reduced dims have output stride 0),
split into reduced and kept dims for ``titer_reduce.cuh``.  An input of
another dtype is converted while it is loaded (no converted copy); an output
of another dtype, or one overlapping the input, is written through a
temporary in the loop dtype and copied by ``copy.cu``.

Reorderable reductions combine in a fixed tree (bit-identical run to run,
but floating-point sums round differently from NumPy's pairwise order:
within a few ULP of the exact sum); integer, bool, max/min results equal
NumPy's.  Non-reorderable ops (subtract, divide, ...) fold in order.

The third executor: imports ``device``, ``plan``, ``launcher``,
``plan_cache``, ``copy`` and ``dispatch`` (a where= mask and mean's divide
run titer's elementwise kernels).
"""

import numpy as np

from .. import _core, _frontend, _ops
from . import launcher, plan_cache
from . import plan as _plan
from .copy import copy_view
from .device import (DeviceInfo, backend_manifest, bool_mask, check_not_numpy, dtype_code,
                     is_device_array, is_operand_array, one_device, stand_in, writeable)
from .dispatch import elementwise
from .launcher import allocate
from .plan import contiguous_strides


def reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
           where=True, backend=None):
    """``numpy.<name>.reduce`` on a device array (a 0-d device array when the
    result is a scalar, as CuPy returns)."""
    backend = backend or launcher.default_backend()
    key = None
    if out is None and where is True:
        done, key = plan_cache.replay_reduction(backend, name, x, axis, dtype, keepdims, initial)
        if done is not None:
            return done
    xi = _device_input("titer.reduce", x)
    return _reduce(backend, name, xi, {backend.device_of(x)}, axis, dtype, out, keepdims,
                   initial, where, key)


def reduce_computed(name, xi, device, axis, out, fused, backend, trace=None):
    """``numpy.<name>.reduce(axis=axis, out=out)`` of values no array
    holds: `xi` describes the result a program would write (its address a
    virtual one) and ``fused(module, T, launch, device)`` launches the
    reduction's first kernel computing them (titer/cuda/evaluate.py);
    the rest is titer.reduce's.  `trace` (a dict) gets what a replay
    needs where the result is a new array: the planned launches, the
    scratch bytes, the result's (shape, strides, dtype)."""
    return _reduce(backend, name, xi, {device}, axis, None, out, False, np._NoValue, True,
                   None, fused, trace)


def _reduce(backend, name, xi, x_devices, axis, dtype, out, keepdims, initial, where, key,
            fused=None, trace=None):
    op, ufunc = _frontend.reduction_op(name)
    axes = _frontend.normalize_axes(axis, len(xi.shape))
    _frontend.check_reorder(op, axes)
    out, oi = _device_output("titer.reduce", out)
    T, entry = _loop(backend, op, ufunc, xi, dtype, oi)
    result_shape = _frontend.reduction_shape(xi.shape, axes, keepdims)
    if oi is not None:
        _frontend.check_reduction_out(op.name, oi.shape, result_shape, writeable(out))
    nred = _plan.numel([xi.shape[d] for d in axes])
    identity, start = _frontend.reduction_start(op, ufunc, initial, where is not True, nred)
    mask = _reduction_mask(where, xi)
    devices = one_device("titer.reduce", x_devices | _devices(backend, out, mask))
    init = _core._scalar_bytes(start, T) if start is not None else None
    _check_integer_power(op, T, xi, axes, init, backend, devices)

    # the result in the loop dtype, as (array, its keepdims view's metadata)
    direct = oi is not None and oi.dtype == T and not oi.overlaps(xi)
    if direct:
        res_arr, res = out, oi
    else:
        keep_shape = _frontend.reduction_shape(xi.shape, axes, True)
        res_arr, res = allocate(backend, result_shape, T,
                                _squeeze(_keep_order_strides(keep_shape, xi.strides, T),
                                         axes, keepdims), devices)
    resk = _keepdims_view(res, xi, axes, keepdims)
    if _plan.numel(result_shape) > 0 and nred == 0:
        copy_view(backend, resk, init, devices)
    elif (_plan.numel(result_shape) > 0 and mask is not True and identity is None
          and op.name not in _ops.ABSORBING):
        copy_view(backend, resk, init, devices)
        if mask is not False:
            _masked_left_fold(backend, op.name, xi.array, mask, axes, res_arr, keepdims, T)
    elif _plan.numel(result_shape) > 0:
        src = xi
        if mask is not True:
            fill = init if identity is None else _core._scalar_bytes(identity, T)
            src = _masked_input(backend, xi, T, mask, fill, devices)
        ordered = op.name not in _ops.REORDERABLE
        launches, scratch = launcher.run_reduction(backend, op.name, entry, T, resk, src, init,
                                                   ordered, devices, fused)
        if trace is not None and oi is None:
            trace.update(launches=launches, scratch=scratch,
                         alloc=(result_shape, res.strides, T))
        if key is not None and not (op.name == "power" and T.kind == "i"):
            plan_cache.remember_reduction(
                backend, key, op.name, T, identity, res, launches, scratch,
                (entry["stem"], entry["reduce_acc"], dtype_code(xi.dtype), dtype_code(T), ordered))
    if oi is not None and not direct:
        copy_view(backend, oi, res, devices)
        return out
    return res_arr


def _device_input(what, x):
    """x's DeviceInfo: a reduction's input is one device array."""
    if not is_device_array(x):
        raise TypeError("%s: expected a device array, got %s" % (what, type(x).__name__))
    xi = DeviceInfo(x)
    dtype_code(xi.dtype)
    return xi


def _device_output(what, out):
    """(out, its DeviceInfo), or (None, None) to allocate."""
    out = _frontend.reduction_out(out, is_operand_array)
    check_not_numpy(what, (out,))
    if out is None:
        return None, None
    oi = DeviceInfo(out)
    dtype_code(oi.dtype)
    return out, oi


def _devices(backend, out=None, mask=True):
    devices = set()
    if out is not None:
        devices.add(backend.device_of(out))
    if isinstance(mask, DeviceInfo):
        devices.add(backend.device_of(mask.array))
    return devices


def _loop(backend, op, ufunc, xi, dtype, oi):
    """(the front end's loop dtype, the manifest entry of its kernel)."""
    T = _frontend.reduction_loop_dtype(ufunc, xi.dtype, dtype,
                                       oi.dtype if oi is not None else None)
    dtype_code(T)
    sig = "%s%s->%s" % (T.char, T.char, T.char)
    entry = backend_manifest(backend)["ops"].get(op.name, {}).get("kernels", {}).get(sig)
    if entry is None or "reduce_acc" not in entry:
        raise TypeError("titer has no CUDA %s reduction kernel for %s" % (op.name, T))
    return T, entry


def _keep_order_strides(shape, x_strides, T):
    """Packed strides for `shape` in the input's dim order (NumPy's order='K'
    for the result of a reduction or a scan)."""
    return contiguous_strides(shape, T.itemsize, _frontend.keep_order_dims(x_strides))


def _keepdims_view(res, xi, axes, keepdims):
    """The result as the kernels write it: x's rank, reduced dims of size 1
    and stride 0."""
    ndim = len(xi.shape)
    shape = _frontend.reduction_shape(xi.shape, axes, True)
    return DeviceInfo.of(res.ptr, shape, _unsqueeze(res.strides, axes, ndim, keepdims),
                         res.dtype)


def _reduction_mask(where, xi):
    """where= of a reduction: a bool, or a bool device array broadcasting to x."""
    mask = bool_mask("titer.reduce", where)
    if isinstance(mask, DeviceInfo):
        _check_broadcasts(mask.shape, xi.shape)
    return mask


def _check_broadcasts(mask_shape, shape):
    if not _frontend.broadcasts_into(mask_shape, shape):
        raise ValueError("where= of shape %s does not broadcast to the input's shape %s"
                         % (mask_shape, shape))


def _masked_left_fold(backend, name, x, mask, axes, res_arr, keepdims, T):
    """A where= reduction of an op without an identity, NumPy's left fold
    from initial= (already in the result) over the selected elements: one
    masked elementwise kernel per position along the one reduced axis (the
    CPU folds in C; no masked fold kernel here yet)."""
    if not axes:
        return
    axis, ndim = axes[0], len(mask.shape)
    acc = res_arr if keepdims else res_arr.reshape(
        _frontend.reduction_shape(DeviceInfo(x).shape, axes, True))
    mask_axis = axis - (len(DeviceInfo(x).shape) - ndim)      # where= broadcasts from the right
    index, mask_index = [slice(None)] * len(acc.shape), [slice(None)] * ndim
    for k in range(DeviceInfo(x).shape[axis]):
        index[axis] = slice(k, k + 1)
        if mask_axis >= 0 and mask.shape[mask_axis] != 1:
            mask_index[mask_axis] = slice(k, k + 1)
        elementwise(name, acc, acc, x[tuple(index)], dtype=T, casting="unsafe",
                    where=mask.array[tuple(mask_index)], backend=backend)


def _masked_input(backend, xi, T, mask, fill, devices):
    """x in the loop dtype with the masked-out slots holding `fill` (the
    identity; for ops without one, the initial value: max/min-like ops
    absorb repeats of it), written by titer's copy and where kernels."""
    tmp_arr, src = allocate(backend, xi.shape, T, _keep_order_strides(xi.shape, xi.strides, T),
                            devices)
    copy_view(backend, src, xi, devices)
    elementwise("where", tmp_arr, mask.array if isinstance(mask, DeviceInfo) else mask,
                tmp_arr, fill[()], backend=backend)
    return src


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
    launcher.check_no_negative(backend, exps, devices)


def _squeeze(strides, axes, keepdims):
    if keepdims:
        return strides
    return tuple(s for d, s in enumerate(strides) if d not in axes)


def _unsqueeze(strides, axes, ndim, keepdims):
    if keepdims:
        return tuple(0 if d in axes else s for d, s in enumerate(strides))
    it = iter(strides)
    return tuple(0 if d in axes else next(it) for d in range(ndim))


def accumulate(name, x, axis=0, dtype=None, out=None, backend=None):
    """``numpy.<name>.accumulate`` on a device array: a sequential scan per
    line (NumPy's order and bits), lines in parallel."""
    backend = backend or launcher.default_backend()
    op, ufunc = _frontend.reduction_op(name)
    xi = _device_input("titer.accumulate", x)
    ax = _frontend.scan_axis(axis, len(xi.shape))
    out, oi = _device_output("titer.accumulate", out)
    if oi is not None:
        _frontend.check_scan_out(oi.shape, xi.shape, writeable(out))
    T, entry = _loop(backend, op, ufunc, xi, dtype, oi)
    devices = one_device("titer.accumulate", {backend.device_of(x)} | _devices(backend, out))
    direct = oi is not None and oi.dtype == T and (oi.same_view(xi) or not oi.overlaps(xi))
    if direct:
        res_arr, res = out, oi
    else:
        res_arr, res = allocate(backend, xi.shape, T,
                                _keep_order_strides(xi.shape, xi.strides, T), devices)
    if _plan.numel(xi.shape) > 0:
        _launch_scan(backend, op, entry, T, xi, res, ax, devices)
    if oi is not None and not direct:
        copy_view(backend, oi, res, devices)
        return out
    return res_arr


def _launch_scan(backend, op, entry, T, xi, res, ax, devices):
    """One scan launch: the iterator orders and coalesces the kept dims
    (the scanned one squashed to 1), each line runs along `ax`."""
    squash = tuple(1 if d == ax else n for d, n in enumerate(xi.shape))
    cfg = (_core.IterConfig().resize_outputs(False).check_all_same_dtype(False)
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


def mean(x, axis=None, dtype=None, out=None, keepdims=False, where=True, backend=None):
    """``numpy.mean`` on a device array: the front end's mean over this
    executor's sum, count and divide (a 0-d device array for a scalar)."""
    return _frontend.mean(_DeviceMean(backend or launcher.default_backend()),
                          x, axis, dtype, out, keepdims, where)


class _DeviceMean:
    """The device executor's primitives for the front end's mean."""
    frames = 1                          # this module's mean

    def __init__(self, backend):
        self.backend = backend

    def shape_dtype(self, x):
        xi = _device_input("titer.mean", x)
        return xi.shape, xi.dtype

    def mask(self, where, shape):
        """A device intp array of where= broadcast to `shape` (NumPy's
        ValueError where it does not broadcast)."""
        mask = bool_mask("titer.mean", where)
        intp = np.dtype(np.intp)
        ones, oi = allocate(self.backend, shape, intp, contiguous_strides(shape, intp.itemsize),
                            set())
        if isinstance(mask, DeviceInfo):
            _check_broadcasts(mask.shape, shape)
            copy_view(self.backend, oi, mask, None)
        else:
            elementwise("where", ones, True, int(mask), int(mask), backend=self.backend)
        return ones

    def count(self, mask, axes, keepdims):
        return reduce("add", mask, axes, np.intp, None, keepdims, backend=self.backend)

    def reduce(self, name, x, axes, dtype, out, keepdims, where):
        return reduce(name, x, axes, dtype, out, keepdims, where=where, backend=self.backend)

    def minimum(self, count):
        if _plan.numel(DeviceInfo(count).shape) == 0:
            return None
        return int(_host_of(reduce("minimum", count, None, backend=self.backend)))

    def divide(self, total, count):
        elementwise("divide", total, total, count, casting="unsafe", backend=self.backend)

    def narrow(self, total, dtype):
        ti = DeviceInfo(total)
        narrowed, ni = allocate(self.backend, ti.shape, dtype,
                                contiguous_strides(ti.shape, dtype.itemsize), set())
        copy_view(self.backend, ni, ti, None)
        return narrowed


def _host_of(arr):
    get = getattr(arr, "get", None)
    return get() if get is not None else np.asarray(arr)

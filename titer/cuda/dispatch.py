"""``titer.elementwise`` for CuPy arrays: NumPy's semantics, titer's kernels.

``elementwise(name, out, *inputs, dtype=None, casting="same_kind", where=True,
order="K")`` is what ``titer.elementwise`` calls when an operand has
``__cuda_array_interface__``.  The steps are the CPU path's:

1. the call's arguments and loop dtypes from the front end
   (``titer/_frontend.py``, which the CPU path calls too): NumPy's
   exceptions in NumPy's order, NEP 50 for Python scalars;
2. the iterator plan from titer's own CPU iterator, run on zero-size NumPy
   stand-ins carrying the device arrays' shapes and strides -- so
   ``out=None`` gets exactly the CPU path's output layout;
3. allocate the output on the device, copy an input that partially overlaps
   the output (NumPy's rule), and launch the kernels ``plan.py`` chooses
   (vectorized / offset / cast; split for 32-bit indexing).

The device work goes through a backend: ``CupyBackend`` on a GPU; the tests
use a host backend that runs the same kernels compiled with g++.

The second executor: imports ``device``, ``plan``, ``launcher``,
``plan_cache`` and ``copy``; ``reduce.py`` imports this.
"""
from collections import namedtuple

import numpy as np

from .. import _core, _frontend
from . import launcher, plan_cache
from . import plan as _plan
from .copy import clone, copy_view, preserve_order
from .device import (DeviceInfo, backend_manifest, bool_mask, check_not_numpy, dtype_code,
                     is_device_array, is_operand_array, one_device, stand_in)
from .launcher import allocate

_WHAT = "titer.elementwise"

# A resolved call: the op, the front end's Resolution, the kernel's manifest
# entry, and where it runs.
_Call = namedtuple("_Call", "op found entry backend devices")


def elementwise(name, out, *inputs, dtype=None, casting="same_kind", where=True, order="K",
                backend=None):
    """``numpy.<name>(*inputs, out=out, dtype=, casting=, where=, order=)`` on
    device arrays with titer's kernels (a 0-d result stays a device array,
    as CuPy returns it)."""
    op = _frontend.lookup(name)
    _frontend.check_arity(name, op.nin, inputs)
    order = _frontend.normalize_order(order)
    where = _frontend.where_mask(where)
    outs = _frontend.normalize_out(out, op.nout, is_operand_array)
    backend = backend or launcher.default_backend()
    cache_key = None
    fast = _frontend.power_fast_op(op, inputs)     # decided by a value: no replay
    if where is True and order == "K" and fast is None:
        done, cache_key = plan_cache.replay_elementwise(backend, op, outs, inputs, dtype, casting)
        if done is not None:
            return done
    infos, mask, devices = _operands(outs, inputs, where, backend)
    args = [info if info is not None else _frontend.scalar_operand(x, op.nin)
            for x, info in zip(inputs, infos[op.nout:])]
    found = _resolve(op, infos, args, dtype, casting, where is not True)
    if fast is not None and found.loop_in[1].char in "fd":
        # NumPy's power with that scalar exponent: its reciprocal, sqrt or
        # square, in the loop dtype (the call's checks are done)
        return elementwise(fast, out, inputs[0], dtype=found.loop_out[0], casting="unsafe",
                           where=where, order=order, backend=backend)
    if op.nin == 1:
        args = _frontend.object_int_operands(args, found.loop_in)
    call = _Call(op, found, _kernel(backend, op.name, found.signature), backend, devices)
    if where is not True or order != "K":
        return _where_or_order(call, outs, infos, args, mask, order)
    return _compute(call, outs, infos, args, cache_key)


def _operands(outs, inputs, where, backend):
    """(DeviceInfos of the outputs then the inputs -- None for a scalar or
    an output to allocate --, the where= mask, the devices), with the
    checks only device calls have."""
    operands = outs + list(inputs)
    check_not_numpy(_WHAT, operands)
    for x in inputs:
        if not is_device_array(x) and not _is_scalar(x):
            raise TypeError("%s: unsupported operand type %s with device arrays"
                            % (_WHAT, type(x).__name__))
    mask = bool_mask(_WHAT, where)
    arrays = [x for x in operands if is_device_array(x)]
    if isinstance(mask, DeviceInfo):
        arrays.append(mask.array)
    devices = one_device(_WHAT, {backend.device_of(x) for x in arrays})
    infos = [DeviceInfo(x) if is_device_array(x) else None for x in operands]
    return infos, mask, devices


def _is_scalar(x):
    return type(x) in _frontend.PYTHON_SCALARS or isinstance(x, np.generic)


def _resolve(op, infos, args, dtype, casting, masked):
    """The front end's loop for these operands.  `args`: the inputs as it
    reads them -- a device array by its DeviceInfo (which has the dtype it
    asks for), a scalar as the CPU path passes it."""
    in_types = tuple(_frontend.resolution_type(a) for a in args)
    out_dtypes = [None if info is None else info.dtype for info in infos[:op.nout]]
    return _frontend.resolve_loop(op, _frontend.ufunc_for(op.name), in_types, out_dtypes,
                                  dtype, casting, inputs=args, masked=masked)


def _kernel(backend, name, signature):
    """The manifest entry of the kernel for this loop (TypeError: none)."""
    kernels = backend_manifest(backend)
    entry = kernels["ops"].get(name, {}).get("kernels", {}).get(signature)
    if entry is None:
        reason = kernels["unsupported"].get("%s %s" % (name, signature), "not in the op table")
        raise TypeError("titer has no CUDA kernel for %s %s (%s)" % (name, signature, reason))
    return entry


def _where_or_order(call, outs, infos, args, mask, order):
    """where= and order=, as the CPU path: order C/F/A allocates the outputs
    in that order; a where= mask computes the op into temporaries in the
    loop dtypes, then titer's `where` kernel copies the selected elements
    into the outputs (the others keep their values)."""
    nout = call.op.nout
    outs, infos = list(outs), list(infos)
    masked = mask is not True
    shape = _result_shape(infos, mask, nout)
    arrays_in = [inf for inf in infos[nout:] if inf is not None]
    dims = _allocation_dims(order, masked, shape, arrays_in)
    for k in range(nout):
        if outs[k] is None and dims is not None:
            dt = call.found.loop_out[k]
            outs[k], infos[k] = allocate(call.backend, shape, dt,
                                         _plan.contiguous_strides(shape, dt.itemsize, dims),
                                         call.devices)
    if not masked:
        return _compute(call, outs, infos, args)
    packed = outs[0] if nout == 1 else tuple(outs)
    if mask is False:
        _iterate(infos, args, call.found, nout)     # NumPy still checks the shapes
        return packed
    args, infos = _unmasked_exponents(call, args, infos, mask)
    temps = _compute(call, [None] * nout, [None] * nout + infos[nout:], args)
    temps = temps if nout > 1 else (temps,)
    for k in range(nout):
        elementwise("where", outs[k], mask.array, temps[k], outs[k], dtype=infos[k].dtype,
                    casting="unsafe", backend=call.backend)
    return packed


def _unmasked_exponents(call, args, infos, mask):
    """np.power of signed integers under where=: NumPy raises only for a
    negative exponent it computes with, so the masked-out exponents become 1
    (titer's where kernel) before the temporaries are computed."""
    nout = call.op.nout
    exponent = infos[nout + 1] if call.op.name == "power" else None
    if exponent is None or call.found.loop_in[1].kind != "i":
        return args, infos
    chosen = elementwise("where", None, mask.array, exponent.array, 1,
                         dtype=call.found.loop_in[1], casting="unsafe", backend=call.backend)
    args, infos = list(args), list(infos)
    args[1] = infos[nout + 1] = DeviceInfo(chosen)
    return args, infos


def _result_shape(infos, mask, nout):
    given = [inf for inf in infos[:nout] if inf is not None]
    if given:
        return given[0].shape
    shapes = [inf.shape for inf in infos[nout:] if inf is not None]
    if isinstance(mask, DeviceInfo):
        shapes.append(mask.shape)
    return np.broadcast_shapes(*shapes)


def _allocation_dims(order, masked, shape, arrays_in):
    """The dim order (slowest first) outputs to allocate are laid out in;
    None: the iterator's own out=None layout (order K without a mask)."""
    rank = len(shape)
    if order == "A":
        fortran = arrays_in and all(_fortran_only(x) for x in arrays_in)
        order = "F" if fortran else "C"
    if order == "F":
        return tuple(range(rank - 1, -1, -1))
    if order == "C":
        return tuple(range(rank))
    if not masked:
        return None
    # order K with a mask: the first full-shape input's layout
    like = next((x for x in arrays_in if x.shape == shape), None)
    return preserve_order(like) if like is not None else tuple(range(rank))


def _fortran_only(info):
    """The CPU path's test for order='A' (NumPy's contiguity flags)."""
    flags = stand_in(info.shape, info.strides, info.dtype).flags
    return flags.f_contiguous and not flags.c_contiguous


def _compute(call, outs, infos, args, cache_key=None):
    """Steps 2 and 3 into `outs` (None: allocate); the result."""
    op, found, backend, devices = call.op, call.found, call.backend, call.devices
    nout = op.nout
    outs, infos, args = list(outs), list(infos), list(args)
    outs_given = [o is not None for o in outs]
    scalars, constant = _scalar_operands(op, args, found.loop_in)
    for k in range(nout):
        if outs_given[k] and infos[k].internal_overlap():
            raise ValueError("output operand %d has internal overlap (a stride-0 or "
                             "overlapping dimension); it cannot be written element by "
                             "element" % k)
    it = _iterate(infos, args, found, nout)
    if constant is None and _copy_partial_overlaps(call, infos, args):
        it = _iterate(infos, args, found, nout)     # the copies' layouts
        cache_key = None                            # the plan reads the copies
    if found.discards_imaginary:
        _frontend.warn_discarded_imaginary(stacklevel=3)
    if _plan.numel(_result_shape(infos, True, nout)) > 0:   # NumPy checks computed exponents
        launcher.check_exponents(op.name, found.loop_in, args, backend, devices)
    for k in range(nout):
        if outs[k] is None:
            allocated = it.output(k)
            outs[k], infos[k] = allocate(backend, allocated.shape, found.loop_out[k],
                                         allocated.strides, devices)
    result = outs[0] if nout == 1 else tuple(outs)
    if constant is not None:            # titer's copy kernel writes the one answer
        copy_view(backend, infos[0], constant, devices)
    elif it.numel:
        piece, launches, bases = _launch(call, it, infos, scalars)
        if cache_key is not None and not found.discards_imaginary:   # a replay warns not
            plan_cache.remember_elementwise(backend, cache_key, nout, found.loop_in,
                                            found.loop_out, outs_given, infos, piece,
                                            launches, bases)
    return result


def _scalar_operands(op, args, loop_in):
    """(each operand's bytes passed by value -- None for the outputs and the
    array inputs --, the one answer of comparing integers with an int out of
    their range or None)."""
    slots = [None] * op.nout
    constant = None
    comparing = _frontend.compares_ints(op.name, args)
    for i, x in enumerate(args):
        if isinstance(x, DeviceInfo):
            slots.append(None)
        elif comparing and type(x) is int and not _holds(loop_in[i], x):
            constant = _frontend.comparison_constant(op.name, x, i)
            slots.append(bytes(loop_in[i].itemsize))
        else:
            slots.append(_plan.kernel_scalar(x, loop_in[i]))
    return slots, constant


def _holds(dt, value):
    try:
        _frontend.check_python_int(value, dt)
    except OverflowError:
        return False
    return True


def _iterate(infos, args, found, nout):
    """titer's CPU iterator over stand-ins: the broadcast (NumPy's errors),
    the dim order, the out=None layout.  Stand-ins share no memory, so the
    overlap checks are ours (device extents)."""
    cfg = (_core.IterConfig().resize_outputs(False).check_all_same_dtype(False)
           .check_mem_overlap(False))
    for k in range(nout):
        info = infos[k]
        if info is None:
            cfg.add_output(None, dtype=found.loop_out[k])
        else:
            cfg.add_output(stand_in(info.shape, info.strides, info.dtype))
    for i, info in enumerate(infos[nout:]):
        cfg.add_input(stand_in(info.shape, info.strides, info.dtype) if info is not None
                      else np.zeros((), found.loop_in[i]))
    return cfg.build()


def _copy_partial_overlaps(call, infos, args):
    """NumPy's rule: an input partially overlapping a given output is read
    as if copied first (by titer's copy kernel, into infos and args); True
    when one was."""
    nout = call.op.nout
    copied = False
    for i in range(nout, len(infos)):
        info = infos[i]
        if info is not None and any(infos[k] is not None and info.overlaps(infos[k])
                                    and not info.same_view(infos[k]) for k in range(nout)):
            infos[i] = args[i - nout] = clone(call.backend, info, call.devices)
            copied = True
    return copied


def _launch(call, it, infos, scalars):
    """Plan the kernel launches for the iterator's plan and launch them;
    (the plan, the launches, the operands' base addresses)."""
    found, nargs = call.found, len(infos)
    piece = _plan.Piece(tuple(it.shape), tuple(tuple(it.strides(i)) for i in range(nargs)),
                        (0,) * nargs)
    bases = [inf.ptr if inf is not None else 0 for inf in infos]
    loop_codes = [dtype_code(d) for d in found.loop_out + found.loop_in]
    mem_codes = [dtype_code(inf.dtype) if inf is not None else loop_codes[i]
                 for i, inf in enumerate(infos)]
    launches = _plan.plan_launches(call.entry["stem"], piece, bases, mem_codes, loop_codes,
                                   scalars, call.entry["vec"])
    device = next(iter(call.devices)) if call.devices else None
    for launch in launches:
        call.backend.launch(call.op.name, launch, device)
    return piece, launches, bases

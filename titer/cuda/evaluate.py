"""``titer.evaluate`` on device arrays: the program as one fused kernel.

``run(program, values, consts, out, order)`` takes the program the CPU
executor runs (``titer/_evaluate_plan.py``: NumPy's loop per node, NEP 50,
NumPy's errors already raised) and runs it on the leaves' device as one
kernel (``fuse.py``): each leaf read once, each step the device function the
op's own kernels call, the result written once -- the composed device calls'
bits without their temporaries.

It answers None where the composed calls must run instead (their errors and
answers are the definition): an integer power whose exponent is computed
inside the program (NumPy checks it for negatives before writing), a step
without a device kernel, a Python int a loop dtype cannot hold, an empty
result of non-empty leaves, an out= overlapping a leaf other than as the
same view.

``reduce_run`` does a top-level reduction of the program the same way,
inside titer.reduce's kernel (NOTE: [fused device reduction]).

The third executor: imports ``device``, ``plan``, ``launcher``, ``dispatch``
(its allocation order), ``reduce`` (the reduction's plan) and ``fuse``;
``titer/_evaluate.py`` reaches it through ``_core``.
"""
from collections import namedtuple

import numpy as np

from .. import _core, _frontend
from . import fuse, launcher
from . import plan as _plan
from .dispatch import _allocation_dims
from .device import (DeviceInfo, backend_manifest, check_not_numpy, one_device, stand_in,
                     writeable)
from .launcher import allocate
from .reduce import reduce_computed

_WHAT = "titer.evaluate"
_SOURCES = {}               # (program, out dtype, fast ops) -> fused source
_CACHE_LIMIT = 512


def run(program, values, consts, out, order, backend=None, record=None):
    """The program's result on the device (out= or a new array), or None.
    `record`: the replay key (``replay_key``) to remember this call's
    launches under."""
    backend = backend or launcher.default_backend()
    ready = _prepare(backend, program, values, consts, out)
    if ready is None:
        return None
    infos, devices, fast_ops, exponent_leaves, negative, konst = ready
    out_info, out_given = None, out is not None
    if out is not None:
        out_info = DeviceInfo(out)
        if not writeable(out):
            raise ValueError("output array is read-only")
        if out_info.internal_overlap():
            raise ValueError("output operand 0 has internal overlap (a stride-0 or overlapping "
                             "dimension); it cannot be written element by element")
        if any(out_info.overlaps(i) and not out_info.same_view(i) for i in infos):
            return None
    it = _iterate(out_info, infos, program.result_dtype)
    if it.numel == 0 and any(_plan.numel(i.shape) for i in infos):
        return None                 # the intermediates of the leaves' own shapes
    if program.steps and any(s.discards_imaginary for s in program.steps):
        _frontend.warn_discarded_imaginary(stacklevel=4)
    if it.numel:                                # NumPy's ValueError, nothing written
        _check_exponents(backend, infos, devices, exponent_leaves, negative)
    if out is None:
        out, out_info = _allocate(backend, it, infos, program.result_dtype, order, devices)
        if order != "K":
            it = _iterate(out_info, infos, program.result_dtype)
    if it.numel:
        source = _source(program, out_info.dtype, fast_ops)
        nargs = 1 + len(infos)
        piece = _plan.Piece(tuple(it.shape), tuple(tuple(it.strides(i)) for i in range(nargs)),
                            (0,) * nargs)
        bases = [out_info.ptr] + [i.ptr for i in infos]
        device = next(iter(devices)) if devices else None
        launches = fuse.plan_fused_launches(piece, bases, konst)
        for launch in launches:
            backend.launch_fused(source, launch, device)
        if record is not None and _replayable(program, exponent_leaves, negative):
            _remember(record, program, source, fast_ops, launches, bases, out_info, infos,
                      out_given)
    return out


def _prepare(backend, program, values, consts, out):
    """What a fused launch needs of the call, or None (compose): (the
    leaves' DeviceInfos, their device, the power steps' fast ops, the
    leaves to check for negative integer exponents, whether a constant
    one is negative, the constants' bytes)."""
    leaves = [values[name] for name in program.leaves]
    if out is not None:
        check_not_numpy(_WHAT, [out] + leaves)
    infos = [DeviceInfo(x) for x in leaves]
    arrays = leaves + ([out] if out is not None else [])
    devices = one_device(_WHAT, {backend.device_of(x) for x in arrays})
    if not _has_kernels(backend, program):
        return None
    fast_ops, exponent_leaves, negative = _powers(program, consts)
    if fast_ops is None:
        return None
    try:
        konst = fuse.const_bytes(program, consts)
    except OverflowError:
        return None                 # NumPy's answer depends on the int's value
    return infos, devices, fast_ops, exponent_leaves, negative, konst


def _check_exponents(backend, infos, devices, exponent_leaves, negative):
    """NumPy's ValueError for a negative integer exponent, nothing written."""
    if negative:
        raise ValueError(launcher.NEGATIVE_POWER)
    for leaf in exponent_leaves:
        launcher.check_no_negative(backend, infos[leaf], devices)


# -- reductions: the program computed inside titer.reduce's kernel --------------

# NOTE: [fused device reduction] A top-level sum/prod/max/min does not write
# the program's result: titer.reduce plans the reduction of the result the
# fused kernel would have allocated (order K: packed in the iteration
# order) at a virtual address, and its first kernel -- titer_reduce with a
# source computing the element at each byte offset it would have read
# (titer_fused.cuh) -- runs the program instead of loading.  The lanes,
# vectors, trees, splits (the partials' final kernel is the op's own) are
# titer.reduce's, so the bits are the composed reduction's.  Plans that the
# elementwise launches would cut (32-bit offsets, more than TITER_MAX_DIMS
# dims) and out= overlapping a leaf reduce the fused result instead.
_VIRTUAL_BASE = 1 << 12         # the result's virtual address (aligned as an allocation)


def reduce_run(program, values, consts, name, axis, out, backend=None, record=None):
    """np.<name>.reduce(axis=axis, out=out) of the program's values with
    no temporary (NOTE: [fused device reduction]), or None: compose.
    `record`: the replay key (``replay_key``) to remember the launches
    under (a new result only)."""
    backend = backend or launcher.default_backend()
    ready = _prepare(backend, program, values, consts, out)
    if ready is None:
        return None
    infos, devices, fast_ops, exponent_leaves, negative, konst = ready
    if out is not None and any(DeviceInfo(out).overlaps(i) for i in infos):
        return None
    it = _iterate(None, infos, program.result_dtype)
    if it.numel == 0:
        return None
    nargs = 1 + len(infos)
    shape = tuple(it.shape)
    strides = tuple(tuple(it.strides(i)) for i in range(nargs))
    dt = program.result_dtype
    if strides[0] != _plan.contiguous_strides(shape, dt.itemsize, range(len(shape) - 1, -1, -1)):
        return None
    piece = _plan.Piece(shape, strides, (0,) * nargs)
    if [shape] != [p.shape for big in _plan.split_32bit(piece, _plan.SPLIT_LIMIT)
                   for p in _plan.split_dims(big)]:
        return None
    if program.steps and any(s.discards_imaginary for s in program.steps):
        _frontend.warn_discarded_imaginary(stacklevel=4)
    _check_exponents(backend, infos, devices, exponent_leaves, negative)
    result = it.output(0)
    virtual = DeviceInfo.of(_VIRTUAL_BASE, result.shape, result.strides, dt)
    addresses = [_VIRTUAL_BASE] + [i.ptr for i in infos]
    fparams = fuse.pack_fparams(piece, addresses, konst)
    kernel = fuse.REDUCE_KERNELS[0 if len(shape) <= 1 else 1]

    sources = []

    def fold(module, T, launch, device):
        sources.append((module, _reduce_source(program, fast_ops, module, T)))
        backend.launch_fused(sources[0][1], _plan.Launch(kernel, launch.grid, launch.block,
                                                         fuse.pack_freduce(launch.params, fparams),
                                                         launch.numel), device)
    device = next(iter(devices)) if devices else None
    trace = {}
    result = reduce_computed(name, virtual, device, axis, out, fold, backend, trace)
    if record is not None and trace and sources and _replayable(program, exponent_leaves,
                                                                negative):
        _remember_reduction(record, program, sources[0], fast_ops, kernel, trace, fparams)
    return result


# -- replay: a repeated call with the same operand layouts ----------------------

# NOTE: [fused replay] A repeated evaluate with operands of the same dtypes,
# shapes, strides and alignment (the plan cache's layout key) needs none of
# the planning: the recorded launches are re-addressed (each data pointer
# is its operand's base plus an offset) and the constants re-packed; only
# an out= overlapping a leaf is checked again, by recorded extents.  A
# program with an integer power (its exponents are read per call) or a
# discarded imaginary part (a warning per call) is not recorded.
_RECORDS = {}
_Record = namedtuple("_Record", "program source fast_ops template alloc extents out_extent")


def replay_key(expr_key, values, out, backend=None):
    """(key, {name: base address} of the array operands and out= (name
    None), the device) for a repeated call, or None when an operand has no
    layout key (a NumPy array, an unknown object)."""
    backend = backend or launcher.default_backend()
    parts, bases, device = [], {}, None
    if out is not None:
        k, ptr = backend.array_key(out)
        if k is None:
            return None
        parts.append(k)
        bases[None] = ptr
        device = k[4]
    for name, x in values.items():
        t = type(x)
        if t is int or t is float or t is complex or t is bool:
            parts.append(t)
        elif isinstance(x, np.generic):
            parts.append(x.dtype)
        else:
            k, ptr = backend.array_key(x)
            if k is None or (device is not None and k[4] != device):
                return None
            device = k[4]
            parts.append(k)
            bases[name] = ptr
    return (expr_key, out is None, tuple(parts)), bases, device


def _replayable(program, exponent_leaves, negative):
    """Whether a call's launches may be replayed (NOTE: [fused replay])."""
    return not exponent_leaves and not negative \
        and not any(s.discards_imaginary for s in program.steps) \
        and not any(s.op == "power" and s.inputs[1].loop_dtype.kind == "i"
                    for s in program.steps)


def _remember(key, program, source, fast_ops, launches, bases, out_info, infos, out_given):
    alloc = None if out_given else (out_info.shape, out_info.strides, out_info.dtype)
    # per leaf: its extent, and whether it is laid out as out= is (then the
    # same base address is the same view, safe element by element)
    extents = tuple((_span(i), (i.shape, i.strides, i.dtype) ==
                     (out_info.shape, out_info.strides, out_info.dtype)) for i in infos)
    if len(_RECORDS) >= _CACHE_LIMIT:
        _RECORDS.clear()
    _RECORDS[key[0]] = _Record(program, source, fast_ops, fuse.FusedTemplate(launches, bases),
                               alloc, extents, _span(out_info) if out_given else None)


def _span(info):
    """[lo, hi) bytes from the array's pointer that it touches (None: empty)."""
    if _plan.numel(info.shape) == 0:
        return None
    lo, hi = _plan.byte_span(info.shape, info.strides)
    return lo, hi + info.dtype.itemsize


def replay(key, consts_of, out, backend=None):
    """The recorded call again for operands at new addresses (`key` from
    replay_key); `consts_of(program)`: the constants' values this call.
    None when nothing is recorded or the record does not fit this call."""
    rec, konst = _record_of(key, _Record, consts_of)
    if rec is None:
        return None
    backend = backend or launcher.default_backend()
    device = key[2]
    program = rec.program
    leaf_bases = [key[1][name] for name in program.leaves]
    devices = {device} if device is not None else set()
    if out is None:
        shape, strides, dtype = rec.alloc
        out = backend.empty(shape, dtype, strides, devices)
        bases = [backend.array_key(out)[1]] + leaf_bases
    else:
        bases = [key[1][None]] + leaf_bases
        if _overlaps(rec, bases):
            return None
    for launch in rec.template.replay(bases, konst):
        backend.launch_fused(rec.source, launch, device)
    return out


def _record_of(key, kind, consts_of):
    """(the record of `kind` under the key, this call's constants' bytes
    for it), or (None, None): none, or the constants do not fit it (a
    power step's exponent now picks another fast op, an int its dtype
    cannot hold)."""
    rec = _RECORDS.get(key[0])
    if type(rec) is not kind:
        return None, None
    program = rec.program
    consts = consts_of(program)
    if rec.fast_ops or any(s.op == "power" for s in program.steps):
        if _powers(program, consts)[0] != rec.fast_ops:
            return None, None
    try:
        return rec, fuse.const_bytes(program, consts)
    except OverflowError:
        return None, None


def _overlaps(rec, bases):
    """out= (bases[0]) touches a leaf's bytes other than as the same view."""
    if rec.out_extent is None:
        return False
    out_lo, out_hi = bases[0] + rec.out_extent[0], bases[0] + rec.out_extent[1]
    for base, (span, same_layout) in zip(bases[1:], rec.extents):
        if span is not None and base + span[0] < out_hi and out_lo < base + span[1] \
                and not (base == bases[0] and same_layout):
            return True
    return False


_ReduceRecord = namedtuple("_ReduceRecord",
                           "program module source fast_ops kernel launches scratch alloc fparams")


def _remember_reduction(key, program, module_source, fast_ops, kernel, trace, fparams):
    if len(_RECORDS) >= _CACHE_LIMIT:
        _RECORDS.clear()
    _RECORDS[key[0]] = _ReduceRecord(program, module_source[0], module_source[1], fast_ops,
                                     kernel, trace["launches"], trace["scratch"], trace["alloc"],
                                     fparams.tobytes())


def replay_reduction(key, consts_of, out=None, backend=None):
    """A recorded fused reduction again (a new result: out is None), for
    leaves at new addresses and this call's constants: the reduction's
    launches with the new result and partials, the program's parameters
    with the new leaves (each its operand's base: one piece) and
    constants.  None when nothing fits."""
    rec, konst = _record_of(key, _ReduceRecord, consts_of)
    if rec is None or out is not None:
        return None
    backend = backend or launcher.default_backend()
    device = key[2]
    program = rec.program
    devices = {device} if device is not None else set()
    shape, strides, dtype = rec.alloc
    out = backend.empty(shape, dtype, strides, devices)
    keep, partial = None, 0
    if rec.scratch:
        keep, part = allocate(backend, (rec.scratch,), np.dtype(np.uint8), (1,), devices)
        partial = part.ptr
    launches = _plan.replay_reduction(rec.launches, _VIRTUAL_BASE, backend.array_key(out)[1],
                                      partial, None)
    fparams = fuse.patch_fparams(rec.fparams, [key[1][name] for name in program.leaves], konst)
    first = launches[0]
    backend.launch_fused(rec.source, _plan.Launch(rec.kernel, first.grid, first.block,
                                                  fuse.pack_freduce(first.params, fparams),
                                                  first.numel), device)
    for launch in launches[1:]:
        backend.launch(rec.module, launch, device)
    del keep          # freed after the launches are queued: stream order keeps it valid
    return out


def _has_kernels(backend, program):
    """Every step's loop has a device kernel (else the composed calls give
    the single-op path's TypeError)."""
    ops = backend_manifest(backend)["ops"]
    return all(step.signature in ops.get(step.op, {}).get("kernels", {})
               for step in program.steps)


def _powers(program, consts):
    """(step -> the unary op NumPy's power runs for its scalar exponent,
    the leaves whose elements are integer exponents to check, whether a
    constant integer exponent is negative), or (None, None, None) when an
    integer exponent is an intermediate."""
    fast, leaves, negative = {}, [], False
    for k, step in enumerate(program.steps):
        if step.op != "power":
            continue
        base, exponent = step.inputs
        if exponent.loop_dtype.kind == "i":
            if exponent.source == "leaf" and exponent.dtype.kind == "i":
                leaves.append(exponent.index)
            elif exponent.source == "const":
                negative = negative or consts[exponent.index] < 0
            elif exponent.source == "reg":
                return None, None, None
        elif exponent.source == "const" and exponent.loop_dtype.char in "fd":
            op = _frontend.power_fast_op(_frontend.lookup("power"),
                                         (None, consts[exponent.index]))
            if op is not None:
                fast[k] = op
    return fast, leaves, negative


def _iterate(out_info, infos, result_dtype):
    """titer's CPU iterator over stand-ins of the output and the leaves:
    NumPy's broadcast errors, the dim order, out=None's layout."""
    cfg = (_core.IterConfig().resize_outputs(False).check_all_same_dtype(False)
           .check_mem_overlap(False))
    if out_info is None:
        cfg.add_output(None, dtype=result_dtype)
    else:
        cfg.add_output(stand_in(out_info.shape, out_info.strides, out_info.dtype))
    for info in infos:
        cfg.add_input(stand_in(info.shape, info.strides, info.dtype))
    return cfg.build()


def _allocate(backend, it, infos, dtype, order, devices):
    """The result array: the iterator's layout (order K), or C / F / A."""
    if order == "K":
        allocated = it.output(0)
        return allocate(backend, allocated.shape, dtype, allocated.strides, devices)
    shape = np.broadcast_shapes(*[i.shape for i in infos])
    dims = _allocation_dims(order, False, shape, infos)
    return allocate(backend, shape, dtype, _plan.contiguous_strides(shape, dtype.itemsize, dims),
                    devices)


def _source(program, out_dtype, fast_ops):
    key = (program, out_dtype, tuple(sorted(fast_ops.items())))
    text = _SOURCES.get(key)
    if text is None:
        if len(_SOURCES) >= _CACHE_LIMIT:
            _SOURCES.clear()
        text = _SOURCES[key] = fuse.fused_source(program, out_dtype, fast_ops)
    return text


def _reduce_source(program, fast_ops, op_name, T):
    key = ("reduce", program, op_name, T, tuple(sorted(fast_ops.items())))
    text = _SOURCES.get(key)
    if text is None:
        if len(_SOURCES) >= _CACHE_LIMIT:
            _SOURCES.clear()
        text = _SOURCES[key] = fuse.fused_reduce_source(program, fast_ops, op_name, T)
    return text


def leaf_type(x):
    """A device array's (kind, type) for the planner: a leaf, 0-d included
    (the composed calls read it as a device array too)."""
    return "array", DeviceInfo(x).dtype

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

The third executor: imports ``device``, ``plan``, ``launcher``, ``dispatch``
(its allocation order) and ``fuse``; ``titer/_evaluate.py`` reaches it
through ``_core``.
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

_WHAT = "titer.evaluate"
_SOURCES = {}               # (program, out dtype, fast ops) -> fused source
_CACHE_LIMIT = 512


def run(program, values, consts, out, order, backend=None, record=None):
    """The program's result on the device (out= or a new array), or None.
    `record`: the replay key (``replay_key``) to remember this call's
    launches under."""
    backend = backend or launcher.default_backend()
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
        if negative:
            raise ValueError(launcher.NEGATIVE_POWER)
        for leaf in exponent_leaves:
            launcher.check_no_negative(backend, infos[leaf], devices)
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
        if record is not None and not exponent_leaves and not negative \
                and not any(s.discards_imaginary for s in program.steps) \
                and not any(s.op == "power" and s.inputs[1].loop_dtype.kind == "i"
                            for s in program.steps):
            _remember(record, program, source, fast_ops, launches, bases, out_info, infos,
                      out_given)
    return out


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
    rec = _RECORDS.get(key[0])
    if rec is None:
        return None
    backend = backend or launcher.default_backend()
    device = key[2]
    program = rec.program
    leaf_bases = [key[1][name] for name in program.leaves]
    consts = consts_of(program)
    if rec.fast_ops or any(s.op == "power" for s in program.steps):
        if _powers(program, consts)[0] != rec.fast_ops:
            return None
    try:
        konst = fuse.const_bytes(program, consts)
    except OverflowError:
        return None
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


def leaf_type(x):
    """A device array's (kind, type) for the planner: a leaf, 0-d included
    (the composed calls read it as a device array too)."""
    return "array", DeviceInfo(x).dtype

"""The plan cache of titer's device entry points: a call whose layout was
seen before skips planning.

Keyed by the op, dtype=, casting= and, per operand, its dtype, shape, strides
and address modulo 16 (the vector width depends on it) -- or the Python /
NumPy scalar type, or "allocate" for out=None.  A hit re-addresses the
recorded launches (every kernel argument is base + offset: plan.LaunchTemplate
patches bytes), refills the scalar slots and launches: no dtype resolution,
no iterator, no packing.  Each backend holds its own cache (``plan_cache``).

A call whose array operands share one shape with exactly C-contiguous
strides (the common case) is also remembered under a dense key without the
shape: its plan is one dim of numel elements for every such shape, so a
loop over ever-new lengths replays one plan with the count patched.

Imports ``device``, ``plan`` and ``launcher``; the executors import this.
"""
from math import copysign

import numpy as np

from .. import _core, _frontend
from . import plan as _plan
from .device import interface_key
from .launcher import check_exponents, launch_reduction

_CACHE_LIMIT = 512
_SCALAR_TYPES = (bool, int, float, complex)


class _CachedCall:
    __slots__ = ("nout", "loop_in", "loop_out", "alloc", "extents", "itemsizes", "launches",
                 "bases", "scalar_slots", "checks_power", "allocated", "overlap_pairs")


def array_key_of(backend):
    """The backend's fast ``array_key(x)`` (CupyBackend reads CuPy's
    attributes: the interface dict costs microseconds), else the
    interface's."""
    fast = getattr(backend, "array_key", None)
    if fast is not None:
        return fast
    device_of = backend.device_of
    return lambda x: interface_key(x, device_of)


_SCALAR_BYTES = {}          # _scalar_key -> the kernel's bytes


def _scalar_key(value, dt):
    """A key as exact as the bytes: 0.0 == -0.0 and complex(1, 0.0) ==
    complex(1, -0.0) in Python, so float keys carry their signs; NumPy
    scalars key by their own bytes."""
    t = type(value)
    if t is int or t is bool:
        return t, value, dt
    if t is float:
        return t, value, copysign(1.0, value), dt
    if t is complex:
        return t, value, copysign(1.0, value.real), copysign(1.0, value.imag), dt
    return value.dtype, value.tobytes(), dt     # a NumPy scalar


def memo_scalar_bytes(value, dt):
    """plan.kernel_scalar, memoized: a loop over `x * 2.5` converts 2.5
    once.  None when the value does not convert (planning raises)."""
    key = _scalar_key(value, dt)
    b = _SCALAR_BYTES.get(key)
    if b is None:
        try:
            b = _plan.kernel_scalar(value, dt)
        except (OverflowError, TypeError, ValueError):
            return None
        if len(_SCALAR_BYTES) >= _CACHE_LIMIT:
            _SCALAR_BYTES.clear()
        _SCALAR_BYTES[key] = b
    return b


def _is_c_contiguous(shape, strides, itemsize):
    """strides == plan.contiguous_strides(shape, itemsize) exactly (size-1
    dims included), without building it."""
    acc = itemsize
    for d in range(len(shape) - 1, -1, -1):
        if strides[d] != acc:
            return False
        acc *= shape[d]
    return True


def _dense_key(head, parts):
    """The key under which a call whose array operands all have one shape
    and exactly C-contiguous strides finds a plan recorded for another
    shape: such a call's plan is one dim of numel elements whatever the
    shape (vector width from the addresses modulo 16, kept in the key).
    (key, shape), or (None, None)."""
    shape = None
    dense = list(head)
    for part in parts:
        if type(part) is not tuple:
            dense.append(part)
            continue
        dt, sh, st = part[0], part[1], part[2]
        if shape is None:
            shape = sh
        elif sh != shape:
            return None, None
        if st is not None and not _is_c_contiguous(sh, st, dt.itemsize):
            return None, None
        dense.append((dt, part[3], part[4]))
    if shape is None:
        return None, None
    # The iterator orders dims by comparing strides; exact C strides tie
    # only around size-1 dims, so where those are (not the sizes or the
    # rank) decides its out=None layout, and is part of the key.
    dense.append(tuple([n == 1 for n in shape]) if 1 in shape else None)
    return tuple(dense), shape


def replay_elementwise(backend, op, outs, inputs, dtype, casting):
    """(result, None) on a cache hit; (None, keys) to plan (and remember)."""
    canonical, nout = op.name, op.nout
    cache = getattr(backend, "plan_cache", None)
    if cache is None:
        return None, None
    array_key = array_key_of(backend)
    operands = [*outs, *inputs]
    head = (canonical, dtype, casting)
    parts, ptrs = [], []
    device, mixed = None, False
    for x in operands:
        if x is None:
            part, ptr = "allocate", 0
        else:
            part, ptr = array_key(x)        # device arrays first: the common case
            if part is None:
                t = type(x)
                if t in _SCALAR_TYPES:
                    part, ptr = t, 0
                elif isinstance(x, np.generic):
                    part, ptr = x.dtype, 0
                else:
                    return None, None
            elif device is None:
                device = part[4]
            elif part[4] != device:
                mixed = True
        parts.append(part)
        ptrs.append(ptr)
    try:
        key = head + tuple(parts)
        hit = cache.get(key)
    except TypeError:                   # an unhashable dtype= or casting=
        return None, None
    numel = None
    if hit is None:
        dense, shape = _dense_key(head, parts)
        hit = cache.get(dense) if dense is not None else None
        if hit is None:
            return None, (key, dense)
        numel = _plan.numel(shape)
        if numel == 0 or any(size is not None and 1 + (numel - 1) * size > _plan.SPLIT_LIMIT
                             for size in hit.itemsizes):
            return None, (key, None)    # 0-size or past 32-bit indexing: plan it
        alloc = [None if outs[k] is not None else
                 (shape, _plan.contiguous_strides(shape, hit.loop_out[k].itemsize))
                 for k in range(nout)]
        extents = [None if size is None else (0, numel * size) for size in hit.itemsizes]
    else:
        alloc, extents = hit.alloc, hit.extents
    if mixed:
        return None, None               # planning raises the error
    scalars = {}
    for i, dt in hit.scalar_slots:
        b = memo_scalar_bytes(operands[i], dt)
        if b is None:
            return None, None           # planning handles (or raises) it
        scalars[i] = b
    if scalars:                         # their values, against the cached loop
        _frontend.check_scalars(op, inputs, hit.loop_in, casting)
    if hit.checks_power:
        check_exponents(canonical, hit.loop_in, inputs, backend,
                        () if device is None else (device,))
    # NumPy's overlap rule (a new output overlaps nothing): an input partially
    # overlapping a given output plans again
    for k, i in hit.overlap_pairs:
        ek, ei = extents[k], extents[i]
        pk, pi = ptrs[k], ptrs[i]
        if (pi + ei[1] <= pk + ek[0] or pk + ek[1] <= pi + ei[0]
                or (pi == pk and parts[i] == parts[k])):
            continue
        return None, None
    results = list(outs)
    for k in hit.allocated:
        layout = alloc[k]
        results[k] = backend.empty(layout[0], hit.loop_out[k], layout[1],
                                   () if device is None else (device,))
        part, ptr = array_key(results[k])
        if ptr & 15 != hit.bases[k] & 15:
            return None, None           # another alignment: plan for it
        ptrs[k] = ptr
    for launch in hit.launches.replay(ptrs, scalars, numel):
        backend.launch(canonical, launch, device)
    return (results[0] if nout == 1 else tuple(results)), None


def remember_elementwise(backend, keys, nout, loop_in, loop_out, outs_given, infos,
                         piece, launches, bases):
    """Remember a planned call under its exact key and, when its plan is one
    dense dim (see _dense_key), under its dense key too."""
    cache = backend.plan_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    key, dense = keys
    c = _CachedCall()
    c.nout, c.loop_in, c.loop_out = nout, loop_in, loop_out
    c.alloc = [None if outs_given[k] else (infos[k].shape, infos[k].strides)
               for k in range(nout)]
    extents = [None if inf is None else inf.extent() for inf in infos]
    c.extents = [None if e is None else (e[0] - inf.ptr, e[1] - inf.ptr)
                 for e, inf in zip(extents, infos)]
    c.itemsizes = [None if inf is None else inf.dtype.itemsize for inf in infos]
    c.allocated = tuple(k for k in range(nout) if not outs_given[k])
    # (given output, array input): the pairs a replay checks for overlap
    c.overlap_pairs = tuple((k, i) for k in range(nout) if outs_given[k]
                            for i in range(nout, len(infos)) if infos[i] is not None)
    c.launches, c.bases = _plan.LaunchTemplate(launches, bases), list(bases)
    c.scalar_slots = [(nout + i, loop_in[i]) for i, inf in enumerate(infos[nout:])
                      if inf is None]
    # NumPy checks the exponents it computes with: none for an empty result
    c.checks_power = (key[0] == "power" and loop_in[1].kind == "i"
                      and _plan.numel(infos[0].shape) > 0)
    cache[key] = c

    def walks_its_items(i, inf):
        size = inf.dtype.itemsize
        return piece.strides[i][0] == size and _is_c_contiguous(inf.shape, inf.strides, size)

    if (dense is not None and c.launches.resizable() and len(piece.shape) == 1
            and piece.shape[0] >= 2
            and all(inf is None or walks_its_items(i, inf) for i, inf in enumerate(infos))):
        cache[dense] = c


# ---- reductions: titer.sum(x, axis) again on the same layout (out=None and
# no where= only); axis=None over a C-contiguous x of any shape replans only
# the reduction config (pure Python), not the iterator ----

class _CachedReduction:
    __slots__ = ("module", "T", "identity", "shape", "strides", "launches", "scratch",
                 "kernel")


_BYTES = np.dtype(np.uint8)


def replay_reduction(backend, name, x, axis, dtype, keepdims, initial):
    """(result, None) on a hit; (None, keys) to plan and remember."""
    cache = getattr(backend, "plan_cache", None)
    if cache is None:
        return None, None
    array_key = array_key_of(backend)
    part, ptr = array_key(x)
    if part is None:
        return None, None
    start = "none" if initial is None else "identity" if initial is np._NoValue else "given"
    try:
        key = ("reduce", name, axis, dtype, bool(keepdims), start, part)
        hit = cache.get(key)
    except TypeError:                   # unhashable axis (a list) or dtype
        return None, None
    dense = n = None
    if hit is None:
        dt, shape, strides = part[0], part[1], part[2]
        if axis is not None or (strides is not None
                                and not _is_c_contiguous(shape, strides, dt.itemsize)):
            return None, (key, None)
        # the rank stays in the key: keepdims shapes and the one-axis rule
        # of non-reorderable ops depend on it
        dense = ("reduce-dense", name, dtype, bool(keepdims), start, dt, part[4], len(shape))
        hit = cache.get(dense)
        n = _plan.numel(shape)
        if hit is None or n == 0:
            return None, (key, dense)
    init = None
    if start == "identity":
        init = hit.identity             # its bytes, or None
    elif start == "given":
        try:
            init = _core._scalar_bytes(initial, hit.T).tobytes()
        except (TypeError, ValueError, OverflowError):
            return None, None
    devices = {part[4]}
    result = backend.empty(hit.shape, hit.T, hit.strides, devices)
    if dense is not None:
        stem, acc_size, in_code, loop_code, ordered = hit.kernel
        rp = _plan.split_reduction((n,), (0,), (dt.itemsize,))
        launch_reduction(backend, hit.module, stem, acc_size, rp, ptr, array_key(result)[1],
                         in_code, loop_code, init, ordered, devices)
        return result, None
    keep, partial = None, 0
    if hit.scratch:
        keep = backend.empty((hit.scratch,), _BYTES, (1,), devices)
        partial = array_key(keep)[1]
    device = part[4]
    for launch in _plan.replay_reduction(hit.launches, ptr, array_key(result)[1], partial,
                                         init):
        backend.launch(hit.module, launch, device)
    del keep
    return result, None


def remember_reduction(backend, keys, module, T, identity, res, launches, scratch, kernel):
    """Remember a planned reduction under its exact key and, for axis=None
    over a C-contiguous input, its dense key; kernel: (stem, accumulator
    bytes, input dtype code, loop dtype code, ordered)."""
    cache = backend.plan_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    key, dense = keys
    c = _CachedReduction()
    c.module, c.T = module, T
    c.identity = None if identity is None else _core._scalar_bytes(identity, T).tobytes()
    c.shape, c.strides = tuple(res.shape), tuple(res.strides)
    c.launches, c.scratch, c.kernel = launches, scratch, kernel
    cache[key] = c
    if dense is not None:
        cache[dense] = c

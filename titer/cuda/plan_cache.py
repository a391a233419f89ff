"""The plan cache of titer's device entry points: a call whose layout was
seen before skips planning.

Keyed by the op, dtype=, casting= and, per operand, its dtype, shape, strides
and address modulo 16 (the vector width depends on it) -- or the Python /
NumPy scalar type, or "allocate" for out=None.  A hit re-addresses the
recorded launches (every kernel argument is base + offset: plan.LaunchTemplate
patches bytes), refills the scalar slots and launches: no dtype resolution,
no iterator, no packing.  Each backend holds its own cache (``plan_cache``).
"""
from math import copysign

import numpy as np

from .. import _core
from . import dispatch, plan as _plan

_CACHE_LIMIT = 512
_SCALAR_TYPES = (bool, int, float, complex)


class _CachedCall:
    __slots__ = ("nout", "loop_in", "loop_out", "alloc", "extents", "launches", "bases",
                 "scalar_slots", "checks_power")


def interface_key(x, device_of):
    """(key part, address) of a device array through its CUDA array
    interface, or (None, None): not a device array.  The part holds dtype,
    shape, strides, address modulo 16 (the vector width depends on it) and
    the device."""
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None or isinstance(x, np.ndarray):
        return None, None
    ptr = int(cai["data"][0] or 0)
    strides = cai.get("strides")
    return (np.dtype(cai["typestr"]), tuple(cai["shape"]), strides and tuple(strides),
            ptr & 15, device_of(x)), ptr


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


def scalar_bytes(value, dt):
    """dispatch._scalar_bytes, memoized: a loop over `x * 2.5` converts 2.5
    once.  None when the value does not convert (planning raises)."""
    key = _scalar_key(value, dt)
    b = _SCALAR_BYTES.get(key)
    if b is None:
        try:
            b = dispatch._scalar_bytes(value, dt)
        except (OverflowError, TypeError, ValueError):
            return None
        if len(_SCALAR_BYTES) >= _CACHE_LIMIT:
            _SCALAR_BYTES.clear()
        _SCALAR_BYTES[key] = b
    return b


def replay_elementwise(backend, canonical, nout, outs, inputs, dtype, casting):
    """(result, None) on a cache hit; (None, key) to plan (and remember)."""
    cache = getattr(backend, "plan_cache", None)
    if cache is None:
        return None, None
    array_key = array_key_of(backend)
    operands = list(outs) + list(inputs)
    parts, ptrs, devices = [canonical, dtype, casting], [], set()
    for x in operands:
        t = type(x)
        if x is None:
            part, ptr = "allocate", 0
        elif t in _SCALAR_TYPES:
            part, ptr = t, 0
        elif isinstance(x, np.generic):
            part, ptr = x.dtype, 0
        else:
            part, ptr = array_key(x)
            if part is None:
                return None, None
            devices.add(part[4])
        parts.append(part)
        ptrs.append(ptr)
    try:
        key = tuple(parts)
        hit = cache.get(key)
    except TypeError:                   # an unhashable dtype= or casting=
        return None, None
    if hit is None:
        return None, key
    if len(devices) > 1:
        return None, None               # planning raises the error
    scalars = {}
    for i, dt in hit.scalar_slots:
        b = scalar_bytes(operands[i], dt)
        if b is None:
            return None, None           # planning handles (or raises) it
        scalars[i] = b
    if hit.checks_power:
        dispatch._check_integer_power(canonical, hit.loop_in, inputs, backend)
    results = list(outs)
    given = []
    for k in range(nout):
        layout = hit.alloc[k]
        if layout is None:
            given.append(k)
            continue
        results[k] = backend.empty(layout[0], hit.loop_out[k], layout[1], devices)
        part, ptr = array_key(results[k])
        if ptr & 15 != hit.bases[k] & 15:
            return None, None           # another alignment: plan for it
        ptrs[k] = ptr
    # NumPy's overlap rule (a new output overlaps nothing): an input partially
    # overlapping a given output plans again
    extents = hit.extents
    for k in given:
        ek = extents[k]
        if ek is None:
            continue
        lo_k, hi_k = ptrs[k] + ek[0], ptrs[k] + ek[1]
        for i in range(nout, len(operands)):
            ei = extents[i]
            if (ei is None or ptrs[i] + ei[1] <= lo_k or hi_k <= ptrs[i] + ei[0]
                    or (ptrs[i] == ptrs[k] and parts[3 + i] == parts[3 + k])):
                continue
            return None, None
    device = next(iter(devices)) if devices else None
    for launch in hit.launches.replay(ptrs, scalars):
        backend.launch(canonical, launch, device)
    return (results[0] if nout == 1 else tuple(results)), None


def remember_elementwise(backend, key, nout, loop_in, loop_out, outs_given, infos,
                         launches, bases):
    cache = backend.plan_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    c = _CachedCall()
    c.nout, c.loop_in, c.loop_out = nout, loop_in, loop_out
    c.alloc = [None if outs_given[k] else (infos[k].shape, infos[k].strides)
               for k in range(nout)]
    c.extents = [None if inf is None or inf.extent() is None
                 else (inf.extent()[0] - inf.ptr, inf.extent()[1] - inf.ptr) for inf in infos]
    c.launches, c.bases = _plan.LaunchTemplate(launches, bases), list(bases)
    c.scalar_slots = [(nout + i, loop_in[i]) for i, inf in enumerate(infos[nout:])
                      if inf is None]
    c.checks_power = key[0] == "power" and loop_in[1].kind == "i"
    cache[key] = c


# ---- reductions: titer.sum(x, axis) again on the same layout (out=None and
# no where= only) ----

class _CachedReduction:
    __slots__ = ("module", "T", "identity", "shape", "strides", "launches", "scratch")


_BYTES = np.dtype(np.uint8)


def replay_reduction(backend, name, x, axis, dtype, keepdims, initial):
    """(result, None) on a hit; (None, key) to plan and remember."""
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
    if hit is None:
        return None, key
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


def remember_reduction(backend, key, module, T, identity, res, launches, scratch):
    cache = backend.plan_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    c = _CachedReduction()
    c.module, c.T = module, T
    c.identity = None if identity is None else _core._scalar_bytes(identity, T).tobytes()
    c.shape, c.strides = tuple(res.shape), tuple(res.strides)
    c.launches, c.scratch = launches, scratch
    cache[key] = c

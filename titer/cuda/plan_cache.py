"""The plan cache of titer's device entry points: a call whose layout was
seen before skips planning.

Keyed by the op, dtype=, casting= and, per operand, its dtype, shape, strides
and address modulo 16 (the vector width depends on it) -- or the Python /
NumPy scalar type, or "allocate" for out=None.  A hit re-addresses the
recorded launches (every kernel argument is base + offset: plan.LaunchTemplate
patches bytes), refills the scalar slots and launches: no dtype resolution,
no iterator, no packing.  Each backend holds its own cache (``plan_cache``).
"""
import numpy as np

from .. import _core
from . import dispatch, plan as _plan

_CACHE_LIMIT = 512
_SCALAR_TYPES = (bool, int, float, complex)


class _CachedCall:
    __slots__ = ("nout", "loop_in", "loop_out", "alloc", "extents", "launches", "bases",
                 "scalar_slots")


def operand_key(x):
    """(key part, address) of one operand, or (None, None): not cacheable."""
    t = type(x)
    if x is None:
        return "allocate", 0
    if t in _SCALAR_TYPES:
        return t, 0
    if isinstance(x, np.generic):
        return x.dtype, 0
    if isinstance(x, np.ndarray):
        return None, None
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None:
        return None, None
    ptr = int(cai["data"][0] or 0)
    strides = cai.get("strides")
    return (cai["typestr"], tuple(cai["shape"]), strides and tuple(strides), ptr % 16), ptr


def replay_elementwise(backend, canonical, nout, outs, inputs, dtype, casting):
    """(result, None) on a cache hit; (None, key) to plan (and remember)."""
    cache = getattr(backend, "plan_cache", None)
    if cache is None:
        return None, None
    operands = list(outs) + list(inputs)
    parts, ptrs, arrays = [canonical, dtype, casting], [], []
    for x in operands:
        part, ptr = operand_key(x)
        if part is None:
            return None, None
        parts.append(part)
        ptrs.append(ptr)
        if ptr:
            arrays.append(x)
    try:
        key = tuple(parts)
        hit = cache.get(key)
    except TypeError:                   # an unhashable dtype= or casting=
        return None, None
    if hit is None:
        return None, key
    devices = {backend.device_of(x) for x in arrays}
    if len(devices) > 1:
        return None, None               # planning raises the error
    scalar_bytes = {}
    for i, dt in hit.scalar_slots:
        try:
            scalar_bytes[i] = dispatch._scalar_bytes(operands[i], dt)
        except (OverflowError, TypeError, ValueError):
            return None, None           # planning handles (or raises) it
    if canonical == "power":
        dispatch._check_integer_power(canonical, hit.loop_in, inputs, backend)
    results = list(outs)
    given = []
    for k in range(nout):
        layout = hit.alloc[k]
        if layout is None:
            given.append(k)
            continue
        results[k] = backend.empty(layout[0], hit.loop_out[k], layout[1], devices)
        ptr = int(results[k].__cuda_array_interface__["data"][0] or 0)
        if ptr % 16 != hit.bases[k] % 16:
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
    for launch in hit.launches.replay(ptrs, scalar_bytes):
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
    cache[key] = c


# ---- reductions: titer.sum(x, axis) again on the same layout (out=None and
# no where= only) ----

class _CachedReduction:
    __slots__ = ("module", "T", "identity", "shape", "strides", "launches", "scratch")


def replay_reduction(backend, name, x, axis, dtype, keepdims, initial):
    """(result, None) on a hit; (None, key) to plan and remember."""
    cache = getattr(backend, "plan_cache", None)
    if cache is None:
        return None, None
    part, ptr = operand_key(x)
    if type(part) is not tuple:
        return None, None
    start = "none" if initial is None else "identity" if initial is np._NoValue else "given"
    try:
        key = ("reduce", name, axis, dtype, bool(keepdims), start, part)
        hit = cache.get(key)
    except TypeError:                   # unhashable axis (a list) or dtype
        return None, None
    if hit is None:
        return None, key
    from . import copy                  # it imports this module
    init = None
    if start != "none":
        value = hit.identity if start == "identity" else initial
        if value is not None:
            try:
                init = _core._scalar_bytes(value, hit.T).tobytes()
            except (TypeError, ValueError, OverflowError):
                return None, None
    devices = {backend.device_of(x)}
    res_arr, res = copy.allocate(backend, hit.shape, hit.T, hit.strides, devices)
    keep, partial = None, 0
    if hit.scratch:
        keep, scratch = copy.allocate(backend, (hit.scratch,), np.uint8, (1,), devices)
        partial = scratch.ptr
    device = next(iter(devices))
    for launch in _plan.replay_reduction(hit.launches, ptr, res.ptr, partial, init):
        backend.launch(hit.module, launch, device)
    del keep
    return res_arr, None


def remember_reduction(backend, key, module, T, identity, res, launches, scratch):
    cache = backend.plan_cache
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    c = _CachedReduction()
    c.module, c.T, c.identity = module, T, identity
    c.shape, c.strides = res.shape, res.strides
    c.launches, c.scratch = launches, scratch
    cache[key] = c

"""The backend a device call runs on, and the launches more than one
executor makes.

``default_backend()`` is CuPy's backend (``_cupy.py``), imported at the first
call.  A reduction's launches live here, not in ``reduce.py``: the
elementwise executor reduces too (``power`` checks its integer exponents
with titer's own minimum before any kernel writes), and so does the replay
cache (a new length of a dense input replans one reduction).

Imports ``device`` and ``plan`` (and ``_cupy``, deferred); the replay cache
and the executors import this.
"""
import sys

import numpy as np

from .. import _core
from . import plan as _plan
from .device import DeviceInfo, backend_manifest, dtype_code, is_device_array, stand_in

NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
_CUPY_MODULE = __package__ + "._cupy"


def default_backend():
    """The CuPy backend.  Imported here, at the first device call, and not
    with this module: importing titer.cuda must not import CuPy (the tests
    run these modules without it, on the host backend)."""
    mod = sys.modules.get(_CUPY_MODULE)         # the import statement costs more
    if mod is None:
        from . import _cupy as mod
    return mod.CupyBackend.get()


def allocate(backend, shape, dtype, strides, devices):
    """(new device array with exactly these strides, its DeviceInfo)."""
    arr = backend.empty(tuple(shape), np.dtype(dtype), tuple(strides), devices)
    return arr, DeviceInfo(arr)


def sm_count(backend):
    """Multiprocessors of the backend's device (how wide a reduction goes)."""
    get = getattr(backend, "sm_count", None)
    return get() if get is not None else 132


def run_reduction(backend, module, entry, T, resk, src, init, ordered, devices, fused=None):
    """Plan and launch one reduction of src (any dtype) into resk (T,
    keepdims shape, reduced dims stride 0); (launches, scratch bytes).
    fused: src holds no values but describes the result of a program
    that computes them (titer/cuda/evaluate.py) and launches the fold."""
    cfg = (_core.IterConfig().is_reduction(True).resize_outputs(False)
           .check_all_same_dtype(False).check_mem_overlap(False))
    cfg.add_output(stand_in(resk.shape, resk.strides, T))
    cfg.add_input(stand_in(src.shape, src.strides, src.dtype))
    it = cfg.build()
    rp = _plan.split_reduction(tuple(it.shape), tuple(it.strides(0)), tuple(it.strides(1)))
    return launch_reduction(backend, module, entry["stem"], entry["reduce_acc"], rp, src.ptr,
                            resk.ptr, dtype_code(src.dtype), dtype_code(T),
                            init.tobytes() if init is not None else None, ordered, devices,
                            fused and (lambda launch, device: fused(module, T, launch, device)))


def launch_reduction(backend, module, stem, acc_size, rp, in_addr, out_addr, in_code,
                     loop_code, init_bytes, ordered, devices, fold=None):
    """Plan one reduction plan's launches (and scratch) and launch them;
    (launches, scratch bytes).  fold(launch, device): launches the first
    kernel instead (a fused reduction's)."""
    scratch, launches = _plan.plan_reduction(stem, rp, in_addr, out_addr, in_code, loop_code,
                                             init_bytes, ordered, acc_size, sm_count(backend))
    keep = None
    if scratch:
        keep, part = allocate(backend, (scratch,), np.uint8, (1,), devices)
        _plan.set_partial(launches, part.ptr)
    device = next(iter(devices)) if devices else None
    for k, launch in enumerate(launches):
        if k == 0 and fold is not None:
            fold(launch, device)
        else:
            backend.launch(module, launch, device)
    del keep          # freed after the launches are queued: stream order keeps it valid
    return launches, scratch


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
    run_reduction(backend, "minimum", entry, T, resk, info, None, False, devices)
    get = getattr(arr, "get", None)
    return (get() if get is not None else np.asarray(arr))[()]


def check_no_negative(backend, info, devices):
    """NumPy's ValueError for a negative integer exponent: a kernel cannot
    raise, so the exponents are read first and nothing is written."""
    low = lowest(backend, info, devices)
    if low is not None and low < 0:
        raise ValueError(NEGATIVE_POWER)


def check_exponents(name, loop_in, inputs, backend, devices):
    """np.power of signed integers: the exponent (a scalar, a device array
    or its DeviceInfo) has no negative element."""
    if name != "power" or loop_in[1].kind != "i":
        return
    exponent = inputs[1]
    if isinstance(exponent, DeviceInfo) or is_device_array(exponent):
        info = exponent if isinstance(exponent, DeviceInfo) else DeviceInfo(exponent)
        if info.dtype.kind == "i":
            check_no_negative(backend, info, devices)
    elif exponent < 0:
        raise ValueError(NEGATIVE_POWER)

"""``titer.copy`` / ``ascontiguous`` / ``empty_like`` for CuPy arrays.

Every element goes through ``copy.cu``: an identity kernel per destination
dtype whose cast variant loads any source dtype (LoadWithCast), so a dtype
conversion is one pass with no converted copy.  The layouts (broadcasting,
dim order, coalescing, memory formats) come from titer's CPU iterator and
layout helpers run on zero-size stand-ins, as in ``dispatch.elementwise``.

The first executor: imports ``device``, ``plan`` and ``launcher``;
``dispatch.py`` and ``reduce.py`` use its ``copy_view`` / ``clone`` /
``preserve_order``.
"""
import numpy as np

from .. import _core, _frontend
from . import launcher
from . import plan as _plan
from .device import (DeviceInfo, backend_manifest, check_not_numpy, dtype_code,
                     is_device_array, one_device, stand_in, writeable)
from .launcher import allocate
from .plan import contiguous_strides


def copy_view(backend, dst, src, devices=None):
    """Write src (a DeviceInfo, or a scalar: converted as plan.kernel_scalar
    converts) into dst (a DeviceInfo), broadcasting; no checks: the callers
    made them."""
    if _plan.numel(dst.shape) == 0:
        return
    scalar = not isinstance(src, DeviceInfo)
    cfg = (_core.IterConfig().resize_outputs(False).check_all_same_dtype(False)
           .check_mem_overlap(False))
    cfg.add_output(stand_in(dst.shape, dst.strides, dst.dtype))
    cfg.add_input(np.zeros((), dst.dtype) if scalar
                  else stand_in(src.shape, src.strides, src.dtype))
    it = cfg.build()
    sig = "%s->%s" % (dst.dtype.char, dst.dtype.char)
    entry = backend_manifest(backend)["copy"]["kernels"][sig]
    piece = _plan.Piece(tuple(it.shape), (tuple(it.strides(0)), tuple(it.strides(1))), (0, 0))
    code = dtype_code(dst.dtype)
    if scalar:
        scalar_bytes = [None, _plan.kernel_scalar(src, dst.dtype)]
        mem_codes, bases = [code, code], [dst.ptr, 0]
    else:
        scalar_bytes = [None, None]
        mem_codes, bases = [code, dtype_code(src.dtype)], [dst.ptr, src.ptr]
    device = next(iter(devices)) if devices else None
    for launch in _plan.plan_launches(entry["stem"], piece, bases, mem_codes, [code, code],
                                      scalar_bytes, entry["vec"]):
        backend.launch(backend_manifest(backend)["copy"]["module"], launch, device)


def copy(dst, src, casting="same_kind", backend=None):
    """``numpy.copyto(dst, src, casting)`` with a device dst: src (a device
    array or a scalar) broadcast into dst, converted in titer's cast kernel."""
    if not is_device_array(dst):
        raise TypeError("copy: dst must be an array, got %s" % type(dst).__name__)
    check_not_numpy("titer.copy", (src,))
    backend = backend or launcher.default_backend()
    d = DeviceInfo(dst)
    dtype_code(d.dtype)
    s = _source(src, d, writeable(dst), _frontend.normalize_casting(casting))
    if d.internal_overlap():
        raise ValueError("copy: dst has internal overlap (a stride-0 or overlapping "
                         "dimension); it cannot be written element by element")
    devices = {backend.device_of(dst)}
    if isinstance(s, DeviceInfo):
        devices.add(backend.device_of(src))
        one_device("titer.copy", devices)
    if _frontend.copy_discards_imaginary(s.dtype, d.dtype):
        _frontend.warn_discarded_imaginary(stacklevel=2)   # an empty dst too, as NumPy
    if _plan.numel(d.shape) == 0 or (isinstance(s, DeviceInfo) and s.same_view(d)):
        return dst
    if isinstance(s, DeviceInfo) and s.overlaps(d):
        s = clone(backend, s, devices)       # as if src were copied first (NumPy's rule)
    copy_view(backend, d, s, devices)
    return dst


def _source(src, d, dst_writeable, casting):
    """src as a copy into `d` reads it -- a DeviceInfo, or a NumPy scalar (a
    Python one as NumPy's copyto reads it: weak) -- after the front end's
    copy checks."""
    if type(src) in _frontend.PYTHON_SCALARS:
        _frontend.check_copy(d.shape, dst_writeable, (), None, d.dtype, casting)
        s = _frontend.copy_scalar(src, d.dtype, casting)
        dtype_code(s.dtype)
        return s
    if isinstance(src, np.generic):
        s = src
    elif is_device_array(src):
        s = DeviceInfo(src)
    else:
        raise TypeError("copy: unsupported source type %s with a device dst"
                        % type(src).__name__)
    dtype_code(s.dtype)
    drop = _frontend.check_copy(d.shape, dst_writeable, s.shape, s.dtype, d.dtype, casting)
    if drop:
        s = DeviceInfo.of(s.ptr, s.shape[drop:], s.strides[drop:], s.dtype, s.array)
    return s


def clone(backend, info, devices=None, dtype=None, order=None):
    """A packed copy of info (in x's own dim order unless `order`), as a
    DeviceInfo whose .array is the new device array."""
    dt = info.dtype if dtype is None else np.dtype(dtype)
    if order is None:
        order = preserve_order(info)
    _, new = allocate(backend, info.shape, dt, contiguous_strides(info.shape, dt.itemsize, order),
                      devices or set())
    copy_view(backend, new, info, devices)
    return new


def preserve_order(info):
    """ATen's empty_like(preserve): x's own dim order when x is
    non-overlapping and dense (and not reversed), else its suggested format."""
    x = stand_in(info.shape, info.strides, info.dtype)
    if _core.is_non_overlapping_and_dense(x) and all(s >= 0 for s in info.strides):
        return tuple(sorted(range(len(info.shape)), key=lambda d: (-info.strides[d], d)))
    return _core._format_order(len(info.shape), _core.suggest_memory_format(x))


def empty_like(x, memory_format="preserve", dtype=None, backend=None):
    """titer.empty_like for a device array: the same layout rule as the CPU."""
    _core._check_format(memory_format)
    backend = backend or launcher.default_backend()
    info = DeviceInfo(x)
    dt = info.dtype if dtype is None else np.dtype(dtype)
    dtype_code(dt)
    if memory_format == "preserve":
        order = preserve_order(info)
    else:
        order = _core._format_order(len(info.shape), memory_format)
    arr, _ = allocate(backend, info.shape, dt, contiguous_strides(info.shape, dt.itemsize, order),
                      {backend.device_of(x)})
    return arr


def ascontiguous(x, memory_format="contiguous", backend=None):
    """titer.ascontiguous for a device array: x itself when it already has
    the layout, else a copy in it made by titer's kernels."""
    _core._check_format(memory_format)
    backend = backend or launcher.default_backend()
    info = DeviceInfo(x)
    dtype_code(info.dtype)
    probe = stand_in(info.shape, info.strides, info.dtype)
    if memory_format == "preserve":
        if _core.is_non_overlapping_and_dense(probe):
            return x
    elif memory_format == "contiguous" or len(info.shape) in (4, 5):
        if _core.is_contiguous(probe, memory_format):
            return x
    devices = {backend.device_of(x)}
    dst = empty_like(x, memory_format, backend=backend)
    copy_view(backend, DeviceInfo(dst), info, devices)
    return dst

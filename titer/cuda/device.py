"""Device arrays as the planners see them, and the kernels built for them.

The bottom layer of the executors (``copy.py``, ``dispatch.py``,
``reduce.py``), the replay cache and the CuPy backend: ``DeviceInfo`` (a
device array's pointer, shape, strides and dtype, read from its CUDA array
interface), ``stand_in`` (a NumPy array with that layout for titer's CPU
iterator), ``dtype_code``, the checks every entry point makes of its
operands, and the kernel manifest written at build time.

Imports only ``build`` and ``plan`` of this package (and titer's ``_core``):
no backend, no CuPy.
"""
import json
import os

import numpy as np

from .. import _core, _frontend
from . import build
from . import plan as _plan

KERNEL_DIR = build.KERNEL_DIR
_CODES = {np.dtype(c): i for i, c in enumerate(_plan.TYPECHARS)}
_MIXED = ("%s: cannot mix NumPy arrays and device arrays (CuPy); move them to one side "
          "first (cupy.asarray / cupy.asnumpy)")

_manifest = None


def manifest():
    """The kernel manifest written at build time (see build.py)."""
    global _manifest
    if _manifest is None:
        path = os.path.join(KERNEL_DIR, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                _manifest = json.load(f)
        else:                          # not built: generate in memory
            _manifest = build.generate(KERNEL_DIR)
    return _manifest


def backend_manifest(backend):
    """The kernels a backend has: its own list (the host backend builds a
    few ops), else the shipped manifest."""
    return getattr(backend, "manifest", None) or manifest()


is_device_array = _frontend.is_device_array


def is_operand_array(x):
    """An array of either side: a NumPy array among device operands is an
    error of its own (check_not_numpy), not an unknown type."""
    return isinstance(x, np.ndarray) or is_device_array(x)


def check_not_numpy(what, operands):
    """NumPy arrays cannot join a device call: titer moves no data between
    host and device behind the caller's back."""
    if any(isinstance(x, np.ndarray) for x in operands):
        raise TypeError(_MIXED % what)


def one_device(what, devices):
    """The operands' devices, which must be one (or none: scalars only)."""
    if len(devices) > 1:
        raise ValueError("%s: operands are on different devices %s" % (what, sorted(devices)))
    return devices


def bool_mask(what, where):
    """where= as the kernels take it: a bool, or a bool device array's
    DeviceInfo (a NumPy mask would have to be copied to the device)."""
    if isinstance(where, (bool, np.bool_)):
        return bool(where)
    if not is_device_array(where):
        raise TypeError("%s: where= must be a device array (or a bool) with device arrays, "
                        "got %s" % (what, type(where).__name__))
    mask = DeviceInfo(where)
    if mask.dtype != np.bool_:
        raise TypeError("where= must be a boolean array, got dtype %s" % mask.dtype)
    return mask


def dtype_code(dt):
    try:
        return _CODES[dt]
    except KeyError:
        raise TypeError("titer has no CUDA kernels for dtype %s" % dt) from None


def interface_key(x, device_of):
    """(key part, address) of a device array through its CUDA array
    interface, or (None, None): not a device array.  The part holds dtype,
    shape, strides, address modulo 16 (the vector width depends on it) and
    the device: what the replay cache keys a call by."""
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None or isinstance(x, np.ndarray):
        return None, None
    ptr = int(cai["data"][0] or 0)
    strides = cai.get("strides")
    return (np.dtype(cai["typestr"]), tuple(cai["shape"]), strides and tuple(strides),
            ptr & 15, device_of(x)), ptr


class DeviceInfo:
    """What the planner needs from a device array (CUDA array interface v3)."""
    __slots__ = ("array", "ptr", "shape", "strides", "dtype")

    def __init__(self, x):
        cai = x.__cuda_array_interface__
        self.array = x
        self.ptr = int(cai["data"][0] or 0)
        self.shape = tuple(int(s) for s in cai["shape"])
        self.dtype = np.dtype(cai["typestr"])
        if cai.get("strides") is None:
            self.strides = _plan.contiguous_strides(self.shape, self.dtype.itemsize)
        else:
            self.strides = tuple(int(s) for s in cai["strides"])
        if not self.dtype.isnative:
            raise ValueError("byte-swapped device arrays are not supported (dtype %s)"
                             % self.dtype)
        align = self.dtype.alignment
        if self.ptr % align or any(s % align for s in self.strides):
            raise ValueError("unaligned device arrays are not supported")

    @classmethod
    def of(cls, ptr, shape, strides, dtype, array=None):
        """Metadata for a view that has no array object of its own."""
        self = cls.__new__(cls)
        self.array, self.ptr, self.shape = array, ptr, tuple(shape)
        self.strides, self.dtype = tuple(strides), np.dtype(dtype)
        return self

    def extent(self):
        """[lo, hi) bytes the array touches (None when empty)."""
        if any(s == 0 for s in self.shape):
            return None
        lo, hi = _plan.byte_span(self.shape, self.strides)
        return self.ptr + lo, self.ptr + hi + self.dtype.itemsize

    def overlaps(self, other):
        """The two touch a common byte (empty arrays touch none)."""
        a, b = self.extent(), other.extent()
        return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]

    def internal_overlap(self):
        """Two index tuples reach one byte (the CPU build's check)."""
        return _core.internal_overlap(stand_in(self.shape, self.strides, self.dtype))

    def same_view(self, other):
        """The same elements in the same order: an exact alias, safe for an
        element-by-element loop."""
        return (self.ptr == other.ptr and self.shape == other.shape
                and self.strides == other.strides and self.dtype == other.dtype)


def writeable(x):
    """A device array may be written (CuPy's have no read-only flag; other
    libraries' may)."""
    return getattr(getattr(x, "flags", None), "writeable", True) is not False


_STAND_INS = {}


def stand_in(shape, strides, dtype):
    """A NumPy array with these strides over one element: metadata for the
    CPU iterator, never read or written (so one per layout serves every
    call: as_strided costs microseconds)."""
    key = (tuple(shape), tuple(strides), dtype)
    x = _STAND_INS.get(key)
    if x is None:
        if len(_STAND_INS) >= 1024:
            _STAND_INS.clear()
        base = np.zeros(1, dtype)
        x = _STAND_INS[key] = np.lib.stride_tricks.as_strided(base, shape=key[0],
                                                             strides=key[1])
    return x

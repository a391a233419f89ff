"""The CuPy backend: kernels loaded with cupy.RawModule, memoized per device.

Imported only when a CuPy array reaches titer (``launcher.default_backend``);
importing titer never imports this module, CuPy or CUDA.  Imports ``build``,
``plan`` and ``device`` of this package: no executor."""
import ctypes
import os
import threading

import cupy
import numpy as np

from .. import _frontend
from .build import KERNEL_DIR, NVRTC_OPTIONS, inlined_source
from .device import interface_key
from .fuse import FPARAMS_SIZE, FREDUCE_SIZE
from .plan import PARAMS_DTYPE, RPARAMS_DTYPE, byte_span

_ndarray = cupy.ndarray


_EXTENTS = {}                           # (shape, strides, itemsize) -> _extent
# Where the parameters cannot go as a CPointer (see _kernel_argument), the
# struct goes to CuPy as one opaque item: CuPy reads a NumPy argument's
# address through __array_interface__, which costs ~20 us for the structured
# dtype (it lists every field) and ~3 us for a plain void one.
_VOID = {n: np.dtype((np.void, n))
         for n in (PARAMS_DTYPE.itemsize, RPARAMS_DTYPE.itemsize, FPARAMS_SIZE, FREDUCE_SIZE)}


def _opaque(params):
    return params.view(_VOID[params.itemsize])


def _set_flags(mod):
    """The module's copy of each of the front end's kernel flags (NumPy
    version rules, titer_scalar.cuh), written before its first launch."""
    for name, value in _frontend.KERNEL_FLAGS.items():
        word = ctypes.c_int(value)
        mod.get_global(name).copy_from_host(ctypes.addressof(word), ctypes.sizeof(word))
    return mod


class _Params(np.ndarray):
    """Kernel parameters whose address is known: CuPy passes a 1-item NumPy
    argument by value from ``__array_interface__['data'][0]`` alone, and
    NumPy builds that whole dict per read (~3 us)."""

    @property
    def __array_interface__(self):
        return self._interface


try:                                    # CuPy passes a CPointer's address as it is
    from cupy.cuda.function import CPointer as _CPointer
except ImportError:
    _CPointer = None


def _kernel_argument(params):
    """The launch argument for a titer_params / titer_rparams array.  Packed
    parameters (a NumPy view of a bytearray) go as a CPointer to their bytes
    (~0.5 us: the launch copies them, CuPy reads nothing); other arrays as
    an opaque item with its interface computed once (launches replayed on
    the same buffers reuse it)."""
    mv = params.base
    if _CPointer is not None and type(mv) is memoryview and not mv.readonly \
            and mv.nbytes == params.itemsize:
        return _CPointer(ctypes.addressof(ctypes.c_char.from_buffer(mv)))
    arg = _opaque(params)
    interface = {"data": arg.__array_interface__["data"]}
    arg = arg.view(_Params)
    arg._interface = interface
    return arg


def _extent(shape, strides, itemsize):
    """(bytes to allocate, offset of element 0) for a layout; an empty array
    gets an item's worth too (CuPy takes strides only with memory)."""
    if any(n == 0 for n in shape):
        return itemsize, 0
    if len(_EXTENTS) > 1024:
        _EXTENTS.clear()
    lo, hi = byte_span(shape, strides)
    return itemsize + hi - lo, -lo


class CupyBackend:
    _instance = None

    def __init__(self):
        self._modules = {}              # (device id, op) -> RawModule
        self._functions = {}            # (device id, kernel name) -> cupy.cuda.Function
        self._lock = threading.Lock()
        self._sms = {}                  # device id -> multiprocessor count
        self.plan_cache = {}            # dispatch's recorded launches, by layout
        self._args = {}                 # (device id, kernel name) -> (params, its argument)
        self._fast_args = True          # _Params accepted (see _kernel_argument)
        self._fused = {}                # (device id, fused source) -> (RawModule, {name: Function})

    @classmethod
    def get(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def sm_count(self):
        """Multiprocessors of the current device (how wide a reduction goes)."""
        device = cupy.cuda.Device().id
        count = self._sms.get(device)
        if count is None:
            count = self._sms[device] = cupy.cuda.Device(device).attributes[
                "MultiProcessorCount"]
        return count

    # ---- arrays ----
    def array_key(self, x):
        """The plan cache's key part of a device array and its address:
        CuPy's own attributes (its __cuda_array_interface__ builds a dict
        per call), the interface for other libraries' arrays."""
        if type(x) is not _ndarray:
            return interface_key(x, self.device_of)
        mem = x.data
        ptr = mem.ptr
        return (x.dtype, x.shape, x.strides, ptr & 15, mem.device_id), ptr

    def device_of(self, x):
        dev = getattr(x, "device", None)
        if dev is not None and hasattr(dev, "id"):
            return dev.id
        return cupy.cuda.runtime.pointerGetAttributes(
            x.__cuda_array_interface__["data"][0]).device

    def empty(self, shape, dtype, strides, devices):
        """Uninitialized device memory with exactly these strides (the
        planner's output layout); CuPy allocates, nothing is computed."""
        device = next(iter(devices)) if devices else cupy.cuda.runtime.getDevice()
        if device != cupy.cuda.runtime.getDevice():
            with cupy.cuda.Device(device):
                return self.empty(shape, dtype, strides, devices)
        shape, strides = tuple(shape), tuple(strides)
        key = (shape, strides, dtype.itemsize)
        extent = _EXTENTS.get(key)
        if extent is None:
            extent = _EXTENTS[key] = _extent(shape, strides, dtype.itemsize)
        nbytes, first = extent
        mem = cupy.cuda.alloc(nbytes)
        return _ndarray(shape, dtype, memptr=mem + first if first else mem, strides=strides)

    # ---- kernels ----
    def _module(self, op_name, probe):
        device = cupy.cuda.Device().id
        key = (device, op_name)
        mod = self._modules.get(key)
        if mod is None:
            with self._lock:
                mod = self._modules.get(key)
                if mod is None:
                    mod = self._load(op_name, probe)
                    self._modules[key] = mod
        return mod

    def _load(self, op_name, probe):
        """The shipped fatbin; where it has no image for this device (or was
        not built), the shipped source compiled once by NVRTC (CuPy caches
        the binary on disk)."""
        path = os.path.join(KERNEL_DIR, op_name + ".fatbin")
        if os.path.exists(path):
            try:                                # no image for this GPU / driver
                mod = cupy.RawModule(path=path)
                mod.get_function(probe)         # loads the module now
                return _set_flags(mod)
            except cupy.cuda.driver.CUDADriverError:
                pass
        return _set_flags(cupy.RawModule(code=inlined_source(op_name), options=NVRTC_OPTIONS))

    def launch(self, op_name, launch, device=None):
        """One kernel launch on the operands' device, current stream."""
        current = cupy.cuda.runtime.getDevice()
        if device is not None and device != current:
            with cupy.cuda.Device(device):
                return self.launch(op_name, launch, device)
        key = (current, launch.kernel)
        fn = self._functions.get(key)
        if fn is None:
            fn = self._module(op_name, launch.kernel).get_function(launch.kernel)
            # the RawKernel's cupy.cuda.Function for this device: calling it
            # skips RawKernel's per-call device lookup
            fn = getattr(fn, "kernel", fn)
            self._functions[key] = fn
        params = launch.params
        last = self._args.get(key)
        if last is not None and last[0] is params:     # a replay of the same buffers
            arg = last[1]
        else:
            arg = _kernel_argument(params) if self._fast_args else _opaque(params)
            self._args[key] = (params, arg)
        try:
            fn(launch.grid, launch.block, (arg,))
        except (KeyError, TypeError):
            if not self._fast_args or type(arg) is not _Params:
                raise
            self._fast_args = False             # this CuPy reads more of the interface
            self._args.clear()
            fn(launch.grid, launch.block, (_opaque(params),))

    def launch_fused(self, source, launch, device=None):
        """One launch of a fused evaluate program (titer/cuda/fuse.py): its
        source compiled by NVRTC with the shipped kernels' numerics options
        at its first use on a device (CuPy caches the binary on disk)."""
        current = cupy.cuda.runtime.getDevice()
        if device is not None and device != current:
            with cupy.cuda.Device(device):
                return self.launch_fused(source, launch, device)
        key = (current, source)
        module = self._fused.get(key)
        if module is None:
            with self._lock:
                module = (_set_flags(cupy.RawModule(code=source, options=NVRTC_OPTIONS)), {})
                if len(self._fused) >= 256:
                    self._fused.clear()
                self._fused[key] = module
        fn = module[1].get(launch.kernel)
        if fn is None:          # (a program's source defines its elementwise or reduce kernels)
            fn = module[0].get_function(launch.kernel)
            fn = module[1][launch.kernel] = getattr(fn, "kernel", fn)
        params = launch.params
        arg = _kernel_argument(params) if self._fast_args else _opaque(params)
        fn(launch.grid, launch.block, (arg,))

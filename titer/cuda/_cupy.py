"""The CuPy backend: kernels loaded with cupy.RawModule, memoized per device.

Imported only when a CuPy array reaches titer.elementwise; importing titer
never imports this module, CuPy or CUDA."""
import os
import threading

import cupy

from .build import HEADERS, HERE
from .dispatch import KERNEL_DIR


def inlined_source(op_name):
    """An op's .cu with titer's headers pasted in, for RawModule(code=...)."""
    with open(os.path.join(KERNEL_DIR, op_name + ".cu")) as f:
        text = f.read()
    for h in HEADERS:
        with open(os.path.join(HERE, h)) as f:
            text = text.replace('#include "%s"' % h, f.read())
    return text


class CupyBackend:
    _instance = None

    def __init__(self):
        self._modules = {}              # (device id, op) -> RawModule
        self._functions = {}            # (device id, kernel name) -> RawKernel
        self._lock = threading.Lock()
        self._sms = {}                  # device id -> multiprocessor count
        self.plan_cache = {}            # dispatch's recorded launches, by layout

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
    def device_of(self, x):
        dev = getattr(x, "device", None)
        if dev is not None and hasattr(dev, "id"):
            return dev.id
        return cupy.cuda.runtime.pointerGetAttributes(
            x.__cuda_array_interface__["data"][0]).device

    def empty(self, shape, dtype, strides, devices):
        """Uninitialized device memory with exactly these strides (the
        planner's output layout); CuPy allocates, nothing is computed."""
        device = next(iter(devices)) if devices else cupy.cuda.Device().id
        with cupy.cuda.Device(device):
            if any(n == 0 for n in shape):
                return cupy.ndarray(shape, dtype, strides=strides)
            span = sum((n - 1) * abs(s) for n, s in zip(shape, strides))
            first = sum((n - 1) * -s for n, s in zip(shape, strides) if s < 0)
            mem = cupy.cuda.alloc(dtype.itemsize + span)
            return cupy.ndarray(shape, dtype, memptr=mem + first, strides=strides)

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
                return mod
            except cupy.cuda.driver.CUDADriverError:
                pass
        return cupy.RawModule(code=inlined_source(op_name), options=("-std=c++17",))

    def launch(self, op_name, launch, device=None):
        """One kernel launch on the operands' device, current stream."""
        if device is not None and device != cupy.cuda.Device().id:
            with cupy.cuda.Device(device):
                return self.launch(op_name, launch, device)
        key = (cupy.cuda.Device().id, launch.kernel)
        fn = self._functions.get(key)
        if fn is None:
            fn = self._module(op_name, launch.kernel).get_function(launch.kernel)
            self._functions[key] = fn
        fn(launch.grid, launch.block, (launch.params,))

"""A stand-in ``cupy`` whose "GPU" is the CPU: titer's kernels run through the
g++ host shim (``titer.cuda.host``), launched by titer's real CuPy backend
(``titer/cuda/_cupy.py``).

``TITER_SIM_GPU=1 pytest tests/test_cuda_gpu.py tests/test_cuda_gpu_reduce.py``
runs the GPU test files against it (``tests/conftest.py`` puts it in
``sys.modules`` before they import CuPy), so the files a GPU session runs
are themselves checked in CI, along with the backend's allocations, module
loading and by-value launches.  Only what those files and ``python -m titer
gpu`` touch is here: device memory is NumPy memory, arrays are NumPy views
behind the CUDA array interface, ``RawModule`` hands out the host shim's
kernels by name (a fatbin's bytes are not read, ``code=`` is not compiled:
tests/test_cuda_nvcc.py and tests/test_cuda_nvrtc.py cover those), and a
launch reads its one by-value argument from ``__array_interface__`` as CuPy
does.  ``add``, ``sum`` and ``max`` are NumPy's: they stand for CuPy's own
ufuncs, the peers titer is timed against, never titer's results.
"""
import ctypes
import os
import sys
import types

import numpy as np

__version__ = "sim"
# "device memory" the tests may ask for: the tests needing GiBs past 2**31
# elements skip.  TITER_SIM_GPU_MEMORY (bytes) lets them run: the split-path
# add passes in some minutes on 2 cores; the 64-bit reduction test's sum
# over axis 0 (2**30 outputs, a block of fibers per 32) takes hours.
_FREE_BYTES = int(os.environ.get("TITER_SIM_GPU_MEMORY", 1 << 30))


class MemoryPointer:
    """Bytes of "device" memory (a NumPy uint8 buffer) and an offset."""

    def __init__(self, buf, offset=0):
        self.buf, self.offset = buf, offset
        self.ptr = buf.__array_interface__["data"][0] + offset
        self.device_id = 0

    def __add__(self, k):
        return MemoryPointer(self.buf, self.offset + k)

    def copy_from_device(self, src, nbytes):
        """cudaMemcpy device to device (the benchmarks' bandwidth bar)."""
        self.buf[self.offset:self.offset + nbytes] = src.buf[src.offset:src.offset + nbytes]


def _alloc(nbytes):
    """cupy.cuda.alloc: fresh memory, 256-byte aligned as CuPy's pool gives it."""
    buf = np.empty(nbytes + 256, np.uint8)
    return MemoryPointer(buf, -buf.__array_interface__["data"][0] % 256)


class ndarray:
    """A device array: a NumPy view of "device" memory (unhashable, as
    CuPy's)."""
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None):
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if memptr is None:
            if strides is not None:
                raise ValueError("memptr is required if strides is given.")
            memptr = _alloc(int(np.prod(shape)) * dtype.itemsize)
        self._a = np.ndarray(shape, dtype, buffer=memptr.buf, offset=memptr.offset,
                             strides=strides)
        self.data = memptr
        self.device = types.SimpleNamespace(id=0)

    @classmethod
    def _view(cls, a, buf):
        """A device array over the NumPy view `a` of the buffer `buf`."""
        x = cls.__new__(cls)
        x._a = a
        x.data = MemoryPointer(buf, a.__array_interface__["data"][0]
                               - buf.__array_interface__["data"][0])
        x.device = types.SimpleNamespace(id=0)
        return x

    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (self.data.ptr, False), "version": 3}

    shape = property(lambda self: self._a.shape)
    strides = property(lambda self: self._a.strides)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    T = property(lambda self: self._view(self._a.T, self.data.buf))

    def transpose(self, *axes):
        return self._view(self._a.transpose(*axes), self.data.buf)

    def reshape(self, *shape):
        view = self._a.view()
        view.shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return self._view(view, self.data.buf)

    def __getitem__(self, index):
        return self._view(self._a[index][...], self.data.buf)     # 0-d stays an array

    def __len__(self):
        return len(self._a)

    def get(self):
        return self._a.copy()

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __bool__(self):
        return bool(self._a)

    def __index__(self):
        return self._a.__index__()

    def __repr__(self):
        return "sim_cupy.ndarray(%r)" % (self._a,)


def _filled(shape, dtype, value):
    x = ndarray(shape, dtype)
    x._a[...] = value
    return x


def empty(shape, dtype=float):
    return ndarray(shape, dtype)


def zeros(shape, dtype=float):
    return _filled(shape, dtype, 0)


def ones(shape, dtype=float):
    return _filled(shape, dtype, 1)


def full(shape, value, dtype=None):
    return _filled(shape, np.asarray(value).dtype if dtype is None else dtype, value)


def arange(*args, dtype=None):
    host = np.arange(*args, dtype=dtype)
    return asarray(host)


def asarray(x):
    """A device copy in x's layout (order K, as CuPy)."""
    if isinstance(x, ndarray):
        return x
    host = np.array(x, order="K", copy=True)
    dev = ndarray(host.shape, host.dtype)
    dev = ndarray(host.shape, host.dtype, memptr=dev.data, strides=host.strides) \
        if host.strides != dev.strides and host.size else dev
    dev._a[...] = host
    return dev


def asnumpy(x):
    return x.get() if isinstance(x, ndarray) else np.asarray(x)


def add(a, b, out=None):
    """CuPy's own add, for the timings titer is compared with."""
    res = np.add(a._a, b._a, out=None if out is None else out._a)
    return out if out is not None else asarray(res)


def _peer_reduction(numpy_fn):
    def reduction(x, axis=None):
        return asarray(numpy_fn(x._a, axis=axis))
    return reduction


sum = _peer_reduction(np.sum)
max = _peer_reduction(np.max)


# ---- cupy.cuda ----

class CUDADriverError(Exception):
    pass


class Device:
    def __init__(self, id=None):
        self.id = 0 if id is None else id
        if self.id != 0:
            raise ValueError("the simulated machine has one device")
        self.attributes = {"MultiProcessorCount": 2}    # reductions split at test sizes
        self.mem_info = (_FREE_BYTES, _FREE_BYTES)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


_HOST = []                     # the host backend (its compiled kernels)


def _host():
    if not _HOST:
        from oracle import host_backend
        _HOST.append(host_backend())
    return _HOST[0]


class Function:
    """cupy.cuda.Function: runs the kernel through the host shim."""

    def __init__(self, name):
        self.name = name

    def __call__(self, grid, block, args):
        from titer.cuda import plan
        (arg,) = args
        # the kernel's parameter struct, by its name
        layout = plan.RPARAMS_DTYPE if self.name.endswith(
            tuple("_" + kind for kind in plan.RPARAMS_KINDS)) else plan.PARAMS_DTYPE
        if isinstance(arg, CPointer):
            # as CuPy: the bytes at the address, as they are
            raw = ctypes.string_at(arg.ptr, layout.itemsize)
        else:
            # as CuPy: a NumPy argument goes by value, from the address its
            # __array_interface__ names, itemsize bytes
            assert isinstance(arg, np.ndarray) and arg.size == 1
            assert arg.itemsize == layout.itemsize, (self.name, arg.itemsize)
            raw = ctypes.string_at(arg.__array_interface__["data"][0], arg.itemsize)
        params = np.frombuffer(raw, layout)
        _host().launch(None, plan.Launch(self.name, tuple(grid), tuple(block), params, 0))


class CPointer:
    """cupy.cuda.function.CPointer: an address CuPy passes as it is."""

    def __init__(self, p=0):
        self.ptr = p


class RawKernel:
    def __init__(self, name, kernel=None):
        self.kernel = kernel or Function(name)


class FusedFunction:
    """A fused evaluate kernel (its own library, as its own module)."""

    def __init__(self, lib, name):
        self.lib, self.name = lib, name

    def __call__(self, grid, block, args):
        from titer.cuda import fuse, plan
        (arg,) = args
        reduction = self.name in fuse.REDUCE_KERNELS       # 2-d, titer_freduce_params
        size = fuse.FREDUCE_SIZE if reduction else fuse.FPARAMS_SIZE
        if not reduction:
            assert tuple(grid[1:]) == (1, 1) and tuple(block[1:]) == (1, 1)
        if isinstance(arg, CPointer):
            raw = ctypes.string_at(arg.ptr, size)
        else:
            assert isinstance(arg, np.ndarray) and arg.itemsize == size
            raw = ctypes.string_at(arg.__array_interface__["data"][0], arg.itemsize)
        params = ctypes.create_string_buffer(raw, len(raw))
        kernel = ctypes.cast(getattr(self.lib, self.name), ctypes.c_void_p)
        if reduction:
            assert grid[2] == block[2] == 1 and block[0] * block[1] <= plan.RBLOCK
            self.lib.titer_host_launch_fused_reduce(kernel, grid[0], grid[1], block[0],
                                                    block[1], params)
        else:
            self.lib.titer_host_launch_fused(kernel, grid[0], block[0], params)


class RawModule:
    """A shipped module's kernels are the host library's; a source given as
    code= that is a fused evaluate program (titer/cuda/fuse.py) is compiled
    with g++ here, as NVRTC compiles it on a GPU (the op modules' code= is
    not: tests/test_cuda_nvrtc.py covers those)."""

    def __init__(self, path=None, code=None, options=()):
        self.path, self.code, self.options = path, code, options
        self.lib = None
        if code is not None and "titer_fused_element" in code:
            from titer.cuda import host
            self.lib = host.fused_library(code)

    def get_function(self, name):
        lib = self.lib or _host().lib
        if not hasattr(lib, name):
            raise CUDADriverError("CUDA_ERROR_NOT_FOUND: named symbol not found: " + name)
        if self.lib is not None:
            return RawKernel(name, FusedFunction(self.lib, name))
        return RawKernel(name)

    def get_global(self, name):
        """A global of the module: the host library's (one copy for every
        module, where a GPU has one per module), a fused program's own."""
        lib = self.lib or _host().lib
        if not hasattr(lib, name):
            raise CUDADriverError("CUDA_ERROR_NOT_FOUND: named symbol not found: " + name)
        return HostPointer(ctypes.addressof(ctypes.c_int.in_dll(lib, name)))


class HostPointer:
    """cupy.cuda.MemoryPointer's copy_from_host, on host memory."""

    def __init__(self, ptr):
        self.ptr = ptr

    def copy_from_host(self, mem, size):
        ctypes.memmove(self.ptr, mem, size)


def install():
    """Make ``import cupy`` give this module."""
    me = sys.modules[__name__]
    cuda = types.ModuleType("cupy.cuda")
    cuda.Device = Device
    cuda.alloc = _alloc
    cuda.Function = Function
    cuda.runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1, getDevice=lambda: 0,
        getDeviceProperties=lambda i: {"name": b"titer host shim (simulated GPU)"})
    cuda.driver = types.SimpleNamespace(CUDADriverError=CUDADriverError)
    cuda.function = types.ModuleType("cupy.cuda.function")
    cuda.function.CPointer = CPointer
    me.cuda = cuda
    sys.modules["cupy"] = me
    sys.modules["cupy.cuda"] = cuda
    sys.modules["cupy.cuda.function"] = cuda.function

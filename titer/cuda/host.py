"""Run titer's CUDA kernels on the CPU (for tests without a GPU).

``HostBackend(ops)`` generates the ops' kernel sources, compiles them with
g++ and ``host_shim.h`` into one shared library (cached by content hash),
and plays the device for ``dispatch.elementwise``: ``HostArray`` wraps a
NumPy array behind ``__cuda_array_interface__`` so the dispatcher treats
it as device memory, and each launch runs every (block, thread) of the grid
through the same kernel code a GPU runs.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _frontend
from . import build, fuse, plan


class HostArray:
    """A NumPy array posing as device memory (CUDA array interface v3)."""

    def __init__(self, array):
        self.a = array
        self.ptr = array.__array_interface__["data"][0]

    @property
    def __cuda_array_interface__(self):
        a = self.a
        return {"shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (self.ptr, False), "version": 3}

    @property
    def shape(self):
        return self.a.shape

    @property
    def dtype(self):
        return self.a.dtype

    def get(self):
        return self.a


# TITER_SHIM_CXXFLAGS adds flags (-DTITER_SHIM_UCONTEXT: ucontext fibers on x86-64 too)
_CXXFLAGS = ["-std=c++17", "-O1", "-fPIC", "-w"] + os.environ.get("TITER_SHIM_CXXFLAGS",
                                                                   "").split()


def find_cxx():
    return shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")


def array_key(x):
    """The plan cache's key part of a HostArray (as CupyBackend.array_key
    reads CuPy's attributes), or (None, None)."""
    if not isinstance(x, HostArray):
        return None, None
    a, ptr = x.a, x.ptr
    return (a.dtype, a.shape, a.strides, ptr & 15, 0), ptr


def fused_library(source, cache_dir=None):
    """A fused evaluate kernel's source (headers inlined) compiled with g++
    into a library of its own, with the shim's launcher: a module, as each
    program is one on a GPU (cached by content hash)."""
    cxx = find_cxx()
    if cxx is None:
        raise RuntimeError("no C++ compiler (g++) to build the host kernels")
    cache_dir = cache_dir or os.path.join(tempfile.gettempdir(), "titer-cuda-host")
    os.makedirs(cache_dir, exist_ok=True)
    shim = open(os.path.join(build.HERE, "host_shim.h")).read()
    key = hashlib.sha256((shim + source + cxx + " ".join(_CXXFLAGS)).encode()).hexdigest()[:16]
    lib = os.path.join(cache_dir, "fused-%s.so" % key)
    if not os.path.exists(lib):
        src = os.path.join(cache_dir, "fused-%s.%d.cu" % (key, os.getpid()))
        with open(src, "w") as f:
            f.write(source)
        tmp = lib + ".%d.tmp" % os.getpid()
        try:
            proc = subprocess.run([cxx] + _CXXFLAGS + [
                "-I", build.HERE, "-include", os.path.join(build.HERE, "host_shim.h"),
                "-DTITER_HOST_SHIM_LAUNCHER", "-shared", "-x", "c++", src, "-o", tmp],
                capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError("g++ failed on a fused program:\n%s" % proc.stderr[-3000:])
            os.replace(tmp, lib)
        finally:
            for path in (src, tmp):
                if os.path.exists(path):
                    os.remove(path)
    out = ctypes.CDLL(lib)
    out.titer_host_launch_fused.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                                            ctypes.c_void_p]
    out.titer_host_launch_fused_reduce.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 4 + [
        ctypes.c_void_p]
    return out


class HostBackend:
    """The device side of dispatch.elementwise, on the CPU."""

    def __init__(self, op_list, cache_dir=None, jobs=None, sm_count=2):
        cxx = find_cxx()
        if cxx is None:
            raise RuntimeError("no C++ compiler (g++) to build the host kernels")
        self.manifest = {"ops": {}, "unsupported": {}}
        cache_dir = cache_dir or os.path.join(tempfile.gettempdir(), "titer-cuda-host")
        os.makedirs(cache_dir, exist_ok=True)
        headers = "".join(open(os.path.join(build.HERE, h)).read()
                          for h in build.HEADERS + ("host_shim.h",))
        srcdir = tempfile.mkdtemp(prefix="src-", dir=cache_dir)
        try:
            self.manifest = build.generate(srcdir, op_list)
            names = sorted(n for n, e in self.manifest["ops"].items() if e["kernels"])
            names.append(build.COPY_MODULE)
            texts = {n: open(os.path.join(srcdir, n + ".cu")).read() for n in names}
            key = hashlib.sha256((headers + cxx + " ".join(_CXXFLAGS)
                                  + "".join(texts[n] for n in names)).encode())
            lib = os.path.join(cache_dir, "kernels-%s.so" % key.hexdigest()[:16])
            if not os.path.exists(lib):
                self._compile(cxx, srcdir, names, lib, jobs)
        finally:
            shutil.rmtree(srcdir, ignore_errors=True)
        self.lib = ctypes.CDLL(lib)
        for name, value in _frontend.KERNEL_FLAGS.items():     # the launcher's one copy
            ctypes.c_int.in_dll(self.lib, name).value = value
        self.lib.titer_host_launch.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                                               ctypes.c_void_p]
        self.lib.titer_host_launch_reduce.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 4 + [
            ctypes.c_void_p]
        self.lib.titer_host_div.restype = ctypes.c_uint32
        self.lib.titer_host_div.argtypes = [ctypes.c_uint32] * 4
        self.launched = []              # kernel names, in order (for the tests)
        self.launches = []              # the Launch tuples, in order
        self.plan_cache = {}            # dispatch's recorded launches, by layout
        # a small "device": reductions split over blocks at test sizes
        self._sm_count = sm_count
        self._fused = {}                # fused program source -> its library

    @staticmethod
    def _compile(cxx, srcdir, names, lib, jobs):
        flags = _CXXFLAGS + ["-I", build.HERE, "-include", os.path.join(build.HERE, "host_shim.h")]
        launcher = os.path.join(srcdir, "launcher.cpp")
        with open(launcher, "w") as f:
            f.write("/* titer_host_launch and friends */\n")

        def compile_one(args):
            src, obj, extra = args
            proc = subprocess.run([cxx] + flags + extra + ["-x", "c++", "-c", src, "-o", obj],
                                  capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError("g++ failed on %s:\n%s" % (src, proc.stderr[-3000:]))
            return obj

        work = [(launcher, launcher + ".o", ["-DTITER_HOST_SHIM_LAUNCHER"])]
        work += [(os.path.join(srcdir, n + ".cu"), os.path.join(srcdir, n + ".o"), [])
                 for n in names]
        with ThreadPoolExecutor(jobs or os.cpu_count() or 1) as pool:
            objs = list(pool.map(compile_one, work))
        tmp = lib + ".%d.tmp" % os.getpid()
        subprocess.run([cxx, "-shared", "-o", tmp] + objs, check=True, capture_output=True)
        os.replace(tmp, lib)

    # ---- the device interface dispatch.elementwise uses ----
    def device_of(self, x):
        return 0

    array_key = staticmethod(array_key)

    def empty(self, shape, dtype, strides, devices):
        if any(n == 0 for n in shape):
            return HostArray(np.empty(shape, dtype))
        lo, hi = plan.byte_span(shape, strides)
        buf = np.empty((hi - lo) // dtype.itemsize + 1, dtype)
        base = buf[-lo // dtype.itemsize:]
        return HostArray(np.lib.stride_tricks.as_strided(base, shape, strides))

    def sm_count(self):
        return self._sm_count

    def launch(self, op_name, launch, device=None):
        fn = ctypes.cast(getattr(self.lib, launch.kernel), ctypes.c_void_p)
        params = np.array(launch.params)
        self.launched.append(launch.kernel)
        self.launches.append(launch)
        if params.dtype == plan.RPARAMS_DTYPE:
            assert launch.block[0] * launch.block[1] <= plan.RBLOCK
            self.lib.titer_host_launch_reduce(fn, launch.grid[0], launch.grid[1],
                                              launch.block[0], launch.block[1],
                                              params.ctypes.data)
            return
        assert launch.grid[1:] == (1, 1) and launch.block[1:] == (1, 1)
        self.lib.titer_host_launch(fn, launch.grid[0], launch.block[0],
                                   params.ctypes.data)

    def launch_fused(self, source, launch, device=None):
        """One launch of a fused evaluate program (titer/cuda/fuse.py)."""
        lib = self._fused.get(source)
        if lib is None:
            lib = self._fused[source] = fused_library(source)
            for name, value in _frontend.KERNEL_FLAGS.items():     # the module's copy
                ctypes.c_int.in_dll(lib, name).value = value
        self.launched.append(launch.kernel)
        self.launches.append(launch)
        params = np.array(launch.params)
        fn = ctypes.cast(getattr(lib, launch.kernel), ctypes.c_void_p)
        if launch.kernel in fuse.REDUCE_KERNELS:        # blocks with barriers
            assert launch.block[0] * launch.block[1] <= plan.RBLOCK
            lib.titer_host_launch_fused_reduce(fn, launch.grid[0], launch.grid[1],
                                               launch.block[0], launch.block[1],
                                               params.ctypes.data)
            return
        lib.titer_host_launch_fused(fn, launch.grid[0], launch.block[0], params.ctypes.data)

    def rparams_layout(self):
        out = (ctypes.c_int64 * 21)()
        self.lib.titer_host_rparams_layout(out)
        return list(out)

    def params_layout(self):
        out = (ctypes.c_int64 * 8)()
        self.lib.titer_host_params_layout(out)
        return list(out)

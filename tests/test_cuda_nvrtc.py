"""The NVRTC fallback's source: every kernel module, headers pasted in as
CuPy's ``RawModule(code=...)`` gets it, compiled by NVRTC itself (no GPU
needed) and checked for every kernel the manifest names.

NVRTC is a library, not part of nvcc's install here: the test finds
``libnvrtc`` through ``TITER_NVRTC`` (a path), the ``nvidia-cuda-nvrtc``
wheel (``nvidia/cu13/lib``; the device image has it), or the loader's
search path, and skips, saying so, where there is none."""
import ctypes
import ctypes.util
import glob
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest

import background
from titer.cuda import build, device


def find_nvrtc():
    env = os.environ.get("TITER_NVRTC")
    if env:
        return env
    try:
        import nvidia
        for root in nvidia.__path__:
            hits = sorted(glob.glob(os.path.join(root, "*", "lib", "libnvrtc.so*")))
            hits = [h for h in hits if "builtins" not in h]
            if hits:
                return hits[-1]
    except ImportError:
        pass
    return ctypes.util.find_library("nvrtc")


NVRTC_PATH = find_nvrtc()
pytestmark = pytest.mark.skipif(NVRTC_PATH is None, reason="no NVRTC library (libnvrtc)")


class Nvrtc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def compile(self, source, name, options):
        """(ok, log, ptx)"""
        lib = self.lib
        prog = ctypes.c_void_p()
        rc = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0,
                                    None, None)
        assert rc == 0, "nvrtcCreateProgram: %d" % rc
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = lib.nvrtcCompileProgram(prog, len(options), opts)
            size = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            if rc != 0:
                return False, log.value.decode(errors="replace"), ""
            lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
            ptx = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetPTX(prog, ptx)
            return True, log.value.decode(errors="replace"), ptx.value.decode()
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


def background_build():
    """Every module compiled by NVRTC (a minute or two of CPU), started with
    the session beside the other tests (tests/background.py): ctypes lets go
    of the GIL while NVRTC compiles, and these threads lower their own
    priority (on Linux nice is per thread), so the tests come first."""
    if NVRTC_PATH is None:
        return None
    with tempfile.TemporaryDirectory(prefix="titer-nvrtc-") as folder:
        manifest = build.generate(folder)
        modules = {name: entry for name, entry in manifest["ops"].items() if entry["kernels"]}
        nvrtc = Nvrtc(NVRTC_PATH)
        options = list(build.NVRTC_OPTIONS) + ["--gpu-architecture=compute_90"]

        def one(name):
            ok, log, ptx = nvrtc.compile(build.inlined_source(name, folder), name + ".cu",
                                         options)
            return name, ok, log, set(re.findall(r"\.entry\s+(\w+)", ptx))

        with ThreadPoolExecutor(os.cpu_count() or 1,
                                initializer=background.lower_priority) as pool:
            results = list(pool.map(one, sorted(modules) + [build.COPY_MODULE]))
    return modules, results


def test_every_module_compiles_under_nvrtc():
    """The shipped .cu (headers inlined, __CUDACC_RTC__ branch: no libc
    headers) compiles with the options CupyBackend passes, and its PTX
    defines every kernel the manifest lists for that module."""
    modules, results = background.result(__name__, background_build)
    failed = {name: log[-2000:] for name, ok, log, _ in results if not ok}
    assert not failed, failed
    entries = {name: found for name, _, _, found in results}
    for name, entry in modules.items():
        for sig, kernel in entry["kernels"].items():
            stem = build.kernel_stem(name, sig)
            assert any(e.startswith(stem + "_") for e in entries[name]), (name, sig)
    assert any(e.startswith("titer_copy_") for e in entries[build.COPY_MODULE])
    assert device.KERNEL_DIR == build.KERNEL_DIR

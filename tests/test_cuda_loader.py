"""The CuPy loader (titer/cuda/_cupy.py) against a stand-in ``cupy`` module:
RawModule(path=fatbin) memoized per device, the RawModule(code=...) fallback
with titer's headers pasted in, launches on the operands' device with the
parameters as a by-value struct.  No GPU, no CuPy."""
import ctypes
import importlib
import os
import sys
import types

import numpy as np
import pytest

from titer.cuda import device, dispatch, host, plan


class DriverError(Exception):
    pass


def make_fake_cupy(fail_fatbin=False):
    cupy = types.ModuleType("cupy")
    state = {"device": 0, "modules": [], "calls": []}

    class Device:
        def __init__(self, id=None):
            self.id = state["device"] if id is None else id
            self.attributes = {"MultiProcessorCount": 4}

        def __enter__(self):
            self._saved = state["device"]
            state["device"] = self.id
            return self

        def __exit__(self, *exc):
            state["device"] = self._saved

    class Function:
        def __init__(self, module, name):
            self.module, self.name = module, name

        def __call__(self, grid, block, args):
            """As cupy.cuda.Function: a NumPy argument must hold one item
            and goes by value from __array_interface__['data'][0]; the
            record keeps the bytes the driver would copy."""
            passed = []
            for a in args:
                assert isinstance(a, np.ndarray) and a.size == 1
                if state.get("reads_typestr"):      # a CuPy reading more of it
                    a.__array_interface__["typestr"]
                passed.append(ctypes.string_at(a.__array_interface__["data"][0], a.itemsize))
            state["calls"].append((state["device"], self.name, grid, block, tuple(passed)))

    class RawModule:
        def __init__(self, path=None, code=None, options=()):
            self.path, self.code, self.options = path, code, options
            self.device = state["device"]
            self.globals = {}
            state["modules"].append(self)

        def get_function(self, name):
            if self.path is not None and fail_fatbin:
                raise DriverError("CUDA_ERROR_NO_BINARY_FOR_GPU")
            return RawKernel(Function(self, name))

        def get_global(self, name):
            """A MemoryPointer to the module's global: the bytes written to
            it are kept as the module's (module.globals)."""
            module = self

            class Pointer:
                def copy_from_host(self, mem, size):
                    module.globals[name] = ctypes.string_at(mem, size)
            return Pointer()

    class RawKernel:                    # titer calls its per-device Function
        def __init__(self, function):
            self.kernel = function

        def __call__(self, *args):
            raise AssertionError("launched through RawKernel, not its Function")

    class Memory:                       # host bytes standing in for device memory
        def __init__(self, nbytes, buf=None, offset=0):
            self.buf = np.zeros(nbytes, np.uint8) if buf is None else buf
            self.offset = offset

        def __add__(self, k):
            return Memory(0, self.buf, self.offset + k)

    def alloc(nbytes):
        state["allocs"].append(nbytes)
        return Memory(nbytes)

    class ndarray(FakeDeviceArray):
        """cupy.ndarray's constructor and the attributes titer reads."""

        def __init__(self, shape, dtype, memptr=None, strides=None):
            if memptr is None:
                if strides is not None:         # as CuPy
                    raise ValueError("memptr is required if strides is given.")
                a = np.empty(shape, dtype)
            else:
                a = np.ndarray(shape, dtype, buffer=memptr.buf, offset=memptr.offset,
                               strides=strides)
            super().__init__(a, state["device"])
            self.data = types.SimpleNamespace(ptr=self.ptr, device_id=state["device"])
            self.strides = a.strides        # shape, dtype: HostArray's

    state["allocs"] = []
    cuda = types.ModuleType("cupy.cuda")
    cuda.alloc = alloc
    cupy.ndarray = ndarray
    cuda.Device = Device
    cuda.runtime = types.SimpleNamespace(getDevice=lambda: state["device"])
    cuda.driver = types.SimpleNamespace(CUDADriverError=DriverError)
    cupy.cuda = cuda
    cupy.RawModule = RawModule
    cupy.state = state
    return cupy


@pytest.fixture
def fake(monkeypatch, request, tmp_path):
    cupy = make_fake_cupy(getattr(request, "param", False))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.delitem(sys.modules, "titer.cuda._cupy", raising=False)
    mod = importlib.import_module("titer.cuda._cupy")
    # a fatbin per module, as a build with a GPU driver ships (the stand-in
    # RawModule never reads it); a build without one ships only the .cu
    for name in os.listdir(device.KERNEL_DIR):
        if name.endswith(".cu"):
            (tmp_path / (name[:-3] + ".fatbin")).write_bytes(b"")
    monkeypatch.setattr(mod, "KERNEL_DIR", str(tmp_path))
    yield cupy, mod
    sys.modules.pop("titer.cuda._cupy", None)


class FakeDeviceArray(host.HostArray):
    def __init__(self, a, device=0):
        super().__init__(a)
        self.device = types.SimpleNamespace(id=device)


def _launch(name="titer_add_ff_f_vec4"):
    piece = plan.Piece((100,), ((4,), (4,), (4,)), (0, 0, 0))
    return plan.plan_launches("titer_add_ff_f", piece, [256] * 3, [10] * 3, [10] * 3,
                              [None] * 3, [4])[0]


def test_fatbin_loaded_once_per_device(fake):
    cupy, mod = fake
    be = mod.CupyBackend()
    launch = _launch()
    be.launch("add", launch)
    be.launch("add", launch)
    assert len(cupy.state["modules"]) == 1
    assert cupy.state["modules"][0].path.endswith("add.fatbin")
    be.launch("add", launch, device=1)                 # another device: its own module
    assert [m.device for m in cupy.state["modules"]] == [0, 1]
    assert [c[0] for c in cupy.state["calls"]] == [0, 0, 1]
    dev, name, grid, block, args = cupy.state["calls"][0]
    assert name == "titer_add_ff_f_vec4" and grid == (1, 1, 1) and block == (128, 1, 1)
    (params,) = args                                   # the titer_params bytes
    assert params == launch.params.tobytes()
    assert np.frombuffer(params, plan.PARAMS_DTYPE)[0]["numel"] == 100


@pytest.mark.parametrize("fake", [False, True], indirect=True)
def test_every_module_gets_the_front_ends_kernel_flags(fake):
    """Before its first launch each module loaded (fatbin or NVRTC source, on
    each device) holds the front end's NumPy-version flags: the float16
    nextafter rule (_frontend.KERNEL_FLAGS) as a 4-byte int."""
    from titer import _frontend
    cupy, mod = fake
    be = mod.CupyBackend()
    be.launch("add", _launch())
    be.launch("add", _launch(), device=1)
    want = {"titer_half_nextafter_gives_y":
            int(_frontend.HALF_NEXTAFTER_GIVES_Y).to_bytes(4, sys.byteorder)}
    assert set(_frontend.KERNEL_FLAGS) == set(want)
    loaded = [m for m in cupy.state["modules"] if m.globals]
    assert [m.device for m in loaded] == [0, 1]
    assert all(m.globals == want for m in loaded)


@pytest.mark.parametrize("fake", [True], indirect=True)
def test_fallback_compiles_the_shipped_source(fake):
    cupy, mod = fake
    be = mod.CupyBackend()
    be.launch("add", _launch())
    code_modules = [m for m in cupy.state["modules"] if m.code is not None]
    assert len(code_modules) == 1
    src = code_modules[0].code
    assert '#include "titer_' not in src                # headers pasted in
    assert "struct titer_params" in src and "TITER_DEFINE_VEC_KERNEL(titer_add_ff_f" in src
    assert "-std=c++17" in code_modules[0].options


def test_dispatch_through_the_cupy_backend(fake, monkeypatch):
    """titer.elementwise on device arrays reaches CupyBackend.launch with the
    kernels the plan chose; mixing in a NumPy array is a TypeError."""
    cupy, mod = fake
    monkeypatch.setattr(mod.CupyBackend, "_instance", None)
    a = FakeDeviceArray(np.zeros((8, 8), np.float32))
    b = FakeDeviceArray(np.zeros((8, 8), np.float32)[:, ::2].copy())
    dispatch.elementwise("add", a, a, 1.5)
    left = FakeDeviceArray(a.a[:, :4])                  # rows 32 bytes apart: strided
    dispatch.elementwise("multiply", left, left, b)
    names = [c[1] for c in cupy.state["calls"]]
    assert names == ["titer_add_ff_f_vec4", "titer_multiply_ff_f_offset"]
    with pytest.raises(TypeError, match="mix NumPy"):
        dispatch.elementwise("add", None, a, np.ones((8, 8), np.float32))
    with pytest.raises(ValueError, match="different devices"):
        dispatch.elementwise("add", None, a, FakeDeviceArray(a.a, device=1))


def test_allocations_and_reductions_through_the_cupy_backend(fake, monkeypatch):
    """CupyBackend.empty gives the planner's strides (reversed ones too);
    a reduction sizes its split from the device's multiprocessor count and
    launches 2-d blocks; titer.copy reaches the copy module."""
    cupy, mod = fake
    be = mod.CupyBackend()
    arr = be.empty((3, 4), np.dtype(np.float32), (-16, 4), {0})
    assert arr.a.strides == (-16, 4) and cupy.state["allocs"][-1] == 4 + 2 * 16 + 3 * 4
    arr.a[...] = 1                                      # every element inside the allocation
    x = FakeDeviceArray(np.ones((1 << 14, 3), np.float32))
    from titer.cuda import copy as dcopy, reduce as dreduce
    dreduce.reduce("add", x, 0, backend=be)
    calls = [c for c in cupy.state["calls"]]
    assert [c[1] for c in calls] == ["titer_add_ff_f_reduce", "titer_add_ff_f_reduce_final"]
    grid, block = calls[0][2], calls[0][3]
    assert block == (4, 64, 1) and grid[0] == 1 and 1 < grid[1] <= 16   # 4 SMs: 16 blocks
    (params,) = calls[0][4]
    assert np.frombuffer(params, plan.RPARAMS_DTYPE)[0]["nsplit"] == grid[1]
    dcopy.copy(FakeDeviceArray(np.zeros((4, 3), np.float64)),
               FakeDeviceArray(np.ones((4, 3), np.float32)), backend=be)
    assert cupy.state["calls"][-1][1].startswith("titer_copy_d_d_cast")
    assert cupy.state["modules"][-1].path.endswith("copy.fatbin")


def test_cupy_arrays_keyed_by_their_attributes(fake, monkeypatch):
    """CupyBackend.array_key reads cupy.ndarray's attributes (not the
    interface dict) and agrees with the interface's key; a repeated call
    replays its plan; a 0-size output gets memory to carry its strides."""
    cupy, mod = fake
    be = mod.CupyBackend()
    a = be.empty((4, 8), np.dtype(np.float32), (4, 16), {0})     # column-major
    a.a[...] = np.arange(32, dtype=np.float32).reshape(8, 4).T
    part, ptr = be.array_key(a)
    assert (part, ptr) == device.interface_key(a, be.device_of)
    assert part == (np.dtype(np.float32), (4, 8), (4, 16), ptr & 15, 0)
    first = dispatch.elementwise("add", None, a, a, backend=be)
    assert len(be.plan_cache) == 1
    second = dispatch.elementwise("add", None, a, a, backend=be)
    assert len(be.plan_cache) == 1 and type(second) is cupy.ndarray
    assert second.strides == first.strides == (4, 16)
    assert [c[1] for c in cupy.state["calls"]] == ["titer_add_ff_f_vec4"] * 2
    (p1,), (p2,) = cupy.state["calls"][0][4], cupy.state["calls"][1][4]
    p1, p2 = np.frombuffer(p1, plan.PARAMS_DTYPE), np.frombuffer(p2, plan.PARAMS_DTYPE)
    assert p1[0]["data"][0] == first.ptr and p2[0]["data"][0] == second.ptr
    assert p2[0]["data"][1] == p2[0]["data"][2] == a.ptr
    empty = be.empty((0, 3), np.dtype(np.float64), (8, 0), {0})
    assert empty.shape == (0, 3) and empty.strides == (8, 0)


def test_launch_arguments_reused_for_replayed_buffers(fake):
    """The parameter argument of a launch replayed on the same buffers is
    the one made last time (its address read once); a CuPy that reads more
    of __array_interface__ than the address gets plain arrays from then on."""
    cupy, mod = fake
    be = mod.CupyBackend()
    launch = _launch()
    be.launch("add", launch)
    first = be._args[(0, launch.kernel)][1]
    be.launch("add", launch)
    assert be._args[(0, launch.kernel)][1] is first and type(first) is mod._Params
    other = _launch()                                   # same bytes, another array
    be.launch("add", other)
    assert be._args[(0, launch.kernel)][1] is not first
    cupy.state["reads_typestr"] = True
    be.launch("add", launch)
    assert not be._fast_args
    be.launch("add", launch)
    calls = cupy.state["calls"]
    assert len(calls) == 5 and all(c[4] == (launch.params.tobytes(),) for c in calls)


def test_packed_parameters_go_as_a_cpointer(fake, monkeypatch):
    """With CuPy's CPointer, packed parameters (a view of the bytearray the
    planner packed) go as the address of their bytes, which CuPy passes as
    it is; an array that owns its memory still goes as the opaque item."""
    cupy, mod = fake

    class CPointer:
        def __init__(self, ptr):
            self.ptr = ptr

    monkeypatch.setattr(mod, "_CPointer", CPointer)
    params = _launch().params
    arg = mod._kernel_argument(params)
    assert type(arg) is CPointer and arg.ptr == params.ctypes.data
    assert ctypes.string_at(arg.ptr, params.itemsize) == params.tobytes()
    owned = params.copy()
    assert type(mod._kernel_argument(owned)) is mod._Params
    frozen = np.frombuffer(params.tobytes(), plan.PARAMS_DTYPE)     # read-only bytes
    assert type(mod._kernel_argument(frozen)) is mod._Params

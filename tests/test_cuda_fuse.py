"""The fused evaluate kernel's host side, without a GPU: the source
titer/cuda/fuse.py writes for a program, its parameter layout against the
C struct (through the g++ host shim), nvcc accepting the source with the
shipped numerics options (where nvcc is), and the options themselves.
tests/test_cuda_gpu_evaluate.py runs the kernels (on the simulated GPU in
CI, through tests/test_cuda_sim_gpu.py)."""
import ctypes
import os
import subprocess
import tempfile

import numpy as np
import pytest

from titer import _evaluate_parse, _evaluate_plan
from titer.cuda import build, fuse, host


def program(expr, **types):
    tree, _ = _evaluate_parse.parse(expr)
    kinds = {k: ("array", np.dtype(t)) if isinstance(t, str) else ("scalar", t)
             for k, t in types.items()}
    return _evaluate_plan.plan(tree, kinds, {})


SAMPLES = [
    ("2*a + 3*b", dict(a="f", b="f"), "f"),
    ("where(x > 0, log(x), 0) + x ** 2.0", dict(x="d"), "d"),
    ("sin(a) * b + c", dict(a="e", b="i", c="F"), "D"),       # casts into wider loops
    ("(a < b) & ~(b == 2)", dict(a="b", b="B"), "?"),
]


@pytest.mark.parametrize("expr,types,out", SAMPLES)
def test_source_calls_each_loops_device_function_once(expr, types, out):
    prog = program(expr, **types)
    text = fuse.fused_source(prog, np.dtype(out))
    for step in prog.steps:
        name = build.codegen.kernel_name(build.ops.OPS_BY_NAME[step.op], step.signature)
        assert text.count("%s(" % name) >= 2            # defined once, called
        assert text.count(build.device_kernel(build.ops.OPS_BY_NAME[step.op],
                                              step.signature)) == 1
    assert "TITER_DEFINE_FUSED_KERNELS(titer_fused_element)" in text
    assert '#include "' not in text                    # one text, as NVRTC takes it


def test_power_fast_ops_are_the_front_ends_unary_ops():
    prog = program("x ** y + 1", x="f", y=float)
    k = next(i for i, s in enumerate(prog.steps) if s.op == "power")
    text = fuse.fused_source(prog, np.dtype("f"), {k: "sqrt"})
    assert "titer_k_sqrt_f_f(" in text and "titer_k_power_ff_f(" not in text


def test_the_numerics_options_reach_nvrtc_and_nvcc():
    for opt in ("-fmad=false", "-prec-div=true", "-prec-sqrt=true", "-ftz=false"):
        assert opt in build.NVRTC_OPTIONS
        assert opt in build.nvcc_command("nvcc", "x.cu", "x.fatbin", [90], None)


@pytest.mark.skipif(host.find_cxx() is None, reason="no C++ compiler (g++)")
def test_parameter_layout_matches_the_c_struct():
    lib = host.fused_library(fuse.fused_source(program("a + 1", a="f"), np.dtype("f")))
    out = (ctypes.c_int64 * 7)()
    lib.titer_host_fparams_layout(out)
    assert tuple(out) == fuse.FPARAMS_LAYOUT


@pytest.mark.parametrize("op,types,loop,cast", [
    ("add", dict(a="f", b="f"), "f", "false"),          # the loop dtype is the result's
    ("add", dict(a="b", b="b"), "l", "true"),           # int8 sums in int64: converted
    ("multiply", dict(a="e", b="e"), "e", "false"),     # float16 in a float accumulator
    ("maximum", dict(a="F", b="F"), "F", "false"),
])
def test_reduce_source_is_titer_reduces_kernel_around_the_program(op, types, loop, cast):
    prog = program("a * b + 1", **types)
    text = fuse.fused_reduce_source(prog, {}, op, np.dtype(loop))
    sig = "%s%s->%s" % (loop, loop, loop)
    red = build.reducer(build.ops.OPS_BY_NAME[op], sig)
    assert "\n".join(red.lines) in text
    assert "TITER_DEFINE_FUSED_REDUCE_KERNELS(titer_fused_element, %s, %s)" % (red.name, cast) \
        in text
    for name, body in red.functions.items():        # each device function once
        assert text.count(body) == 1
    assert "typedef %s value_t;" % build.ops.C_TYPE[prog.result_dtype.char] in text
    assert '#include "' not in text


@pytest.mark.skipif(host.find_cxx() is None, reason="no C++ compiler (g++)")
def test_fused_reduction_parameter_layout_matches_the_c_struct():
    lib = host.fused_library(fuse.fused_reduce_source(program("a + 1", a="f"), {}, "add",
                                                      np.dtype("f")))
    out = (ctypes.c_int64 * 3)()
    lib.titer_host_freduce_layout(out)
    assert tuple(out) == fuse.FREDUCE_LAYOUT
    from titer.cuda import plan
    rparams = np.frombuffer(bytes(range(256)) * 3, np.uint8)[:plan.RPARAMS_DTYPE.itemsize]
    fparams = np.frombuffer(bytes(range(255, -1, -1)) * 5, np.uint8)[:fuse.FPARAMS_SIZE]
    raw = fuse.pack_freduce(rparams, fparams).tobytes()
    assert len(raw) == fuse.FREDUCE_SIZE
    assert raw[:rparams.size] == rparams.tobytes()
    assert raw[fuse.FREDUCE_LAYOUT[2]:] == fparams.tobytes()


def test_launches_split_and_pack():
    from titer.cuda import plan
    piece = plan.Piece((10, 3), ((4, 40), (8, 80)), (0, 0))
    (launch,) = fuse.plan_fused_launches(piece, [4096, 8192], [b"\x01\x02"])
    assert launch.kernel == "titer_fused_offset" and launch.numel == 30
    raw = launch.params.tobytes()
    assert len(raw) == fuse.FPARAMS_SIZE
    assert np.frombuffer(raw[:16], np.uint64).tolist() == [4096, 8192]
    assert raw[fuse.FPARAMS_LAYOUT[6]:fuse.FPARAMS_LAYOUT[6] + 2] == b"\x01\x02"
    pieces = fuse.plan_fused_launches(piece, [0, 0], [], limit=100)
    assert len(pieces) > 1 and sum(p.numel for p in pieces) == 30
    with pytest.raises(ValueError):
        fuse.plan_fused_launches(piece, [0] * 9, [])


NVCC = build.find_nvcc()


def ptx_of(tmp, name, prog, out, options, reduction=None):
    src = os.path.join(tmp, name + ".cu")
    with open(src, "w") as f:
        f.write(fuse.fused_source(prog, np.dtype(out)) if reduction is None
                else fuse.fused_reduce_source(prog, {}, *reduction))
    proc = subprocess.run([NVCC, "-ptx", "-std=c++17"] + list(options) + [src, "-o", src + ".ptx"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return open(src + ".ptx").read()


@pytest.mark.skipif(NVCC is None, reason="nvcc not found (CUDA toolkit absent)")
def test_nvcc_compiles_fused_sources_without_contracting_steps():
    """What NVRTC compiles on a GPU, nvcc compiles here to PTX (no GPU); a
    multiply step and an add step stay two roundings, as composed."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, (expr, types, out) in enumerate(SAMPLES):
            ptx = ptx_of(tmp, "f%d" % i, program(expr, **types), out, build.NUMERIC_OPTIONS)
            assert ".entry titer_fused_1d" in ptx and ".entry titer_fused_offset" in ptx
        prog = program("a * b + c", a="d", b="d", c="d")
        assert "fma.rn" not in ptx_of(tmp, "mad", prog, "d", build.NUMERIC_OPTIONS)
        for op, loop in (("add", "d"), ("maximum", "d"), ("add", "D")):     # reductions too
            ptx = ptx_of(tmp, "r" + op + loop, prog, "d", build.NUMERIC_OPTIONS,
                         (op, np.dtype(loop)))
            assert ".entry titer_fused_reduce_1d" in ptx and ".entry titer_fused_reduce_offset" \
                in ptx
            assert "fma.rn" not in ptx
        assert "fma.rn" in ptx_of(tmp, "fmad", prog, "d", ["-fmad=true"])     # what it guards

"""Build titer: generate the loops from the op table, probe for OpenMP,
cythonize the core.

Environment:
  TITER_DEBUG=1      bounds checks, wraparound and -O0 -g for debugging
  TITER_NO_OPENMP=1  build without OpenMP (loops run serially)
  TITER_NO_CUDA=1    do not run nvcc (CUDA kernels ship as source only)
  TITER_CUDA_ARCHS   nvcc targets: "ptx" (default), "80;90+ptx", "full"
"""
import os
import subprocess
import sys
import sysconfig
import tempfile

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "titer"))
import _codegen  # noqa: E402  (the op table -> C loops)
import _codegen_reduce  # noqa: E402  (the op table -> reduction/scan kits)

DEBUG = os.environ.get("TITER_DEBUG", "") not in ("", "0")


def openmp_flags():
    """Compile and link a tiny OpenMP program; use -fopenmp only if it works."""
    if os.environ.get("TITER_NO_OPENMP", "") not in ("", "0"):
        return [], []
    cc = sysconfig.get_config_var("CC") or "cc"
    source = "#include <omp.h>\nint main(void){int n=0;\n#pragma omp parallel reduction(+:n)\nn+=1;\nreturn n>0?0:1;}\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(source)
        cmd = cc.split() + ["-fopenmp", src, "-o", os.path.join(tmp, "probe")]
        try:
            ok = subprocess.run(cmd, capture_output=True).returncode == 0
        except OSError:
            ok = False
    if not ok:
        print("titer: OpenMP not found; building serial loops", file=sys.stderr)
        return [], []
    return ["-fopenmp"], ["-fopenmp"]


_codegen.write()

# --- titer.cuda (issue 5): CUDA kernels generated from the same op table;
# compiled into fatbins shipped in titer/cuda/kernels when nvcc is present
# (TITER_CUDA_ARCHS picks targets, TITER_NO_CUDA=1 skips nvcc).  A failure
# here never fails the CPU build. ---
try:
    import importlib.util as _ilu
    _spec = _ilu.spec_from_file_location(
        "titer_cuda_build", os.path.join(HERE, "titer", "cuda", "build.py"))
    _cuda_build = _ilu.module_from_spec(_spec)
    _spec.loader.exec_module(_cuda_build)
    _cuda_build.build_kernels()
except Exception as _exc:  # noqa: BLE001
    print("titer.cuda: kernel generation failed (%s: %s); CPU build continues"
          % (type(_exc).__name__, _exc), file=sys.stderr)
# --- end titer.cuda ---
_codegen_reduce.write()
omp_compile, omp_link = openmp_flags()
compile_args = omp_compile + (["-O0", "-g"] if DEBUG else ["-O3"]) + [
    "-fno-math-errno",          # lets sqrt/fabs inline; errno is not observable here
    "-Wno-unused-function",
]

extensions = [
    Extension(
        "titer._core",
        ["titer/_core.pyx"],
        include_dirs=[numpy.get_include(), os.path.join("titer", "src")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=omp_link,
        depends=["titer/_core.pxd", "titer/src/titer_generated.h",
                 "titer/src/titer_loops.h", "titer/src/titer_scalar.h",
                 "titer/src/titer_tile.h", "titer/src/titer_stream.h",
                 "titer/src/titer_reduce.h", "titer/src/titer_reduce_generated.h"]
        + [os.path.join("titer", f) for f in os.listdir("titer") if f.endswith(".pxi")],
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "initializedcheck": DEBUG,
            "cdivision": not DEBUG,
            "embedsignature": True,
        },
    ),
)

"""Build titer: generate the loops from the op table, probe for OpenMP,
cythonize the core.

Environment:
  TITER_DEBUG=1      bounds checks, wraparound and -O0 -g for debugging
  TITER_NO_OPENMP=1  build without OpenMP (loops run serially)
  TITER_NO_CUDA=1    do not run nvcc (CUDA kernels ship as source only)
  TITER_CUDA_ARCHS   nvcc targets: "auto" (default: SASS for this machine's
                     GPUs + PTX), "ptx", "native", "80;90+ptx", "full"
  TITER_ISA_BUILDS   instruction-set builds of the loops and reduction kits
                     besides the baseline, comma-separated from
                     "avx2,avx512" (default "avx2" on x86-64; "" for none).
                     avx512 is opt-in: GCC 12 fuses complex-arithmetic
                     patterns into FMA there even with -ffp-contract=off,
                     which breaks bit-parity with NumPy.
"""
import os
import platform
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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


def isa_builds():
    """Extra instruction-set builds of the loops, chosen at import (seed 004)."""
    wanted = os.environ.get("TITER_ISA_BUILDS")
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    if wanted is None:
        wanted = "avx2" if x86 and sys.platform != "win32" else ""
    levels = [w.strip() for w in wanted.split(",") if w.strip()]
    for level in levels:
        if level not in ("avx2", "avx512"):
            raise SystemExit("TITER_ISA_BUILDS: unknown level %r" % level)
    return levels


class ParallelBuildExt(build_ext):
    """Compile an extension's C files concurrently: the instruction-set
    builds of the loops are independent translation units."""

    def build_extension(self, ext):
        compile_one = self.compiler.compile

        def compile_parallel(sources, **kwargs):
            if len(sources) < 2:
                return compile_one(sources, **kwargs)
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                parts = pool.map(lambda src: compile_one([src], **kwargs), sources)
                return [obj for objs in parts for obj in objs]

        self.compiler.compile = compile_parallel
        try:
            super().build_extension(ext)
        finally:
            self.compiler.compile = compile_one


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
ISA_BUILDS = isa_builds()
compile_args = omp_compile + (["-O0", "-g"] if DEBUG else ["-O3"]) + [
    "-fno-math-errno",          # lets sqrt/fabs inline; errno is not observable here
    "-ffp-contract=off",        # a*b+c fuses only where NumPy's loops fuse (titer_muladd)
    "-Wno-unused-function",
]

extensions = [
    Extension(
        "titer._core",
        # the core, then each level's loops and reduction kits: separate
        # translation units that ParallelBuildExt compiles side by side
        ["titer/_core.pyx"] + ["titer/src/titer_kits_baseline.c"]
        + ["titer/src/titer_%s_%s.c" % (part, level)
           for level in ISA_BUILDS for part in ("isa", "kits")],
        include_dirs=[numpy.get_include(), os.path.join("titer", "src")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")]
        + [("TITER_HAVE_%s_TABLES" % level.upper(), "1") for level in ISA_BUILDS],
        extra_compile_args=compile_args,
        extra_link_args=omp_link,
        # linked against libm by name, so its functions bind to their current
        # versions (powf@GLIBC_2.27, exp@GLIBC_2.29, ...): unversioned, they
        # bound to the old SVID-wrapper versions, 1.4x slower per call
        libraries=[] if sys.platform == "win32" else ["m"],
        depends=["titer/_core.pxd", "titer/src/titer_generated.h",
                 "titer/src/titer_loops.h", "titer/src/titer_scalar.h",
                 "titer/src/titer_tile.h", "titer/src/titer_stream.h", "titer/src/titer_threads.h",
                 "titer/src/titer_reduce.h", "titer/src/titer_reduce_generated.h",
                 "titer/src/titer_isa_tables.h", "titer/src/titer_kits_tables.h",
                 "titer/src/titer_target_avx2.h", "titer/src/titer_target_avx512.h"]
        + [os.path.join("titer", f) for f in os.listdir("titer") if f.endswith(".pxi")],
    )
]

setup(
    cmdclass={"build_ext": ParallelBuildExt},
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

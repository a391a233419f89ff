"""Build titer: generate the loops from the op table, probe for OpenMP,
cythonize the core -- once: an unchanged build is not redone (see
CachedParallelBuildExt).

Environment:
  TITER_DEBUG=1      bounds checks, wraparound and -O0 -g for debugging
  TITER_NO_OPENMP=1  build without OpenMP (loops run serially)
  TITER_CUDA=1       run nvcc even on a machine without a GPU driver (by
                     default the fatbins are built only where a driver is:
                     elsewhere the shipped .cu is what NVRTC compiles)
  TITER_NO_CUDA=1    do not run nvcc (CUDA kernels ship as source only)
  TITER_CUDA_ARCHS   nvcc targets: "auto" (default: SASS for this machine's
                     GPUs + PTX), "ptx", "native", "80;90+ptx", "full"
  TITER_NO_LIBMVEC=1 do not use glibc's vector math library (libmvec): the
                     transcendental loops fall back to titer's own vector
                     paths, else scalar libm (what a build without glibc
                     2.35+ on x86-64 gets)
  TITER_ISA_BUILDS   instruction-set builds of the loops and reduction kits
                     besides the baseline, comma-separated from
                     "avx2,avx512" (default both on x86-64; "" for none).
                     The complex formulas are written so that no build
                     fuses a multiply-add NumPy does not (titer_scalar.h:
                     NOTE [no fused complex lanes]; tests/test_dispatch.py
                     disassembles each build to check).
"""
import glob
import hashlib
import os
import platform
import subprocess
import sys
import sysconfig
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "titer"))
import _codegen  # noqa: E402  (the op table -> C loops)
import _codegen_reduce  # noqa: E402  (the op table -> reduction/scan kits)
import _ops  # noqa: E402  (the op table)

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


def vector_libm_symbols():
    """libmvec's names of every vector function the op table asks for, at
    each instruction set (titer/src/titer_veclib.h: NOTE [vector libm])."""
    lanes = {"b": 16, "d": 32, "e": 64}            # vector bytes per ISA letter
    names = []
    for op in _ops.OPS:
        for sig, (fn, _safe) in (op.veclib or {}).items():
            item = 4 if sig[0] == "f" else 8
            for isa, width in lanes.items():
                names.append("_ZGV%sN%d%s_%s" % (isa, width // item, "v" * op.nin, fn))
    return sorted(set(names))


def vector_libm():
    """(macros, libraries): link libmvec when every symbol the loops call is
    there (x86-64 glibc 2.35+), else build the fallbacks."""
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    if (os.environ.get("TITER_NO_LIBMVEC", "") not in ("", "0") or not x86
            or not sys.platform.startswith("linux")):
        return [], []
    symbols = vector_libm_symbols()
    source = "".join("extern void %s(void);\n" % s for s in symbols) + (
        "void (*const titer_probe[])(void) = {%s};\n"
        "int main(void) { return titer_probe[0] == 0; }\n" % ", ".join(symbols))
    cc = sysconfig.get_config_var("CC") or "cc"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(source)
        cmd = cc.split() + [src, "-o", os.path.join(tmp, "probe"), "-lmvec", "-lm"]
        try:
            ok = subprocess.run(cmd, capture_output=True).returncode == 0
        except OSError:
            ok = False
    if not ok:
        print("titer: glibc's vector math library (libmvec, glibc 2.35+) not found; "
              "transcendental loops use titer's own paths", file=sys.stderr)
        return [], []
    return [("TITER_HAVE_LIBMVEC", "1")], ["mvec"]


def isa_builds():
    """Extra instruction-set builds of the loops, chosen at import (seed 004)."""
    wanted = os.environ.get("TITER_ISA_BUILDS")
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    if wanted is None:
        wanted = "avx2,avx512" if x86 and sys.platform != "win32" else ""
    levels = [w.strip() for w in wanted.split(",") if w.strip()]
    for level in levels:
        if level not in ("avx2", "avx512"):
            raise SystemExit("TITER_ISA_BUILDS: unknown level %r" % level)
    return levels


def _digest(chunks):
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk if isinstance(chunk, bytes) else str(chunk).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _file_digest(path):
    with open(path, "rb") as f:
        return _digest([f.read()])


class CachedParallelBuildExt(build_ext):
    """Compile titer once.  pip's editable install builds in a fresh
    temporary folder inside a fresh build environment each time, so the
    README's second command (another `pip install -e`) used to cythonize and
    compile everything again.  Here:

    * the whole extension is skipped when the in-place module was built from
      the same inputs (the text of every source and header, the flags, the
      Python, Cython and NumPy versions) -- recorded in build/<name>.inputs,
      compared by content, so fresh timestamps in a new build environment
      (Cython's and NumPy's .pxd files) do not matter;
    * otherwise objects go to a persistent folder per flag set, and a C file
      whose object is newer than it and every header is not compiled again
      (after an edit of the .pyx only _core.c recompiles, not the kits);
    * the C files compile concurrently: the instruction-set builds of the
      loops are independent translation units;
    * Cython runs here, only when something is built."""

    def finalize_options(self):
        super().finalize_options()
        self.build_temp = os.path.join(HERE, "build", "temp-" + _digest(
            [sys.implementation.cache_tag, sysconfig.get_platform(), compile_args, omp_link,
             sysconfig.get_config_var("CC"), os.environ.get("CC"), os.environ.get("CFLAGS")]))

    def _inputs_digest(self, ext):
        import Cython
        files = sorted(set(ext.sources) | set(ext.depends))
        chunks = [Cython.__version__, numpy.__version__, sys.version, compile_args, omp_link,
                  ext.define_macros, ext.libraries, CYTHON_DIRECTIVES,
                  os.environ.get("CC"), os.environ.get("CFLAGS")]
        for name in files:
            with open(os.path.join(HERE, name), "rb") as f:
                chunks += [name, f.read()]
        return _digest(chunks)

    # `build_ext -j` builds extensions in threads; this class patches the
    # compiler and flips self.force per extension, so they take turns (the
    # C files of one extension still compile side by side)
    _lock = threading.Lock()

    def build_extension(self, ext):
        with self._lock:
            self._build_once(ext)

    def _build_once(self, ext):
        filename = self.get_ext_filename(ext.name)
        inplace = os.path.join(HERE, filename)
        target = self.get_ext_fullpath(ext.name)
        record = os.path.join(HERE, "build", ext.name + ".inputs")
        digest = self._inputs_digest(ext)
        # the record names the inputs and the module they gave; the module
        # in place must still be that one (a failed copy, a build by hand)
        if (not self.force and os.path.exists(inplace) and os.path.exists(record)
                and open(record).read() == digest + " " + _file_digest(inplace)):
            print("titer: %s is up to date (same sources, flags and versions); not rebuilt"
                  % filename, file=sys.stderr)
            if os.path.abspath(target) != os.path.abspath(inplace):
                self.mkpath(os.path.dirname(target))
                self.copy_file(inplace, target)
            return
        ext.sources = cythonize([ext], compiler_directives=CYTHON_DIRECTIVES,
                                force=self.force)[0].sources
        self._compile_changed_only(ext)
        os.makedirs(os.path.dirname(record), exist_ok=True)
        with open(record, "w") as f:
            f.write(digest + " " + _file_digest(target))

    def _compile_changed_only(self, ext):
        compile_one = self.compiler.compile
        headers = [os.path.join(HERE, d) for d in ext.depends if d.endswith(".h")]
        forced = self.force         # (self.force is True while build_ext links, below)

        def stale(src, output_dir):
            obj = self.compiler.object_filenames([src], output_dir=output_dir)[0]
            if forced or not os.path.exists(obj):
                return True
            newest = max(os.path.getmtime(p) for p in [src] + headers if os.path.exists(p))
            return os.path.getmtime(obj) < newest

        def compile_parallel(sources, output_dir=None, **kwargs):
            todo = [src for src in sources if stale(src, output_dir)]
            if todo:
                with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                    list(pool.map(lambda src: compile_one([src], output_dir=output_dir,
                                                          **kwargs), todo))
            return self.compiler.object_filenames(sources, output_dir=output_dir)

        self.compiler.compile = compile_parallel
        try:
            # build_ext links only when an input is newer than the module
            self.force, force = True, self.force
            super().build_extension(ext)
        finally:
            self.force = force
            self.compiler.compile = compile_one


_codegen.write()

# --- titer.cuda (issue 5): CUDA kernels generated from the same op table;
# compiled into fatbins shipped in titer/cuda/kernels when nvcc is present and
# a GPU driver is (or TITER_CUDA=1; TITER_CUDA_ARCHS picks targets,
# TITER_NO_CUDA=1 skips nvcc).  A failure
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
VECTOR_LIBM_MACROS, VECTOR_LIBM_LIBRARIES = vector_libm()
# -g0: Python's own CFLAGS ask for debug info, which costs a fifth of the
# compile time of the generated loops (and 30 MB of .so) for nothing shipped
compile_args = omp_compile + (["-O0", "-g"] if DEBUG else ["-O3", "-g0"]) + [
    "-fno-math-errno",          # lets sqrt/fabs inline; errno is not observable here
    "-ffp-contract=off",        # a*b+c fuses only where NumPy's loops fuse (titer_muladd)
    "-Wno-unused-function",
]

CYTHON_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

extensions = [
    Extension(
        "titer._core",
        # the core, then each level's loops and reduction kits: separate
        # translation units that CachedParallelBuildExt compiles side by side
        ["titer/_core.pyx"] + ["titer/src/titer_kits_baseline.c"]
        + ["titer/src/titer_%s_%s.c" % (part, level)
           for level in ISA_BUILDS for part in ("isa", "kits")],
        include_dirs=[numpy.get_include(), os.path.join("titer", "src")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")]
        + [("TITER_HAVE_%s_TABLES" % level.upper(), "1") for level in ISA_BUILDS]
        + VECTOR_LIBM_MACROS,
        extra_compile_args=compile_args,
        extra_link_args=omp_link,
        # linked against libm by name, so its functions bind to their current
        # versions (powf@GLIBC_2.27, exp@GLIBC_2.29, ...): unversioned, they
        # bound to the old SVID-wrapper versions, 1.4x slower per call
        libraries=VECTOR_LIBM_LIBRARIES + ([] if sys.platform == "win32" else ["m"]),
        # every header, .pxd and .pxi: what a change of recompiles
        depends=sorted(glob.glob("titer/*.pxd", root_dir=HERE)
                       + glob.glob("titer/*.pxi", root_dir=HERE)
                       + glob.glob("titer/src/*.h", root_dir=HERE)),
    ),
    # titer.api: what `from titer.api cimport for_each` imports at run time
    # (titer/api.pxd); it reaches the core through a capsule, no headers
    Extension("titer.api", ["titer/api.pyx"], depends=["titer/api.pxd"],
              extra_compile_args=compile_args),
]

setup(
    cmdclass={"build_ext": CachedParallelBuildExt},
    ext_modules=extensions,
)

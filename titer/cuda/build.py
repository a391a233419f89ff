"""Generate titer's CUDA kernels from the op table; compile them with nvcc.

Run by setup.py (``build_kernels()``) and importable as ``titer.cuda.build``.
Output, in ``titer/cuda/kernels/`` (generated, not committed):

* ``<op>.cu``: one functor per op-table signature (the CPU expression,
  unchanged, inside a device function) and its ``extern "C"`` kernels
  ``titer_<op>_<ins>_<out>_{vec1,vec2,vec4,vec8,offset,cast}``; signatures
  ``np.<op>.reduce`` accepts (``"ff->f"``) also get the reduction and scan
  kernels ``..._{reduce,reduce_cast,reduce_final,scan,scan_cast}``;
* ``copy.cu``: an identity functor per dtype, whose cast kernel is every
  dtype conversion (titer.copy, converted reduction outputs);
* ``<op>.fatbin`` when nvcc is present and a GPU driver is (or TITER_CUDA=1:
  ``want_nvcc()``): SASS for the chosen architectures
  plus PTX for newer ones (``TITER_CUDA_ARCHS``, see ``cuda_archs()``);
* ``manifest.json``: every signature's kernel stem and vector widths, and
  the signatures *not* generated or not compiled, with the reason.

A signature whose expression needs a helper ``titer_scalar.cuh`` lacks, or
that nvcc rejects, is left out and recorded; the build never fails on it.
Compiles are cached by content hash: a rebuild only recompiles ops whose
source, headers, architectures or nvcc changed.

Environment:
  TITER_CUDA_ARCHS  "auto" (default): SASS for the GPUs nvidia-smi lists on
                    the building machine plus PTX for the lowest arch nvcc
                    has; PTX only where there is no GPU (CI);
                    "ptx": PTX only; "native": SASS for this machine's GPUs;
                    "full" = "70;75;80;86;89;90+ptx" (release wheels): SASS
                    for each arch nvcc supports plus PTX of the lowest;
                    "80;90": SASS only; a "+ptx" suffix adds PTX of the lowest.
  TITER_CUDA=1      run nvcc even where no GPU driver is found (by default
                    nvcc runs only on a machine whose driver could load a
                    fatbin: see ``want_nvcc()``)
  TITER_NO_CUDA=1   skip nvcc (sources and manifest are still generated)
  TITER_NVCC        the nvcc to use (default: nvcc on PATH, or $CUDA_HOME/bin/nvcc)
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_DIR = os.path.join(HERE, "kernels")
HEADERS = ("titer_scalar.cuh", "titer_cmath.cuh", "titer_kernels.cuh", "titer_reduce.cuh",
           "titer_fused.cuh")
# NOTE: [numerics] The device computes as the CPU loops and NumPy do: no
# contraction of a*b + c into one FMA (NumPy's C loops do not fuse), IEEE
# division and square root, subnormals kept.  nvcc and NVRTC both get these:
# NVRTC's default is -fmad=true, which changed the bits of every kernel a
# source-only install compiled (and would fuse across a fused program's steps).
NUMERIC_OPTIONS = ("-fmad=false", "-prec-div=true", "-prec-sqrt=true", "-ftz=false")
COPY_MODULE = "copy"

# The release set is "full": machine code (SASS) for sm_70..sm_90 plus PTX
# for newer GPUs (sm_70 is dropped when nvcc cannot target it, as CUDA 13).
# Every SASS image is assembled from one PTX of the lowest architecture, so
# nvcc's front end runs once per module and each architecture adds a ptxas
# pass -- still 4.6x the PTX-only time (add's module: 18.2 s vs 3.95 s), ~6
# minutes more for all modules on a 2-core machine.  The default ("auto")
# adds SASS only for the GPUs of the machine that builds (one ptxas pass for
# a typical box); elsewhere it is PTX only: the driver JIT-compiles a module
# on its first use (once; the driver caches the result), producing the same
# machine code ptxas would.
DEFAULT_ARCHS = "auto"
FULL_ARCHS = "70;75;80;86;89;90+ptx"

ITEMSIZE = {"?": 1, "b": 1, "B": 1, "h": 2, "H": 2, "e": 2, "i": 4, "I": 4,
            "f": 4, "l": 8, "L": 8, "d": 8, "F": 8, "D": 16}
MAX_NIN = 3
MAX_ARGS = 4               # TITER_MAX_ARGS: outputs + inputs
VECTOR_BYTES = 16          # widest vector access (LDG.128)


def _load_table():
    """titer/_ops.py, _codegen.py and _codegen_reduce.py, as a package or by
    path (setup.py)."""
    try:
        from .. import _codegen, _codegen_reduce, _ops
        return _ops, _codegen, _codegen_reduce
    except ImportError:
        import importlib.util
        mods = []
        for name in ("_ops", "_codegen", "_codegen_reduce"):
            if name in sys.modules and getattr(sys.modules[name], "__file__", "").startswith(
                    os.path.dirname(HERE)):
                mods.append(sys.modules[name])
                continue
            spec = importlib.util.spec_from_file_location(
                name, os.path.join(os.path.dirname(HERE), name + ".py"))
            mod = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(name, mod)
            spec.loader.exec_module(mod)
            mods.append(mod)
        return tuple(mods)


ops, codegen, codegen_reduce = _load_table()


# ---- naming -------------------------------------------------------------------

def _chars(chars):
    return chars.replace("?", "B1")


def kernel_stem(op_name, sig):
    """'add', 'ff->f' -> 'titer_add_ff_f'; '?' is spelled B1."""
    ins, outs = sig.split("->")
    return "titer_%s_%s_%s" % (op_name, _chars(ins), _chars(outs))


def kernel_name(op_name, sig, variant):
    """variant: 'vec1'/'vec2'/'vec4'/'vec8', 'offset' or 'cast'."""
    return "%s_%s" % (kernel_stem(op_name, sig), variant)


def vector_widths(sig):
    """Widths the vectorized kernel is instantiated for (ATen's
    can_vectorize_up_to picks one per launch): the widest whose VEC elements
    of the widest operand fit one 16-byte access (at most 8), and every
    halving down to 2 -- a view 8 bytes off a 16-byte boundary still gets
    vector accesses.  Width 1 is the offset kernel's contiguous case (no
    division), except for 16-byte types, whose only width is 1."""
    widest = max(ITEMSIZE[c] for c in sig.replace("->", ""))
    width = min(8, max(1, VECTOR_BYTES // widest))
    widths = []
    while width >= 2:
        widths.append(width)
        width //= 2
    return widths or [1]


# ---- which expressions the device header can compile -----------------------

_C_WORDS = set("""sizeof int unsigned signed long short char float double bool
    true false void const return if else T U a b c d o1""".split())
_MATH = set("""sqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan
    asin acos atan atan2 sinh cosh tanh asinh acosh atanh pow fmod remainder
    floor ceil trunc round rint nearbyint fabs fmin fmax copysign hypot ldexp
    fma nextafter erf erfc tgamma lgamma""".split())
_MATH |= {f + "f" for f in _MATH}
_NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[uUlLfF]*")
_IDENT = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")


def device_names():
    """Names titer_scalar.cuh provides to expressions (its TITER_DEVICE_NAMES)."""
    with open(os.path.join(HERE, "titer_scalar.cuh")) as f:
        text = f.read()
    block = text.split("TITER_DEVICE_NAMES:", 1)[1].split("*/", 1)[0]
    return set(block.split()) | set(ops.C_TYPE.values())


_CFN = re.compile(r"\btiter_cfn2?\(\s*(\w+)")


def missing_names(expr, known=None):
    """Identifiers in a C expression the device cannot resolve (sorted);
    ``titer_cfn(fn, z)`` needs ``titer_c<fn>``."""
    known = device_names() if known is None else known
    expr = _CFN.sub(lambda m: m.group(0)[:-len(m.group(1))] + "titer_c" + m.group(1), expr)
    text = _NUMBER.sub(" ", expr)
    names = set(_IDENT.findall(text))
    return sorted(n for n in names if n not in known and n not in _C_WORDS and n not in _MATH)


# ---- generation ---------------------------------------------------------------

def _code(char):
    return ops.TYPECHARS.index(char)


def device_kernel(op, sig):
    """The CPU loop's kernel function (titer/_codegen.py's text) as a device
    function: ``titer_k_<op>_<sig>``, the same code on either side."""
    cpu = codegen.emit_kernel(op, sig)
    qualifier = next(q for q in ("TITER_INLINE ", "TITER_FAST_INLINE ") if cpu.startswith(q))
    return "static __device__ __forceinline__ " + cpu[len(qualifier):]


def emit_functor(op, sig):
    """The CPU loop's kernel function, as titer/_codegen.py emits it, made a
    device function, and the functor + extern "C" kernels around it."""
    ins, outs = ops.parse_signature(sig)
    lines = [device_kernel(op, sig)]
    stem = kernel_stem(op.name, sig)
    codes = [_code(c) for c in ins] + [-1] * (MAX_NIN - len(ins))
    types = [ops.C_TYPE[c] for c in ins] + ["titer_none"] * (MAX_NIN - len(ins))
    names = "abc"[:len(ins)]
    params = ["%s %s" % (t, v) for t, v in zip(types, names)]
    args = list(names)
    if len(outs) == 2:                     # the second output goes through a pointer
        params.append("%s *o1" % ops.C_TYPE[outs[1]])
        args.append("o1")
    lines += ["struct %s_op {" % stem,
              "    enum { nin = %d, nout = %d, out_code = %d, out1_code = %d,"
              " in0_code = %d, in1_code = %d, in2_code = %d };"
              % ((len(ins), len(outs), _code(outs[0]),
                  _code(outs[1]) if len(outs) == 2 else -1) + tuple(codes)),
              "    typedef %s out_t; typedef %s out1_t;"
              % (ops.C_TYPE[outs[0]], ops.C_TYPE[outs[1]] if len(outs) == 2 else "titer_none"),
              "    typedef %s in0_t; typedef %s in1_t; typedef %s in2_t;" % tuple(types),
              "    static __device__ __forceinline__ out_t apply(%s) { return %s(%s); }"
              % (", ".join(params), codegen.kernel_name(op, sig), ", ".join(args)),
              "};",
              "TITER_DEFINE_KERNELS(%s, %s_op)" % (stem, stem)]
    for w in vector_widths(sig):
        lines.append("TITER_DEFINE_VEC_KERNEL(%s, %s_op, %d)" % (stem, stem, w))
    if sig in codegen_reduce.reducible_signatures(op):
        lines += emit_reduction(op, sig)
    return lines


def accumulator(op, sig):
    """(C type, load, comb, store) of a reduction's accumulator: the loop
    type and the op's kernel, except where the CPU kit (and NumPy)
    accumulate float16 sums and products in float."""
    char = sig[0]
    if char == "e" and op.name in codegen_reduce.HALF_IN_FLOAT:
        return "float", "titer_h2f(v)", codegen_reduce.HALF_IN_FLOAT[op.name], "titer_f2h(a)"
    return ops.C_TYPE[char], "v", "%s(a, b)" % codegen.kernel_name(op, sig), "a"


def accumulator_size(op, sig):
    a = accumulator(op, sig)[0]
    return 4 if a == "float" else ITEMSIZE[sig[0]]


Reducer = namedtuple("Reducer", "name lines functions")
"""A reduction functor: its struct's name and lines, and the device
functions ({name: text}) they call."""


def reducer(op, sig):
    """The reduction functor of a reducible signature (loop type T,
    accumulator A): what titer.reduce's kernels and a fused reduction's
    (titer/cuda/fuse.py) fold with."""
    stem = kernel_stem(op.name, sig)
    t = ops.C_TYPE[sig[0]]
    a, load, comb, store = accumulator(op, sig)
    kernel = codegen.kernel_name(op, sig)
    lines = ["struct %s_red {" % stem,
             "    typedef %s T; typedef %s A; enum { code = %d };" % (t, a, _code(sig[0])),
             "    static __device__ __forceinline__ A load(T v) { return %s; }" % load,
             "    static __device__ __forceinline__ A comb(A a, A b) { return %s; }" % comb,
             "    static __device__ __forceinline__ T store(A a) { return %s; }" % store,
             "    static __device__ __forceinline__ T step(T a, T b) { return %s(a, b); }"
             % kernel,
             "};"]
    return Reducer(stem + "_red", lines, {kernel: device_kernel(op, sig)})


def emit_reduction(op, sig):
    """The reduction functor and its kernels (after the op's device function)."""
    red = reducer(op, sig)
    return red.lines + ["TITER_DEFINE_REDUCE_KERNELS(%s, %s)" % (kernel_stem(op.name, sig),
                                                                 red.name)]


_PREAMBLE = ['#include "titer_scalar.cuh"', '#include "titer_kernels.cuh"',
             '#include "titer_reduce.cuh"', ""]


def op_source(op, sigs):
    """(text, {first_line: sig}) of an op's .cu file for the given signatures."""
    lines = ["/* Generated by titer/cuda/build.py from titer/_ops.py: do not edit. */"]
    lines += _PREAMBLE
    starts = {}
    for sig in sigs:
        starts[len(lines) + 1] = sig
        lines += emit_functor(op, sig)
        lines.append("")
    return "\n".join(lines) + "\n", starts


def copy_signature(char):
    return "%s->%s" % (char, char)


def copy_source(sigs):
    """(text, {first_line: sig}) of copy.cu: an identity functor per dtype
    ("f->f"); its cast kernel loads any dtype as the loop dtype."""
    lines = ["/* Generated by titer/cuda/build.py: do not edit. */"] + _PREAMBLE
    starts = {}
    for sig in sigs:
        char = sig[0]
        t, code, stem = ops.C_TYPE[char], _code(char), kernel_stem(COPY_MODULE, sig)
        starts[len(lines) + 1] = sig
        lines += ["struct %s_op {" % stem,
                  "    enum { nin = 1, nout = 1, out_code = %d, out1_code = -1, in0_code = %d,"
                  " in1_code = -1, in2_code = -1 };" % (code, code),
                  "    typedef %s out_t; typedef titer_none out1_t;" % t,
                  "    typedef %s in0_t; typedef titer_none in1_t; typedef titer_none in2_t;" % t,
                  "    static __device__ __forceinline__ out_t apply(%s a) { return a; }" % t,
                  "};",
                  "TITER_DEFINE_KERNELS(%s, %s_op)" % (stem, stem)]
        for w in vector_widths(sig):
            lines.append("TITER_DEFINE_VEC_KERNEL(%s, %s_op, %d)" % (stem, stem, w))
        lines.append("")
    return "\n".join(lines) + "\n", starts


def plan_op(op, known):
    """(signatures to generate, {sig: reason} left out) for one op."""
    keep, skipped = [], {}
    if op.nout > 2 or op.nin > MAX_NIN or op.nin + op.nout > MAX_ARGS:
        reason = "%d inputs / %d outputs: CUDA kernels cover up to %d operands" % (
            op.nin, op.nout, MAX_ARGS)
        return [], {sig: reason for sig in op.types}
    for sig in op.types:
        try:
            _, expr = ops.lookup_expr(op, ops.parse_signature(sig)[0])
        except KeyError as e:
            skipped[sig] = str(e)
            continue
        missing = missing_names(expr, known)
        if missing:
            skipped[sig] = "needs %s, not in titer_scalar.cuh" % ", ".join(missing)
        else:
            keep.append(sig)
    return keep, skipped


def _write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def generate(outdir=KERNEL_DIR, op_list=None):
    """Write every op's .cu; return the manifest (not yet written)."""
    os.makedirs(outdir, exist_ok=True)
    known = device_names()
    manifest = {"ops": {}, "unsupported": {}}
    for op in (ops.OPS if op_list is None else op_list):
        keep, skipped = plan_op(op, known)
        entry = {"module": op.name, "nin": op.nin, "kernels": {}}
        reducible = codegen_reduce.reducible_signatures(op)
        for sig in keep:
            entry["kernels"][sig] = {"stem": kernel_stem(op.name, sig),
                                     "vec": vector_widths(sig)}
            if sig in reducible:
                entry["kernels"][sig]["reduce_acc"] = accumulator_size(op, sig)
        for sig, reason in skipped.items():
            manifest["unsupported"]["%s %s" % (op.name, sig)] = reason
        manifest["ops"][op.name] = entry
        if keep:
            _write_if_changed(os.path.join(outdir, op.name + ".cu"), op_source(op, keep)[0])
    copy_sigs = [copy_signature(c) for c in ops.TYPECHARS]
    manifest["copy"] = {"module": COPY_MODULE,
                        "kernels": {sig: {"stem": kernel_stem(COPY_MODULE, sig),
                                          "vec": vector_widths(sig)} for sig in copy_sigs}}
    _write_if_changed(os.path.join(outdir, COPY_MODULE + ".cu"), copy_source(copy_sigs)[0])
    return manifest


def modules(manifest, op_list=None):
    """(module name, signatures, render) for every .cu to compile."""
    op_by_name = {op.name: op for op in (ops.OPS if op_list is None else op_list)}
    work = [(name, list(entry["kernels"]), lambda sigs, op=op_by_name[name]: op_source(op, sigs))
            for name, entry in manifest["ops"].items() if entry["kernels"]]
    if manifest.get("copy", {}).get("kernels"):
        work.append((COPY_MODULE, list(manifest["copy"]["kernels"]), copy_source))
    return work


# ---- nvcc ---------------------------------------------------------------------

def find_nvcc():
    nvcc = os.environ.get("TITER_NVCC") or shutil.which("nvcc")
    if not nvcc:
        home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
        cand = os.path.join(home, "bin", "nvcc")
        nvcc = cand if os.path.exists(cand) else None
    return nvcc


def _env_flag(name):
    return os.environ.get(name, "") not in ("", "0")


def driver_present():
    """Whether this machine has an NVIDIA driver that could load a fatbin:
    its library loads (libcuda.so.1 is the driver's own; the toolkit's
    link-time stub is libcuda.so, so it does not count) or nvidia-smi
    answers."""
    import ctypes
    for lib in (["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1"]):
        try:
            ctypes.CDLL(lib)
            return True
        except OSError:
            pass
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def want_nvcc():
    """(run nvcc?, why not).  A machine without a GPU driver cannot load a
    fatbin, so building them there costs minutes of nvcc (86 modules, ~1.8
    minutes on 2 cores) for nothing: the shipped .cu is what CuPy's NVRTC
    compiles on first use if the package later meets a GPU.  TITER_CUDA=1
    builds them anyway (a wheel built on a CPU machine for GPU machines);
    TITER_NO_CUDA=1 never does."""
    if _env_flag("TITER_NO_CUDA"):
        return False, "TITER_NO_CUDA set"
    if _env_flag("TITER_CUDA") or driver_present():
        return True, None
    return False, "no GPU driver on the building machine; TITER_CUDA=1 builds them anyway"


def nvcc_archs(nvcc):
    """Compute capabilities this nvcc can target (CUDA 13 dropped sm_70)."""
    try:
        out = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return sorted({int(m) for m in re.findall(r"compute_(\d+)", out)})


def native_archs():
    """Compute capabilities of this machine's GPUs, from nvidia-smi (the
    driver's tool: no CUDA runtime needed); [] when there is none."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    if out.returncode != 0:
        return []
    return sorted({int(m.group(1)) * 10 + int(m.group(2))
                   for m in re.finditer(r"^\s*(\d+)\.(\d)\s*$", out.stdout, re.M)})


def cuda_archs(spec=None, supported=None, native=None):
    """Parse TITER_CUDA_ARCHS into ([SASS archs], PTX arch or None, [dropped]).

    "auto" (the default): SASS for this machine's GPUs (`native`, else
    native_archs()) that nvcc can target, and PTX for the lowest
    architecture nvcc supports, so the build runs on other GPUs too; PTX
    only on a machine without a GPU.  "ptx": PTX only; the driver
    JIT-compiles it once per module on first use and caches the result.
    "native": SASS for this machine's GPUs.  "full": sm_70..sm_90 + PTX,
    what a release wheel ships (archs this nvcc lacks, like sm_70 on CUDA
    13, are dropped with a note).  "80;90": SASS for sm_80 and sm_90.  A
    "+ptx" suffix adds PTX of the lowest listed one."""
    spec = spec if spec is not None else (os.environ.get("TITER_CUDA_ARCHS") or DEFAULT_ARCHS)
    spec = spec.strip().lower()
    if spec == "full":
        spec = FULL_ARCHS
    low = min((a for a in (supported or [70]) if a >= 70), default=70)
    if spec in ("auto", "native", "native+ptx"):
        found = native_archs() if native is None else native
        archs = [a for a in found if not supported or a in supported]
        dropped = [a for a in found if a not in archs]
        if spec == "native" and archs:
            return archs, None, dropped
        return archs, (low if spec == "auto" else min(archs, default=low)), dropped
    if spec == "ptx":
        return [], low, []
    ptx = spec.endswith("+ptx")
    spec = spec[:-4] if ptx else spec
    archs = sorted({int(a.strip().replace("sm_", "").replace(".", ""))
                    for a in re.split(r"[;, ]+", spec) if a.strip()})
    dropped = []
    if supported:
        dropped = [a for a in archs if a not in supported]
        archs = [a for a in archs if a in supported]
    if not archs:
        return [], low, dropped
    return archs, (archs[0] if ptx else None), dropped


def nvcc_command(nvcc, source, target, archs, ptx_arch):
    """One front-end pass: PTX for the lowest architecture, assembled into
    SASS for every arch in `archs` (and kept as PTX when ptx_arch is set)."""
    cmd = [nvcc, "-fatbin", "-std=c++17", "-O3"] + list(NUMERIC_OPTIONS) + [
        "-Xptxas=-O3", "-I", HERE, "-o", target, source]
    virtual = min(archs + ([ptx_arch] if ptx_arch is not None else []))
    codes = ["sm_%d" % a for a in archs]
    if ptx_arch is not None:
        codes.append("compute_%d" % virtual)
    cmd.append("-gencode=arch=compute_%d,code=[%s]" % (virtual, ",".join(codes)))
    return cmd


def _digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:20]


_ERROR_LINE = re.compile(r"\.cu\((\d+)\): error")


def _failed_sigs(stderr, starts):
    """Signatures whose generated lines an nvcc error points into."""
    firsts = sorted(starts)
    bad = {}
    for m in _ERROR_LINE.finditer(stderr):
        line = int(m.group(1))
        owner = [s for s in firsts if s <= line]
        if owner:
            msg = stderr[m.end():].strip().splitlines()[0][:160] if stderr[m.end():].strip() else ""
            bad.setdefault(starts[owner[-1]], msg)
    return bad


def compile_module(nvcc, name, sigs, render, outdir, archs, ptx_arch, version):
    """nvcc one module (render(sigs) -> (text, {line: sig})); drop (and
    report) signatures nvcc rejects.
    Returns (compiled sigs, {sig: reason}, seconds, cached)."""
    rejected = {}
    t0 = time.time()
    sigs = list(sigs)
    while sigs:
        text, starts = render(sigs)
        source = os.path.join(outdir, name + ".cu")
        target = os.path.join(outdir, name + ".fatbin")
        stamp = target + ".hash"
        headers = "".join(open(os.path.join(HERE, h)).read() for h in HEADERS)
        digest = _digest(text, headers, repr(archs), repr(ptx_arch), version)
        _write_if_changed(source, text)
        if os.path.exists(target) and os.path.exists(stamp) and open(stamp).read() == digest:
            return sigs, rejected, time.time() - t0, True
        tmp = target + ".%d.tmp" % os.getpid()
        proc = subprocess.run(nvcc_command(nvcc, source, tmp, archs, ptx_arch),
                              capture_output=True, text=True)
        if proc.returncode == 0:
            os.replace(tmp, target)
            with open(stamp, "w") as f:
                f.write(digest)
            return sigs, rejected, time.time() - t0, False
        bad = _failed_sigs(proc.stderr, starts)
        if not bad:              # not attributable to a signature: give up on the op
            for s in sigs:
                last = (proc.stderr.strip().splitlines() or ["?"])[-1]
                rejected[s] = "nvcc failed: " + last[:160]
            sigs = []
            break
        for s, msg in bad.items():
            rejected[s] = "nvcc rejected it: " + msg
        sigs = [s for s in sigs if s not in bad]
    for ext in (".fatbin", ".fatbin.hash", ".cu"):
        p = os.path.join(outdir, name + ext)
        if os.path.exists(p):
            os.remove(p)
    return [], rejected, time.time() - t0, False


# what CupyBackend passes to RawModule(code=...) (NVRTC) with inlined_source()
NVRTC_OPTIONS = ("-std=c++17",) + NUMERIC_OPTIONS


def inlined_source(op_name, kernel_dir=None):
    """An op's generated .cu with titer's headers pasted in: one text for
    NVRTC (CuPy's RawModule(code=...)), which has no include path."""
    with open(os.path.join(kernel_dir or KERNEL_DIR, op_name + ".cu")) as f:
        return inline_headers(f.read())


def inline_headers(text):
    """`text` with each `#include` of titer's headers replaced by the header."""
    for h in HEADERS:
        if '#include "%s"' % h in text:
            with open(os.path.join(HERE, h)) as f:
                text = text.replace('#include "%s"' % h, f.read())
    return text


def build_kernels(outdir=KERNEL_DIR, log=None, jobs=None, op_list=None, compile=None):
    """Generate sources, compile with nvcc when there is one and compiling
    is wanted (``compile``: True/False, None = ``want_nvcc()``), write the
    manifest.  Never raises for a missing or failing nvcc."""
    log = log or (lambda msg: print("titer.cuda: " + msg, file=sys.stderr))
    t0 = time.time()
    manifest = generate(outdir, op_list)
    wanted, why_not = want_nvcc() if compile is None else (compile, "not asked for")
    nvcc = find_nvcc() if wanted else None
    manifest["compiled"] = False
    if nvcc is None:
        manifest["not_compiled"] = why_not or "nvcc not found"
        log("no fatbins (%s): kernels ship as source only, compiled by CuPy's NVRTC "
            "at first use" % manifest["not_compiled"])
        # a fatbin left by an earlier build may not match the source now written
        for name, _, _ in modules(manifest, op_list):
            for ext in (".fatbin", ".fatbin.hash"):
                p = os.path.join(outdir, name + ext)
                if os.path.exists(p):
                    os.remove(p)
    else:
        supported = nvcc_archs(nvcc)
        archs, ptx_arch, dropped = cuda_archs(supported=supported)
        if dropped:
            log("this nvcc cannot target sm_%s; skipped" % ", sm_".join(map(str, dropped)))
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        work = modules(manifest, op_list)
        # the biggest modules first, so no long compile starts last
        work.sort(key=lambda w: -len(w[1]))
        jobs = jobs or max(1, os.cpu_count() or 1)
        with ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(
                lambda w: (w[0],) + compile_module(nvcc, w[0], w[1], w[2], outdir, archs,
                                                   ptx_arch, version), work))
        fresh = 0
        for name, sigs, rejected, seconds, cached in results:
            entry = manifest["copy"] if name == COPY_MODULE else manifest["ops"][name]
            for sig, reason in rejected.items():
                manifest["unsupported"]["%s %s" % (name, sig)] = reason
                entry["kernels"].pop(sig, None)
            fresh += not cached
        manifest["compiled"] = True
        manifest["archs"] = archs
        manifest["ptx"] = ptx_arch
        log("nvcc: %d op modules (%d compiled now; %s%s) in %.1f s"
            % (len(results), fresh, "SASS sm_%s, " % ",".join(map(str, archs)) if archs else "",
               "PTX compute_%d" % ptx_arch if ptx_arch else "no PTX", time.time() - t0))
    # ops without kernels keep no stale module
    for name, entry in manifest["ops"].items():
        if not entry["kernels"]:
            for ext in (".cu", ".fatbin", ".fatbin.hash"):
                p = os.path.join(outdir, name + ext)
                if os.path.exists(p):
                    os.remove(p)
    n_ok = sum(len(e["kernels"]) for e in manifest["ops"].values())
    log("%d signatures have CUDA kernels, %d left out (listed in %s)"
        % (n_ok, len(manifest["unsupported"]), os.path.join(outdir, "manifest.json")))
    _write_if_changed(os.path.join(outdir, "manifest.json"),
                      json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


if __name__ == "__main__":
    build_kernels()

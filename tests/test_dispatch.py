"""Runtime instruction-set dispatch (seed 004): the levels this machine can
run each pass the NumPy differential suite (loops and reduction kits);
forcing a level works and a bad choice falls back with a warning."""
import os
import platform
import re
import shutil
import subprocess
import sys

import pytest

import titer
from titer import _core, _ops

LEVELS, ACTIVE = _core.isa_levels()
RUNNABLE = [name for name, (compiled, runnable) in LEVELS.items() if compiled and runnable]
TESTS = os.path.dirname(os.path.abspath(__file__))
# the titer under test, installed or built in place
IMPORT_PATH = os.pathsep.join([os.path.dirname(os.path.dirname(titer.__file__)),
                               os.environ.get("PYTHONPATH", "")])


def run_python(code, **env):
    full = dict(os.environ, PYTHONPATH=IMPORT_PATH, **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, cwd=TESTS)


def test_baseline_is_always_there_and_the_best_runnable_is_used():
    assert LEVELS["baseline"] == (True, True)
    if not os.environ.get("TITER_CPU_DISPATCH"):
        assert ACTIVE == RUNNABLE[-1]


OTHER_LEVELS = [lvl for lvl in RUNNABLE if lvl != ACTIVE]
# the suites each other level reruns: the differential suite, and the tests
# of the fast-path and vector-libm loops each level builds its own (the
# avx512 unit calls the AVX-512 variants)
LEVEL_SUITES = {
    "differential": ("test_elementwise.py", "test_tiled.py", "test_streaming.py",
                     "test_reduce.py", "test_reduce_accumulate.py", "test_reduce_widening.py",
                     "test_reduce_vector_leaves.py"),
    "vectorized": ("test_veclib.py", "test_catalog.py", "-k",
                   "fast_path or veclib or test_in_range or test_same_bits or test_range_ends"),
}


@pytest.fixture(scope="module")
def level_runs(tmp_path_factory):
    """Every (suite, level) run started at once, each a pytest process with
    TITER_CPU_DISPATCH set: they share the cores (most of the suite is one
    thread), about half the wall time of one after another."""
    runs = {}
    for suite, files_and_options in LEVEL_SUITES.items():
        for level in OTHER_LEVELS:
            args = [os.path.join(TESTS, a) if a.endswith(".py") else a
                    for a in files_and_options]
            log = tmp_path_factory.mktemp("level") / ("%s-%s.log" % (suite, level))
            with open(log, "w") as f:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"] + args,
                    env=dict(os.environ, TITER_CPU_DISPATCH=level, PYTHONPATH=IMPORT_PATH),
                    stdout=f, stderr=subprocess.STDOUT, text=True)
            runs[suite, level] = proc, log
    yield runs
    for proc, _ in runs.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _passed(level_runs, suite, level):
    proc, log = level_runs[suite, level]
    returncode = proc.wait()
    output = log.read_text()
    assert returncode == 0, output[-5000:]
    assert " passed" in output


@pytest.mark.parametrize("level", OTHER_LEVELS)
def test_differential_suite_under_every_other_runnable_level(level_runs, level):
    """The suite already ran under the default level; rerun it under each
    other level this CPU executes."""
    _passed(level_runs, "differential", level)


@pytest.mark.parametrize("level", OTHER_LEVELS)
def test_vectorized_paths_under_every_other_runnable_level(level_runs, level):
    """Each level builds its own fast-path and vector-libm loops (the
    avx512 unit calls the AVX-512 variants): their tests rerun at each."""
    _passed(level_runs, "vectorized", level)


@pytest.mark.parametrize("level", RUNNABLE)
def test_forcing_a_level(level):
    result = run_python("from titer import _core; print(_core.isa_levels()[1])",
                        TITER_CPU_DISPATCH=level)
    assert result.stdout.strip() == level, result.stderr


def test_unknown_or_unrunnable_level_falls_back_with_a_warning():
    result = run_python("import warnings; warnings.simplefilter('always');"
                        "from titer import _core; print(_core.isa_levels()[1])",
                        TITER_CPU_DISPATCH="sse9")
    assert result.stdout.strip() == RUNNABLE[-1]
    assert "TITER_CPU_DISPATCH" in result.stderr
    missing = [name for name, (compiled, runnable) in LEVELS.items()
               if not (compiled and runnable)]
    if missing:
        result = run_python("from titer import _core; print(_core.isa_levels()[1])",
                            TITER_CPU_DISPATCH=missing[0])
        assert result.stdout.strip() == RUNNABLE[-1]
        assert "TITER_CPU_DISPATCH" in result.stderr


def test_show_config_reports_the_facts(capsys):
    info = titer.show_config()
    printed = capsys.readouterr().out
    assert info["instruction set"] == ACTIVE
    assert info["openmp"] == titer.has_openmp()
    assert info["threads"] == titer.get_num_threads()
    for key in ("instruction set", "openmp", "threads", "cuda"):
        assert key in printed


def _extension_symbols():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) to list the extension's symbols")
    listing = subprocess.run([nm, _core.__file__], capture_output=True, text=True, check=True)
    return [line.split()[-1] for line in listing.stdout.splitlines()]


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's symbol versions are a Linux/glibc matter")
def test_fast_path_helpers_are_inlined_everywhere():
    """GCC leaves a static inline function out of line once enough loops
    share it (it did so to the double log behind six float32 fast paths), and
    a call in the loop body keeps the loop scalar: float32 power ran 4x slower
    than NumPy's.  The helpers are always_inline; none may have a symbol."""
    with open(os.path.join(TESTS, os.pardir, "titer", "src", "titer_scalar.h")) as f:
        helpers = set(re.findall(r"^TITER_FAST_INLINE [\w ]+?\b(titer_\w+)\(", f.read(), re.M))
    assert {"titer_fast_log", "titer_atan_nonneg", "titer_fast_powerf"} <= helpers
    assert not helpers & set(_extension_symbols())


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64")
                    or not sys.platform.startswith("linux"),
                    reason="instruction-set units: GCC on x86-64 Linux")
def test_each_level_builds_its_own_fast_path_loops():
    """Every compiled level has its own copy of each fast-path loop (a
    static function per instruction-set unit), so TITER_CPU_DISPATCH picks
    its vector width as it picks the rest of the table."""
    from titer import _codegen
    symbols = _extension_symbols()
    compiled = sum(c for c, _ in LEVELS.values())
    fast = [_codegen.core_loop_name(op, sig) for op in _ops.OPS for sig in (op.fast or {})]
    assert len(fast) > 30
    for name in fast:
        assert symbols.count(name) == compiled, name


def _fused_loop_names():
    """The loops built to fuse multiply-adds: where NumPy's loops fuse
    (titer_muladd and its users), the fast paths built on exact FMA, the
    binary float64 8-lane forms (titer_vpow.h), the float16 loops in
    registers around a float32 form (NOTE [float16 in registers]), and the
    reduction kits' outer rows, which run the op's elementwise kernel as
    NumPy's do (_codegen_reduce: ROWCOMB)."""
    from titer import _codegen, _codegen_reduce
    names = set()
    for op in _ops.OPS:
        for sig in op.types:
            ins, _ = _ops.parse_signature(sig)
            fused = any(call in _ops.lookup_expr(op, ins)[1] for call in _codegen._FUSED_CALLS)
            fast = (op.fast or {}).get(sig)
            if fused or (fast and fast[1] in _codegen._FMA_FAST) \
                    or (op.name, sig) in _codegen._VECTOR_FORMS2_D8:
                names |= {_codegen.loop_name(op, sig), _codegen.core_loop_name(op, sig),
                          _codegen.masked_loop_name(op, sig), _codegen.own_loop_name(op, sig)}
            if fused and sig in _codegen_reduce.reducible_signatures(op):
                names.add(_codegen_reduce.kit_name(op, sig) + "_outer")
            twin = _codegen.float_fast_twin(op, sig) if sig == "e->e" else None
            if twin and _codegen.half_register_form(op, twin):   # the float32 form's FMA
                names.add(_codegen.half_register_loop_name(op, sig))
    return names


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64")
                    or shutil.which("objdump") is None,
                    reason="x86-64 FMA instructions, read by binutils' objdump")
def test_no_build_fuses_a_multiply_add_numpy_does_not():
    """No instruction-set build contracts a * b + c into one rounding where
    NumPy computes two (titer_scalar.h: NOTE [no fused complex lanes]): an
    FMA instruction appears only in the loops built to fuse, at any level.
    The differential suite under each level checks the bits; this finds a
    fusion on inputs it does not try."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", _core.__file__],
                             capture_output=True, text=True, check=True).stdout
    allowed = _fused_loop_names()
    assert len(allowed) >= 20
    fusing, function = set(), None
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            function = header.group(1)
        elif re.search(r"\tv(fn?m(add|sub)\w*|fmaddsub\w*|fmsubadd\w*)\s", line):
            fusing.add(function)
    # clones and GCC's outlined parts keep the name before the first dot
    stray = sorted(f for f in fusing if f.split(".")[0] not in allowed)
    assert not stray, stray
    assert fusing, "no fused loop found: the check reads nothing"


def test_the_extension_links_libm_by_name():
    """Without libm among its needed libraries the extension's powf, exp,
    log... stay unversioned and bind to glibc's old SVID-wrapper versions
    (powf 1.4x slower per call than NumPy's); linked by name they bind to
    the current ones, as NumPy's do."""
    with open(_core.__file__, "rb") as f:
        assert b"libm.so.6" in f.read()

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


@pytest.mark.parametrize("level", [lvl for lvl in RUNNABLE if lvl != ACTIVE])
def test_differential_suite_under_every_other_runnable_level(level):
    """The suite already ran under the default level; rerun it under each
    other level this CPU executes."""
    files = [os.path.join(TESTS, name) for name in (
        "test_elementwise.py", "test_tiled.py", "test_streaming.py", "test_reduce.py",
        "test_reduce_accumulate.py", "test_reduce_widening.py", "test_reduce_vector_leaves.py")]
    # (not the fast-path tests: every level's table points at the same
    # fast-path loops, target clones the CPU picks, which the default run tested)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"] + files,
        env=dict(os.environ, TITER_CPU_DISPATCH=level, PYTHONPATH=IMPORT_PATH),
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


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
                    reason="target clones: GCC on x86-64 Linux")
def test_fast_path_loops_are_built_once_with_an_avx512_clone():
    """Every level's table points at one build of each fast-path loop, in
    the core's unit, cloned for AVX-512, AVX2 (or x86-64-v3 where it fuses
    multiply-adds) and SSE2; an instruction-set unit builds no copy of its
    own (its pragma target would override the clones)."""
    from titer import _codegen
    symbols = _extension_symbols()
    # (a loop with a prelude: its core loop; the prelude is a small static one)
    fast = [_codegen.core_loop_name(op, sig) for op in _ops.OPS for sig in (op.fast or {})]
    assert len(fast) > 30
    for name in fast:
        assert symbols.count(name) == 1, name            # the resolver, no static copy
        assert name + ".arch_x86_64_v4" in symbols and name + ".default" in symbols, name


def test_the_extension_links_libm_by_name():
    """Without libm among its needed libraries the extension's powf, exp,
    log... stay unversioned and bind to glibc's old SVID-wrapper versions
    (powf 1.4x slower per call than NumPy's); linked by name they bind to
    the current ones, as NumPy's do."""
    with open(_core.__file__, "rb") as f:
        assert b"libm.so.6" in f.read()

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
from titer import _core

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
    if level != "baseline":
        # the baseline table's fast-path loops are target_clones the CPU picks
        # (AVX2 where it has it), the same machine code as the avx2 level's
        files += [os.path.join(TESTS, "test_catalog.py") + "::" + test for test in (
            "test_fast_paths_over_float32_bit_patterns",
            "test_fast_paths_within_one_ulp_of_the_rounded_result", "test_float64_fast_paths",
            "test_binary_fast_paths_within_one_ulp_of_the_rounded_result",
            "test_binary_fast_paths_over_float32_bit_patterns", "test_float64_hypot_fast_path")]
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


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's symbol versions are a Linux/glibc matter")
def test_fast_path_helpers_are_inlined_everywhere():
    """GCC leaves a static inline function out of line once enough loops
    share it (it did so to the double log behind six float32 fast paths), and
    a call in the loop body keeps the loop scalar: float32 power ran 4x slower
    than NumPy's.  The helpers are always_inline; none may have a symbol."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) to list the extension's symbols")
    with open(os.path.join(TESTS, os.pardir, "titer", "src", "titer_scalar.h")) as f:
        helpers = set(re.findall(r"^TITER_FAST_INLINE [\w ]+?\b(titer_\w+)\(", f.read(), re.M))
    assert {"titer_fast_log", "titer_atan_nonneg", "titer_fast_powerf"} <= helpers
    listing = subprocess.run([nm, _core.__file__], capture_output=True, text=True, check=True)
    symbols = {line.split()[-1] for line in listing.stdout.splitlines()}
    assert not helpers & symbols


def test_the_extension_links_libm_by_name():
    """Without libm among its needed libraries the extension's powf, exp,
    log... stay unversioned and bind to glibc's old SVID-wrapper versions
    (powf 1.4x slower per call than NumPy's); linked by name they bind to
    the current ones, as NumPy's do."""
    with open(_core.__file__, "rb") as f:
        assert b"libm.so.6" in f.read()

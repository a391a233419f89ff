"""Vendoring (issue 25): the README's recipe copies titer as
`vendored_titer`, builds it, and both copies run in this process with their
own thread settings, grain sizes and caches, each giving NumPy's answers.

The copy is built at the baseline instruction-set level only (the recipe's
ISA = [] instead of ["avx2"]) and at -O0 to keep the compile short; it is built once per
session in a temporary folder, beside the other tests (tests/background.py)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import background
import titer

pytest.importorskip("Cython")
README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
SOURCE = os.path.dirname(os.path.abspath(titer.__file__))


def recipe():
    """The README's vendoring setup.py, for titer copied to ./vendored_titer."""
    with open(README) as f:
        text = f.read()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if 'T = "mypkg/_titer"' in b)
    block = block.replace('T = "mypkg/_titer"', 'T = "vendored_titer"')
    block = re.sub(r'ISA = \["avx2"\]', "ISA = []", block)
    block = block.replace('"-O3"', '"-O0"')       # the copy's speed is not under test
    return block.replace("mypkg._titer", "vendored_titer").replace(
        'packages=["mypkg", ', "packages=[")


def ignore(folder, names):
    return [n for n in names if n.endswith((".so", ".o")) or n in ("_core.c", "__pycache__")]


def background_build():
    """The copy, built (started with the session: see tests/background.py);
    returns its folder."""
    folder = tempfile.mkdtemp(prefix="titer-vendoring-")
    shutil.copytree(SOURCE, os.path.join(folder, "vendored_titer"), ignore=ignore)
    with open(os.path.join(folder, "setup.py"), "w") as f:
        f.write(recipe())
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q", "-j", "2"],
                          cwd=folder, capture_output=True, text=True,
                          preexec_fn=background.lower_priority)
    if proc.returncode != 0:
        raise RuntimeError("the vendored copy did not build:\n" + proc.stdout[-3000:]
                           + proc.stderr[-6000:])
    return folder


@pytest.fixture(scope="module")
def vendored():
    folder = background.result(__name__, background_build)
    sys.path.insert(0, folder)
    try:
        import vendored_titer
    finally:
        sys.path.remove(folder)
    yield vendored_titer
    for name in [m for m in sys.modules if m.split(".")[0] == "vendored_titer"]:
        del sys.modules[name]
    shutil.rmtree(folder, ignore_errors=True)


def test_two_copies_side_by_side(vendored):
    assert vendored is not titer and vendored._core is not titer._core
    assert os.path.dirname(vendored._core.__file__) != os.path.dirname(titer._core.__file__)
    assert vendored.IterConfig is not titer.IterConfig


def test_thread_settings_and_grain_sizes_are_each_copys_own(vendored):
    threads, grain = titer.get_num_threads(), titer.get_grain_size()
    try:
        titer.set_num_threads(1)
        vendored.set_num_threads(2)
        titer.set_grain_size(4096)
        vendored.set_grain_size(777)
        assert (titer.get_num_threads(), vendored.get_num_threads()) == (1, 2)
        assert (titer.get_grain_size(), vendored.get_grain_size()) == (4096, 777)
        it = vendored.IterConfig().add_output(None).add_input(np.ones(10000)).build()
        assert "grain 777" in it.explain()
    finally:
        titer.set_num_threads(threads)
        titer.set_grain_size(grain)


def test_caches_are_each_copys_own(vendored):
    a = np.arange(600.0).reshape(20, 30)
    b = a.T.copy().T                                   # a layout of its own
    out = np.empty_like(a)
    before = titer._core._cache_info()
    vendored.elementwise("hypot", out, a, b)
    vendored.sum(b, axis=1)
    assert titer._core._cache_info() == before         # nothing landed in titer's
    mine = vendored._core._cache_info()
    assert mine["resolutions"] >= 1 and mine["plans"] >= 1 and mine["reductions"] >= 1


@pytest.mark.parametrize("threads", [1, 2])
def test_both_give_numpys_answers(vendored, threads):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal(200)
    for mod in (titer, vendored):
        with mod.num_threads(threads):
            np.testing.assert_array_equal(mod.elementwise("add", None, a, b), np.add(a, b))
            np.testing.assert_array_equal(mod.elementwise("multiply", None, a.T, 3),
                                          np.multiply(a.T, 3))
            np.testing.assert_array_equal(mod.sum(a, axis=1), np.sum(a, axis=1))
            np.testing.assert_array_equal(mod.accumulate("add", a[:, :5], axis=0),
                                          np.add.accumulate(a[:, :5], axis=0))


def test_the_copys_cython_api_is_its_own(vendored):
    import importlib
    api = importlib.import_module("vendored_titer.api")
    assert api.__name__ == "vendored_titer.api" and api._core is vendored._core

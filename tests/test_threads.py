"""Threads: the setting and its sources, bit-identical results for every
thread count, and concurrent calls from several Python threads."""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import titer
from oracle import assert_same, value_grid


@pytest.fixture
def small_grain():
    """A tiny grain so small arrays are split across threads too."""
    previous = titer.get_grain_size()
    titer.set_grain_size(64)
    yield
    titer.set_grain_size(previous)


def test_num_threads_context_restores():
    before = titer.get_num_threads()
    with titer.num_threads(3):
        assert titer.get_num_threads() == (3 if titer.has_openmp() else 1)
    assert titer.get_num_threads() == before


@pytest.mark.parametrize("env, expected", [
    ({"TITER_NUM_THREADS": "3"}, 3),
    ({"OMP_NUM_THREADS": "2"}, 2),
    ({"TITER_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}, 1),
])
def test_environment_sets_the_default(env, expected):
    if not titer.has_openmp():
        pytest.skip("built without OpenMP: always one thread")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("TITER_NUM_THREADS", "OMP_NUM_THREADS")}
    clean.update(env)
    result = subprocess.run([sys.executable, "-c", "import titer; print(titer.get_num_threads())"],
                            env=clean, capture_output=True, text=True, check=True,
                            cwd=os.path.dirname(os.path.dirname(titer.__file__)))
    assert int(result.stdout) == expected


def test_default_is_the_usable_cores():
    if not titer.has_openmp() or "TITER_NUM_THREADS" in os.environ or "OMP_NUM_THREADS" in os.environ:
        pytest.skip("a thread variable is set or OpenMP is missing")
    assert titer.get_num_threads() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("layout", ["contiguous", "strided", "broadcast", "mixed dtype",
                                    "transposed"])
def test_bit_identical_for_every_thread_count(layout, small_grain):
    a = value_grid(np.float32, (300, 70), seed=1)
    b = value_grid(np.float32, (300, 70), seed=2)
    if layout == "strided":
        a, b = a[::2, ::3], b[1::2, ::3]
    elif layout == "broadcast":
        b = b[0]
    elif layout == "mixed dtype":
        b = b.astype(np.float64)
    elif layout == "transposed":
        a = value_grid(np.float32, (70, 300), seed=3).T
    results = []
    for n in (1, 2, 3, 4):
        with titer.num_threads(n), np.errstate(all="ignore"):
            results.append(titer.elementwise("multiply", None, a, b))
    with np.errstate(all="ignore"):
        expected = np.multiply(a, b)
    for r in results:
        assert_same(r, expected, layout)
        assert r.tobytes() == results[0].tobytes()


def test_concurrent_calls_from_python_threads():
    rng = np.random.default_rng(5)
    jobs = []
    for i in range(40):
        n = int(rng.integers(1, 200_000))
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float64 if i % 3 else np.float32)
        jobs.append(("add" if i % 2 else "maximum", a, b))

    def run(job):
        name, a, b = job
        return titer.elementwise(name, None, a, b)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, jobs))
    for (name, a, b), r in zip(jobs, results):
        assert_same(r, getattr(np, name)(a, b), name)


def test_plan_cache_with_changing_arrays():
    """Repeated calls with the same layout reuse a plan; data pointers,
    overlap and alignment are re-checked each time."""
    x = np.arange(20.0)
    out = np.empty(10)
    for k in range(3):
        a, b = x[k:k + 10], x[10 - k:20 - k]
        titer.elementwise("add", out, a, b)
        assert_same(out, a + b)
    y = x.copy()
    titer.elementwise("add", y[1:11], y[0:10], y[5:15])      # same layout, now overlapping
    z = x.copy()
    np.add(z[0:10], z[5:15], out=z[1:11])
    assert_same(y, z)

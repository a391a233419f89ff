"""Threads: the setting and its sources, bit-identical results for every
thread count, and concurrent calls from several Python threads."""
import os
import subprocess
import sys
import warnings
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


needs_openmp = pytest.mark.skipif(not titer.has_openmp(),
                                  reason="built without OpenMP: always one thread")


def test_num_threads_context_restores():
    before = titer.get_num_threads()
    with titer.num_threads(3):
        assert titer.get_num_threads() == (3 if titer.has_openmp() else 1)
    assert titer.get_num_threads() == before
    assert titer._core._thread_setting() is None        # following OpenMP again


@pytest.mark.parametrize("bad, error", [
    (0, ValueError), (-3, ValueError), (1.5, TypeError), (2.0, TypeError),
    ("2", TypeError), (True, TypeError), ([2], TypeError),
])
def test_set_num_threads_rejects_bad_counts(bad, error):
    before = titer._core._thread_setting()
    with pytest.raises(error, match="number of threads"):
        titer.set_num_threads(bad)
    assert titer._core._thread_setting() == before


def test_set_num_threads_takes_integer_likes_and_none():
    try:
        titer.set_num_threads(np.int64(2))
        assert titer._core._thread_setting() == 2
        titer.set_num_threads(None)
        assert titer._core._thread_setting() is None
    finally:
        titer.set_num_threads(None)


def test_huge_thread_counts_are_safe():
    """A count far above the cores (it once started a million OpenMP
    threads and killed the process): a child process, so a crash is a
    failure here, not the end of the suite."""
    code = """if True:
        import numpy as np, titer
        x = np.ones(2**20)
        with titer.num_threads(1_000_000):
            assert titer.get_num_threads() == 1_000_000
            s = titer.sum(x)
            y = titer.elementwise("add", None, x, x)
            c = titer.accumulate("add", x.reshape(1024, 1024), axis=1)
            m = titer.max(x.reshape(1024, 1024), axis=0)
            team = titer._core._team_stats()
        assert s == 2**20 and (y == 2).all() and c[0, -1] == 1024 and (m == 1).all()
        assert team["peak cores in use"] <= team["usable cores"], team
        print("ok")
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, cwd=os.path.dirname(os.path.dirname(titer.__file__)))
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


@needs_openmp
def test_threadpool_limits_limit_titer(teams):
    """threadpoolctl (scikit-learn's and joblib's thread control) reaches
    titer: its default follows OpenMP's count at call time."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if titer._core._thread_setting() is not None or "TITER_NUM_THREADS" in os.environ:
        pytest.skip("titer's thread count is set explicitly here")
    a = np.ones(2**20, np.float32)
    default = titer.get_num_threads()
    for user_api in (None, "openmp"):
        with threadpoolctl.threadpool_limits(1, user_api=user_api):
            assert titer.get_num_threads() == 1
            titer.elementwise("add", None, a, a)
            assert teams._team_stats()["last team"] == 1
            openmp = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "openmp"]
            assert openmp and all(p["num_threads"] == 1 for p in openmp)
        assert titer.get_num_threads() == default
    with threadpoolctl.threadpool_limits(2, user_api="openmp"):
        assert titer.get_num_threads() == 2
        titer.elementwise("add", None, a, a)
        assert teams._team_stats()["last team"] == 2
    # the pool threadpoolctl reports for titer's OpenMP runtime has titer's count
    openmp = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "openmp"]
    assert any(p["num_threads"] == titer.get_num_threads() for p in openmp)


@needs_openmp
def test_an_explicit_count_wins_over_threadpool_limits():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1), titer.num_threads(2):
        assert titer.get_num_threads() == 2
    with titer.num_threads(2), threadpoolctl.threadpool_limits(1):
        assert titer.get_num_threads() == 2


@needs_openmp
def test_teams_never_exceed_the_cores(teams):
    teams._configure_teams(cores=2, hold=False)
    x = np.ones(2**20)
    with titer.num_threads(64):
        titer.elementwise("multiply", None, x, x)
        assert teams._team_stats()["last team"] == 2
        titer.sum(x)
    assert teams._team_stats()["peak cores in use"] == 2


@needs_openmp
def test_a_call_takes_the_cores_other_calls_left(teams):
    teams._configure_teams(cores=3, hold=False)
    x = np.ones(2**20)
    with titer.num_threads(3):
        for held, team in ((0, 3), (1, 2), (2, 1), (3, 1), (0, 3)):
            teams._reserve_cores(held)          # as if running calls held them
            try:
                titer.elementwise("multiply", None, x, x)
                assert teams._team_stats()["last team"] == team, held
                titer.sum(x)
                assert teams._team_stats()["last team"] == team, held
            finally:
                teams._reserve_cores(-held)
    assert teams._team_stats()["cores in use"] == 0


@needs_openmp
def test_a_hold_runs_calls_on_one_thread_until_it_ends(teams):
    """After a slow parallel call titer runs the next calls on the calling
    thread for a while (NOTE: [busy machines]); the answers do not change."""
    teams._configure_teams(cores=2, hold=True)
    x = value_grid(np.float64, (2**19,), seed=4)
    with titer.num_threads(2):
        expected = titer.elementwise("sin", None, x).tobytes()
        teams._hold_threads(300)
        assert teams._team_stats()["serial hold left (ms)"] > 0
        assert titer.elementwise("sin", None, x).tobytes() == expected
        assert teams._team_stats()["last team"] == 1
        teams._hold_threads(0)
        assert titer.elementwise("sin", None, x).tobytes() == expected
        assert teams._team_stats()["last team"] == 2


@needs_openmp
def test_a_loss_that_does_not_come_back_holds_briefly(teams):
    """The first losing call in a while holds the threads 50 ms, not 16x its
    time (a quiet machine's first write to fresh memory can lose once); a
    loss that comes back right after the hold holds 16x the call (at most
    1 s); a call that pays shortens the next hold."""
    teams._configure_teams(cores=2, hold=True)
    # 90 ms where the quicker thread's pace (6 ms a piece, 8 pieces) says 48:
    # 42 ms lost, more than the 20 ms credit
    slow = (90.0, [(36.0, 6), (59.0, 2)])
    teams._judge_team(*slow)
    first = teams._team_stats()["serial hold left (ms)"]
    assert 30 < first <= 50
    teams._judge_team(*slow)
    again = teams._team_stats()["serial hold left (ms)"]
    assert 900 < again <= 1000
    teams._hold_threads(0)
    for _ in range(12):                    # calls that pay: 24 ms where one thread takes 48
        teams._judge_team(24.0, [(24.0, 4), (24.0, 4)])
    teams._judge_team(*slow)
    assert 30 < teams._team_stats()["serial hold left (ms)"] <= 50


@needs_openmp
def test_a_call_cannot_spend_more_credit_than_its_own_cost(teams):
    """Credit saved by earlier calls covers small losses, but a call that
    lost more than one thread would take for it, and more than 1 ms (a
    worker parked on a busy core), holds the threads at once, full credit
    or not."""
    teams._configure_teams(cores=2, hold=True)
    teams._judge_team(2.0, [(4.0, 4), (4.0, 4)])        # pays: 2 ms for 8 ms of work
    assert teams._team_stats()["credit (ms)"] == 20.0
    teams._judge_team(5.0, [(2.0, 4), (9.0, 4)])        # 5 ms for 4: 1 ms of credit spent
    assert teams._team_stats()["serial hold left (ms)"] == 0
    assert teams._team_stats()["credit (ms)"] == 19.0
    teams._configure_teams(cores=2, hold=True)
    teams._judge_team(0.9, [(0.2, 4), (0.4, 4)])        # 0.9 ms for 0.4: on credit
    assert teams._team_stats()["serial hold left (ms)"] == 0
    teams._judge_team(10.0, [(2.0, 4), (9.0, 4)])       # 10 ms for 4: held
    assert 30 < teams._team_stats()["serial hold left (ms)"] <= 50


@needs_openmp
def test_many_callers_share_the_cores(teams):
    """Python threads calling titer at once: together they never hold more
    cores than there are, and every answer is NumPy's."""
    teams._configure_teams(cores=2, hold=False)
    rng = np.random.default_rng(11)
    jobs = [rng.standard_normal(int(rng.integers(70_000, 400_000))) for _ in range(48)]

    def run(x):
        return titer.elementwise("multiply", None, x, x), titer.sum(x)

    with titer.num_threads(2), ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, jobs))
    stats = teams._team_stats()
    # a call always has its own thread; workers only where cores were free
    assert stats["peak cores in use"] <= 2 + 4 - 1 and stats["cores in use"] == 0
    for x, (product, total) in zip(jobs, results):
        assert_same(product, np.multiply(x, x))
        assert abs(total - np.sum(x)) <= 1e-9 * np.sum(np.abs(x))


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
def test_bit_identical_for_every_thread_count(layout, small_grain, teams):
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
            if titer.has_openmp():
                assert teams._team_stats()["last team"] == n
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


def test_concurrent_copies_share_the_copy_plan_cache():
    """Python threads copying arrays of one layout reuse one cached plan,
    run in place below the size that releases the GIL and from a private
    copy above it (_iterator.pxi run_copy_plan): every copy gets its own
    source, casts and complex warnings included."""
    rng = np.random.default_rng(6)
    jobs = []
    for i in range(400):
        n = (7, 16383, 16384, 40000)[i % 4]
        src = rng.standard_normal(n).astype(("f8", "f4", "c16")[i % 3]) + i
        jobs.append((src, np.dtype(("f4", "f8")[i % 2])))

    def run(job):
        src, dtype = job
        dst = np.empty(src.shape, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            titer.copy(dst, src, casting="unsafe")
        return dst

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, jobs))
    for (src, dtype), got in zip(jobs, results):
        want = np.empty(src.shape, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            np.copyto(want, src, casting="unsafe")
        assert_same(got, want, str((src.dtype, dtype, src.size)))


def test_concurrent_python_scalar_calls_share_the_plan_cache():
    """Python threads adding their own Python scalar to arrays of one layout
    reuse one cached plan, which reads the scalar from the cache's buffer:
    below the size that releases the GIL the plan runs in place, above it
    from a private copy holding its own scalar (_elementwise.pxi
    _build_and_run), so every call gets its own value."""
    rng = np.random.default_rng(8)
    jobs = []
    for i in range(400):
        n = (7, 16383, 16384, 40000)[i % 4]
        value = (float(i) + 0.25, i, complex(i, -1), i % 2 == 0)[(i // 4) % 4]
        jobs.append((rng.standard_normal(n), value, i % 3 == 0))

    def run(job):
        x, value, first = job
        return titer.elementwise("add", None, *((value, x) if first else (x, value)))

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, jobs))
    for (x, value, first), got in zip(jobs, results):
        want = np.add(*((value, x) if first else (x, value)))
        assert_same(got, want, str((x.size, value, first)))


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


@needs_openmp
def test_a_float16_table_fill_is_not_judged_as_a_slow_call():
    """A parallel call during which a float16 result table was filled
    (titer_loops.h NOTE [float16 tables]: milliseconds on one thread) is
    left out of the busy-machine books, so it cannot hold the next calls on
    one thread (NOTE: [busy machines]); a fresh process, whose first such
    call fills tan's table."""
    code = """if True:
        import numpy as np, titer
        from titer import _core
        _core._configure_teams(cores=2)
        halves = np.arange(65536, dtype=np.uint16).view(np.float16)
        with titer.num_threads(2), np.errstate(all="ignore"):
            titer.elementwise("tan", None, np.tile(halves, 64))     # 2^22: fills the table
        team = _core._team_stats()
        assert _core._half_tables_filled() == 1
        assert team["last team"] == 2, team
        assert team["last judged (ms)"]["elapsed"] == 0, team
        assert team["serial hold left (ms)"] == 0, team
        print("ok")
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, cwd=os.path.dirname(os.path.dirname(titer.__file__)))
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]

"""The seeded differential fuzzer (tests/fuzz.py) as a test: a bounded run
of elementwise calls and of reductions, each case against NumPy, batches in
child processes so a crash fails the test with a one-line reproducer.

TITER_FUZZ_EXAMPLES=n runs n cases of each kind (default 4000 elementwise,
2000 reductions: well under a minute here); TITER_FUZZ_SEED picks another
seed (default: the one CI runs, so a failure replays exactly)."""
import os

import pytest

import fuzz

SEED = int(os.environ.get("TITER_FUZZ_SEED", "20261125"))
EXAMPLES = int(os.environ.get("TITER_FUZZ_EXAMPLES", "0"))


def report(findings):
    return "\n".join("%s: %s\n    %s" % (f["kind"], f["detail"][:300], f.get("batch")
                                        or f["reproducer"]) for f in findings[:20])


@pytest.mark.parametrize("kind,default", [("elementwise", 4000), ("reduction", 2000)])
def test_fuzz_against_numpy(kind, default):
    findings = fuzz.run_cases(kind, SEED, EXAMPLES or default, batch=1000)
    failures = [f for f in findings if f["kind"] not in fuzz.NUMPY_SIDE]
    assert not failures, "%d of %d %s cases differ from NumPy:\n%s" % (
        len(failures), EXAMPLES or default, kind, report(failures))


def test_a_crash_is_reported_with_its_reproducer(monkeypatch, tmp_path):
    """The parent survives a child that dies, names the case, and goes on."""
    script = tmp_path / "dying_fuzz.py"
    script.write_text(open(fuzz.__file__).read().replace(
        "def run_one(kind, seed, index):", "def run_one(kind, seed, index):\n"
        "    if index == 3:\n        import os; os.kill(os.getpid(), 11)\n"
        "    return _run_one(kind, seed, index)\n\n\ndef _run_one(kind, seed, index):"))
    here = os.path.dirname(os.path.abspath(fuzz.__file__))
    monkeypatch.setenv("PYTHONPATH", here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setattr(fuzz, "__file__", str(script))
    findings = fuzz.run_cases("elementwise", 1, 6, batch=6)
    assert [(f["kind"], f["index"]) for f in findings if "crash" in f["kind"]] == [("crash", 3)]
    crash = next(f for f in findings if f["kind"] == "crash")
    assert crash["reproducer"] == "python tests/fuzz.py elementwise 1 3"


def test_cases_replay_from_seed_and_index():
    rng = fuzz.np.random.default_rng
    assert fuzz.draw_elementwise(rng([5, 17])) == fuzz.draw_elementwise(rng([5, 17]))
    assert fuzz.draw_reduction(rng([5, 17])) == fuzz.draw_reduction(rng([5, 17]))

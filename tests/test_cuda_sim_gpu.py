"""The files a GPU session runs, run here on a simulated GPU (tests/sim_cupy.py:
the CPU through the g++ host shim, behind titer's real CuPy backend), so a
mistake in them shows up in CI and not in the scarce GPU time.  Each run is
a subprocess: ``import cupy`` must give the stand-in before anything loads."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from titer.cuda import host

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_TEST_FILES = ["tests/test_cuda_gpu.py", "tests/test_cuda_gpu_reduce.py",
                  "tests/test_cuda_gpu_evaluate.py"]

pytestmark = pytest.mark.skipif(host.find_cxx() is None, reason="no C++ compiler (g++)")


def _env():
    return dict(os.environ, TITER_SIM_GPU="1",
                PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))


def test_gpu_test_files_pass_on_the_simulated_gpu(tmp_path):
    junit = tmp_path / "sim-gpu.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         "--junitxml=%s" % junit] + GPU_TEST_FILES,
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert int(suite.get("failures")) == int(suite.get("errors")) == 0
    assert int(suite.get("tests")) > 100
    # only the tests that need GiBs of device memory skip, and they say so
    skipped = [case.find("skipped").get("message") for case in suite.iter("testcase")
               if case.find("skipped") is not None]
    assert len(skipped) == 2 and all("GiB of free GPU memory" in m for m in skipped), skipped


def test_main_job_on_the_simulated_gpu():
    """``python -m titer gpu``: every case runs and checks out against NumPy."""
    code = ("import sys; sys.path.insert(0, 'tests'); import sim_cupy; sim_cupy.install(); "
            "from titer._demo_gpu import main; sys.exit(main(small=True, repeat=1))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "titer vs CuPy sim" in proc.stdout
    rows = [line for line in proc.stdout.splitlines() if line.rstrip().endswith(" ok")]
    assert len(rows) >= 8, proc.stdout


def test_gpu_benchmarks_run_on_the_simulated_gpu():
    """benchmarks/test_bench_gpu.py, each case once (--benchmark-disable),
    titer's results checked against the peers' as in a timed run."""
    code = ("import sys; sys.path.insert(0, 'tests'); import sim_cupy; sim_cupy.install(); "
            "import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', "
            "'--benchmark-disable', 'benchmarks/test_bench_gpu.py']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout

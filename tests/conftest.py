"""TITER_SIM_GPU=1: ``import cupy`` gives tests/sim_cupy.py, a stand-in whose
GPU is the CPU (titer's kernels through the g++ host shim), so the GPU test
files run without a GPU (tests/test_cuda_sim_gpu.py does that in CI)."""
import os

import pytest

if os.environ.get("TITER_SIM_GPU") == "1":
    import sim_cupy

    sim_cupy.install()


@pytest.fixture
def teams():
    """Up to 4 threads a call whatever this machine's core count (teams are
    capped at the usable cores), no hold after a slow parallel call (a
    loaded CI machine would make the team sizes below a matter of luck);
    the defaults come back after the test."""
    import titer
    titer._core._configure_teams(cores=4, hold=False)
    yield titer._core
    titer._core._configure_teams()


def pytest_collection_modifyitems(session, config, items):
    """Start the background builds of the selected test modules (see
    tests/background.py) and run their tests last."""
    import background

    def builds(item):
        return getattr(getattr(item, "module", None), "background_build", None)

    for item in items:
        if builds(item) is not None:
            background.start(item.module.__name__, builds(item))
    items.sort(key=lambda item: builds(item) is not None)

"""Shared set-up for the benchmark suites: every threaded library gets 2 threads
(this project's reference machine has 2 cores), and the JSON records versions."""
import importlib

import numpy as np
import pytest

import titer

BENCH_THREADS = 2


def optional_import(name):
    """The module, or None when the peer is not installed (its benchmarks skip)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


torch = optional_import("torch")
numexpr = optional_import("numexpr")
cupy = optional_import("cupy")


@pytest.fixture(scope="session", autouse=True)
def same_thread_count_everywhere():
    if torch is not None:
        torch.set_num_threads(BENCH_THREADS)
    if numexpr is not None:
        numexpr.set_num_threads(BENCH_THREADS)
    with titer.num_threads(BENCH_THREADS):
        yield


def pytest_benchmark_update_machine_info(config, machine_info):
    machine_info["library_versions"] = {
        "titer": titer.__version__,
        "numpy": np.__version__,
        "torch": getattr(torch, "__version__", "not installed"),
        "numexpr": getattr(numexpr, "__version__", "not installed"),
        "cupy": getattr(cupy, "__version__", "not installed"),
    }
    machine_info["threads"] = BENCH_THREADS

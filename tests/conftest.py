"""TITER_SIM_GPU=1: ``import cupy`` gives tests/sim_cupy.py, a stand-in whose
GPU is the CPU (titer's kernels through the g++ host shim), so the GPU test
files run without a GPU (tests/test_cuda_sim_gpu.py does that in CI)."""
import os

if os.environ.get("TITER_SIM_GPU") == "1":
    import sim_cupy

    sim_cupy.install()

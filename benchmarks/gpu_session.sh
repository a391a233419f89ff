#!/usr/bin/env bash
# Everything issue 5 needs from a machine with an NVIDIA GPU, in stages that
# each fit one 10-minute device call:
#
#   bash benchmarks/gpu_session.sh build    # titer built in place (C loops + fatbins)
#   bash benchmarks/gpu_session.sh test     # GPU tests + the main job on the GPU
#   bash benchmarks/gpu_session.sh bench    # titer vs CuPy vs PyTorch CUDA + report
#   bash benchmarks/gpu_session.sh evaluate # titer.evaluate fused vs composed vs CuPy
#   bash benchmarks/gpu_session.sh all      # build, test, bench, one after the other
#   bash benchmarks/gpu_session.sh kernels  # only the CUDA kernels (C extension carried in)
#   bash benchmarks/gpu_session.sh profile  # host-time profile + ncu kernel durations
#
# Offline on purpose: nothing is installed (no pip, no build isolation); the
# machine's python3 must already hold NumPy, Cython, setuptools, CuPy, pytest
# and pytest-benchmark (the device image does; PyTorch is optional).  Logs,
# JUnit XML, benchmark JSON and the Markdown report go to $OUT (default
# ./gpu-out).  The build's default TITER_CUDA_ARCHS ("auto") finds the
# GPU with nvidia-smi: SASS for it (sm_90 on the H100/H200 the device tool
# lends), so no module waits for the driver's JIT, plus PTX.  On the
# device tool's H100 (16 cores, 2026-11-27): `build` with
# TITER_CUDA_ARCHS=90 took 237 s (nvcc 51 s of it); `test` with 15 workers
# more than 230 s, of which the NVRTC compile of every module is 92 s.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
status=0

build() {
    if [ -n "${TITER_REUSE_BUILD:-}" ] && ls titer/_core*.so titer/cuda/kernels/add.fatbin >/dev/null 2>&1; then
        echo "reusing the in-place build already here"; return 0
    fi
    nvidia-smi -L
    nvcc --version | tail -1
    "$PY" -c "import sys, numpy, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__, 'cupy', cupy.__version__)"
    "$PY" setup.py build_ext --inplace || return 1
    "$PY" -c "import titer; titer.show_config()"
}

gpu_tests() {
    local rc=0 workers=()
    # the GPU is shared by the workers; the CPU oracle is what takes the time
    "$PY" -c "import xdist" 2>/dev/null && workers=(-n "${TITER_GPU_WORKERS:-8}")
    "$PY" -m pytest -q -p no:cacheprovider -rs "${workers[@]}" --junitxml="$OUT/gpu-tests.xml" \
        tests/test_cuda_gpu.py tests/test_cuda_gpu_reduce.py tests/test_cuda_gpu_evaluate.py \
        tests/test_cuda_fuse.py tests/test_cuda_nvrtc.py || rc=1
    "$PY" -m titer gpu || rc=1
    return $rc
}

kernels() {      # the CUDA kernels alone (the C extension was carried in)
    nvidia-smi -L
    "$PY" -c "import titer.cuda.build as b; b.build_kernels()" || return 1
    "$PY" -c "import titer; titer.show_config()"
}

profile() {      # where host time goes; every kernel's own duration (ncu)
    local rc=0
    "$PY" benchmarks/gpu_profile.py || rc=1
    ncu --profile-from-start off --csv --metrics gpu__time_duration.sum \
        "$PY" benchmarks/gpu_kernel_cases.py > "$OUT/ncu.csv" || rc=1
    return $rc
}

evaluate() {     # issue 26's cases on CuPy arrays (the fused reduction's sum rows)
    "$PY" benchmarks/gpu_evaluate.py
}

bench() {
    local rc=0
    "$PY" -m pytest -q -p no:cacheprovider benchmarks/test_bench_gpu.py --benchmark-only \
        --benchmark-json="$OUT/gpu.json" || rc=1
    "$PY" benchmarks/report.py "$OUT/gpu.json" --reference cupy > "$OUT/gpu-report.md" || rc=1
    cat "$OUT/gpu-report.md"
    "$PY" benchmarks/gpu_host_overhead.py || rc=1
    return $rc
}

run() {          # run STAGE-FUNCTION LOG: output to the terminal and the log
    "$1" 2>&1 | tee "$OUT/$2"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

case "${1:-all}" in
    build) run build build.log ;;
    test) run gpu_tests test.log ;;
    bench) run bench bench.log ;;
    kernels) run kernels kernels.log ;;
    profile) run profile profile.log ;;
    evaluate) run evaluate evaluate.log ;;
    all) run build build.log && [ "$status" -eq 0 ] && { run gpu_tests test.log; run bench bench.log; } ;;
    *) echo "usage: $0 build|test|bench|evaluate|all|kernels|profile" >&2; exit 2 ;;
esac
exit "$status"

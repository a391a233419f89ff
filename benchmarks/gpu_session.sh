#!/usr/bin/env bash
# Everything issue 5 needs from a machine with an NVIDIA GPU, in stages that
# each fit one 10-minute device call:
#
#   bash benchmarks/gpu_session.sh build    # titer built in place (C loops + fatbins)
#   bash benchmarks/gpu_session.sh test     # GPU tests + the main job on the GPU
#   bash benchmarks/gpu_session.sh bench    # titer vs CuPy vs PyTorch CUDA + report
#   bash benchmarks/gpu_session.sh all      # the three, one after the other
#
# Offline on purpose: nothing is installed (no pip, no build isolation); the
# machine's python3 must already hold NumPy, Cython, setuptools, CuPy, pytest
# and pytest-benchmark (the device image does; PyTorch is optional).  Logs,
# JUnit XML, benchmark JSON and the Markdown report go to $OUT (default
# ./gpu-out).  The build's default TITER_CUDA_ARCHS ("auto") finds the
# GPU with nvidia-smi: SASS for it (sm_90 on the H100/H200 the device tool
# lends), so no module waits for the driver's JIT, plus PTX.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
status=0

build() {
    nvidia-smi -L
    "$PY" -c "import sys, numpy, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__, 'cupy', cupy.__version__)"
    "$PY" setup.py build_ext --inplace || return 1
    "$PY" -c "import titer; titer.show_config()"
}

gpu_tests() {
    local rc=0
    "$PY" -m pytest -q -p no:cacheprovider -rs --junitxml="$OUT/gpu-tests.xml" \
        tests/test_cuda_gpu.py tests/test_cuda_gpu_reduce.py tests/test_cuda_nvrtc.py || rc=1
    "$PY" -m titer gpu || rc=1
    return $rc
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
    all) run build build.log && [ "$status" -eq 0 ] && { run gpu_tests test.log; run bench bench.log; } ;;
    *) echo "usage: $0 build|test|bench|all" >&2; exit 2 ;;
esac
exit "$status"

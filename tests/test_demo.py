"""The main job: ``python -m titer`` (titer vs NumPy) and ``python -m titer
gpu`` (titer vs CuPy).  The GPU table runs here on the host shim: a stand-in
``cupy`` whose arrays are NumPy arrays behind the CUDA array interface and
whose launches run titer's kernels on the CPU."""
import subprocess
import sys
import types

import numpy as np
import pytest

from oracle import host_backend
from titer import _demo, _demo_gpu
from titer.cuda import host, launcher

SMALL_CASES = [c for c in _demo.CASES if c.id in ("tiny", "strided", "mixed-dtype",
                                                   "channels-last")]


def test_cpu_table_runs_and_checks():
    proc = subprocess.run([sys.executable, "-m", "titer", "--quick", "--repeat", "1",
                           "--case", "tiny", "--case", "mixed-dtype"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("1-element add") and line.rstrip().endswith("ok")
               for line in lines), proc.stdout
    assert any(line.startswith("f32+f64->f64") for line in lines)


def test_gpu_table_without_a_gpu_says_so(monkeypatch):
    monkeypatch.setattr(_demo_gpu, "gpu", lambda: None)
    assert _demo_gpu.main(small=True, repeat=1) == 0


def test_gpu_evaluate_benchmark_without_a_gpu_says_so(monkeypatch, capsys):
    """benchmarks/gpu_evaluate.py (a stage of gpu_session.sh) exits 0 with
    a line, as `python -m titer gpu` does, where there is no GPU."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "gpu_evaluate.py")
    spec = importlib.util.spec_from_file_location("gpu_evaluate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "gpu", lambda: None)
    assert module.main(["--small"]) == 0
    assert "no CUDA GPU / CuPy here" in capsys.readouterr().out


def test_tiny_calls_benchmark_agrees_with_numpy_and_runs():
    """benchmarks/tiny_calls.py: every pair of calls it times gives the same
    results (its check raises SystemExit otherwise), and a short run
    prints a row per case."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "tiny_calls.py")
    spec = importlib.util.spec_from_file_location("tiny_calls", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check()
    best = module.measure(rounds=1, number=3)
    assert list(best) == [label for label, _, _ in module.CASES]
    assert all(0 < t < float("inf") for pair in best.values() for t in pair)


def fake_cupy():
    """The few cupy calls the GPU table makes, on host arrays."""
    cp = types.SimpleNamespace(__version__="stand-in")

    def wrap(a):
        return host.HostArray(a)

    class Pointer:                      # a device pointer: host bytes + an offset
        def __init__(self, array, offset=0):
            self.array, self.offset = array, offset

        def __add__(self, k):
            return Pointer(self.array, self.offset + k)

    def asarray(x):
        device = wrap(np.array(x, copy=True))
        device.data = Pointer(device.a)
        return device

    def ndarray(shape, dtype, memptr, strides):
        flat = memptr.array.reshape(-1).view(np.uint8)
        return wrap(np.ndarray(shape, dtype, buffer=flat, offset=memptr.offset,
                               strides=strides))

    cp.asarray = asarray
    cp.ndarray = ndarray
    cp.full = lambda shape, value, dtype: wrap(np.full(shape, value, dtype))
    cp.empty = lambda shape, dtype: wrap(np.empty(shape, dtype))
    cp.asnumpy = lambda x: x.a
    cp.add = lambda a, b, out=None: np.add(a.a, b.a, out=None if out is None else out.a)
    device = types.SimpleNamespace(synchronize=lambda: None, id=0)
    runtime = types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"host shim"})
    cp.cuda = types.SimpleNamespace(Device=lambda: device, runtime=runtime)
    return cp


def test_gpu_table_through_the_host_shim(monkeypatch, capsys):
    """Each case on 'device' arrays goes through titer.elementwise's CuPy
    hand-off to titer's kernels and is checked against numpy.add."""
    monkeypatch.setattr(launcher, "default_backend", host_backend)
    monkeypatch.setattr(_demo_gpu, "gpu", fake_cupy)
    assert _demo_gpu.main(small=True, repeat=1, cases=SMALL_CASES) == 0
    text = capsys.readouterr().out
    assert "titer vs CuPy stand-in on host shim" in text
    rows = [line for line in text.splitlines() if line.rstrip().endswith(" ok")]
    assert len(rows) == len(SMALL_CASES), text


def test_device_inputs_keep_the_case_layouts():
    """Strided, transposed and channels-last inputs reach the GPU as views
    with the host's strides (not contiguous copies)."""
    cp = fake_cupy()
    rng = np.random.default_rng(0)
    for case in _demo.CASES:
        inputs, _ = case.make(rng, True)
        for x in inputs:
            d = _demo_gpu.device_like(cp, x)
            assert d.a.strides == x.strides and np.array_equal(d.a, x), case.id
    neg = np.arange(12.0).reshape(3, 4)[::-1, ::-2]
    d = _demo_gpu.device_like(cp, neg)
    assert d.a.strides == neg.strides and np.array_equal(d.a, neg)


def test_gpu_table_reports_a_wrong_result(monkeypatch, capsys):
    monkeypatch.setattr(launcher, "default_backend", host_backend)
    monkeypatch.setattr(_demo_gpu, "gpu", fake_cupy)
    real = _demo_gpu.elementwise

    def off_by_one(name, out, *inputs):
        result = real(name, out, *inputs)
        result.a.flat[0] += 1
        return result
    monkeypatch.setattr(_demo_gpu, "elementwise", off_by_one)
    assert _demo_gpu.main(small=True, repeat=1, cases=SMALL_CASES[:1]) == 1
    assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["gpu", "--case", "nope"], ["--threads", "0"]])
def test_bad_arguments(argv):
    proc = subprocess.run([sys.executable, "-m", "titer"] + argv, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "error" in proc.stderr

"""Host (Python) time titer adds per call on device arrays, without a GPU.

The dispatcher runs for real (dtype resolution, planning or the plan cache,
parameter packing) against a backend whose launches do nothing, so the time
is what titer costs on the CPU before the GPU does any work.  On a GPU the
launch itself (CuPy's RawKernel call, a few microseconds) comes on top;
benchmarks/test_bench_gpu.py measures the whole thing next to CuPy.

    python benchmarks/gpu_host_overhead.py
"""
import timeit

import numpy as np

import titer
from titer.cuda import device, host, launcher


class NullBackend:
    """Device arrays are NumPy arrays behind the CUDA array interface;
    launches are recorded nowhere and run nothing."""

    def __init__(self, cache=True):
        self.manifest = device.manifest()
        self.plan_cache = {} if cache else None

    def device_of(self, x):
        return 0

    array_key = staticmethod(host.array_key)

    def empty(self, shape, dtype, strides, devices):
        return host.HostArray(np.empty(shape, dtype))

    def launch(self, module, launch, device=None):
        pass

    def sm_count(self):
        return 132


def per_call(fn, number=2000):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=15)) / number


def main():
    one = host.HostArray(np.ones(1, np.float32))
    out = host.HostArray(np.ones(1, np.float32))
    square = host.HostArray(np.ones((64, 64), np.float32))
    # a new length every call (a loop over ragged data): 997 lengths, more
    # than the plan cache holds, so only the dense-layout plan can serve them
    ragged = [host.HostArray(np.ones(n, np.float32)) for n in range(3, 1000)]
    turn = iter(range(1 << 62))

    def add_new_length():
        x = ragged[next(turn) % len(ragged)]
        return titer.elementwise("add", None, x, x)

    def sum_new_length():
        return titer.sum(ragged[next(turn) % len(ragged)])

    print("Through the public entry points (titer.elementwise / titer.sum), the")
    print("device calls' backend replaced by one that launches nothing.\n")
    print("| call | planned every time | plan cache |")
    print("| --- | ---: | ---: |")
    saved = launcher.default_backend
    try:
        for label, call in [
                ("add, 1 element, out=", lambda: titer.elementwise("add", out, one, one)),
                ("add, 1 element, out=None", lambda: titer.elementwise("add", None, one, one)),
                ("add, 1 element + 2.0", lambda: titer.elementwise("add", out, one, 2.0)),
                ("add, a new length every call, out=None", add_new_length),
                ("sum axis 0 of (64, 64)", lambda: titer.sum(square, axis=0)),
                ("sum of all, a new length every call", sum_new_length)]:
            times = []
            for backend in (NullBackend(cache=False), NullBackend()):
                launcher.default_backend = lambda: backend
                times.append(per_call(call) * 1e6)
            print("| %s | %.1f us | %.1f us |" % (label, times[0], times[1]))
    finally:
        launcher.default_backend = saved


if __name__ == "__main__":
    main()

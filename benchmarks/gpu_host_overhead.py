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

from titer.cuda import dispatch, host
from titer.cuda import reduce as dreduce


class NullBackend:
    """Device arrays are NumPy arrays behind the CUDA array interface;
    launches are recorded nowhere and run nothing."""

    def __init__(self, cache=True):
        self.manifest = dispatch.manifest()
        self.plan_cache = {} if cache else None

    def device_of(self, x):
        return 0

    def empty(self, shape, dtype, strides, devices):
        return host.HostArray(np.empty(shape, dtype))

    def launch(self, module, launch, device=None):
        pass

    def sm_count(self):
        return 132


def per_call(fn, number=2000):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    one = host.HostArray(np.ones(1, np.float32))
    out = host.HostArray(np.ones(1, np.float32))
    square = host.HostArray(np.ones((64, 64), np.float32))
    print("| call | planned every time | plan cache |")
    print("| --- | ---: | ---: |")
    for label, call in [
            ("add, 1 element, out=", lambda be: dispatch.elementwise("add", out, one, one,
                                                                     backend=be)),
            ("add, 1 element, out=None", lambda be: dispatch.elementwise("add", None, one, one,
                                                                         backend=be)),
            ("add, 1 element + 2.0", lambda be: dispatch.elementwise("add", out, one, 2.0,
                                                                     backend=be)),
            ("sum axis 0 of (64, 64)", lambda be: dreduce.reduce("add", square, 0,
                                                                 backend=be))]:
        cold, warm = NullBackend(cache=False), NullBackend()
        print("| %s | %.1f us | %.1f us |" % (label, per_call(lambda: call(cold)) * 1e6,
                                              per_call(lambda: call(warm)) * 1e6))


if __name__ == "__main__":
    main()

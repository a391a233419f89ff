"""The GPU side: titer's operations on CuPy arrays with titer's own kernels.

``titer.elementwise`` hands operands that carry ``__cuda_array_interface__``
to ``titer.cuda.dispatch.elementwise``; ``titer.reduce`` and friends to
``titer.cuda.reduce``; ``titer.copy`` / ``ascontiguous`` / ``empty_like`` to
``titer.cuda.copy``.  The modules import only downward, in this order
(tests/test_cuda_layers.py checks it):

* ``build.py``       kernels generated from the op table (the CPU loops'
                     expressions, unchanged, over ``titer_scalar.cuh``), nvcc
                     fatbins at build time, ``kernels/manifest.json`` listing
                     what has kernels and what was left out and why;
                     ``titer_kernels.cuh`` (OffsetCalculator with IntDivider
                     fast divmod, vectorized / unrolled / load-store-with-cast
                     kernels), ``titer_reduce.cuh`` (reductions: lanes per
                     output, fixed-order block trees, split blocks + an
                     ordered final pass; scans);
* ``plan.py``        host-side math: magic numbers, 32-bit splitting, kernel
                     choice, launch configuration, the by-value parameters;
* ``device.py``      device arrays' metadata (``DeviceInfo``), stand-ins for
                     titer's CPU iterator, the operand checks, the manifest;
* ``_cupy.py``       the CuPy backend: ``cupy.RawModule`` loading, memoized
                     per device, with the NVRTC fallback;
* ``launcher.py``    the default backend (CuPy's, imported at first use) and
                     the reduction launches the layers above share;
* ``plan_cache.py``  a repeated layout re-addresses recorded launches;
* ``copy.py`` -> ``dispatch.py`` -> ``reduce.py``  the executors: copies /
                     layouts, elementwise, reductions / scans / mean.  NumPy's
                     semantics (dtype resolution, casting, the argument
                     checks and their errors) come from ``titer/_frontend.py``,
                     as on the CPU; the output layout from titer's CPU iterator.

``host.py`` + ``host_shim.h`` run the same kernels on the CPU for the tests.

Importing titer (or this package) never imports CuPy or touches CUDA.
"""


def status():
    """One line for titer.show_config(): what was built, whether CuPy is
    installed (found, not imported: no CUDA is touched)."""
    import importlib.util
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "manifest.json")
    cupy = "cupy installed" if importlib.util.find_spec("cupy") else "cupy not installed"
    if not os.path.exists(path):
        return "no kernels generated; " + cupy
    with open(path) as f:
        m = json.load(f)
    sigs = [k for e in m["ops"].values() for k in e["kernels"].values()]
    reducible = sum("reduce_acc" in k for k in sigs)
    if m.get("compiled"):
        images = ["SASS sm_" + ",".join(map(str, m["archs"]))] if m.get("archs") else []
        if m.get("ptx"):
            images.append("PTX compute_%d" % m["ptx"])
        built = "fatbins: " + " + ".join(images)
    else:
        built = "source only (%s); CuPy's NVRTC compiles it at first use" % m.get(
            "not_compiled", "nvcc not run")
    return "%d elementwise signatures, %d reductions, %d copy dtypes; %s; %s" % (
        len(sigs), reducible, len(m.get("copy", {}).get("kernels", {})), built, cupy)

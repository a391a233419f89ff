"""The GPU side: titer's operations on CuPy arrays with titer's own kernels.

``titer.elementwise`` hands operands that carry ``__cuda_array_interface__``
to ``titer.cuda.dispatch.elementwise``.  Pieces:

* ``build.py``       kernels generated from the op table (the CPU loops'
                     expressions, unchanged, over ``titer_scalar.cuh``), nvcc
                     fatbins at build time, ``kernels/manifest.json`` listing
                     what has kernels and what was left out and why;
* ``titer_kernels.cuh``  OffsetCalculator with IntDivider fast divmod,
                     vectorized / unrolled / load-store-with-cast kernels;
* ``plan.py``        host-side math: magic numbers, 32-bit splitting, kernel
                     choice, launch configuration, the by-value parameters;
* ``dispatch.py``    NumPy's semantics (dtype resolution, casting, output
                     layout from titer's CPU iterator), then the launches;
* ``_cupy.py``       ``cupy.RawModule`` loading, memoized per device, with the
                     NVRTC fallback; ``host.py`` + ``host_shim.h`` run the same
                     kernels on the CPU for the tests.

Importing titer (or this package) never imports CuPy or touches CUDA.
"""

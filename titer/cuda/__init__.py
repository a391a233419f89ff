"""The GPU side (CuPy arrays through precompiled CUDA kernels).

Not built yet: titer runs NumPy arrays only.  Importing titer never imports
CuPy or touches CUDA; this package will hold the kernels and their loader.
"""

# The module behind titer/api.pxd: `for_each` hands the call to titer._core
# (titer/_api.pxi), whose function pointer it takes from a capsule once, so
# this module compiles without the core's generated headers and a vendored
# copy reaches its own core.
from cpython.pycapsule cimport PyCapsule_GetPointer

from . import _core

ctypedef int (*for_each_fn)(object, loop2d_t, void *, int64_t) except -1

cdef for_each_fn _for_each = <for_each_fn>PyCapsule_GetPointer(
    _core._api_for_each, b"titer.api.for_each")


cdef int for_each(object iterator, loop2d_t loop, void *ctx, int64_t grain_size) except -1:
    return _for_each(iterator, loop, ctx, grain_size)

# A downstream kernel module for tests/test_api.py: titer's Cython API from
# outside titer (built in a temporary folder against the titer under test).
from libc.stdint cimport int64_t
from titer.api cimport loop2d_t, for_each

import titer


cdef struct Fused:
    double k


cdef void fused_loop(void *ctx, char **data, const int64_t *strides,
                     int64_t size0, int64_t size1) noexcept nogil:
    """out = a * b + k * c over float64 operands 0 (out), 1, 2, 3."""
    cdef double k = (<Fused *>ctx).k
    cdef int64_t i, j
    cdef char *o
    cdef char *a
    cdef char *b
    cdef char *c
    for j in range(size1):
        o = data[0] + j * strides[4]
        a = data[1] + j * strides[5]
        b = data[2] + j * strides[6]
        c = data[3] + j * strides[7]
        for i in range(size0):
            (<double *>(o + i * strides[0]))[0] = (
                (<double *>(a + i * strides[1]))[0] * (<double *>(b + i * strides[2]))[0]
                + k * (<double *>(c + i * strides[3]))[0])


def fused(a, b, c, double k, out=None, int64_t grain_size=-1, bint promote=False):
    """a * b + k * c; promote=True lets the iterator convert mixed dtypes to
    their common one (float64 here) for the loop and back to `out`."""
    cfg = titer.IterConfig().add_output(out).add_input(a).add_input(b).add_input(c)
    if promote:
        cfg.check_all_same_dtype(False).promote_inputs_to_common_dtype() \
           .cast_common_dtype_to_outputs()
    it = cfg.build()
    cdef Fused args
    args.k = k
    for_each(it, fused_loop, &args, grain_size)
    return it.output(0)


def call_with(obj):
    """for_each on something that is not a TensorIterator."""
    cdef Fused args
    args.k = 0.0
    for_each(obj, fused_loop, &args, -1)

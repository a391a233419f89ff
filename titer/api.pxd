# titer's Cython API for kernel authors (issue 25).  In a downstream .pyx:
#
#     from titer.api cimport loop2d_t, for_each
#
# with titer.get_include() on the Cython include path.  See the README's
# "Writing kernels in Cython".
from libc.stdint cimport int64_t

# The inner loop: size1 rows of size0 elements.  data[t] is operand t's first
# element (outputs first, then inputs, as added to the IterConfig); element
# (i, j) of operand t is at data[t] + i * strides[t] + j * strides[n + t],
# n operands: strides holds every operand's dim-0 byte stride, then every
# dim-1 one.  It runs on titer's threads: ctx is shared by all of them.
ctypedef void (*loop2d_t)(void *ctx, char **data, const int64_t *strides,
                          int64_t size0, int64_t size1) noexcept nogil

# Run `loop` over every element of `iterator`, a built titer.TensorIterator
# (titer.IterConfig()...build()), with titer's DimCounter and threads
# (set_num_threads); grain_size < 0 means titer's grain (set_grain_size).
# Operands the iterator casts (promote_inputs_to_common_dtype /
# cast_common_dtype_to_outputs) or must realign reach the loop as converted
# blocks of one row.  Raises TypeError for anything but a TensorIterator.
cdef int for_each(object iterator, loop2d_t loop, void *ctx, int64_t grain_size) except -1

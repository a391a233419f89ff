# The C-level view of an iterator plan: what the nogil hot path reads.
from libc.stdint cimport int64_t

cdef extern from "titer_generated.h" nogil:
    ctypedef void (*titer_loop1d)(char **data, const int64_t *strides, int64_t n) noexcept nogil
    ctypedef void (*titer_cast_fn)(const char *src, int64_t src_stride, char *dst,
                                   int64_t dst_stride, int64_t n) noexcept nogil

# titer.api's loop (issue 25): a kernel author's 2-d loop, seed 003's loop2d
# signature plus a context pointer
ctypedef void (*titer_loop2d_fn)(void *ctx, char **data, const int64_t *strides,
                                 int64_t size0, int64_t size1) noexcept nogil

cdef enum:
    MAX_DIMS = 64          # NumPy's NPY_MAXDIMS
    MAX_OPERANDS = 8
    NUM_TYPES = 14         # titer dtype codes 0..13, in _ops.TYPECHARS order
    BUFFER_BLOCK = 512     # elements staged per cast/swap block

cdef enum FastSetup:
    FAST_NONE = 0
    FAST_CONTIGUOUS = 1
    FAST_CHANNELS_LAST = 2
    FAST_NON_OVERLAPPING_DENSE = 3

cdef struct Operand:
    char *data
    int64_t stride[MAX_DIMS]       # bytes, in iterator dim order (dim 0 fastest after reorder)
    int dtype                      # titer code of the array's dtype
    int loop_dtype                 # titer code the loop reads or writes
    int itemsize
    int loop_itemsize
    int swap_unit                  # > 1: stored byte-swapped, words of this many bytes
    bint aligned
    bint is_output
    bint is_defined                # False: an output still to be allocated
    bint will_resize
    bint staged                    # unaligned or swapped: moved through a native buffer
    bint transposed                # tiled plans: walked through a transposed tile buffer
    titer_cast_fn cast             # operand dtype -> loop dtype (inputs) or back (outputs)

cdef struct Plan:
    int ndim
    int ntensors
    int noutputs
    int64_t shape[MAX_DIMS]
    int64_t perm[MAX_DIMS]
    int64_t numel
    int bndim                      # the broadcast shape, before reorder / coalesce
    int64_t bshape[MAX_DIMS]
    int fast_setup
    bint is_reduction
    bint buffered                  # some operand needs a cast or staging
    int tile                       # > 0: cache-blocked over dims 0 and 1, tiles of tile x tile
    bint stream_output             # output 0 is written with non-temporal stores
    titer_loop1d loop
    titer_loop2d_fn user_loop      # not NULL: titer.api.for_each runs this instead of `loop`
    void *user_ctx
    Operand op[MAX_OPERANDS]

cdef struct DimCounter:
    int ndim
    const int64_t *shape
    int64_t begin
    int64_t end
    int64_t offset
    int64_t values[MAX_DIMS]

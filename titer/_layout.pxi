# Layout predicates of seed 001 on raw (ndim, shape, byte strides, itemsize).
# Pure functions, nogil, shared by the iterator's fast set-up and the public
# helpers titer.is_contiguous / is_non_overlapping_and_dense /
# suggest_memory_format.

# Dim orders for the channels-last formats, fastest dim first.
cdef int64_t CL2D_ORDER[4]
CL2D_ORDER[:] = [1, 3, 2, 0]
cdef int64_t CL3D_ORDER[5]
CL3D_ORDER[:] = [1, 4, 3, 2, 0]


cdef inline int64_t numel_of(int ndim, const int64_t *shape) noexcept nogil:
    cdef int64_t n = 1
    cdef int d
    for d in range(ndim):
        n *= shape[d]
    return n


cdef bint dense_in_order(int ndim, const int64_t *shape, const int64_t *strides,
                         int itemsize, const int64_t *order) noexcept nogil:
    """Strides equal the packed strides of `order` (fastest first); size-1
    dims are free, as in ATen's contiguity checks."""
    cdef int64_t expected = itemsize
    cdef int k
    cdef int64_t d
    for k in range(ndim):
        d = order[k]
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


cdef bint is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                          int itemsize) noexcept nogil:
    cdef int64_t order[MAX_DIMS]
    cdef int k
    if numel_of(ndim, shape) == 0:      # ATen: an empty tensor is contiguous
        return True
    for k in range(ndim):
        order[k] = ndim - 1 - k
    return dense_in_order(ndim, shape, strides, itemsize, order)


cdef bint is_channels_last(int ndim, const int64_t *shape, const int64_t *strides,
                           int itemsize) noexcept nogil:
    if ndim == 4:
        return dense_in_order(ndim, shape, strides, itemsize, CL2D_ORDER)
    if ndim == 5:
        return dense_in_order(ndim, shape, strides, itemsize, CL3D_ORDER)
    return False


cdef bint is_non_overlapping_dense(int ndim, const int64_t *shape,
                                   const int64_t *strides, int itemsize) noexcept nogil:
    """Seed 001: sort dims by stride (size < 2 last) and require packed strides."""
    cdef int64_t perm[MAX_DIMS]
    cdef int64_t required = itemsize, tmp
    cdef int i, j
    if is_c_contiguous(ndim, shape, strides, itemsize):
        return True
    if ndim == 1:
        return shape[0] < 2 or strides[0] == itemsize
    for i in range(ndim):
        perm[i] = i
    for i in range(1, ndim):                        # insertion sort, stable
        j = i
        while j > 0 and stride_before(shape, strides, perm[j], perm[j - 1]):
            tmp = perm[j]; perm[j] = perm[j - 1]; perm[j - 1] = tmp
            j -= 1
    for i in range(ndim):
        if shape[perm[i]] < 2:
            return True
        if strides[perm[i]] != required:
            return False
        required *= shape[perm[i]]
    return True


cdef inline bint stride_before(const int64_t *shape, const int64_t *strides,
                               int64_t a, int64_t b) noexcept nogil:
    if shape[a] < 2:
        return False
    if shape[b] < 2:
        return True
    return strides[a] < strides[b]


cdef bint strides_like_channels_last(int ndim, const int64_t *shape,
                                     const int64_t *strides) noexcept nogil:
    """ATen's is_channels_last_strides_{2d,3d}: the *like* test, strides in
    elements, ambiguous N111 / 1C1W cases fall back to contiguous."""
    cdef const int64_t *order
    cdef int64_t lowest = 0
    cdef int k
    cdef int64_t d
    if ndim == 4:
        order = CL2D_ORDER
    elif ndim == 5:
        order = CL3D_ORDER
    else:
        return False
    if strides[1] == 0:
        return False
    for k in range(ndim):
        d = order[k]
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:
            return False
        lowest = strides[d]
        if shape[d] > 1:
            lowest *= shape[d]
    return True


cdef void packed_strides(int ndim, const int64_t *shape, int itemsize,
                         const int64_t *order, int64_t *out) noexcept nogil:
    """Byte strides of a packed array whose dims, fastest first, are `order`."""
    cdef int64_t next_stride = itemsize
    cdef int k
    for k in range(ndim):
        out[order[k]] = next_stride
        next_stride *= shape[order[k]] if shape[order[k]] > 1 else 1


cdef void memory_extent(int ndim, const int64_t *shape, const int64_t *strides,
                        int itemsize, char *data, char **lo, char **hi) noexcept nogil:
    """[lo, hi): the bytes an array can touch."""
    cdef int64_t low = 0, high = 0
    cdef int d
    for d in range(ndim):
        if shape[d] == 0:
            lo[0] = data
            hi[0] = data
            return
        if strides[d] < 0:
            low += (shape[d] - 1) * strides[d]
        else:
            high += (shape[d] - 1) * strides[d]
    lo[0] = data + low
    hi[0] = data + high + itemsize


cdef bint arrays_may_overlap(cnp.ndarray a, cnp.ndarray b):
    """np.may_share_memory(a, b) (its default, a bounds check: the bytes the
    two can touch overlap), without its ~0.3 us of Python call."""
    cdef char *lo_a
    cdef char *hi_a
    cdef char *lo_b
    cdef char *hi_b
    memory_extent(cnp.PyArray_NDIM(a), <const int64_t *>cnp.PyArray_DIMS(a),
                  <const int64_t *>cnp.PyArray_STRIDES(a), <int>cnp.PyArray_ITEMSIZE(a),
                  <char *>cnp.PyArray_DATA(a), &lo_a, &hi_a)
    memory_extent(cnp.PyArray_NDIM(b), <const int64_t *>cnp.PyArray_DIMS(b),
                  <const int64_t *>cnp.PyArray_STRIDES(b), <int>cnp.PyArray_ITEMSIZE(b),
                  <char *>cnp.PyArray_DATA(b), &lo_b, &hi_b)
    return lo_a < hi_b and lo_b < hi_a


cdef bint has_internal_overlap(int ndim, const int64_t *shape, const int64_t *strides,
                               int itemsize) noexcept nogil:
    """True when two index tuples can reach one byte: a stride-0 (or too
    small) dim of size > 1.  Dims sorted by |stride|, each must step past the
    whole extent of the faster ones."""
    cdef int64_t order[MAX_DIMS]
    cdef int64_t absstr[MAX_DIMS]
    cdef int64_t extent = itemsize, tmp
    cdef int n = 0, i, j
    if numel_of(ndim, shape) <= 1:
        return False
    for i in range(ndim):
        if shape[i] > 1:
            absstr[n] = strides[i] if strides[i] >= 0 else -strides[i]
            order[n] = shape[i]
            n += 1
    for i in range(1, n):
        j = i
        while j > 0 and absstr[j] < absstr[j - 1]:
            tmp = absstr[j]; absstr[j] = absstr[j - 1]; absstr[j - 1] = tmp
            tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp
            j -= 1
    for i in range(n):
        if absstr[i] < extent:
            return True
        extent = absstr[i] * (order[i] - 1) + extent
    return False

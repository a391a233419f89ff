# The last reduction each op ran, kept for the next call with the same
# layout (issue: per-call cost).  A repeat of that call -- same op, input
# dtype object, shape and strides, same axis, dtype= and keepdims, and an
# `out` of the same dtype and layout or none -- skips dtype resolution, the
# identity, the output layout and build_plan: only the data pointers change,
# and what depends on them (alignment, `out` overlapping the input) is
# checked again.  Calls with where=, initial=, conversions of the input or of
# `out`, or an empty input or result always take the full path.
#
# A cached entry is never changed after it is made; storing replaces the
# op's entry as a whole, so a thread reading it never sees half of one.

cdef class ReducePlan:
    cdef object x_descr           # the input's dtype object, compared by identity
    cdef object dtype_arg         # the dtype= argument, compared by identity
    cdef object axis_arg          # None, an int or a tuple of ints
    cdef bint keepdims
    cdef bint has_out             # the call gave `out` (else the result is allocated)
    cdef object out_descr
    cdef cnp.dtype loop_dtype
    cdef bint quiet_invalid
    cdef int x_nd, res_nd
    cdef int64_t x_shape[CACHE_MAX_DIMS]
    cdef int64_t x_strides[CACHE_MAX_DIMS]
    cdef int64_t res_shape[CACHE_MAX_DIMS]     # the result's (or out's) layout
    cdef int64_t res_strides[CACHE_MAX_DIMS]
    # The plan's first byte minus the array's data pointer: zero while
    # build_plan flips no dims, kept so that a plan starting elsewhere stays right.
    cdef int64_t in_offset, out_offset
    cdef titer_reduction r                     # data pointers filled per call


cdef bint _plain_axis(axis):
    """Axis arguments whose equality is cheap and exact."""
    if axis is None or type(axis) is int:
        return True
    if type(axis) is not tuple:
        return False
    for a in <tuple>axis:
        if type(a) is not int:
            return False
    return True


cdef bint _same_layout(cnp.ndarray a, int nd, const int64_t *shape,
                       const int64_t *strides) noexcept:
    cdef int d
    if cnp.PyArray_NDIM(a) != nd:
        return False
    for d in range(nd):
        if cnp.PyArray_DIMS(a)[d] != shape[d] or cnp.PyArray_STRIDES(a)[d] != strides[d]:
            return False
    return True


cdef object reduce_cached(OpEntry entry, cnp.ndarray x, axis, dtype, out, bint keepdims):
    """The result of the cached reduction, or None when this call does not
    fit the op's cached entry."""
    cdef ReducePlan c = <ReducePlan>entry.reduce_cache
    cdef titer_reduction r
    cdef cnp.ndarray res
    cdef char *lo_x
    cdef char *hi_x
    cdef char *lo_o
    cdef char *hi_o
    cdef int bits
    if (c is None or <void *>cnp.PyArray_DESCR(x) != <void *>c.x_descr
            or dtype is not c.dtype_arg or keepdims != c.keepdims
            or not _same_layout(x, c.x_nd, c.x_shape, c.x_strides)
            or not cnp.PyArray_ISALIGNED(x)):
        return None
    if axis is not c.axis_arg and not (_plain_axis(axis) and type(axis) is type(c.axis_arg)
                                       and axis == c.axis_arg):
        return None
    if out is None:
        if c.has_out:
            return None
        cnp.Py_INCREF(c.loop_dtype)           # NewFromDescr steals a reference
        res = PyArray_NewFromDescr(<PyTypeObject *>np.ndarray, c.loop_dtype, c.res_nd,
                                   <cnp.npy_intp *>c.res_shape, <cnp.npy_intp *>c.res_strides,
                                   NULL, cnp.NPY_ARRAY_WRITEABLE, None)
    else:
        if (not c.has_out or not cnp.PyArray_Check(out)
                or <void *>cnp.PyArray_DESCR(<cnp.ndarray>out) != <void *>c.out_descr):
            return None
        res = <cnp.ndarray>out
        if (not _same_layout(res, c.res_nd, c.res_shape, c.res_strides)
                or not cnp.PyArray_ISALIGNED(res) or not cnp.PyArray_ISWRITEABLE(res)):
            return None
        memory_extent(c.x_nd, c.x_shape, c.x_strides, c.loop_dtype.itemsize,
                      <char *>cnp.PyArray_DATA(x), &lo_x, &hi_x)
        memory_extent(c.res_nd, c.res_shape, c.res_strides, c.loop_dtype.itemsize,
                      <char *>cnp.PyArray_DATA(res), &lo_o, &hi_o)
        if lo_x < hi_o and lo_o < hi_x:
            return None                 # the full path reduces into a temporary
    r = c.r
    r.in_ = <const char *>cnp.PyArray_DATA(x) + c.in_offset
    r.out = <char *>cnp.PyArray_DATA(res) + c.out_offset
    with nogil:
        bits = titer_reduce_run(&r, requested_threads(), _grain_size)
    if bits < 0:
        raise MemoryError("titer: no memory for the partial results of this reduction")
    bits = fpe_bits(bits)
    if c.quiet_invalid:
        bits &= ~8
    if bits:
        _report_fpe(bits, "reduce")
    return res


cdef void reduce_store(OpEntry entry, cnp.ndarray x, axis, dtype, out, bint keepdims,
                       cnp.dtype T, cnp.ndarray res, const titer_reduction *r,
                       bint quiet_invalid):
    """Keep this call's reduction as the op's cached one (see above); `r`
    still holds the data pointers of this call."""
    cdef ReducePlan c
    cdef int d
    if (not _plain_axis(axis) or cnp.PyArray_NDIM(x) > CACHE_MAX_DIMS
            or cnp.PyArray_NDIM(res) > CACHE_MAX_DIMS):
        return
    c = ReducePlan.__new__(ReducePlan)
    c.x_descr = <object>cnp.PyArray_DESCR(x)
    c.dtype_arg = dtype
    c.axis_arg = axis
    c.keepdims = keepdims
    c.has_out = out is not None
    c.out_descr = <object>cnp.PyArray_DESCR(res)
    c.loop_dtype = T
    c.quiet_invalid = quiet_invalid
    c.x_nd = cnp.PyArray_NDIM(x)
    for d in range(c.x_nd):
        c.x_shape[d] = cnp.PyArray_DIMS(x)[d]
        c.x_strides[d] = cnp.PyArray_STRIDES(x)[d]
    c.res_nd = cnp.PyArray_NDIM(res)
    for d in range(c.res_nd):
        c.res_shape[d] = cnp.PyArray_DIMS(res)[d]
        c.res_strides[d] = cnp.PyArray_STRIDES(res)[d]
    c.r = r[0]
    c.in_offset = r.in_ - <const char *>cnp.PyArray_DATA(x)
    c.out_offset = r.out - <char *>cnp.PyArray_DATA(res)
    entry.reduce_cache = c

# TensorIterator::build, as the seed lists it: one named step per function.
# Each step reads and writes the C Plan; `arrays` (outputs first, then
# inputs; None for an output to allocate) is the Python side it came from.

cdef struct BuildFlags:
    bint check_mem_overlap
    bint resize_outputs
    bint check_all_same_dtype
    bint promote_inputs_to_common_dtype
    bint cast_common_dtype_to_outputs
    bint enforce_safe_casting_to_output
    bint is_reduction
    bint enforce_linear_iteration
    bint copy_overlapping_inputs     # NumPy's rule (elementwise), not ATen's error
    bint has_static_shape


cdef BuildFlags aten_default_flags() noexcept:
    """TensorIteratorConfig's defaults."""
    cdef BuildFlags flags
    flags.check_mem_overlap = True
    flags.resize_outputs = True
    flags.check_all_same_dtype = True
    flags.promote_inputs_to_common_dtype = False
    flags.cast_common_dtype_to_outputs = False
    flags.enforce_safe_casting_to_output = False
    flags.is_reduction = False
    flags.enforce_linear_iteration = False
    flags.copy_overlapping_inputs = False
    flags.has_static_shape = False
    return flags


cdef BuildFlags numpy_ufunc_flags() noexcept:
    """A ufunc call: outputs never resized or broadcast, mixed dtypes fine
    (the loop dtypes come from type resolution), overlapping inputs copied."""
    cdef BuildFlags flags = aten_default_flags()
    flags.resize_outputs = False
    flags.check_all_same_dtype = False
    flags.copy_overlapping_inputs = True
    return flags


@cython.final
@cython.no_gc
@cython.freelist(8)
cdef class BuildState:
    """What build() needs beyond the C plan: the operand objects, each
    operand's original shape and strides, and dtypes for unallocated outputs.
    Python scalars live in `scalar_buf`, already in the loop's dtype."""
    cdef list arrays                # ndarray, Python scalar, or None (output to allocate)
    cdef list out_dtypes            # np.dtype per output, or None: decided by compute_types
    cdef list loop_dtypes           # np.dtype per operand the loop works in, or None
    cdef const int *loop_codes      # the same as dtype codes (elementwise), or NULL
    cdef tuple static_shape
    cdef object common_dtype
    cdef int nd[MAX_OPERANDS]
    cdef const int64_t *shapes[MAX_OPERANDS]
    cdef const int64_t *strides[MAX_OPERANDS]
    cdef bint copied_inputs         # an overlapping input was replaced by a copy
    cdef bint is_scalar[MAX_OPERANDS]
    cdef int scalar_code[MAX_OPERANDS]
    cdef double scalar_buf[MAX_OPERANDS][2]  # 16 bytes, aligned for any dtype

    def operand_shape(self, int i):
        obj = self.arrays[i]
        return obj.shape if isinstance(obj, np.ndarray) else ()


cdef BuildState plan_state(list arrays, list out_dtypes, list loop_dtypes,
                           const int *loop_codes, tuple static_shape=None):
    """A BuildState for build_plan: the operands (outputs first), the dtypes
    of outputs to allocate, the loop's dtypes and codes (None/NULL: the
    iterator decides), no Python scalars yet (store_python_scalar adds them)."""
    cdef BuildState st = BuildState.__new__(BuildState)
    cdef int i
    st.arrays = arrays
    st.out_dtypes = out_dtypes
    st.loop_dtypes = loop_dtypes
    st.loop_codes = loop_codes
    st.static_shape = static_shape
    st.copied_inputs = False
    for i in range(MAX_OPERANDS):
        st.is_scalar[i] = False
    return st


cdef BuildState cast_state(out, x, out_dtype, in_dtype, int *codes, tuple static_shape=None):
    """plan_state for one output and one input the loop reads as `in_dtype`
    and writes as `out_dtype` (copies, reductions, scans); `codes` (two ints,
    the caller's) receives their dtype codes."""
    codes[0] = dtype_code(<cnp.dtype>out_dtype)
    codes[1] = dtype_code(<cnp.dtype>in_dtype)
    return plan_state([out, x], [out_dtype], [out_dtype, in_dtype], codes, static_shape)


cdef int build_plan(Plan *p, BuildState st, BuildFlags *flags, int noutputs) except -1:
    populate_operands(p, st, flags, noutputs)
    mark_outputs(p, st)
    compute_mem_overlaps(p, st, flags)
    compute_shape(p, st, flags)
    mark_resize_outputs(p, st, flags)
    compute_types(p, st, flags)
    if not fast_set_up(p, st, flags):
        compute_strides(p, st)
        reorder_dimensions(p, flags)
        allocate_or_resize_outputs(p, st)
        coalesce_dimensions(p)
    prepare_casts(p)
    plan_cache_blocking(p)
    plan_streaming_stores(p)
    return 0


# -- populate operands ---------------------------------------------------------

cdef int populate_operands(Plan *p, BuildState st, BuildFlags *flags,
                           int noutputs) except -1:
    cdef int i, d, ntensors = len(st.arrays)
    cdef cnp.ndarray arr
    cdef Operand *op
    if ntensors > MAX_OPERANDS:
        raise ValueError("titer supports at most %d operands, got %d" % (MAX_OPERANDS, ntensors))
    p.ntensors = ntensors
    p.noutputs = noutputs
    p.is_reduction = flags.is_reduction
    p.fast_setup = FAST_NONE
    p.buffered = False
    p.loop = NULL
    p.user_loop = NULL
    for i in range(ntensors):
        op = &p.op[i]
        op.will_resize = False
        op.staged = False
        op.cast = NULL
        obj = st.arrays[i]
        if st.is_scalar[i]:
            op.is_defined = True
            op.data = <char *>st.scalar_buf[i]
            st.nd[i] = 0
            set_operand_dtype(op, DTYPES[st.scalar_code[i]])
            continue
        if obj is None:
            if i >= noutputs:
                raise TypeError("input operand %d is None" % (i - noutputs))
            op.is_defined = False
            op.data = NULL
            st.nd[i] = 0
            continue
        arr = <cnp.ndarray>obj
        op.is_defined = True
        op.data = <char *>cnp.PyArray_DATA(arr)
        st.nd[i] = cnp.PyArray_NDIM(arr)
        st.shapes[i] = <const int64_t *>cnp.PyArray_DIMS(arr)
        st.strides[i] = <const int64_t *>cnp.PyArray_STRIDES(arr)
        set_operand_dtype(op, arr.descr)
        if i < noutputs and not cnp.PyArray_ISWRITEABLE(arr):
            raise ValueError("output array is read-only")
    return 0


cdef int set_operand_dtype(Operand *op, cnp.dtype descr) except -1:
    op.dtype = dtype_code(descr)
    op.itemsize = descr.itemsize
    op.swap_unit = 0
    if not cnp.PyArray_IsNativeByteOrder(descr.byteorder):
        op.swap_unit = op.itemsize // 2 if op.dtype >= CODE_COMPLEX64 else op.itemsize
    op.loop_dtype = op.dtype
    op.loop_itemsize = op.itemsize
    return 0


# -- mark outputs ----------------------------------------------------------------

cdef int mark_outputs(Plan *p, BuildState st) except -1:
    """Operands [0, noutputs) are written; the rest are only read."""
    cdef int i
    for i in range(p.ntensors):
        p.op[i].is_output = i < p.noutputs
    return 0


# -- compute mem overlaps --------------------------------------------------------

cdef int compute_mem_overlaps(Plan *p, BuildState st, BuildFlags *flags) except -1:
    cdef int i, j
    cdef char *lo_o
    cdef char *hi_o
    cdef char *lo_i
    cdef char *hi_i
    if not flags.check_mem_overlap:
        return 0
    for i in range(p.noutputs):
        if not p.op[i].is_defined:
            continue
        if has_internal_overlap(st.nd[i], st.shapes[i], st.strides[i], p.op[i].itemsize):
            raise ValueError(
                "output operand %d has internal overlap (a stride-0 or overlapping "
                "dimension); it cannot be written element by element" % i)
        memory_extent(st.nd[i], st.shapes[i], st.strides[i], p.op[i].itemsize,
                      p.op[i].data, &lo_o, &hi_o)
        for j in range(p.noutputs, p.ntensors):
            memory_extent(st.nd[j], st.shapes[j], st.strides[j], p.op[j].itemsize,
                          p.op[j].data, &lo_i, &hi_i)
            if lo_i >= hi_o or lo_o >= hi_i or is_exact_alias(st, i, j, p):
                continue
            if flags.copy_overlapping_inputs:
                replace_input_with_copy(p, st, j)
            else:
                raise ValueError(
                    "unsupported operation: some elements of input %d and output %d "
                    "refer to a single memory location; copy the input first"
                    % (j - p.noutputs, i))
    return 0


cdef bint is_exact_alias(BuildState st, int out, int inp, Plan *p):
    """Same first byte and, over the broadcast shape, the same byte strides:
    each element is read before it is written, so no copy is needed."""
    cdef int k, d_out, d_in
    cdef int64_t s_in
    if p.op[out].data != p.op[inp].data or p.op[out].itemsize != p.op[inp].itemsize:
        return False
    if p.op[out].swap_unit != p.op[inp].swap_unit:
        return False
    for k in range(st.nd[out]):
        d_out = st.nd[out] - 1 - k
        d_in = st.nd[inp] - 1 - k
        if st.shapes[out][d_out] <= 1:
            continue
        if d_in < 0 or st.shapes[inp][d_in] == 1:
            s_in = 0
        else:
            s_in = st.strides[inp][d_in]
        if s_in != st.strides[out][d_out]:
            return False
    return True


cdef int replace_input_with_copy(Plan *p, BuildState st, int j) except -1:
    """NumPy's rule for an input that partially overlaps an output: compute
    as if the input had been copied first.  The copy runs through titer's own
    identity cast loop."""
    src = st.arrays[j]
    dst = np.empty_like(src)
    copy_into(dst, src)
    st.arrays[j] = dst
    st.copied_inputs = True
    cdef cnp.ndarray arr = <cnp.ndarray>dst
    p.op[j].data = <char *>cnp.PyArray_DATA(arr)
    st.shapes[j] = <const int64_t *>cnp.PyArray_DIMS(arr)
    st.strides[j] = <const int64_t *>cnp.PyArray_STRIDES(arr)
    set_operand_dtype(&p.op[j], arr.descr)
    return 0


# -- compute shape ---------------------------------------------------------------

cdef int compute_shape(Plan *p, BuildState st, BuildFlags *flags) except -1:
    """Broadcast the inputs (right-aligned); outputs that are not resized take
    part too, so an input may broadcast up to an output's shape but an output
    is never broadcast (NumPy's rule)."""
    cdef int i, k, ndim = 0
    cdef int64_t a, b
    if flags.has_static_shape:
        p.ndim = len(st.static_shape)
        for k in range(p.ndim):
            p.shape[k] = st.static_shape[k]
        for i in range(p.ntensors):
            if not p.op[i].is_defined:
                continue
            if st.nd[i] > p.ndim:
                raise ValueError("operand %d has %d dims, more than the static shape %s"
                                 % (i, st.nd[i], st.static_shape))
            for k in range(st.nd[i]):
                a = p.shape[p.ndim - 1 - k]
                b = st.shapes[i][st.nd[i] - 1 - k]
                if a != 1 and b != 1 and a != b:
                    raise ValueError("operand %d with shape %s does not fit the static shape %s"
                                     % (i, _shape_str(st.operand_shape(i)),
                                        _shape_str(st.static_shape)))
        return 0
    for i in range(p.noutputs, p.ntensors):
        ndim = max(ndim, st.nd[i])
    for k in range(ndim):
        p.shape[k] = 1
    for i in range(p.noutputs, p.ntensors):
        for k in range(st.nd[i]):
            a = p.shape[ndim - 1 - k]
            b = st.shapes[i][st.nd[i] - 1 - k]
            if a == 1:
                p.shape[ndim - 1 - k] = b
            elif b != 1 and b != a:
                # (a list, not a generator: a generator here made Cython
                # allocate its closure at every call of this function)
                raise ValueError("operands could not be broadcast together with shapes %s"
                                 % " ".join([_shape_str(st.operand_shape(j))
                                             for j in range(p.noutputs, p.ntensors)]))
    p.ndim = ndim
    if not flags.resize_outputs:
        for i in range(p.noutputs):
            if not p.op[i].is_defined:
                continue
            if flags.is_reduction:
                check_reduction_output(p, st, i)
            else:
                widen_to_output(p, st, i)
        if not flags.is_reduction:
            for i in range(p.noutputs):     # every output has the final shape
                if p.op[i].is_defined and st.operand_shape(i) != plan_shape(p):
                    raise ValueError("non-broadcastable output operand with shape %s doesn't "
                                     "match the broadcast shape %s"
                                     % (_shape_str(st.operand_shape(i)),
                                        _shape_str(plan_shape(p))))
    return 0


cdef int check_reduction_output(Plan *p, BuildState st, int i) except -1:
    """A reduction's output has the input's rank with 1 on reduced dims; its
    stride there becomes 0, so every reduced element lands on one slot."""
    cdef int k
    ok = st.nd[i] == p.ndim
    if ok:
        for k in range(p.ndim):
            if st.shapes[i][k] != p.shape[k] and st.shapes[i][k] != 1:
                ok = False
    if not ok:
        raise ValueError("reduction output with shape %s does not fit the input shape %s"
                         % (_shape_str(st.operand_shape(i)), _shape_str(plan_shape(p))))
    return 0


cdef int widen_to_output(Plan *p, BuildState st, int i) except -1:
    """The output's shape must be the broadcast shape or one the inputs
    broadcast up to; it becomes the iteration shape."""
    cdef int k, nd = st.nd[i]
    cdef int64_t s
    ok = nd >= p.ndim
    if ok:
        for k in range(p.ndim):
            s = p.shape[p.ndim - 1 - k]
            if s != 1 and s != st.shapes[i][nd - 1 - k]:
                ok = False
                break
    if not ok:
        raise ValueError("non-broadcastable output operand with shape %s doesn't match "
                         "the broadcast shape %s" % (_shape_str(st.operand_shape(i)),
                                                     _shape_str(plan_shape(p))))
    p.ndim = nd
    for k in range(nd):
        p.shape[k] = st.shapes[i][k]
    return 0


cdef tuple plan_shape(const Plan *p):
    return tuple([p.shape[k] for k in range(p.ndim)])


from . import _frontend     # NumPy's call semantics (its shape text here)
_shape_str = _frontend.shape_text


# -- mark resize outputs ---------------------------------------------------------

cdef int mark_resize_outputs(Plan *p, BuildState st, BuildFlags *flags) except -1:
    """A defined output of another shape is re-allocated when resizing is on
    (a NumPy array cannot grow in place); with it off compute_shape checked."""
    cdef int i, k
    p.bndim = p.ndim
    for k in range(p.ndim):
        p.bshape[k] = p.shape[k]
    if not flags.resize_outputs:
        return 0
    for i in range(p.noutputs):
        if not p.op[i].is_defined:
            continue
        if st.nd[i] != p.ndim:
            p.op[i].will_resize = True
            continue
        for k in range(p.ndim):
            if st.shapes[i][k] != p.shape[k]:
                p.op[i].will_resize = True
                break
    return 0


# -- compute types ---------------------------------------------------------------

cdef int compute_types(Plan *p, BuildState st, BuildFlags *flags) except -1:
    """Dtype of every operand, the dtype the loop sees for each, and the dtype
    of outputs still to allocate.  elementwise() passes resolved loop dtypes
    (NumPy's ufunc rules); IterConfig uses ATen's flags."""
    cdef int i
    if st.loop_dtypes is not None:
        st.common_dtype = st.loop_dtypes[p.noutputs] if p.ntensors > p.noutputs else None
        for i in range(p.noutputs):
            if not p.op[i].is_defined or p.op[i].will_resize:
                set_operand_dtype(&p.op[i], st.out_dtypes[i])
        for i in range(p.ntensors):
            p.op[i].loop_dtype = st.loop_codes[i]
            p.op[i].loop_itemsize = _ITEMSIZE[st.loop_codes[i]]
        return 0
    inputs = [st.arrays[i] for i in range(p.noutputs, p.ntensors)]
    st.common_dtype = np.result_type(*inputs) if inputs else None
    if flags.check_all_same_dtype:
        first = None
        for i in range(p.ntensors):
            if p.op[i].is_defined:
                dt = st.arrays[i].dtype
                if first is None:
                    first = dt
                elif dt != first:
                    raise TypeError("expected all operands to have the same dtype, got %s and %s"
                                    % (first, dt))
    for i in range(p.noutputs):
        if p.op[i].is_defined and not p.op[i].will_resize:
            continue
        dt = st.out_dtypes[i] if st.out_dtypes is not None else None
        if dt is None:
            dt = st.common_dtype if st.common_dtype is not None else np.dtype(np.float64)
        st.out_dtypes[i] = dt
        set_operand_dtype(&p.op[i], dt)
    if flags.promote_inputs_to_common_dtype and st.common_dtype is not None:
        for i in range(p.noutputs, p.ntensors):
            set_loop_dtype(&p.op[i], st.common_dtype)
    if flags.cast_common_dtype_to_outputs and st.common_dtype is not None:
        for i in range(p.noutputs):
            set_loop_dtype(&p.op[i], st.common_dtype)
    if flags.enforce_safe_casting_to_output and st.common_dtype is not None:
        for i in range(p.noutputs):
            if p.op[i].is_defined and not np.can_cast(st.common_dtype, st.arrays[i].dtype,
                                                      "same_kind"):
                raise TypeError("result type %s can't be cast to the desired output type %s"
                                % (st.common_dtype, st.arrays[i].dtype))
    return 0


cdef int set_loop_dtype(Operand *op, object dt) except -1:
    cdef cnp.dtype descr = <cnp.dtype>dt
    op.loop_dtype = dtype_code(descr)
    op.loop_itemsize = descr.itemsize
    return 0


# -- fast set up -----------------------------------------------------------------

cdef bint fast_set_up(Plan *p, BuildState st, BuildFlags *flags) except -1:
    """Seed 001: every operand the same shape and all contiguous, all
    channels-last, or all non-overlapping-dense with equal strides: the
    output copies that layout and the loop runs over one flat dim."""
    cdef int setup = compute_fast_setup_type(p, st, flags)
    cdef int i, k, first = -1
    cdef int64_t order[MAX_DIMS]
    cdef int64_t out_strides[MAX_DIMS]
    if setup == FAST_NONE:
        return False
    # The defined operand whose strides the outputs follow (seed: the last).
    for i in range(p.ntensors - 1, -1, -1):
        if p.op[i].is_defined and not p.op[i].will_resize:
            first = i
            break
    layout_order(p, st, setup, first, order)
    for k in range(p.ndim):
        p.perm[k] = order[k]
    for i in range(p.noutputs):
        if not p.op[i].is_defined or p.op[i].will_resize:
            if setup == FAST_NON_OVERLAPPING_DENSE:
                # ATen copies the reference operand's strides, size-1 dims too
                for k in range(p.ndim):
                    out_strides[k] = st.strides[first][k] // p.op[first].itemsize * p.op[i].itemsize
            else:
                packed_strides(p.ndim, p.shape, p.op[i].itemsize, order, out_strides)
            allocate_output(p, st, i, out_strides)
    p.fast_setup = setup
    p.numel = numel_of(p.ndim, p.shape)
    if p.ndim >= 1:
        p.shape[0] = p.numel
        p.ndim = 1
        for i in range(p.ntensors):
            p.op[i].stride[0] = p.op[i].itemsize
    return True


cdef int compute_fast_setup_type(Plan *p, BuildState st, BuildFlags *flags) noexcept:
    cdef int i, k, prev = -1
    cdef bint any_defined = False
    if flags.is_reduction or flags.has_static_shape:
        return FAST_NONE
    for i in range(p.ntensors):
        if not p.op[i].is_defined or p.op[i].will_resize:
            continue
        any_defined = True
        if st.nd[i] != p.ndim:
            return FAST_NONE
        for k in range(p.ndim):
            if st.shapes[i][k] != p.shape[k]:
                return FAST_NONE
    if not any_defined:
        return FAST_NONE
    if all_operands_have(p, st, FAST_CONTIGUOUS):
        return FAST_CONTIGUOUS
    if flags.enforce_linear_iteration:  # the other layouts walk memory, not C order
        return FAST_NONE
    if (p.ndim == 4 or p.ndim == 5) and all_operands_have(p, st, FAST_CHANNELS_LAST):
        return FAST_CHANNELS_LAST
    if not all_operands_have(p, st, FAST_NON_OVERLAPPING_DENSE):
        return FAST_NONE
    for i in range(p.ntensors - 1, -1, -1):     # ... and all with equal strides
        if not p.op[i].is_defined or p.op[i].will_resize:
            continue
        if prev >= 0:
            for k in range(p.ndim):             # size-1 dims too, as ATen compares
                if (st.strides[i][k] // p.op[i].itemsize
                        != st.strides[prev][k] // p.op[prev].itemsize):
                    return FAST_NONE
        prev = i
    return FAST_NON_OVERLAPPING_DENSE


cdef bint all_operands_have(Plan *p, BuildState st, int layout) noexcept:
    cdef int i
    cdef bint ok
    for i in range(p.ntensors):
        if not p.op[i].is_defined or p.op[i].will_resize:
            continue
        if layout == FAST_CONTIGUOUS:
            ok = is_c_contiguous(p.ndim, st.shapes[i], st.strides[i], p.op[i].itemsize)
        elif layout == FAST_CHANNELS_LAST:
            ok = is_channels_last(p.ndim, st.shapes[i], st.strides[i], p.op[i].itemsize)
        else:
            ok = is_non_overlapping_dense(p.ndim, st.shapes[i], st.strides[i], p.op[i].itemsize)
        if not ok:
            return False
    return True


cdef void layout_order(Plan *p, BuildState st, int setup, int ref, int64_t *order) noexcept:
    """Dims fastest first for a fast-setup layout (the perm it implies)."""
    cdef int k, j
    cdef int64_t tmp
    if setup == FAST_CHANNELS_LAST:
        for k in range(p.ndim):
            order[k] = CL2D_ORDER[k] if p.ndim == 4 else CL3D_ORDER[k]
        return
    for k in range(p.ndim):
        order[k] = p.ndim - 1 - k
    if setup == FAST_NON_OVERLAPPING_DENSE:
        for k in range(1, p.ndim):      # stable sort by the reference strides
            j = k
            while j > 0 and st.strides[ref][order[j]] < st.strides[ref][order[j - 1]]:
                tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp
                j -= 1


# -- compute strides -------------------------------------------------------------

cdef int compute_strides(Plan *p, BuildState st) except -1:
    """Byte strides over the broadcast shape; 0 where an operand broadcasts."""
    cdef int i, k, d, offset
    for i in range(p.ntensors):
        for k in range(p.ndim):
            p.op[i].stride[k] = 0
        if not p.op[i].is_defined or p.op[i].will_resize:
            continue
        offset = p.ndim - st.nd[i]
        for d in range(st.nd[i]):
            if st.shapes[i][d] == 1 and p.shape[offset + d] != 1:
                p.op[i].stride[offset + d] = 0
            else:
                p.op[i].stride[offset + d] = st.strides[i][d]
    return 0


# -- reorder dimensions ----------------------------------------------------------

cdef int should_swap(Plan *p, int64_t dim0, int64_t dim1) noexcept:
    """1: dim0 should come after dim1; -1: before; 0: ambiguous.  Left operand
    first, broadcast dims skipped; |stride| so reversed NumPy views sort too."""
    cdef int arg
    cdef int64_t s0, s1
    for arg in range(p.ntensors):
        if not p.op[arg].is_defined or p.op[arg].will_resize:
            continue
        s0 = p.op[arg].stride[dim0]
        s1 = p.op[arg].stride[dim1]
        if p.is_reduction and p.op[arg].is_output and (s0 == 0) != (s1 == 0):
            return 1 if s1 == 0 else -1     # reduced dims go first
        if s0 == 0 or s1 == 0:
            continue
        if s0 < 0:
            s0 = -s0
        if s1 < 0:
            s1 = -s1
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        if p.shape[dim0] > p.shape[dim1]:
            return 1
    return 0


cdef int reorder_dimensions(Plan *p, BuildFlags *flags) except -1:
    cdef int i, dim0, dim1, comparison
    cdef int64_t tmp
    for i in range(p.ndim):
        p.perm[i] = p.ndim - 1 - i
    if p.ndim > 1 and not flags.enforce_linear_iteration:
        for i in range(1, p.ndim):          # insertion sort, ambiguity keeps order
            dim1 = i
            dim0 = i - 1
            while dim0 >= 0:
                comparison = should_swap(p, p.perm[dim0], p.perm[dim1])
                if comparison > 0:
                    tmp = p.perm[dim0]; p.perm[dim0] = p.perm[dim1]; p.perm[dim1] = tmp
                    dim1 = dim0
                elif comparison < 0:
                    break
                dim0 -= 1
    permute_dimensions(p)
    return 0


cdef void permute_dimensions(Plan *p) noexcept:
    cdef int64_t tmp[MAX_DIMS]
    cdef int i, k
    for k in range(p.ndim):
        tmp[k] = p.shape[p.perm[k]]
    for k in range(p.ndim):
        p.shape[k] = tmp[k]
    for i in range(p.ntensors):
        for k in range(p.ndim):
            tmp[k] = p.op[i].stride[p.perm[k]]
        for k in range(p.ndim):
            p.op[i].stride[k] = tmp[k]


# -- allocate or resize outputs --------------------------------------------------

cdef int allocate_or_resize_outputs(Plan *p, BuildState st) except -1:
    """Outputs still to allocate get packed strides in perm order, so the
    result has the layout of the operands that decided the order."""
    cdef int i, k
    cdef int64_t next_stride
    cdef int64_t natural[MAX_DIMS]
    for i in range(p.noutputs):
        if p.op[i].is_defined and not p.op[i].will_resize:
            continue
        next_stride = p.op[i].itemsize
        for k in range(p.ndim):
            p.op[i].stride[k] = next_stride
            natural[p.perm[k]] = next_stride
            next_stride *= p.shape[k] if p.shape[k] > 1 else 1
        allocate_output(p, st, i, natural)
    p.numel = numel_of(p.ndim, p.shape)
    return 0


cdef object empty_with_strides(cnp.dtype descr, int nd, const int64_t *shape,
                               const int64_t *byte_strides):
    """A new array of `shape` with these byte strides (a packed layout)."""
    cdef cnp.npy_intp dims[MAX_DIMS]
    cdef cnp.npy_intp strides[MAX_DIMS]
    cdef int k
    for k in range(nd):
        dims[k] = shape[k]
        strides[k] = byte_strides[k]
    cnp.Py_INCREF(descr)                      # NewFromDescr steals a reference
    return PyArray_NewFromDescr(<PyTypeObject *>np.ndarray, descr, nd,
                                dims, strides, NULL, cnp.NPY_ARRAY_WRITEABLE, None)


cdef int allocate_output(Plan *p, BuildState st, int i, int64_t *natural_strides) except -1:
    """A new array with the broadcast shape and the given byte strides."""
    arr = empty_with_strides(<cnp.dtype>st.out_dtypes[i], p.bndim, p.bshape, natural_strides)
    st.arrays[i] = arr
    p.op[i].data = <char *>cnp.PyArray_DATA(<cnp.ndarray>arr)
    p.op[i].is_defined = True
    p.op[i].will_resize = False
    st.nd[i] = p.bndim
    st.shapes[i] = <const int64_t *>cnp.PyArray_DIMS(<cnp.ndarray>arr)
    st.strides[i] = <const int64_t *>cnp.PyArray_STRIDES(<cnp.ndarray>arr)
    return 0


# -- coalesce dimensions ---------------------------------------------------------

cdef void coalesce_dimensions(Plan *p) noexcept:
    """Merge dim pairs that every operand walks as one (shape0*stride0 ==
    stride1) or where either has size 1 (seed 003's worked example)."""
    cdef int prev_dim = 0, dim, i
    if p.ndim <= 1:
        return
    for dim in range(1, p.ndim):
        if can_coalesce(p, prev_dim, dim):
            if p.shape[prev_dim] == 1:
                for i in range(p.ntensors):
                    p.op[i].stride[prev_dim] = p.op[i].stride[dim]
            p.shape[prev_dim] *= p.shape[dim]
        else:
            prev_dim += 1
            if prev_dim != dim:
                for i in range(p.ntensors):
                    p.op[i].stride[prev_dim] = p.op[i].stride[dim]
                p.shape[prev_dim] = p.shape[dim]
    p.ndim = prev_dim + 1


cdef bint can_coalesce(Plan *p, int dim0, int dim1) noexcept:
    cdef int i
    if p.shape[dim0] == 1 or p.shape[dim1] == 1:
        return True
    for i in range(p.ntensors):
        if p.shape[dim0] * p.op[i].stride[dim0] != p.op[i].stride[dim1]:
            return False
    return True


# -- loop preparation ------------------------------------------------------------

cdef int prepare_casts(Plan *p) except -1:
    """Decide per operand whether the loop can read it in place, or whether
    it goes through a buffer: a dtype other than the loop's (cast), a
    byte-swapped or unaligned array (staged).  Loops never see either."""
    cdef int i, k
    cdef Operand *op
    cdef int64_t bits
    for i in range(p.ntensors):
        op = &p.op[i]
        bits = <int64_t>op.data
        for k in range(p.ndim):
            bits |= op.stride[k]
        op.aligned = (bits % alignment_of(op.dtype)) == 0
        op.staged = op.swap_unit > 1 or not op.aligned
        if op.dtype != op.loop_dtype:
            op.cast = (CAST_TABLE[op.loop_dtype][op.dtype] if op.is_output
                       else CAST_TABLE[op.dtype][op.loop_dtype])
        else:
            op.cast = NULL
        if op.staged or op.cast != NULL:
            p.buffered = True
    return 0


cdef enum:
    TILE_MIN_ELEMENTS = 1 << 16       # below this the transposes do not pay

cdef int plan_cache_blocking(Plan *p) noexcept:
    """Operands that disagree on the fastest dim (a.T + b, NCHW with NHWC):
    no order from reorder_dimensions suits them all, so dims 0 and 1 are
    walked in tiles and each operand contiguous along dim 1 instead of dim
    0 goes through a transposed tile buffer that fits in L1."""
    cdef int i, widest = 1
    cdef bint any_transposed = False, any_straight = False
    p.tile = 0
    for i in range(p.ntensors):
        p.op[i].transposed = False
    if p.ndim < 2 or p.buffered or p.numel < TILE_MIN_ELEMENTS or p.is_reduction:
        return 0
    for i in range(p.ntensors):
        widest = max(widest, p.op[i].itemsize)
        if p.op[i].stride[0] == p.op[i].itemsize:
            any_straight = True
        elif p.op[i].stride[1] == p.op[i].itemsize and p.op[i].stride[0] != 0:
            p.op[i].transposed = True
            any_transposed = True
    if not (any_transposed and any_straight):
        for i in range(p.ntensors):
            p.op[i].transposed = False
        return 0
    p.tile = 64 if widest <= 4 else 32       # a tile of each operand: <= 16 KiB
    if p.shape[0] < p.tile or p.shape[1] < p.tile:
        p.tile = 0
        for i in range(p.ntensors):
            p.op[i].transposed = False
    return 0


cdef int plan_streaming_stores(Plan *p) noexcept:
    """A dense output bigger than half the last-level cache cannot stay
    cached anyway: write it with non-temporal stores (see titer_stream.h).
    Its rows are then consecutive in memory, so each thread streams one run."""
    cdef int d
    cdef int64_t expected = p.op[0].itemsize
    p.stream_output = False
    if (p.noutputs != 1 or p.tile != 0 or p.is_reduction or p.ndim < 1
            or p.op[0].cast != NULL or p.op[0].staged
            or p.numel * p.op[0].itemsize < _stream_min_bytes):
        return 0
    for d in range(p.ndim):
        if p.op[0].stride[d] != expected:
            return 0
        expected *= p.shape[d]
    p.stream_output = True
    return 0

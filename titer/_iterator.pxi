# The Python face of the iterator: IterConfig (ATen's TensorIteratorConfig),
# TensorIterator (a built plan you can inspect), the seed 001 layout helpers,
# a DimCounter wrapper for tests, and the identity copy used by build().

_FAST_SETUP_NAMES = {FAST_NONE: None, FAST_CONTIGUOUS: "contiguous",
                     FAST_CHANNELS_LAST: "channels_last",
                     FAST_NON_OVERLAPPING_DENSE: "non_overlapping_dense"}


cdef class IterConfig:
    """Collects operands and flags, then ``build()`` runs the seed's steps.

    Defaults follow ATen: check_mem_overlap, resize_outputs and
    check_all_same_dtype on; the rest off.  Outputs are added first."""
    cdef list _outputs
    cdef list _out_dtypes
    cdef list _inputs
    cdef BuildFlags flags
    cdef tuple _static_shape

    def __cinit__(self):
        self._outputs = []
        self._out_dtypes = []
        self._inputs = []
        self._static_shape = None
        self.flags = aten_default_flags()

    def add_output(self, out=None, dtype=None):
        """An output array to write, or None to allocate one (of `dtype`, or
        the common dtype of the inputs)."""
        if self._inputs:
            raise ValueError("add outputs before inputs")
        if out is not None and not isinstance(out, np.ndarray):
            raise TypeError("output must be a numpy.ndarray or None, got %s"
                            % type(out).__name__)
        self._outputs.append(out)
        self._out_dtypes.append(None if dtype is None else np.dtype(dtype))
        return self

    def add_input(self, x):
        self._inputs.append(x if isinstance(x, np.ndarray) else np.asarray(x))
        return self

    def check_mem_overlap(self, bint value=True):
        self.flags.check_mem_overlap = value
        return self

    def resize_outputs(self, bint value=True):
        self.flags.resize_outputs = value
        return self

    def check_all_same_dtype(self, bint value=True):
        self.flags.check_all_same_dtype = value
        return self

    def promote_inputs_to_common_dtype(self, bint value=True):
        self.flags.promote_inputs_to_common_dtype = value
        return self

    def cast_common_dtype_to_outputs(self, bint value=True):
        self.flags.cast_common_dtype_to_outputs = value
        return self

    def enforce_safe_casting_to_output(self, bint value=True):
        self.flags.enforce_safe_casting_to_output = value
        return self

    def is_reduction(self, bint value=True):
        self.flags.is_reduction = value
        return self

    def enforce_linear_iteration(self, bint value=True):
        self.flags.enforce_linear_iteration = value
        return self

    def declare_static_shape(self, shape, squash_dims=()):
        """Iterate over `shape` instead of the broadcast shape; dims in
        `squash_dims` become size 1 so the iterator walks all the others
        (seed 002's trick for dim-wise ops)."""
        shape = [int(s) for s in shape]
        if isinstance(squash_dims, int):
            squash_dims = (squash_dims,)
        for d in squash_dims:
            if not -len(shape) <= d < len(shape):
                raise ValueError("squash dim %d out of range for %d dims" % (d, len(shape)))
            shape[d] = 1
        self._static_shape = tuple(shape)
        self.flags.has_static_shape = True
        self.flags.resize_outputs = False
        return self

    def build(self):
        cdef TensorIterator it = TensorIterator.__new__(TensorIterator)
        if not self._outputs and not self._inputs:
            raise ValueError("an iterator needs at least one operand")
        cdef BuildState st = plan_state(list(self._outputs) + list(self._inputs),
                                        list(self._out_dtypes), None, NULL, self._static_shape)
        it.plan = <Plan *>calloc(1, sizeof(Plan))
        if it.plan == NULL:
            raise MemoryError()
        build_plan(it.plan, st, &self.flags, len(self._outputs))
        it.arrays = st.arrays
        it.broadcast_shape = tuple([it.plan.bshape[k] for k in range(it.plan.bndim)])
        it.common = st.common_dtype
        return it


cdef class TensorIterator:
    """A built plan: coalesced shape, byte strides per operand (dim 0 is the
    fastest), the permutation that ordered the dims, and the operands."""
    cdef Plan *plan
    cdef list arrays
    cdef readonly tuple broadcast_shape
    cdef object common
    cdef object op_name

    def __dealloc__(self):
        free(self.plan)

    @property
    def ndim(self):
        return self.plan.ndim

    @property
    def shape(self):
        return plan_shape(self.plan)

    @property
    def numel(self):
        return self.plan.numel

    @property
    def ntensors(self):
        return self.plan.ntensors

    @property
    def noutputs(self):
        return self.plan.noutputs

    @property
    def common_dtype(self):
        return self.common

    @property
    def perm(self):
        """perm[i] = the original dim walked as iterator dim i (fastest first)."""
        return tuple([self.plan.perm[k] for k in range(len(self.broadcast_shape))])

    @property
    def fast_setup(self):
        return _FAST_SETUP_NAMES[self.plan.fast_setup]

    def strides(self, int i):
        """Byte strides of operand i over the coalesced dims."""
        self._check(i)
        return tuple([self.plan.op[i].stride[k] for k in range(self.plan.ndim)])

    def dtype(self, int i):
        self._check(i)
        return self.arrays[i].dtype

    def output(self, int i=0):
        if not 0 <= i < self.plan.noutputs:
            raise IndexError("output %d out of range (%d outputs)" % (i, self.plan.noutputs))
        return self.arrays[i]

    def is_contiguous(self):
        """One flat dim that every operand walks with stride == itemsize."""
        if self.plan.numel == 1:
            return True
        return self.plan.ndim == 1 and self.has_contiguous_first_dim()

    def has_contiguous_first_dim(self):
        cdef int i
        if self.plan.ndim == 0:
            return True
        for i in range(self.plan.ntensors):
            if self.plan.op[i].stride[0] != self.plan.op[i].itemsize:
                return False
        return True

    def can_use_32bit_indexing(self):
        """Every element count and byte offset fits in int32 (seed 000)."""
        cdef int i, k
        cdef int64_t max_offset
        cdef int64_t limit = 2147483647
        if self.plan.numel > limit:
            return False
        for i in range(self.plan.ntensors):
            max_offset = 1
            for k in range(self.plan.ndim):
                max_offset += (self.plan.shape[k] - 1) * abs(self.plan.op[i].stride[k])
            if max_offset > limit:
                return False
        return True

    def _check(self, int i):
        if not 0 <= i < self.plan.ntensors:
            raise IndexError("operand %d out of range (%d operands)" % (i, self.plan.ntensors))

    def loop_variant(self):
        """Which path of the 1-d loop the innermost dim takes."""
        return _loop_variant(self.plan)

    def explain(self):
        """A readable account of the plan."""
        return _explain(self.plan, self.arrays, self.broadcast_shape, self.perm,
                        self.op_name)

    def __repr__(self):
        return "<titer.TensorIterator shape=%s ntensors=%d fast_setup=%s>" % (
            self.shape, self.plan.ntensors, self.fast_setup)


cdef str _loop_variant(const Plan *p):
    cdef int i, scalars = 0
    cdef int64_t s
    if p.tile > 0:
        return "cache-blocked %dx%d tiles over dims 0 and 1 (transposed operands: %s)" % (
            p.tile, p.tile, ", ".join(str(i) for i in range(p.ntensors) if p.op[i].transposed))
    if p.buffered:
        return "buffered (cast/staged blocks of %d)" % BUFFER_BLOCK
    for i in range(p.ntensors):
        s = p.op[i].stride[0] if p.ndim >= 1 else 0
        if s == 0 and i >= p.noutputs:
            scalars += 1
        elif s != p.op[i].loop_itemsize:
            return "strided"
    if scalars == 0:
        return "contiguous"
    return "scalar operand (stride 0) + contiguous" if scalars == 1 else "strided"


cdef str _explain(const Plan *p, list arrays, tuple bshape, tuple perm, op_name):
    cdef int i
    cdef int64_t units = work_units(p.numel, _grain_size)
    cdef int nthreads = requested_threads()
    lines = ["titer.TensorIterator%s" % ("" if op_name is None else " for %s" % op_name),
             "  broadcast shape: %s" % (bshape,),
             "  fast setup:      %s" % (_FAST_SETUP_NAMES[p.fast_setup] or "none"),
             "  perm (fastest first, original dims): %s" % (perm,),
             "  coalesced shape: %s  (%d elements)" % (plan_shape(p), p.numel)]
    for i in range(p.ntensors):
        dt = arrays[i].dtype if isinstance(arrays[i], np.ndarray) else DTYPES[p.op[i].dtype]
        loop_dt = DTYPES[p.op[i].loop_dtype]
        notes = []
        if p.op[i].cast != NULL:
            notes.append("cast %s" % ("from " + str(loop_dt) if p.op[i].is_output
                                      else "to " + str(loop_dt)))
        if p.op[i].swap_unit > 1:
            notes.append("byte-swapped")
        if not p.op[i].aligned:
            notes.append("unaligned")
        lines.append("  operand %d (%s): %s, byte strides %s%s" % (
            i, "output" if p.op[i].is_output else "input", dt,
            tuple([p.op[i].stride[k] for k in range(p.ndim)]),
            ("  [" + ", ".join(notes) + "]") if notes else ""))
    lines.append("  inner loop:      %s" % _loop_variant(p))
    if units <= 1 or nthreads <= 1:
        lines.append("  threads:         serial (%d elements; grain %d, %d thread(s) asked)"
                     % (p.numel, _grain_size, nthreads))
    else:
        lines.append("  threads:         up to %d (of %d usable cores), pieces of >= %d elements "
                     "claimed dynamically (grain %d)"
                     % (min(nthreads, units, titer_usable_cores), titer_usable_cores,
                        min(_grain_size, p.numel), _grain_size))
    return "\n".join(lines)


# -- the seed 001 helpers, public ------------------------------------------------

cdef int _element_strides(cnp.ndarray x, int64_t *out) except -1:
    """Strides in elements; -1 marks one that is not a whole number of items."""
    cdef int d, itemsize = x.itemsize
    for d in range(x.ndim):
        out[d] = x.strides[d] // itemsize if x.strides[d] % itemsize == 0 else -1
    return 0


def is_contiguous(x, memory_format="contiguous"):
    """ATen's is_contiguous(memory_format): 'contiguous' (C order),
    'channels_last' (4-d NHWC) or 'channels_last_3d' (5-d NDHWC)."""
    cdef cnp.ndarray a = np.asarray(x)
    cdef const int64_t *shape = <const int64_t *>cnp.PyArray_DIMS(a)
    cdef const int64_t *strides = <const int64_t *>cnp.PyArray_STRIDES(a)
    if memory_format == "contiguous":
        return is_c_contiguous(a.ndim, shape, strides, a.itemsize)
    if memory_format == "channels_last":
        return a.ndim == 4 and is_channels_last(a.ndim, shape, strides, a.itemsize)
    if memory_format == "channels_last_3d":
        return a.ndim == 5 and is_channels_last(a.ndim, shape, strides, a.itemsize)
    raise ValueError("unknown memory format %r; expected 'contiguous', 'channels_last' "
                     "or 'channels_last_3d'" % (memory_format,))


def is_non_overlapping_and_dense(x):
    cdef cnp.ndarray a = np.asarray(x)
    return is_non_overlapping_dense(a.ndim, <const int64_t *>cnp.PyArray_DIMS(a),
                                    <const int64_t *>cnp.PyArray_STRIDES(a), a.itemsize)


def internal_overlap(x):
    """Two index tuples of x reach one byte (the build's output check), for
    titer.cuda's stand-ins of device arrays."""
    cdef cnp.ndarray a = np.asarray(x)
    return has_internal_overlap(a.ndim, <const int64_t *>cnp.PyArray_DIMS(a),
                                <const int64_t *>cnp.PyArray_STRIDES(a), a.itemsize)


def suggest_memory_format(x, exact_match=False):
    """'channels_last' / 'channels_last_3d' when the strides look like it
    (ATen's is_strides_like_channels_last, ambiguous cases -> contiguous);
    with exact_match, only when they equal the packed channels-last strides."""
    cdef cnp.ndarray a = np.asarray(x)
    cdef int64_t elem[MAX_DIMS]
    cdef int64_t packed[MAX_DIMS]
    cdef int d
    if a.ndim not in (4, 5):
        return "contiguous"
    _element_strides(a, elem)
    for d in range(a.ndim):
        if elem[d] < 0:
            return "contiguous"
    if not strides_like_channels_last(a.ndim, <const int64_t *>cnp.PyArray_DIMS(a), elem):
        return "contiguous"
    name = "channels_last" if a.ndim == 4 else "channels_last_3d"
    if not exact_match:
        return name
    cdef const int64_t *order = CL2D_ORDER
    if a.ndim == 5:
        order = CL3D_ORDER
    packed_strides(a.ndim, <const int64_t *>cnp.PyArray_DIMS(a), 1, order, packed)
    for d in range(a.ndim):
        if packed[d] != elem[d]:
            return "contiguous"
    return name


# -- DimCounter, exposed for tests and for reading along with seed 003 ------------

cdef class DimCounterView:
    """The C DimCounter over `shape` (fastest dim first) and [begin, end)."""
    cdef DimCounter counter
    cdef int64_t shape_buf[MAX_DIMS]

    def __init__(self, shape, int64_t begin, int64_t end):
        cdef int d
        if len(shape) > MAX_DIMS or len(shape) == 0:
            raise ValueError("shape must have 1 to %d dims" % MAX_DIMS)
        for d in range(len(shape)):
            self.shape_buf[d] = shape[d]
        counter_init(&self.counter, len(shape), self.shape_buf, begin, end)

    @property
    def values(self):
        return [self.counter.values[d] for d in range(self.counter.ndim)]

    @property
    def offset(self):
        return self.counter.offset

    def is_done(self):
        return self.counter.offset >= self.counter.end

    def max_2d_step(self):
        cdef int64_t step[2]
        counter_max_2d_step(&self.counter, step)
        return (step[0], step[1])

    def increment(self, step):
        cdef int64_t s[2]
        s[0] = step[0]
        s[1] = step[1]
        counter_increment(&self.counter, s)


# -- the identity copy, with dtype conversion in titer's cast loops ---------------

cdef PlanCache *_copy_cache = NULL     # the last copy's plan (_plan_cache.pxi)


cdef int copy_into(object dst, object src) except -1:
    """dst[...] = src (broadcasting src), through titer's own loops.  A
    repeated copy between native-order arrays of the same dtypes, shapes and
    strides reuses the last plan (a build costs ~1.5 us)."""
    global _copy_cache
    cdef Plan plan
    cdef int codes[2]
    cdef BuildFlags flags
    cdef BuildState st
    cdef list arrays = [dst, src]
    cdef int64_t key = -1
    if _copy_cache == NULL:
        _copy_cache = <PlanCache *>calloc(1, sizeof(PlanCache))
        if _copy_cache == NULL:
            raise MemoryError()
    if cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>dst) and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>src):
        key = (dtype_code((<cnp.ndarray>dst).descr) * NUM_TYPES
               + dtype_code((<cnp.ndarray>src).descr))
    if key >= 0 and cache_lookup(_copy_cache, key, arrays, 1):
        if not releases_gil(_copy_cache.plan.numel):
            return run_copy_plan(&_copy_cache.plan)     # in place: nobody else runs
        plan = _copy_cache.plan          # a private copy: the GIL goes
    else:
        flags = numpy_ufunc_flags()
        flags.check_mem_overlap = False         # callers copy between separate buffers
        native = dst.dtype.newbyteorder("=")
        st = cast_state(dst, src, native, native, codes)
        st.out_dtypes = [dst.dtype]
        build_plan(&plan, st, &flags, 1)
        plan.loop = COPY_TABLE[plan.op[0].loop_dtype]
        if key >= 0 and not st.copied_inputs:
            cache_store(_copy_cache, key, arrays, &plan)
    return run_copy_plan(&plan)


cdef int run_copy_plan(Plan *p) except -1:
    """Runs a copy's plan, its source's cast as the loop where that applies
    (cast_straight_into_destination), and leaves *p as it was: the copy
    cache's plan can run in place, where a private copy of it (~6 KiB)
    cost 0.16 us of a 0.34 us call."""
    cdef Operand *src = &p.op[1]
    cdef titer_loop1d loop = p.loop
    cdef bint buffered = p.buffered
    cdef titer_cast_fn cast = src.cast
    cdef int loop_dtype = src.loop_dtype
    cdef int loop_itemsize = src.loop_itemsize
    cast_straight_into_destination(p)
    try:
        return run_plan(p)
    finally:
        p.loop = loop
        p.buffered = buffered
        src.cast = cast
        src.loop_dtype = loop_dtype
        src.loop_itemsize = loop_itemsize


cdef void cast_straight_into_destination(Plan *p) noexcept:
    """A copy whose only conversion is its source's (not staged, into a plain
    destination) runs the cast itself as the loop: the destination is
    written directly instead of from a cast buffer by the identity loop."""
    cdef Operand *dst = &p.op[0]
    cdef Operand *src = &p.op[1]
    if src.cast == NULL or src.staged or dst.cast != NULL or dst.staged:
        return
    p.loop = CAST_LOOP_TABLE[src.dtype][dst.dtype]
    src.cast = NULL
    src.loop_dtype = src.dtype
    src.loop_itemsize = src.itemsize
    p.buffered = False

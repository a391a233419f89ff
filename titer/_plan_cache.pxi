# A one-entry plan cache per op (issue: per-call cost).  A repeated call with
# the same dtypes, shapes and strides reuses the built plan: only the data
# pointers change, and what depends on them (overlap between outputs and
# inputs, alignment) is checked again.  A call that allocates its outputs
# gets them in the layout the cached build gave them (cache_allocate_outputs:
# that layout follows from the inputs' shapes and strides alone).  A Python
# scalar operand is converted into the cache's own buffer on each call (the
# plan reads it there; nd -1 marks it), unless it is an int that makes a
# comparison constant, which builds.  Calls that copy overlapping inputs are
# never cached.

from libc.string cimport memcpy

cdef enum:
    CACHE_MAX_DIMS = 8

cdef struct PlanCache:
    bint valid
    int64_t key
    int ntensors
    int nd[MAX_OPERANDS]            # -1: a Python scalar, read from scalar_buf
    int64_t shapes[MAX_OPERANDS][CACHE_MAX_DIMS]
    int64_t strides[MAX_OPERANDS][CACHE_MAX_DIMS]
    double scalar_buf[MAX_OPERANDS][2]
    Plan plan


cdef bint _fits(PlanCache *c, int64_t key, list arrays, int first) except -1:
    """The cache holds a plan of this key for as many operands, and
    arrays[first:] have its operands' shapes and strides."""
    cdef int i, d
    cdef cnp.ndarray arr
    if c == NULL or not c.valid or c.key != key or c.ntensors != len(arrays):
        return False
    for i in range(first, c.ntensors):
        x = arrays[i]
        if not cnp.PyArray_Check(x):        # a Python scalar (the key says which kind)
            if c.nd[i] >= 0:
                return False
            continue
        arr = <cnp.ndarray>x
        if cnp.PyArray_NDIM(arr) != c.nd[i]:
            return False
        for d in range(c.nd[i]):
            if (cnp.PyArray_DIMS(arr)[d] != c.shapes[i][d]
                    or cnp.PyArray_STRIDES(arr)[d] != c.strides[i][d]):
                return False
    return True


cdef bint cache_lookup(PlanCache *c, int64_t key, list arrays, int noutputs) except -1:
    """True when `c.plan` fits these arrays; its data pointers are updated."""
    cdef int i
    if not _fits(c, key, arrays, 0):
        return False
    for i in range(c.ntensors):
        if c.nd[i] < 0:
            # an int past the loop's range here is a comparison's (the
            # others raised before): its constant result builds
            if python_scalar_into(<char *>c.scalar_buf[i], arrays[i], c.plan.op[i].dtype, True):
                return False
        else:
            c.plan.op[i].data = <char *>cnp.PyArray_DATA(<cnp.ndarray>arrays[i])
    if outputs_overlap_inputs(c, noutputs):
        return False
    prepare_casts(&c.plan)
    return True


cdef bint cache_allocate_outputs(PlanCache *c, int64_t key, list arrays, int noutputs,
                                list out_dtypes) except -1:
    """For a call whose outputs are None in `arrays`, with the cached plan's
    key and inputs (shapes and strides): allocates those outputs as that
    plan's build did, into `arrays`, and returns True (cache_lookup then
    takes the plan); False, allocating nothing, where the cache does not fit."""
    cdef int i
    if not _fits(c, key, arrays, noutputs):
        return False
    for i in range(noutputs):
        if arrays[i] is None:
            arrays[i] = empty_with_strides(<cnp.dtype>out_dtypes[i], c.nd[i], c.shapes[i],
                                           c.strides[i])
    return True


cdef bint outputs_overlap_inputs(PlanCache *c, int noutputs) noexcept:
    """Any output sharing bytes with an input other than as an exact alias
    (same first byte, same shape and strides) needs the full build."""
    cdef int i, j, d
    cdef char *lo_o
    cdef char *hi_o
    cdef char *lo_i
    cdef char *hi_i
    cdef bint alias
    for i in range(noutputs):
        memory_extent(c.nd[i], c.shapes[i], c.strides[i], c.plan.op[i].itemsize,
                      c.plan.op[i].data, &lo_o, &hi_o)
        for j in range(noutputs, c.ntensors):
            if c.nd[j] < 0:
                continue
            memory_extent(c.nd[j], c.shapes[j], c.strides[j], c.plan.op[j].itemsize,
                          c.plan.op[j].data, &lo_i, &hi_i)
            if lo_i >= hi_o or lo_o >= hi_i:
                continue
            alias = (c.plan.op[i].data == c.plan.op[j].data and c.nd[i] == c.nd[j]
                     and c.plan.op[i].itemsize == c.plan.op[j].itemsize)
            for d in range(c.nd[i]):
                alias = alias and c.shapes[i][d] == c.shapes[j][d] and (
                    c.shapes[i][d] <= 1 or c.strides[i][d] == c.strides[j][d])
            if not alias:
                return True
    return False


cdef void cache_store(PlanCache *c, int64_t key, list arrays, const Plan *p) noexcept:
    cdef int i, d, nd
    cdef cnp.ndarray arr
    if c == NULL:
        return
    c.valid = False
    for i in range(p.ntensors):
        if not cnp.PyArray_Check(arrays[i]):         # a Python scalar
            c.nd[i] = -1
            continue
        arr = <cnp.ndarray>arrays[i]
        nd = cnp.PyArray_NDIM(arr)
        if nd > CACHE_MAX_DIMS:
            return
        c.nd[i] = nd
        for d in range(nd):
            c.shapes[i][d] = cnp.PyArray_DIMS(arr)[d]
            c.strides[i][d] = cnp.PyArray_STRIDES(arr)[d]
    c.key = key
    c.ntensors = p.ntensors
    c.plan = p[0]
    for i in range(p.ntensors):
        if c.nd[i] < 0:
            memcpy(c.scalar_buf[i], p.op[i].data, sizeof(c.scalar_buf[i]))
            c.plan.op[i].data = <char *>c.scalar_buf[i]
    c.valid = True

# titer.reduce and its NumPy-named conveniences (sum, prod, max, min, mean,
# any, all): np.<op>.reduce semantics on the iterator's reduction mode.
# build_plan(is_reduction) orders and coalesces the dims (reduced dims have
# output stride 0); titer_reduce.h walks them with the op's own kernel,
# pairwise on every axis and split over threads on fixed pieces, so every
# thread count gives the same bits.

import operator

cdef extern from "titer_reduce.h" nogil:
    enum: TITER_PW_BLOCK
    ctypedef struct titer_reduce_kit:
        int acc_size
        int split
        void (*pairwise)(const char *p, int64_t s, int64_t n, void *acc) noexcept nogil
        void (*fold)(const char *p, int64_t s, int64_t n, void *acc) noexcept nogil
        void (*combine)(void *a, const void *b) noexcept nogil
        void (*load)(void *acc, const char *x) noexcept nogil
        void (*load_out)(void *acc, const char *x)
        void (*store)(char *out, const void *acc)
    ctypedef struct titer_rdims:
        int ndim
        int64_t shape[MAX_DIMS]
        int64_t stride[MAX_DIMS]
    ctypedef struct titer_reduction:
        const titer_reduce_kit *kit
        const char *in_ "in"
        char *out
        titer_rdims rd
        titer_rdims kd
        int64_t kout[MAX_DIMS]
        int64_t nred
        int64_t nout
        int has_init
        int init_given
        int ordered
        int rows_in_order
        char init[16]
        const char *mask
        int64_t mred[MAX_DIMS]
        int64_t mkept[MAX_DIMS]
    ctypedef struct titer_kit_entry:
        const char *op
        const char *sig
        const titer_reduce_kit *kit
    const titer_kit_entry *titer_isa_kits(int level, int *count)
    int titer_reduce_run(const titer_reduction *r, int nthreads, int64_t grain)
    int64_t titer_pw_cut(int64_t start, int64_t n, int64_t split, int64_t piece,
                         int64_t *starts, int64_t count)
    void titer_pw_join(const titer_reduce_kit *k, const char *partials, int64_t n,
                       int64_t split, int64_t piece, int64_t *leaf, void *acc)

cdef extern from "titer_reduce_buffered.h" nogil:
    ctypedef struct titer_buffering:
        titer_cast_fn hold_out
        titer_cast_fn hold_in
        int folds
    titer_buffering titer_buffering_of(const titer_reduction *r, titer_cast_fn cast,
                                       int64_t item, int64_t size, int64_t in_item,
                                       int swap_unit, int prefix)
    int titer_buffered_run(const titer_reduction *r, const titer_buffering *b, int nthreads,
                           int64_t grain)

cdef dict _KITS = {}               # (op name, type char) -> kit address
cdef dict _WIDE_KITS = {}          # (op name, input char, output char) -> kit address
# NumPy's comparison-based reductions raise no "invalid" for NaN.
_QUIET_INVALID = frozenset(["maximum", "minimum", "fmax", "fmin"])


def _init_kits():
    """The kits of the instruction-set level the loops use."""
    cdef int i, count
    cdef const titer_kit_entry *table = titer_isa_kits(_isa_level, &count)
    for i in range(count):
        sig = table[i].sig.decode()
        if sig[1:3] == "->":            # a widening kit, "i->l"
            _WIDE_KITS[(table[i].op.decode(), sig[0], sig[3])] = <uintptr_t>table[i].kit
        else:
            _KITS[(table[i].op.decode(), sig[0])] = <uintptr_t>table[i].kit


_init_kits()


cdef OpEntry _reduce_entry(name):
    """The op of a reduction or scan; its errors are the front end's."""
    cdef OpEntry entry = _OPS_BY_NAME.get(name) if type(name) is str else None
    if entry is None:
        entry = _OPS_BY_NAME[_frontend.lookup(name).name]
    if entry.nin != 2 or entry.nout != 1 or not isinstance(entry.ufunc, np.ufunc):
        _frontend.reduction_op(name)    # raises
    return entry


_normalize_axes = _frontend.normalize_axes


cdef dict _LOOP_DTYPES = {}     # _loop_dtype's answers (its resolve_dtypes: ~1 us a call)


def _loop_dtype(OpEntry entry, x_dtype, dtype, out):
    """The front end's loop dtype for np.<op>.reduce, with titer's kit for it."""
    out_dtype = out.dtype if out is not None else None
    key = None
    if dtype is None or isinstance(dtype, (str, type, np.dtype)):
        key = (entry.index, x_dtype, dtype, out_dtype)
        T = _LOOP_DTYPES.get(key)
        if T is not None:
            return T
    resolved = _frontend.reduction_loop_dtype(entry.ufunc, x_dtype, dtype, out_dtype)
    T = DTYPES[dtype_code(<cnp.dtype>resolved)]
    if (entry.name, T.char) not in _KITS:
        raise TypeError("titer has no %s reduction loop for %s" % (entry.name, T))
    if key is not None:
        if len(_LOOP_DTYPES) >= 4096:
            _LOOP_DTYPES.clear()
        _LOOP_DTYPES[key] = T
    return T


cdef bint _usable_as_is(cnp.ndarray a, T):
    """The kernels can read/write `a` directly: loop dtype, native, aligned."""
    return (a.dtype == T and a.dtype.isnative and cnp.PyArray_ISALIGNED(a))


def _keep_order_empty(shape, x, T):
    """An empty array of `shape` whose dims are laid out in x's stride order
    (NumPy's order='K'), so kept dims stay fast where x has them fast."""
    nd = len(shape)
    if nd <= 1:
        return np.empty(shape, T)
    order = _frontend.keep_order_dims(x.strides)
    base = np.empty([shape[d] for d in order], T)
    inverse = [0] * nd
    for k, d in enumerate(order):
        inverse[d] = k
    return base.transpose(inverse)


def _as_loop_input(x, T):
    """x itself when the kernels can read it, else a converted copy made by
    titer's cast loops (dtype, byte order, alignment)."""
    if _usable_as_is(x, T):
        return x
    tmp = _keep_order_empty(x.shape, x, T)
    _report_fpe(fpe_bits(copy_into(tmp, x)), "cast")
    return tmp


def _kit_and_input(OpEntry entry, xa, T, widening_ok):
    """(input the kit reads, its dtype, kit address): an input of a narrower
    type is read as it is by a widening kit; anything else the kits cannot
    read is converted first."""
    in_dtype = DTYPES[dtype_code(xa.dtype)]
    if widening_ok and in_dtype != T and xa.dtype.isnative and cnp.PyArray_ISALIGNED(xa):
        kit = _WIDE_KITS.get((entry.name, in_dtype.char, T.char), 0)
        if kit:
            return xa, in_dtype, kit
    return _as_loop_input(xa, T), T, _KITS[(entry.name, T.char)]


def _scalar_bytes(value, T):
    """A one-element array of T holding value (the identity or initial)."""
    try:
        return np.array(value).astype(T)
    except (TypeError, ValueError, OverflowError):
        return np.array(value, dtype=T)


def reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
           where=True):
    """``numpy.<name>.reduce(x, axis, dtype, out, keepdims, initial, where)``
    computed by titer (note: ``axis`` defaults to None, all axes).  A CuPy
    array reduces on its GPU (a 0-d device array for a scalar result)."""
    if not cnp.PyArray_CheckExact(x) or out is not None or where is not True:
        if _is_device(x):
            return _cuda_entry("reduce", "reduce")(name, x, axis, dtype, out, keepdims,
                                                   initial, where)
        if _is_duck(x) or _duck_out(out) or _is_duck(where):
            return _duck.reduce(reduce, name, _reduce_entry(name).ufunc, x, axis, dtype, out,
                                keepdims, initial, where)
    result = _reduce_impl(name, x, axis, dtype, out, keepdims, initial, where)
    if out is None and result.ndim == 0:
        return result[()]
    return result


cdef object _reduce_impl(name, x, axis, dtype, out, bint keepdims, initial, where):
    cdef OpEntry entry = _reduce_entry(name)
    cdef bint plain = where is True and initial is np._NoValue
    if plain and entry.reduce_cache is not None and cnp.PyArray_Check(x):
        result = reduce_cached(entry, x, axis, dtype, out, keepdims)
        if result is not None:
            return result
    xa = x if cnp.PyArray_Check(x) else np.asarray(x)
    cdef titer_reduction r
    cdef Plan plan
    cdef BuildState st
    cdef int codes[2]
    cdef int mcodes[3]
    cdef int k, bits, reduce_bits = 0
    cdef cnp.ndarray init_arr
    dtype_code(xa.dtype)
    xin = None
    ndim = xa.ndim
    masked = not (where is True)
    axes = _normalize_axes(axis, ndim)
    out = _frontend.reduction_out(out, _is_ndarray)
    if out is not None:
        dtype_code(out.dtype)
    T = _loop_dtype(entry, xa.dtype, dtype, out)
    _frontend.check_reorder(entry.spec, axes)
    keep_shape = _frontend.reduction_shape(xa.shape, axes, True)
    result_shape = keep_shape if keepdims else _frontend.reduction_shape(xa.shape, axes, False)
    if out is not None:
        _frontend.check_reduction_out(entry.name, out.shape, result_shape, out.flags.writeable)
    if masked:                  # NumPy: after the loop and out=, before initial=
        mask = np.broadcast_to(np.asarray(where, dtype=bool), xa.shape)
    nred = 1
    for d in axes:
        nred *= xa.shape[d]
    nout = 1
    for s in result_shape:
        nout *= s
    identity, init_value = _frontend.reduction_start(entry.spec, entry.ufunc, initial, masked,
                                                     nred)

    # the output in the loop dtype, keepdims-shaped
    direct = (out is not None and _usable_as_is(out, T)
              and not (entry.name == "power" and T.kind == "i")    # may raise: see accumulate
              and not arrays_may_overlap(out, xa))
    if direct:
        outk = out if keepdims else np.expand_dims(out, axes)
    else:
        outk = _keep_order_empty(keep_shape, xa, T)
    if initial is not np._NoValue and initial is not None:
        init_arr = _frontend.initial_value(initial, T)
    else:
        init_arr = _scalar_bytes(init_value, T) if init_value is not None else None
    if _frontend.reduction_discards_imaginary(entry.name, xa.dtype, T, out.dtype if out is not None
                                              else None):
        _frontend.warn_discarded_imaginary(3)

    held = None
    if nout > 0 and nred == 0:
        copy_into(outk, init_arr)
    elif nout > 0:
        bits = -2
        converts = not _usable_as_is(xa, T)
        held = None if out is None or masked else _frontend.held_output(entry.name, T, out.dtype)
        start_bits = 0
        if held is not None and init_arr is not None:
            init_arr, start_bits = _held_start(init_arr, T, held)
        if held is not None or (not masked and _frontend.sums_in_buffers(entry.name, T) and (
                converts or (ndim > 1 and (out is None or out.dtype == T)))):
            bits = _reduce_buffered(entry, xa, outk, T, init_arr, initial, converts, held)
        if bits != -2:
            reduce_bits = bits | start_bits
            _report_fpe(reduce_bits, "reduce")     # NumPy's: the conversions' flags too
        else:
            xin, in_dtype, kit = _kit_and_input(entry, xa, T, not masked)
            # an op without an identity (nor absorbing repeats of initial=) folds
            # the selected elements from initial=, reading where= as it goes
            folds_masked = masked and identity is None and entry.name not in _ops.ABSORBING
            if masked and not folds_masked:
                if xin is xa:
                    xin = _keep_order_empty(xa.shape, xa, T)
                    copy_into(xin, xa)
                # masked-out slots hold the identity (or, for ops without one,
                # the initial value: max/min-like ops absorb repeats of it)
                fill = init_arr if identity is None else _scalar_bytes(identity, T)
                elementwise("where", xin, mask, xin, fill)     # titer's loops, in place
            if folds_masked:
                mcodes[0], mcodes[1], mcodes[2] = dtype_code(T), dtype_code(in_dtype), 0
                st = plan_state([outk, xin, mask], [T], [T, in_dtype, _BOOL], mcodes)
            else:
                st = cast_state(outk, xin, T, in_dtype, codes)
            _reduction_plan(&plan, st)
            _fill_reduction(&r, &plan, <uintptr_t>kit)
            r.ordered = _frontend.folds_in_order(entry.name, T)
            r.rows_in_order = T.kind in "fc"       # NumPy adds float rows in order
            _start_value(&r, init_arr, initial)
            with nogil:
                bits = titer_reduce_run(&r, requested_threads(), _grain_size)
            _raise_loop_error()
            if bits < 0:
                raise MemoryError("titer: no memory for the partial results of this reduction")
            bits = fpe_bits(bits) | start_bits
            if entry.name in _QUIET_INVALID:
                bits &= ~8
            reduce_bits = bits
            _report_fpe(bits, "reduce")
    result = outk if keepdims else np.squeeze(outk, axis=axes)
    if plain and nout > 0 and nred > 0 and xin is xa and (out is None or direct):
        reduce_store(entry, xa, axis, dtype, out, keepdims, T,
                     result if out is None else out, &r, entry.name in _QUIET_INVALID)
    if out is not None:
        if not direct:      # a held output's write-backs are the reduction's (exact here)
            _report_fpe(fpe_bits(copy_into(out, result)) & ~reduce_bits,
                        "cast" if held is None else "reduce")
        return out
    return result


# Ops without an identity whose result a repeat of the initial value does
# not change: masked-out elements may hold it.


_BOOL = np.dtype(np.bool_)


cdef bint _orders_agree(cnp.ndarray out, cnp.ndarray x):
    """Whether out= orders the kept dims as x's strides do.  NumPy's axis
    order is an insertion sort that every operand votes on; where out and x
    disagree about two kept dims it keeps the C order between them and may
    stop short (a reduced dim can end up fastest), which titer's plan does
    not reproduce: those calls keep the plain reduction (NOTE [buffered
    reductions])."""
    kept = [d for d in range(x.ndim) if out.shape[d] > 1]
    by_x = sorted(kept, key=lambda d: abs(x.strides[d]))
    return sorted(by_x, key=lambda d: abs(out.strides[d])) == by_x


cdef struct BufferSetup:
    int best_dim                # the outer dim: the core is the dims before it
    int outer_reduce_dim        # where out='s stride turns to or from 0, else 0
    int single_x                # x's dims read with one stride


cdef BufferSetup _numpy_buffer_setup(int ndims, const int64_t *shape, const int64_t *out_stride,
                                     const int64_t *x_stride, bint out_cast, bint x_cast,
                                     int64_t size_limit) noexcept:
    """NumPy 2.4's npyiter_find_buffering_setup for a reduction's operands
    (out= the reduce operand, x read; no where=) over their coalesced dims,
    fastest first.  The core grows dim by dim while the cost (1 + the
    operands it must buffer: those it casts, and those whose single stride
    breaks) per element a buffer holds does not rise, up to the first dim
    where out='s stride turns to or from 0."""
    cdef BufferSetup setup
    cdef int idim, single_out = 1
    cdef int64_t cost = 1 + out_cast + x_cast, best_cost, size = shape[0], best_size, capped
    setup.best_dim, setup.outer_reduce_dim, setup.single_x = 0, 0, 1
    best_cost, best_size = cost, size
    for idim in range(1, ndims):
        if setup.outer_reduce_dim or (size >= size_limit and cost > 1):
            break
        if single_out == idim and out_stride[idim - 1] * shape[idim - 1] == out_stride[idim]:
            single_out += 1
        else:
            if single_out == idim and not out_cast:
                cost += 1
            if out_stride[idim] == 0 or out_stride[idim - 1] == 0:
                setup.outer_reduce_dim = idim
        if setup.single_x == idim:
            if x_stride[idim - 1] * shape[idim - 1] == x_stride[idim]:
                setup.single_x += 1
            elif not x_cast:
                cost += 1
        size *= shape[idim]
        capped = size_limit if size > size_limit and cost > 1 else size
        if cost * best_size <= best_cost * capped:
            setup.best_dim, best_cost, best_size = idim, cost, size
    return setup


cdef bint _numpy_buffers_input(int ndims, const int64_t *shape, const int64_t *out_stride,
                               const int64_t *x_stride, int64_t size_limit):
    """Whether NumPy 2.4's reduction iterator buffers an input it need not
    convert, for an output not converted, over its coalesced dims (fastest
    first) up to the first kept one: where its buffering setup
    (_numpy_buffer_setup) weighs the dims that break the operands' single
    strides (one more operand to move each) against the longer inner loops
    a buffer gives.  (A converted input is always buffered.)"""
    cdef BufferSetup setup = _numpy_buffer_setup(ndims, shape, out_stride, x_stride, False,
                                                 False, size_limit)
    cdef int best_dim = setup.best_dim, outer = setup.outer_reduce_dim, lift = 0
    if outer and best_dim == outer and (
            setup.single_x == best_dim or (x_stride[outer] == 0 and setup.single_x <= best_dim)):
        lift = 1
    return setup.single_x + lift <= best_dim


cdef int _reduce_buffered(OpEntry entry, cnp.ndarray xa, cnp.ndarray outk, T, init_arr,
                          initial, bint converts, held=None) except -1:
    """np.<add>.reduce of an input NumPy's iterator buffers (`converts` it,
    or moves it: NOTE [buffered reductions] in titer_reduce_buffered.h): the
    plan over xa as it is (its dims, as NumPy's iterator coalesces them),
    each buffer converted (byte order and alignment first) as it is summed.
    Returns
    the FP flags; -2, doing nothing, where a kept dim is the fastest (NumPy
    adds element by element, in order: the converted input's outer layout
    gives its bits) or NumPy reads an input it need not convert in place
    (_numpy_buffers_input: the plain reduction gives its bits).  `held`:
    out='s dtype, where NumPy's output buffer holds the running value in it
    between calls (NOTE [held outputs]): always cut, the accumulator rounded
    through it after each call; where a kept dim is fastest,
    _reduce_held_rows."""
    cdef titer_reduction r
    cdef titer_buffering b
    cdef Plan plan
    cdef int codes[2]
    cdef int bits, k, prefix, ndims
    cdef int64_t fastest_kept, stride
    cdef int64_t shape[MAX_DIMS]
    cdef int64_t out_stride[MAX_DIMS]
    cdef int64_t x_stride[MAX_DIMS]
    native = xa.dtype.newbyteorder("=")
    in_dtype = DTYPES[dtype_code(native)]
    swap_unit = 0
    if not (xa.dtype.isnative and cnp.PyArray_ISALIGNED(xa)):
        swap_unit = 1 if xa.dtype.isnative else (
            native.itemsize // 2 if native.kind == "c" else native.itemsize)
    _reduction_plan(&plan, cast_state(outk, xa, T, in_dtype, codes))
    _fill_reduction(&r, &plan, <uintptr_t>_KITS[(entry.name, T.char)])
    # NumPy's iteration order is by |stride| alone (titer's plan puts the
    # reduced dims first): its fastest dims are the reduced ones below every
    # kept dim's stride
    fastest_kept = -1
    for k in range(plan.ndim):
        if plan.shape[k] > 1 and plan.op[0].stride[k] != 0:
            stride = abs(plan.op[1].stride[k])
            if fastest_kept < 0 or stride < fastest_kept:
                fastest_kept = stride
    prefix = 0
    while prefix < r.rd.ndim and (fastest_kept < 0 or abs(r.rd.stride[prefix]) < fastest_kept):
        prefix += 1
    if prefix == 0 and held is not None:
        return _reduce_held_rows(entry, xa, outk, T, held, init_arr, converts)
    if held is not None and _output_buffer_reused(xa, outk, converts, r.rd.ndim > prefix):
        return -2
    if prefix == 0 or not _orders_agree(outk, xa):
        return -2
    if not converts and held is None:   # NumPy buffers it only where its cost model says so
        for k in range(prefix):     # its dims up to the first kept one
            shape[k], out_stride[k], x_stride[k] = r.rd.shape[k], 0, r.rd.stride[k]
        ndims = prefix
        for k in range(plan.ndim):
            if (ndims < MAX_DIMS and plan.shape[k] > 1 and plan.op[0].stride[k] != 0
                    and abs(plan.op[1].stride[k]) == fastest_kept):
                shape[ndims] = plan.shape[k]
                out_stride[ndims], x_stride[ndims] = plan.op[0].stride[k], plan.op[1].stride[k]
                ndims += 1
                break
        if not _numpy_buffers_input(ndims, shape, out_stride, x_stride, np.getbufsize()):
            return -2
    r.ordered = 0
    r.rows_in_order = 1
    _start_value(&r, init_arr, initial)
    b = titer_buffering_of(&r, CAST_TABLE[dtype_code(in_dtype)][dtype_code(T)], T.itemsize,
                           np.getbufsize(), in_dtype.itemsize, swap_unit, prefix)
    if held is not None:
        b.hold_out = CAST_TABLE[dtype_code(T)][dtype_code(held)]
        b.hold_in = CAST_TABLE[dtype_code(held)][dtype_code(T)]
        b.folds = not _frontend.sums_in_buffers(entry.name, T)
    with nogil:
        bits = titer_buffered_run(&r, &b, requested_threads(), _grain_size)
    _raise_loop_error()
    if bits < 0:
        raise MemoryError("titer: no memory for the buffers of this reduction")
    return fpe_bits(bits)


def _output_buffer_reused(xa, outk, bint x_cast, bint split):
    """Whether NumPy keeps a held output's buffer (NOTE [held outputs])
    across the periods of a reduction whose reduced dims a kept one splits:
    in reduce mode (_numpy_reduce_mode) its buffer is the reduced sweep (the
    core) times that kept dim (the outer one); where the whole kept dim fits
    and a reduced dim follows it, the next period finds the same output in
    a buffer it reuses unrounded."""
    if not split:
        return False
    dims, outer = _numpy_reduce_mode(xa, outk, x_cast)
    if not outer or outer + 1 >= len(dims) or dims[outer + 1][2] != 0:
        return False
    size = 1
    for n, _, _ in dims[:outer + 1]:
        size *= n
    return size <= np.getbufsize()


def _numpy_reduce_mode(xa, outk, bint x_cast):
    """(x's dims fastest first, coalesced, as (size, x stride, out stride);
    the index of the outer dim where NumPy's iterator runs a held reduction
    in its reduce mode, else 0): its buffering setup (_numpy_buffer_setup)
    with out= cast (NOTE [held outputs]), reduce mode being the dim where
    out='s stride turns to or from 0 becoming the outer one.  Only in reduce
    mode does NumPy reuse a held output's buffer (unrounded)."""
    cdef int64_t shape[MAX_DIMS]
    cdef int64_t x_stride[MAX_DIMS]
    cdef int64_t out_stride[MAX_DIMS]
    cdef BufferSetup setup
    cdef int k
    dims = sorted(((xa.shape[d], xa.strides[d], outk.strides[d] if outk.shape[d] > 1 else 0)
                   for d in range(xa.ndim) if xa.shape[d] > 1), key=lambda t: abs(t[1]))
    merged = []                 # (no negative indices: wraparound is off)
    for n, xs, os in dims:
        last = len(merged) - 1
        if last >= 0:
            m, mxs, mos = merged[last]
            if mxs * m == xs and mos * m == os:
                merged[last] = (m * n, mxs, mos)
                continue
        merged.append((n, xs, os))
    if len(merged) < 2:
        return merged, 0
    for k in range(len(merged)):
        shape[k], x_stride[k], out_stride[k] = merged[k]
    setup = _numpy_buffer_setup(len(merged), shape, out_stride, x_stride, True, x_cast,
                                np.getbufsize())
    if setup.outer_reduce_dim and setup.best_dim == setup.outer_reduce_dim:
        return merged, setup.best_dim
    return merged, 0


def _held_start(init_arr, T, held):
    """The start as NumPy's held output holds it (written into out= first):
    rounded through `held`, with that conversion's flags."""
    narrow = np.empty((), held)
    bits = copy_into(narrow, init_arr)
    start = np.empty((), T)
    bits |= copy_into(start, narrow)
    return start, fpe_bits(bits)


cdef int _reduce_held_rows(OpEntry entry, object xa, object outk, T, held,
                           init_arr, bint x_cast) except -1:
    """A held reduction (NOTE [held outputs]) whose fastest dims are kept
    ones: -2, doing nothing, where NumPy runs it in reduce mode and so
    reuses its output buffer in T until the end (_numpy_reduce_mode: the
    plain reduction's bits); else NumPy's running value rounded to `held`
    after every reduced index --
    titer's loop of the op in T over each reduced slice in NumPy's
    iteration order, into the held running value.  Returns the FP flags."""
    reduced = [d for d in range(xa.ndim) if outk.shape[d] == 1 and xa.shape[d] > 1]
    if not reduced:
        return -2
    if _numpy_reduce_mode(xa, outk, x_cast)[1]:
        return -2
    reduced.sort(key=lambda d: -abs(xa.strides[d]))         # slowest first
    acc = _keep_order_empty(outk.shape, xa, held)
    found = {}
    if init_arr is not None:
        found["start"] = copy_into(acc, init_arr)
    else:                       # NumPy copies the first slice into out= first
        found["start"] = copy_into(acc, xa[tuple(slice(0, 1) if d in reduced else slice(None)
                                                 for d in range(xa.ndim))])
    step = functools.partial(elementwise, dtype=T, casting="unsafe")
    for index in itertools.product(*[range(xa.shape[d]) for d in reduced]):
        if init_arr is None and not any(index):
            continue
        where = [slice(None)] * xa.ndim
        for d, i in zip(reduced, index):
            where[d] = slice(i, i + 1)
        for name, bits in collect_fpe(step, entry.name, acc, acc, xa[tuple(where)])[1].items():
            found[name] = found.get(name, 0) | bits
    bits = fpe_bits(found.pop("start"))
    for more in found.values():
        bits |= more
    copy_into(outk, acc)            # exact: held values are T's
    return bits


cdef int _reduction_plan(Plan *plan, BuildState st) except -1:
    """The plan of a reduction's build state: NumPy's ufunc rules, as a
    reduction, with no overlap check (the callers' outputs never overlap
    the input: an out= that does gets a fresh output, copied in after)."""
    cdef BuildFlags flags = numpy_ufunc_flags()
    flags.is_reduction = True
    flags.check_mem_overlap = False
    build_plan(plan, st, &flags, 1)
    return 0


cdef int _start_value(titer_reduction *r, init_arr, initial) except -1:
    """r's start: init_arr (initial=, or the op's identity where NumPy
    starts from it) in the kit's accumulator, else each output's first
    element; whether initial= was given."""
    r.has_init = init_arr is not None
    r.init_given = initial is not np._NoValue and initial is not None
    if r.has_init:
        r.kit.load_out(r.init, <const char *>cnp.PyArray_DATA(init_arr))
    return 0


cdef int _fill_reduction(titer_reduction *r, const Plan *p, uintptr_t kit) except -1:
    """Split the plan's dims: output stride 0 -> reduced, the rest kept."""
    cdef int k
    r.kit = <const titer_reduce_kit *>kit
    r.out = p.op[0].data
    r.in_ = p.op[1].data
    r.mask = p.op[2].data if p.ntensors == 3 else NULL     # where= of a masked fold
    r.rd.ndim = 0
    r.kd.ndim = 0
    r.nred = 1
    r.nout = 1
    for k in range(p.ndim):
        if p.shape[k] == 1:
            continue
        if p.op[0].stride[k] == 0:
            r.rd.shape[r.rd.ndim] = p.shape[k]
            r.rd.stride[r.rd.ndim] = p.op[1].stride[k]
            r.mred[r.rd.ndim] = p.op[2].stride[k] if r.mask != NULL else 0
            r.rd.ndim += 1
            r.nred *= p.shape[k]
        else:
            r.kd.shape[r.kd.ndim] = p.shape[k]
            r.kd.stride[r.kd.ndim] = p.op[1].stride[k]
            r.mkept[r.kd.ndim] = p.op[2].stride[k] if r.mask != NULL else 0
            r.kout[r.kd.ndim] = p.op[0].stride[k]
            r.kd.ndim += 1
            r.nout *= p.shape[k]
    if r.rd.ndim == 0:
        r.rd.ndim = 1
        r.rd.shape[0] = 1
        r.rd.stride[0] = 0
        r.mred[0] = 0
    return 0


# -- NumPy-named conveniences ----------------------------------------------------
# Their keywords default to np._NoValue as NumPy's do: for anything but an
# ndarray, np.sum & co. pass on only the keywords given (_duck.reduction_method).

cdef object _NO_VALUE = np._NoValue


cdef inline object _given(value, default):
    return default if value is _NO_VALUE else value


cdef inline bint _numpy_method_rules(x, out):
    """np.sum & co. look up x's own method, or an override of `out`:
    anything but an exact ndarray, a GPU array, a scalar or a sequence."""
    if cnp.PyArray_CheckExact(x):
        return out is not None and _duck_out(out)
    if _is_device(x) or isinstance(x, (list, tuple, int, float, complex, bool, np.generic)):
        return out is not None and _duck_out(out)
    return True


def sum_(x, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE,
         where=_NO_VALUE):
    """``numpy.sum``: pairwise on every axis, reproducible for any thread count."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(sum_, "sum", x, axis, dtype, out, {
            "keepdims": keepdims, "initial": initial, "where": where})
    return reduce("add", x, axis, dtype, out, _given(keepdims, False), initial,
                  _given(where, True))


def prod_(x, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE,
          where=_NO_VALUE):
    """``numpy.prod``."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(prod_, "prod", x, axis, dtype, out, {
            "keepdims": keepdims, "initial": initial, "where": where})
    return reduce("multiply", x, axis, dtype, out, _given(keepdims, False), initial,
                  _given(where, True))


def max_(x, axis=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE, where=_NO_VALUE):
    """``numpy.max``: NaN propagates."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(max_, "max", x, axis, None, out, {
            "keepdims": keepdims, "initial": initial, "where": where})
    return reduce("maximum", x, axis, None, out, _given(keepdims, False), initial,
                  _given(where, True))


def min_(x, axis=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE, where=_NO_VALUE):
    """``numpy.min``: NaN propagates."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(min_, "min", x, axis, None, out, {
            "keepdims": keepdims, "initial": initial, "where": where})
    return reduce("minimum", x, axis, None, out, _given(keepdims, False), initial,
                  _given(where, True))


def _logical(name, fallback, bint start, x, axis, out, keepdims, where):
    if name in _OPS_BY_NAME:
        return reduce(name, x, axis, np.bool_, out, keepdims, np._NoValue, where)
    # bool maximum / minimum are logical or / and
    return reduce(fallback, x, axis, np.bool_, out, keepdims, start, where)


def any_(x, axis=None, out=None, keepdims=_NO_VALUE, *, where=_NO_VALUE):
    """``numpy.any``."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(any_, "any", x, axis, None, out, {
            "keepdims": keepdims, "where": where})
    return _logical("logical_or", "maximum", False, x, axis, out, _given(keepdims, False),
                    _given(where, True))


def all_(x, axis=None, out=None, keepdims=_NO_VALUE, *, where=_NO_VALUE):
    """``numpy.all``."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(all_, "all", x, axis, None, out, {
            "keepdims": keepdims, "where": where})
    return _logical("logical_and", "minimum", True, x, axis, out, _given(keepdims, False),
                    _given(where, True))


def mean_(x, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, *, where=_NO_VALUE):
    """``numpy.mean``: the sum (float64 for integers, float32 for float16)
    divided by the count, both in titer's loops."""
    if _numpy_method_rules(x, out):
        return _duck.reduction_method(mean_, "mean", x, axis, dtype, out, {
            "keepdims": keepdims, "where": where})
    keepdims = _given(keepdims, False)
    where = _given(where, True)
    if _is_device(x):
        return _cuda_entry("reduce", "mean")(x, axis, dtype, out, keepdims, where)
    xa = x if cnp.PyArray_Check(x) else np.asarray(x)
    total = _frontend.mean(_CPU_MEAN, xa, axis, dtype, out, keepdims, where)
    if out is None and total.ndim == 0:
        return total[()]
    return total


class _CpuMean:
    """The CPU executor's primitives for the front end's mean."""
    frames = 0                          # titer.mean is compiled: no frame of its own

    @staticmethod
    def shape_dtype(x):
        return x.shape, x.dtype

    @staticmethod
    def mask(where, shape):
        return np.broadcast_to(np.asarray(where, dtype=bool), shape)

    @staticmethod
    def count(mask, axes, keepdims):
        return _reduce_impl("add", mask, axes, np.intp, None, keepdims, np._NoValue, True)

    @staticmethod
    def reduce(name, x, axes, dtype, out, keepdims, where):
        return _reduce_impl(name, x, axes, dtype, out, keepdims, np._NoValue, where)

    @staticmethod
    def minimum(count):
        if count.size == 0:
            return None
        return int(_reduce_impl("minimum", count, None, None, None, False, np._NoValue, True))

    @staticmethod
    def divide(total, count):
        elementwise("divide", total, total, count, casting="unsafe")

    @staticmethod
    def narrow(total, dtype):
        narrowed = np.empty(total.shape, dtype.newbyteorder("="))
        copy_into(narrowed, total)
        return narrowed


_CPU_MEAN = _CpuMean()

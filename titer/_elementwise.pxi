# titer.elementwise: NumPy's ufunc semantics on titer's iterator and loops.
# NumPy's dtype machinery (ufunc.resolve_dtypes, can_cast) picks the loop,
# once per signature (cached); every result element comes from titer's loops.

cdef extern from "titer_generated.h" nogil:
    void titer_fill_true(char **data, const int64_t *strides, int64_t n)
    void titer_fill_false(char **data, const int64_t *strides, int64_t n)
    void titer_fill_true_masked(char **data, const int64_t *strides, int64_t n)
    void titer_fill_false_masked(char **data, const int64_t *strides, int64_t n)
    const titer_loop1d titer_masked_loop_table[]

cdef extern from *:
    """
    int titer_loop_error = 0;   /* see titer_scalar.h: a Python error from a nogil loop */
    """
    int titer_loop_error

from . import _duck         # duck arrays (NEP 13, subclasses, Dask): see _duck.py
from . import _frontend     # NumPy's call semantics, shared with titer.cuda

_LOOP_ERRORS = {1: (ValueError, "Integers to negative integer powers are not allowed.")}

cdef enum:
    KEY_PY_INT = 14            # key codes past the 14 dtype codes
    KEY_PY_FLOAT = 15
    KEY_PY_COMPLEX = 16
    KEY_NO_OUT = 17

_COMPARISON_CONSTANTS = _frontend.COMPARISON_CONSTANTS


cdef int _raise_loop_error() except -1:
    """The Python error a nogil loop flagged (titer_loop_error), cleared."""
    global titer_loop_error
    cdef int error = titer_loop_error
    if error:
        titer_loop_error = 0
        exc_type, message = _LOOP_ERRORS[error]
        raise exc_type(message)
    return 0


cdef class OpEntry:
    """One op of the op table, with its loops keyed by signature."""
    cdef readonly str name
    cdef readonly int nin, nout, index
    cdef readonly object ufunc
    cdef readonly object spec      # its _ops.Op
    cdef readonly tuple types
    cdef dict loops                # 'ff->f' -> loop address
    cdef dict masked_loops         # 'ff->f' -> the loop under a where= mask
    cdef PlanCache *cache          # the last plan this op ran (see _plan_cache.pxi)
    cdef object reduce_cache       # the last reduction it ran (see _reduce_cache.pxi)

    def __dealloc__(self):
        free(self.cache)

    def __repr__(self):
        return "<titer op %s: %s>" % (self.name, " ".join(self.types))


cdef class Resolved:
    """The cached outcome of type resolution for one call signature."""
    cdef titer_loop1d loop
    cdef list loop_dtypes           # outputs first, then inputs
    cdef list out_dtypes
    cdef int codes[MAX_OPERANDS]       # NumPy order: inputs, then outputs
    cdef int operand_codes[MAX_OPERANDS]   # titer order: outputs, then inputs
    cdef bint discards_imaginary   # a complex value is cast to a real dtype
    cdef bint loop_error_possible  # the loop can flag a Python error (titer_loop_error)
    cdef str signature
    cdef tuple loop_in              # the inputs' loop dtypes
    cdef tuple int_bounds           # per input, the Python ints it takes (_frontend.int_bounds)
    cdef Resolved under_mask        # the same with a where= mask operand last (_masked_twin)


cdef str _SAME_KIND = "same_kind"
cdef str _ORDER_K = "K"
cdef dict _OPS_BY_NAME = {}
cdef dict _RESOLVED = {}
_CASTING_INDEX = {name: i for i, name in enumerate(_frontend.CASTINGS)}
cdef int _SAME_KIND_INDEX = _CASTING_INDEX[_SAME_KIND]


cdef inline int64_t _finish_key(int64_t operand_codes, int rule, OpEntry op):
    """A cache key: the packed operand codes, the casting rule's index, the
    op's (_init_ops: fewer than 128 ops)."""
    return (operand_codes * 8 + rule) * 128 + op.index


cdef int _rule_index(casting) except -2:
    """casting='s index in the front end's CASTINGS (part of the cache
    keys), -1 for anything else (bytes, a bad name: resolution's to judge)."""
    if casting is _SAME_KIND:
        return _SAME_KIND_INDEX
    if type(casting) is not str:
        return -1
    found = _CASTING_INDEX.get(casting)
    return -1 if found is None else <int>found


_ufunc_for = _frontend.ufunc_for


def _init_ops():
    cdef int i
    loops = {}
    masked = {}
    # the instruction-set build chosen at import (_core.pyx: _isa_level)
    cdef int count
    cdef const titer_loop_entry *table = titer_isa_loops(_isa_level, &count)
    cdef const titer_loop1d *masked_table = titer_isa_masked(_isa_level)
    for i in range(count):
        loops.setdefault(table[i].op.decode(), {})[table[i].sig.decode()] = <uintptr_t>table[i].fn
        masked.setdefault(table[i].op.decode(), {})[
            table[i].sig.decode()] = <uintptr_t>masked_table[i]
    for index, spec in enumerate(_ops.OPS):
        entry = OpEntry()
        entry.name = spec.name
        entry.nin = spec.nin
        entry.nout = spec.nout
        entry.index = index
        entry.ufunc = _ufunc_for(spec.name)
        entry.spec = spec
        entry.types = tuple(spec.types)
        entry.loops = loops[spec.name]
        entry.masked_loops = masked[spec.name]
        entry.cache = <PlanCache *>calloc(1, sizeof(PlanCache))
        if entry.cache == NULL:
            raise MemoryError()
        _OPS_BY_NAME[spec.name] = entry
        assert index < 128, "the resolution cache key holds 7 bits of op index"
        for alias in spec.aliases:
            _OPS_BY_NAME[alias] = entry


_init_ops()


def ops():
    """{name: (signature, ...)} for every supported op (aliases included)."""
    return {name: entry.types for name, entry in sorted(_OPS_BY_NAME.items())}


cdef Resolved resolve(OpEntry op, tuple in_types, list outs, dtype, casting,
                      inputs=None, bint masked=False):
    """The front end's loop choice (_frontend.resolve_loop), with titer's
    loop for it."""
    cdef Resolved res = Resolved()
    cdef int i
    found = _frontend.resolve_loop(op.spec, op.ufunc, in_types,
                                   [None if o is None else o.dtype for o in outs], dtype,
                                   casting, inputs, masked)
    res.signature = found.signature
    res.loop_in = found.loop_in
    if inputs is not None:
        res.int_bounds = _frontend.int_bounds(op.spec, inputs, found.loop_in)
    address = op.loops.get(res.signature)
    if address is None:
        raise TypeError("titer has no %s loop for %s" % (op.name, res.signature))
    for i in range(op.nin):
        res.codes[i] = dtype_code(<cnp.dtype>found.loop_in[i])
    for i in range(op.nout):
        res.codes[op.nin + i] = dtype_code(<cnp.dtype>found.loop_out[i])
    res.loop = <titer_loop1d><uintptr_t>address
    res.loop_error_possible = op.name == "power" and res.signature[0] in "bhil"
    res.out_dtypes = [DTYPES[res.codes[op.nin + i]] for i in range(op.nout)]
    res.loop_dtypes = res.out_dtypes + [DTYPES[res.codes[i]] for i in range(op.nin)]
    for i in range(op.nout):
        res.operand_codes[i] = res.codes[op.nin + i]
    for i in range(op.nin):
        res.operand_codes[op.nout + i] = res.codes[i]
    res.discards_imaginary = found.discards_imaginary
    return res


cdef bint _ints_within(tuple bounds, tuple inputs):
    """Every Python int input within the range its cached loop takes."""
    cdef Py_ssize_t i
    for i in range(len(inputs)):
        b = bounds[i]
        if b is not None and not (<tuple>b)[0] <= inputs[i] <= (<tuple>b)[1]:
            return False
    return True


cdef list normalize_out(object out, int nout):
    return _frontend.normalize_out(out, nout, _is_ndarray)


def _is_ndarray(x):
    return cnp.PyArray_Check(x)


cdef int store_python_scalar(BuildState st, int i, object value, int code,
                             bint comparing_ints) except -1:
    """Operand i is a Python scalar, held in the loop's dtype (see
    python_scalar_into); returns 1 instead when an integer array is
    compared with an int out of its range."""
    st.is_scalar[i] = True
    st.scalar_code[i] = code
    return python_scalar_into(<char *>st.scalar_buf[i], value, code, comparing_ints)


cdef int python_scalar_into(char *buf, object value, int code, bint comparing_ints) except -1:
    """Convert a Python scalar to dtype `code` in titer's cast loops (16
    bytes at buf), with NumPy's OverflowError for an int the dtype cannot
    hold.  Returns 1 instead when an integer array is compared with an int
    out of its range (`comparing_ints`)."""
    cdef int src_code
    cdef double *d = <double *>buf
    cdef int64_t *s64 = <int64_t *>buf
    cdef unsigned long long *u64 = <unsigned long long *>buf
    t = type(value)
    if t is bool:
        buf[0] = 1 if value else 0
        src_code = 0
    elif t is int and DTYPES[code].kind in "iub":
        bounds = INT_BOUNDS[code]
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            if comparing_ints:
                return 1
            _frontend.check_python_int(value, DTYPES[code])
        if value < 0:
            s64[0] = value
            src_code = 7
        else:
            u64[0] = value
            src_code = 8
    elif t is complex:
        d[0] = value.real
        d[1] = value.imag
        src_code = 13
    else:
        d[0] = float(value)
        src_code = 11
    if src_code != code:
        CAST_TABLE[src_code][code](buf, 0, buf, 0, 1)
    return 0


cdef inline bint _is_device(x):
    """The front end's is_device_array, a NumPy array answered inline."""
    if cnp.PyArray_Check(x) or isinstance(x, np.generic):
        return False
    return _frontend.is_device_array(x)


cdef inline bint _is_duck(x):
    """x is neither a plain ndarray nor a scalar nor a GPU array, and NumPy
    would not just convert it: an ndarray subclass (output wrapping) or an
    object with ``__array_ufunc__`` (NEP 13, Dask, xarray).  _duck.py takes
    those calls; the exact-type test first keeps plain calls at one check.
    A NumPy scalar's __array_ufunc__ is NumPy's own: it is read as the 0-d
    array of it, as NumPy does."""
    if cnp.PyArray_CheckExact(x):
        return False
    if cnp.PyArray_Check(x):
        return True
    if isinstance(x, np.generic):
        return False
    return hasattr(type(x), "__array_ufunc__") and not _is_device(x)


cdef bint _duck_out(out):
    """out= is a duck array (_is_duck), or a tuple holding one."""
    if isinstance(out, tuple):
        for o in out:
            if _is_duck(o):
                return True
        return False
    return out is not None and _is_duck(out)


def _duck_elementwise(OpEntry op, out, tuple inputs, dtype, casting, where, order):
    """Hand a call with a duck operand to _duck.py, with this op's ufunc."""
    return _duck.elementwise(elementwise, op.name, op.ufunc, op.nout, out, inputs,
                             {"dtype": dtype, "casting": casting, "where": where,
                              "order": order})


cdef bint _device_out(out):
    """out= is a GPU array, or a tuple holding one."""
    if isinstance(out, tuple):
        for o in out:
            if _is_device(o):
                return True
        return False
    return out is not None and _is_device(out)


def elementwise(name, out, *inputs, dtype=None, casting="same_kind", where=True,
                order="K"):
    """``numpy.<name>(*inputs, out=out, dtype=dtype, casting=casting,
    where=where, order=order)``, computed by titer.  ``out`` is None
    (allocated with the seed's output layout rule, or ``order``), an array,
    or a tuple of arrays (multi-output ops return a tuple)."""
    cdef OpEntry op
    cdef Resolved res
    cdef int i, code, nops
    cdef int64_t key
    cdef bint by_tuple, cacheable
    cdef int rule
    cdef bint py_ints = False
    cdef list arrays
    op = _OPS_BY_NAME.get(name) if type(name) is str else None
    if op is None:                      # the front end's op, or its error
        op = _OPS_BY_NAME[_frontend.lookup(name).name]
    if len(inputs) != op.nin:
        _frontend.check_arity(name, op.nin, inputs)
    if where is not True or (order is not _ORDER_K and order != _ORDER_K):
        return _elementwise_general(op, out, inputs, dtype, casting, where, order)
    nops = op.nout + op.nin
    if op.nout == 1 and (out is None or cnp.PyArray_CheckExact(out)):
        arrays = [out]
    else:
        if _device_out(out):
            return _cuda_entry("dispatch", "elementwise")(name, out, *inputs, dtype=dtype,
                                                          casting=casting)
        if _duck_out(out):
            return _duck_elementwise(op, out, inputs, dtype, casting, where, order)
        arrays = normalize_out(out, op.nout)
    arrays.extend(inputs)
    # The resolution cache key: dtype codes of every operand (or the kind of
    # Python scalar), packed in an int when nothing unusual is asked for.
    rule = _rule_index(casting)
    by_tuple = dtype is not None or rule < 0
    cacheable = not by_tuple
    key = 1                             # a leading 1: keys of different lengths differ
    for i in range(nops):
        x = arrays[i]
        t = type(x)
        if x is None:                   # an output to allocate (cache_allocate_outputs)
            key = key * 32 + KEY_NO_OUT
            continue
        elif op.nin == 1 and (t is float or t is int or t is complex):
            # a unary op reads a Python scalar as NumPy's array of it
            return _elementwise_general(op, out, inputs, dtype, casting, where, order)
        elif t is float:
            code = KEY_PY_FLOAT
        elif t is int:
            code = KEY_PY_INT
            py_ints = True
        elif t is complex:
            code = KEY_PY_COMPLEX
        elif t is bool:
            code = 0
        else:
            if not cnp.PyArray_CheckExact(x):
                if _is_device(x):
                    return _cuda_entry("dispatch", "elementwise")(
                        name, out, *inputs, dtype=dtype, casting=casting)
                if _is_duck(x):
                    return _duck_elementwise(op, out, inputs, dtype, casting, where, order)
                x = np.asarray(x)
                arrays[i] = x
            code = dtype_code((<cnp.ndarray>x).descr)
            by_tuple = by_tuple or not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x)
            key = key * 32 + code
            continue
        key = key * 32 + code
    key = _finish_key(key, max(rule, 0), op)
    cache_key = key if not by_tuple else (
        name, dtype, casting, tuple([_type_key(arrays[i]) for i in range(nops)]))
    res = _RESOLVED.get(cache_key)
    if res is None:
        in_types = tuple([_resolution_type(arrays[i]) for i in range(op.nout, nops)])
        res = resolve(op, in_types, arrays[:op.nout], dtype, casting, arrays[op.nout:])
        _RESOLVED[cache_key] = res
    elif py_ints and not _ints_within(res.int_bounds, inputs):
        _frontend.check_scalars(op.spec, inputs, res.loop_in, casting)    # raises
    if res.loop_error_possible and arrays[0] is not None:
        # The loop may stop with a Python error (integer power, negative
        # exponent): compute into a temporary so `out` is untouched then --
        # of out's broadcast shape: NumPy checks only what it computes.
        scratch = np.empty(np.broadcast_shapes(arrays[0].shape, *[np.shape(x) for x in inputs]),
                           res.out_dtypes[0])
        _build_and_run(op, [scratch] + arrays[1:], res, res.loop, False, key)
        return elementwise("where", out, True, scratch, scratch, dtype=arrays[0].dtype,
                           casting="unsafe")
    _build_and_run(op, arrays, res, res.loop, cacheable and not by_tuple, key)
    if op.nout == 1:
        result = arrays[0]
        if (<cnp.ndarray>result).ndim == 0:
            return _frontend.as_results(op.name, out, result)   # NumPy's scalar
        return result
    return _frontend.as_results(op.name, out, tuple(arrays[:op.nout]))


cdef int _build_and_run(OpEntry op, list arrays, Resolved res, titer_loop1d loop,
                        bint cacheable, int64_t key) except -1:
    """Build the plan (or take it from the op's cache), run it, report FP
    flags and loop errors.  `arrays`: outputs, inputs (and a where= mask)."""
    cdef BuildState st
    cdef Plan plan
    cdef Plan *run = &plan
    cdef BuildFlags flags
    cdef int i, flag_bits, error
    cdef int nops = len(arrays)
    cdef int constant_result = -1
    cdef double local_scalars[MAX_OPERANDS][2]
    global titer_loop_error
    if cacheable and _any_none(arrays):
        cache_allocate_outputs(op.cache, key, arrays, op.nout, res.out_dtypes)
    if cacheable and cache_lookup(op.cache, key, arrays, op.nout):
        run = &op.cache.plan
    else:
        st = plan_state(arrays, res.out_dtypes, res.loop_dtypes, res.operand_codes)
        for i in range(op.nout, nops):
            x = arrays[i]
            t = type(x)
            if t is float or t is int or t is complex or t is bool:
                if store_python_scalar(st, i, x, res.codes[i - op.nout],
                                       _frontend.compares_ints(op.name, arrays[op.nout:op.nout + op.nin])):
                    constant_result = _comparison_constant(
                        op.name, x, i - op.nout, arrays[2 * op.nout + 1 - i])
        flags = numpy_ufunc_flags()
        build_plan(&plan, st, &flags, op.nout)
        plan.loop = loop
        if constant_result >= 0 and nops > op.nout + op.nin:     # under a where= mask
            plan.loop = titer_fill_true_masked if constant_result else titer_fill_false_masked
        elif constant_result >= 0:
            plan.loop = titer_fill_true if constant_result else titer_fill_false
        elif cacheable and st.arrays is arrays and not st.copied_inputs:
            cache_store(op.cache, key, arrays, &plan)
    if run != &plan and (releases_gil(run.numel) or res.discards_imaginary):
        # a private copy where other threads may run before it does: the
        # GIL goes, or a warnings hook (Python code) runs first (its scalars
        # too: another call converts its own into the cache's buffer)
        plan = run[0]
        run = &plan
        for i in range(op.nout, nops):
            if op.cache.nd[i] < 0:
                memcpy(local_scalars[i], plan.op[i].data, sizeof(local_scalars[i]))
                plan.op[i].data = <char *>local_scalars[i]
    if res.discards_imaginary:
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=3)
    flag_bits = run_plan(run)
    _raise_loop_error()
    if flag_bits:
        _report_fpe(fpe_bits(flag_bits), op.name)
    return 0


_CUDA_ENTRIES = {}


def _cuda_entry(module, name):
    """titer.cuda.<module>.<name>, imported only when a GPU array arrives:
    importing titer never touches CUDA or CuPy.  Memoized: a GPU call's
    host time is the point of the plan cache."""
    fn = _CUDA_ENTRIES.get((module, name))
    if fn is not None:
        return fn
    import importlib
    try:
        fn = getattr(importlib.import_module(__package__ + ".cuda." + module), name)
    except ImportError as exc:
        raise ImportError("titer got a GPU array for %s but its CUDA side is unavailable "
                          "(titer.cuda.%s: %s)" % (name, module, exc)) from exc
    _CUDA_ENTRIES[(module, name)] = fn
    return fn


def _cuda_elementwise(name, out, *inputs, dtype=None, casting="same_kind", where=True,
                      order="K"):
    return _cuda_entry("dispatch", "elementwise")(name, out, *inputs, dtype=dtype,
                                                  casting=casting, where=where, order=order)


def _elementwise_general(OpEntry op, out, tuple inputs, dtype, casting, where, order):
    """where= and order= (NumPy's meaning).  order C/F/A allocates the
    outputs in that order first; a where= mask runs the op's masked loops
    (only selected elements are computed, so only they raise FP flags) into
    `out`, or into a temporary in the loop dtype then copied into `out`
    under the mask by titer's `where` loop when `out` needs a cast."""
    cdef Resolved res
    cdef int64_t key
    cdef int i, nops = op.nout + op.nin
    order = _frontend.normalize_order(order)
    where = _frontend.where_mask(where)
    if _device_out(out):
        return _cuda_elementwise(op.name, out, *inputs, dtype=dtype, casting=casting,
                                 where=where, order=order)
    if _duck_out(out) or _is_duck(where):
        return _duck_elementwise(op, out, inputs, dtype, casting, where, order)
    outs = normalize_out(out, op.nout)
    args = []
    for x in inputs:
        if cnp.PyArray_CheckExact(x):
            args.append(x)
        elif type(x) in (int, float, complex, bool):
            args.append(_frontend.scalar_operand(x, op.nin))
        elif _is_device(x):
            return _cuda_elementwise(op.name, out, *inputs, dtype=dtype, casting=casting,
                                     where=where, order=order)
        elif _is_duck(x):
            return _duck_elementwise(op, out, inputs, dtype, casting, where, order)
        else:
            args.append(np.asarray(x))
    mask = None if where is True else np.asarray(where, dtype=np.bool_)
    in_types = tuple([_resolution_type(x) for x in args])
    res = _resolve_general(op, in_types, outs, dtype, casting, args, mask is not None)
    if op.nin == 1:
        args = _frontend.object_int_operands(args, res.loop_in)
    shape = None                        # of the outputs to allocate, if any
    if _any_none(outs):
        shapes = [x.shape for x in args if cnp.PyArray_Check(x)]
        if mask is not None:
            shapes.append(mask.shape)
        given = [o for o in outs if o is not None]
        shape = given[0].shape if given else np.broadcast_shapes(*shapes)
    if order != "K" or mask is not None:
        alloc_order = order
        if order == "A":
            arrays_in = [x for x in args if cnp.PyArray_Check(x)]
            alloc_order = "F" if arrays_in and all(
                x.flags.f_contiguous and not x.flags.c_contiguous for x in arrays_in) else "C"
        elif order == "K":
            alloc_order = None          # the seed's output rule, through a plain run
        for i in range(op.nout):
            if outs[i] is None and alloc_order is not None:
                outs[i] = np.empty(shape, dtype=res.out_dtypes[i], order=alloc_order)
    if mask is None:
        result = elementwise(op.name, outs[0] if op.nout == 1 else tuple(outs), *args,
                             dtype=dtype, casting=casting)
        return _frontend.as_results(op.name, out, result)
    if _any_none(outs):     # order K with a mask: the first full-shape input's layout
        like = next((x for x in args if cnp.PyArray_Check(x) and x.shape == shape), None)
        for i in range(op.nout):
            if outs[i] is None:
                outs[i] = (np.empty_like(like, dtype=res.out_dtypes[i]) if like is not None
                           else np.empty(shape, dtype=res.out_dtypes[i]))
    targets = []
    for i in range(op.nout):
        o = outs[i]
        if (cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>o) and cnp.PyArray_ISALIGNED(<cnp.ndarray>o)
                and cnp.PyArray_ISWRITEABLE(<cnp.ndarray>o) and not res.loop_error_possible
                and o.dtype == res.out_dtypes[i]):
            targets.append(o)
        else:
            targets.append(np.empty(o.shape, dtype=res.out_dtypes[i]))
    operands = targets + args + [mask]
    key = _plain_arrays_key(op, operands, _rule_index(casting)) if dtype is None else -1
    _build_and_run(op, operands, _masked_twin(res, nops),
                   <titer_loop1d><uintptr_t>op.masked_loops[res.signature], key >= 0, key)
    for i in range(op.nout):
        if targets[i] is not outs[i]:
            elementwise("where", outs[i], mask, targets[i], outs[i],
                        dtype=outs[i].dtype, casting="unsafe")
    return _frontend.as_results(op.name, out, outs[0] if op.nout == 1 else tuple(outs))


cdef object _MASKED = object()     # marks _resolve_general's keys in _RESOLVED


cdef Resolved _resolve_general(OpEntry op, tuple in_types, list outs, dtype, casting,
                               list args, bint masked):
    """resolve() for _elementwise_general's calls, kept in _RESOLVED where no
    dtype= is asked for (a repeated where= call skips ~4 us of resolution);
    Python ints are checked against the ranges the kept loop takes, as
    elementwise() does."""
    cdef Resolved res
    if dtype is not None or type(casting) is not str:
        return resolve(op, in_types, outs, dtype, casting, args, masked)
    key = (_MASKED, op.index, in_types, tuple([None if o is None else o.dtype for o in outs]),
           casting, masked)
    res = _RESOLVED.get(key)
    if res is None:
        res = _RESOLVED[key] = resolve(op, in_types, outs, dtype, casting, args, masked)
    elif _has_python_int(in_types) and not _ints_within(res.int_bounds, tuple(args)):
        _frontend.check_scalars(op.spec, tuple(args), res.loop_in, casting)     # raises
    return res


cdef bint _any_none(list items):
    for x in items:
        if x is None:
            return True
    return False


cdef bint _has_python_int(tuple in_types):
    for t in in_types:
        if t is int:
            return True
    return False


cdef Resolved _masked_twin(Resolved res, int nops):
    """res with a where= mask (a bool operand) after its `nops` operands,
    made once per res."""
    cdef Resolved twin = res.under_mask
    cdef int i
    if twin is not None:
        return twin
    twin = Resolved()
    twin.loop = res.loop
    twin.out_dtypes = res.out_dtypes
    twin.loop_dtypes = res.loop_dtypes + [np.dtype(np.bool_)]
    twin.discards_imaginary = res.discards_imaginary
    twin.signature = res.signature
    for i in range(nops):
        twin.codes[i] = res.codes[i]
        twin.operand_codes[i] = res.operand_codes[i]
    twin.codes[nops] = 0
    twin.operand_codes[nops] = 0
    res.under_mask = twin
    return twin


cdef int64_t _plain_arrays_key(OpEntry op, list operands, int rule) except -2:
    """The plan cache's key of a call without dtype= whose operands are all
    plain native-order arrays (elementwise()'s packing: a leading 1, each
    dtype code, the casting rule's index, the op), else -1: such a call's
    plan is kept in the op's cache."""
    cdef int64_t key = 1
    if rule < 0:
        return -1
    for x in operands:
        if not cnp.PyArray_CheckExact(x) or not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x):
            return -1
        key = key * 32 + dtype_code((<cnp.ndarray>x).descr)
    return _finish_key(key, rule, op)


cdef int _comparison_constant(str name, object value, int position, object other):
    """Comparing an array with a Python int it cannot hold has one answer
    for every element (NumPy 2's rule); position 0 means the int is on the left."""
    return 1 if _frontend.comparison_constant(name, value, position, other) else 0


def _type_key(x):
    if isinstance(x, np.ndarray):
        return x.dtype
    return type(x)


_resolution_type = _frontend.resolution_type

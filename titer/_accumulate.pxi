# titer.accumulate = np.<op>.accumulate, with seed 002's restride trick: the
# scanned dim is squashed to size 1 (declare_static_shape) so the iterator
# orders and coalesces every other dim; titer_scan_run then runs a serial
# scan along the axis for each of them, in parallel over them.  Each step is
# the op's own kernel, so the result is NumPy's sequential one, bit for bit.

cdef extern from "titer_reduce_generated.h" nogil:
    ctypedef struct titer_scan_plan:
        const titer_reduce_kit *kit
        titer_loop1d rowloop
        titer_loop1d copyloop
        titer_cast_fn castrow
        int64_t tsize
        const char *in_ "in"
        char *out
        int64_t n
        int64_t is_ "is"
        int64_t os
        titer_rdims kd
        int64_t kout[MAX_DIMS]
        int64_t nout
    int titer_scan_run(const titer_scan_plan *s, int nthreads, int64_t grain)


# NOTE [1-d scans]: a scan of a 1-d native aligned array, with no dtype=
# and no out=, depends only on the op and the array's dtype: the loop dtype,
# the kit that reads the array as it is and the row loop are kept by (op,
# dtype code) in _SCANS_1D once the front end has found them, and such a
# call then goes straight to titer_scan_run (add.accumulate of 16 float64s:
# ~2.2 us through the front end, NumPy's 0.6).  Calls whose input the front
# end converts first, or whose loop may stop with an error, are not kept.
cdef dict _SCANS_1D = {}


cdef object _accumulate_1d(OpEntry entry, cnp.ndarray xa):
    """The scan of 1-d `xa` by _SCANS_1D's entry for it, or None."""
    cdef titer_scan_plan s
    cdef int code = dtype_code(xa.descr)
    hit = _SCANS_1D.get(entry.index * NUM_TYPES + code)
    if hit is None:
        return None
    T, t_code, kit, rowloop = <tuple>hit
    res = np.empty(cnp.PyArray_DIM(xa, 0), T)
    if cnp.PyArray_DIM(xa, 0) == 0:
        return res
    s.kd.ndim = 0
    s.nout = 1
    _scan_rows(&s, kit, rowloop, t_code, code, res, xa, 0)
    return _run_scan(entry, &s, res)


cdef void _scan_rows(titer_scan_plan *s, kit, rowloop, int t_code, int in_code,
                     cnp.ndarray res, cnp.ndarray xin, int axis):
    """The scan's kit and loops, and its rows along `axis` of res and xin
    (the other dims are the caller's)."""
    s.kit = <const titer_reduce_kit *><uintptr_t>kit
    s.rowloop = <titer_loop1d><uintptr_t>rowloop
    s.copyloop = COPY_TABLE[t_code]
    s.castrow = CAST_TABLE[in_code][t_code] if in_code != t_code else NULL
    s.tsize = cnp.PyArray_ITEMSIZE(res)
    s.out = <char *>cnp.PyArray_DATA(res)
    s.in_ = <const char *>cnp.PyArray_DATA(xin)
    s.n = cnp.PyArray_DIM(xin, axis)
    s.os = cnp.PyArray_STRIDE(res, axis)
    s.is_ = cnp.PyArray_STRIDE(xin, axis)


cdef object _run_scan(OpEntry entry, titer_scan_plan *s, res):
    """Runs the scan (the GIL released where it pays), reports its loop
    error and FP flags; returns res."""
    cdef int bits
    if releases_gil(s.n * s.nout):
        with nogil:
            bits = titer_scan_run(s, requested_threads(), _grain_size)
    else:
        bits = titer_scan_run(s, requested_threads(), _grain_size)
    _raise_loop_error()
    bits = fpe_bits(bits)
    if entry.name in _QUIET_INVALID:
        bits &= ~8
    _report_fpe(bits, "accumulate")
    return res


def accumulate(name, x, axis=0, dtype=None, out=None):
    """``numpy.<name>.accumulate(x, axis, dtype, out)`` computed by titer."""
    if not cnp.PyArray_CheckExact(x) or out is not None:
        if _is_device(x):
            return _cuda_entry("reduce", "accumulate")(name, x, axis, dtype, out)
        if _is_duck(x) or _duck_out(out):
            return _duck.accumulate(accumulate, name, _reduce_entry(name).ufunc, x, axis, dtype,
                                    out)
    cdef OpEntry entry = _reduce_entry(name)
    if (out is None and dtype is None and cnp.PyArray_CheckExact(x)
            and cnp.PyArray_NDIM(<cnp.ndarray>x) == 1 and (axis is None or (
                type(axis) is int and (axis == 0 or axis == -1)))
            and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x) and cnp.PyArray_ISALIGNED(<cnp.ndarray>x)):
        res = _accumulate_1d(entry, <cnp.ndarray>x)
        if res is not None:
            return res
    xa = x if cnp.PyArray_Check(x) else np.asarray(x)
    cdef titer_scan_plan s
    cdef Plan plan
    cdef BuildState st
    cdef BuildFlags flags
    cdef int codes[2]
    cdef int k
    dtype_code(xa.dtype)
    ax = _frontend.scan_axis(axis, xa.ndim)
    out = _frontend.reduction_out(out, _is_ndarray)
    if out is not None:
        dtype_code(out.dtype)
        _frontend.check_scan_out(out.shape, xa.shape, out.flags.writeable)
    T = _loop_dtype(entry, xa.dtype, dtype, out)
    discards = _frontend.reduction_discards_imaginary(entry.name, xa.dtype, T,
                                                      out.dtype if out is not None else None)
    if discards:
        _frontend.warn_discarded_imaginary(2)
    exact_alias = (out is not None and out.dtype == xa.dtype
                   and cnp.PyArray_DATA(<cnp.ndarray>out) == cnp.PyArray_DATA(<cnp.ndarray>xa)
                   and out.strides == xa.strides)
    # a loop that can stop with an error (integer powers) scans into a
    # temporary, so out= is untouched when it does
    loop_may_fail = entry.name == "power" and T.kind == "i"
    direct = (out is not None and _usable_as_is(out, T) and not loop_may_fail
              and (exact_alias or not arrays_may_overlap(out, xa)))
    res = out if direct else _keep_order_empty(xa.shape, xa, T)
    if xa.size == 0:
        return res if out is None else out
    # a widening kit reads a narrower input as it is (rows scanned side by
    # side convert a tile at a time)
    xin, in_dtype, kit = _kit_and_input(entry, xa, T, True)
    codes[0] = dtype_code(<cnp.dtype>T)
    codes[1] = dtype_code(<cnp.dtype>in_dtype)
    rowloop = entry.loops[T.char * 2 + "->" + T.char]
    if (xa.ndim == 1 and out is None and dtype is None and not loop_may_fail and not discards
            and xin is xa and xa.dtype.isnative and cnp.PyArray_ISALIGNED(<cnp.ndarray>xa)):
        _SCANS_1D[entry.index * NUM_TYPES + codes[1]] = (T, codes[0], kit, rowloop)
    s.kd.ndim = 0
    s.nout = 1
    if xa.ndim > 1:
        # the restride trick: both operands seen with the axis squashed to
        # 1, the plan orders and coalesces the other dims (a 1-d scan has
        # none: its plan, ~2 us of a tiny call, would find one row)
        squash = tuple(slice(0, 1) if d == ax else slice(None) for d in range(xa.ndim))
        st = cast_state(res[squash], xin[squash], T, in_dtype, codes,
                        tuple(1 if d == ax else xa.shape[d] for d in range(xa.ndim)))
        flags = numpy_ufunc_flags()
        flags.check_mem_overlap = False
        flags.has_static_shape = True
        build_plan(&plan, st, &flags, 1)
        for k in range(plan.ndim):
            if plan.shape[k] == 1:
                continue
            s.kd.shape[s.kd.ndim] = plan.shape[k]
            s.kd.stride[s.kd.ndim] = plan.op[1].stride[k]
            s.kout[s.kd.ndim] = plan.op[0].stride[k]
            s.kd.ndim += 1
            s.nout *= plan.shape[k]

    _scan_rows(&s, kit, rowloop, codes[0], codes[1], res, xin, ax)
    _run_scan(entry, &s, res)
    if out is not None and not direct:
        _report_fpe(fpe_bits(copy_into(out, res)), "cast")
        return out
    return res

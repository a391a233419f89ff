# Copies (seed 003): titer.copy = np.copyto (copy_ with ATen's early exits),
# titer.ascontiguous = contiguous() -> clone() -> empty_like() + copy_(),
# titer.empty_like with ATen's memory formats.  Every element goes through
# titer's cast / identity loops (byte-swapped and unaligned sources staged).

import builtins

_MEMORY_FORMATS = ("contiguous", "channels_last", "channels_last_3d", "preserve")


def _check_format(memory_format):
    if memory_format not in _MEMORY_FORMATS:
        raise ValueError("unknown memory format %r; expected one of %s"
                         % (memory_format, ", ".join(_MEMORY_FORMATS)))


def _format_order(int ndim, memory_format):
    """Dims slowest first for a packed memory format."""
    if memory_format == "channels_last":
        if ndim != 4:
            raise ValueError("channels_last needs a 4-d array, got %d-d" % ndim)
        return (0, 2, 3, 1)
    if memory_format == "channels_last_3d":
        if ndim != 5:
            raise ValueError("channels_last_3d needs a 5-d array, got %d-d" % ndim)
        return (0, 2, 3, 4, 1)
    return tuple(range(ndim))


cdef bint _in_c_order(cnp.ndarray x) noexcept:
    """x's strides are non-negative and non-increasing: the dims' order by
    stride (empty_like's sort) is already C's."""
    cdef int d
    cdef const cnp.npy_intp *strides = cnp.PyArray_STRIDES(x)
    for d in range(cnp.PyArray_NDIM(x)):
        if strides[d] < 0 or (d > 0 and strides[d] > strides[d - 1]):
            return False
    return True


def _empty_in_order(shape, dtype, order):
    if order == tuple(range(len(order))):
        return np.empty(shape, dtype)           # C order: no transposed view
    base = np.empty([shape[d] for d in order], dtype)
    inverse = [0] * len(order)
    for k, d in enumerate(order):
        inverse[d] = k
    return base.transpose(inverse)


def empty_like(x, memory_format="preserve", dtype=None):
    """ATen's empty_like: 'preserve' keeps x's strides when x is
    non-overlapping and dense, else takes suggest_memory_format(x);
    'contiguous' / 'channels_last' / 'channels_last_3d' give that layout."""
    if _is_device(x):
        return _cuda_entry("copy", "empty_like")(x, memory_format, dtype)
    xa = x if cnp.PyArray_Check(x) else np.asarray(x)
    _check_format(memory_format)
    dt = xa.dtype if dtype is None else np.dtype(dtype)
    if memory_format == "contiguous" or (
            memory_format == "preserve" and _in_c_order(xa) and is_non_overlapping_and_dense(xa)):
        return np.empty(xa.shape, dt)           # (the sort below would keep C order)
    if memory_format == "preserve":
        if is_non_overlapping_and_dense(xa) and builtins.all(s >= 0 for s in xa.strides):
            order = sorted(range(xa.ndim), key=lambda d: (-xa.strides[d], d))
            return _empty_in_order(xa.shape, dt, order)
        memory_format = suggest_memory_format(xa)
    return _empty_in_order(xa.shape, dt, _format_order(xa.ndim, memory_format))


def ascontiguous(x, memory_format="contiguous"):
    """ATen's contiguous(memory_format): x itself when it already has that
    layout, else a clone in it ('preserve': x when non-overlapping and
    dense, else a clone in its suggested format)."""
    if _is_device(x):
        return _cuda_entry("copy", "ascontiguous")(x, memory_format)
    xa = x if cnp.PyArray_Check(x) else np.asarray(x)
    _check_format(memory_format)
    if memory_format == "preserve":
        if is_non_overlapping_and_dense(xa):
            return xa
    elif memory_format == "contiguous" or xa.ndim in (4, 5):
        if is_contiguous(xa, memory_format):
            return xa
    dst = empty_like(xa, memory_format)
    if cnp.PyArray_SIZE(<cnp.ndarray>xa):
        copy_into(dst, xa)
    return dst


cdef bint _same_data(a, b):
    """ATen's is_same / is_same_data early exit: same first byte, shape,
    strides and dtype."""
    return (cnp.PyArray_DATA(<cnp.ndarray>a) == cnp.PyArray_DATA(<cnp.ndarray>b) and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype)


# NOTE [copy verdicts]: np.copyto's checks of an array source (the front
# end's check_copy, copy_discards_imaginary) depend, where src is a plain
# native-order array that broadcasts into dst's shape without dropping dims
# and dst can be written, only on the casting rule and the two dtypes.
# Their verdict for such a call is kept here by (rule, dst code, src code):
# a repeated copy skips ~0.6 us of Python-level checks, as elementwise's
# _RESOLVED skips resolution (16 float64, with the plan run in place by
# copy_into: 1.12 -> 0.19-0.25 us a call, np.copyto 0.26-0.32).  A call the
# memo does not cover, or a rule it has not yet seen pass, runs the checks.
cdef enum:
    COPY_UNCHECKED = 0, COPY_ALLOWED, COPY_ALLOWED_DISCARDING_IMAGINARY

# (a Python bool, float or complex source has a code of its own after the
# dtypes': its checks too depend on its type alone, NEP 50; an int's range
# is checked every call, so ints are not kept)
cdef enum:
    COPY_SOURCE_CODES = NUM_TYPES + 3

cdef unsigned char _copy_verdicts[5][NUM_TYPES][COPY_SOURCE_CODES]
_SCALAR_SOURCE_CODE = {bool: NUM_TYPES, float: NUM_TYPES + 1, complex: NUM_TYPES + 2}


cdef int _memo_slot(cnp.ndarray d, object src, object casting) except -2:
    """The verdict's slot for copy(d, src, casting) ((rule * NUM_TYPES + dst
    code) * COPY_SOURCE_CODES + src code), or -1 where the memo does not
    apply."""
    cdef int k, lead, src_code
    cdef int rule = _rule_index(casting)
    cdef cnp.npy_intp n
    cdef cnp.ndarray s
    if rule < 0 or not cnp.PyArray_ISWRITEABLE(d) or not cnp.PyArray_ISNOTSWAPPED(d):
        return -1
    if cnp.PyArray_CheckExact(src):
        s = <cnp.ndarray>src
        lead = cnp.PyArray_NDIM(d) - cnp.PyArray_NDIM(s)
        if lead < 0 or not cnp.PyArray_ISNOTSWAPPED(s):
            return -1
        for k in range(cnp.PyArray_NDIM(s)):     # each dim 1 or dst's (right-aligned)
            n = cnp.PyArray_DIMS(s)[k]
            if n != 1 and n != cnp.PyArray_DIMS(d)[lead + k]:
                return -1
        src_code = -1
    else:
        code = _SCALAR_SOURCE_CODE.get(type(src))
        if code is None:
            return -1
        src_code = code
    if src_code < 0:
        src_code = dtype_code(s.descr)
    return (rule * NUM_TYPES + dtype_code(d.descr)) * COPY_SOURCE_CODES + src_code


def copy(dst, src, casting="same_kind"):
    """``numpy.copyto(dst, src, casting)``: src broadcast into dst, dtype
    conversion in titer's cast loops, NumPy's warnings for NaN/inf to
    integers, overflow and inexact underflow to float16.  Returns dst."""
    cdef unsigned char *verdicts = &_copy_verdicts[0][0][0]
    cdef unsigned char verdict = COPY_UNCHECKED
    cdef int slot
    if _is_device(dst):
        return _cuda_entry("copy", "copy")(dst, src, casting)
    if not cnp.PyArray_Check(dst):
        raise TypeError("copy: dst must be a numpy.ndarray, got %s" % type(dst).__name__)
    d = dst
    slot = _memo_slot(<cnp.ndarray>d, src, casting)
    if slot >= 0:
        verdict = verdicts[slot]
    if verdict != COPY_UNCHECKED:
        s = src if cnp.PyArray_CheckExact(src) else np.asarray(src)    # (copy_scalar's)
    else:
        s = _checked_source(d, src, casting)
        verdict = (COPY_ALLOWED_DISCARDING_IMAGINARY
                   if _frontend.copy_discards_imaginary(s.dtype, d.dtype) else COPY_ALLOWED)
        if slot >= 0:
            verdicts[slot] = verdict
    if verdict == COPY_ALLOWED_DISCARDING_IMAGINARY:
        _frontend.warn_discarded_imaginary(stacklevel=1)   # an empty dst too, as NumPy
    if s is d or _same_data(s, d) or cnp.PyArray_SIZE(<cnp.ndarray>d) == 0:
        return dst
    if arrays_may_overlap(d, s):
        s = _clone(s)          # as if src were copied first (NumPy's rule)
    bits = copy_into(d, s)
    if bits:
        _report_fpe(fpe_bits(bits), "cast")
    return dst


cdef object _checked_source(d, src, casting):
    """np.copyto's checks of copy(d, src, casting), in its order (the front
    end's): src as the array to read, or the error."""
    cdef int writeable = cnp.PyArray_ISWRITEABLE(<cnp.ndarray>d)
    dtype_code(d.dtype)
    casting = _frontend.normalize_casting(casting)
    if type(src) in _frontend.PYTHON_SCALARS:
        _frontend.check_copy(d.shape, writeable, (), None, d.dtype, casting)
        return _frontend.copy_scalar(src, d.dtype, casting)
    s = src if cnp.PyArray_Check(src) else np.asarray(src)
    dtype_code(s.dtype)
    drop = _frontend.check_copy(d.shape, writeable, s.shape, s.dtype, d.dtype, casting)
    return s.reshape(s.shape[drop:]) if drop else s


cdef object _clone(x):
    dst = empty_like(x)
    copy_into(dst, x)
    return dst

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


def _empty_in_order(shape, dtype, order):
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
    if memory_format == "preserve":
        if is_non_overlapping_and_dense(xa) and builtins.all(s >= 0 for s in xa.strides):
            if xa.ndim == 0:
                return np.empty((), dt)
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
    if xa.size:
        copy_into(dst, xa)
    return dst


cdef bint _same_data(a, b):
    """ATen's is_same / is_same_data early exit: same first byte, shape,
    strides and dtype."""
    return (cnp.PyArray_DATA(<cnp.ndarray>a) == cnp.PyArray_DATA(<cnp.ndarray>b) and a.shape == b.shape
            and a.strides == b.strides and a.dtype == b.dtype)


def copy(dst, src, casting="same_kind"):
    """``numpy.copyto(dst, src, casting)``: src broadcast into dst, dtype
    conversion in titer's cast loops, NumPy's warnings for NaN/inf to
    integers, overflow and inexact underflow to float16.  Returns dst."""
    if _is_device(dst):
        return _cuda_entry("copy", "copy")(dst, src, casting)
    if not cnp.PyArray_Check(dst):
        raise TypeError("copy: dst must be a numpy.ndarray, got %s" % type(dst).__name__)
    d = dst
    writeable = cnp.PyArray_ISWRITEABLE(<cnp.ndarray>d)
    dtype_code(d.dtype)
    casting = _frontend.normalize_casting(casting)
    if type(src) in _frontend.PYTHON_SCALARS:
        _frontend.check_copy(d.shape, writeable, (), None, d.dtype, casting)
        s = _frontend.copy_scalar(src, d.dtype, casting)
    else:
        s = src if cnp.PyArray_Check(src) else np.asarray(src)
        dtype_code(s.dtype)
        drop = _frontend.check_copy(d.shape, writeable, s.shape, s.dtype, d.dtype, casting)
        if drop:
            s = s.reshape(s.shape[drop:])
    if s is d or _same_data(s, d) or cnp.PyArray_SIZE(<cnp.ndarray>d) == 0:
        return dst
    if arrays_may_overlap(d, s):
        s = _clone(s)          # as if src were copied first (NumPy's rule)
    if _frontend.copy_discards_imaginary(s.dtype, d.dtype):
        _frontend.warn_discarded_imaginary(stacklevel=1)
    _report_fpe(fpe_bits(copy_into(d, s)), "cast")
    return dst


cdef object _clone(x):
    dst = empty_like(x)
    copy_into(dst, x)
    return dst

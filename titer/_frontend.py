"""NumPy's call semantics, once, for the CPU (`_core`) and the GPU (`titer.cuda`).

Plain functions that turn the arguments of a call into what the executors
need -- the op, its loop dtypes, the outputs, the order, the axes, the loop
dtype of a reduction -- and raise every argument error with NumPy's class
and message.  NumPy resolves dtypes here (``ufunc.resolve_dtypes``,
``np.can_cast``); it never computes an element.  Nothing here touches memory:
the executors call these before their first write.

Imports only the op table: both executors import this, never the reverse.
"""
from collections import namedtuple

import numpy as np

try:
    from . import _ops
except ImportError:             # vendored without the package around it
    import _ops  # type: ignore

_exceptions = np._core._exceptions

CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_ORDERS = {"K": "K", "C": "C", "F": "F", "A": "A", "k": "K", "c": "C", "f": "F", "a": "A"}
_WEAK_DEFAULTS = {int: np.dtype(np.int64), float: np.dtype(np.float64),
                  complex: np.dtype(np.complex128)}
_WEAK_STAND_IN = {int: 0, float: 0.0, complex: 0j}   # values np.result_type treats as weak
PYTHON_SCALARS = (bool, int, float, complex)
_CHAR_OF = {np.dtype(c): c for c in _ops.TYPECHARS}

# The oracle is the NumPy titer runs with, fixes included: from NumPy 2.5
# float16 nextafter of equal x and y gives y (numpy/numpy#31472: +0 toward
# -0 is -0, as C's nextafter and NumPy's float32/float64 loops give), x
# before.  Both executors' kernels read it (titer_half_nextafter).
NUMPY_VERSION = tuple(int(part) for part in np.__version__.split(".")[:2])
HALF_NEXTAFTER_GIVES_Y = NUMPY_VERSION >= (2, 5)
# the C globals of these rules (int), as each executor sets them for its kernels
KERNEL_FLAGS = {"titer_half_nextafter_gives_y": int(HALF_NEXTAFTER_GIVES_Y)}

# Comparing an integer array with a Python int it cannot hold has one answer
# for every element (NumPy 2): op -> (answer when the array is below the int,
# when it is above).
COMPARISON_CONSTANTS = {
    "equal": (False, False), "not_equal": (True, True),
    "less": (True, False), "less_equal": (True, False),
    "greater": (False, True), "greater_equal": (False, True),
}

OBJECT_LOOP = ("titer has no object loop: NumPy would compute %s on Python objects "
               "(dtype=object) for these operands")


# --- ops -----------------------------------------------------------------------

class WhereTypes:
    """np.where is not a ufunc: its result dtype is np.result_type(x, y)
    (Python scalars weak); the condition is read as bool."""
    nin, nout = 3, 1
    __name__ = "where"

    def resolve_dtypes(self, dtypes, casting="same_kind", signature=None):
        if signature is not None and signature[3] is not None:
            result = np.dtype(signature[3])
        else:
            result = np.result_type(*[_WEAK_STAND_IN.get(t, t) for t in dtypes[1:3]])
        for t in dtypes[1:3]:
            if isinstance(t, np.dtype) and not np.can_cast(t, result, casting):
                raise TypeError("Cannot cast where() input from %r to %r with casting rule %r"
                                % (t, result, casting))
        result = result.newbyteorder("=")
        return (np.dtype(np.bool_), result, result, result)


def ufunc_for(name):
    """The dtype resolver of an op: its NumPy ufunc (titer's own for where)."""
    if name == "where":
        return WhereTypes()
    if name == "clip":
        return np._core.umath.clip
    return getattr(np, name)


def lookup(name):
    """The op-table entry for a NumPy name or alias."""
    canonical = _ops.canonical_name(name) if isinstance(name, str) else None
    if canonical is None:
        raise ValueError("titer has no operation %r; titer.ops() lists the supported ones"
                         % (name,))
    return _ops.OPS_BY_NAME[canonical]


def is_device_array(x):
    """A GPU array (the CUDA array interface, asked of the class first: on
    an array it is a property building a dict, microseconds a call for
    CuPy's), not a NumPy one: which executor runs the call."""
    return (not isinstance(x, np.ndarray)
            and (hasattr(type(x), "__cuda_array_interface__")
                 or hasattr(x, "__cuda_array_interface__")))


def check_arity(name, nin, inputs):
    if len(inputs) != nin:
        raise TypeError("%s() takes %d input(s), got %d" % (name, nin, len(inputs)))


def reduction_op(name):
    """(op, ufunc) of a reduction or scan: a binary NumPy ufunc."""
    op = lookup(name)
    ufunc = ufunc_for(op.name)
    if op.nin != 2 or op.nout != 1 or not isinstance(ufunc, np.ufunc):
        raise ValueError("reduce only supported for binary functions (%s has %d inputs, "
                         "%d outputs)" % (op.name, op.nin, op.nout))
    return op, ufunc


# --- keyword arguments ---------------------------------------------------------

def normalize_order(order):
    """'K', 'C', 'F' or 'A' (None means 'K'), with NumPy's errors."""
    if order is None:
        return "K"
    if not isinstance(order, str):
        raise TypeError("order must be str, not %s" % type(order).__name__)
    try:
        return _ORDERS[order]
    except KeyError:
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % order) from None


def normalize_casting(casting):
    """casting= as NumPy's converter reads it: a str naming a rule, or
    bytes (b'safe'), returned as the str."""
    name = casting.decode("latin-1") if isinstance(casting, bytes) else casting
    if not isinstance(name, str):
        raise TypeError("casting must be str, not %s" % type(casting).__name__)
    if name not in CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         "'unsafe' (got %r)" % casting)
    return name


def normalize_out(out, nout, is_array):
    """out= as a list of nout entries (None: allocate); `is_array(x)` says
    whether x is an array of the executor's kind."""
    if out is None:
        return [None] * nout
    if isinstance(out, tuple):
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly %d entries: one per ufunc "
                             "output" % nout)
        outs = list(out)
    else:
        if nout != 1:
            raise TypeError("'out' must be a tuple of arrays")
        outs = [out]
    for o in outs:
        if o is not None and not is_array(o):
            raise TypeError("return arrays must be of ArrayType")
    return outs


def where_mask(where):
    """where= as NumPy reads it: None and True select everything."""
    if where is None:
        return True
    return where


# --- dtype resolution ----------------------------------------------------------

def allocates(out):
    """out= asks for every output to be allocated (None, or a tuple of Nones):
    NumPy then returns a scalar for a 0-d result."""
    return out is None or (type(out) is tuple and all(o is None for o in out))


def scalar_operand(x, nin):
    """The only input of a unary op, a Python int, float or complex, is for
    NumPy the array np.asarray makes of it (int64, float64, complex128; an
    int beyond int64 uint64 or object: NumPy's object loop), cast into the
    loop like any array; the inputs of other ops stay weak (NEP 50)."""
    if nin == 1 and type(x) in _WEAK_DEFAULTS:
        return np.asarray(x)
    return x


def object_int_operands(args, loop_in):
    """A unary op's Python int beyond int64 and uint64 is NumPy's object
    array of it (scalar_operand).  Where dtype= picks a loop of numbers,
    NumPy converts that int as Python does: into an integer loop through a C
    long (OverflowError), into a float or complex loop through float() or
    complex().  The operands in the loop's terms, for either executor."""
    converted = []
    for x, loop in zip(args, loop_in):
        if (isinstance(x, np.ndarray) and x.dtype.kind == "O" and x.ndim == 0
                and type(x[()]) is int and loop.kind != "O"):
            if loop.kind in "biu":
                raise OverflowError(_C_LONG_OVERFLOW)
            x = np.asarray(complex(x[()]) if loop.kind == "c" else float(x[()]))
        converted.append(x)
    return converted


# NumPy's float32/float64 power loops compute a stride-0 exponent of -1, 0.5
# or 2 as reciprocal, sqrt or square (its POWER_FAST_PATH; 0 and 1 give pow's
# answers anyway).  The CPU loops do it per inner loop, as NumPy does
# (titer_loops.h: TITER_POWER_FAST_OPS); a device call takes it from here.
POWER_FAST_OPS = {-1.0: "reciprocal", 0.5: "sqrt", 2.0: "square"}


def power_fast_op(op, inputs):
    """The op NumPy runs for power with a scalar exponent of -1, 0.5 or 2
    (in a float32 or float64 loop: the caller checks), else None."""
    if op.name != "power" or len(inputs) != 2:
        return None
    y = inputs[1]
    if type(y) in (int, float) or (isinstance(y, np.generic) and y.dtype.kind in "iuf"):
        return POWER_FAST_OPS.get(float(y))
    return None


def resolution_type(x):
    """What NumPy's resolution sees of an operand: the Python scalar type
    for int/float/complex (weak, NEP 50), else the dtype."""
    t = type(x)
    if t is int or t is float or t is complex:
        return t
    if t is bool:
        return np.dtype(np.bool_)
    return x.dtype


Resolution = namedtuple("Resolution", "loop_in loop_out signature discards_imaginary")
_FORCE_CAST_TO_BOOL = frozenset(["logical_and", "logical_or", "logical_xor"])


def resolve_loop(op, ufunc, in_types, out_dtypes, dtype, casting, inputs=None, masked=False):
    """NumPy's loop for these operand types (`in_types` from resolution_type,
    `out_dtypes` None where out= is not given) under `casting`, with NumPy's
    exceptions in NumPy's order (input casts, Python ints that the loop dtype
    cannot hold -- when `inputs` are given --, output casts); a loop on
    Python objects is refused with a TypeError.  `masked`: a where= mask
    is given (NumPy then reads a complex out= into a real loop: a warning)."""
    nin, nout = op.nin, op.nout
    casting = normalize_casting(casting)
    if op.name in COMPARISON_CONSTANTS and all(t is int for t in in_types):
        # NumPy compares Python ints in its int64 loop (out-of-range ones by
        # their one answer); resolve_dtypes alone would name the object loop
        in_types = (_WEAK_DEFAULTS[int],) * nin
    kwargs = {}
    if dtype is not None:
        kwargs["signature"] = (None,) * nin + (np.dtype(dtype),) * nout
    full = tuple(in_types) + (None,) * nout
    if inputs is not None and any(type(x) in _WEAK_DEFAULTS for x in inputs):
        # NumPy's order: the loop, then each Python scalar into its loop
        # dtype ('equiv', then the int's range), then the casts of arrays
        found = ufunc.resolve_dtypes(full, casting="unsafe", **kwargs)
        check_scalars(op, inputs, found[:nin], casting)
    if casting == "equiv" and any(t in _WEAK_DEFAULTS for t in in_types):
        # NOTE: NumPy's resolve_dtypes crashes on a Python scalar type under
        # 'equiv' (it formats an error with the scalar it was not given);
        # 'no' is 'equiv' for native dtypes, the scalars were checked above
        native = tuple(t.newbyteorder("=") if isinstance(t, np.dtype) else t for t in in_types)
        resolved = ufunc.resolve_dtypes(native + (None,) * nout, casting="no", **kwargs)
    else:
        resolved = ufunc.resolve_dtypes(full, casting=casting, **kwargs)
    loop_in, loop_out = tuple(resolved[:nin]), tuple(resolved[nin:])
    for i, to in enumerate(out_dtypes):
        if to is not None and not np.can_cast(loop_out[i], to, casting):
            if isinstance(ufunc, np.ufunc):
                raise _exceptions._UFuncOutputCastingError(ufunc, casting, loop_out[i], to, i)
            raise TypeError("Cannot cast ufunc '%s' output from %r to %r with casting rule %r"
                            % (op.name, loop_out[i], to, casting))
    if any(d.kind == "O" for d in resolved):
        raise TypeError(OBJECT_LOOP % op.name)
    try:
        signature = ("".join(_CHAR_OF[d] for d in loop_in) + "->"
                     + "".join(_CHAR_OF[d] for d in loop_out))
    except KeyError:
        raise TypeError("titer has no %s loop for %s" % (op.name, resolved)) from None
    return Resolution(loop_in, loop_out, signature,
                      _discards_imaginary(in_types, loop_in, out_dtypes, loop_out, masked))


def _discards_imaginary(in_types, loop_in, out_dtypes, loop_out, masked):
    """A cast of complex values to a real type other than bool (a truth
    test): NumPy's ComplexWarning.  With a where= mask NumPy also reads
    out= into the loop dtype."""
    def real(kind):
        return kind not in "cb"
    return any((t.kind == "c" if isinstance(t, np.dtype) else t is complex) and real(loop.kind)
               for t, loop in zip(in_types, loop_in)) or any(
        to is not None and ((loop.kind == "c" and real(to.kind))
                            or (masked and to.kind == "c" and real(loop.kind)))
        for to, loop in zip(out_dtypes, loop_out))


def compares_ints(name, inputs):
    """A comparison of a Python int with an integer (a Python int, an
    integer array or scalar, not bool): NumPy takes any int there, one out
    of the other's range giving one answer (COMPARISON_CONSTANTS)."""
    if name not in COMPARISON_CONSTANTS:
        return False
    kinds = [("int" if type(x) is int else getattr(getattr(x, "dtype", None), "kind", None))
             for x in inputs]
    return "int" in kinds and all(k in ("int", "i", "u") for k in kinds)


def _scalar_conversions(op, inputs, loop_in):
    """(position, Python scalar, the dtype NumPy converts it into, whether
    'equiv' applies) for each Python scalar the loop converts: the promotion
    of its loop dtype with it (NEP 50: an int into an int8 loop as int8, a
    complex into a float16 loop as complex64, an int into a bool loop as
    int64); a logical loop takes an int as a C long, then its truth; a
    comparison of integers takes any int."""
    logical = op.name in _FORCE_CAST_TO_BOOL
    int_compare = compares_ints(op.name, inputs)
    for i, (x, loop) in enumerate(zip(inputs, loop_in)):
        t = type(x)
        if t not in _WEAK_DEFAULTS:
            continue
        if logical:
            if t is int:
                yield i, x, _WEAK_DEFAULTS[int], False
        elif loop.kind != "O" and not (t is int and int_compare):
            yield i, x, np.result_type(loop, _WEAK_STAND_IN[t]), True


def check_scalars(op, inputs, loop_in, casting):
    """Each Python scalar into its loop dtype, as NumPy converts it before it
    checks any cast (value-dependent: run on every call, a cached loop too;
    _scalar_conversions says into what): under 'equiv' only into its
    default dtype, an int only within that dtype's range (NumPy's
    OverflowError).  The cast check of that dtype into the loop follows,
    with the arrays'."""
    for _, x, converted, strict in _scalar_conversions(op, inputs, loop_in):
        t = type(x)
        if strict and casting == "equiv" and converted != _WEAK_DEFAULTS[t]:
            raise TypeError("cannot cast Python %s to %s under the casting rule 'equiv'"
                            % (t.__name__, converted))
        if t is int:
            check_python_int(x, converted)


_INT_RANGES = {}                # integer dtype -> (min, max)


def int_range(dt):
    """An integer dtype's (min, max): np.iinfo's, remembered (it costs ~0.8
    us a call, more than a whole small call)."""
    found = _INT_RANGES.get(dt)
    if found is None:
        info = np.iinfo(dt)
        found = _INT_RANGES[dt] = (int(info.min), int(info.max))
    return found


def int_bounds(op, inputs, loop_in):
    """Per input, the range of Python int values check_scalars lets through
    with this loop (None: any int, or not an int), so a cached loop checks
    a new value with two comparisons and calls check_scalars only to raise."""
    bounds = [None] * len(inputs)
    for i, x, converted, _ in _scalar_conversions(op, inputs, loop_in):
        if type(x) is int and converted.kind in "iu":
            bounds[i] = int_range(converted)
    return tuple(bounds)


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_C_LONG_OVERFLOW = "Python int too large to convert to C long"


def warn_discarded_imaginary(stacklevel):
    import warnings
    warnings.warn("Casting complex values to real discards the imaginary part",
                  np.exceptions.ComplexWarning, stacklevel=stacklevel + 1)


_PYTHON_COMPARISONS = {"equal": "__eq__", "not_equal": "__ne__", "less": "__lt__",
                       "less_equal": "__le__", "greater": "__gt__", "greater_equal": "__ge__"}


def comparison_constant(name, value, position, other=None):
    """The one answer of comparing an integer array with a Python int it
    cannot hold; position 0 means the int is on the left.  Two Python ints:
    the answer of comparing them (NumPy's, whatever their size)."""
    if type(other) is int:
        left, right = (value, other) if position == 0 else (other, value)
        return getattr(left, _PYTHON_COMPARISONS[name])(right)
    below, above = COMPARISON_CONSTANTS[name]
    array_below = value > 0             # the int is above the dtype's range
    if position == 0:                   # int OP array: mirror the question
        array_below = not array_below
    return below if array_below else above


def check_python_int(value, dt):
    """NumPy's OverflowError for a Python int the loop dtype cannot hold:
    beyond a C long (beyond uint64 for uint64) as CPython says it, else
    NumPy's out-of-bounds message."""
    if dt.kind in "iu":
        if not (_INT64_MIN <= value <= _INT64_MAX
                or (dt == np.uint64 and 0 <= value < 2 ** 64)):
            raise OverflowError(_C_LONG_OVERFLOW)
        low, high = int_range(dt)
        if not low <= value <= high:
            raise OverflowError("Python integer %d out of bounds for %s" % (value, dt))


def as_result(result):
    """NumPy's return value for an output it allocated: a 0-d array becomes
    a NumPy scalar."""
    if isinstance(result, np.ndarray) and result.ndim == 0 and type(result) is np.ndarray:
        return result[()]
    return result


def as_results(name, out, results):
    """What a ufunc call returns: its outputs, each one it allocated 0-d
    turned into a NumPy scalar (np.where, not a ufunc, returns arrays)."""
    if name == "where":
        return results
    if type(results) is tuple:
        outs = out if type(out) is tuple else (None,) * len(results)
        return tuple([as_result(r) if o is None else r for r, o in zip(results, outs)])
    return as_result(results) if allocates(out) else results


# --- reductions ----------------------------------------------------------------

def normalize_axes(axis, ndim, zero_d_int=True):
    """axis= of a reduction as a tuple of distinct non-negative axes, with
    NumPy's errors (a list is not a valid axis).  A ufunc reduction of a
    0-d array takes the integer axis 0 or -1 as no axis (`zero_d_int`)."""
    if axis is None:
        return tuple(range(ndim))
    if ndim == 0 and zero_d_int and not isinstance(axis, tuple) and _index(axis) in (0, -1):
        return ()
    items = axis if isinstance(axis, tuple) else (axis,)
    axes = []
    for a in items:
        a = _index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        a = a % ndim
        if a in axes:
            raise ValueError("duplicate value in 'axis'")
        axes.append(a)
    return tuple(axes)


def _index(a):
    import operator
    try:
        return operator.index(a)
    except TypeError:
        raise TypeError("'%s' object cannot be interpreted as an integer"
                        % type(a).__name__) from None


def scan_axis(axis, ndim):
    """accumulate's one axis: an int, a 1-tuple, or None for a 1-d array."""
    if type(axis) is int and 0 <= axis < ndim:     # (the common case, checked)
        return axis
    if ndim == 0 and not isinstance(axis, tuple):
        raise TypeError("cannot accumulate on a scalar")
    if axis is None:
        if ndim > 1:
            raise ValueError("accumulate does not allow multiple axes")
        return 0
    axes = normalize_axes(axis, ndim, False)
    if len(axes) != 1:
        raise ValueError("accumulate does not allow multiple axes")
    return axes[0]


def initial_value(value, T):
    """initial= as a 0-d array of the loop dtype, converted by NumPy's
    assignment rules (NEP 50's OverflowError for a Python int, a sequence
    refused)."""
    converted = np.empty((), T)
    converted[()] = value
    return converted


def reduction_discards_imaginary(name, x_dtype, T, out_dtype):
    """A reduction casts complex values to a real type other than bool (a
    truth test; a complex out= too: NumPy reads it into the loop dtype)."""
    return (x_dtype.kind == "c" and T.kind not in "cb") or (
        out_dtype is not None and (T.kind == "c") != (out_dtype.kind == "c")
        and (T.kind if out_dtype.kind == "c" else out_dtype.kind) not in "cb")


def check_reorder(op, axes):
    if op.name not in _ops.REORDERABLE and len(axes) > 1:
        raise ValueError("reduction operation '%s' is not reorderable, so at most one axis "
                         "may be specified" % op.name)


def reduction_loop_dtype(ufunc, x_dtype, dtype, out_dtype):
    """np.<op>.reduce's loop dtype: dtype=, else out's, else NumPy's default
    (add/multiply on small ints -> the platform int)."""
    native = x_dtype.newbyteorder("=")
    if dtype is not None:
        resolved = ufunc.resolve_dtypes((None, native, None), signature=(np.dtype(dtype), None,
                                                                          None),
                                        reduction=True, casting="unsafe")
    else:
        first = out_dtype.newbyteorder("=") if out_dtype is not None else None
        resolved = ufunc.resolve_dtypes((first, native, None), reduction=True, casting="unsafe")
    if resolved[2].kind == "O":
        raise TypeError(OBJECT_LOOP % ufunc.__name__ + ".reduce")
    return resolved[2]


def sums_in_buffers(name, T):
    """NumPy's loop sums each inner-loop call pairwise (float and complex
    add), so where its iterator buffers the input (a conversion on the way,
    or a layout that does not coalesce) the buffers' cut decides the bits:
    NOTE [buffered reductions] in titer_reduce_buffered.h."""
    return name == "add" and T.kind in "fc"


def held_output(name, T, out_dtype):
    """out='s dtype (native) where NumPy's reduction in loop dtype T holds
    its running value in it between inner-loop calls and that rounding can
    change the result (NOTE [held outputs] in titer_reduce_buffered.h): an
    out= of another type than T, for a float or complex loop other than a
    real max/min (rounding is monotone: it commutes with them); else None."""
    out_dtype = out_dtype.newbyteorder("=")
    if out_dtype == T or T.kind not in "fc" or (T.kind == "f" and name in _ops.ABSORBING):
        return None
    return out_dtype


def folds_in_order(name, T):
    """NumPy reduces in a left fold, element after element in its iteration
    order, unless the op is reorderable and the order cannot change a bit:
    integer and bool loops, real max/min-like ops, and the float sums
    (NumPy's pairwise summation, which titer's kits reproduce)."""
    if name not in _ops.REORDERABLE:
        return True
    if T.kind == "c":           # which NaN a complex max/min returns depends on it
        return name != "add"
    return T.kind == "f" and name not in ("add", "maximum", "minimum", "fmax", "fmin")


def reduction_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def keep_order_dims(strides):
    """The dims from slowest to fastest in an input's stride order: NumPy's
    order='K' for a reduction's or scan's output."""
    return sorted(range(len(strides)), key=lambda d: -abs(strides[d]))


def mean_dtypes(x_dtype, dtype, out_given):
    """numpy.mean's (sum dtype, whether the result goes back to float16)."""
    if dtype is None:
        if x_dtype.kind in "biu":
            return np.dtype(np.float64), False
        if x_dtype.kind == "f" and x_dtype.itemsize == 2:
            return np.dtype(np.float32), not out_given
    return dtype, False


def mean(ex, x, axis, dtype, out, keepdims, where):
    """numpy.mean's algorithm, its checks in its order, for either executor:
    `ex` gives the executor's shape_dtype(x), mask(where, shape) (NumPy
    broadcasts where= before it reads axis=), count(mask, axes, keepdims)
    (the selected elements per output), reduce(name, x, axes, dtype, out,
    keepdims, where), minimum(count) (a Python int, None for no
    outputs), divide(total, count)
    (in place) and narrow(total, dtype) (a new array), and `frames`, the
    Python frames between the user's call and this one (a warning points at
    the user's line).  The count and the sum are titer's; a zero count warns
    as NumPy does."""
    shape, x_dtype = ex.shape_dtype(x)
    if where is True:
        axes = normalize_axes(axis, len(shape), zero_d_int=False)
        count = 1
        for d in axes:
            count *= shape[d]
        empty = count == 0
    else:
        mask = ex.mask(where, shape)
        axes = normalize_axes(axis, len(shape))
        count = ex.count(mask, axes, keepdims)
        empty = ex.minimum(count) == 0       # None: no output, nothing empty
    sum_dtype, half_result = mean_dtypes(x_dtype, dtype, out is not None)
    if empty:
        import warnings
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2 + ex.frames)
    total = ex.reduce("add", x, axes, sum_dtype, out, keepdims, where)
    # NumPy divides by its count as an intp (not a weak Python int): a
    # complex64 mean is divided in complex128 and rounded back
    ex.divide(total, np.intp(count) if where is True else count)
    return ex.narrow(total, x_dtype) if half_result else total


# --- copies (numpy.copyto, both executors) ---------------------------------------

# (Python scalar type, dst dtype, casting) -> copy_scalar's cast verdict:
# NEP 50 makes result_type(dst, value) the same for every value of a type
# (an int's range is check_python_int's)
_SCALAR_COPY_ALLOWED = {}


def copy_scalar(value, dst_dtype, casting):
    """A Python scalar as NumPy's copyto reads it (NEP 50: weak): the cast
    rule, an int within dst's range, an int beyond int64 as Python
    converts it (float() for an inexact dst).  A 0-d array to copy from."""
    key = (type(value), dst_dtype, casting)
    allowed = _SCALAR_COPY_ALLOWED.get(key)
    if allowed is None:
        if len(_SCALAR_COPY_ALLOWED) >= 1024:
            _SCALAR_COPY_ALLOWED.clear()
        allowed = _SCALAR_COPY_ALLOWED[key] = bool(
            np.can_cast(np.result_type(dst_dtype, value), dst_dtype, casting))
    if not allowed:
        raise TypeError("Cannot cast scalar from %r to %r according to the rule %r"
                        % (np.asarray(value).dtype, dst_dtype, casting))
    if type(value) is int:
        check_python_int(value, dst_dtype)
        if not _INT64_MIN <= value < 2 ** 64:
            return np.asarray(complex(value) if dst_dtype.kind == "c" else float(value))
    return np.asarray(value)


_CAN_CAST = {}                  # (src dtype, dst dtype, casting) -> np.can_cast's answer


def _can_cast(src_dtype, dst_dtype, casting):
    """np.can_cast of two dtypes, remembered (it costs ~0.4 us a call; a
    dict's lookup about half of functools.lru_cache's)."""
    key = (src_dtype, dst_dtype, casting)
    found = _CAN_CAST.get(key)
    if found is None:
        if len(_CAN_CAST) >= 1024:
            _CAN_CAST.clear()
        found = _CAN_CAST[key] = bool(np.can_cast(src_dtype, dst_dtype, casting))
    return found


def check_copy(dst_shape, dst_writeable, src_shape, src_dtype, dst_dtype, casting):
    """numpy.copyto's checks of an array source, in its order: a read-only
    dst, the cast rule (None: a scalar source, checked by copy_scalar), the
    broadcast of src into dst.  Returns how many leading dims of src the
    copy drops: NumPy's copyto strips a source's leading ones beyond dst's
    dims (ones((1, 3)) copies into zeros(3)), and every executor reads src
    without them."""
    _check_writeable(dst_writeable, "copy: dst is read-only")
    if src_dtype is not None and not _can_cast(src_dtype, dst_dtype, casting):
        raise TypeError("Cannot cast array data from %r to %r according to the rule %r"
                        % (src_dtype, dst_dtype, casting))
    if src_shape == dst_shape or not src_shape:     # (the common cases, without the calls below)
        return 0
    extra = len(src_shape) - len(dst_shape)
    drop = extra if extra > 0 and all(n == 1 for n in src_shape[:extra]) else 0
    if not broadcasts_into(src_shape[drop:], dst_shape):
        raise ValueError("could not broadcast input array from shape %s into shape %s"
                         % (shape_text(src_shape), shape_text(dst_shape)))
    return drop


def broadcasts_into(shape, target):
    """`shape` broadcasts to exactly `target` (a copy's source, a where= mask)."""
    # each of `shape`'s dims, right-aligned, is 1 or `target`'s (as
    # np.broadcast_shapes(shape, target) == target, without its ~1 us)
    if shape == target:
        return True
    offset = len(target) - len(shape)
    return offset >= 0 and all(n == 1 or n == target[offset + k] for k, n in enumerate(shape))


def shape_text(shape):
    """A shape as NumPy's messages print it: (4,) (2,3) ()."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def copy_discards_imaginary(src_dtype, dst_dtype):
    """NumPy's ComplexWarning for a copy of complex values into a real dst."""
    return src_dtype.kind == "c" and dst_dtype.kind not in "cb"


# --- reductions: out= and the starting value (both executors) ---

def reduction_out(out, is_array):
    """out= of a reduction or a scan: None or one array (NumPy takes a
    1-tuple too); `is_array(x)` says whether x is an array of the
    executor's kind."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    if out is not None and not is_array(out):
        raise TypeError("output must be an array")
    return out


def check_reduction_out(name, shape, expected, writeable):
    """out= of np.<name>.reduce has the result's shape and can be written."""
    if tuple(shape) != tuple(expected):
        raise ValueError("output parameter for reduction operation %s has the wrong shape: "
                         "found %s but expected %s" % (name, tuple(shape), tuple(expected)))
    _check_writeable(writeable)


def check_scan_out(shape, x_shape, writeable):
    """out= of np.<name>.accumulate has the input's shape and can be written."""
    if tuple(shape) != tuple(x_shape):
        raise ValueError("accumulate output shape %s does not match the input shape %s"
                         % (tuple(shape), tuple(x_shape)))
    _check_writeable(writeable)


def _check_writeable(writeable, message="output array is read-only"):
    if not writeable:
        raise ValueError(message)


def reduction_start(op, ufunc, initial, masked, nred):
    """(the op's identity or None, the value the reduction starts from --
    initial=, else the identity; None: from the first element), with
    NumPy's errors for a where= mask or an empty reduction without one.
    `nred`: how many elements reduce into each output."""
    identity = op.identity if op.identity is not None else ufunc.identity
    start = identity if initial is np._NoValue else initial
    if masked and start is None:
        raise ValueError("reduction operation '%s' does not have an identity, so to use a "
                         "where mask one has to specify 'initial'" % op.name)
    if nred == 0 and start is None:
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % op.name)
    return identity, start

"""``titer.elementwise`` for CuPy arrays: NumPy's semantics, titer's kernels.

``elementwise(name, out, *inputs, dtype=None, casting="same_kind")`` is what
``titer.elementwise`` calls when an operand has ``__cuda_array_interface__``.
The steps are the CPU path's:

1. resolve the op and the loop dtypes with NumPy's ufunc machinery (metadata
   only), NEP 50 for Python scalars, the same casting checks and errors;
2. build the iterator plan with titer's own CPU iterator, run on zero-size
   NumPy stand-ins carrying the device arrays' shapes and strides -- so
   ``out=None`` gets exactly the CPU path's output layout;
3. allocate the output on the device, copy an input that partially overlaps
   the output (NumPy's rule), and launch the kernels ``plan.py`` chooses
   (vectorized / offset / cast; split for 32-bit indexing).

The device work goes through a backend: ``CupyBackend`` on a GPU; the tests
use a host backend that runs the same kernels compiled with g++.
"""
import os
import sys
import warnings

import numpy as np

from . import plan as _plan
from . import plan_cache
from .build import kernel_stem

try:
    from .. import _ops
except ImportError:            # vendored without the package around it
    import _ops  # type: ignore

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_DIR = os.path.join(HERE, "kernels")
TYPECHARS = _ops.TYPECHARS
_CODES = {np.dtype(c): i for i, c in enumerate(TYPECHARS)}

# Comparing an integer array with a Python int it cannot hold: one answer for
# every element (the CPU path's table).
_COMPARISON_CONSTANTS = {
    "equal": (False, False), "not_equal": (True, True),
    "less": (True, False), "less_equal": (True, False),
    "greater": (False, True), "greater_equal": (False, True),
}

_manifest = None
_CUPY_MODULE = __package__ + "._cupy"


def manifest():
    """The kernel manifest written at build time (see build.py)."""
    global _manifest
    if _manifest is None:
        import json
        path = os.path.join(KERNEL_DIR, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                _manifest = json.load(f)
        else:                          # not built: generate in memory
            from . import build
            _manifest = build.generate(KERNEL_DIR)
    return _manifest


def default_backend():
    """The CuPy backend (imports CuPy: only called with device arrays)."""
    mod = sys.modules.get(_CUPY_MODULE)         # the import statement costs more
    if mod is None:
        from . import _cupy as mod
    return mod.CupyBackend.get()


def is_device_array(x):
    """Has the CUDA array interface (asked of the class first: on an array
    it is a property building a dict) and is not a NumPy array."""
    return (not isinstance(x, np.ndarray)
            and (hasattr(type(x), "__cuda_array_interface__")
                 or hasattr(x, "__cuda_array_interface__")))


def dtype_code(dt):
    try:
        return _CODES[dt]
    except KeyError:
        raise TypeError("titer has no CUDA kernels for dtype %s" % dt) from None


class DeviceInfo:
    """What the planner needs from a device array (CUDA array interface v3)."""
    __slots__ = ("array", "ptr", "shape", "strides", "dtype")

    def __init__(self, x):
        cai = x.__cuda_array_interface__
        self.array = x
        self.ptr = int(cai["data"][0] or 0)
        self.shape = tuple(int(s) for s in cai["shape"])
        self.dtype = np.dtype(cai["typestr"])
        if cai.get("strides") is None:
            st, acc = [], self.dtype.itemsize
            for s in reversed(self.shape):
                st.append(acc)
                acc *= max(s, 1)
            self.strides = tuple(reversed(st))
        else:
            self.strides = tuple(int(s) for s in cai["strides"])
        if not self.dtype.isnative:
            raise ValueError("byte-swapped device arrays are not supported (dtype %s)"
                             % self.dtype)
        align = self.dtype.alignment
        if self.ptr % align or any(s % align for s in self.strides):
            raise ValueError("unaligned device arrays are not supported")

    @classmethod
    def of(cls, ptr, shape, strides, dtype, array=None):
        """Metadata for a view that has no array object of its own."""
        self = cls.__new__(cls)
        self.array, self.ptr, self.shape = array, ptr, tuple(shape)
        self.strides, self.dtype = tuple(strides), np.dtype(dtype)
        return self

    def extent(self):
        """[lo, hi) bytes the array touches (None when empty)."""
        if any(s == 0 for s in self.shape):
            return None
        lo, hi = _plan.byte_span(self.shape, self.strides)
        return self.ptr + lo, self.ptr + hi + self.dtype.itemsize

    def overlaps(self, other):
        """The two touch a common byte (empty arrays touch none)."""
        a, b = self.extent(), other.extent()
        return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]

    def internal_overlap(self):
        """Two index tuples reach one byte (the CPU build's check)."""
        from .. import _core
        return _core.internal_overlap(stand_in(self.shape, self.strides, self.dtype))

    def same_view(self, other):
        """The same elements in the same order: an exact alias, safe for an
        element-by-element loop."""
        return (self.ptr == other.ptr and self.shape == other.shape
                and self.strides == other.strides and self.dtype == other.dtype)


_STAND_INS = {}


def stand_in(shape, strides, dtype):
    """A NumPy array with these strides over one element: metadata for the
    CPU iterator, never read or written (so one per layout serves every
    call: as_strided costs microseconds)."""
    key = (tuple(shape), tuple(strides), dtype)
    x = _STAND_INS.get(key)
    if x is None:
        if len(_STAND_INS) >= 1024:
            _STAND_INS.clear()
        base = np.zeros(1, dtype)
        x = _STAND_INS[key] = np.lib.stride_tricks.as_strided(base, shape=key[0],
                                                             strides=key[1])
    return x


def _is_scalar(x):
    return type(x) in (bool, int, float, complex) or isinstance(x, np.generic)


def _resolution_type(x):
    t = type(x)
    if t is int or t is float or t is complex:
        return t                        # weak (NEP 50)
    if t is bool:
        return np.dtype(np.bool_)
    if isinstance(x, np.generic):
        return x.dtype
    return x.dtype


def _scalar_bytes(value, dt):
    """The scalar in the loop dtype, as the kernel reads it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        if isinstance(value, np.generic):
            arr = np.array(value).astype(dt)
        else:
            arr = np.array(value, dtype=dt) if type(value) is not complex or dt.kind == "c" \
                else np.array(value.real, dtype=dt)
    return arr.tobytes()


def _ufunc_for(name):
    """The dtype resolver the CPU path uses (a NumPy ufunc, or titer's own
    for np.where)."""
    from .. import _core
    pick = getattr(_core, "_ufunc_for", None)
    return pick(name) if pick is not None else getattr(np, name)


def _normalize_out(out, nout):
    if isinstance(out, tuple):
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly %d entries: one per ufunc "
                             "output" % nout)
        return list(out)
    if nout != 1 and out is not None:
        raise TypeError("out must be a tuple of %d arrays for this op" % nout)
    return [out] * nout if out is None else [out]


_ORDERS = {"K": "K", "C": "C", "F": "F", "A": "A", "k": "K", "c": "C", "f": "F", "a": "A",
           None: "K"}


_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def _check_integer_power(canonical, loop_in, inputs, backend):
    """NumPy raises for a signed integer to a negative integer power; a
    kernel cannot, so the exponent is checked first (a scalar here, an
    array by titer's own minimum reduction, one value read back) and
    nothing is written when it fails."""
    if canonical != "power" or loop_in[1].kind != "i":
        return
    b = inputs[1]
    if not is_device_array(b):
        if b < 0:
            raise ValueError(_NEGATIVE_POWER)
        return
    info = DeviceInfo(b)
    if info.dtype.kind != "i":
        return
    from .reduce import lowest
    low = lowest(backend, info, {backend.device_of(b)})
    if low is not None and low < 0:
        raise ValueError(_NEGATIVE_POWER)


def _where_or_order(name, nout, outs, inputs, in_infos, infos, loop_out, dtype, casting,
                    where, order, backend, devices):
    """where= and order=, as the CPU path: order C/F/A allocates the outputs
    in that order; a where= mask computes the op into temporaries in the loop
    dtypes, then titer's `where` kernel copies the selected elements into the
    outputs (the others keep their values)."""
    from .copy import preserve_order
    packed_strides = _plan.contiguous_strides
    mask = None
    if where is not True:
        if isinstance(where, (bool, np.bool_)):
            mask = bool(where)
        elif is_device_array(where) and not isinstance(where, np.ndarray):
            mask = DeviceInfo(where)
            if mask.dtype != np.bool_:
                raise TypeError("where= must be a boolean array, got dtype %s" % mask.dtype)
            devices = devices | {backend.device_of(where)}
            if len(devices) > 1:
                raise ValueError("titer.elementwise: operands are on different devices %s"
                                 % sorted(devices))
        else:
            raise TypeError("titer.elementwise: where= must be a device array (or a bool) with "
                            "device arrays, got %s" % type(where).__name__)
    arrays_in = [inf for inf in in_infos if inf is not None]
    given = [infos[k] for k in range(nout) if outs[k] is not None]
    shapes = [inf.shape for inf in arrays_in] + (
        [mask.shape] if isinstance(mask, DeviceInfo) else [])
    shape = given[0].shape if given else np.broadcast_shapes(*shapes)
    rank = len(shape)
    if order == "A":
        fortran = arrays_in and all(
            x.strides == packed_strides(x.shape, x.dtype.itemsize, range(rank - 1, -1, -1))
            and x.strides != packed_strides(x.shape, x.dtype.itemsize)
            for x in arrays_in if len(x.shape) == rank)
        order = "F" if fortran else "C"
    if order == "F":
        dims = tuple(range(rank - 1, -1, -1))
    elif order == "C" or mask is None:
        dims = tuple(range(rank))
    else:                   # order K with a mask: the first full-shape input's layout
        like = next((x for x in arrays_in if x.shape == shape), None)
        dims = preserve_order(like) if like is not None else tuple(range(rank))
    for k in range(nout):
        if outs[k] is None and (order != "K" or mask is not None):
            outs[k] = backend.empty(shape, loop_out[k],
                                    packed_strides(shape, loop_out[k].itemsize, dims), devices)
            infos[k] = DeviceInfo(outs[k])
    packed = outs[0] if nout == 1 else tuple(outs)
    if mask is None:
        return elementwise(name, packed, *inputs, dtype=dtype, casting=casting, backend=backend)
    if mask is False:
        return packed
    temps = elementwise(name, None, *inputs, dtype=dtype, casting=casting, backend=backend)
    temps = temps if nout > 1 else (temps,)
    for k in range(nout):
        elementwise("where", outs[k], True if mask is True else mask.array, temps[k], outs[k],
                    dtype=infos[k].dtype, casting="unsafe", backend=backend)
    return packed


def elementwise(name, out, *inputs, dtype=None, casting="same_kind", where=True, order="K",
                backend=None):
    """``numpy.<name>(*inputs, out=out, dtype=, casting=, where=, order=)`` on
    device arrays with titer's kernels."""
    canonical = _ops.canonical_name(name) if isinstance(name, str) else None
    if canonical is None:
        raise ValueError("titer has no operation %r; titer.ops() lists the supported ones"
                         % (name,))
    op = _ops.OPS_BY_NAME[canonical]
    nout, nin = op.nout, op.nin
    if len(inputs) != nin:
        raise TypeError("%s() takes %d input(s), got %d" % (name, nin, len(inputs)))
    outs = _normalize_out(out, nout)
    if backend is None:
        backend = default_backend()
    cache_key = None
    if where is True and (order == "K" or order is None):
        done, cache_key = plan_cache.replay_elementwise(backend, canonical, nout, outs, inputs,
                                                        dtype, casting)
        if done is not None:
            return done
    outs_given = [o is not None for o in outs]
    warned = False
    operands = outs + list(inputs)
    if any(isinstance(x, np.ndarray) for x in operands):
        raise TypeError("titer.elementwise: cannot mix NumPy arrays and device (CuPy) arrays; "
                        "move them to one side first (cupy.asarray / cupy.asnumpy)")
    for x in inputs:
        if not is_device_array(x) and not _is_scalar(x):
            raise TypeError("titer.elementwise: unsupported operand type %s with device arrays"
                            % type(x).__name__)
    for o in outs:
        if o is not None and not is_device_array(o):
            raise TypeError("return arrays must be device arrays here, got %s"
                            % type(o).__name__)
    devices = {backend.device_of(x) for x in operands if is_device_array(x)}
    if len(devices) > 1:
        raise ValueError("titer.elementwise: operands are on different devices %s"
                         % sorted(devices))
    infos = [DeviceInfo(x) if is_device_array(x) else None for x in operands]
    in_infos = infos[nout:]

    # 1. loop dtypes, as the CPU path resolves them
    kwargs = {"casting": casting}
    if dtype is not None:
        kwargs["signature"] = (None,) * nin + (np.dtype(dtype),) * nout
    in_types = tuple(_resolution_type(x) if in_infos[i] is None else in_infos[i].dtype
                     for i, x in enumerate(inputs))
    resolved = _ufunc_for(canonical).resolve_dtypes(in_types + (None,) * nout, **kwargs)
    loop_in, loop_out = list(resolved[:nin]), list(resolved[nin:])
    sig = ("".join(TYPECHARS[dtype_code(d)] for d in loop_in) + "->"
           + "".join(TYPECHARS[dtype_code(d)] for d in loop_out))
    kernels = getattr(backend, "manifest", None) or manifest()
    entry = kernels["ops"].get(canonical, {}).get("kernels", {}).get(sig)
    if entry is None:
        reason = kernels["unsupported"].get("%s %s" % (canonical, sig), "not in the op table")
        raise TypeError("titer has no CUDA kernel for %s %s (%s)" % (canonical, sig, reason))
    for k in range(nout):
        if outs[k] is not None and not np.can_cast(loop_out[k], infos[k].dtype, casting):
            raise TypeError("Cannot cast ufunc '%s' output from %r to %r with casting rule %r"
                            % (canonical, loop_out[k], infos[k].dtype, casting))
    if any((type(x) is complex or (in_infos[i] is not None and in_infos[i].dtype.kind == "c")
            or (isinstance(x, np.generic) and x.dtype.kind == "c"))
           and loop_in[i].kind != "c" for i, x in enumerate(inputs)) or any(
            outs[k] is not None and loop_out[k].kind == "c" and infos[k].dtype.kind != "c"
            for k in range(nout)):
        warned = True
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
    try:
        order = _ORDERS[order]
    except (KeyError, TypeError):
        raise ValueError("order must be one of 'K', 'A', 'C', 'F', got %r" % (order,)) from None
    if where is not True or order != "K":
        return _where_or_order(name, nout, outs, inputs, in_infos, infos, loop_out, dtype,
                               casting, where, order, backend, devices)

    # scalars: in the loop dtype, passed by value
    scalar_bytes = [None] * nout
    constant = None
    for i, x in enumerate(inputs):
        if in_infos[i] is not None:
            scalar_bytes.append(None)
            continue
        try:
            scalar_bytes.append(_scalar_bytes(x, loop_in[i]))
        except OverflowError:
            other = in_infos[1 - i] if nin == 2 else None
            if (canonical in _COMPARISON_CONSTANTS and type(x) is int and other is not None
                    and other.dtype.kind in "iu"):
                below, above = _COMPARISON_CONSTANTS[canonical]
                array_below = x > 0
                if i == 0:
                    array_below = not array_below
                constant = below if array_below else above
                scalar_bytes.append(b"\0" * loop_in[i].itemsize)
            else:
                raise OverflowError("Python integer %d out of bounds for %s" % (x, loop_in[i]))

    _check_integer_power(canonical, loop_in, inputs, backend)

    # 2. the plan: titer's CPU iterator over stand-ins
    for k in range(nout):
        if outs[k] is not None and infos[k].internal_overlap():
            raise ValueError("output operand %d has internal overlap (a stride-0 or "
                             "overlapping dimension); it cannot be written element by "
                             "element" % k)
    from .._core import IterConfig
    # stand-ins share no memory with each other, so the overlap checks are
    # ours (device extents, below)
    cfg = (IterConfig().resize_outputs(False).check_all_same_dtype(False)
           .check_mem_overlap(False))
    for k in range(nout):
        if outs[k] is None:
            cfg.add_output(None, dtype=loop_out[k])
        else:
            cfg.add_output(stand_in(infos[k].shape, infos[k].strides, infos[k].dtype))
    for i, x in enumerate(inputs):
        info = in_infos[i]
        cfg.add_input(stand_in(info.shape, info.strides, info.dtype) if info is not None
                      else np.zeros((), loop_in[i]))
    it = cfg.build()
    for k in range(nout):
        if outs[k] is None:
            allocated = it.output(k)
            outs[k] = backend.empty(allocated.shape, loop_out[k], allocated.strides, devices)
            infos[k] = DeviceInfo(outs[k])
    result = outs[0] if nout == 1 else tuple(outs)
    if constant is not None:            # titer's copy kernel writes the one answer
        from .copy import copy_view
        copy_view(backend, infos[0], np.asarray(constant, loop_out[0]), devices)
        return result

    # 3. NumPy's overlap rule: an input partially overlapping an output is copied
    for i, info in enumerate(in_infos):
        if info is None:
            continue
        for k in range(nout):
            if not info.overlaps(infos[k]) or info.same_view(infos[k]):
                continue
            from .copy import clone             # plan again with a copy (titer's kernel)
            copied = list(inputs)
            copied[i] = clone(backend, info, devices).array
            return elementwise(name, result if nout == 1 else tuple(outs), *copied,
                               dtype=dtype, casting=casting, backend=backend)

    if it.numel == 0:
        return result
    nargs = len(operands)
    piece = _plan.Piece(tuple(it.shape), tuple(tuple(it.strides(i)) for i in range(nargs)),
                        (0,) * nargs)
    bases = [inf.ptr if inf is not None else 0 for inf in infos]
    loop_codes = [dtype_code(d) for d in loop_out + loop_in]
    mem_codes = [dtype_code(inf.dtype) if inf is not None else loop_codes[i]
                 for i, inf in enumerate(infos)]
    launches = _plan.plan_launches(kernel_stem(canonical, sig), piece, bases, mem_codes,
                                   loop_codes, scalar_bytes, entry["vec"])
    device = next(iter(devices)) if devices else None
    for launch in launches:
        backend.launch(canonical, launch, device)
    if cache_key is not None and not warned:
        plan_cache.remember_elementwise(backend, cache_key, nout, loop_in, loop_out, outs_given,
                                        infos, piece, launches, bases)
    return result

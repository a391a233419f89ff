"""Seeded differential fuzzer: titer against NumPy, driven by the op table.

A case is (kind, seed, index), kind "elementwise" or "reduction"; everything
about it comes from ``np.random.default_rng([seed, index])``, so one line
reproduces it:

    python tests/fuzz.py elementwise SEED INDEX          # one case, its verdict
    python tests/fuzz.py elementwise SEED START COUNT    # a batch (a child's job)

Each side gets its own freshly built operands (the same values, the same
layouts, ``out=`` as a view into a guarded buffer), NumPy runs the call as a
ufunc, titer as ``titer.elementwise``/``reduce``/``sum``..., and the verdict
compares what a user sees: exception class, result type (NumPy scalar or
array), dtype, values (bits, or the ULP bounds for transcendentals), that
``out`` is the result, that nothing outside ``out``'s view changed, and that
after an exception nothing changed at all.

NumPy's object loop (Python ints beyond 64 bits where NumPy falls back to
``dtype=object``) is the one documented difference: titer raises a
``TypeError`` that says so.

``run_cases`` runs batches in child processes: a case that kills its child
(a segfault) is reported with its reproducer and the batch goes on after it.
"""
import json
import os
import subprocess
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import titer                    # noqa: E402
from titer import _frontend, _ops     # noqa: E402
from oracle import ULP_BOUNDS, special_values, value_grid   # noqa: E402

CHARS = _ops.TYPECHARS
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin", "clip"}
BIG_INTS = [2 ** 31, 2 ** 32 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63,
            -2 ** 63 - 1, 2 ** 70, -2 ** 70, 255, 256, -129, 65536]
SIZES = [0, 1, 1, 2, 3, 3, 4, 5, 7, 17]
LONG_SIZES = [64, 257, 1000]
OPS = [op for op in _ops.OPS]
BINARY = [op for op in OPS if op.nin == 2 and op.nout == 1 and op.name != "where"]
GUARD = 16
SIDE = os.environ.get("TITER_FUZZ_SIDE", "both")     # a crash is attributed by one-side reruns
# NumPy's own bits depend on the layout here (its SIMD complex square fuses
# a multiply-add that its strided loop does not): held to the ULP bounds.
LAYOUT_DEPENDENT = {"square", "multiply", "absolute"}       # on complex inputs


def numpy_ufunc(name):
    if name == "clip":
        return np._core.umath.clip
    return getattr(np, name)


# --- drawing a case: plain data, so a case prints and replays -----------------

def draw_shape(rng, ndim_max=3):
    ndim = int(rng.integers(0, ndim_max + 1))
    shape = [int(rng.choice(SIZES)) for _ in range(ndim)]
    if ndim and rng.random() < 0.15:
        shape[int(rng.integers(ndim))] = int(rng.choice(LONG_SIZES))
    return shape


def operand_shape(rng, base):
    """A shape that broadcasts to `base`: a suffix, some dims squashed to 1."""
    k = int(rng.integers(0, len(base) + 1)) if rng.random() < 0.4 else len(base)
    shape = list(base[len(base) - k:])
    return [1 if rng.random() < 0.2 else s for s in shape]


ARRAY_LAYOUTS = ["c", "c", "f", "t", "neg", "step", "zero", "unaligned", "swapped"]
OUT_LAYOUTS = ["c", "c", "f", "neg", "step", "unaligned", "swapped"]


def draw_dtype(rng, preferred):
    return preferred if preferred and rng.random() < 0.7 else str(rng.choice(list(CHARS)))


def draw_operand(rng, base, char):
    roll = rng.random()
    if roll < 0.62:
        return ["array", char, operand_shape(rng, base), str(rng.choice(ARRAY_LAYOUTS)),
                int(rng.integers(1 << 30))]
    if roll < 0.80:
        kind = str(rng.choice(["bool", "int", "int", "bigint", "float", "float", "complex"]))
        return ["py", kind, int(rng.integers(1 << 30))]
    if roll < 0.92:
        return ["npscalar", char, int(rng.integers(1 << 30))]
    return ["array", char, [], "c", int(rng.integers(1 << 30))]


def draw_elementwise(rng):
    op = OPS[int(rng.integers(len(OPS)))]
    sig = op.types[int(rng.integers(len(op.types)))]
    in_chars = _ops.parse_signature(sig)[0]
    base = draw_shape(rng)
    case = {"op": op.name, "inputs": [draw_operand(rng, base, draw_dtype(rng, in_chars[i]))
                                      for i in range(op.nin)],
            "out": None, "kwargs": {}, "threads": int(rng.choice([1, 2])),
            "grain": int(rng.choice([16, 1000, 32768]))}
    if op.name == "where":
        return case
    if rng.random() < 0.4:
        outs = []
        for i in range(op.nout):
            roll = rng.random()
            arrays = [k for k, x in enumerate(case["inputs"]) if x[0] == "array" and x[2]]
            if roll < 0.12 and arrays and i == 0:  # (two outputs in one place: undefined)
                outs.append(["alias", int(rng.choice(arrays)), bool(rng.random() < 0.5)])
            elif roll < 0.2:
                outs.append(None)
            else:
                shape = list(base) if rng.random() < 0.9 else operand_shape(rng, base) + [2]
                out_sig = _ops.parse_signature(sig)[1]
                outs.append(["out", draw_dtype(rng, out_sig[i]), shape,
                             str(rng.choice(OUT_LAYOUTS)), int(rng.integers(1 << 30))])
        case["out"] = outs
    kw = case["kwargs"]
    if rng.random() < 0.1:
        kw["dtype"] = str(rng.choice(list(CHARS)))
    if rng.random() < 0.25:
        kw["casting"] = str(rng.choice(CASTINGS)) if rng.random() < 0.95 else "bogus"
    if rng.random() < 0.15:
        roll = rng.random()
        if roll < 0.7:
            kw["where"] = ["mask", operand_shape(rng, base), int(rng.integers(1 << 30))]
        elif roll < 0.9:
            kw["where"] = ["py", bool(rng.random() < 0.5)]
        else:
            kw["where"] = ["list", [bool(b) for b in rng.integers(0, 2, 3)]]
    if rng.random() < 0.1:
        kw["order"] = str(rng.choice(["K", "C", "F", "A", "c", "X"]))
    return case


REDUCERS = ["reduce", "reduce", "accumulate", "sum", "prod", "max", "min", "mean",
            "any", "all"]


def draw_reduction(rng):
    func = str(rng.choice(REDUCERS))
    op = BINARY[int(rng.integers(len(BINARY)))] if func in ("reduce", "accumulate") else None
    base = draw_shape(rng)
    char = str(rng.choice(list(op.types[int(rng.integers(len(op.types)))][0]))) if op else \
        str(rng.choice(list(CHARS)))
    case = {"func": func, "op": op.name if op else None,
            "x": ["array", char, base, str(rng.choice(ARRAY_LAYOUTS)),
                  int(rng.integers(1 << 30))],
            "kwargs": {}, "threads": int(rng.choice([1, 2])),
            "grain": int(rng.choice([16, 1000, 32768]))}
    kw = case["kwargs"]
    nd = len(base)
    roll = rng.random()
    if func == "accumulate":
        kw["axis"] = int(rng.integers(-nd - 1, nd + 1)) if roll < 0.9 else None
    elif roll < 0.25:
        kw["axis"] = None
    elif roll < 0.55:
        kw["axis"] = int(rng.integers(-nd - 1, nd + 1))
    elif roll < 0.9:
        k = int(rng.integers(0, nd + 1))
        kw["axis"] = ["tuple", [int(a) for a in rng.integers(-nd, max(nd, 1), k)]]
    else:
        kw["axis"] = ["list", [0, 1]]
    takes_dtype = func not in ("max", "min", "any", "all")
    if takes_dtype and rng.random() < 0.15:
        kw["dtype"] = str(rng.choice(list(CHARS)))
    if func != "accumulate":
        if rng.random() < 0.3:
            kw["keepdims"] = True
        if func not in ("mean", "any", "all") and rng.random() < 0.2:
            kw["initial"] = (["list"] if rng.random() < 0.05 else
                             ["value", float(rng.choice([0, 1, -3, 2.5, 7]))])
        if rng.random() < 0.15:
            kw["where"] = (["mask", operand_shape(rng, base), int(rng.integers(1 << 30))]
                           if rng.random() < 0.9 else ["tuple"])
    if rng.random() < 0.2:
        kw["out"] = ["out", str(rng.choice(list(CHARS))), None, str(rng.choice(OUT_LAYOUTS)),
                     int(rng.integers(1 << 30))]
    return case


# --- building operands (once per side) ----------------------------------------

def grid(char, shape, seed):
    return value_grid(np.dtype(char), tuple(shape), seed=seed % 1000)


def make_array(char, shape, layout, seed):
    shape = tuple(shape)
    if layout == "f":
        return np.asfortranarray(grid(char, shape, seed))
    if layout == "t":
        return grid(char, shape[::-1], seed).T
    if layout == "neg" and shape:
        return grid(char, shape, seed)[tuple(slice(None, None, -1) for _ in shape)]
    if layout == "step" and shape:
        return grid(char, (shape[0] * 2,) + shape[1:], seed)[::2]
    if layout == "zero" and shape:
        return np.broadcast_to(grid(char, (1,) + shape[1:], seed), shape)
    if layout == "unaligned" and np.dtype(char).itemsize > 1:
        x = grid(char, shape, seed)
        raw = np.empty(x.nbytes + 1, np.uint8)
        view = raw[1:].view(x.dtype).reshape(shape)
        view[...] = x
        return view
    if layout == "swapped" and np.dtype(char).itemsize > 1:
        return grid(char, shape, seed).astype(np.dtype(char).newbyteorder())
    return grid(char, shape, seed)


def make_scalar(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "bool":
        return bool(rng.random() < 0.5)
    if kind == "int":
        return int(rng.integers(-3, 300))
    if kind == "bigint":
        return int(rng.choice(BIG_INTS))
    if kind == "float":
        return float(rng.choice([0.5, -0.0, 3.0, 1e300, -2.5, np.inf, np.nan, 1e-310]))
    return complex(float(rng.choice([0.5, -1.0, np.nan, 2.0])), float(rng.choice([0.0, 1.5])))


def make_input(spec):
    if spec[0] == "array":
        return make_array(*spec[1:])
    if spec[0] == "py":
        return make_scalar(spec[1], spec[2])
    values = special_values(spec[1])
    return np.dtype(spec[1]).type(values[spec[2] % len(values)])


class GuardedOut:
    """A view into a larger buffer with guard bytes and gaps around it;
    `untouched()` says whether any byte outside the view changed."""

    def __init__(self, char, shape, layout, seed):
        dt = np.dtype(char)
        if layout == "swapped":
            dt = dt.newbyteorder()
        shape = tuple(shape)
        step = 2 if layout == "step" and shape else 1
        full = (shape[0] * step,) + shape[1:] if shape else ()
        n = int(np.prod(full, dtype=np.int64)) * dt.itemsize
        offset = GUARD + (1 if layout == "unaligned" and dt.itemsize > 1 else 0)
        self.raw = np.frombuffer(bytes(range(256)) * ((n + 2 * GUARD + 256) // 256 + 1),
                                 np.uint8)[:n + 2 * GUARD + 1].copy()
        order = "F" if layout == "f" else "C"

        def view_of(buffer, dtype):
            v = np.ndarray(full, dtype, buffer=buffer, offset=offset, order=order)
            if step == 2:
                v = v[::2]
            if layout == "neg" and shape:
                v = v[tuple(slice(None, None, -1) for _ in shape)]
            return v

        view = view_of(self.raw, dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            view[...] = grid(char, shape, seed)
        self.view = view
        self.before = self.raw.copy()
        marker = np.zeros_like(self.raw)
        view_of(marker, np.dtype(("V", dt.itemsize)))[...] = np.void(b"\xff" * dt.itemsize)
        self.outside = marker == 0

    def outside_unchanged(self):
        return bool((self.raw[self.outside] == self.before[self.outside]).all())

    def unchanged(self):
        return bool((self.raw == self.before).all())


def build_elementwise(case):
    """(inputs, out argument, guarded outs, kwargs) for one side."""
    inputs = [make_input(spec) for spec in case["inputs"]]
    guards, outs = [], None
    if case["out"] is not None:
        outs = []
        for spec in case["out"]:
            if spec is None:
                outs.append(None)
            elif spec[0] == "alias":
                x = inputs[spec[1]]
                if not x.flags.writeable:
                    x = inputs[spec[1]] = x.copy()
                outs.append(x if not spec[2] or not x.shape else
                            x[tuple(slice(None, None, -1) for _ in x.shape)])
            else:
                g = GuardedOut(*spec[1:])
                guards.append(g)
                outs.append(g.view)
    out = None
    if outs is not None:
        out = outs[0] if len(outs) == 1 and outs[0] is not None else tuple(outs)
    kwargs = {}
    for key, value in case["kwargs"].items():
        if key == "where":
            value = (grid("?", value[1], value[2]) if value[0] == "mask" else
                     value[1] if value[0] in ("py", "list") else value)
        kwargs[key] = value
    return inputs, out, guards, kwargs


def snapshot(values):
    """Bytes of every array among `values` (to see that an input or an
    aliased out stayed as it was)."""
    return [np.array(v, copy=True) if isinstance(v, np.ndarray) else None for v in values]


# --- the verdict ---------------------------------------------------------------

def call(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
            error = None
        except Exception as exc:        # noqa: BLE001 -- the class is compared
            result, error = None, exc
    complex_warned = any(issubclass(w.category, np.exceptions.ComplexWarning) for w in caught)
    return result, error, complex_warned


def _object_result(result):
    items = result if isinstance(result, tuple) else (result,)
    return any(not isinstance(r, (np.ndarray, np.generic)) or r.dtype == object for r in items)


def same_values(actual, expected, name, approx):
    """'' when equal as the oracle's assert_same sees it, else why not."""
    from oracle import assert_same
    try:
        # two answers each within the bound of the exact one: twice the bound apart
        assert_same(np.asarray(actual), np.asarray(expected), name,
                    zero_sign=name not in ZERO_SIGN_FREE, ulps=approx, ulp_factor=2)
    except AssertionError as exc:
        return str(exc)
    return ""


def _lowest_float(values):
    """The narrowest float dtype the inputs reach (a transcendental's loop
    may run there and be cast up: its ULP bound is in that dtype)."""
    kinds = [np.asarray(v).dtype for v in values if isinstance(v, (np.ndarray, np.generic))]
    floats = [np.result_type(d, np.float16) for d in kinds if d.kind in "biufc"]
    if not floats:
        return None
    low = min(floats, key=lambda d: d.itemsize // (2 if d.kind == "c" else 1))
    return np.dtype("f%d" % (low.itemsize // (2 if low.kind == "c" else 1)))


def compare(name, approx, numpy_side, titer_side, out_given, where=True, inputs=(),
            loop_dtype=None):
    """The verdict: None when titer behaved as NumPy, else (kind, detail).
    An output the call allocated under a where= mask is compared where the
    mask is True only (NumPy leaves the rest uninitialized)."""
    (n_res, n_err, n_cw), (t_res, t_err, t_cw, t_untouched) = numpy_side, titer_side
    if n_err is None and _object_result(n_res):
        if isinstance(t_err, TypeError) and "object" in str(t_err):
            return None
        return "object loop", "NumPy took its object loop; titer gave %r" % (
            t_err if t_err is not None else type(t_res),)
    if t_err is not None and not t_untouched:
        return "written on error", "%s: %s" % (type(t_err).__name__, t_err)
    if (name == "where" and n_err is None and isinstance(t_err, OverflowError)
            and any(type(x) is int for x in inputs)):
        # NumPy 2.0-2.4 truncate an out-of-range Python int in np.where; 2.5
        # raises NEP 50's OverflowError, as titer does
        return None
    if n_err is not None:
        if (isinstance(n_err, OverflowError) and isinstance(t_err, TypeError)
                and "titer has no object loop" in str(t_err)):
            # NumPy took its object loop, then its Python int result did not
            # fit the out= given: the documented difference all the same
            return "object loop (documented)", "%s | NumPy: %s" % (t_err, n_err)
        if t_err is None:
            return "accepts", "NumPy raised %s: %s" % (type(n_err).__name__, n_err)
        if not isinstance(t_err, type(n_err)):
            return "exception class", "NumPy %s: %s | titer %s: %s" % (
                type(n_err).__name__, n_err, type(t_err).__name__, t_err)
        return None
    if t_err is not None:
        if isinstance(t_err, TypeError) and "titer has no object loop" in str(t_err):
            return "object loop (documented)", str(t_err)
        return "rejects", "%s: %s" % (type(t_err).__name__, t_err)
    n_items = n_res if isinstance(n_res, tuple) else (n_res,)
    t_items = t_res if isinstance(t_res, tuple) else (t_res,)
    if isinstance(n_res, tuple) != isinstance(t_res, tuple) or len(n_items) != len(t_items):
        return "result type", "%r vs %r" % (type(t_res), type(n_res))
    for i, (t, n) in enumerate(zip(t_items, n_items)):
        if (isinstance(t, np.ndarray), isinstance(t, np.generic)) != (
                isinstance(n, np.ndarray), isinstance(n, np.generic)):
            return "result type", "output %d: titer %s, NumPy %s" % (i, type(t).__name__,
                                                                      type(n).__name__)
        if out_given[i] is not None and t is not out_given[i]:
            return "result type", "output %d is not out" % i
        if out_given[i] is None and where is not True:
            if t.shape != n.shape or t.dtype != n.dtype:
                return "value", "shape/dtype %s %s vs %s %s" % (t.shape, t.dtype, n.shape,
                                                                n.dtype)
            selected = np.broadcast_to(np.asarray(where, dtype=bool), n.shape)
            t, n = t[selected], n[selected]
        why = same_values(t, n, name, approx)
        low = _lowest_float(inputs + ((np.empty(0, loop_dtype),) if loop_dtype else ())) \
            if approx and why else None
        if low is not None and np.asarray(n).dtype.kind in "fc" and (
                np.asarray(n).real.dtype.itemsize > low.itemsize):
            narrow = low if np.asarray(n).dtype.kind == "f" else np.result_type(low, 1j)
            why = same_values(np.asarray(t).astype(narrow), np.asarray(n).astype(narrow), name,
                              approx)
        if why and t.dtype.kind in "biu" and any(
                np.asarray(x).dtype.kind in "fc" for x in inputs
                if isinstance(x, (np.ndarray, np.generic, float, complex))):
            # a float out of an integer type's range has no defined cast:
            # NumPy's own answer differs between its cast paths
            return "out-of-range cast", why
        if why:
            return "value", why
    if t_cw != n_cw:
        return "warning", "ComplexWarning: titer %s, NumPy %s" % (t_cw, n_cw)
    return None


def run_elementwise(seed, index):
    case = draw_elementwise(np.random.default_rng([seed, index]))
    name = case["op"]
    spec = _ops.OPS_BY_NAME[name]

    def numpy_call():
        inputs, out, _, kwargs = build_elementwise(case)
        if name == "where":
            return np.where(*inputs)
        if kwargs.get("where") is False and any(o and o[0] == "alias" for o in case["out"] or ()):
            # NumPy 2.4 writes an overlapping out= under where=False; its
            # own rule is that nothing is written: out comes back as it was
            outs = out if isinstance(out, tuple) else (out,)
            kept = [None if o is None else o.copy() for o in outs]
            result = numpy_ufunc(name)(*inputs, out=out, **kwargs)
            for o, k in zip(outs, kept):
                if o is not None:
                    o[...] = k
            return result
        if out is not None:
            kwargs["out"] = out
        return numpy_ufunc(name)(*inputs, **kwargs)

    numpy_side = call(numpy_call) if SIDE != "titer" else (None, None, False)
    if SIDE == "numpy":
        return case, None
    inputs, out, guards, kwargs = build_elementwise(case)
    before = snapshot(inputs)
    outs = list(out) if isinstance(out, tuple) else [out] * spec.nout
    if out is None:
        outs = [None] * spec.nout
    result, error, cw = call(lambda: titer.elementwise(name, out, *inputs, **kwargs))
    untouched = all(g.unchanged() for g in guards) if error is not None else \
        all(g.outside_unchanged() for g in guards)
    if error is not None:
        untouched = untouched and all(b is None or np.array_equal(a, b, equal_nan=True)
                                      for a, b in zip(inputs, before))
    elif not untouched:
        return case, ("written outside out", "bytes around out's view changed")
    titer_side = (result, error, cw, untouched)
    approx = spec.approx or (name in LAYOUT_DEPENDENT and any(
        np.asarray(x).dtype.kind == "c" for x in inputs))
    verdict = compare(name, approx, numpy_side, titer_side, outs, kwargs.get("where", True),
                      tuple(inputs), kwargs.get("dtype"))
    if verdict and verdict[0] == "value" and out is not None and name != "where":
        # a second opinion: NumPy's answer into fresh contiguous outputs
        # (NumPy 2.4 leaves parts of some strided outputs unwritten)
        def contiguous_out_call():
            ins, out2, _, kw = build_elementwise(case)
            outs2 = out2 if isinstance(out2, tuple) else (out2,)
            fresh = tuple(None if o is None else np.ascontiguousarray(o) for o in outs2)
            result = numpy_ufunc(name)(*ins, out=fresh, **kw)
            return result
        second = call(contiguous_out_call)
        if compare(name, approx, second, titer_side, [None] * len(outs), kwargs.get(
                "where", True), inputs) in (None, ("result type", "output 0 is not out")):
            verdict = ("numpy strided out", verdict[1])
    return case, verdict


def reduction_args(case):
    x = make_input(case["x"])
    kwargs = {}
    guards = []
    for key, value in case["kwargs"].items():
        if key == "axis" and isinstance(value, list):
            value = tuple(value[1]) if value[0] == "tuple" else list(value[1])
        elif key == "initial":
            value = [1, 2] if value[0] == "list" else value[1]
        elif key == "where":
            value = grid("?", value[1], value[2]) if value[0] == "mask" else (True, False)
        elif key == "out":
            shape = expected_shape(x, case)
            if shape is None:
                continue
            g = GuardedOut(value[1], shape, value[3], value[4])
            guards.append(g)
            value = g.view
        kwargs[key] = value
    return x, kwargs, guards


def expected_shape(x, case):
    """The result's shape (None when the axis is not valid: no out then)."""
    kw = case["kwargs"]
    axis = kw.get("axis")
    if case["func"] == "accumulate":
        return x.shape
    try:
        axes = range(x.ndim) if axis is None else \
            [a % x.ndim for a in (axis[1] if isinstance(axis, list) else [axis])]
        if any(not -x.ndim <= a < max(x.ndim, 1) for a in
               (axis[1] if isinstance(axis, list) else [axis] if axis is not None else [])):
            return None
    except ZeroDivisionError:
        return None
    axes = set(axes)
    if kw.get("keepdims"):
        return tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    return tuple(s for d, s in enumerate(x.shape) if d not in axes)


def reduction_fns(case):
    func, name = case["func"], case["op"]
    if func == "reduce":
        return numpy_ufunc(name).reduce, lambda x, **kw: titer.reduce(name, x, **kw)
    if func == "accumulate":
        return numpy_ufunc(name).accumulate, lambda x, **kw: titer.accumulate(name, x, **kw)
    return getattr(np, func), getattr(titer, func)


def run_reduction(seed, index):
    case = draw_reduction(np.random.default_rng([seed, index]))
    numpy_fn, titer_fn = reduction_fns(case)

    def numpy_call():
        x, kwargs, _ = reduction_args(case)
        return numpy_fn(x, **kwargs)

    numpy_side = call(numpy_call) if SIDE != "titer" else (None, None, False)
    if SIDE == "numpy":
        return case, None
    x, kwargs, guards = reduction_args(case)
    before = np.array(x, copy=True)
    result, error, cw = call(lambda: titer_fn(x, **kwargs))
    if error is not None:
        untouched = all(g.unchanged() for g in guards) and np.array_equal(x, before,
                                                                          equal_nan=True)
    else:
        untouched = all(g.outside_unchanged() for g in guards)
        if not untouched:
            return case, ("written outside out", "bytes around out's view changed")
    name = case["op"] or {"sum": "add", "prod": "multiply", "max": "maximum",
                          "min": "minimum", "mean": "mean"}.get(case["func"], case["func"])
    spec = _ops.OPS_BY_NAME.get(name)
    # the loop dtype, near enough: dtype=, else NumPy's result's
    loop = (np.dtype(kwargs["dtype"]) if kwargs.get("dtype") else
            np.asarray(numpy_side[0]).dtype if numpy_side[1] is None and kwargs.get("out") is None
            else x.dtype)
    # Held to the ULP bounds: transcendentals; means (a sum, then a divide);
    # float16 folds (NumPy keeps a float accumulator for the length of each
    # call of its inner loop, so its bits follow its iteration); complex
    # products (NumPy fuses the multiply-add where its iterator hands the
    # elementwise loop whole rows, not in its reduce loop)
    approx = (bool(spec is not None and spec.approx) or case["func"] == "mean"
              or (loop.char == "e" and name != "add")
              or (loop.kind == "c" and name == "multiply"))
    out = kwargs.get("out")
    verdict = compare(name, approx, numpy_side, (result, error, cw, untouched), [out],
                      inputs=(x,))
    if (verdict and verdict[0] == "value" and out is not None and out.dtype != loop
            and not _held_output(name, x, kwargs.get("dtype"), out)):
        # NumPy accumulates in out= itself, through casts each way: a value
        # out of out's range comes back changed; titer casts its result once
        # (except where that rounding shows in a float loop: NOTE [held outputs])
        verdict = ("out-of-range cast", verdict[1])
    if verdict and verdict[0] == "value" and loop.kind in "efdFD" \
            and name not in _ops.REORDERABLE:
        # NumPy's SIMD float loops (divide, arctan2, power...) read the
        # reduce's in-place accumulator once per vector: not the left fold
        # NumPy defines
        verdict = ("numpy simd reduce", verdict[1])
    axis = kwargs.get("axis")
    several_axes = (x.ndim >= 2 and axis is None) or (isinstance(axis, tuple) and len(axis) > 1)
    if verdict and verdict[0] == "value" and (loop.char == "e" or (
            loop.kind == "c" and name == "multiply") or (
            name in ("add", "mean", "multiply") and (case["x"][3] == "zero" or (
                several_axes and not (x.flags.c_contiguous or x.flags.f_contiguous))))):
        # (a float sum or product over a stride-0 dim: NumPy's iterator
        # makes that dim its inner reduce loop, titer its outer (titer's
        # bits are NumPy's for the same values laid out contiguously); over several axes of a
        # non-contiguous array NumPy sums what its iterator buffers, pairwise
        # per buffer, while titer sums each row pairwise and adds the rows)
        verdict = ("numpy iteration order", verdict[1])
    if verdict and verdict[0] == "value" and "where" in kwargs and name in ("add", "mean"):
        # NumPy adds each run of selected elements as its own partial sum
        verdict = ("masked sum grouping", verdict[1])
    return case, verdict


def _held_output(name, x, dtype, out):
    """Whether np.<name>.reduce holds its running value in out='s float or
    complex dtype (NOTE [held outputs]), as titer.reduce does too (into an
    integer out= the casts each way meet out-of-range values, above)."""
    ufunc = getattr(np, name, None)
    if not isinstance(ufunc, np.ufunc) or out.dtype.kind not in "fc":
        return False
    T = _frontend.reduction_loop_dtype(ufunc, x.dtype, None if dtype is None else np.dtype(dtype),
                                       out.dtype)
    return _frontend.held_output(name, T, out.dtype) is not None


RUNNERS = {"elementwise": run_elementwise, "reduction": run_reduction}

# Findings that are NumPy's own behavior rather than titer's (each explained
# where it is classified), reported but not failures.
NUMPY_SIDE = frozenset(["numpy crash", "out-of-range cast", "masked sum grouping",
                        "numpy simd reduce", "numpy iteration order", "numpy strided out",
                        "object loop (documented)"])


def run_one(kind, seed, index):
    """(case, verdict) with titer's threads and grain as the case asks."""
    rng = np.random.default_rng([seed, index])
    case = (draw_elementwise if kind == "elementwise" else draw_reduction)(rng)
    grain = titer.get_grain_size()
    titer.set_grain_size(case["grain"])
    try:
        with titer.num_threads(case["threads"]), np.errstate(all="ignore"):
            return RUNNERS[kind](seed, index)
    finally:
        titer.set_grain_size(grain)


def reproducer(kind, seed, index):
    return "python tests/fuzz.py %s %d %d" % (kind, seed, index)


# --- batches in child processes ----------------------------------------------

def run_cases(kind, seed, count, batch=2000, timeout=600):
    """Run cases 0..count-1 in child processes; returns a list of findings
    (dicts with kind, detail, reproducer and the case).  A child that dies
    (signal, hang) is reported on the case it was running."""
    findings = []
    start = 0
    while start < count:
        n = min(batch, count - start)
        cmd = [sys.executable, os.path.abspath(__file__), kind, str(seed), str(start), str(n)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
        running = start
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        for line in out.splitlines():
            record = json.loads(line)
            if "start" in record:
                running = record["start"]
            elif "done" in record:
                running = record["done"] + 1
            else:
                findings.append(record)
        if proc.returncode != 0 and running < start + n:
            crashed = "crash" if any(_crashes(kind, seed, running, "titer")
                                     for _ in range(2)) else "numpy crash"
            findings.append({"kind": crashed, "detail": "child exited with %s"
                             % proc.returncode, "index": running,
                             "reproducer": reproducer(kind, seed, running),
                             "batch": "python tests/fuzz.py %s %d %d %d"
                             % (kind, seed, start, running - start + 1)})
            running += 1
        start = max(running, start + 1) if proc.returncode != 0 else start + n
    return findings


def _crashes(kind, seed, index, side):
    """Whether the case kills a child that runs only one side of it."""
    env = dict(os.environ, TITER_FUZZ_SIDE=side)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), kind, str(seed),
                           str(index)], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=300)
    return proc.returncode != 0


def _child(kind, seed, start, count):
    """Run a batch, one JSON line per case start and per finding (flushed,
    so the parent knows which case a crash hit)."""
    for index in range(start, start + count):
        print(json.dumps({"start": index}), flush=True)
        case, verdict = run_one(kind, seed, index)
        if verdict is not None:
            print(json.dumps({"kind": verdict[0], "detail": verdict[1][:400], "index": index,
                              "reproducer": reproducer(kind, seed, index), "case": case}),
                  flush=True)
        print(json.dumps({"done": index}), flush=True)


def main(argv):
    kind, seed, start = argv[0], int(argv[1]), int(argv[2])
    if len(argv) > 3:
        _child(kind, seed, start, int(argv[3]))
        return
    case, verdict = run_one(kind, seed, start)
    print(json.dumps(case))
    print("ok" if verdict is None else "%s: %s" % verdict)


if __name__ == "__main__":
    main(sys.argv[1:])

"""titer.evaluate: a whole expression in one pass over memory, NumPy-exact.

``titer.evaluate("2*a + 3*b")`` gives what composing ``titer.elementwise``
calls gives (``np.add(np.multiply(2, a), np.multiply(3, b))``): every
operator is its NumPy ufunc, each intermediate has NumPy's dtype, the same
titer loops run -- but block by block in cache, without a full-size
temporary per operation.  The layers:

* ``_evaluate_parse``: the string -> a tree, by a whitelist (``ast``);
* ``_evaluate_plan``: the tree + operand types -> a program (NumPy's loop per
  node, registers), cached per expression and operand types;
* ``_core.EvalProgram`` / ``EvalPass`` (``_evaluate.pxi``): the program run
  over the iterator's plan, in blocks, on titer's threads.

This module gathers the operands, keeps the cache, runs the prelude (nodes
on scalars only, through ``titer.elementwise``), handles ``out=``, FP
warnings and the top-level reductions.  The expression is computed by
composing ``titer.elementwise`` calls instead -- the same result, with
full-size temporaries -- where the executor's fixed tables cannot hold a
program (more than 7 array operands, more than 64 steps), where an int
constant needs NumPy's value-dependent answer, for an empty result of
non-empty operands (whose intermediates may warn), and where the planner
refuses the expression (the composed calls then raise the error they meet
first).
"""
import sys
import warnings
from collections import namedtuple

import numpy as np

from . import _core, _frontend
from ._evaluate_parse import Apply, Literal, Name, Reduction, parse
from ._evaluate_plan import TooBig, explain as _explain_program, fast_power, plan

_PARSED = {}                # expression -> (tree, names, names used as ** exponents)
_PROGRAMS = {}              # cache key -> (Program, EvalProgram), or (why not, None)
_CACHE_LIMIT = 512
_PYTHON_NUMBERS = (bool, int, float, complex)
try:                        # NumPy 2's errstate, one object per np.errstate/seterr
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:         # (a NumPy without it: np.geterr() every call)
    _extobj_contextvar = None
_ERRSTATE = (None, False)   # (errstate object, whether some error raises)
_SLAB_ELEMENTS = 1 << 20    # elements materialized per slab of an axis reduction
# NOTE: [fused rows] A reduction that keeps an axis runs inside the pass when
# its rows hold at least this many elements; shorter rows pay the per-leaf
# steps (a walk, a pairwise call, the flags) per few elements, where
# materialized slabs and titer.reduce's layouts are faster.  Measured on
# 2^24 float32 `sum(a*2, axis=1)` (Sapphire Rapids VM, 2 / 1 threads, ms):
# rows of 128 slabs 6.6 / 9.0 against fused 5.2 / 9.6, 256: 6.0 / 8.9
# against 3.6 / 6.6, 1024: 5.8 / 9.1 against 2.0 / 4.3.
_FUSED_ROW_MIN = 256
# NOTE: [fused columns] A reduction over dims consecutive in the iteration
# after kept ones (axis=0 of C arrays, axis=1 of 3-d ones) runs inside the
# pass too: the kept elements faster than the reduced dims are columns cut
# into tiles (_core._set_evaluate_column_tile_bytes of values), repeated per
# batch of the slower kept ones; each tile on one thread computes its values
# of one reduced index at a time and folds them into its accumulators with
# the op's own T,T->T loop -- per column a left fold in the iteration order
# from the op's identity (0 + -0.0 is +0.0; max/min from the first value),
# as NumPy reduces this layout (no pairwise sums here), so any thread count
# gives the same bits, for every dtype.  Threads take batches, or split the
# columns where each reads at least 2 KiB of a row
# (_set_evaluate_column_run_bytes): shorter runs lose the prefetchers.
# Where one tile holds every column, its reduced indices are consecutive in
# the iteration: the tile computes the values of as many of them as fill a
# tile in one walk, then folds them index by index (the same folds, in the
# same order), so narrow columns do not pay a walk through the program per
# reduced index: 2^24 float32 sum(a*b + c, axis=0) (Emerald Rapids VM, one
# thread, ms) 16 columns 55.7 -> 17.8 (NumPy 52-55), 64 columns 29.1 ->
# 15.1, 256 columns 22.3 -> 15.2, 1024 columns (rows of 4 KiB) 20.7 -> 20.0.
# Measured (Sapphire Rapids VM, float32 sum(a*b, axis=0), 2 / 1 threads,
# ms): 4096^2 slabs 13.4 / 19.4 against fused 4.6 / 9.2 (float64 24.2 /
# 37.0 against 10.3 / 20.6); 2^22 elements in 4 columns slabs 8.0 / 8.1
# against fused 22.0 / 22.1, 8 columns 22.2 / 39.8 against 11.5 / 10.7, 16
# columns 12.1 / 20.5 against 7.3 / 6.8 -- hence at least 8 kept elements.
# A middle axis, 2^24 float32 sum(a*b, axis=1), 2 / 1 threads: (64, 512,
# 512) slabs 9.0 / 14.6 against fused 4.7 / 10.4, (16, 4096, 256) 11.1 /
# 15.9 against 6.0 / 12.8, (4096, 64, 64) 9.6 / 16.5 against 8.1 / 15.7.
_FUSED_COLUMNS_MIN = 8
_BUFFER_MAX = 1 << 20       # np.setbufsize's elements a fused buffered sum holds per thread
_REDUCTION_STRATEGY = (
    "reduced leaf by leaf inside the pass, over everything or over rows of at least %d "
    "elements along the iteration's fastest axes; over columns of at least %d kept elements "
    "where the reduced axes come together after them in the iteration; else in slabs of "
    "whole reductions" % (_FUSED_ROW_MIN, _FUSED_COLUMNS_MIN))


def evaluate(expr, local_dict=None, *, out=None, casting="same_kind", order="K"):
    """Evaluate the expression string `expr` over NumPy arrays in one pass.

    Like ``numexpr.evaluate``: names are taken from `local_dict`, else the
    caller's locals, then the caller's globals.  The expression may use
    numbers, the operators ``+ - * / // % ** & | ^ ~ < <= == != > >=``,
    unary ``-``/``+`` and any op of ``titer.ops()`` by NumPy name
    (``where(c, x, y)``, ``clip(x, lo, hi)``); a top-level ``sum``,
    ``prod``, ``max`` or ``min`` with ``axis=`` reduces the expression.
    The result is what composing ``titer.elementwise`` calls gives (NumPy's
    dtypes, NEP 50 for Python numbers, NumPy's warnings and errors); `out`,
    `casting` and `order` act on the last operation as in a ufunc call
    (`casting` applies to every operation).  NumPy arrays run fused in
    cache-sized blocks on titer's threads; CuPy arrays (any operand or
    `out`) run the same program as one fused kernel on their device (the
    composed calls' bits: each step is the device function the op's own
    kernel calls), or the composed calls where that kernel cannot (see
    titer/cuda/evaluate.py)."""
    frame = sys._getframe(1)
    return _evaluate(expr, local_dict, frame, out, casting, order)


def explain_evaluate(expr, local_dict=None, *, out=None, casting="same_kind"):
    """The program titer.evaluate runs for `expr` with these operands, as text."""
    frame = sys._getframe(1)
    tree, names, exponents = _parsed(expr)
    raw = _lookup(names, exponents, local_dict, frame)[0]
    arg = tree.arg if isinstance(tree, Reduction) else tree
    if _on_device(raw, out):
        planned = isinstance(arg, Apply) and _device_program(
            expr, arg, raw, casting,
            None if out is None or isinstance(tree, Reduction) else out.dtype)
        if not planned:
            return ("titer.evaluate(%r): composed titer.elementwise calls on the GPU" % expr)
        program = planned[0]._replace(leaf_regs=(-1,) * len(planned[0].leaves))
        text = _explain_program(program, expr).replace(
            "titer.evaluate(%r)" % expr,
            "titer.evaluate(%r): one fused kernel on the GPU, each step a local" % expr, 1)
        if isinstance(tree, Reduction):
            text += ("\n  reduced by titer.reduce's %s kernel over axis=%r, computing each "
                     "element it folds (the result written nowhere)" % (tree.kind, tree.axis))
        return text
    values, types = _operands(raw)
    program, compiled = _program(expr, arg, names, values, types, casting,
                                 None if out is None or isinstance(tree, Reduction)
                                 else out.dtype)
    if compiled is None:
        return ("titer.evaluate(%r): composed titer.elementwise calls (%s)"
                % (expr, program))
    text = _explain_program(program, expr, compiled.block)
    if isinstance(tree, Reduction):
        text += "\n  then %s over axis=%r (%s)" % (tree.kind, tree.axis, _REDUCTION_STRATEGY)
    return text


def _parsed(expr):
    """(tree, names, names used as `**` exponents) of an expression, cached."""
    found = _PARSED.get(expr)
    if found is None:
        tree, names = parse(expr)
        arg = tree.arg if isinstance(tree, Reduction) else tree
        found = (tree, tuple(names), tuple(sorted(_exponent_names(arg))))
        if len(_PARSED) >= _CACHE_LIMIT:
            _PARSED.clear()
        _PARSED[expr] = found
    return found


def _lookup(names, exponent_names, local_dict, frame):
    """(values, key): each name's value -- local_dict (else the frame's
    locals), then the frame's globals -- and the operands' cache key
    (evaluate_operands; None when they need validating first)."""
    return _core.evaluate_operands(names, frame.f_locals if local_dict is None else local_dict,
                                   frame.f_globals, exponent_names)


def _operand(name, x):
    """(kind, type, value) of an operand: an array of at least one dim is
    a leaf; Python numbers, NumPy scalars and 0-d arrays are constants.
    (GPU arrays never get here: `_on_device` sends them to the composed
    calls.)"""
    t = type(x)
    if t in _PYTHON_NUMBERS:
        return "scalar", _frontend.resolution_type(x), x
    if t is not np.ndarray and not isinstance(x, np.generic):
        if isinstance(x, np.ndarray) or hasattr(type(x), "__array_ufunc__"):
            raise TypeError("titer.evaluate runs on plain NumPy arrays; %r is a %s"
                            % (name, t.__name__))
        x = np.asarray(x)
    if x.dtype.newbyteorder("=") not in _core.DTYPES:
        raise TypeError("titer does not support dtype %s of %r; supported: bool, int8-64, "
                        "uint8-64, float16/32/64, complex64/128" % (x.dtype, name))
    if isinstance(x, np.generic) or x.ndim == 0:
        if not x.dtype.isnative:
            x = _native(np.asarray(x))
        return "scalar", x.dtype, x
    return "array", x.dtype.newbyteorder("="), x      # EvalPass reads it natively


def _operands(raw):
    """(values, types): each operand as evaluate reads it and its (kind, type)."""
    values, types = {}, {}
    for name, x in raw.items():
        kind, t, values[name] = _operand(name, x)
        types[name] = (kind, t)
    return values, types


def _native(x):
    """x as a native-byte-order, aligned array (copied by titer's loops)."""
    if x.dtype.isnative and x.flags.aligned:
        return x
    y = np.empty(x.shape, x.dtype.newbyteorder("="))
    _core.copy(y, x)
    return y


def _program(expr, tree, names, values, types, casting, out_dtype):
    """The cached (Program, EvalProgram) for these operand types (name ->
    (kind, type), `_operand`), or (reason, None) when the executor cannot
    run it."""
    key = (expr, casting, out_dtype,
           _core.evaluate_operands(names, values, {}, _parsed(expr)[2])[1])
    found = _PROGRAMS.get(key)
    if found is None:
        exponents = {name: values[name] for name in _parsed(expr)[2]
                     if type(values[name]) in (int, float)}
        try:
            program = plan(tree, types, exponents, casting, out_dtype)
            found = (program, _core.EvalProgram(program) if program.steps else None)
        except TooBig as exc:
            found = (str(exc), None)
        if len(_PROGRAMS) >= _CACHE_LIMIT:
            _PROGRAMS.clear()
        _PROGRAMS[key] = found
    return found


def _exponent_names(node, found=None):
    found = set() if found is None else found
    if isinstance(node, Apply):
        if node.op == "**" and isinstance(node.args[1], Name):
            found.add(node.args[1].id)
        for arg in node.args:
            _exponent_names(arg, found)
    return found


def _evaluate(expr, local_dict, frame, out, casting, order):
    tree, names, exponent_names = _PARSED.get(expr) or _parsed(expr)
    # (_lookup's call, inlined: ~0.1 us of a 1-element call)
    values, parts = _core.evaluate_operands(
        names, frame.f_locals if local_dict is None else local_dict, frame.f_globals,
        exponent_names)
    if out is not None and type(out) is not np.ndarray:
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        if type(out) is not np.ndarray:
            if _frontend.is_device_array(out):
                return _device_call(expr, tree, values, out, casting, order)
            raise TypeError("titer.evaluate: out must be a numpy.ndarray, got %s"
                            % type(out).__name__)
    if order != "K":
        order = _frontend.normalize_order(order)
    # the fast path: operands whose key the cache knows need no validation
    found = None
    if parts is not None:
        found = _PROGRAMS.get((expr, casting, None if out is None else out.dtype, parts))
    if found is None:
        _frontend.normalize_casting(casting)
        if parts is None and _on_device(values, None):
            return _device_call(expr, tree, values, out, casting, order)
        values, types = _operands(values)
        if isinstance(tree, Reduction):
            return _reduce(expr, tree, names, values, types, out, casting)
        try:
            found = _program(expr, tree, names, values, types, casting,
                             None if out is None else out.dtype)
        except Exception:
            # The composed calls give this error once they reach the node
            # that cannot be planned -- unless a node before it raises first
            # (a negative integer exponent, a Python int its dtype cannot
            # hold): run them, for the error they give.
            return _compose_root(tree, values, out, casting, order)
    elif isinstance(tree, Reduction):
        return _reduce(expr, tree, names, values, None, out, casting)
    program, compiled = found
    if compiled is None:
        if not isinstance(program, str):    # the expression is one operand
            return _single(program, values, out, casting)
        return _compose_root(tree, values, out, casting, order)
    leaves = compiled.leaves_of(values)                 # EvalPass makes them native
    if out is None and order != "K":
        out = np.empty(np.broadcast_shapes(*[x.shape for x in leaves]), program.result_dtype,
                       order=_alloc_order(order, leaves))
        given = None
    else:
        given = out
    target = out
    if out is not None and (not out.dtype.isnative or not out.flags.aligned
                            or compiled.loop_error_possible or _raising()):
        # the loops cannot write it in place, or the run may stop with an
        # error after writing: run into a temporary, copy when all went well
        if not out.flags.writeable:
            raise ValueError("output array is read-only")
        target = np.empty(out.shape, out.dtype.newbyteorder("="))
    consts = compiled.consts_of(values)
    try:
        run = _core.EvalPass(compiled, target, leaves,
                             _constants(program, values) if consts is None else consts)
    except OverflowError:
        # an int constant NumPy answers by its value (a comparison with an
        # int out of the array's range) or refuses: composed calls do either
        return _compose_root(tree, values, out, casting, order)
    if run.numel == 0 and any(x.size for x in leaves):
        # an empty result of non-empty operands: the composed calls compute
        # (and warn about) the intermediates of the operands' own shapes
        return _compose_root(tree, values, out, casting, order)
    if compiled.discards_imaginary:
        _warn_discarded(program)
    if run.run_all():
        _report(compiled, run.flags())
    result = run.out
    if target is not out:
        _core.copy(out, result, "unsafe")
        result = out
    if given is None and out is None and result.ndim == 0:
        return result[()]
    return result


def _alloc_order(order, leaves):
    if order == "A":
        return "F" if leaves and all(x.flags.f_contiguous and not x.flags.c_contiguous
                                     for x in leaves) else "C"
    return order


def _raising():
    """Some FP error is set to raise: nothing may be written into out= then.
    np.geterr() costs ~1.5 us (half a 1-element call); its answer is kept
    for the errstate object NumPy holds (a new one each np.errstate or
    np.seterr), which `_ERRSTATE` holds on to, so its id is not reused."""
    if _extobj_contextvar is None:
        return "raise" in np.geterr().values()
    state = _extobj_contextvar.get()
    kept = _ERRSTATE
    if kept[0] is not state:
        kept = _remember_errstate(state)
    return kept[1]


def _remember_errstate(state):
    global _ERRSTATE
    _ERRSTATE = (state, "raise" in np.geterr().values())
    return _ERRSTATE


def _warn_discarded(program):
    for step in program.steps:
        if step.discards_imaginary:
            _frontend.warn_discarded_imaginary(4)


def _report(compiled, flags, reduce_bits=0, later=()):
    """FP flags per step, in the program's order, then a fused reduction's
    and `later`'s ((op name, flags) pairs), as the composed calls report
    them (NOTE: [evaluate flags]); warnings point at the caller's line, as
    titer.elementwise's do."""
    if not (reduce_bits or any(flags) or any(bits for _, bits in later)):
        return
    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for label, bits in (list(zip(compiled.labels + ("reduce",),
                                         list(flags) + [reduce_bits])) + list(later)):
                if bits:
                    _core._report_fpe(bits, label)
    finally:                # warnings of the steps before one that raises too
        level = _caller_stacklevel()
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=level)


def _caller_stacklevel():
    """warnings.warn's stacklevel, from the function that calls this, of
    the first frame outside this module."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    return level


def _constants(program, values):
    """Per constant slot its value (a Python number, converted by EvalPass
    into the loop's dtype with NumPy's OverflowError, or a NumPy scalar);
    prelude nodes computed by titer.elementwise on their scalars first."""
    computed = _prelude_values(program, values) if program.prelude else ()
    return [_scalar_ref(c.ref, values, computed) for c in program.consts]


def _scalar_ref(ref, values, computed):
    kind, what = ref
    if kind == "literal":
        return what
    if kind == "prelude":
        return computed[what]
    return values[what]


def _single(program, values, out, casting):
    """The expression is one operand or constant: a copy of it (into out=)."""
    value = _result_value(program, values)
    if out is not None:
        return _core.copy(out, value, casting)
    if isinstance(value, np.ndarray):
        result = np.empty(value.shape, value.dtype.newbyteorder("="))
        return _core.copy(result, value)
    if type(value) in _PYTHON_NUMBERS:
        return np.asarray(value)[()]
    return value


def _result_value(program, values):
    """The operand or constant a program without steps is."""
    kind, ref = program.result[0], program.result[1]
    if kind == "leaf":
        return values[program.leaves[ref]]
    return _scalar_ref(ref, values, _prelude_values(program, values))


def _prelude_values(program, values):
    computed = []
    for pre in program.prelude:
        result = _core.elementwise(pre.op, None, *[_scalar_ref(r, values, computed)
                                                   for r in pre.args])
        if result.dtype != pre.dtype:   # a Python int beyond int64: NumPy's dtype by value
            raise OverflowError("a constant's dtype depends on its value")
        computed.append(result)
    return computed


# -- composed calls: the executor's fallback (and its definition) ------------

def _compose(node, values, casting="same_kind"):
    """The value of `node` computed by composing titer.elementwise calls."""
    if isinstance(node, Name):
        return values[node.id]
    if isinstance(node, Literal):
        return node.value
    op, args = _composed_op(node, [_compose(a, values, casting) for a in node.args])
    return _core.elementwise(op, None, *args, casting=casting)


def _composed_op(node, args):
    """The op and arguments of node's call (`x ** 2` is square(x) for an
    inexact x, as ndarray's `**`)."""
    if node.op != "**":
        return node.op, args
    base = args[0]
    base_type = (None if type(base) in _PYTHON_NUMBERS
                 else base.dtype if hasattr(base, "dtype") else np.asarray(base).dtype)
    special = fast_power(base_type, args[1] if type(args[1]) in (int, float) else None)
    return (special, args[:1]) if special is not None else ("power", args)


def _compose_root(tree, values, out, casting, order="K"):
    op, args = _composed_op(tree, [_compose(a, values, casting) for a in tree.args])
    return _core.elementwise(op, out, *args, casting=casting, order=order)


def _on_device(values, out):
    """A GPU array among the operands or out=: the composed calls run them
    (titer.elementwise and titer.reduce launch titer's kernels on the
    device; a mix with NumPy arrays gets their error)."""
    return (out is not None and _frontend.is_device_array(out)) or any(
        _frontend.is_device_array(x) for x in values.values())


# -- device operands: one fused kernel (titer/cuda/evaluate.py) ----------------

def _device_call(expr, tree, values, out, casting, order):
    """The expression on device arrays: the program the CPU runs, as one
    fused kernel on their device where titer.cuda.evaluate can run it, else
    the composed calls (its definition).  A top-level reduction computes
    the program inside titer.reduce's kernel, or reduces the fused result
    with titer.reduce."""
    order = _frontend.normalize_order(order)
    arg = tree.arg if isinstance(tree, Reduction) else tree
    result = None
    if isinstance(tree, Reduction) and isinstance(arg, Apply):
        result = _device_fused_reduction(expr, tree, values, out, casting)
        if result is not None:
            return result
    if isinstance(arg, Apply):
        result = _device_fused(expr, arg, values, None if isinstance(tree, Reduction) else out,
                               casting, "K" if isinstance(tree, Reduction) else order)
    if result is None:
        return _compose_call(tree, values, out, casting, order)
    if isinstance(tree, Reduction):
        return _core.reduce(tree.op, result, tree.axis, None, out)
    return result


def _device_fused(expr, arg, values, out, casting, order):
    """The fused kernel's result, or None (compose)."""
    result, found = _replayed("replay", _exponent_key(expr, casting, order, values), values, out)
    if result is not None:
        return result
    planned = _planned(expr, arg, values, casting, None if out is None else out.dtype)
    if planned is None:
        return None
    return _core._cuda_entry("evaluate", "run")(planned[0], values, planned[1], out, order,
                                                record=found)


def _device_fused_reduction(expr, tree, values, out, casting):
    """The reduction with the program inside its kernel, or None."""
    result, found = None, None
    if out is None:             # (a new result is recorded, not an out=)
        result, found = _replayed("replay_reduction",
                                  ("reduce",) + _exponent_key(expr, casting, "K", values),
                                  values, None)
    if result is not None:
        return result
    planned = _planned(expr, tree.arg, values, casting, None)
    if planned is None:
        return None
    return _core._cuda_entry("evaluate", "reduce_run")(planned[0], values, planned[1], tree.op,
                                                       tree.axis, out, record=found)


def _replayed(entry, key, values, out):
    """(the result of a repeated call's recorded launches, re-addressed, or
    None; the replay key to record this call under, or None)."""
    found = _core._cuda_entry("evaluate", "replay_key")(key, values, out)
    if found is None:
        return None, None
    try:
        return _core._cuda_entry("evaluate", entry)(
            found, lambda program: _constants(program, values), out), found
    except OverflowError:
        return None, found


def _planned(expr, arg, values, casting, out_dtype):
    """(the device program, its constants' values), or None: compose."""
    if any(isinstance(x, np.ndarray) and x.ndim for x in values.values()):
        return None                 # NumPy arrays beside device ones: the calls' TypeError
    planned = _device_program(expr, arg, values, casting, out_dtype)
    if planned is None:
        return None
    program, scalars = planned
    try:
        return program, _constants(program, scalars)
    except OverflowError:
        return None                 # a prelude value's dtype depends on its value


def _exponent_key(expr, casting, order, values):
    """A device call's key parts: the planner reads a `**` exponent's value
    when it is a Python number."""
    return (expr, casting, order, tuple((type(v), v) if type(v) in (int, float) else None
                                        for v in map(values.get, _parsed(expr)[2])))


def _device_program(expr, arg, values, casting, out_dtype):
    """(the cached Program of `arg` for the device operands' types, the
    scalars as evaluate reads them), or None when it has no steps or the
    planner refuses it (the composed calls give its error)."""
    leaf_type = _core._cuda_entry("evaluate", "leaf_type")
    types, scalars = {}, {}
    try:
        for name, x in values.items():
            if _frontend.is_device_array(x):
                types[name] = leaf_type(x)
            else:
                kind, t, scalars[name] = _operand(name, x)
                types[name] = (kind, t)
    except Exception:               # an operand the composed calls refuse, with their error
        return None
    exponents = {name: scalars[name] for name in _parsed(expr)[2]
                 if name in scalars and type(scalars[name]) in (int, float)}
    key = ("device", expr, casting, out_dtype, tuple(sorted(types.items())),
           tuple(sorted(exponents.items())))
    found = _PROGRAMS.get(key)
    if found is None:
        try:
            found = plan(arg, types, exponents, casting, out_dtype)
        except Exception:           # TooBig, or an error the composed calls raise
            found = False
        if found and not found.steps:
            found = False
        if len(_PROGRAMS) >= _CACHE_LIMIT:
            _PROGRAMS.clear()
        _PROGRAMS[key] = found
    return (found, scalars) if found else None


def _compose_call(tree, values, out, casting, order):
    """The expression as its definition: composed titer calls (the GPU's
    evaluate: one kernel and one temporary per operation)."""
    if isinstance(tree, Reduction):
        return _core.reduce(tree.op, _compose(tree.arg, values, casting), tree.axis, None, out)
    if isinstance(tree, (Name, Literal)):       # one operand: a copy of it
        value = _compose(tree, values, casting)
        return _core.copy(_core.empty_like(value) if out is None else out, value, casting)
    return _compose_root(tree, values, out, casting, order)


# -- top-level reductions ------------------------------------------------------

def _reduce(expr, tree, names, values, types, out, casting):
    """sum/prod/max/min of the expression: what titer.reduce of the composed
    result gives, computing the expression in pieces (see the README)."""
    if types is None:
        values, types = _operands(values)
    try:
        program, compiled = _program(expr, tree.arg, names, values, types, casting, None)
    except Exception:           # the composed calls' error (see _evaluate)
        return _core.reduce(tree.op, _compose(tree.arg, values, casting), tree.axis, None, out)
    if compiled is None:
        if isinstance(program, str):
            x = _compose(tree.arg, values, casting)
        else:
            x = _result_value(program, values)
        return _core.reduce(tree.op, x, tree.axis, None, out)
    leaves = [_native(values[name]) for name in program.leaves]
    try:
        consts = _constants(program, values)
        # (converts the constants: NumPy's OverflowError; the plan of the
        # leaves alone, a fused reduction's)
        linear = _core.EvalPass(compiled, None, list(leaves), consts, True)
    except OverflowError:
        return _core.reduce(tree.op, _compose(tree.arg, values, casting), tree.axis, None, out)
    shape = np.broadcast_shapes(*[x.shape for x in leaves])
    axes = _frontend.normalize_axes(tree.axis, len(shape))
    kept = [d for d in range(len(shape)) if d not in axes and shape[d] > 1]
    _warn_discarded(program)
    numel = 1
    for n in shape:
        numel *= n
    if numel == 0:          # intermediates of the operands' own shapes may warn
        return _core.reduce(tree.op, _compose(tree.arg, values, casting), tree.axis, None, out)
    held = _held_output(tree.op, program, out)
    fused = None if held else _reduce_fused(tree, compiled, program, linear, shape, axes, out)
    if fused is not None:
        return fused
    if kept and not held:
        return _reduce_slabs(tree, compiled, program, leaves, consts, shape, axes, kept[0], out,
                             linear.perm)
    # computed in full: no kit for it (an out= that changes the loop dtype
    # of an op other than a float sum, without a widening kit), or an out=
    # that holds the running value in its narrower dtype, whose roundings
    # follow the whole layout (NOTE [held outputs] in titer_reduce_buffered.h)
    run = _core.EvalPass(compiled, None, leaves, consts)
    run.run_all()
    _report(compiled, run.flags())
    return _core.reduce(tree.op, run.out, tree.axis, None, out)


def _reduce_fused(tree, compiled, program, run, shape, axes, out):
    """The reduction inside the pass `run` (EvalPass on the plan of the
    leaves alone), in out= or as NumPy returns it: over everything, over
    rows where the reduced axes are the iteration's fastest (each result
    element then reduces a range of the iteration order, as the composed
    reduction of the expression in its iteration layout does) and hold at
    least _FUSED_ROW_MIN elements, or over columns where they are
    consecutive in it after kept ones (NOTE: [fused columns]); None where
    the order, the dtypes or the layout do not allow it."""
    ufunc = _frontend.ufunc_for(tree.op)
    T = _frontend.reduction_loop_dtype(ufunc, program.result_dtype, None, None)
    buffer, converted = 0, False
    if out is not None:     # NumPy's checks of out=, before anything runs
        _frontend.check_reduction_out(tree.op, out.shape, _frontend.reduction_shape(
            shape, axes, False), out.flags.writeable)
        out_loop = _frontend.reduction_loop_dtype(ufunc, program.result_dtype, None, out.dtype)
        if out_loop != T:
            # NumPy converts the values as it reduces, in buffers: float sums
            # then add their pairwise sums in order; other ops read them with
            # a widening kit, where titer has one
            T, converted = out_loop, True
            buffer = _buffered_sum_elements(tree.op, T)
            if buffer is None:
                return None
    reduced = {d for d in axes if shape[d] > 1}
    order = [d for d in run.perm if shape[d] > 1]           # fastest first
    inner = _kept_inside(order, reduced)
    if inner is None:
        return None
    kept = order[:inner] + order[inner + len(reduced):]
    row = 1
    for d in reduced:
        row *= shape[d]
    ncols = 1
    for d in order[:inner]:
        ncols *= shape[d]
    if inner == 0 and (not kept or row >= _FUSED_ROW_MIN):
        fused = run.reduce_all(tree.op, T, _frontend.folds_in_order(tree.op, T), run.numel // row,
                               buffer)
    elif inner and ncols >= _FUSED_COLUMNS_MIN and not converted:
        fused = _reduce_columns(run, tree.op, T, ncols, run.numel // (row * ncols))
    else:
        return None
    if fused is None:
        return None
    values, bits = fused
    _report(compiled, run.flags(), bits)
    # the values in the iteration order of the kept dims: that layout, those dims
    result = values.reshape([shape[d] for d in reversed(kept)])
    if len(kept) > 1:
        slowest_first = kept[::-1]
        result = result.transpose(sorted(range(len(kept)), key=slowest_first.__getitem__))
    keep_dims = [d for d in range(len(shape)) if d not in axes]
    for position, d in enumerate(keep_dims):
        if shape[d] == 1:
            result = np.expand_dims(result, position)
    if out is not None:
        return _core.copy(out, result, "same_kind")
    return result[()] if result.ndim == 0 else result


def _held_output(op, program, out):
    """Whether out= holds the reduction's running value in a dtype other
    than its loop's, rounding it between NumPy's inner-loop calls."""
    if out is None:
        return False
    T = _frontend.reduction_loop_dtype(_frontend.ufunc_for(op), program.result_dtype, None,
                                       out.dtype)
    return _frontend.held_output(op, T, out.dtype) is not None


def _buffered_sum_elements(op, T):
    """The elements of NumPy's buffers where its reduction in loop dtype T
    sums each buffer pairwise (np.getbufsize(), None where that is more
    than a fused pass holds per thread), else 0."""
    if not _frontend.sums_in_buffers(op, T):
        return 0
    size = np.getbufsize()
    return size if size <= _BUFFER_MAX else None


def _kept_inside(order, reduced):
    """How many dims of `order` (fastest first) come before the reduced
    ones, where those are consecutive in it (all, when none is reduced: a
    copy into the loop dtype, as columns); else None."""
    if not reduced:
        return len(order)
    for i in range(len(order) - len(reduced) + 1):
        if set(order[i:i + len(reduced)]) == reduced:
            return i
    return None


def _reduce_columns(run, op, T, ncols, nbatch):
    """run.reduce_columns; float16 sums and products as titer.reduce's, in
    float on every layout: folded in float32, each column rounded once at
    the end (that rounding's flags the reduction's, as its kit's store)."""
    if not (op in ("add", "multiply") and T == np.float16):
        return run.reduce_columns(op, T, ncols, nbatch)
    fused = run.reduce_columns(op, np.dtype(np.float32), ncols, nbatch)
    if fused is None:
        return None
    wide, bits = fused
    values, found = _core.collect_fpe(_core.copy, np.empty(wide.shape, T), wide, "same_kind")
    for more in found.values():
        bits |= more
    return values, bits


def _reduce_slabs(tree, compiled, program, leaves, consts, shape, axes, dim, out, perm):
    """A reduction that keeps dim `dim`: the expression computed for slabs
    of that dim (each holding whole reductions), each reduced into its part
    of the result by titer.reduce -- a new result laid out as titer.reduce
    lays out the composed result's (its layout steers the reduction's
    order, so the bits: NumPy's own reduce gives other bits into a C-order
    out= than into the array it allocates)."""
    inner = 1
    for d, n in enumerate(shape):
        if d != dim:
            inner *= n
    width = max(1, _SLAB_ELEMENTS // max(inner, 1))
    keep = _frontend.reduction_shape(shape, axes, False)
    out_dim = dim - sum(1 for a in axes if a < dim)
    if out is None:
        T = _frontend.reduction_loop_dtype(_frontend.ufunc_for(tree.op), program.result_dtype,
                                           None, None)
        result = _composed_result_layout(shape, axes, perm, T)
    else:
        _frontend.check_reduction_out(tree.op, out.shape, keep, out.flags.writeable)
        result = out
    flags = [0] * len(compiled.labels)
    later = {}          # the slabs' reduce (and cast) flags: after the program's
    for begin in range(0, shape[dim], width):
        end = min(begin + width, shape[dim])
        slab = [_slice(x, len(shape), dim, begin, end) for x in leaves]
        run = _core.EvalPass(compiled, None, slab, consts)
        run.run_all()
        flags = [a | b for a, b in zip(flags, run.flags())]
        index = (slice(None),) * out_dim + (slice(begin, end),)
        found = _core.collect_fpe(_core.reduce, tree.op, run.out, axes, None, result[index])[1]
        for name, bits in found.items():
            later[name] = later.get(name, 0) | bits
    _report(compiled, flags, 0, later.items())
    if out is None and result.ndim == 0:
        return result[()]
    return result


def _composed_result_layout(shape, axes, perm, T):
    """An empty reduction result of dtype T laid out as titer.reduce lays
    out its result for the composed expression's (that is packed in the
    iteration order `perm`, fastest first): titer.reduce's own allocation
    for an input of those strides."""
    strides, step = [0] * len(shape), 1
    for d in perm:
        strides[d] = step
        step *= max(shape[d], 1)
    keep_shape = [1 if d in axes else n for d, n in enumerate(shape)]
    result = _core._keep_order_empty(keep_shape, _Strides(tuple(strides)), T)
    return result[tuple(0 if d in axes else slice(None) for d in range(len(shape)))]


_Strides = namedtuple("_Strides", "strides")    # what _keep_order_empty reads of an input


def _slice(x, ndim, dim, begin, end):
    """Leaf x's part of a slab [begin, end) of broadcast dim `dim`."""
    d = dim - (ndim - x.ndim)
    if d < 0 or x.shape[d] == 1:
        return x
    return x[(slice(None),) * d + (slice(begin, end),)]

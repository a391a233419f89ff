"""titer.evaluate's planner: a parsed expression + its operands' types -> a program.

Each op node gets the loop NumPy's ufunc would run for its operands' dtypes
(``_frontend.resolve_loop``: NEP 50 for Python scalars, NumPy's exceptions),
so the program is the sequence of titer loops that composing
``titer.elementwise`` calls would run, and every intermediate has the dtype
NumPy would give it.  Nodes come in two kinds:

* **constant nodes**, whose operands are all scalars (literals, names bound
  to Python or NumPy scalars or 0-d arrays, other constant nodes): the
  *prelude*, computed once per call by ``titer.elementwise`` on scalars;
* **block steps**, which read at least one array: run by the executor over
  blocks of the iteration space (``_evaluate.pxi``).

Registers hold a block of one value each; a register is reused once its last
reader has run.  Pure: imports the front end and the op table only.
"""
from collections import namedtuple

import numpy as np

try:
    from . import _frontend, _ops
except ImportError:             # vendored without the package around it
    import _frontend  # type: ignore
    import _ops  # type: ignore

from ._evaluate_parse import Literal, Name

# Where a step input comes from: an array leaf (index into leaves), a
# constant slot (index into consts), a register (index of the register).
LEAF, CONST, REG = "leaf", "const", "reg"

# One input of a step: its source, the dtype it has there, the loop dtype the
# step reads it as, and the register a cast writes (-1: no cast).
Input = namedtuple("Input", "source index dtype loop_dtype cast_reg")
# One block step: op-table name and loop signature, the name FP warnings
# carry (the op's), the source text, inputs, result dtype and register, and
# whether NumPy warns that the step discards imaginary parts.
Step = namedtuple("Step", "op signature label text inputs out_dtype out_reg discards_imaginary")
# A constant slot: `python` -- a Python number (a literal or a name's value)
# converted into `dtype` (the loop's) when the call starts, as NumPy converts
# weak scalars; `value` -- a NumPy scalar, 0-d array or prelude result, held
# in its own `dtype` and cast by the step that reads it.
Const = namedtuple("Const", "kind ref dtype")
# A constant node: op on refs ("name", id) / ("literal", value) / ("prelude", i).
Prelude = namedtuple("Prelude", "op args text dtype")

Program = namedtuple("Program", [
    "leaves",           # names of the array leaves, in iterator operand order
    "leaf_dtypes",
    "leaf_regs",        # register a strided leaf is gathered into (-1: read only through casts)
    "consts", "prelude", "steps",
    "reg_itemsizes",    # bytes per element of each register
    "result",           # ("step",) / ("leaf", i) / ("scalar", ref): what the expression is
    "result_dtype",
])

# ndarray's `**` (NumPy's fast_scalar_power): an inexact array to the Python
# int 2 or -1 or the Python float 0.5 runs square / reciprocal / sqrt.
_FAST_POWERS = {(int, 2): "square", (int, -1): "reciprocal", (float, 0.5): "sqrt"}


class TooBig(Exception):
    """The program exceeds the executor's fixed tables: the caller composes
    titer.elementwise calls instead."""


def fast_power(base_type, exponent):
    """The unary op `base ** exponent` runs for ndarray's `**`, or None;
    `exponent` is a Python number (exact type) or None when not one."""
    if not isinstance(base_type, np.dtype) or base_type.kind not in "fc":
        return None
    if exponent is None or type(exponent) not in (int, float):
        return None
    return _FAST_POWERS.get((type(exponent), exponent))


def exponent_value(node, python_scalars):
    """The Python number a `**` exponent is, if the planner can know it:
    a literal, or a name whose Python-number value the cache key carries."""
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Name):
        return python_scalars.get(node.id)
    return None


_STAND_INS = {int: 0, float: 0.0, complex: 0j}


class _Planner:
    def __init__(self, operand_types, python_scalars, casting, out_dtype, max_steps):
        self.types = operand_types          # name -> ("array", dtype) / ("scalar", type)
        self.python_scalars = python_scalars
        self.casting = casting
        self.out_dtype = out_dtype
        self.max_steps = max_steps
        self.leaves, self.leaf_dtypes = [], []
        self.consts, self.prelude, self.steps = [], [], []
        self.uses = []                      # per step: [(source, index)] read

    # A value is (kind, ref, type): kind "leaf" (ref = leaf index), "reg"
    # (ref = step index, before register allocation), "scalar" (ref =
    # ("name", id) / ("literal", v) / ("prelude", i)); type a dtype or a
    # Python scalar type (weak).
    def value(self, node, root=False):
        if isinstance(node, Name):
            kind, t = self.types[node.id]
            if kind == "array":
                if node.id not in self.leaves:
                    self.leaves.append(node.id)
                    self.leaf_dtypes.append(t)
                return ("leaf", self.leaves.index(node.id), t)
            return ("scalar", ("name", node.id), t)
        if isinstance(node, Literal):
            return ("scalar", ("literal", node.value), _frontend.resolution_type(node.value))
        op, args = node.op, [self.value(a) for a in node.args]
        if op == "**":
            special = fast_power(args[0][2], exponent_value(node.args[1], self.python_scalars))
            if special is not None:
                op, args = special, args[:1]
            else:
                op = "power"
        return self.apply(op, args, node.text, root)

    def apply(self, name, args, text, root):
        spec = _ops.OPS_BY_NAME[name]
        ufunc = _frontend.ufunc_for(name)
        if all(kind == "scalar" for kind, _, _ in args):
            in_types = tuple(_frontend.resolution_type(_frontend.scalar_operand(
                _STAND_INS[t], spec.nin)) if t in _STAND_INS else t for _, _, t in args)
            found = _frontend.resolve_loop(spec, ufunc, in_types, [None], None, self.casting,
                                           [_stand_in(t) for _, _, t in args])
            self.prelude.append(Prelude(name, tuple(ref for _, ref, _ in args), text,
                                        found.loop_out[0]))
            return ("scalar", ("prelude", len(self.prelude) - 1), found.loop_out[0])
        in_types = tuple(t for _, _, t in args)
        out_dtypes = [self.out_dtype if root else None]
        found = _frontend.resolve_loop(spec, ufunc, in_types, out_dtypes, None, self.casting,
                                       [_stand_in(t) for t in in_types])
        if len(self.steps) >= self.max_steps:
            raise TooBig("more than %d steps" % self.max_steps)
        inputs, uses = [], []
        for (kind, ref, t), loop in zip(args, found.loop_in):
            if kind == "scalar":
                if t in _STAND_INS:         # weak: converted straight into the loop dtype
                    slot = self.const(Const("python", ref, loop))
                    inputs.append(Input(CONST, slot, loop, loop, -1))
                    continue
                slot = self.const(Const("value", ref, t))
                inputs.append(Input(CONST, slot, t, loop, -1))
                continue
            inputs.append(Input(LEAF if kind == "leaf" else REG, ref, t, loop, -1))
            uses.append((kind, ref))
        self.steps.append(Step(name, found.signature, name, text, tuple(inputs),
                               found.loop_out[0], -1, found.discards_imaginary))
        self.uses.append(uses)
        return ("reg", len(self.steps) - 1, found.loop_out[0])

    def const(self, c):
        if c not in self.consts:
            self.consts.append(c)
        return self.consts.index(c)


def _stand_in(t):
    """What resolve_loop's scalar checks read of an operand: a Python
    number of a weak type (a value every dtype holds), else an empty array
    of the dtype."""
    if t in _STAND_INS:
        return _STAND_INS[t]
    return np.empty(0, t)


def plan(root, operand_types, python_scalars, casting="same_kind", out_dtype=None,
         max_steps=64, max_regs=64, max_consts=32, max_leaves=7):
    """The Program for the tree `root` (not a Reduction) given each name's
    ("array", dtype) or ("scalar", resolution type); `python_scalars` holds
    the values of names bound to Python numbers that the program depends on
    (`**` exponents).  Raises NumPy's errors for the whole program before
    anything runs; TooBig when the executor's tables cannot hold it."""
    p = _Planner(operand_types, python_scalars, _frontend.normalize_casting(casting),
                 out_dtype, max_steps)
    kind, ref, t = p.value(root, root=True)
    if kind == "reg":
        result = ("step",)
    elif kind == "leaf":
        result = ("leaf", ref)
    else:
        result = ("scalar", ref)
    if len(p.consts) > max_consts:
        raise TooBig("more than %d constants" % max_consts)
    if len(p.leaves) > max_leaves:
        raise TooBig("more than %d array operands" % max_leaves)
    steps, leaf_regs, reg_sizes = _allocate_registers(p.steps, p.uses, p.leaf_dtypes)
    if len(reg_sizes) > max_regs:
        raise TooBig("more than %d registers" % max_regs)
    return Program(tuple(p.leaves), tuple(p.leaf_dtypes), tuple(leaf_regs), tuple(p.consts),
                   tuple(p.prelude), tuple(steps), tuple(reg_sizes), result, t)


def _allocate_registers(steps, uses, leaf_dtypes):
    """Registers for strided leaves (live throughout), casts (live for their
    step) and step results (live until their last reader).  A step never
    writes a register one of its inputs is in: a loop may re-read an input
    it was given with stride 0 after writing its output."""
    sizes, free = [], []

    def take(itemsize):
        for r in free:
            if sizes[r] >= itemsize:
                free.remove(r)
                return r
        if free:
            r = free.pop()
            sizes[r] = max(sizes[r], itemsize)
            return r
        sizes.append(itemsize)
        return len(sizes) - 1

    direct_leaf = [any(i.source == LEAF and i.index == leaf and i.dtype == i.loop_dtype
                       for s in steps for i in s.inputs) for leaf in range(len(leaf_dtypes))]
    leaf_regs = [take(dt.itemsize) if direct else -1
                 for dt, direct in zip(leaf_dtypes, direct_leaf)]
    last_read = {}
    for k, step in enumerate(steps):
        for i in step.inputs:
            if i.source == REG:
                last_read[i.index] = k
    step_reg, out = {}, []
    for k, step in enumerate(steps):
        inputs, casts = [], []
        for i in step.inputs:
            index = step_reg[i.index] if i.source == REG else i.index
            cast_reg = -1
            if i.dtype != i.loop_dtype:
                cast_reg = take(i.loop_dtype.itemsize)
                casts.append(cast_reg)
            inputs.append(i._replace(index=index, cast_reg=cast_reg))
        reg = take(step.out_dtype.itemsize)
        step_reg[k] = reg
        out.append(step._replace(inputs=tuple(inputs), out_reg=reg))
        free.extend(casts)
        free.extend(step_reg[j] for j, last in last_read.items() if last == k)
    return out, leaf_regs, sizes


def _ref_text(ref, program):
    kind, value = ref
    if kind == "prelude":
        return "k%d" % value
    return str(value)


def explain(program, expr, block=None):
    """The program as text: leaves, constants, prelude, steps."""
    lines = ["titer.evaluate(%r)" % expr]
    if block is not None:
        lines[0] += ": blocks of %d elements, %d registers (%d bytes per element)" % (
            block, len(program.reg_itemsizes), sum(program.reg_itemsizes))
    for i, (name, dt) in enumerate(zip(program.leaves, program.leaf_dtypes)):
        gather = program.leaf_regs[i]
        lines.append("  leaf %s: %s%s" % (name, dt, "" if gather < 0 else
                                            " (gathered into r%d when strided)" % gather))
    for i, pre in enumerate(program.prelude):
        lines.append("  k%d = %s(%s) -> %s   [once per call, on scalars: %s]" % (
            i, pre.op, ", ".join(_ref_text(a, program) for a in pre.args), pre.dtype, pre.text))
    for i, c in enumerate(program.consts):
        how = ("the Python number %s as %s" if c.kind == "python" else "%s, a %s scalar")
        lines.append("  c%d = " % i + how % (_ref_text(c.ref, program), c.dtype))
    for k, step in enumerate(program.steps):
        args = []
        for i in step.inputs:
            src = {LEAF: program.leaves[i.index] if i.source == LEAF else None,
                   CONST: "c%d" % i.index, REG: "r%d" % i.index}[i.source]
            if i.cast_reg >= 0:
                src += " (cast %s->%s into r%d)" % (i.dtype, i.loop_dtype, i.cast_reg)
            args.append(src)
        lines.append("  r%d = %s[%s](%s)   # %s" % (step.out_reg, step.op, step.signature,
                                                  ", ".join(args), step.text))
    if program.result[0] == "step":
        lines.append("  result: r%d, %s" % (program.steps[-1].out_reg, program.result_dtype))
    return "\n".join(lines)

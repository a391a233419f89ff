"""A titer.evaluate program as one CUDA kernel (no CuPy, no CUDA here).

``fused_source(program, out_dtype, fast_ops)`` writes the kernel source of a
program from ``titer/_evaluate_plan.py`` -- the planner the CPU executor
runs: every step calls the op table's device function of its loop signature
(``build.device_kernel``: what the op's own kernels call), every cast is
``titer_convert`` (what the cast kernels call), and each intermediate is a
local of its step's dtype.  Compiled with the same numerics options as the
shipped kernels (``build.NVRTC_OPTIONS``: no FMA contraction, across steps
included), the fused kernel gives the composed device calls' bits, with one
read of each leaf and one write of the result instead of a full-size
temporary per step.

``plan_fused_launches`` cuts an iterator plan into launches (32-bit pieces,
at most TITER_MAX_DIMS dims each) and packs ``titer_fparams`` for each,
laid out as ``titer_fused.cuh`` declares it (checked on the host shim).

``fused_reduce_source(program, fast_ops, op, loop_dtype)`` writes
titer.reduce's kernel with the program computing each element it folds
(``titer_fused_source``), launched with ``pack_freduce``'s parameters:
a top-level ``sum``/``prod``/``max``/``min`` without the temporary.
"""
import struct

import numpy as np

from .. import _ops
from . import build
from . import plan as _plan

FUSED_ARGS = 8              # TITER_FUSED_ARGS: the output and up to 7 leaves
FUSED_CONSTS = 32           # TITER_FUSED_CONSTS
KERNELS = ("titer_fused_1d", "titer_fused_offset")
REDUCE_KERNELS = ("titer_fused_reduce_1d", "titer_fused_reduce_offset")

# titer_fparams, field for field
_DATA_AT = 0
_NDIM_AT = 8 * FUSED_ARGS
_NUMEL_AT = _NDIM_AT + 4
_DIVIDER_AT = _NUMEL_AT + 4
_STRIDE_AT = _DIVIDER_AT + 12 * _plan.MAX_DIMS
_KONST_AT = _STRIDE_AT + 4 * _plan.MAX_DIMS * FUSED_ARGS
FPARAMS_SIZE = _KONST_AT + 16 * FUSED_CONSTS
FPARAMS_LAYOUT = (FPARAMS_SIZE, _DATA_AT, _NDIM_AT, _NUMEL_AT, _DIVIDER_AT, _STRIDE_AT,
                  _KONST_AT)
_VOID = np.dtype((np.void, FPARAMS_SIZE))
# titer_freduce_params: the reduction's titer_rparams, then titer_fparams
_FREDUCE_F_AT = -(-_plan.RPARAMS_DTYPE.itemsize // 8) * 8      # (titer_fparams aligns to 8)
FREDUCE_SIZE = _FREDUCE_F_AT + FPARAMS_SIZE
FREDUCE_LAYOUT = (FREDUCE_SIZE, 0, _FREDUCE_F_AT)
_FREDUCE_VOID = np.dtype((np.void, FREDUCE_SIZE))
_HEAD = struct.Struct("<ii")
_DIVIDER = struct.Struct("<3I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")


def _ctype(dt):
    return _ops.C_TYPE[dt.char]


def _code(dt):
    return _ops.TYPECHARS.index(dt.char)


def _convert(value, src, dst):
    """C text of `value` (dtype src) as dtype dst, as the cast kernels convert."""
    if src == dst:
        return value
    return "titer_convert<%d, %d>(%s)" % (_code(dst), _code(src), value)


def _function(op_name, sig, known):
    """The device function's name; its text into `known` (once)."""
    op = _ops.OPS_BY_NAME[op_name]
    name = build.codegen.kernel_name(op, sig)
    if name not in known:
        known[name] = build.device_kernel(op, sig)
    return name


def _call(step, k, args, fast_ops, known):
    """C text of step k's result from its arguments' texts (loop dtypes)."""
    fast = fast_ops.get(k)
    if fast is not None:       # NumPy's power with that scalar exponent (the front end's rule)
        char = step.out_dtype.char
        return "%s(%s)" % (_function(fast, "%s->%s" % (char, char), known), args[0])
    return "%s(%s)" % (_function(step.op, step.signature, known), ", ".join(args))


def fused_source(program, out_dtype, fast_ops=None):
    """The CUDA text of `program` writing dtype `out_dtype` (its result dtype
    or out='s); fast_ops: step index -> the unary op a power step runs."""
    known = {}
    lines = _element(program, np.dtype(out_dtype), fast_ops or {}, known)
    lines.append("TITER_DEFINE_FUSED_KERNELS(titer_fused_element)")
    return _source(known, lines)


def fused_reduce_source(program, fast_ops, op_name, loop_dtype):
    """The CUDA text of np.<op_name>.reduce in `loop_dtype` over the
    program's values: titer.reduce's kernel (its reducer for that loop,
    the result converted as its _reduce_cast kernel converts) with the
    program computing each element (titer_fused_source)."""
    known = {}
    lines = _element(program, program.result_dtype, fast_ops or {}, known)
    sig = "%s%s->%s" % ((loop_dtype.char,) * 3)
    red = build.reducer(_ops.OPS_BY_NAME[op_name], sig)
    for name, text in red.functions.items():
        known.setdefault(name, text)
    lines += red.lines
    lines.append("TITER_DEFINE_FUSED_REDUCE_KERNELS(titer_fused_element, %s, %s)"
                 % (red.name, "true" if program.result_dtype != loop_dtype else "false"))
    return _source(known, lines)


def _source(known, lines):
    head = ["/* titer.evaluate, fused by titer/cuda/fuse.py: do not edit. */",
            '#include "titer_scalar.cuh"', '#include "titer_kernels.cuh"',
            '#include "titer_reduce.cuh"', '#include "titer_fused.cuh"', ""]
    return build.inline_headers("\n".join(head + list(known.values()) + [""] + lines + [""]))


def _element(program, out_dtype, fast_ops, known):
    """The lines of titer_fused_element: one element's leaves (load), the
    program's value in its result dtype (value) and that value stored as
    out_dtype (store); each step's device function into `known`."""
    leaf_vars = ["x.l%d" % i for i in range(len(program.leaves))]
    current = {}                    # register -> the variable holding its value
    body = []
    for k, step in enumerate(program.steps):
        args = []
        for i in step.inputs:
            if i.source == "leaf":
                text = leaf_vars[i.index]
            elif i.source == "const":
                text = "titer_fused_const<%s>(p, %d)" % (_ctype(i.dtype), i.index)
            else:
                text = current[i.index]
            args.append(_convert(text, i.dtype, i.loop_dtype))
        body.append("        const %s s%d = %s;   /* %s */"
                    % (_ctype(step.out_dtype), k, _call(step, k, args, fast_ops, known),
                       _comment(step.text)))
        current[step.out_reg] = "s%d" % k
    result = program.result_dtype
    lines = ["struct titer_fused_element {",
             "    enum { NARGS = %d, value_code = %d };" % (1 + len(program.leaves),
                                                            _code(result)),
             "    typedef %s value_t;" % _ctype(result),
             "    struct leaves {"]
    lines += ["        %s l%d;" % (_ctype(dt), i) for i, dt in enumerate(program.leaf_dtypes)]
    lines += ["    };",
              "    static __device__ __forceinline__ void load(const titer_fparams &p, "
              "const int32_t *off, leaves &x) {"]
    lines += ["        x.l%d = *(const %s *)(p.data[%d] + off[%d]);" % (i, _ctype(dt), i + 1, i + 1)
              for i, dt in enumerate(program.leaf_dtypes)]
    lines += ["    }",
              "    static __device__ __forceinline__ value_t value(const titer_fparams &p, "
              "const leaves &x) {"]
    lines += body
    lines += ["        return s%d;" % (len(program.steps) - 1),
              "    }",
              "    static __device__ __forceinline__ void store(const titer_fparams &p, "
              "const int32_t *off, const leaves &x) {",
              "        *(%s *)(p.data[0] + off[0]) = %s;"
              % (_ctype(out_dtype), _convert("value(p, x)", result, out_dtype)),
              "    }", "};"]
    return lines


def _comment(text):
    return text.replace("*/", "* /")


def const_bytes(program, values):
    """Each constant slot's bytes as the kernel reads them: a Python number
    converted into its loop dtype as the single-op calls convert it
    (OverflowError for an int the dtype cannot hold), a NumPy scalar in its
    own dtype (the step casts it)."""
    return [_scalar_bytes(v, c.dtype) for c, v in zip(program.consts, values)]


_SCALAR_BYTES = {}          # (what identifies a value's bits, dtype) -> kernel_scalar's bytes
_PACK_DOUBLE = struct.Struct("<d").pack


def _scalar_bytes(v, dt):
    """plan.kernel_scalar(v, dt), remembered for a Python or NumPy scalar by
    its exact bits (-0.0 is not 0.0) -- a repeated call converts nothing."""
    t = type(v)
    if t is float:
        ident = (t, _PACK_DOUBLE(v))
    elif t is int or t is bool:
        ident = (t, v)
    elif t is complex:
        ident = (t, _PACK_DOUBLE(v.real), _PACK_DOUBLE(v.imag))
    elif isinstance(v, np.generic):
        ident = (v.dtype, v.tobytes())
    else:
        return _plan.kernel_scalar(v, dt)
    key = (ident, dt)
    found = _SCALAR_BYTES.get(key)
    if found is None:
        found = _plan.kernel_scalar(v, dt)
        if len(_SCALAR_BYTES) >= 4096:
            _SCALAR_BYTES.clear()
        _SCALAR_BYTES[key] = found
    return found


def pack_fparams(piece, addresses, konst):
    """titer_fparams for one piece (`addresses`: each operand's address at
    the piece's first element)."""
    nd, n = len(piece.shape), _plan.numel(piece.shape)
    raw = bytearray(FPARAMS_SIZE)
    for i, a in enumerate(addresses):
        _U64.pack_into(raw, _DATA_AT + 8 * i, a)
    _HEAD.pack_into(raw, _NDIM_AT, nd, n)
    for d, size in enumerate(piece.shape):
        _DIVIDER.pack_into(raw, _DIVIDER_AT + 12 * d, size, *_plan.int_divider(max(size, 1)))
    for i, st in enumerate(piece.strides):
        for d in range(nd):
            _I32.pack_into(raw, _STRIDE_AT + 4 * (d * FUSED_ARGS + i), st[d])
    _put_konst(raw, konst)
    return np.frombuffer(raw, _VOID)


def _put_konst(raw, konst):
    """The constants' bytes into their slots of titer_fparams bytes."""
    for i, b in enumerate(konst):
        raw[_KONST_AT + 16 * i:_KONST_AT + 16 * i + len(b)] = b


def patch_fparams(raw, leaf_addresses, konst):
    """Recorded titer_fparams bytes of a one-piece plan with new leaf
    addresses (the operands after the output) and constants."""
    raw = bytearray(raw)
    for i, a in enumerate(leaf_addresses):
        _U64.pack_into(raw, _DATA_AT + 8 * (i + 1), a & 0xFFFFFFFFFFFFFFFF)
    _put_konst(raw, konst)
    return np.frombuffer(raw, _VOID)


def pack_freduce(rparams, fparams):
    """titer_freduce_params of a reduction's titer_rparams and a program's
    titer_fparams."""
    raw = bytearray(FREDUCE_SIZE)
    r = rparams.tobytes()
    raw[:len(r)] = r
    raw[_FREDUCE_F_AT:] = fparams.tobytes()
    return np.frombuffer(raw, _FREDUCE_VOID)


def plan_fused_launches(piece, bases, konst, limit=None):
    """Every launch of one fused call, in order: the plan cut into pieces
    with 32-bit offsets and at most TITER_MAX_DIMS dims."""
    if len(bases) > FUSED_ARGS or len(konst) > FUSED_CONSTS:
        raise ValueError("a fused program has at most %d operands and %d constants"
                         % (FUSED_ARGS, FUSED_CONSTS))
    launches = []
    for big in _plan.split_32bit(piece, _plan.SPLIT_LIMIT if limit is None else limit):
        for p in _plan.split_dims(big):
            kind = "titer_fused_1d" if len(p.shape) <= 1 else "titer_fused_offset"
            n = _plan.numel(p.shape)
            grid, block = _plan.launch_config("offset", n)
            addresses = [b + o for b, o in zip(bases, p.offsets)]
            launches.append(_plan.Launch(kind, grid, block, pack_fparams(p, addresses, konst), n))
    return launches


class FusedTemplate:
    """A fused call's launches, replayed for operands at other addresses and
    other constants: every data pointer is its operand's base plus an
    offset, the constants are bytes at fixed slots (plan.LaunchTemplate's
    idea for titer_fparams)."""

    def __init__(self, launches, bases):
        self.launches = []
        for launch in launches:
            raw = launch.params.tobytes()
            moves = tuple((_DATA_AT + 8 * i, i, _U64.unpack_from(raw, _DATA_AT + 8 * i)[0] - base)
                          for i, base in enumerate(bases))
            self.launches.append((launch.kernel, launch.grid, launch.block, launch.numel, raw,
                                  moves))

    def replay(self, bases, konst):
        out = []
        for kernel, grid, block, n, raw, moves in self.launches:
            raw = bytearray(raw)
            for at, i, offset in moves:
                _U64.pack_into(raw, at, (bases[i] + offset) & 0xFFFFFFFFFFFFFFFF)
            _put_konst(raw, konst)
            out.append(_plan.Launch(kernel, grid, block, np.frombuffer(raw, _VOID), n))
        return out

"""Host-side launch planning for titer's CUDA kernels (no CuPy, no CUDA).

Pure functions over an iterator plan (coalesced shape, fastest dim first,
byte strides per operand, outputs first):

* ``int_divider(d)``: the magic multiplier and shift of ATen's IntDivider;
* ``split_32bit(...)``: ATen's ``with_32bit_indexing`` -- halve the plan along
  the dim with the largest extent until every piece has 32-bit indices;
* ``split_dims(...)``: loop the dims beyond TITER_MAX_DIMS on the host;
* ``choose_kernel`` / ``launch_config`` / ``pack_params``: which kernel, the
  grid, and the ``titer_params`` bytes the kernel takes by value
  (``kernel_scalar``: a scalar operand's bytes in them).

Everything here is exercised in CI without a GPU (tests/test_cuda_host.py,
and tests/test_cuda_shim.py runs the kernels themselves on the CPU).
"""
import functools
import itertools
import struct
import warnings
from collections import namedtuple

import numpy as np

MAX_DIMS = 12           # TITER_MAX_DIMS in titer_kernels.cuh
MAX_ARGS = 4            # TITER_MAX_ARGS
BLOCK = 128             # TITER_BLOCK
UNROLL = 4              # TITER_UNROLL
INT32_MAX = 2**31 - 1
SPLIT_LIMIT = INT32_MAX  # what with_32bit_indexing splits at (tests lower it)

TYPECHARS = "?bBhHiIlLefdFD"
ITEMSIZES = tuple(np.dtype(c).itemsize for c in TYPECHARS)     # by dtype code

# titer_params, field for field (checked against the C struct in the tests).
PARAMS_DTYPE = np.dtype({
    "names": ["data", "scalar", "code", "ndim", "numel", "divider", "stride"],
    "formats": [(np.uint64, MAX_ARGS), (np.uint8, (MAX_ARGS, 16)), (np.int32, MAX_ARGS),
                np.int32, np.int32, (np.uint32, (MAX_DIMS, 3)), (np.int32, (MAX_DIMS, MAX_ARGS))],
    "offsets": [0, 32, 96, 112, 116, 120, 120 + 12 * MAX_DIMS],
    "itemsize": 120 + 12 * MAX_DIMS + 4 * MAX_DIMS * MAX_ARGS,
})

Piece = namedtuple("Piece", "shape strides offsets")
"""A plan (or a part of one): shape fastest first, strides[op][dim] in bytes,
offsets[op]: bytes from the operand's base pointer."""


@functools.lru_cache(maxsize=4096)
def int_divider(d):
    """(magic, shift) with q = (umulhi(n, magic) + n) >> shift == n // d for
    every 0 <= n < 2**31 (the sum wraps at 2**32 as uint32 does)."""
    if not 1 <= d <= INT32_MAX + 1:
        raise ValueError("divisor %d out of range" % d)
    shift = 0
    while (1 << shift) < d:
        shift += 1
    magic = ((1 << 32) * ((1 << shift) - d)) // d + 1
    assert magic <= 0xFFFFFFFF
    return magic, shift


def fast_div(n, magic, shift):
    """The device's division, in Python/NumPy (uint32 arithmetic)."""
    n = np.asarray(n, dtype=np.uint64)
    t = (n * np.uint64(magic)) >> np.uint64(32)
    return ((t + n) & np.uint64(0xFFFFFFFF)) >> np.uint64(shift)


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def contiguous_strides(shape, itemsize, order=None):
    """Packed strides with dims laid out slowest first in `order` (C order
    when None)."""
    if order is None and len(shape) == 1:      # the plan cache's new lengths
        return (itemsize,)
    order = tuple(range(len(shape))) if order is None else tuple(order)
    strides = [0] * len(shape)
    acc = itemsize
    for d in reversed(order):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def byte_span(shape, strides):
    """(lowest, highest) byte offset from element 0 that a non-empty array
    reaches, to the start of its last-reached element."""
    lo = hi = 0
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi


def can_use_32bit_indexing(piece, limit=INT32_MAX):
    """Every element count and every byte offset fits (seed 000)."""
    n = numel(piece.shape)
    if n > limit:
        return False
    # sum((size - 1) * |stride|) <= (n - 1) * max|stride|: most plans fit by that bound
    if 1 + (n - 1) * max((abs(x) for st in piece.strides for x in st), default=0) <= limit:
        return True
    for st in piece.strides:
        extent = 1 + sum((s - 1) * abs(x) for s, x in zip(piece.shape, st))
        if extent > limit:
            return False
    return True


def _dim_to_split(piece):
    """ATen's get_dim_to_split: the dim with the largest (size-1)*|stride|."""
    best, dim = -1, -1
    for d in range(len(piece.shape) - 1, -1, -1):
        if piece.shape[d] == 0:
            continue
        for st in piece.strides:
            extent = (piece.shape[d] - 1) * abs(st[d])
            if extent > best:
                best, dim = extent, d
    return dim


def split_32bit(piece, limit=INT32_MAX):
    """with_32bit_indexing: pieces in order, each usable with 32-bit indices."""
    if numel(piece.shape) == 0:
        return []
    out, stack = [], [piece]
    while stack:
        p = stack.pop()
        if can_use_32bit_indexing(p, limit):
            out.append(p)
            continue
        d = _dim_to_split(p)
        if d < 0 or p.shape[d] < 2:
            raise ValueError("cannot split this plan into 32-bit pieces: %r" % (p,))
        half = p.shape[d] // 2
        first = Piece(p.shape[:d] + (half,) + p.shape[d + 1:], p.strides, p.offsets)
        second = Piece(p.shape[:d] + (p.shape[d] - half,) + p.shape[d + 1:], p.strides,
                       tuple(o + half * st[d] for o, st in zip(p.offsets, p.strides)))
        stack.append(second)
        stack.append(first)
    return out


def split_dims(piece, max_dims=MAX_DIMS):
    """Pieces of at most max_dims dims: the slowest extra dims loop on the host."""
    nd = len(piece.shape)
    if nd <= max_dims:
        return [piece]
    outer = piece.shape[max_dims:]
    out = []
    for idx in itertools.product(*[range(s) for s in reversed(outer)]):
        idx = idx[::-1]
        offsets = tuple(o + sum(i * st[max_dims + k] for k, i in enumerate(idx))
                        for o, st in zip(piece.offsets, piece.strides))
        out.append(Piece(piece.shape[:max_dims], tuple(st[:max_dims] for st in piece.strides),
                         offsets))
    return out


def is_contiguous(piece, itemsizes, scalars):
    """One dim (or one element) every array operand walks with stride == itemsize."""
    if numel(piece.shape) <= 1:
        return True
    if len(piece.shape) != 1:
        return False
    return all(scalars[i] or piece.strides[i][0] == itemsizes[i]
               for i in range(len(itemsizes)))


def can_vectorize(width, addresses, itemsizes, scalars):
    """ATen's can_vectorize_up_to, for one width: every array pointer aligned
    to width elements."""
    return all(scalars[i] or addresses[i] % (width * itemsizes[i]) == 0
               for i in range(len(itemsizes)))


def choose_kernel(piece, addresses, mem_codes, loop_codes, scalars, vec_widths):
    """'vec<W>', 'offset' or 'cast' for one piece."""
    cast = any(not scalars[i] and mem_codes[i] != loop_codes[i] for i in range(len(mem_codes)))
    if cast:
        return "cast"
    sizes = [ITEMSIZES[c] for c in loop_codes]
    if is_contiguous(piece, sizes, scalars):
        for w in sorted(vec_widths, reverse=True):
            if can_vectorize(w, addresses, sizes, scalars):
                return "vec%d" % w
    return "offset"


def elements_per_block(kind):
    """How many elements one block of a 'vec<W>', 'offset' or 'cast' kernel covers."""
    return BLOCK * UNROLL * (int(kind[3:]) if kind.startswith("vec") else 1)


def launch_config(kind, n):
    """(grid, block) for n elements."""
    per_block = elements_per_block(kind)
    return ((n + per_block - 1) // per_block, 1, 1), (BLOCK, 1, 1)


def kernel_scalar(value, dt):
    """A scalar operand in the loop dtype, as the kernel reads it by value.
    A NumPy scalar (or 0-d array) converts as NumPy's casts do; a Python
    scalar as NumPy reads it into that dtype (the front end has refused the
    ints it cannot hold).  A complex value in a real loop keeps its real
    part: the front end warns for that, once per call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        if isinstance(value, (np.generic, np.ndarray)):
            arr = np.asarray(value).astype(dt)
        elif type(value) is complex and dt.kind != "c":
            arr = np.array(value.real, dtype=dt)
        else:
            arr = np.array(value, dtype=dt)
    return arr.tobytes()


def pack_params(piece, addresses, mem_codes, scalar_bytes):
    """titer_params for one piece, as a 1-element structured NumPy array
    (CuPy passes such an array by value, like its builtin-vector examples).
    addresses[i]: operand base address + piece offset (ignored for scalars);
    scalar_bytes[i]: the value in the loop dtype, or None for an array.
    Packed with struct into bytes laid out as PARAMS_DTYPE (NumPy field
    assignment costs ~20 us a launch; this runs for every new layout)."""
    nd = len(piece.shape)
    if nd > MAX_DIMS:
        raise ValueError("%d dims: split_dims first" % nd)
    n = numel(piece.shape)
    if n > INT32_MAX:
        raise ValueError("%d elements: split_32bit first" % n)
    raw = bytearray(PARAMS_DTYPE.itemsize)
    nargs = len(mem_codes)
    data = [0] * MAX_ARGS
    codes = [0] * MAX_ARGS
    for i in range(nargs):
        b = scalar_bytes[i]
        if b is not None:
            raw[_SCALAR_AT + 16 * i:_SCALAR_AT + 16 * i + len(b)] = b
        else:
            data[i] = addresses[i]
        codes[i] = mem_codes[i]
    _DATA.pack_into(raw, 0, *data)
    _HEAD.pack_into(raw, _CODE_AT, *codes, nd, n)
    for d, size in enumerate(piece.shape):
        _DIVIDER.pack_into(raw, _DIVIDER_AT + 12 * d, size, *int_divider(max(size, 1)))
    for i in range(nargs):
        if scalar_bytes[i] is None:
            st = piece.strides[i]
            for d in range(nd):
                _I32.pack_into(raw, _STRIDE_AT + 4 * (d * MAX_ARGS + i), st[d])
    # a 1-element structured array: what cupy.RawKernel passes by value
    return np.frombuffer(raw, PARAMS_DTYPE)


Launch = namedtuple("Launch", "kernel grid block params numel")


_DATA = struct.Struct("<%dQ" % MAX_ARGS)
_U64 = struct.Struct("<Q")
_HEAD = struct.Struct("<%diii" % MAX_ARGS)             # code[], ndim, numel
_DIVIDER = struct.Struct("<3I")
_I32 = struct.Struct("<i")
_CODE_AT = PARAMS_DTYPE.fields["code"][1]
_NDIM_AT = PARAMS_DTYPE.fields["ndim"][1]
_NUMEL_AT = PARAMS_DTYPE.fields["numel"][1]
_DIVIDER_AT = PARAMS_DTYPE.fields["divider"][1]
_STRIDE_AT = PARAMS_DTYPE.fields["stride"][1]
_SCALAR_AT = PARAMS_DTYPE.fields["scalar"][1]
_MASK64 = 2**64 - 1


class LaunchTemplate:
    """Recorded launches, replayed for operands at other addresses: every
    data pointer is base + offset, so it moves with its base; scalar slots
    take new values.  Patches bytes (struct), not NumPy fields: the replay
    is the plan cache's hot path."""

    def __init__(self, launches, bases):
        self.launches = []
        for launch in launches:
            raw = launch.params.tobytes()
            data = _DATA.unpack_from(raw, 0)
            moves = tuple((8 * i, i, d - bases[i]) for i, d in enumerate(data) if d != 0)
            per_block = elements_per_block(launch.kernel.rsplit("_", 1)[1])
            self.launches.append((launch.kernel, launch.grid, launch.block, launch.numel,
                                  raw, moves, per_block))
        self.last = None                # (bases, scalars, numel, launches) of the last replay

    def resizable(self):
        """One launch over one dim: replay(numel=n) may give it any length
        (a dense layout's plan is its element count and nothing else)."""
        if len(self.launches) != 1:
            return False
        raw = self.launches[0][4]
        return _I32.unpack_from(raw, _NDIM_AT)[0] == 1

    def replay(self, bases, scalar_bytes, numel=None):
        """[Launch] for operands at `bases` ({operand index: bytes} scalars),
        over `numel` elements instead of the recorded count when given (a
        resizable() template only).  The same operands as last time (a loop
        over the same buffers) get the same Launch objects: a launch copies
        its parameters, and nothing writes into a Launch once made."""
        last = self.last
        if last is not None and last[0] == bases and last[1] == scalar_bytes \
                and last[2] == numel:
            return last[3]
        out = []
        pack = _U64.pack_into
        for kernel, grid, block, n, raw, moves, per_block in self.launches:
            raw = bytearray(raw)
            for at, i, off in moves:
                pack(raw, at, (bases[i] + off) & _MASK64)
            for i, b in scalar_bytes.items():
                at = _SCALAR_AT + 16 * i
                raw[at:at + len(b)] = b
            if numel is not None and numel != n:
                n = numel
                _I32.pack_into(raw, _NUMEL_AT, n)
                _DIVIDER.pack_into(raw, _DIVIDER_AT, n, *int_divider(n))
                grid = ((n + per_block - 1) // per_block, 1, 1)
            out.append(Launch(kernel, grid, block, np.frombuffer(raw, PARAMS_DTYPE), n))
        self.last = (list(bases), dict(scalar_bytes), numel, out)
        return out


def plan_launches(stem, piece, bases, mem_codes, loop_codes, scalar_bytes, vec_widths,
                  limit=None):
    """Every launch one elementwise call needs, in order."""
    limit = SPLIT_LIMIT if limit is None else limit
    scalars = [b is not None for b in scalar_bytes]
    launches = []
    for big in split_32bit(piece, limit):
        for p in split_dims(big):
            addresses = [0 if scalars[i] else bases[i] + p.offsets[i] for i in range(len(bases))]
            kind = choose_kernel(p, addresses, mem_codes, loop_codes, scalars, vec_widths)
            n = numel(p.shape)
            grid, block = launch_config(kind, n)
            launches.append(Launch("%s_%s" % (stem, kind), grid, block,
                                   pack_params(p, addresses, mem_codes, scalar_bytes), n))
    return launches


# ---- reductions (titer_reduce.cuh) ------------------------------------------

RBLOCK = 256            # TITER_RBLOCK
MIN_PER_LANE = 16       # fewest elements a lane folds before a split pays off
MAX_GRID_Y = 65535

# titer_rparams, field for field (checked against the C struct in the tests).
_D = MAX_DIMS
RPARAMS_DTYPE = np.dtype({
    "names": ["in_", "out", "partial", "init", "nred", "nout", "rndim", "kndim", "in_code",
              "out_on_x", "has_init", "ordered", "nsplit", "vec", "rstride", "kstride", "kout",
              "rsize", "ksize", "scan_out_stride"],
    "formats": [np.uint64, np.uint64, np.uint64, (np.uint8, 16), np.int64, np.int64,
                np.int32, np.int32, np.int32, np.int32, np.int32, np.int32, np.int32, np.int32,
                (np.int64, _D), (np.int64, _D), (np.int64, _D), (np.uint32, (_D, 3)),
                (np.uint32, (_D, 3)), np.int64],
    "offsets": [0, 8, 16, 24, 40, 48, 56, 60, 64, 68, 72, 76, 80, 84,
                88, 88 + 8 * _D, 88 + 16 * _D, 88 + 24 * _D, 88 + 36 * _D, 88 + 48 * _D],
    "itemsize": 96 + 48 * _D,
})

ReducePlan = namedtuple("ReducePlan", "rshape rstrides kshape kstrides kout")
"""A reduction's dims, fastest first: reduced (shape, input strides) and kept
(shape, input strides, output strides); bytes."""

ReduceConfig = namedtuple("ReduceConfig", "out_on_x block grid nsplit vec")

# the kernel kinds that take a titer_rparams (the others a titer_params)
RPARAMS_KINDS = ("reduce", "reduce_cast", "reduce_final", "scan", "scan_cast")


def split_reduction(shape, out_strides, in_strides):
    """The iterator's coalesced reduction plan -> ReducePlan: dims the output
    does not move along (stride 0) are reduced, the others kept."""
    r_shape, r_st, k_shape, k_st, k_out = [], [], [], [], []
    for n, so, si in zip(shape, out_strides, in_strides):
        if n == 1:
            continue
        if so == 0:
            r_shape.append(n)
            r_st.append(si)
        else:
            k_shape.append(n)
            k_st.append(si)
            k_out.append(so)
    return ReducePlan(tuple(r_shape), tuple(r_st), tuple(k_shape), tuple(k_st), tuple(k_out))


def _pow2_at_least(n):
    p = 1
    while p < n:
        p *= 2
    return p


def reduce_config(rp, ordered, sm_count=132, itemsize=None):
    """ATen's setReduceConfig, simplified.  Inner reductions (the input is
    fastest along a reduced dim) give each output a row of x lanes; outer
    ones put outputs on x (coalesced across outputs) and lanes on y.  Small
    output counts split each reduction over gridDim.y blocks (at least
    MIN_PER_LANE elements per lane) to fill the device.  Not reorderable:
    one lane per output, in order.  itemsize (an input read as it is, no
    cast): an inner reduction over one contiguous dim loads 16-byte vectors
    (vec elements each) when every thread gets at least one."""
    nred, nout = numel(rp.rshape), numel(rp.kshape)
    if ordered:
        bx = min(RBLOCK, _pow2_at_least(nout))
        return ReduceConfig(1, (bx, 1, 1), ((nout + bx - 1) // bx, 1, 1), 1, 1)
    r_fast = min((abs(s) for s in rp.rstrides), default=0)
    k_fast = min((abs(s) for s in rp.kstrides), default=None)
    inner = k_fast is None or r_fast < k_fast
    if inner:
        lanes = min(RBLOCK, _pow2_at_least(nred))
        outs = RBLOCK // lanes
        block = (lanes, outs, 1)
    else:
        outs = min(32, _pow2_at_least(nout))
        lanes = RBLOCK // outs
        block = (outs, lanes, 1)
    vec = 1
    if inner and itemsize and 16 // itemsize >= 2 and len(rp.rshape) == 1 \
            and rp.rstrides[0] == itemsize and all(s % 16 == 0 for s in rp.kstrides):
        vec = 16 // itemsize
    gx = (nout + outs - 1) // outs
    target = 4 * sm_count
    nsplit = 1
    if gx < target:
        # a split block's lanes get two vectors each at least
        most = max(1, -(-nred // (lanes * max(MIN_PER_LANE, 2 * vec))))
        nsplit = max(1, min(-(-target // gx), most, MAX_GRID_Y))
    if nred // vec < lanes * nsplit:
        vec = 1
    return ReduceConfig(0 if inner else 1, block, (gx, nsplit, 1), nsplit, vec)


def final_config(nout, nsplit):
    """(grid, block) of <stem>_reduce_final: a row of x lanes per output
    over its nsplit partials, RBLOCK threads a block."""
    lanes = min(RBLOCK, _pow2_at_least(nsplit))
    outs = RBLOCK // lanes
    return ((nout + outs - 1) // outs, 1, 1), (lanes, outs, 1)


def _pack_dividers(raw, at, shape):
    """titer_div[] for a shape, at byte offset `at`."""
    for d, size in enumerate(shape):
        if d + 1 < len(shape) and size > INT32_MAX + 1:
            raise ValueError("dim of %d elements is too large to divide by on the device" % size)
        size = min(size, 0xFFFFFFFF)            # the slowest dim is never divided by
        _DIVIDER.pack_into(raw, at + 12 * d, size, *int_divider(max(min(size, INT32_MAX + 1), 1)))


def pack_rparams(rp, in_addr, out_addr, partial_addr, in_code, init_bytes, ordered,
                 config=None, scan_out_stride=0):
    """titer_rparams for one reduction (or scan), a 1-element structured
    array; packed with struct, as pack_params."""
    if len(rp.rshape) > MAX_DIMS or len(rp.kshape) > MAX_DIMS:
        raise ValueError("more than %d reduced or kept dims" % MAX_DIMS)
    raw = bytearray(RPARAMS_DTYPE.itemsize)
    _RPOINTERS.pack_into(raw, 0, in_addr, out_addr, partial_addr)
    if init_bytes is not None:
        raw[_RINIT_AT:_RINIT_AT + len(init_bytes)] = init_bytes
    _RHEAD.pack_into(raw, _RF["nred"], numel(rp.rshape), numel(rp.kshape), len(rp.rshape),
                     len(rp.kshape), in_code, config.out_on_x if config else 1,
                     init_bytes is not None, bool(ordered), config.nsplit if config else 1,
                     config.vec if config else 1)
    for name, values in (("rstride", rp.rstrides), ("kstride", rp.kstrides), ("kout", rp.kout)):
        _I64S[len(values)].pack_into(raw, _RF[name], *values)
    _pack_dividers(raw, _RF["rsize"], rp.rshape)
    _pack_dividers(raw, _RF["ksize"], rp.kshape)
    _I64.pack_into(raw, _RF["scan_out_stride"], scan_out_stride)
    return np.frombuffer(raw, RPARAMS_DTYPE)


def plan_reduction(stem, rp, in_addr, out_addr, in_code, loop_code, init_bytes, ordered,
                   acc_size, sm_count=132):
    """(scratch bytes, [Launch]) for one reduction; the caller fills in the
    scratch address with set_partial().  Launch.numel is the element count."""
    cast = in_code != loop_code
    config = reduce_config(rp, ordered, sm_count, None if cast else ITEMSIZES[in_code])
    kind = "reduce_cast" if cast else "reduce"
    nout = numel(rp.kshape)
    scratch = acc_size * nout * config.nsplit if config.nsplit > 1 else 0
    params = pack_rparams(rp, in_addr, out_addr, 0, in_code, init_bytes, ordered, config)
    launches = [Launch("%s_%s" % (stem, kind), config.grid, config.block, params,
                       numel(rp.rshape) * nout)]
    if config.nsplit > 1:
        grid, block = final_config(nout, config.nsplit)
        launches.append(Launch("%s_reduce_final" % stem, grid, block, params, nout))
    return scratch, launches


_RPOINTERS = struct.Struct("<3Q")            # in_, out, partial
# nred, nout, rndim, kndim, in_code, out_on_x, has_init, ordered, nsplit, vec
_RHEAD = struct.Struct("<qq8i")
_I64 = struct.Struct("<q")
_I64S = [struct.Struct("<%dq" % n) for n in range(MAX_DIMS + 1)]     # n int64s
_RF = {name: RPARAMS_DTYPE.fields[name][1] for name in RPARAMS_DTYPE.names}
_RINIT_AT = RPARAMS_DTYPE.fields["init"][1]


def replay_reduction(launches, in_addr, out_addr, partial_addr, init_bytes):
    """A recorded reduction's launches with new addresses and initial value."""
    out = []
    for launch in launches:
        raw = bytearray(launch.params.tobytes())
        _RPOINTERS.pack_into(raw, 0, in_addr, out_addr, partial_addr)
        if init_bytes is not None:
            raw[_RINIT_AT:_RINIT_AT + len(init_bytes)] = init_bytes
        out.append(Launch(launch.kernel, launch.grid, launch.block,
                          np.frombuffer(raw, RPARAMS_DTYPE), launch.numel))
    return out


def set_partial(launches, address):
    for launch in launches:
        launch.params[0]["partial"] = address


def plan_scan(stem, rp, in_addr, out_addr, in_code, loop_code, scan_out_stride):
    """One launch of the scan kernel: a thread per kept line."""
    nout = numel(rp.kshape)
    params = pack_rparams(rp, in_addr, out_addr, 0, in_code, None, True, None,
                          scan_out_stride)
    kind = "scan_cast" if in_code != loop_code else "scan"
    return Launch("%s_%s" % (stem, kind), ((nout + RBLOCK - 1) // RBLOCK, 1, 1), (RBLOCK, 1, 1),
                  params, numel(rp.rshape) * nout)

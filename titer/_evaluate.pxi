# titer.evaluate's executor (issue 26): one pass of a fused program over the
# iterator's plan.  The plan is built over the output and the array leaves
# (broadcast, reorder, coalesce, output layout: the iterator's usual build);
# each thread walks its pieces row by row in blocks of `block` elements and,
# per block, runs the program's steps -- titer's own 1-d loops -- over small
# per-thread registers, casting inputs to each loop's dtype on the way in
# (CAST_TABLE, as the elementwise path's buffered rows do) and writing the
# output once.  The program comes from _evaluate_plan.py (a Python
# description, compiled here into the C struct the nogil path reads).
#
# NOTE: [evaluate flags] Each step tests the FP flags after its loop and
# clears them, so a warning names the op that raised it, as the composed
# titer.elementwise calls would; flags are kept per piece and merged
# atomically into the call's EvalRun.  The test reads only the SSE flags
# (titer_take_fp_flags in titer_fpflags.h: fetestexcept costs ~15 ns, which
# a step per block would pay hundreds of times per 2^16 elements).

from libc.string cimport memcpy, memset

cdef extern from "titer_fpflags.h" nogil:
    int titer_take_fp_flags(int mask) noexcept

cdef enum:
    EV_MAX_STEPS = 64
    EV_MAX_REGS = 64
    EV_MAX_CONSTS = 32
    EV_SOURCE_LEAF = 0
    EV_SOURCE_CONST = 1
    EV_SOURCE_REG = 2
    EV_MIN_BLOCK = 256
    EV_MAX_BLOCK = 4096

# NOTE: [evaluate blocks] All registers of one block (per thread) take a
# third of the L1 data cache, in 4 KiB steps, at least 8 KiB: small enough to
# stay in L1 between the steps that write and read them, big enough that
# each leaf is read in runs the prefetchers follow.  Measured on 2^24
# float32: a Zen 4 (32 KiB L1d) was fastest at 8 KiB; a Sapphire Rapids VM
# (48 KiB) at 16-24 KiB, where 8 KiB cost a*b + c*d 28% on one thread (29.3
# against 22.9 ms; a C OpenMP loop with streaming stores 19.3) and 30% on
# two (13.8 against 10.6; C 8.3).
cdef int64_t _ev_scratch_bytes = max(8192, _l1_data_cache_bytes() // 3 // 4096 * 4096)


def _set_evaluate_scratch_bytes(int64_t n):
    """Benchmarks: the register bytes per block of programs compiled from
    now on; returns the old value."""
    global _ev_scratch_bytes
    old, _ev_scratch_bytes = _ev_scratch_bytes, n
    return old


# NOTE: [fused reduction] A reduction over everything (or over rows: equal
# consecutive ranges of the iteration order, NOTE: [fused rows] in
# _evaluate.py) runs inside the pass: the iteration space (each row) is cut
# into the subtrees of NumPy's pairwise recursion
# of at most a piece of elements (titer_pw_cut), each thread computes a
# leaf's values into its own buffer, block by block, and reduces them with
# the kit's pairwise loop into the leaf's partial; the partials are joined
# in the recursion's tree (NumPy's pairwise float sums: float16's partials
# in float, complex ones per part, halves at multiples of the kit's split;
# any order gives the integer and max/min ones' bits).  A reduction NumPy folds in order (float
# products, complex max/min) folds leaf after leaf on one thread.  So the
# values never leave the cache, nothing returns to Python per chunk, and
# any thread count gives the same bits.  A piece is 128 KiB of values: measured on 2^24 sum(a*b)
# (Sapphire Rapids VM, 48 KiB L1d, 2 MiB L2), one thread, float64: one
# block's leaves (512 elements) 25.4 ms, 32 KiB 19.3, 128 KiB 18.8-19.0
# (chunked into a buffer before: 21-22); float32 11.7 / 9.4 / 8.9-9.0; two
# threads float64 9.6 / 9.2 / 8.8, float32 4.7 / 4.2 / 3.9-4.0.
cdef int64_t _ev_reduce_piece_bytes = 128 * 1024


# NOTE: [fused columns] in _evaluate.py: a tile's values per reduced index
cdef int64_t _ev_column_tile_bytes = 32 * 1024
cdef int64_t _ev_column_run_bytes = 2048


def _set_evaluate_column_run_bytes(int64_t n):
    """Benchmarks: the least bytes of a row each thread of a fused reduction
    over the slowest dims reads; returns the old value."""
    global _ev_column_run_bytes
    old, _ev_column_run_bytes = _ev_column_run_bytes, n
    return old


def _set_evaluate_column_tile_bytes(int64_t n):
    """Benchmarks: bytes of values per column tile of a fused reduction over
    the slowest dims; returns the old value."""
    global _ev_column_tile_bytes
    old, _ev_column_tile_bytes = _ev_column_tile_bytes, n
    return old


def _set_evaluate_reduce_piece_bytes(int64_t n):
    """Benchmarks: bytes of values per leaf of a fused reduction; returns
    the old value."""
    global _ev_reduce_piece_bytes
    old, _ev_reduce_piece_bytes = _ev_reduce_piece_bytes, n
    return old


cdef struct EvInput:
    int source                  # EV_SOURCE_*
    int index                   # leaf, constant slot or register
    titer_cast_fn cast          # its dtype -> the loop's, or NULL
    int cast_reg                # register the cast writes
    int loop_itemsize

cdef struct EvStep:
    titer_loop1d loop
    int nin
    EvInput inp[3]
    int out_reg
    int out_itemsize

cdef struct EvProgram:
    int nsteps
    int nleaves
    int nregs
    int nconsts
    bint const_is_python[EV_MAX_CONSTS]     # a Python number, else a NumPy scalar
    int const_code[EV_MAX_CONSTS]           # the dtype code the slot holds
    int64_t block               # elements per block
    EvStep step[EV_MAX_STEPS]
    int leaf_itemsize[MAX_OPERANDS]
    int leaf_code[MAX_OPERANDS]
    int leaf_reg[MAX_OPERANDS]  # a strided leaf is gathered here (-1: read through casts only)
    titer_cast_fn leaf_gather[MAX_OPERANDS]
    int64_t reg_offset[EV_MAX_REGS]     # bytes per element before register r
    int64_t scratch_bytes       # a thread's registers, 64-byte multiple
    int64_t pack_leaf_at[MAX_OPERANDS]  # bytes into a thread's scratch to a leaf's packed
    int64_t pack_out_at         # rows, to the packed output (NOTE: [packed rows]),
    int64_t packed_scratch_bytes    # and to their end
    int result_itemsize
    titer_cast_fn result_copy   # the result dtype's identity cast (a broadcast row)

cdef struct EvRun:
    const EvProgram *prog
    int leaf0                   # plan operand of leaf 0
    bint pack                   # rows packed into blocks (NOTE: [packed rows])
    int64_t pack_width          # > 0: dim 0 walked in pieces this long (tiles), else whole
    bint tile_rows_in_place     # tiles: only the transposed leaves packed, rows run in place
    int64_t registers_bytes     # a thread's scratch before a reduction's values: the
                                # registers, then the packed rows where pack
    bint own_output             # the output is plan operand 0 (else out_data/out_stride)
    char *out_data
    int64_t out_stride[MAX_DIMS]
    int out_itemsize
    titer_cast_fn out_cast      # result dtype -> out's, or NULL
    bint stream                 # non-temporal stores of the output
    int prefetch_blocks         # blocks ahead the leaves are prefetched, 0: not
                                # (NOTE: [evaluate prefetch])
    double consts[EV_MAX_CONSTS][2]
    int fpe[EV_MAX_STEPS]       # C fenv flags per step (NOTE: [evaluate flags])
    # a reduction over everything fused into the pass (reduce_all), else NULL
    const titer_reduce_kit *kit
    bint in_order               # one left fold over the leaves in turn (one thread)
    const int64_t *leaf_start   # its leaves' first elements in a row, then the row's length
    int64_t row_len             # elements per reduced row (the rows: consecutive ranges)
    int64_t per_row             # leaves per row
    char *partials              # its leaves' partial results (in order: its rows')
    int64_t widened_at          # bytes from a thread's values to their copy in the kit's
                                # type (fold_widen, buffered reductions), else 0
    int reduce_fpe              # C fenv flags of the reduction's own loops
    # a reduction over the iteration's slowest dims (reduce_columns), else NULL
    titer_loop1d fold_loop      # the op's T,T->T loop: acc = acc op value
    titer_cast_fn fold_cast     # the result dtype -> T (the first values: into acc)
    titer_cast_fn fold_widen    # the result dtype -> T for the fold, or NULL (same dtype)
    int fold_itemsize           # T's
    bint fold_from_start        # each column starts from fold_start (the op's identity,
    char fold_start[16]         # as NumPy's: 0 + -0.0 is +0.0), else from its first value
    int64_t ncols               # kept elements faster than the reduced dims, consecutive
    int64_t nred                # reduced elements per column
    int64_t tile                # columns per unit of work
    int64_t ntiles              # units per batch (the kept elements slower than the reduced)
    int64_t tile_rows           # reduced rows a tile walks at a time (> 1: all columns)
    char *acc                   # the (nbatch, ncols) accumulators of T

cdef extern from *:
    """
    #include <fenv.h>
    static inline void titer_ev_or_flags(int *dst, int bits) {
        __atomic_fetch_or(dst, bits, __ATOMIC_RELAXED);
    }
    """
    void titer_ev_or_flags(int *dst, int bits) noexcept nogil

cdef extern from *:
    """
    #include <string.h>
    /* rows x n0 items from src (strides s0 within a row, s1 between rows)
       to dst (d0, d1): a loop per item size, not a call per row (NOTE:
       [packed rows]) */
    #define TITER_EV_COPY_2D(T)                                              \
        for (int64_t j = 0; j < rows; j++) {                                 \
            const char *s = src + j * s1;                                    \
            char *d = dst + j * d1;                                          \
            for (int64_t i = 0; i < n0; i++) {                               \
                T v;                                                         \
                memcpy(&v, s + i * s0, sizeof(T));                           \
                memcpy(d + i * d0, &v, sizeof(T));                           \
            }                                                                \
        }
    static void titer_ev_copy_2d(const char *src, int64_t s0, int64_t s1, char *dst,
                                 int64_t d0, int64_t d1, int64_t item, int64_t n0,
                                 int64_t rows) {
        typedef struct { uint64_t lo, hi; } titer_ev_16;
        if (s0 == item && d0 == item && n0 * item >= 64) {     /* dense rows */
            for (int64_t j = 0; j < rows; j++)
                memcpy(dst + j * d1, src + j * s1, (size_t)(n0 * item));
            return;
        }
        switch (item) {
        case 1: TITER_EV_COPY_2D(uint8_t) break;
        case 2: TITER_EV_COPY_2D(uint16_t) break;
        case 4: TITER_EV_COPY_2D(uint32_t) break;
        case 8: TITER_EV_COPY_2D(uint64_t) break;
        default: TITER_EV_COPY_2D(titer_ev_16) break;
        }
    }
    """
    void titer_ev_copy_2d(const char *src, int64_t s0, int64_t s1, char *dst, int64_t d0,
                          int64_t d1, int64_t item, int64_t n0, int64_t rows) noexcept nogil



cdef inline int ev_test_flags(int *flags, int k) noexcept nogil:
    flags[k] |= titer_take_fp_flags(FPE_MASK)
    return 0


# NOTE: [evaluate prefetch] A block reads its leaves from memory, then
# computes in L1 while memory idles: the hardware prefetchers follow the
# reads, not the compute, so a pass of blocks moved less than a plain fused
# loop (a C harness of 2*a + 3*b on 2^24 float32, blocks of 1344, Emerald
# Rapids VM: 77% of a fused AVX-512 loop's speed on two threads, 71% on
# one).  Where the leaves come from memory (at least the streaming-store
# threshold of bytes) and the program has two steps or more, each step of
# a block is preceded by a slice of the prefetches (into L2) of the
# contiguous leaves' block _ev_prefetch_blocks ahead, so the requests are
# in flight while the steps compute: 98% / 91% in the harness; through
# titer.evaluate (2^24, interleaved in one process, ms without / with):
# float32 2*a + 3*b 14.2 / 11.4 on one thread, 7.8 / 6.1 on two,
# sqrt(x**2 + y**2) 19.5 / 13.8 and 11.2 / 7.9; float64 2*a + 3*b 28.5 /
# 22.2 and 14.8 / 12.5.  A one-step program (a*b; the fused sum(a*b))
# would send them in one burst before its only loop, which measured 10-20%
# slower (11.2 / 13.0 ms for float32 a*b), as did a burst per block in the
# harness; hints T0 and T2 and distances 1-6 blocks measured about even.
# The fused reductions do not prefetch: sum(a*b + c) measured even to 10%
# either way.
cdef int _ev_prefetch_blocks = 2


def _set_evaluate_prefetch_blocks(int n):
    """Benchmarks: how many blocks ahead a pass from memory prefetches its
    leaves (0: no prefetches); returns the old value."""
    global _ev_prefetch_blocks
    old, _ev_prefetch_blocks = _ev_prefetch_blocks, n
    return old


cdef inline void ev_prefetch_slice(const EvProgram *prog, char **leaf, const int64_t *leaf_stride,
                                   int64_t first, int64_t count, int k) noexcept nogil:
    """Slice k of nsteps of the prefetches of elements [first, first +
    count) of each contiguous leaf."""
    cdef int t
    cdef int64_t nbytes, piece, start
    for t in range(prog.nleaves):
        if leaf_stride[t] != prog.leaf_itemsize[t]:
            continue
        nbytes = count * leaf_stride[t]
        piece = (nbytes + 64 * prog.nsteps - 1) // (64 * prog.nsteps) * 64
        start = k * piece
        if start < nbytes:
            titer_prefetch_l2(leaf[t] + first * leaf_stride[t] + start, min(piece, nbytes - start))


cdef void ev_row(const EvRun *run, char **leaf, const int64_t *leaf_stride, char *out,
                 int64_t out_stride, int64_t n, char *scratch, int *flags) noexcept nogil:
    """One row of n elements in blocks: gather strided leaves, run each
    step's loop (inputs cast into registers where the loop reads another
    dtype; a step whose inputs are all broadcast runs once), write the
    result into the row of the output."""
    cdef const EvProgram *prog = run.prog
    cdef const EvStep *st
    cdef const EvInput *inp
    cdef char *lp[MAX_OPERANDS]
    cdef int64_t ls[MAX_OPERANDS]
    cdef char *reg_ptr[EV_MAX_REGS]
    cdef int64_t reg_stride[EV_MAX_REGS]
    cdef char *data[4]
    cdef int64_t strides[4]
    cdef char *src
    cdef int64_t s, m, off = 0, count, ahead, ahead_count = 0
    cdef int t, k, i, last = prog.nsteps - 1
    cdef bint broadcast, direct
    cdef char *dst
    for k in range(prog.nregs):
        reg_ptr[k] = scratch + prog.reg_offset[k] * prog.block
    while off < n:
        m = min(prog.block, n - off)
        for t in range(prog.nleaves):
            src = leaf[t] + off * leaf_stride[t]
            s = leaf_stride[t]
            if s != 0 and s != prog.leaf_itemsize[t] and prog.leaf_reg[t] >= 0:
                prog.leaf_gather[t](src, s, reg_ptr[prog.leaf_reg[t]], prog.leaf_itemsize[t], m)
                src = reg_ptr[prog.leaf_reg[t]]
                s = prog.leaf_itemsize[t]
            lp[t] = src
            ls[t] = s
        dst = out + off * out_stride
        direct = False
        if run.prefetch_blocks:
            ahead = off + run.prefetch_blocks * prog.block
            ahead_count = min(prog.block, n - ahead)
        for k in range(prog.nsteps):
            st = &prog.step[k]
            if ahead_count > 0:
                ev_prefetch_slice(prog, leaf, leaf_stride, ahead, ahead_count, k)
            broadcast = True
            for i in range(st.nin):
                inp = &st.inp[i]
                if inp.source == EV_SOURCE_LEAF:
                    src = lp[inp.index]
                    s = ls[inp.index]
                elif inp.source == EV_SOURCE_CONST:
                    src = <char *>run.consts[inp.index]
                    s = 0
                else:
                    src = reg_ptr[inp.index]
                    s = reg_stride[inp.index]
                if inp.cast != NULL:
                    inp.cast(src, s, reg_ptr[inp.cast_reg], inp.loop_itemsize, m if s != 0 else 1)
                    src = reg_ptr[inp.cast_reg]
                    s = inp.loop_itemsize if s != 0 else 0
                data[1 + i] = src
                strides[1 + i] = s
                broadcast = broadcast and s == 0
            count = 1 if broadcast else m
            if k == last and not broadcast and run.out_cast == NULL and not run.stream:
                data[0] = dst               # the last step writes the output itself
                strides[0] = out_stride
                direct = True
            else:
                data[0] = reg_ptr[st.out_reg]
                strides[0] = 0 if broadcast else st.out_itemsize
                reg_stride[st.out_reg] = strides[0]
            st.loop(data, strides, count)
            ev_test_flags(flags, k)
        if not direct:
            src = reg_ptr[prog.step[last].out_reg]
            s = reg_stride[prog.step[last].out_reg]
            if run.out_cast != NULL:
                run.out_cast(src, s, dst, out_stride, m)
                ev_test_flags(flags, last)  # the cast into out= belongs to the last op
            elif run.stream and s != 0:
                titer_stream_copy(dst, src, m * prog.result_itemsize)
            else:
                prog.result_copy(src, s, dst, out_stride, m)
        off += m


# NOTE: [packed rows] A plan whose fastest dim is short (a few columns of a
# wide array, a slab of one) would run the whole program once per row, its
# loops called for a handful of elements each.  Where a row is at most a
# block / _ev_pack_ratio, each leaf's rows are gathered into its own buffer
# after the registers until they fill a block (titer_ev_copy_2d: a loop per
# item size, whole rows by memcpy from 64 bytes), the program runs once over
# those contiguous elements, and its output is copied out the same way
# (never streamed).  The same loops over the same elements in the same
# order: the same bits.  Measured (Emerald Rapids VM, float32 a*b + 1 over
# column slices of 2^24-element arrays, one thread, ms, rows run one by one
# -> packed, NumPy): 2 of 8 columns 139 -> 25.2 (40.7), two threads 59 ->
# 13.0; 4 of 8: 152 -> 39.3 (55.5); 16 of 64: 20.6 -> 14.1 (23.4); 128 of
# 1024: 4.86 -> 2.92 (3.75).  The slabs of sum(a*b, axis=(0, 2)) over a
# (524288, 8, 2) array: 110 -> 71 (NumPy 94).
# Operands that disagree on the fastest dim (a.T with b, channels-last with
# channels-first: the plan's tiles) are packed the same way, a square tile
# of _ev_tile_width after another, a band of rows at a time; a leaf or an
# output contiguous along dim 1 goes through titer_transpose.  Per block
# the old gathers read each element of a.T from its own line and page,
# which costs where the lines alias (a stride of a multiple of 2 KiB) or
# a row's pages outnumber the TLB's (more than 2048 of them); elsewhere the
# lines stay in L2 for the rows after and the tiles' copies cost more
# (1500^2 float64, one thread: 12.1 ms gathered, 16.4 in tiles), so only
# those plans run packed tiles (ev_tiles_pay).
# NOTE: [tile rows in place] Where the output agrees with the iteration
# (not transposed), only the transposed leaves need the copy: a tile's rows
# run one by one (ev_tile_rows_in_place), the straight leaves read and the
# output written where they are, the transposed leaves' rows transposed
# into their buffers a band at a time.  The tiles' rows are 1 KiB of the
# widest operand: shorter ones spend a row's overhead on too few elements,
# longer ones make bands of too few rows (the transposes read part lines).
# a*b + 1 with a transposed into a C-order out= (Emerald Rapids VM, one
# thread, packed tiles against these, median of 25 calls interleaved one
# by one): 4096^2 float32 1.89x faster, 2500^2 float32 1.57x, 3000^2
# float64 1.13x, 2048^2 float64 0.97x (best of ten in a row: 14.9 -> 12.2
# ms).  Where the packed tiles do not pay either, the gathers stay: 1500^2
# float64 ran 5.1 -> 3.7 ms in rows of repeated calls, but 16% slower
# interleaved with other calls (its bands of b and out, 1 KiB of 128 rows
# each, are short streams from L3 where the gathers read whole rows), so
# _ev_tiles_in_place is 2.
cdef int64_t _ev_pack_ratio = 4
cdef int64_t _ev_tile_width = 128
cdef int _ev_tiles_in_place = 2
cdef int64_t _ev_tile_row_bytes = 1024


def _set_evaluate_tiles_in_place(int mode, int64_t row_bytes=1024):
    """Benchmarks and tests: where operands disagree on the fastest dim and
    the output does not, 1: tiles whose rows run in place (NOTE: [tile rows
    in place]), `row_bytes` of the widest operand long; 2 (titer's
    choice): those tiles only where packed tiles pay (ev_tiles_pay); 0:
    packed tiles only, where they pay.  Returns the old (mode, row_bytes)."""
    global _ev_tiles_in_place, _ev_tile_row_bytes
    old = (_ev_tiles_in_place, _ev_tile_row_bytes)
    _ev_tiles_in_place, _ev_tile_row_bytes = mode, row_bytes
    return old


def _set_evaluate_tile_width(int64_t n):
    """Benchmarks: the side of the tiles of operands that disagree on the
    fastest dim; returns the old value."""
    global _ev_tile_width
    old, _ev_tile_width = _ev_tile_width, n
    return old


def _set_evaluate_pack_ratio(int64_t n):
    """Benchmarks and tests: plans whose rows are at most a block / n are
    packed into blocks (0: never); returns the old value."""
    global _ev_pack_ratio
    old, _ev_pack_ratio = _ev_pack_ratio, n
    return old


cdef bint ev_tiles_pay(const Plan *p) noexcept nogil:
    """Whether the per-block gathers of an operand transposed in the plan's
    tiles thrash (NOTE: [packed rows]): its dim-0 stride a multiple of 2 KiB
    (every element of a block's gather in a few cache sets), or its dim-0
    run across more pages than the TLB holds."""
    cdef int i
    cdef int64_t s
    for i in range(p.ntensors):
        if p.op[i].transposed:
            s = p.op[i].stride[0] if p.op[i].stride[0] >= 0 else -p.op[i].stride[0]
            if s % 2048 == 0 or (s >= 4096 and p.shape[0] > 2048):
                return True
    return False


cdef void ev_packed_rows(const EvRun *run, const Plan *p, char **leaf, const int64_t *leaf_stride,
                         char *out, int64_t out_s0, int64_t out_s1, int64_t n0, int64_t nrows,
                         char *scratch, int *flags) noexcept nogil:
    """`nrows` rows of `n0` elements (leaf t's next at its dim-1 stride, the
    output's at out_s1) as many at a time as fill a block: gathered, run,
    copied out (NOTE: [packed rows])."""
    cdef const EvProgram *prog = run.prog
    cdef char *packed[MAX_OPERANDS]
    cdef int64_t packed_stride[MAX_OPERANDS]
    cdef char *out_pack = scratch + prog.pack_out_at
    cdef int64_t out_item = run.out_itemsize if run.out_cast != NULL else prog.result_itemsize
    cdef int64_t per = max(prog.block // n0, 1), first, rows, s1, item
    cdef int t
    first = 0
    while first < nrows:
        rows = min(per, nrows - first)
        for t in range(prog.nleaves):
            s1 = p.op[run.leaf0 + t].stride[1]
            item = prog.leaf_itemsize[t]
            if leaf_stride[t] == 0 and s1 == 0:         # one value throughout
                packed[t] = leaf[t]
                packed_stride[t] = 0
                continue
            packed[t] = scratch + prog.pack_leaf_at[t]
            packed_stride[t] = item
            if p.op[run.leaf0 + t].transposed:     # contiguous along dim 1 (plan_cache_blocking)
                titer_transpose(packed[t], n0 * item, leaf[t] + first * s1, leaf_stride[t],
                                n0, rows, <int>item)
            else:
                titer_ev_copy_2d(leaf[t] + first * s1, leaf_stride[t], s1, packed[t], item,
                                 n0 * item, item, n0, rows)
        ev_row(run, packed, packed_stride, out_pack, out_item, rows * n0, scratch, flags)
        if run.own_output and p.op[0].transposed:
            titer_transpose(out + first * out_s1, out_s0, out_pack, n0 * out_item, rows, n0,
                            <int>out_item)
        else:
            titer_ev_copy_2d(out_pack, out_item, n0 * out_item, out + first * out_s1, out_s0,
                             out_s1, out_item, n0, rows)
        first += rows


cdef void ev_tile_rows_in_place(const EvRun *run, const Plan *p, char **leaf,
                                const int64_t *leaf_stride, char *out, int64_t out_s0,
                                int64_t out_s1, int64_t n0, int64_t nrows, char *scratch,
                                int *flags) noexcept nogil:
    """A tile's `nrows` rows of `n0` elements one by one, the straight
    leaves and the output where they are; the transposed leaves' rows
    transposed first, as many at a time as fill a block (NOTE: [packed
    rows])."""
    cdef const EvProgram *prog = run.prog
    cdef char *row_leaf[MAX_OPERANDS]
    cdef int64_t row_stride[MAX_OPERANDS]
    cdef int64_t per = max(prog.block // n0, 1), first, rows, j, item
    cdef int t
    first = 0
    while first < nrows:
        rows = min(per, nrows - first)
        for t in range(prog.nleaves):
            if p.op[run.leaf0 + t].transposed:      # contiguous along dim 1
                item = prog.leaf_itemsize[t]
                titer_transpose(scratch + prog.pack_leaf_at[t], n0 * item,
                                leaf[t] + first * p.op[run.leaf0 + t].stride[1],
                                leaf_stride[t], n0, rows, <int>item)
        for j in range(first, first + rows):
            for t in range(prog.nleaves):
                if p.op[run.leaf0 + t].transposed:
                    item = prog.leaf_itemsize[t]
                    row_leaf[t] = scratch + prog.pack_leaf_at[t] + (j - first) * n0 * item
                    row_stride[t] = item
                else:
                    row_leaf[t] = leaf[t] + j * p.op[run.leaf0 + t].stride[1]
                    row_stride[t] = leaf_stride[t]
            ev_row(run, row_leaf, row_stride, out + j * out_s1, out_s0, n0, scratch, flags)
        first += rows


cdef void ev_packed_tiles(const EvRun *run, const Plan *p, char **leaf,
                          const int64_t *leaf_stride, char *out, int64_t out_s0, int64_t out_s1,
                          int64_t n0, int64_t nrows, char *scratch, int *flags) noexcept nogil:
    """ev_packed_rows over tiles of run.pack_width square, a band of rows
    after another (operands that disagree on the fastest dim: NOTE [packed
    rows]), or over the whole rows."""
    cdef char *shifted[MAX_OPERANDS]
    cdef int64_t width = run.pack_width, i0, j0, n, rows
    cdef int t
    if width <= 0:
        ev_packed_rows(run, p, leaf, leaf_stride, out, out_s0, out_s1, n0, nrows, scratch, flags)
        return
    j0 = 0
    while j0 < nrows:
        rows = min(width, nrows - j0)
        i0 = 0
        while i0 < n0:
            n = min(width, n0 - i0)
            for t in range(run.prog.nleaves):
                shifted[t] = (leaf[t] + i0 * leaf_stride[t]
                              + j0 * p.op[run.leaf0 + t].stride[1])
            if run.tile_rows_in_place:
                ev_tile_rows_in_place(run, p, shifted, leaf_stride,
                                      out + i0 * out_s0 + j0 * out_s1, out_s0, out_s1, n, rows,
                                      scratch, flags)
            else:
                ev_packed_rows(run, p, shifted, leaf_stride, out + i0 * out_s0 + j0 * out_s1,
                               out_s0, out_s1, n, rows, scratch, flags)
            i0 += n
        j0 += rows


cdef void ev_walk(const EvRun *run, const Plan *p, int64_t begin, int64_t end, char *out_data,
                  char *scratch, int *flags) noexcept nogil:
    """Linear range [begin, end) of the plan: the DimCounter walk of
    serial_for_each, one ev_row per row, the output at out_data (dims
    run.out_stride); `scratch` is this thread's registers and packed rows
    (run.registers_bytes, taken by run_pieces_staged before any thread
    writes)."""
    cdef const EvProgram *prog = run.prog
    cdef char *leaf[MAX_OPERANDS]
    cdef int64_t leaf_stride[MAX_OPERANDS]
    cdef int64_t step[2]
    cdef DimCounter counter
    cdef char *out
    cdef int t, d
    cdef int64_t j, out_s0, out_s1
    out_s0 = run.out_stride[0] if p.ndim >= 1 else 0
    out_s1 = run.out_stride[1] if p.ndim >= 2 else 0
    for t in range(prog.nleaves):
        leaf_stride[t] = p.op[run.leaf0 + t].stride[0] if p.ndim >= 1 else 0
    if p.ndim <= 1:
        for t in range(prog.nleaves):
            leaf[t] = p.op[run.leaf0 + t].data + begin * leaf_stride[t]
        ev_row(run, leaf, leaf_stride, out_data + begin * out_s0, out_s0, end - begin,
               scratch, flags)
        return
    counter_init(&counter, p.ndim, p.shape, begin, end)
    while counter.offset < end:
        counter_max_2d_step(&counter, step)
        out = out_data
        for d in range(p.ndim):
            out += counter.values[d] * run.out_stride[d]
        for t in range(prog.nleaves):
            leaf[t] = p.op[run.leaf0 + t].data
            for d in range(p.ndim):
                leaf[t] += counter.values[d] * p.op[run.leaf0 + t].stride[d]
        if run.pack:
            ev_packed_tiles(run, p, leaf, leaf_stride, out, out_s0, out_s1, step[0], step[1],
                            scratch, flags)
        else:
            for j in range(step[1]):
                ev_row(run, leaf, leaf_stride, out, out_s0, step[0], scratch, flags)
                out += out_s1
                for t in range(prog.nleaves):
                    leaf[t] += p.op[run.leaf0 + t].stride[1]
        counter_increment(&counter, step)


cdef inline void ev_merge_flags(EvRun *run, int *flags) noexcept nogil:
    """A piece's per-step flags into the call's (x87 flags: see titer_fpflags.h)."""
    cdef int k
    flags[run.prog.nsteps - 1] |= fetestexcept(FPE_MASK)
    for k in range(run.prog.nsteps):
        if flags[k]:
            titer_ev_or_flags(&run.fpe[k], flags[k])


cdef void ev_range(const Plan *p, int64_t begin, int64_t end, char *scratch) noexcept nogil:
    """Linear range [begin, end) of the plan into run.out_data."""
    cdef EvRun *run = <EvRun *>p.user_ctx
    cdef int flags[EV_MAX_STEPS]
    if end <= begin:
        return
    memset(flags, 0, sizeof(flags))
    titer_clear_fp_flags(FPE_MASK)
    ev_walk(run, p, begin, end, run.out_data, scratch, flags)
    if run.stream:
        titer_stream_fence()
    ev_merge_flags(run, flags)


cdef inline int64_t ev_registers_bytes(const EvRun *run) noexcept nogil:
    return run.registers_bytes


cdef void ev_reduce_leaves(const Plan *p, int64_t first, int64_t last,
                           char *scratch) noexcept nogil:
    """Leaves [first, last) of a fused reduction (NOTE: [fused reduction]):
    each leaf's values into this thread's buffer (after its registers), then
    the kit's pairwise loop over them into the leaf's partial -- or, for a
    reduction NumPy folds in order, its fold into the one partial."""
    cdef EvRun *run = <EvRun *>p.user_ctx
    cdef const EvProgram *prog = run.prog
    cdef const titer_reduce_kit *kit = run.kit
    cdef char *values = scratch + ev_registers_bytes(run)
    cdef int flags[EV_MAX_STEPS]
    cdef int reduce_flags = 0
    cdef int64_t leaf, row, piece, begin, end, item
    cdef char *row_acc
    cdef char *src
    memset(flags, 0, sizeof(flags))
    titer_clear_fp_flags(FPE_MASK)
    for leaf in range(first, last):
        row = leaf // run.per_row
        piece = leaf - row * run.per_row
        begin = row * run.row_len + run.leaf_start[piece]
        end = row * run.row_len + run.leaf_start[piece + 1]
        ev_walk(run, p, begin, end, values - begin * prog.result_itemsize, scratch, flags)
        src = values
        item = prog.result_itemsize
        if run.widened_at:              # converted as NumPy's buffers convert them
            src = values + run.widened_at
            item = run.fold_itemsize
            run.fold_widen(values, prog.result_itemsize, src, item, end - begin)
        row_acc = run.partials + row * kit.acc_size
        if not run.in_order:
            kit.pairwise(src, item, end - begin, run.partials + leaf * kit.acc_size)
        elif piece == 0:                # the row's fold starts from its first element
            kit.load(row_acc, src)
            kit.fold(src + item, item, end - begin - 1, row_acc)
        else:
            kit.fold(src, item, end - begin, row_acc)
        reduce_flags |= titer_take_fp_flags(FPE_MASK)
    ev_merge_flags(run, flags)
    if reduce_flags:
        titer_ev_or_flags(&run.reduce_fpe, reduce_flags)


cdef void ev_join_calls(const titer_reduce_kit *kit, const char *sums, int64_t n,
                        const char *start, char *acc):
    """A buffered reduction's output: its calls' `n` sums added in order to
    `start` (the identity's bytes in the loop type), held in the loop type
    after each add as NumPy's output is between calls (titer.reduce's
    titer_buffer_add)."""
    cdef char held[16]
    cdef int64_t k
    kit.load_out(acc, start)
    for k in range(n):
        kit.combine(acc, sums + k * kit.acc_size)
        kit.store(held, acc)
        kit.load_out(acc, held)


cdef void ev_reduce_columns(const Plan *p, int64_t first, int64_t last,
                            char *scratch) noexcept nogil:
    """Column tiles [first, last) of a reduction over dims slower than the
    kept ones it folds (NOTE: [fused columns] in _evaluate.py), batch after
    batch of the kept dims slower still: for each reduced index in turn, the
    tile's values of that row into this thread's buffer, folded into the
    tile's accumulators by the op's own loop -- each column a left fold in
    iteration order, as NumPy's reduction of this layout runs."""
    cdef EvRun *run = <EvRun *>p.user_ctx
    cdef const EvProgram *prog = run.prog
    cdef int64_t item = prog.result_itemsize, titem = run.fold_itemsize
    cdef char *values = scratch + ev_registers_bytes(run)
    cdef char *widened = values + (run.tile_rows * run.tile * item + 63) // 64 * 64
    cdef int flags[EV_MAX_STEPS]
    cdef int reduce_flags = 0
    cdef int64_t unit, r, c0, n, begin, batch, k, j, rows
    cdef char *data[3]
    cdef int64_t strides[3]
    memset(flags, 0, sizeof(flags))
    titer_clear_fp_flags(FPE_MASK)
    strides[0] = titem
    strides[1] = titem
    strides[2] = titem
    for unit in range(first, last):
        batch = unit // run.ntiles
        c0 = (unit - batch * run.ntiles) * run.tile
        n = min(run.tile, run.ncols - c0)
        data[0] = run.acc + (batch * run.ncols + c0) * titem
        data[1] = data[0]
        data[2] = values
        if run.fold_from_start:
            for k in range(n):
                memcpy(data[0] + k * titem, run.fold_start, titem)
        r = 0
        while r < run.nred:             # tile_rows rows at a time (consecutive where > 1)
            rows = min(run.tile_rows, run.nred - r)
            begin = (batch * run.nred + r) * run.ncols + c0
            ev_walk(run, p, begin, begin + rows * n, values - begin * item, scratch, flags)
            if run.fold_widen != NULL:
                run.fold_widen(values, item, widened, titem, rows * n)
            for j in range(rows):
                if r + j == 0 and not run.fold_from_start:     # from each column's first value
                    run.fold_cast(values, item, data[0], titem, n)
                    continue
                data[2] = (widened if run.fold_widen != NULL else values) + j * n * titem
                run.fold_loop(data, strides, n)
            reduce_flags |= titer_take_fp_flags(FPE_MASK)
            r += rows
    ev_merge_flags(run, flags)
    if reduce_flags:
        titer_ev_or_flags(&run.reduce_fpe, reduce_flags)


cdef dict _EV_STARTS = {}


cdef object ev_reduce_start(name, T):
    """The value np.<name>.reduce starts from (its identity) as a one-element
    array of T, None where it has none; cached per (name, T)."""
    key = (name, T)
    found = _EV_STARTS.get(key, False)
    if found is False:
        entry = <OpEntry>_OPS_BY_NAME[name]
        start = _frontend.reduction_start(entry.spec, entry.ufunc, np._NoValue, False, 1)[1]
        found = _EV_STARTS[key] = None if start is None else _scalar_bytes(start, T)
    return found


cdef class EvalProgram:
    """A compiled program (the C struct ev_row reads), cached by
    titer.evaluate per expression and operand types."""
    cdef EvProgram *prog
    cdef readonly object program        # the planner's description
    cdef readonly tuple labels          # per step: the op name its FP warnings carry
    cdef readonly bint loop_error_possible
    cdef readonly bint discards_imaginary   # some step warns (ComplexWarning)
    cdef readonly int block
    cdef int result_code
    cdef PlanCache *cache                   # the last plan of an output (EvalPass)
    cdef list out_dtypes                    # [the result's dtype]: an output to allocate
    cdef list loop_dtypes                   # the result's, then the leaves' dtypes
    cdef list leaf_dtypes
    cdef tuple leaf_names
    cdef tuple const_refs                   # per constant slot: ("literal", v) / ("name", id)

    def __cinit__(self):
        self.prog = <EvProgram *>calloc(1, sizeof(EvProgram))
        self.cache = <PlanCache *>calloc(1, sizeof(PlanCache))
        if self.prog == NULL or self.cache == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.prog)
        free(self.cache)

    def __init__(self, program):
        cdef EvProgram *prog = self.prog
        cdef EvStep *st
        cdef OpEntry entry
        cdef int k, i, code
        cdef int64_t offset = 0, per_element
        if (len(program.steps) > EV_MAX_STEPS or len(program.reg_itemsizes) > EV_MAX_REGS
                or len(program.consts) > EV_MAX_CONSTS or len(program.leaves) > MAX_OPERANDS - 1):
            raise ValueError("titer.evaluate: the program exceeds the executor's tables")
        self.program = program
        prog.nsteps = len(program.steps)
        prog.nleaves = len(program.leaves)
        prog.nregs = len(program.reg_itemsizes)
        prog.nconsts = len(program.consts)
        for k, c in enumerate(program.consts):
            prog.const_is_python[k] = c.kind == "python"
            prog.const_code[k] = dtype_code(c.dtype)
        for k in range(prog.nregs):
            prog.reg_offset[k] = offset
            offset += program.reg_itemsizes[k]
        per_element = max(offset, 1)
        prog.block = _ev_scratch_bytes // per_element // 64 * 64
        prog.block = min(max(prog.block, <int64_t>EV_MIN_BLOCK), <int64_t>EV_MAX_BLOCK)
        prog.scratch_bytes = (max(per_element * prog.block, <int64_t>64) + 63) // 64 * 64
        self.block = prog.block
        offset = prog.scratch_bytes
        for t, dt in enumerate(program.leaf_dtypes):
            prog.pack_leaf_at[t] = offset
            offset += (prog.block * dt.itemsize + 63) // 64 * 64
        prog.pack_out_at = offset
        prog.packed_scratch_bytes = offset + prog.block * 16     # (any dtype of out=)
        for t, dt in enumerate(program.leaf_dtypes):
            code = dtype_code(dt)
            prog.leaf_itemsize[t] = dt.itemsize
            prog.leaf_code[t] = code
            prog.leaf_reg[t] = program.leaf_regs[t]
            prog.leaf_gather[t] = CAST_TABLE[code][code]
        labels = []
        self.loop_error_possible = False
        for k, step in enumerate(program.steps):
            st = &prog.step[k]
            entry = _OPS_BY_NAME[step.op]
            address = entry.loops.get(step.signature)
            if address is None:
                raise TypeError("titer has no %s loop for %s" % (step.op, step.signature))
            st.loop = <titer_loop1d><uintptr_t>address
            st.nin = len(step.inputs)
            st.out_reg = step.out_reg
            st.out_itemsize = step.out_dtype.itemsize
            for i, inp in enumerate(step.inputs):
                st.inp[i].source = {"leaf": EV_SOURCE_LEAF, "const": EV_SOURCE_CONST,
                                    "reg": EV_SOURCE_REG}[inp.source]
                st.inp[i].index = inp.index
                st.inp[i].loop_itemsize = inp.loop_dtype.itemsize
                st.inp[i].cast_reg = inp.cast_reg
                st.inp[i].cast = NULL
                if inp.cast_reg >= 0:
                    st.inp[i].cast = CAST_TABLE[dtype_code(inp.dtype)][dtype_code(inp.loop_dtype)]
            labels.append(step.label)
            if step.op == "power" and step.signature[0] in "bhil":
                self.loop_error_possible = True     # a negative integer exponent
        self.labels = tuple(labels)
        self.discards_imaginary = any([step.discards_imaginary for step in program.steps])
        self.leaf_names = tuple(program.leaves)
        self.const_refs = (None if program.prelude
                           else tuple([c.ref for c in program.consts]))
        self.result_code = dtype_code(program.result_dtype)
        self.out_dtypes = [program.result_dtype]
        self.leaf_dtypes = list(program.leaf_dtypes)
        self.loop_dtypes = [program.result_dtype] + self.leaf_dtypes
        if prog.nsteps:
            code = self.result_code
            prog.result_itemsize = program.result_dtype.itemsize
            prog.result_copy = CAST_TABLE[code][code]

    def leaves_of(self, dict values):
        """The array leaves, in the program's order, from a call's values."""
        return [values[name] for name in self.leaf_names]

    def consts_of(self, dict values):
        """Per constant slot, its value from a call's values (EvalPass's
        `consts`), or None where a prelude computes some first (the
        caller's _constants then does).  (With leaves_of, in place of two
        Python comprehensions that cost a repeated call ~0.5 us.)"""
        if self.const_refs is None:
            return None
        return [ref[1] if ref[0] == "literal" else values[ref[1]] for ref in self.const_refs]


cdef int value_into(char *buf, object value, int code) except -1:
    """The bytes of a NumPy scalar or 0-d array of dtype `code` (native,
    aligned: the caller made it so) -- a copy, not a computation."""
    cdef cnp.ndarray arr = <cnp.ndarray>(value if cnp.PyArray_Check(value) else
                                         np.asarray(value))
    if dtype_code(arr.descr) != code or not cnp.PyArray_ISNOTSWAPPED(arr):
        raise TypeError("titer.evaluate: constant of dtype %s where %s was planned"
                        % (arr.dtype, DTYPES[code]))
    CAST_TABLE[code][code](<const char *>cnp.PyArray_DATA(arr), 0, buf, 0, 1)
    return 0


cdef class EvalPass:
    """One call's run of a program: the plan built over the output and the
    array leaves (or over the leaves alone, for reduce_all), the constants,
    the per-step FP flags."""
    cdef EvalProgram program
    cdef Plan plan
    cdef EvRun run
    cdef readonly object out             # the output array (None for reduce_all)
    cdef list arrays

    def __init__(self, EvalProgram program, out, list leaves, list consts, bint linear=False):
        """`out`: the output array or None (allocated in the iterator's
        layout, the result's dtype); `leaves`: arrays of at least one dim,
        one per program leaf (byte-swapped or unaligned ones are copied);
        `consts`: per constant slot, a Python number (NumPy's OverflowError
        when its loop dtype cannot hold it) or a NumPy scalar / 0-d array."""
        cdef BuildState st
        cdef BuildFlags flags
        cdef bint in_place
        cdef int64_t widest
        cdef int i, k, n = len(leaves)
        cdef int64_t leaf_bytes
        cdef int codes[MAX_OPERANDS]
        cdef const EvProgram *prog = program.prog
        self.program = program
        memset(&self.run, 0, sizeof(EvRun))
        self.run.prog = prog
        for k in range(prog.nconsts):
            if prog.const_is_python[k]:     # a weak Python number: into the loop's dtype
                python_scalar_into(<char *>self.run.consts[k], consts[k], prog.const_code[k],
                                   False)
            else:
                value_into(<char *>self.run.consts[k], consts[k], prog.const_code[k])
        for i in range(n):                  # the loops read native, aligned values
            x = leaves[i]
            if not (cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>x) and cnp.PyArray_ISALIGNED(<cnp.ndarray>x)):
                native = np.empty(x.shape, x.dtype.newbyteorder("="))
                copy_into(native, x)
                leaves[i] = native
        nout = 0 if linear else 1
        codes[0] = program.result_code
        if out is not None:
            codes[0] = dtype_code((<cnp.ndarray>out).descr)
        for i in range(n):
            codes[nout + i] = prog.leaf_code[i]
        arrays = leaves if linear else [out] + leaves
        # NOTE: [evaluate plans] A program keeps the last plan it built over
        # an output and its leaves (_plan_cache.pxi, keyed by out's dtype): a
        # repeated call with the same shapes and strides takes it with its
        # own data pointers (out allocated in its layout when not given)
        # instead of building; one whose output overlaps a leaf builds (the
        # build copies that leaf).  The plan is copied out under the GIL,
        # so calls from several threads each run their own.
        if not linear and out is None:
            cache_allocate_outputs(program.cache, codes[0], arrays, 1, program.out_dtypes)
        if not linear and cache_lookup(program.cache, codes[0], arrays, 1):
            self.plan = program.cache.plan
            self.arrays = arrays
        else:
            st = plan_state(arrays, program.out_dtypes,
                            program.leaf_dtypes if linear else program.loop_dtypes, codes)
            flags = numpy_ufunc_flags()
            build_plan(&self.plan, st, &flags, nout)
            self.arrays = st.arrays         # an overlapping leaf replaced by its copy
            if not linear and st.arrays is arrays and not st.copied_inputs:
                cache_store(program.cache, codes[0], arrays, &self.plan)
        # operands that disagree on the fastest dim: dims 0 and 1 in tiles
        # of the plan's width, packed (NOTE: [packed rows]), or their rows
        # in place where the output agrees with the iteration (NOTE: [tile
        # rows in place]); else leaves are gathered per block
        in_place = (_ev_tiles_in_place > 0 and not linear and not self.plan.op[0].transposed)
        if (_ev_pack_ratio > 0 and self.plan.tile
                and ((in_place and _ev_tiles_in_place == 1) or ev_tiles_pay(&self.plan))):
            if in_place:
                widest = prog.result_itemsize
                for i in range(self.plan.ntensors):
                    widest = max(widest, self.plan.op[i].itemsize)
                # a band of a transposed leaf is at most a block (its buffer)
                self.run.pack_width = min(max(_ev_tile_row_bytes // widest, 16), prog.block)
                self.run.tile_rows_in_place = True
            else:
                self.run.pack_width = _ev_tile_width
        self.plan.tile = 0
        self.plan.stream_output = False
        self.run.pack = self.run.pack_width > 0 or (
            _ev_pack_ratio > 0 and self.plan.ndim >= 2
            and self.plan.shape[0] * _ev_pack_ratio <= prog.block)
        self.run.registers_bytes = (prog.packed_scratch_bytes if self.run.pack
                                    else prog.scratch_bytes)
        self.plan.user_ctx = &self.run
        leaf_bytes = 0
        for i in range(n):
            leaf_bytes += cnp.PyArray_NBYTES(<cnp.ndarray>leaves[i])
        if not linear and prog.nsteps >= 2 and leaf_bytes >= _stream_min_bytes:
            self.run.prefetch_blocks = _ev_prefetch_blocks      # NOTE: [evaluate prefetch]
        self.run.leaf0 = nout
        self.out = None
        if not linear:
            self.out = self.arrays[0]
            self.run.own_output = True
            self.run.out_data = self.plan.op[0].data
            for k in range(self.plan.ndim):
                self.run.out_stride[k] = self.plan.op[0].stride[k]
            self.run.out_itemsize = self.plan.op[0].itemsize
            if codes[0] != program.result_code:
                self.run.out_cast = CAST_TABLE[program.result_code][codes[0]]
            # NOTE: [evaluate streams] Streamed on one thread too, where
            # elementwise writes plainly (for_each: a lone strided loop is
            # latency-bound): a program's blocks are dense, and one thread
            # on a Sapphire Rapids VM ran 2^24 float64 2*a + 3*b in 26.9 ms
            # streamed against 32.2 plainly, float32 a*b + c*d 21.9 against
            # 23.8 (2^22: 5.8 against 7.2 and even).
            plan_streaming_stores(&self.plan)
            self.run.stream = (self.plan.stream_output and self.run.out_cast == NULL
                               and not self.run.pack)
            self.plan.stream_output = False

    @property
    def numel(self):
        return self.plan.numel

    def run_all(self):
        """Every element, on titer's threads; returns the OR of the steps'
        FP flags (0: nothing to report)."""
        cdef int k, bits = 0
        self._run(self.plan.numel, self.run.stream)
        for k in range(self.program.prog.nsteps):
            bits |= self.run.fpe[k]
        return bits

    @property
    def perm(self):
        """The original dims walked fastest first (as TensorIterator.perm)."""
        return tuple([self.plan.perm[k] for k in range(self.plan.bndim)])

    def reduce_all(self, name, T, bint in_order, int64_t nrows=1, int64_t buffer=0):
        """np.<name>.reduce of the program's values in the loop dtype T over
        each of `nrows` rows, equal consecutive ranges of the iteration
        order, fused into the pass (NOTE: [fused reduction]); a reduction
        NumPy folds `in_order` runs a row's leaves in turn on one thread.
        `buffer` > 0: a pairwise sum as NumPy's through its buffers of that
        many elements (an out= that changes the loop dtype: NOTE [buffered
        reductions] in titer_reduce_buffered.h) -- each row cut into calls
        of `buffer` values, converted to T and summed by T's kit, the sums
        added in order to the identity.  Returns (a (nrows,) array of T, the reduction's own
        FP flags), or None where titer has no kit for it.  Call on a plan of
        the leaves alone (linear)."""
        cdef const EvProgram *prog = self.program.prog
        cdef const titer_reduce_kit *kit
        cdef titer_team team
        cdef int64_t numel = self.plan.numel, per_row, nleaves, leaf, row, row_len, out_item
        cdef int64_t piece = max(_ev_reduce_piece_bytes // prog.result_itemsize,
                                 <int64_t>TITER_PW_BLOCK)
        cdef int64_t stride = prog.result_itemsize, scratch
        cdef int k, status, nthreads
        cdef char acc[16]
        cdef char first[16]
        cdef int64_t *starts = NULL
        cdef char *partials = NULL
        cdef char *dst
        cdef cnp.ndarray result
        dt = self.program.program.result_dtype
        address = (_KITS.get((name, T.char)) if T == dt or buffer
                   else _WIDE_KITS.get((name, dt.char, T.char)))
        if not address or prog.nsteps == 0 or numel <= 0 or nrows <= 0 or numel % nrows:
            return None
        kit = <const titer_reduce_kit *><uintptr_t>address
        start = ev_reduce_start(name, T)
        if buffer and (start is None or in_order):
            return None     # (NumPy's buffered sums start from the identity)
        for k in range(self.plan.ndim):     # the leaves' values dense, in iteration order
            self.run.out_stride[k] = stride
            stride *= self.plan.shape[k]
        self.run.out_cast = NULL
        self.run.stream = False
        self.run.kit = kit
        self.run.in_order = in_order
        row_len = numel // nrows
        if buffer:
            piece = buffer
            per_row = (row_len + buffer - 1) // buffer
        else:
            per_row = titer_pw_cut(0, row_len, kit.split, piece, NULL, 0)
        nleaves = nrows * per_row
        scratch = ev_registers_bytes(&self.run) + piece * prog.result_itemsize
        if buffer and T != dt:
            self.run.fold_widen = CAST_TABLE[dtype_code(dt)][dtype_code(T)]
            self.run.fold_itemsize = T.itemsize
            self.run.widened_at = (piece * prog.result_itemsize + 63) // 64 * 64
            scratch = ev_registers_bytes(&self.run) + self.run.widened_at + piece * T.itemsize
        starts = <int64_t *>alloc_workspace(sizeof(int64_t) * (per_row + 1))
        partials = alloc_workspace(kit.acc_size * (nrows if in_order else nleaves))
        result = np.empty(nrows, T)
        dst = <char *>cnp.PyArray_DATA(result)
        out_item = result.itemsize
        try:
            if starts == NULL or partials == NULL:
                raise MemoryError("titer.evaluate: no memory for the partials of this reduction")
            if buffer:
                for leaf in range(per_row):
                    starts[leaf] = leaf * buffer
            else:
                titer_pw_cut(0, row_len, kit.split, piece, starts, 0)
            starts[per_row] = row_len
            self.run.leaf_start = starts
            self.run.row_len = row_len
            self.run.per_row = per_row
            self.run.partials = partials
            # (a row folded in order stays on one thread: one leaf a row, or one thread)
            nthreads = (1 if (in_order and per_row > 1) or numel < _grain_size
                        else requested_threads())
            with nogil:
                titer_team_open(&team, nthreads, work_units(numel, _grain_size))
                status = run_pieces_staged(ev_reduce_leaves, &self.plan, nleaves, &team,
                                           <size_t>scratch)
            if status < 0:
                raise MemoryError("titer.evaluate: no memory for the blocks of this call")
            _raise_loop_error()
            # the joins and the stores raise flags too (a float16 sum kept
            # in float overflows only as it is stored, as titer.reduce's)
            titer_clear_fp_flags(FPE_MASK)
            for row in range(nrows):
                if in_order:
                    memcpy(acc, partials + row * kit.acc_size, kit.acc_size)
                elif buffer:
                    ev_join_calls(kit, partials + row * per_row * kit.acc_size, per_row,
                                  <const char *>cnp.PyArray_DATA(<cnp.ndarray>start), acc)
                    kit.store(dst + row * out_item, acc)
                    continue
                else:
                    leaf = 0
                    titer_pw_join(kit, partials + row * per_row * kit.acc_size, row_len,
                                  kit.split, piece, &leaf, acc)
                if start is not None:   # the op's identity first, as NumPy's (0 + -0.0)
                    kit.load_out(first, <const char *>cnp.PyArray_DATA(<cnp.ndarray>start))
                    kit.combine(first, acc)
                    memcpy(acc, first, kit.acc_size)
                kit.store(dst + row * out_item, acc)
            titer_ev_or_flags(&self.run.reduce_fpe, titer_take_fp_flags(FPE_MASK))
        finally:
            self.run.kit = NULL
            self.run.leaf_start = NULL
            self.run.partials = NULL
            self.run.widened_at = 0
            self.run.fold_widen = NULL
            free(starts)
            free(partials)
        bits = fpe_bits(self.run.reduce_fpe)
        if name in _QUIET_INVALID:
            bits &= ~8
        return result, bits

    def reduce_columns(self, name, T, int64_t ncols, int64_t nbatch=1):
        """np.<name>.reduce of the program's values in the loop dtype T where
        the reduced dims are consecutive in the iteration, after `ncols` kept
        elements and before `nbatch` (the values are, per batch, rows of
        `ncols`, one row per reduced index) and each column folds its rows in
        order (NOTE: [fused columns] in _evaluate.py).  Returns (a
        (nbatch * ncols,) array of T, the reduction's own FP flags), or None
        where titer has no loop for it.  Call on a plan of the leaves alone
        (linear)."""
        cdef const EvProgram *prog = self.program.prog
        cdef titer_team team
        cdef int64_t numel = self.plan.numel, tile, units, titem
        cdef int64_t stride = prog.result_itemsize
        cdef size_t scratch
        cdef int k, status, nthreads, result_code, fold_code
        cdef OpEntry entry
        cdef cnp.ndarray result
        dt = self.program.program.result_dtype
        entry = _OPS_BY_NAME[name]
        address = entry.loops.get("%s%s->%s" % (T.char, T.char, T.char))
        if (not address or prog.nsteps == 0 or ncols <= 0 or nbatch <= 0 or numel <= 0
                or numel % (ncols * nbatch)):
            return None
        for k in range(self.plan.ndim):     # the values of a row dense, in iteration order
            self.run.out_stride[k] = stride
            stride *= self.plan.shape[k]
        result = np.empty(ncols * nbatch, T)
        result_code = dtype_code(dt)
        fold_code = dtype_code(result.descr)
        self.run.out_cast = NULL
        self.run.stream = False
        self.run.fold_loop = <titer_loop1d><uintptr_t>address
        self.run.fold_cast = CAST_TABLE[result_code][fold_code]
        self.run.fold_widen = NULL if fold_code == result_code else self.run.fold_cast
        titem = result.itemsize
        self.run.fold_itemsize = <int>titem
        self.run.ncols = ncols
        self.run.nred = numel // (ncols * nbatch)
        self.run.acc = <char *>cnp.PyArray_DATA(result)
        start = ev_reduce_start(name, T)
        self.run.fold_from_start = start is not None
        if start is not None:
            memcpy(self.run.fold_start, cnp.PyArray_DATA(<cnp.ndarray>start), titem)
        # threads on batches, else on tiles where each reads runs of at least
        # _ev_column_run_bytes of a row (the prefetchers lose shorter ones: NOTE
        # [fused columns]); tiles of about _ev_column_tile_bytes of values, on
        # 64-byte multiples of the accumulators (threads off each other's lines)
        nthreads = 1 if numel < _grain_size else requested_threads()
        tile = min(max(_ev_column_tile_bytes // prog.result_itemsize, 1), ncols)
        if nbatch < nthreads:
            nthreads = min(nthreads, max(nbatch * ncols * prog.result_itemsize
                                         // _ev_column_run_bytes, 1))
            tile = min(tile, (ncols * nbatch + nthreads - 1) // nthreads)
        tile = (tile * titem + 63) // 64 * 64 // titem
        self.run.tile = tile
        self.run.ntiles = (ncols + tile - 1) // tile
        # a tile of every column walks its rows, consecutive in the
        # iteration, a tile's worth of values at a time (NOTE: [fused columns])
        self.run.tile_rows = (max(_ev_column_tile_bytes // (ncols * prog.result_itemsize), 1)
                              if tile >= ncols else 1)
        if self.run.tile_rows > 1:
            tile = ncols
            self.run.tile = tile
        units = nbatch * self.run.ntiles
        scratch = <size_t>(ev_registers_bytes(&self.run)
                           + (self.run.tile_rows * tile * prog.result_itemsize + 63) // 64 * 64
                           + self.run.tile_rows * tile * titem)
        try:
            with nogil:
                titer_team_open(&team, nthreads, work_units(numel, _grain_size))
                status = run_pieces_staged(ev_reduce_columns, &self.plan, units, &team, scratch)
            if status < 0:
                raise MemoryError("titer.evaluate: no memory for the blocks of this call")
            _raise_loop_error()
        finally:
            self.run.fold_loop = NULL
            self.run.acc = NULL
        bits = fpe_bits(self.run.reduce_fpe)
        if name in _QUIET_INVALID:
            bits &= ~8
        return result, bits

    cdef int _run(self, int64_t units, bint stream) except -1:
        cdef titer_team team
        cdef int nthreads = requested_threads() if units >= _grain_size else 1
        cdef int status
        cdef size_t scratch = <size_t>ev_registers_bytes(&self.run)
        self.run.stream = stream
        if units <= 0:
            return 0
        if units >= 16384:
            with nogil:
                titer_team_open(&team, nthreads, work_units(units, _grain_size))
                status = run_pieces_staged(ev_range, &self.plan, units, &team, scratch)
        else:
            titer_team_open(&team, 1, 1)
            status = run_pieces_staged(ev_range, &self.plan, units, &team, scratch)
        if status < 0:
            raise MemoryError("titer.evaluate: no memory for the blocks of this call")
        _raise_loop_error()
        return 0

    def flags(self):
        """NumPy's FP error bits raised by each step so far."""
        return [fpe_bits(self.run.fpe[k]) for k in range(self.program.prog.nsteps)]


cdef object _MISSING = object()         # a name neither scope has


def evaluate_operands(tuple names, scope, dict f_globals, tuple exponent_names):
    """(values, key): each name's value from `scope`, else `f_globals`
    (NameError if neither has it), and what a cached program depends on
    of them -- per name the dtype and whether it is 0-d, or the Python
    number type; the value of a Python number used as a `**` exponent --
    or None for an operand only titer.evaluate's validation knows."""
    cdef dict values = {}
    cdef list parts = []
    cdef bint known = True
    cdef bint scope_is_dict = type(scope) is dict
    for name in names:
        # dict.get, not [] and KeyError: a caught KeyError cost ~0.35
        # us a name looked up in the globals (about 10% of a 1-element call)
        if scope_is_dict:
            x = (<dict>scope).get(name, _MISSING)
        else:
            try:
                x = scope[name]
            except KeyError:
                x = _MISSING
        if x is _MISSING:
            x = f_globals.get(name, _MISSING)
            if x is _MISSING:
                raise NameError("titer.evaluate: name %r is not defined" % name)
        values[name] = x
        if not known:
            continue
        t = type(x)
        if t is np.ndarray:
            parts.append(((<cnp.ndarray>x).descr, cnp.PyArray_NDIM(<cnp.ndarray>x) == 0))
        elif t is float or t is int or t is complex or t is bool:
            parts.append(t)
        elif isinstance(x, np.generic):
            parts.append((x.dtype, True))
        else:
            known = False
    if not known:
        return values, None
    for name in exponent_names:
        x = values[name]
        if type(x) is int or type(x) is float:
            parts.append((name, type(x), x))
    return values, tuple(parts)

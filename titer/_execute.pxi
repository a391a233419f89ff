# Execution: for_each -> (OpenMP chunks) -> serial_for_each -> DimCounter ->
# loop2d -> the op's 1-d loop.  Everything here is nogil and reads only the
# C Plan; floating-point flags are gathered per chunk and returned.

cdef extern from "<fenv.h>" nogil:
    int fetestexcept(int)
    int FE_DIVBYZERO, FE_OVERFLOW, FE_UNDERFLOW, FE_INVALID

cdef extern from "titer_fpflags.h" nogil:
    void titer_clear_fp_flags(int mask) noexcept

cdef extern from "titer_generated.h" nogil:
    void titer_copy_bytes(const char *src, int64_t src_stride, char *dst,
                          int64_t dst_stride, int64_t n, int itemsize, int swap_unit)

cdef extern from "<stdlib.h>" nogil:
    void *aligned_alloc(size_t alignment, size_t size)

cdef extern from "titer_threads.h" nogil:
    int titer_thread_num()

DEF_GRAIN_SIZE = 32768          # ATen's GRAIN_SIZE, in elements
cdef int64_t _grain_size = DEF_GRAIN_SIZE
cdef int FPE_MASK = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID
cdef enum:
    STAGE_BYTES = BUFFER_BLOCK * 16     # one block of the widest dtype
cdef extern from *:
    """
    int titer_workspace_failures = 0;   /* the test hook _fail_workspaces; titer_reduce.h */
    """
    int titer_workspace_failures


# -- DimCounter (seed 003) -------------------------------------------------------

cdef inline void counter_init(DimCounter *c, int ndim, const int64_t *shape,
                              int64_t begin, int64_t end) noexcept nogil:
    """values = the multi-index of linear offset `begin`, fastest dim first."""
    cdef int64_t linear = begin
    cdef int d
    c.ndim = ndim
    c.shape = shape
    c.begin = begin
    c.end = end
    c.offset = begin
    for d in range(ndim):
        c.values[d] = 0
        if shape[d] > 0:
            c.values[d] = linear % shape[d]
            linear = linear // shape[d]


cdef inline void counter_max_2d_step(const DimCounter *c, int64_t *step) noexcept nogil:
    """The largest (rows of dim 0) x (count of dim 1) block from here."""
    step[0] = min(c.shape[0] - c.values[0], c.end - c.offset)
    step[1] = 1
    if step[0] == c.shape[0] and c.ndim > 1:
        step[1] = min(c.shape[1] - c.values[1], (c.end - c.offset) // c.shape[0])


cdef inline void counter_increment(DimCounter *c, const int64_t *step) noexcept nogil:
    cdef int64_t overflow = step[0], value
    cdef int i = 0
    c.offset += step[0] * step[1]
    if step[1] != 1:                    # dim 0 was whole: carry from dim 1
        i = 1
        overflow = step[1]
    while i < c.ndim and overflow > 0:
        value = c.values[i] + overflow
        if value >= c.shape[i]:
            overflow = 1
            value -= c.shape[i]
        else:
            overflow = 0
        c.values[i] = value
        i += 1


# -- loops -----------------------------------------------------------------------

cdef extern from "titer_stream.h" nogil:
    void titer_stream_copy(char *dst, const char *src, int64_t nbytes)
    void titer_stream_fence()
    void titer_prefetch_l2(const char *p, int64_t nbytes)


# NOTE: [buffered prefetch] A buffered row (an input cast or staged on the
# way in) runs each block in passes: the casts, the loop, the output's copy
# back (or its non-temporal stores); the hardware prefetchers follow the
# reads, not those passes, so memory idles in between, as in
# titer.evaluate's blocks (NOTE: [evaluate prefetch]).  Where the output is
# at least the streaming threshold (its operands come from memory), each
# contiguous input prefetches (into L2) its block _buffered_prefetch_blocks
# ahead as the block takes it, so the prefetches of a block are spread over
# its operands.  2^24 elements, Emerald Rapids VM, interleaved in one
# process (`_set_buffered_prefetch_blocks`), ms without / with, two
# threads: float32 + float64 11.3-13.1 / 10.4-11.2, float64 * int32
# 11.7-12.8 / 10.8-12.2, float32 exp into float64 (dtype=) 10.9-11.8 /
# 9.4-9.9, float16 + float32 7.2-7.6 / 5.8-7.0; one thread: float32 exp
# into float64 27.2-28.1 / 21.9-24.0, float16 + float32 15.8-16.5 /
# 14.9-15.0, float32 + float64 31.4-31.8 / 32.3-33.7 (the one loss, within
# this VM's spread).
cdef int64_t _buffered_prefetch_blocks = 2


def _set_buffered_prefetch_blocks(int64_t n):
    """Benchmarks: how many blocks ahead a buffered row from memory
    prefetches its contiguous inputs (0: no prefetches); returns the old
    value."""
    global _buffered_prefetch_blocks
    old, _buffered_prefetch_blocks = _buffered_prefetch_blocks, n
    return old


cdef void buffered_row(const Plan *p, char **row, const int64_t *strides, int64_t n,
                       char *buffers) noexcept nogil:
    """One row in blocks: inputs that need it are staged (swap / unaligned)
    and cast into per-thread buffers, the loop runs on the buffers, outputs
    are cast and staged back.  No full-size converted copies."""
    cdef char *ptrs[MAX_OPERANDS]
    cdef int64_t bstrides[2 * MAX_OPERANDS]
    cdef int64_t off = 0, m, count
    cdef int t
    cdef const Operand *op
    cdef char *cast_buf
    cdef char *stage_buf
    cdef char *src
    cdef int64_t src_stride, ahead
    cdef bint prefetching = p.numel * p.op[0].itemsize >= _stream_min_bytes
    for t in range(p.ntensors):         # a user loop's dim-1 strides: one row per block
        bstrides[p.ntensors + t] = 0
    while off < n:
        m = min(<int64_t>BUFFER_BLOCK, n - off)
        ahead = off + _buffered_prefetch_blocks * BUFFER_BLOCK if prefetching else off
        # (NOTE: [buffered prefetch]: ahead == off prefetches nothing)
        for t in range(p.ntensors):
            op = &p.op[t]
            src = row[t] + off * strides[t]
            ptrs[t] = src
            bstrides[t] = strides[t]
            if (ahead > off and ahead < n and t >= p.noutputs
                    and strides[t] == op.itemsize):
                titer_prefetch_l2(row[t] + ahead * strides[t], min(<int64_t>BUFFER_BLOCK, n - ahead) * strides[t])
            if t == 0 and p.stream_output:  # plain output, streamed after the loop
                ptrs[0] = buffers
                bstrides[0] = op.itemsize
                continue
            if not op.staged and op.cast == NULL:
                continue
            cast_buf = buffers + t * 2 * STAGE_BYTES
            stage_buf = cast_buf + STAGE_BYTES
            if op.is_output:
                ptrs[t] = cast_buf if op.cast != NULL else stage_buf
                bstrides[t] = op.loop_itemsize
                continue
            count = m if strides[t] != 0 else 1     # a stride-0 input is one value
            src_stride = strides[t]
            if op.staged:
                titer_copy_bytes(src, src_stride, stage_buf, op.itemsize, count,
                                 op.itemsize, op.swap_unit)
                src = stage_buf
                src_stride = op.itemsize
            if op.cast != NULL:
                op.cast(src, src_stride, cast_buf, op.loop_itemsize, count)
                src = cast_buf
                src_stride = op.loop_itemsize
            ptrs[t] = src
            bstrides[t] = src_stride if strides[t] != 0 else 0
        if p.user_loop != NULL:
            p.user_loop(p.user_ctx, ptrs, bstrides, m, 1)
        else:
            p.loop(ptrs, bstrides, m)
        if p.stream_output:
            titer_stream_copy(row[0] + off * strides[0], buffers, m * p.op[0].itemsize)
        for t in range(p.noutputs):
            op = &p.op[t]
            if not op.staged and op.cast == NULL:
                continue
            src = ptrs[t]
            src_stride = op.loop_itemsize
            if op.cast != NULL and op.staged:
                stage_buf = buffers + t * 2 * STAGE_BYTES + STAGE_BYTES
                op.cast(src, src_stride, stage_buf, op.itemsize, m)
                src = stage_buf
                src_stride = op.itemsize
            elif op.cast != NULL:
                op.cast(src, src_stride, row[t] + off * strides[t], strides[t], m)
                continue
            titer_copy_bytes(src, src_stride, row[t] + off * strides[t], strides[t], m,
                             op.itemsize, op.swap_unit)
        off += m


cdef void streamed_row(const Plan *p, char **row, const int64_t *strides, int64_t n,
                       char *buffer) noexcept nogil:
    """The loop writes blocks into an L1 buffer; they go out non-temporally."""
    cdef char *ptrs[MAX_OPERANDS]
    cdef int64_t bstrides[MAX_OPERANDS]
    cdef int64_t off = 0, m, block = STAGE_BYTES // p.op[0].itemsize
    cdef int t
    bstrides[0] = p.op[0].itemsize
    ptrs[0] = buffer
    for t in range(1, p.ntensors):
        bstrides[t] = strides[t]
    while off < n:
        m = min(block, n - off)
        for t in range(1, p.ntensors):
            ptrs[t] = row[t] + off * strides[t]
        p.loop(ptrs, bstrides, m)
        titer_stream_copy(row[0] + off * strides[0], buffer, m * p.op[0].itemsize)
        off += m


cdef inline void loop2d(const Plan *p, char **ptrs, const int64_t *strides,
                        int64_t size0, int64_t size1, char *buffers) noexcept nogil:
    """Seed 003's loop2d: size1 rows of size0 elements; row r starts at
    ptrs + r * (outer strides)."""
    cdef char *row[MAX_OPERANDS]
    cdef int t, nt = p.ntensors
    cdef int64_t j
    if p.user_loop != NULL and not p.buffered:  # titer.api: the author's loop takes the block
        p.user_loop(p.user_ctx, ptrs, strides, size0, size1)
        return
    for t in range(nt):
        row[t] = ptrs[t]
    for j in range(size1):
        if p.buffered:
            buffered_row(p, row, strides, size0, buffers)
        elif p.stream_output:
            streamed_row(p, row, strides, size0, buffers)
        else:
            p.loop(row, strides, size0)
        for t in range(nt):
            row[t] += strides[nt + t]


cdef void serial_for_each(const Plan *p, int64_t begin, int64_t end, char *stage) noexcept nogil:
    """Walk linear range [begin, end) of the iteration space in 2-d steps;
    `stage` is this thread's staging memory (stage_bytes)."""
    cdef char *ptrs[MAX_OPERANDS]
    cdef int64_t strides[2 * MAX_OPERANDS]
    cdef int64_t step[2]
    cdef int64_t one = 1
    cdef DimCounter counter
    cdef int t, d, nt = p.ntensors
    cdef char *buffers = stage
    if end <= begin:
        return
    for t in range(nt):
        strides[t] = p.op[t].stride[0] if p.ndim >= 1 else 0
        strides[nt + t] = p.op[t].stride[1] if p.ndim >= 2 else 0
    if p.ndim <= 1:
        for t in range(nt):
            ptrs[t] = p.op[t].data + begin * strides[t]
        loop2d(p, ptrs, strides, end - begin, 1, buffers)
    else:
        counter_init(&counter, p.ndim, p.shape, begin, end)
        while counter.offset < end:
            for t in range(nt):
                ptrs[t] = p.op[t].data
                for d in range(p.ndim):
                    ptrs[t] += counter.values[d] * p.op[t].stride[d]
            counter_max_2d_step(&counter, step)
            loop2d(p, ptrs, strides, step[0], step[1], buffers)
            counter_increment(&counter, step)
    if p.stream_output:
        titer_stream_fence()


cdef inline int64_t work_units(int64_t numel, int64_t grain) noexcept nogil:
    """How many threads' worth of work: ATen's parallel_for split, none
    smaller than the grain (one below it)."""
    if numel < grain:
        return 1
    return (numel + grain - 1) // grain


ctypedef void (*range_runner)(const Plan *p, int64_t begin, int64_t end,
                              char *stage) noexcept nogil


cdef inline size_t stage_bytes(const Plan *p) noexcept nogil:
    """One thread's staging memory: two blocks per operand where the plan
    converts, realigns, transposes or streams, else none."""
    if p.buffered or p.stream_output or p.tile > 0:
        return <size_t>p.ntensors * 2 * STAGE_BYTES
    return 0


cdef char *alloc_workspace(size_t nbytes) noexcept nogil:
    """64-byte aligned memory for a whole run, taken before any thread
    writes (NULL: out of memory, or the test hook said fail)."""
    global titer_workspace_failures
    if titer_workspace_failures > 0:
        titer_workspace_failures -= 1
        return NULL
    return <char *>aligned_alloc(64, nbytes)


def _fail_workspaces(int n):
    """Test hook: the next `n` workspace allocations fail (MemoryError)."""
    global titer_workspace_failures
    titer_workspace_failures = n


cdef void run_piece(range_runner run, const Plan *p, titer_team *team, int64_t piece,
                    int64_t per, int64_t units, char *stage, size_t per_thread) noexcept nogil:
    """Piece `piece` of `per` units, dynamically claimed: timed for the
    team, FP flags kept; the thread's own slice of the run's staging memory."""
    cdef int64_t began = titer_piece_begin()
    titer_clear_fp_flags(FPE_MASK)
    run(p, piece * per, min(piece * per + per, units),
        stage + <size_t>titer_thread_num() * per_thread if stage != NULL else NULL)
    titer_piece_end(team, began, fetestexcept(FPE_MASK))


cdef int run_pieces(range_runner run, const Plan *p, int64_t units,
                    titer_team *team) noexcept nogil:
    """run_pieces_staged with the plan's own staging (stage_bytes)."""
    return run_pieces_staged(run, p, units, team, stage_bytes(p))


cdef int run_pieces_staged(range_runner run, const Plan *p, int64_t units,
                           titer_team *team, size_t per_thread) noexcept nogil:
    """Units [0, units) on the team opened for them: on the calling thread
    alone, or in the team's pieces claimed dynamically by its threads, the
    calling thread among them (NOTE: [busy machines] in titer_threads.h).
    The staging memory of every thread is taken first, so running out of
    memory writes nothing.  Closes the team; returns the FP flags, or -1
    when memory ran out."""
    cdef int64_t per, c
    cdef char *stage = NULL
    per_thread = (per_thread + 63) // 64 * 64      # every thread's slice 64-byte aligned
    if per_thread > 0:
        stage = alloc_workspace(per_thread * <size_t>max(team.size, 1))
        if stage == NULL:
            titer_team_close(team)
            return -1
    if team.size <= 1:
        run(p, 0, units, stage)
    else:
        per = (units + team.pieces - 1) // team.pieces
        if run == serial_for_each:          # piece edges on 64-element multiples
            per = (per + 63) // 64 * 64     # keep threads off each other's lines
        team.pieces = (units + per - 1) // per
        for c in prange(team.pieces, nogil=True, schedule='dynamic', num_threads=team.size):
            run_piece(run, p, team, c, per, units, stage, per_thread)
    free(stage)
    titer_team_close(team)
    return team.flags | fetestexcept(FPE_MASK)


cdef int for_each(const Plan *p, int64_t grain, int nthreads) noexcept nogil:
    """Run the plan over every element; return the FP exception flags
    raised, -1 when memory ran out (nothing written)."""
    cdef titer_team team
    cdef Plan serial
    if p.numel == 0:
        return 0
    if p.tile > 0:
        return for_each_tiled(p, grain, nthreads)
    titer_clear_fp_flags(FPE_MASK)
    if titer_team_open(&team, nthreads, work_units(p.numel, grain)) == 1 and p.stream_output:
        # one thread is latency-bound, not bandwidth-bound: plain stores win
        serial = p[0]
        serial.stream_output = False
        return run_pieces(serial_for_each, &serial, serial.numel, &team)
    return run_pieces(serial_for_each, p, p.numel, &team)


cdef inline bint releases_gil(int64_t numel) noexcept:
    """run_plan lets other Python threads run during a loop this long (the
    release costs ~0.1-0.2 us): a cached plan it runs must be a private copy
    then, as another thread's call may reuse the cache meanwhile."""
    return numel >= 16384


cdef int run_plan(const Plan *p) except -1:
    """for_each with the caller's thread settings; the GIL is released when
    the work is worth it.  FP flags go to NumPy's errstate rules."""
    cdef int flags
    cdef int64_t grain = _grain_size
    if releases_gil(p.numel):
        with nogil:
            flags = for_each(p, grain, requested_threads() if p.numel >= grain else 1)
    else:
        flags = for_each(p, grain, requested_threads() if p.numel >= grain else 1)
    if flags < 0:
        raise MemoryError("titer: no memory for the staging buffers of this call")
    return flags


_FPE_KINDS = (("divide", 1, "divide by zero"), ("over", 2, "overflow"),
              ("under", 4, "underflow"), ("invalid", 8, "invalid value"))


cdef int fpe_bits(int flags) noexcept:
    """C fenv flags -> NumPy's bit numbering (1 divide, 2 over, 4 under, 8 invalid)."""
    return ((1 if flags & FE_DIVBYZERO else 0) | (2 if flags & FE_OVERFLOW else 0)
            | (4 if flags & FE_UNDERFLOW else 0) | (8 if flags & FE_INVALID else 0))


# collect_fpe's sink (flags per op name, reported later), per thread: other
# threads' calls while a loop has released the GIL report as usual
_fpe_sinks = threading.local()


def collect_fpe(fn, *args):
    """(fn(*args), {op name: FP flags}): the flags titer would have acted on
    during fn, on this thread, gathered instead, for a caller that reports
    them in the order the composed calls would (titer.evaluate's slabs)."""
    outer = getattr(_fpe_sinks, "sink", None)
    sink = _fpe_sinks.sink = {}
    try:
        return fn(*args), sink
    finally:
        _fpe_sinks.sink = outer


def _report_fpe(int bits, str name):
    """Act on FP flags the way a NumPy ufunc does, under np.errstate."""
    if not bits:
        return                  # (np.geterr costs ~0.6 us)
    sink = getattr(_fpe_sinks, "sink", None)
    if sink is not None:
        sink[name] = sink.get(name, 0) | bits
        return
    errs = np.geterr()
    for key, bit, text in _FPE_KINDS:
        if not bits & bit:
            continue
        mode = errs[key]
        if mode == "ignore":
            continue
        message = "%s encountered in %s" % (text, name)
        if mode == "warn":
            warnings.warn(message, RuntimeWarning, stacklevel=2)  # the caller's line
        elif mode == "raise":
            raise FloatingPointError(message)
        elif mode == "call":
            np.geterrcall()(text, bits)     # NumPy passes every raised flag
        elif mode == "print":
            print("Warning: %s" % message)
        elif mode == "log":
            np.geterrcall().write("Warning: %s\n" % message)
